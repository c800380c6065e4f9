import { test } from 'node:test';
import assert from 'node:assert/strict';
import { effectiveConfig, parseKubeletFlags, type EffectiveConfigInput } from '../../src/kubeletconfig/index.js';
import { anyText } from '../../src/util/text.js';

const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
const file = (body: string, dir = '/etc/kubernetes') => ({ bytes: HEADER + body, dir, name: `${dir}/kubelet.yaml` });
const dynamic = (body: string, dir = '/var/lib/kubelet/dynamic-config/store/checkpoints/uid/1') => ({
  bytes: HEADER + body,
  dir,
});
const DKC_ON = '--feature-gates=DynamicKubeletConfig=true';

interface Row {
  name: string;
  input: EffectiveConfigInput;
  expect: Record<string, unknown>;
  source: 'flags' | 'file' | 'dynamic';
}

/** Reads a dotted path out of the config for comparison (Durations as Go text). */
function pick(config: unknown, path: string): unknown {
  let v: unknown = config;
  for (const p of path.split('.')) v = (v as Record<string, unknown>)[p];
  return typeof v === 'object' && v !== null && !Array.isArray(v) && 'nanoseconds' in v ? anyText(v) : v;
}

const ROWS: Row[] = [
  {
    name: 'defaults only (flags-only start keeps the legacy defaults)',
    input: { flags: [] },
    source: 'flags',
    expect: {
      maxPods: 110,
      readOnlyPort: 10255,
      'authorization.mode': 'AlwaysAllow',
      'authentication.anonymous.enabled': true,
    },
  },
  {
    name: 'flags over defaults',
    input: { flags: ['--max-pods=20', '--read-only-port=0'] },
    source: 'flags',
    expect: { maxPods: 20, readOnlyPort: 0 },
  },
  {
    name: 'file over defaults; no legacy defaults with a file',
    input: { file: file('maxPods: 30\n'), flags: [] },
    source: 'file',
    expect: {
      maxPods: 30,
      readOnlyPort: 0,
      'authorization.mode': 'Webhook',
      'authentication.anonymous.enabled': false,
    },
  },
  {
    name: 'flags over file',
    input: { file: file('maxPods: 30\nkubeAPIQPS: 9\n'), flags: ['--max-pods=40'] },
    source: 'file',
    expect: { maxPods: 40, kubeAPIQPS: 9 },
  },
  {
    name: 'a flag equal to the default still wins over the file',
    input: { file: file('maxPods: 30\n'), flags: ['--max-pods=110'] },
    source: 'file',
    expect: { maxPods: 110 },
  },
  {
    name: 'dynamic replaces the file entirely (file-only fields fall back to defaults)',
    input: { file: file('maxPods: 30\nkubeAPIQPS: 9\n'), dynamic: dynamic('maxPods: 50\n'), flags: [DKC_ON] },
    source: 'dynamic',
    expect: { maxPods: 50, kubeAPIQPS: 5 },
  },
  {
    name: 'flags over dynamic',
    input: {
      file: file('maxPods: 30\n'),
      dynamic: dynamic('maxPods: 50\neventRecordQPS: 3\n'),
      flags: [DKC_ON, '--max-pods=60'],
    },
    source: 'dynamic',
    expect: { maxPods: 60, eventRecordQPS: 3 },
  },
  {
    name: 'feature gates: flag keys win, file-only keys kept',
    input: {
      file: file('featureGates:\n  CPUManager: false\n  MemoryQoS: true\n'),
      flags: ['--feature-gates=CPUManager=true,NodeSwap=true'],
    },
    source: 'file',
    expect: { featureGates: { CPUManager: true, NodeSwap: true, MemoryQoS: true } },
  },
  {
    name: 'feature gates: flags merged onto the dynamic config too',
    input: {
      file: file(''),
      dynamic: dynamic('featureGates:\n  MemoryQoS: true\n'),
      flags: ['--feature-gates=DynamicKubeletConfig=true,NodeSwap=true'],
    },
    source: 'dynamic',
    expect: { featureGates: { DynamicKubeletConfig: true, NodeSwap: true, MemoryQoS: true } },
  },
  {
    name: 'relative paths resolve against the directory of their own layer',
    input: {
      file: file('staticPodPath: manifests\n', '/etc/kubernetes'),
      dynamic: dynamic('tlsCertFile: pki/cert\n', '/ckpt/uid/7'),
      flags: [DKC_ON],
    },
    source: 'dynamic',
    expect: { tlsCertFile: '/ckpt/uid/7/pki/cert', staticPodPath: '' },
  },
  {
    name: 'a flag value is not path-resolved',
    input: { file: file('tlsCertFile: a.crt\n', '/etc/k'), flags: ['--tls-private-key-file=b.key'] },
    source: 'file',
    expect: { tlsCertFile: '/etc/k/a.crt', tlsPrivateKeyFile: 'b.key' },
  },
  {
    name: 'parsed flags are accepted as well as argv',
    input: { file: file('maxPods: 30\n'), flags: parseKubeletFlags(['--max-pods=31']) },
    source: 'file',
    expect: { maxPods: 31 },
  },
];

for (const row of ROWS) {
  test(`precedence: ${row.name}`, () => {
    const r = effectiveConfig(row.input);
    assert.ok(r.ok, `expected success: ${JSON.stringify(!r.ok && r.errors)}`);
    assert.equal(r.source, row.source);
    for (const [path, value] of Object.entries(row.expect)) assert.deepEqual(pick(r.config, path), value, path);
  });
}

test('gates enabled by the local file stay enabled while a dynamic config is validated (process gate accumulates)', () => {
  const r = effectiveConfig({
    file: file('featureGates:\n  CustomCPUCFSQuotaPeriod: true\ncpuCFSQuotaPeriod: 50ms\n'),
    dynamic: dynamic('cpuCFSQuotaPeriod: 20ms\n'),
    flags: [DKC_ON],
  });
  assert.ok(r.ok);
  assert.equal(r.config.cpuCFSQuotaPeriod.toString(), '20ms');
  assert.equal(r.featureGates.enabled('CustomCPUCFSQuotaPeriod'), true);
  const alone = effectiveConfig({ file: file(''), dynamic: dynamic('cpuCFSQuotaPeriod: 20ms\n'), flags: [DKC_ON] });
  assert.ok(!alone.ok);
  assert.deepEqual(alone.errors, [
    'invalid configuration: cpuCFSQuotaPeriod 20ms requires feature gate CustomCPUCFSQuotaPeriod',
  ]);
});

test('failures name the layer and the stage', () => {
  const badFlag = effectiveConfig({ flags: ['--port=x'] });
  assert.deepEqual(badFlag.ok ? null : [badFlag.layer, badFlag.stage], ['flags', 'flags']);

  const badGate = effectiveConfig({ flags: ['--feature-gates=Nope=true'] });
  assert.deepEqual(badGate.ok ? null : [badGate.layer, badGate.stage, badGate.errors], [
    'flags',
    'featureGates',
    ['unrecognized feature gate: Nope'],
  ]);

  const badFile = effectiveConfig({ file: { bytes: 'port: 1\n', dir: '/x', name: '/x/kubelet.yaml' }, flags: [] });
  assert.deepEqual(badFile.ok ? null : [badFile.layer, badFile.stage, badFile.errors], [
    'file',
    'decode',
    [`failed to decode: Object 'Kind' is missing in "/x/kubelet.yaml"`],
  ]);

  const invalidLocal = effectiveConfig({ file: file('maxPods: 5\n'), flags: ['--kube-api-qps=-1'] });
  assert.deepEqual(invalidLocal.ok ? null : [invalidLocal.layer, invalidLocal.stage, invalidLocal.errors], [
    'file',
    'validation',
    ['invalid configuration: kubeAPIQPS (--kube-api-qps) -1 must not be a negative number'],
  ]);

  const invalidDynamic = effectiveConfig({ file: file(''), dynamic: dynamic('kubeAPIQPS: -1\n'), flags: [DKC_ON] });
  assert.deepEqual(invalidDynamic.ok ? null : [invalidDynamic.layer, invalidDynamic.stage], ['dynamic', 'validation']);

  const undecodable = effectiveConfig({
    file: file(''),
    dynamic: { bytes: '{0xdeadbeef}', dir: '/c' },
    flags: [DKC_ON],
  });
  assert.deepEqual(undecodable.ok ? null : [undecodable.layer, undecodable.stage], ['dynamic', 'decode']);
});

test('a dynamic config needs the DynamicKubeletConfig gate on the command line', () => {
  const r = effectiveConfig({
    file: file('featureGates:\n  DynamicKubeletConfig: true\n'),
    dynamic: dynamic(''),
    flags: [],
  });
  assert.ok(!r.ok);
  assert.deepEqual(r.errors, [
    'the DynamicKubeletConfig feature gate must be enabled in order to use the --dynamic-config-dir flag',
  ]);
});

test('an invalid local config fails even when a dynamic config is given (it is the implicit last-known-good)', () => {
  const r = effectiveConfig({ file: file('maxPods: -1\n'), dynamic: dynamic(''), flags: [DKC_ON] });
  assert.deepEqual(r.ok ? null : [r.layer, r.stage], ['file', 'validation']);
});

test('warnings from every layer are reported, and non-config arguments are handed back', () => {
  const r = effectiveConfig({
    file: file('foo: 1\n'),
    dynamic: dynamic('bar: 2\n'),
    flags: [DKC_ON, '--kubeconfig=/k'],
  });
  assert.ok(r.ok);
  assert.deepEqual(
    r.warnings.map((w) => [w.layer, w.message]),
    [
      ['flags', 'Setting deprecated feature gate DynamicKubeletConfig=true. It will be removed in a future release.'],
      ['file', 'unknown field "foo"'],
      ['file', 'Setting deprecated feature gate DynamicKubeletConfig=true. It will be removed in a future release.'],
      ['dynamic', 'unknown field "bar"'],
      ['dynamic', 'Setting deprecated feature gate DynamicKubeletConfig=true. It will be removed in a future release.'],
    ],
  );
  assert.deepEqual(r.rest, ['--kubeconfig=/k']);
});
