// Which nodes a config does not suit, by their kubelet minor: fields their minor lacks (and another has), and a
// refusal by their minor where another minor accepts; a typo or a config no minor accepts is not a version matter.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { kubeletVersion } from '../../src/kubeletconfig/index.js';
import { describeIncompatible, incompatibleNodes } from '../../src/nodepolicy/compat.js';

const HEAD = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
const fleet = [
  { node: 'node-1', kubelet: kubeletVersion('1.22') },
  { node: 'node-2', kubelet: kubeletVersion('1.30') },
  { node: 'node-3', kubelet: kubeletVersion('1.32') },
  { node: 'node-4', kubelet: kubeletVersion('1.30') },
];
const incompatible = (body: string): Record<string, string[]> =>
  Object.fromEntries(incompatibleNodes(HEAD + body, fleet).map((i) => [i.node, [...i.unknownFields, ...i.errors]]));

describe('incompatibleNodes', () => {
  it('a field introduced in 1.32 (singleProcessOOMKill, types.go at v0.32.0): every node older than 1.32', () => {
    assert.deepEqual(incompatible('singleProcessOOMKill: true\n'), {
      'node-1': ['singleProcessOOMKill'],
      'node-2': ['singleProcessOOMKill'],
      'node-4': ['singleProcessOOMKill'],
    });
  });

  it('a field introduced in 1.30 (containerLogMaxWorkers, types.go at v0.30.0): only the 1.22 node', () => {
    assert.deepEqual(incompatible('containerLogMaxWorkers: 2\n'), { 'node-1': ['containerLogMaxWorkers'] });
  });

  it('a gate removed in 1.26 (DynamicKubeletConfig, kube_features.go): refused by the newer nodes, in their words', () => {
    const got = incompatibleNodes(`${HEAD}featureGates:\n  DynamicKubeletConfig: true\n`, fleet);
    assert.deepEqual(
      got.map((i) => i.node),
      ['node-2', 'node-3', 'node-4'],
    );
    for (const i of got) assert.match(i.errors.join('\n'), /unrecognized feature gate: DynamicKubeletConfig/);
  });

  it('a config every minor accepts, a typo no minor knows, and a config no minor accepts: no node', () => {
    assert.deepEqual(incompatible('kubeAPIQPS: 20\n'), {});
    assert.deepEqual(incompatible('kubeAPIQSP: 20\n'), {});
    assert.deepEqual(incompatible('kubeAPIQPS: -1\n'), {});
  });

  it('layers: a drop-in that sets a newer field makes the older nodes incompatible, though the base suits them all', () => {
    const layers = [
      { name: 'cm/kube-system/base:kubelet', bytes: `${HEAD}kubeAPIQPS: 20\n` },
      { name: 'cm/kube-system/logs:kubelet', bytes: `${HEAD}containerLogMaxWorkers: 2\n` },
    ];
    assert.deepEqual(
      incompatibleNodes(layers, fleet).map((i) => [i.node, i.unknownFields]),
      [['node-1', ['containerLogMaxWorkers']]],
    );
    assert.deepEqual(incompatibleNodes(layers.slice(0, 1), fleet), []);
  });

  it('names each minor once, oldest first, with its nodes', () => {
    const line = describeIncompatible(incompatibleNodes(`${HEAD}singleProcessOOMKill: true\n`, fleet));
    assert.equal(
      line,
      'kubelet 1.22 (node-1): unknown field singleProcessOOMKill; kubelet 1.30 (node-2, node-4): unknown field singleProcessOOMKill',
    );
  });
});
