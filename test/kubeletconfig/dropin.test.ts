// Drop-in merging against the examples of the kubelet's documentation ("Kubelet Configuration Directory Merging")
// and KEP-3983, field by field, plus the rules those examples imply.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DecodeError, LayerError, render, toJSONObject } from '../../src/kubeletconfig/index.js';

const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
const layer = (name: string, body: string) => ({ name, bytes: HEADER + body });
const json = (base: string, ...dropIns: string[]) =>
  toJSONObject(
    render(
      layer('base', base),
      dropIns.map((d, i) => layer(`0${i}.conf`, d)),
    ).config,
  ) as Record<string, unknown>;

test('structure fields: scalars and embedded structs are overridden field by field', () => {
  const out = json(
    'port: 20250\nauthorization:\n  mode: Webhook\n  webhook:\n    cacheAuthorizedTTL: "5m"\n    cacheUnauthorizedTTL: "30s"\nserializeImagePulls: false\naddress: "192.168.0.1"\n',
    'authorization:\n  mode: AlwaysAllow\n  webhook:\n    cacheAuthorizedTTL: "8m"\n    cacheUnauthorizedTTL: "45s"\naddress: "192.168.0.8"\n',
  );
  assert.equal(out['port'], 20250);
  assert.equal(out['serializeImagePulls'], false);
  assert.deepEqual(out['authorization'], {
    mode: 'AlwaysAllow',
    webhook: { cacheAuthorizedTTL: '8m0s', cacheUnauthorizedTTL: '45s' },
  });
  assert.equal(out['address'], '192.168.0.8');
});

test('a nested field alone leaves its siblings', () => {
  const out = json('authorization:\n  mode: AlwaysAllow\n', 'authorization:\n  webhook:\n    cacheAuthorizedTTL: 8m\n');
  assert.deepEqual(out['authorization'], {
    mode: 'AlwaysAllow',
    webhook: { cacheAuthorizedTTL: '8m0s', cacheUnauthorizedTTL: '30s' },
  });
});

test('lists are replaced whole', () => {
  const out = json(
    'port: 20250\nserializeImagePulls: false\nclusterDNS:\n  - "192.168.0.9"\n  - "192.168.0.8"\n',
    'clusterDNS:\n  - "192.168.0.2"\n  - "192.168.0.3"\n  - "192.168.0.5"\n',
  );
  assert.deepEqual(out['clusterDNS'], ['192.168.0.2', '192.168.0.3', '192.168.0.5']);
  assert.equal(out['port'], 20250);
});

test('maps merge key by key; a map of lists replaces the list of each key it names', () => {
  const out = json(
    'port: 20250\nserializeImagePulls: false\nfeatureGates:\n  AllAlpha: false\n  MemoryQoS: true\nstaticPodURLHeader:\n  kubelet-api-support:\n  - "Authorization: 234APSDFA"\n  - "X-Custom-Header: 123"\n  custom-static-pod:\n  - "Authorization: 223EWRWER"\n  - "X-Custom-Header: 456"\n',
    'featureGates:\n  MemoryQoS: false\n  KubeletTracing: true\n  DynamicResourceAllocation: true\nstaticPodURLHeader:\n  custom-static-pod:\n  - "Authorization: 223EWRWER"\n  - "X-Custom-Header: 345"\n',
  );
  assert.deepEqual(out['featureGates'], {
    AllAlpha: false,
    DynamicResourceAllocation: true,
    KubeletTracing: true,
    MemoryQoS: false,
  });
  assert.deepEqual(out['staticPodURLHeader'], {
    'custom-static-pod': ['Authorization: 223EWRWER', 'X-Custom-Header: 345'],
    'kubelet-api-support': ['Authorization: 234APSDFA', 'X-Custom-Header: 123'],
  });
});

test('drop-ins apply in order; the base is defaulted, drop-ins are not (a zero stays zero)', () => {
  const out = json('maxPods: 50\n', 'maxPods: 60\nevictionHard:\n  memory.available: 200Mi\n', 'maxPods: 0\n');
  assert.equal(out['maxPods'], undefined, 'maxPods 0 is not written (omitempty), i.e. it is 0, not the default 110');
  assert.deepEqual(out['evictionHard'], {
    'imagefs.available': '15%',
    'memory.available': '200Mi',
    'nodefs.available': '10%',
    'nodefs.inodesFree': '5%',
  });
  const r = render(layer('base', 'maxPods: 50\n'), [layer('a.conf', 'maxPods: 0\n')]);
  assert.equal(r.config.maxPods, 0);
});

test('relative paths resolve against the base file only', () => {
  const r = render({ ...layer('base', 'staticPodPath: manifests\n'), dir: '/etc/kubernetes' }, [
    layer('a.conf', 'tlsCertFile: pki/tls.crt\n'),
  ]);
  assert.equal(r.config.staticPodPath, '/etc/kubernetes/manifests');
  assert.equal(r.config.tlsCertFile, 'pki/tls.crt');
});

test('a bad layer is named; warnings say which layer they come from', () => {
  assert.throws(
    () => render(layer('base', ''), [{ name: 'bad.conf', bytes: 'maxPods: 5\n' }]),
    (e: unknown) =>
      e instanceof LayerError &&
      e.source === 'bad.conf' &&
      /Object 'Kind' is missing/.test(e.message) &&
      e.cause instanceof DecodeError,
  );
  const r = render(layer('base', ''), [layer('a.conf', 'maxPodz: 5\n')]);
  assert.deepEqual(
    r.warnings.map((w) => [w.source, w.message]),
    [['a.conf', 'unknown field "maxPodz", did you mean "maxPods"?']],
  );
});

test("the kubelet's own drop-in e2e scenario (test/e2e_node/kubelet_config_dir_test.go), with 1.22's fields", () => {
  const base = 'cpuManagerReconcilePeriod: 10s\n';
  const ten = [
    'port: 10255',
    'readOnlyPort: 10257',
    'clusterDNS:\n- 192.168.1.10',
    'systemReserved:\n  memory: 1Gi',
    'authorization:\n  mode: Webhook\n  webhook:\n    cacheAuthorizedTTL: "5m"\n    cacheUnauthorizedTTL: "30s"',
    'staticPodURLHeader:\n  kubelet-api-support:\n  - "Authorization: 234APSDFA"\n  - "X-Custom-Header: 123"\n  custom-static-pod:\n  - "Authorization: 223EWRWER"\n  - "X-Custom-Header: 456"',
    'reservedMemory:\n- numaNode: 0\n  limits:\n    memory: 1Gi\n- numaNode: 1\n  limits:\n    memory: 2Gi',
    'featureGates:\n  DisableKubeletCloudCredentialProviders: true\n  PodAndContainerStatsFromCRI: true',
  ].join('\n');
  const twenty = [
    'clusterDNS:\n- 192.168.1.1\n- 192.168.1.5\n- 192.168.1.8',
    'port: 8080',
    'cpuManagerReconcilePeriod: 0s',
    'systemReserved:\n  memory: 2Gi',
    'authorization:\n  mode: Webhook\n  webhook:\n    cacheAuthorizedTTL: "6m"\n    cacheUnauthorizedTTL: "40s"',
    'staticPodURLHeader:\n  kubelet-api-support:\n  - "Authorization: 8945AFSG1"\n  - "X-Custom-Header: 987"\n  custom-static-pod:\n  - "Authorization: 223EWRWER"\n  - "X-Custom-Header: 345"',
    'reservedMemory:\n- numaNode: 1\n  limits:\n    memory: 3Gi',
    'featureGates:\n  PodAndContainerStatsFromCRI: false\n  DynamicResourceAllocation: true',
  ].join('\n');
  const c = render(layer('base', base), [
    layer('10-kubelet.conf', ten + '\n'),
    layer('20-kubelet.conf', twenty + '\n'),
  ]).config;
  assert.equal(c.port, 8080, 'overridden by the second file');
  assert.equal(c.readOnlyPort, 10257, 'set by the first file only: retained');
  assert.deepEqual(c.systemReserved, { memory: '2Gi' });
  assert.deepEqual(c.clusterDNS, ['192.168.1.1', '192.168.1.5', '192.168.1.8']);
  assert.equal(
    c.cpuManagerReconcilePeriod.toString(),
    '0s',
    'set explicitly to zero in a drop-in: retained, not defaulted again',
  );
  assert.equal(c.cpuCFSQuotaPeriod.toString(), '100ms', 'set nowhere: the default persists');
  assert.deepEqual(c.staticPodURLHeader, {
    'kubelet-api-support': ['Authorization: 8945AFSG1', 'X-Custom-Header: 987'],
    'custom-static-pod': ['Authorization: 223EWRWER', 'X-Custom-Header: 345'],
  });
  assert.deepEqual(
    c.reservedMemory?.map((r) => [r.numaNode, r.limits?.['memory']?.toString()]),
    [[1, '3Gi']],
    'a list of structs is replaced whole',
  );
  assert.deepEqual(
    [
      c.authorization.mode,
      c.authorization.webhook.cacheAuthorizedTTL.toString(),
      c.authorization.webhook.cacheUnauthorizedTTL.toString(),
    ],
    ['Webhook', '6m0s', '40s'],
  );
  assert.deepEqual(c.featureGates, {
    DisableKubeletCloudCredentialProviders: true,
    PodAndContainerStatsFromCRI: false,
    DynamicResourceAllocation: true,
  });
});

test('a null in a drop-in neither sets nor deletes anything', () => {
  const out = json(
    'maxPods: 50\nevictionHard:\n  memory.available: 300Mi\nfeatureGates:\n  A: true\n',
    'maxPods: null\nevictionHard:\n  memory.available: null\n  nodefs.available: 5%\nfeatureGates:\n  A: null\nclusterDNS: null\n',
  );
  assert.equal(out['maxPods'], 50);
  assert.deepEqual(out['evictionHard'], { 'memory.available': '300Mi', 'nodefs.available': '5%' });
  assert.deepEqual(out['featureGates'], { A: true });
  assert.equal(out['clusterDNS'], undefined);
});
