import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Duration,
  FeatureGates,
  Quantity,
  setDefaults,
  validate,
  type KubeletConfiguration,
  type ValidateOptions,
} from '../../src/kubeletconfig/index.js';

const d = (s: string) => Duration.parse(s);
const q = (s: string) => Quantity.parse(s);

function cfg(patch: (c: KubeletConfiguration) => void): KubeletConfiguration {
  const c = setDefaults({});
  patch(c);
  return c;
}

interface Rule {
  id: string;
  fail: (c: KubeletConfiguration) => void;
  message: string;
  pass: (c: KubeletConfiguration) => void;
  options?: ValidateOptions;
  /** When the rule cannot fail alone: every message expected, in order. */
  all?: string[];
}

const IC = 'invalid configuration:';

const RULES: Rule[] = [
  {
    id: 'V1',
    fail: (c) => (c.nodeLeaseDurationSeconds = 0),
    message: `${IC} nodeLeaseDurationSeconds must be greater than 0`,
    pass: (c) => (c.nodeLeaseDurationSeconds = 1),
  },
  {
    id: 'V2',
    fail: (c) => ((c.cgroupsPerQOS = false), (c.enforceNodeAllocatable = ['pods'])),
    message: `${IC} enforceNodeAllocatable (--enforce-node-allocatable) is not supported unless cgroupsPerQOS (--cgroups-per-qos) is set to true`,
    pass: (c) => ((c.cgroupsPerQOS = false), (c.enforceNodeAllocatable = [])),
  },
  {
    id: 'V3',
    fail: (c) => (c.systemCgroups = '/system'),
    message: `${IC} systemCgroups (--system-cgroups) was specified and cgroupRoot (--cgroup-root) was not specified`,
    pass: (c) => ((c.systemCgroups = '/system'), (c.cgroupRoot = '/')),
  },
  {
    id: 'V4',
    fail: (c) => (c.eventBurst = -1),
    message: `${IC} eventBurst (--event-burst) -1 must not be a negative number`,
    pass: (c) => (c.eventBurst = 0),
  },
  {
    id: 'V5',
    fail: (c) => (c.eventRecordQPS = -2),
    message: `${IC} eventRecordQPS (--event-qps) -2 must not be a negative number`,
    pass: (c) => (c.eventRecordQPS = 0),
  },
  {
    id: 'V6',
    fail: (c) => (c.healthzPort = 65536),
    message: `${IC} healthzPort (--healthz-port) 65536 must be between 1 and 65535, inclusive`,
    pass: (c) => (c.healthzPort = 0),
  },
  {
    id: 'V7',
    fail: (c) => (c.cpuCFSQuotaPeriod = d('50ms')),
    message: `${IC} cpuCFSQuotaPeriod 50ms requires feature gate CustomCPUCFSQuotaPeriod`,
    pass: (c) => ((c.cpuCFSQuotaPeriod = d('50ms')), (c.featureGates = { CustomCPUCFSQuotaPeriod: true })),
  },
  {
    id: 'V8',
    fail: (c) => ((c.cpuCFSQuotaPeriod = d('999ns')), (c.featureGates = { CustomCPUCFSQuotaPeriod: true })),
    message: `${IC} cpuCFSQuotaPeriod (--cpu-cfs-quota-period) 999ns must be between 1usec and 1sec, inclusive`,
    pass: (c) => ((c.cpuCFSQuotaPeriod = d('1s')), (c.featureGates = { CustomCPUCFSQuotaPeriod: true })),
  },
  {
    id: 'V9',
    fail: (c) => ((c.imageGCHighThresholdPercent = 101), (c.imageGCLowThresholdPercent = 80)),
    message: `${IC} imageGCHighThresholdPercent (--image-gc-high-threshold) 101 must be between 0 and 100, inclusive`,
    pass: (c) => (c.imageGCHighThresholdPercent = 100),
  },
  {
    id: 'V10',
    fail: (c) => (c.imageGCLowThresholdPercent = -1),
    message: `${IC} imageGCLowThresholdPercent (--image-gc-low-threshold) -1 must be between 0 and 100, inclusive`,
    pass: (c) => (c.imageGCLowThresholdPercent = 0),
  },
  {
    id: 'V11',
    fail: (c) => ((c.imageGCLowThresholdPercent = 85), (c.imageGCHighThresholdPercent = 85)),
    message: `${IC} imageGCLowThresholdPercent (--image-gc-low-threshold) 85 must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) 85`,
    pass: (c) => ((c.imageGCLowThresholdPercent = 84), (c.imageGCHighThresholdPercent = 85)),
  },
  {
    id: 'V12',
    fail: (c) => (c.iptablesDropBit = 32),
    message: `${IC} iptablesDropBit (--iptables-drop-bit) 32 must be between 0 and 31, inclusive`,
    pass: (c) => (c.iptablesDropBit = 31),
  },
  {
    id: 'V13',
    fail: (c) => (c.iptablesMasqueradeBit = -1),
    message: `${IC} iptablesMasqueradeBit (--iptables-masquerade-bit) -1 must be between 0 and 31, inclusive`,
    pass: (c) => (c.iptablesMasqueradeBit = 0),
  },
  {
    id: 'V14',
    fail: (c) => (c.kubeAPIBurst = -1),
    message: `${IC} kubeAPIBurst (--kube-api-burst) -1 must not be a negative number`,
    pass: (c) => (c.kubeAPIBurst = 0),
  },
  {
    id: 'V15',
    fail: (c) => (c.kubeAPIQPS = -1),
    message: `${IC} kubeAPIQPS (--kube-api-qps) -1 must not be a negative number`,
    pass: (c) => (c.kubeAPIQPS = 0),
  },
  {
    id: 'V16',
    fail: (c) => (c.nodeStatusMaxImages = -2),
    message: `${IC} nodeStatusMaxImages (--node-status-max-images) must be -1 or greater`,
    pass: (c) => (c.nodeStatusMaxImages = -1),
  },
  {
    id: 'V17',
    fail: (c) => (c.maxOpenFiles = -5),
    message: `${IC} maxOpenFiles (--max-open-files) -5 must not be a negative number`,
    pass: (c) => (c.maxOpenFiles = 0),
  },
  {
    id: 'V18',
    fail: (c) => (c.maxPods = -1),
    message: `${IC} maxPods (--max-pods) -1 must not be a negative number`,
    pass: (c) => (c.maxPods = 0),
  },
  {
    id: 'V19',
    fail: (c) => (c.oomScoreAdj = 1001),
    message: `${IC} oomScoreAdj (--oom-score-adj) 1001 must be between -1000 and 1000, inclusive`,
    pass: (c) => (c.oomScoreAdj = -1000),
  },
  {
    id: 'V20',
    fail: (c) => (c.podsPerCore = -1),
    message: `${IC} podsPerCore (--pods-per-core) -1 must not be a negative number`,
    pass: (c) => (c.podsPerCore = 0),
  },
  {
    id: 'V21',
    fail: (c) => (c.port = 0),
    message: `${IC} port (--port) 0 must be between 1 and 65535, inclusive`,
    pass: (c) => (c.port = 65535),
  },
  {
    id: 'V22',
    fail: (c) => (c.readOnlyPort = -1),
    message: `${IC} readOnlyPort (--read-only-port) -1 must be between 0 and 65535, inclusive`,
    pass: (c) => (c.readOnlyPort = 0),
  },
  {
    id: 'V23',
    fail: (c) => (c.registryBurst = -1),
    message: `${IC} registryBurst (--registry-burst) -1 must not be a negative number`,
    pass: (c) => (c.registryBurst = 0),
  },
  {
    id: 'V24',
    fail: (c) => (c.registryPullQPS = -1),
    message: `${IC} registryPullQPS (--registry-qps) -1 must not be a negative number`,
    pass: (c) => (c.registryPullQPS = 0),
  },
  {
    id: 'V25',
    fail: (c) => ((c.serverTLSBootstrap = true), (c.featureGates = { RotateKubeletServerCertificate: false })),
    message: `${IC} serverTLSBootstrap true requires feature gate RotateKubeletServerCertificate`,
    pass: (c) => (c.serverTLSBootstrap = true),
  },
  {
    id: 'V26',
    fail: (c) => ((c.topologyManagerPolicy = 'best-effort'), (c.featureGates = { TopologyManager: false })),
    message: `${IC} topologyManagerPolicy best-effort requires feature gate TopologyManager`,
    pass: (c) => (c.topologyManagerPolicy = 'best-effort'),
  },
  {
    id: 'V27',
    fail: (c) => (c.topologyManagerPolicy = 'tight'),
    message: `${IC} topologyManagerPolicy non-allowable value: tight`,
    pass: (c) => (c.topologyManagerPolicy = 'single-numa-node'),
  },
  {
    id: 'V28',
    fail: (c) => ((c.topologyManagerScope = 'pod'), (c.featureGates = { TopologyManager: false })),
    message: `${IC} topologyManagerScope pod requires feature gate TopologyManager`,
    pass: (c) => (c.topologyManagerScope = 'pod'),
  },
  {
    id: 'V29',
    fail: (c) => (c.topologyManagerScope = 'node'),
    message: `${IC} topologyManagerScope non-allowable value: node`,
    pass: (c) => (c.topologyManagerScope = 'container'),
  },
  {
    id: 'V30',
    fail: (c) => ((c.shutdownGracePeriod = d('10s')), (c.shutdownGracePeriodCriticalPods = d('20s'))),
    message: `${IC} ShutdownGracePeriod 10s must be >= 0, ShutdownGracePeriodCriticalPods 20s must be >= 0, and ShutdownGracePeriodCriticalPods 20s must be <= ShutdownGracePeriod 10s`,
    pass: (c) => ((c.shutdownGracePeriod = d('30s')), (c.shutdownGracePeriodCriticalPods = d('10s'))),
  },
  {
    id: 'V31',
    fail: (c) => (c.shutdownGracePeriod = d('500ms')),
    message: `${IC} ShutdownGracePeriod 500ms must be either zero or otherwise >= 1 sec`,
    pass: (c) => (c.shutdownGracePeriod = d('1s')),
  },
  {
    id: 'V32',
    fail: (c) => ((c.shutdownGracePeriod = d('1m')), (c.shutdownGracePeriodCriticalPods = d('1ms'))),
    message: `${IC} ShutdownGracePeriodCriticalPods 1ms must be either zero or otherwise >= 1 sec`,
    pass: (c) => ((c.shutdownGracePeriod = d('1m')), (c.shutdownGracePeriodCriticalPods = d('0s'))),
  },
  {
    id: 'V33',
    fail: (c) => ((c.shutdownGracePeriod = d('1m')), (c.featureGates = { GracefulNodeShutdown: false })),
    message: `${IC} Specifying ShutdownGracePeriod or ShutdownGracePeriodCriticalPods requires feature gate GracefulNodeShutdown`,
    pass: (c) => (c.featureGates = { GracefulNodeShutdown: false }),
  },
  {
    id: 'V34',
    fail: (c) => ((c.memorySwap.swapBehavior = 'AllTheSwap'), (c.featureGates = { NodeSwap: true })),
    message: `${IC} MemorySwap.SwapBehavior AllTheSwap must be one of: LimitedSwap, UnlimitedSwap`,
    pass: (c) => ((c.memorySwap.swapBehavior = 'UnlimitedSwap'), (c.featureGates = { NodeSwap: true })),
  },
  {
    id: 'V35',
    fail: (c) => (c.memorySwap.swapBehavior = 'LimitedSwap'),
    message: `${IC} MemorySwap.SwapBehavior cannot be set when NodeSwap feature flag is disabled`,
    pass: (c) => (c.memorySwap.swapBehavior = ''),
  },
  {
    id: 'V36',
    fail: (c) => (c.enforceNodeAllocatable = ['pods', 'system-reserved']),
    message: `${IC} systemReservedCgroup (--system-reserved-cgroup) must be specified when 'system-reserved' contained in enforceNodeAllocatable (--enforce-node-allocatable)`,
    pass: (c) => ((c.enforceNodeAllocatable = ['pods', 'system-reserved']), (c.systemReservedCgroup = '/system.slice')),
  },
  {
    id: 'V37',
    fail: (c) => (c.enforceNodeAllocatable = ['kube-reserved']),
    message: `${IC} kubeReservedCgroup (--kube-reserved-cgroup) must be specified when 'kube-reserved' contained in enforceNodeAllocatable (--enforce-node-allocatable)`,
    pass: (c) => ((c.enforceNodeAllocatable = ['kube-reserved']), (c.kubeReservedCgroup = '/kube.slice')),
  },
  {
    id: 'V38',
    fail: (c) => (c.enforceNodeAllocatable = ['none', 'pods']),
    message: `${IC} enforceNodeAllocatable (--enforce-node-allocatable) may not contain additional enforcements when 'none' is specified`,
    pass: (c) => (c.enforceNodeAllocatable = ['none']),
  },
  {
    id: 'V39',
    fail: (c) => (c.enforceNodeAllocatable = ['everything']),
    message: `${IC} option "everything" specified for enforceNodeAllocatable (--enforce-node-allocatable). Valid options are "pods", "system-reserved", "kube-reserved", or "none"`,
    pass: (c) => (c.enforceNodeAllocatable = ['pods']),
  },
  {
    id: 'V40',
    fail: (c) => (c.hairpinMode = 'bridge'),
    message: `${IC} option "bridge" specified for hairpinMode (--hairpin-mode). Valid options are "none", "hairpin-veth" or "promiscuous-bridge"`,
    pass: (c) => (c.hairpinMode = 'hairpin-veth'),
  },
  {
    id: 'V41',
    fail: (c) => ((c.reservedSystemCPUs = '0-1'), (c.kubeReservedCgroup = '/kube')),
    message: `can't use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup (--system-reserved-cgroup) or kubeReservedCgroup (--kube-reserved-cgroup)`,
    pass: (c) => (c.reservedSystemCPUs = '0-1'),
  },
  {
    id: 'V42',
    fail: (c) => (c.reservedSystemCPUs = '0,x'),
    message: `unable to parse reservedSystemCPUs (--reserved-cpus), error: strconv.Atoi: parsing "x": invalid syntax`,
    pass: (c) => (c.reservedSystemCPUs = '0-3,8,10-11'),
  },
  {
    id: 'V43',
    fail: (c) => (c.reservedMemory = [{ numaNode: 0, limits: { cpu: q('1') } }]),
    message: `the limit type "cpu" for NUMA node 0 is not supported, only [memory hugepages-<HugePageSize>] is accepted`,
    pass: (c) => (c.reservedMemory = [{ numaNode: 0, limits: { memory: q('1Gi'), 'hugepages-2Mi': q('4Mi') } }]),
  },
  {
    id: 'V44',
    fail: (c) => (c.reservedMemory = [{ numaNode: 1, limits: { memory: q('0') } }]),
    message: `reserved memory may not be zero for NUMA node 1 and resource "memory"`,
    pass: (c) => (c.reservedMemory = [{ numaNode: 1, limits: { memory: q('1m') } }]),
  },
  {
    id: 'V45',
    fail: (c) =>
      (c.reservedMemory = [
        { numaNode: 0, limits: { memory: q('1Gi') } },
        { numaNode: 0, limits: { memory: q('2Gi') } },
      ]),
    message: `the reserved memory has a duplicate value for NUMA node 0 and resource "memory"`,
    pass: (c) =>
      (c.reservedMemory = [
        { numaNode: 0, limits: { memory: q('1Gi') } },
        { numaNode: 1, limits: { memory: q('2Gi') } },
      ]),
  },
  {
    id: 'V46',
    fail: (c) => ((c.cgroupsPerQOS = true), (c.enforceNodeAllocatable = [])),
    message: `${IC} CgroupsPerQOS (--cgroups-per-qos) true is not supported on Windows`,
    pass: (c) => ((c.cgroupsPerQOS = false), (c.enforceNodeAllocatable = [])),
    options: { platform: 'windows' },
  },
  {
    id: 'V47',
    // A non-empty list fails V2 (cgroupsPerQOS off) or V46 (on) as well on Windows.
    fail: (c) => (
      (c.cgroupsPerQOS = false),
      (c.enforceNodeAllocatable = ['pods', 'kube-reserved']),
      (c.kubeReservedCgroup = '/kube')
    ),
    message: `${IC} EnforceNodeAllocatable (--enforce-node-allocatable) [pods kube-reserved] is not supported on Windows`,
    all: [
      `${IC} enforceNodeAllocatable (--enforce-node-allocatable) is not supported unless cgroupsPerQOS (--cgroups-per-qos) is set to true`,
      `${IC} EnforceNodeAllocatable (--enforce-node-allocatable) [pods kube-reserved] is not supported on Windows`,
    ],
    pass: (c) => ((c.cgroupsPerQOS = false), (c.enforceNodeAllocatable = [])),
    options: { platform: 'windows' },
  },
  {
    id: 'V48',
    fail: (c) => (c.showHiddenMetricsForVersion = '1.20'),
    message: `--show-hidden-metrics-for-version must be omitted or have the value '1.21'. Only the previous minor version is allowed`,
    pass: (c) => (c.showHiddenMetricsForVersion = '1.21'),
  },
  {
    id: 'V49',
    fail: (c) => (c.logging.format = 'json'),
    message: `logging.format: Invalid value: "json": Non-default format doesn't honor flag: log-dir`,
    pass: (c) => (c.logging.format = 'text'),
    options: { nonDefaultLoggingFlags: ['log-dir'] },
  },
  {
    id: 'V50',
    fail: (c) => (c.logging.format = 'xml'),
    message: `logging.format: Invalid value: "xml": Unsupported log format`,
    pass: (c) => (c.logging.format = 'json'),
  },
  {
    id: 'V51',
    fail: (c) => (delete c.memoryThrottlingFactor, (c.featureGates = { MemoryQoS: true })),
    message: `${IC} memoryThrottlingFactor is required when MemoryQoS feature flag is enabled`,
    pass: (c) => (c.featureGates = { MemoryQoS: true }),
  },
  {
    id: 'V52',
    fail: (c) => (c.memoryThrottlingFactor = 1.5),
    message: `${IC} memoryThrottlingFactor 1.5 must be greater than 0 and less than or equal to 1.0`,
    pass: (c) => (c.memoryThrottlingFactor = 1.0),
  },
];

test('the defaults are valid', () => {
  assert.deepEqual(validate(setDefaults({})), { errors: [], message: '' });
});

test('all 52 rules are covered', () => {
  assert.equal(new Set(RULES.map((r) => r.id)).size, 52);
});

for (const r of RULES) {
  test(`${r.id}: fails with the exact message`, () => {
    const res = validate(cfg(r.fail), r.options);
    if (r.all) {
      assert.deepEqual(res.errors, r.all);
      assert.equal(res.message, `[${r.all.join(', ')}]`);
      return;
    }
    assert.deepEqual(res.errors, [r.message]);
    assert.equal(res.message, r.message, 'a single error is rendered alone');
  });
  test(`${r.id}: passes`, () => {
    assert.deepEqual(validate(cfg(r.pass), r.options).errors, []);
  });
}

test('several errors aggregate as [a, b] in rule order, duplicates dropped', () => {
  const c = cfg((x) => {
    x.maxPods = -1;
    x.eventBurst = -1;
    x.enforceNodeAllocatable = ['system-reserved', 'system-reserved'];
  });
  const res = validate(c);
  const burst = `${IC} eventBurst (--event-burst) -1 must not be a negative number`;
  const pods = `${IC} maxPods (--max-pods) -1 must not be a negative number`;
  const sys = `${IC} systemReservedCgroup (--system-reserved-cgroup) must be specified when 'system-reserved' contained in enforceNodeAllocatable (--enforce-node-allocatable)`;
  assert.deepEqual(res.errors, [burst, pods, sys]);
  assert.equal(res.message, `[${burst}, ${pods}, ${sys}]`);
});

test('two identical messages aggregate to the message alone', () => {
  const res = validate(cfg((x) => (x.enforceNodeAllocatable = ['kube-reserved', 'kube-reserved'])));
  assert.equal(res.errors.length, 1);
  assert.ok(!res.message.startsWith('['));
});

test('Windows rules flatten into the aggregate', () => {
  const res = validate(
    cfg((x) => (x.maxPods = -1)),
    { platform: 'windows' },
  );
  assert.deepEqual(res.errors, [
    `${IC} maxPods (--max-pods) -1 must not be a negative number`,
    `${IC} CgroupsPerQOS (--cgroups-per-qos) true is not supported on Windows`,
    `${IC} EnforceNodeAllocatable (--enforce-node-allocatable) [pods] is not supported on Windows`,
  ]);
});

test('an unknown feature gate is returned alone, before any rule runs', () => {
  const res = validate(cfg((x) => ((x.featureGates = { NoSuchGate: true }), (x.maxPods = -1))));
  assert.deepEqual(res, {
    errors: ['unrecognized feature gate: NoSuchGate'],
    message: 'unrecognized feature gate: NoSuchGate',
  });
});

test('a locked gate set against its lock', () => {
  const res = validate(cfg((x) => (x.featureGates = { NodeLease: false })));
  assert.deepEqual(res.errors, ['cannot set feature gate NodeLease to false, feature is locked to true']);
});

test('gate-dependent rules use the effective gates: process gates plus the config gates', () => {
  const c = cfg((x) => (x.cpuCFSQuotaPeriod = d('50ms')));
  assert.equal(validate(c).errors.length, 1);
  const processGates = FeatureGates.defaults().setFromMap({ CustomCPUCFSQuotaPeriod: true }).gates;
  assert.deepEqual(validate(c, { featureGates: processGates }).errors, []);
  const off = cfg((x) => ((x.cpuCFSQuotaPeriod = d('50ms')), (x.featureGates = { CustomCPUCFSQuotaPeriod: false })));
  assert.equal(
    validate(off, { featureGates: processGates }).errors.length,
    1,
    'the config gates override the process gates',
  );
});

test('AllAlpha turns on alpha gates the rules consult', () => {
  const c = cfg((x) => ((x.memorySwap.swapBehavior = 'bogus'), (x.featureGates = { AllAlpha: true })));
  assert.deepEqual(validate(c).errors, [
    `${IC} MemorySwap.SwapBehavior bogus must be one of: LimitedSwap, UnlimitedSwap`,
  ]);
});

test('reserved CPU list parsing', () => {
  const msg = (s: string) => validate(cfg((x) => (x.reservedSystemCPUs = s))).errors;
  assert.deepEqual(msg('3-1'), [
    `unable to parse reservedSystemCPUs (--reserved-cpus), error: invalid range "3-1" (3 >= 1)`,
  ]);
  assert.deepEqual(msg('0,'), [
    `unable to parse reservedSystemCPUs (--reserved-cpus), error: strconv.Atoi: parsing "": invalid syntax`,
  ]);
  assert.deepEqual(msg('99999999999999999999'), [
    `unable to parse reservedSystemCPUs (--reserved-cpus), error: strconv.Atoi: parsing "99999999999999999999": value out of range`,
  ]);
  assert.deepEqual(msg('1-2-3'), [], 'upstream ignores elements with two dashes');
});

test('durations in messages use Go formatting', () => {
  const c = cfg((x) => (x.shutdownGracePeriod = d('1m30.5s')));
  c.shutdownGracePeriodCriticalPods = d('2m');
  assert.match(validate(c).message, /ShutdownGracePeriod 1m30\.5s must be >= 0, ShutdownGracePeriodCriticalPods 2m0s/);
});

test('validate never throws, even on a malformed object', () => {
  const broken = {
    ...setDefaults({}),
    memorySwap: undefined,
    logging: undefined,
    cpuCFSQuotaPeriod: undefined,
  } as unknown as KubeletConfiguration;
  const res = validate(broken);
  assert.ok(Array.isArray(res.errors));
  const garbage = validate(null as unknown as KubeletConfiguration);
  assert.equal(garbage.errors.length, 1);
});
