import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diffConfigs, formatPath, load, setDefaults } from '../../src/kubeletconfig/index.js';

const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
const cfg = (body: string) => load(HEADER + body).config;

test('a default spelled out is no difference; Durations compare by value', () => {
  assert.deepEqual(diffConfigs(cfg('maxPods: 110\nsyncFrequency: 60s\n'), setDefaults({})), []);
});

test('changed leaves, in YAML path form, with both values', () => {
  const changes = diffConfigs(
    cfg('maxPods: 110\nauthentication:\n  webhook:\n    enabled: true\n'),
    cfg(
      'maxPods: 50\nauthentication:\n  webhook:\n    enabled: false\nevictionHard:\n  memory.available: 200Mi\nclusterDNS: [10.0.0.10]\n',
    ),
  );
  assert.deepEqual(
    changes.map((c) => [c.path, c.old, c.new]),
    [
      ['authentication.webhook.enabled', true, false],
      ['clusterDNS', undefined, ['10.0.0.10']],
      ['maxPods', 110, 50],
      ['evictionHard["imagefs.available"]', '15%', undefined],
      ['evictionHard["memory.available"]', '100Mi', '200Mi'],
      ['evictionHard["nodefs.available"]', '10%', undefined],
      ['evictionHard["nodefs.inodesFree"]', '5%', undefined],
    ],
  );
  assert.deepEqual(changes[4]!.keys, ['evictionHard', 'memory.available']);
});

test('a list is one leaf; an empty map against none is a difference', () => {
  const changes = diffConfigs(cfg('clusterDNS: [a, b]\n'), cfg('clusterDNS: [a]\nevictionSoft: {}\n'));
  assert.deepEqual(
    changes.map((c) => [c.path, c.old, c.new]),
    [
      ['clusterDNS', ['a', 'b'], ['a']],
      ['evictionSoft', undefined, {}],
    ],
  );
});

test('path form quotes keys a dot would make ambiguous', () => {
  assert.equal(formatPath(['featureGates', 'NodeSwap']), 'featureGates.NodeSwap');
  assert.equal(formatPath(['staticPodURLHeader', 'X-Auth']), 'staticPodURLHeader.X-Auth');
  assert.equal(formatPath(['kubeReserved', 'hugepages-2Mi']), 'kubeReserved.hugepages-2Mi');
  assert.equal(formatPath(['evictionHard', 'memory.available']), 'evictionHard["memory.available"]');
});
