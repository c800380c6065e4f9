import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FeatureGateError,
  FeatureGates,
  KNOWN_FEATURES,
  effectiveFeatureGates,
} from '../../src/kubeletconfig/index.js';

test('the 1.22 gate list: defaults, stages and locks of the gates validation consults', () => {
  const expect: Array<[string, boolean, string, boolean]> = [
    ['CustomCPUCFSQuotaPeriod', false, 'Alpha', false],
    ['RotateKubeletServerCertificate', true, 'Beta', false],
    ['TopologyManager', true, 'Beta', false],
    ['GracefulNodeShutdown', true, 'Beta', false],
    ['NodeSwap', false, 'Alpha', false],
    ['MemoryQoS', false, 'Alpha', false],
    ['CPUManager', true, 'Beta', false],
    ['CPUManagerPolicyOptions', false, 'Alpha', false],
    ['MemoryManager', true, 'Beta', false],
    ['QOSReserved', false, 'Alpha', false],
    ['SeccompDefault', false, 'Alpha', false],
    ['DynamicKubeletConfig', false, 'Deprecated', false],
    ['NodeLease', true, 'GA', true],
    ['WarningHeaders', true, 'GA', true],
    ['WatchBookmark', true, 'GA', true],
    ['AllAlpha', false, 'Alpha', false],
    ['AllBeta', false, 'Beta', false],
  ];
  for (const [name, def, stage, locked] of expect) {
    assert.deepEqual(KNOWN_FEATURES.get(name), { name, default: def, stage, locked }, name);
  }
  // kube gates, the generic and apiserver-package gates registered in the same process, AllAlpha/AllBeta
  assert.equal(KNOWN_FEATURES.size, 129);
});

test('unknown gate', () => {
  assert.throws(
    () => FeatureGates.defaults().setFromMap({ Bogus: true }),
    (e: unknown) => e instanceof FeatureGateError && e.message === 'unrecognized feature gate: Bogus',
  );
  assert.deepEqual(effectiveFeatureGates({ Bogus: false }), { error: 'unrecognized feature gate: Bogus' });
});

test('locked gate: setting the default is fine, the other value is an error', () => {
  assert.equal(FeatureGates.defaults().setFromMap({ Sysctls: true }).gates.enabled('Sysctls'), true);
  assert.throws(() => FeatureGates.defaults().setFromMap({ Sysctls: false }), {
    message: 'cannot set feature gate Sysctls to false, feature is locked to true',
  });
});

test('setting deprecated and GA gates produces the kubelet warnings', () => {
  const r = FeatureGates.defaults().setFromMap({ DynamicKubeletConfig: true, ExecProbeTimeout: true, NodeSwap: true });
  assert.deepEqual(r.warnings, [
    'Setting deprecated feature gate DynamicKubeletConfig=true. It will be removed in a future release.',
    'Setting GA feature gate ExecProbeTimeout=true. It will be removed in a future release.',
  ]);
});

test('merging is per key and states are immutable', () => {
  const base = FeatureGates.defaults();
  const a = base.setFromMap({ NodeSwap: true, CPUManager: false }).gates;
  const b = a.setFromMap({ CPUManager: true }).gates;
  assert.equal(base.enabled('NodeSwap'), false);
  assert.equal(a.enabled('CPUManager'), false);
  assert.equal(b.enabled('NodeSwap'), true, 'keys not in the new map are kept');
  assert.equal(b.enabled('CPUManager'), true);
  assert.deepEqual(b.toMap(), { CPUManager: true, NodeSwap: true });
});

test('AllAlpha and AllBeta fill only gates not explicitly set', () => {
  const g = FeatureGates.defaults().setFromMap({
    AllAlpha: true,
    NodeSwap: false,
    AllBeta: false,
    TopologyManager: true,
  }).gates;
  assert.equal(g.enabled('MemoryQoS'), true);
  assert.equal(g.enabled('NodeSwap'), false);
  assert.equal(g.enabled('CPUManager'), false);
  assert.equal(g.enabled('TopologyManager'), true);
  assert.equal(g.enabled('NodeLease'), true, 'GA gates are untouched');
  const earlier = FeatureGates.defaults().setFromMap({ MemoryQoS: false }).gates.setFromMap({ AllAlpha: true }).gates;
  assert.equal(earlier.enabled('MemoryQoS'), false, 'a gate set by an earlier call counts as explicitly set');
});

test('asking about an unregistered gate is a programming error', () => {
  assert.throws(() => FeatureGates.defaults().enabled('Nope'), FeatureGateError);
});
