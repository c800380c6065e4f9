import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FeatureGates,
  cleanPath,
  joinPath,
  setDefaults,
  validateStartup,
  type KubeletConfiguration,
} from '../../src/kubeletconfig/index.js';

function startup(patch: (c: KubeletConfiguration) => void, gates?: FeatureGates) {
  const c = setDefaults({});
  patch(c);
  return validateStartup(c, gates ? { featureGates: gates } : {});
}

test('the defaults pass the start-up checks', () => {
  assert.deepEqual(validateStartup(setDefaults({})), { errors: [], warnings: [] });
});

test('TLS cipher suites: the first unknown name fails; insecure ones only warn', () => {
  assert.deepEqual(startup((c) => (c.tlsCipherSuites = ['TLS_AES_128_GCM_SHA256', 'TLS_FOO', 'TLS_BAR'])).errors, [
    "Cipher suite TLS_FOO not supported or doesn't exist",
  ]);
  const ok = startup((c) => (c.tlsCipherSuites = ['TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305', 'TLS_RSA_WITH_RC4_128_SHA']));
  assert.deepEqual(ok.errors, []);
  assert.deepEqual(ok.warnings, ['Use of insecure cipher detected. cipher="TLS_RSA_WITH_RC4_128_SHA"']);
});

test('TLS minimum version', () => {
  assert.deepEqual(startup((c) => (c.tlsMinVersion = 'VersionTLS13')).errors, []);
  assert.deepEqual(startup((c) => (c.tlsMinVersion = 'TLS1.3')).errors, ['unknown tls version "TLS1.3"']);
});

test('authorization mode', () => {
  assert.deepEqual(startup((c) => (c.authorization.mode = 'AlwaysAllow')).errors, []);
  assert.deepEqual(startup((c) => (c.authorization.mode = '')).errors, ['no authorization mode specified']);
  assert.deepEqual(startup((c) => (c.authorization.mode = 'RBAC')).errors, ['unknown authorization mode RBAC']);
});

test('reserved resources: kube-reserved is checked before system-reserved', () => {
  assert.deepEqual(
    startup((c) => (c.systemReserved = { cpu: '100m', memory: '1Gi', 'ephemeral-storage': '1Gi', pid: '100' })).errors,
    [],
  );
  assert.deepEqual(startup((c) => ((c.systemReserved = { gpu: '1' }), (c.kubeReserved = { memory: '-1Gi' }))).errors, [
    'resource quantity for "memory" cannot be negative: -1Gi',
    'cannot reserve "gpu" resource',
  ]);
  assert.deepEqual(startup((c) => (c.kubeReserved = { cpu: 'lots' })).errors, [
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
  ]);
});

test('manager policies and their gates', () => {
  assert.deepEqual(startup((c) => (c.cpuManagerPolicy = 'static')).errors, []);
  assert.deepEqual(startup((c) => (c.cpuManagerPolicy = 'exclusive')).errors, ['unknown policy: "exclusive"']);
  assert.deepEqual(
    startup((c) => ((c.cpuManagerPolicy = 'exclusive'), (c.featureGates = { CPUManager: false }))).errors,
    [],
  );
  assert.deepEqual(startup((c) => (c.memoryManagerPolicy = 'static')).errors, ['unknown policy: "static"']);
  assert.deepEqual(startup((c) => (c.cpuManagerPolicyOptions = { 'full-pcpus-only': 'true', b: 'x' })).errors, [
    'CPU Manager policy options map[b:x full-pcpus-only:true] require feature gates "CPUManager", "CPUManagerPolicyOptions" enabled',
  ]);
  const gates = FeatureGates.defaults().setFromMap({ CPUManagerPolicyOptions: true }).gates;
  assert.deepEqual(
    startup(
      (c) => ((c.cpuManagerPolicy = 'static'), (c.cpuManagerPolicyOptions = { 'full-pcpus-only': 'true' })),
      gates,
    ).errors,
    [],
  );
  assert.deepEqual(
    startup(
      (c) => ((c.cpuManagerPolicy = 'static'), (c.cpuManagerPolicyOptions = { 'full-pcpus-only': 'maybe' })),
      gates,
    ).errors,
    ['bad value for option "full-pcpus-only": strconv.ParseBool: parsing "maybe": invalid syntax'],
  );
  assert.deepEqual(
    startup(
      (c) => ((c.cpuManagerPolicy = 'static'), (c.cpuManagerPolicyOptions = { 'full-pcpus-only': 'constructor' })),
      gates,
    ).errors,
    ['bad value for option "full-pcpus-only": strconv.ParseBool: parsing "constructor": invalid syntax'],
  );
  assert.deepEqual(
    startup(
      (c) => ((c.cpuManagerPolicy = 'static'), (c.cpuManagerPolicyOptions = { 'align-by-socket': 'true' })),
      gates,
    ).errors,
    ['unsupported cpumanager option: "align-by-socket" (true)'],
  );
});

test('seccompDefault needs its gate; the configmap strategy must be known', () => {
  assert.deepEqual(startup((c) => (c.seccompDefault = true)).errors, [
    'the SeccompDefault feature gate must be enabled in order to use the SeccompDefault configuration',
  ]);
  assert.deepEqual(startup((c) => ((c.seccompDefault = true), (c.featureGates = { SeccompDefault: true }))).errors, []);
  assert.deepEqual(startup((c) => (c.configMapAndSecretChangeDetectionStrategy = 'Poll')).errors, [
    'unknown configmap and secret manager mode: Poll',
  ]);
});

test('all failures are reported together', () => {
  const r = startup((c) => {
    c.tlsMinVersion = 'x';
    c.authorization.mode = 'y';
  });
  assert.deepEqual(r.errors, ['unknown tls version "x"', 'unknown authorization mode y']);
});

test('path joining follows Go filepath.Join', () => {
  assert.equal(joinPath('/etc/kubernetes', 'a/../b/'), '/etc/kubernetes/b');
  assert.equal(joinPath('/etc', '../../x'), '/x');
  assert.equal(joinPath('', 'a//b/.'), 'a/b');
  assert.equal(joinPath('rel', '../..'), '..');
  assert.equal(cleanPath(''), '.');
});
