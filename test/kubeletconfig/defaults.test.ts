import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Duration,
  FIELD_NAMES,
  Quantity,
  decode,
  flagsOnlyDefaults,
  load,
  setDefaults,
  type KubeletConfiguration,
} from '../../src/kubeletconfig/index.js';

const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';

/** Durations and Quantities compared by their Go text. */
function plain(v: unknown): unknown {
  if (v instanceof Duration || v instanceof Quantity) return v.toString();
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

// What SetDefaults_KubeletConfiguration gives an empty v1beta1 object (Linux build); undefined = stays nil.
const EXPECTED: Record<string, unknown> = {
  enableServer: true,
  staticPodPath: '',
  syncFrequency: '1m0s',
  fileCheckFrequency: '20s',
  httpCheckFrequency: '20s',
  staticPodURL: '',
  staticPodURLHeader: undefined,
  address: '0.0.0.0',
  port: 10250,
  readOnlyPort: 0,
  tlsCertFile: '',
  tlsPrivateKeyFile: '',
  tlsCipherSuites: undefined,
  tlsMinVersion: '',
  rotateCertificates: false,
  serverTLSBootstrap: false,
  authentication: {
    x509: { clientCAFile: '' },
    webhook: { enabled: true, cacheTTL: '2m0s' },
    anonymous: { enabled: false },
  },
  authorization: { mode: 'Webhook', webhook: { cacheAuthorizedTTL: '5m0s', cacheUnauthorizedTTL: '30s' } },
  registryPullQPS: 5,
  registryBurst: 10,
  eventRecordQPS: 5,
  eventBurst: 10,
  enableDebuggingHandlers: true,
  enableContentionProfiling: false,
  healthzPort: 10248,
  healthzBindAddress: '127.0.0.1',
  oomScoreAdj: -999,
  clusterDomain: '',
  clusterDNS: undefined,
  streamingConnectionIdleTimeout: '4h0m0s',
  nodeStatusUpdateFrequency: '10s',
  nodeStatusReportFrequency: '5m0s',
  nodeLeaseDurationSeconds: 40,
  imageMinimumGCAge: '2m0s',
  imageGCHighThresholdPercent: 85,
  imageGCLowThresholdPercent: 80,
  volumeStatsAggPeriod: '1m0s',
  kubeletCgroups: '',
  systemCgroups: '',
  cgroupRoot: '',
  cgroupsPerQOS: true,
  cgroupDriver: 'cgroupfs',
  cpuManagerPolicy: 'none',
  cpuManagerPolicyOptions: undefined,
  cpuManagerReconcilePeriod: '10s',
  memoryManagerPolicy: 'None',
  topologyManagerPolicy: 'none',
  topologyManagerScope: 'container',
  qosReserved: undefined,
  runtimeRequestTimeout: '2m0s',
  hairpinMode: 'promiscuous-bridge',
  maxPods: 110,
  podCIDR: '',
  podPidsLimit: -1,
  resolvConf: '/etc/resolv.conf',
  runOnce: false,
  cpuCFSQuota: true,
  cpuCFSQuotaPeriod: '100ms',
  nodeStatusMaxImages: 50,
  maxOpenFiles: 1000000,
  contentType: 'application/vnd.kubernetes.protobuf',
  kubeAPIQPS: 5,
  kubeAPIBurst: 10,
  serializeImagePulls: true,
  evictionHard: {
    'memory.available': '100Mi',
    'nodefs.available': '10%',
    'nodefs.inodesFree': '5%',
    'imagefs.available': '15%',
  },
  evictionSoft: undefined,
  evictionSoftGracePeriod: undefined,
  evictionPressureTransitionPeriod: '5m0s',
  evictionMaxPodGracePeriod: 0,
  evictionMinimumReclaim: undefined,
  podsPerCore: 0,
  enableControllerAttachDetach: true,
  protectKernelDefaults: false,
  makeIPTablesUtilChains: true,
  iptablesMasqueradeBit: 14,
  iptablesDropBit: 15,
  featureGates: undefined,
  failSwapOn: true,
  memorySwap: { swapBehavior: '' },
  containerLogMaxSize: '10Mi',
  containerLogMaxFiles: 5,
  configMapAndSecretChangeDetectionStrategy: 'Watch',
  systemReserved: undefined,
  kubeReserved: undefined,
  reservedSystemCPUs: '',
  showHiddenMetricsForVersion: '',
  systemReservedCgroup: '',
  kubeReservedCgroup: '',
  enforceNodeAllocatable: ['pods'],
  allowedUnsafeSysctls: undefined,
  volumePluginDir: '/usr/libexec/kubernetes/kubelet-plugins/volume/exec/',
  providerID: '',
  kernelMemcgNotification: false,
  logging: { format: 'text', sanitization: false },
  enableSystemLogHandler: true,
  shutdownGracePeriod: '0s',
  shutdownGracePeriodCriticalPods: '0s',
  reservedMemory: undefined,
  enableProfilingHandler: true,
  enableDebugFlagsHandler: true,
  seccompDefault: false,
  memoryThrottlingFactor: 0.8,
};

test('the field table lists exactly the 102 v1beta1 fields, in struct order', () => {
  assert.equal(FIELD_NAMES.length, 102);
  assert.deepEqual(Object.keys(EXPECTED), [...FIELD_NAMES]);
});

const fromEmptyFile = load(HEADER).config;
const fromNothing = setDefaults({});

for (const field of Object.keys(EXPECTED)) {
  test(`default of ${field}`, () => {
    const key = field as keyof KubeletConfiguration;
    assert.deepEqual(plain(fromNothing[key]), EXPECTED[field]);
    assert.deepEqual(plain(fromEmptyFile[key]), EXPECTED[field], 'a file without the field gets the same default');
  });
}

// Pointer fields: an explicit zero/false in the file is kept.
const POINTER_ZEROES: Array<[string, string, unknown]> = [
  ['enableServer', 'false', false],
  ['registryPullQPS', '0', 0],
  ['eventRecordQPS', '0', 0],
  ['enableDebuggingHandlers', 'false', false],
  ['healthzPort', '0', 0],
  ['oomScoreAdj', '0', 0],
  ['imageGCHighThresholdPercent', '0', 0],
  ['imageGCLowThresholdPercent', '0', 0],
  ['cgroupsPerQOS', 'false', false],
  ['podPidsLimit', '0', 0],
  ['cpuCFSQuota', 'false', false],
  ['cpuCFSQuotaPeriod', '"0s"', '0s'],
  ['nodeStatusMaxImages', '0', 0],
  ['kubeAPIQPS', '0', 0],
  ['serializeImagePulls', 'false', false],
  ['enableControllerAttachDetach', 'false', false],
  ['makeIPTablesUtilChains', 'false', false],
  ['iptablesMasqueradeBit', '0', 0],
  ['iptablesDropBit', '0', 0],
  ['failSwapOn', 'false', false],
  ['containerLogMaxFiles', '0', 0],
  ['enableSystemLogHandler', 'false', false],
  ['enableProfilingHandler', 'false', false],
  ['enableDebugFlagsHandler', 'false', false],
  ['memoryThrottlingFactor', '0', 0],
  ['evictionHard', '{}', {}],
  ['enforceNodeAllocatable', '[]', []],
];
for (const [field, yaml, expected] of POINTER_ZEROES) {
  test(`explicit ${field}: ${yaml} survives defaulting`, () => {
    const c = load(`${HEADER}${field}: ${yaml}\n`).config as unknown as Record<string, unknown>;
    assert.deepEqual(plain(c[field]), expected);
  });
}

// Value fields: the Go zero value means "unset" and is replaced.
const VALUE_ZEROES: Array<[string, string, unknown]> = [
  ['port', '0', 10250],
  ['registryBurst', '0', 10],
  ['eventBurst', '0', 10],
  ['nodeLeaseDurationSeconds', '0', 40],
  ['maxPods', '0', 110],
  ['maxOpenFiles', '0', 1000000],
  ['kubeAPIBurst', '0', 10],
  ['address', '""', '0.0.0.0'],
  ['hairpinMode', '""', 'promiscuous-bridge'],
  ['syncFrequency', '"0s"', '1m0s'],
  ['streamingConnectionIdleTimeout', '"0"', '4h0m0s'],
  ['containerLogMaxSize', '""', '10Mi'],
];
for (const [field, yaml, expected] of VALUE_ZEROES) {
  test(`${field}: ${yaml} is the zero value and gets the default`, () => {
    const c = load(`${HEADER}${field}: ${yaml}\n`).config as unknown as Record<string, unknown>;
    assert.deepEqual(plain(c[field]), expected);
  });
}

test('an explicit eventRecordQPS: 0 survives while port: 0 becomes 10250', () => {
  const c = load(`${HEADER}eventRecordQPS: 0\nport: 0\n`).config;
  assert.equal(c.eventRecordQPS, 0);
  assert.equal(c.port, 10250);
});

test('nodeStatusReportFrequency copies an explicit nodeStatusUpdateFrequency, decided before that is defaulted', () => {
  assert.equal(load(`${HEADER}nodeStatusUpdateFrequency: 20s\n`).config.nodeStatusReportFrequency.toString(), '20s');
  assert.equal(load(`${HEADER}nodeStatusUpdateFrequency: 0s\n`).config.nodeStatusReportFrequency.toString(), '5m0s');
  const both = load(`${HEADER}nodeStatusUpdateFrequency: 20s\nnodeStatusReportFrequency: 1m\n`).config;
  assert.equal(both.nodeStatusReportFrequency.toString(), '1m0s');
});

test('a negative podPidsLimit is rewritten to -1; positive values stay', () => {
  assert.equal(load(`${HEADER}podPidsLimit: -42\n`).config.podPidsLimit, -1);
  assert.equal(load(`${HEADER}podPidsLimit: 4096\n`).config.podPidsLimit, 4096);
});

test('reservedMemory limits are rounded up to milli precision', () => {
  const c = load(
    `${HEADER}reservedMemory:\n- numaNode: 1\n  limits:\n    memory: 1n\n    hugepages-2Mi: "-1n"\n    hugepages-1Gi: 2Gi\n`,
  ).config;
  const limits = c.reservedMemory![0]!.limits!;
  assert.equal(limits['memory']!.toString(), '1m');
  assert.equal(limits['hugepages-2Mi']!.toString(), '-1m', 'away from zero');
  assert.equal(limits['hugepages-1Gi']!.toString(), '2Gi');
});

test('partial nested objects are completed field by field', () => {
  const c = load(
    `${HEADER}authentication:\n  anonymous:\n    enabled: true\nauthorization:\n  mode: AlwaysAllow\n`,
  ).config;
  assert.equal(c.authentication.anonymous.enabled, true);
  assert.equal(c.authentication.webhook.enabled, true);
  assert.equal(c.authentication.webhook.cacheTTL.toString(), '2m0s');
  assert.equal(c.authorization.mode, 'AlwaysAllow');
  assert.equal(c.authorization.webhook.cacheUnauthorizedTTL.toString(), '30s');
});

test('setDefaults does not modify its input', () => {
  const partial = decode(`${HEADER}evictionHard:\n  memory.available: 1Gi\n`).config;
  const before = JSON.stringify(partial);
  const full = setDefaults(partial);
  full.evictionHard!['memory.available'] = 'changed';
  assert.equal(JSON.stringify(partial), before);
});

test('flags-only start uses the legacy command-line defaults', () => {
  const c = flagsOnlyDefaults();
  assert.equal(c.readOnlyPort, 10255);
  assert.equal(c.authentication.anonymous.enabled, true);
  assert.equal(c.authentication.webhook.enabled, false);
  assert.equal(c.authorization.mode, 'AlwaysAllow');
  assert.equal(c.port, 10250);
});
