import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setDefaults, type PartialKubeletConfiguration } from '../../../src/kubeletconfig/index.js';
import {
  computeAllocatable,
  computeCapacity,
  formatResourceList,
  isNodeAgentError,
  mergeCapacity,
  parseCapacityFlag,
  parseEvictionThreshold,
  podsFromConfig,
} from '../../../src/agent/node/index.js';
import { Quantity } from '../../../src/kubeletconfig/index.js';

const SIM = 'cpu=4,memory=8Gi,pods=110,ephemeral-storage=100Gi';

function allocatable(
  flag: string,
  partial: PartialKubeletConfiguration,
): { capacity: Record<string, string>; allocatable: Record<string, string> } {
  const config = setDefaults(partial);
  const capacity = computeCapacity(parseCapacityFlag(flag), config);
  return {
    capacity: formatResourceList(capacity),
    allocatable: formatResourceList(computeAllocatable(capacity, config)),
  };
}

describe('computeAllocatable', () => {
  const table: Array<{
    name: string;
    flag?: string;
    config: PartialKubeletConfiguration;
    capacity?: Record<string, string>;
    want: Record<string, string>;
  }> = [
    {
      name: 'defaults: 100Mi memory.available and 10% nodefs.available (float32 percentage, truncated bytes)',
      config: {},
      capacity: { cpu: '4', 'ephemeral-storage': '100Gi', memory: '8Gi', pods: '110' },
      want: { cpu: '4', 'ephemeral-storage': '96636764000', memory: '8092Mi', pods: '110' },
    },
    {
      name: 'kubeReserved + systemReserved for cpu, memory and ephemeral-storage, no eviction thresholds',
      config: {
        kubeReserved: { cpu: '500m', memory: '1Gi', 'ephemeral-storage': '1Gi', pid: '100' },
        systemReserved: { cpu: '250m', memory: '512Mi' },
        evictionHard: {},
      },
      want: { cpu: '3250m', 'ephemeral-storage': '99Gi', memory: '6656Mi', pods: '110' },
    },
    {
      name: 'reservations and thresholds add up',
      config: {
        kubeReserved: { memory: '100Mi' },
        systemReserved: { memory: '92Mi' },
        evictionHard: { 'memory.available': '100Mi' },
      },
      want: { cpu: '4', 'ephemeral-storage': '100Gi', memory: '7900Mi', pods: '110' },
    },
    {
      name: 'memory that is not a whole MiB is written in Ki, as kubelets report it',
      flag: 'cpu=4,memory=16318496Ki',
      config: {
        kubeReserved: { memory: '100Mi' },
        systemReserved: { memory: '92Mi' },
        evictionHard: { 'memory.available': '100Mi' },
      },
      want: { cpu: '4', memory: '16019488Ki', pods: '110' },
    },
    {
      name: 'percentage memory threshold of a memory size that is not a whole MiB',
      flag: 'cpu=2,memory=16318496Ki',
      config: { evictionHard: { 'memory.available': '5%' } },
      want: { cpu: '2', memory: '15874632897', pods: '110' },
    },
    {
      name: 'nodefs.available 15%, other signals do not reduce allocatable',
      config: {
        evictionHard: {
          'nodefs.available': '15%',
          'imagefs.available': '50%',
          'nodefs.inodesFree': '5%',
          'pid.available': '10%',
        },
      },
      want: { cpu: '4', 'ephemeral-storage': '91268054400', memory: '8Gi', pods: '110' },
    },
    {
      name: '0% and 100% thresholds are disabled, as the eviction manager treats them',
      config: { evictionHard: { 'memory.available': '0%', 'nodefs.available': '100%' } },
      want: { cpu: '4', 'ephemeral-storage': '100Gi', memory: '8Gi', pods: '110' },
    },
    {
      name: 'reservations beyond capacity floor at zero',
      config: { kubeReserved: { cpu: '3', memory: '8Gi' }, systemReserved: { cpu: '2' } },
      want: { cpu: '0', 'ephemeral-storage': '96636764000', memory: '0', pods: '110' },
    },
    {
      name: 'decimal memory keeps its decimal format',
      flag: 'cpu=1,memory=8G',
      config: {},
      want: { cpu: '1', memory: '7895142400', pods: '110' },
    },
    {
      name: 'podsPerCore caps pods below maxPods',
      config: { podsPerCore: 10, maxPods: 110 },
      want: { cpu: '4', 'ephemeral-storage': '96636764000', memory: '8092Mi', pods: '40' },
    },
    {
      name: 'maxPods caps pods below podsPerCore × cores',
      flag: 'cpu=4,memory=8Gi',
      config: { podsPerCore: 50, maxPods: 150 },
      capacity: { cpu: '4', memory: '8Gi', pods: '150' },
      want: { cpu: '4', memory: '8092Mi', pods: '150' },
    },
    {
      name: 'maxPods below the --capacity pods',
      config: { maxPods: 30 },
      capacity: { cpu: '4', 'ephemeral-storage': '100Gi', memory: '8Gi', pods: '110' },
      want: { cpu: '4', 'ephemeral-storage': '96636764000', memory: '8092Mi', pods: '30' },
    },
    {
      name: 'a fractional cpu counts as its rounded-up cores for podsPerCore',
      flag: 'cpu=2500m,memory=1Gi',
      config: { podsPerCore: 4, evictionHard: {} },
      capacity: { cpu: '2500m', memory: '1Gi', pods: '12' },
      want: { cpu: '2500m', memory: '1Gi', pods: '12' },
    },
  ];
  for (const tc of table) {
    it(tc.name, () => {
      const got = allocatable(tc.flag ?? SIM, tc.config);
      if (tc.capacity) assert.deepEqual(got.capacity, tc.capacity);
      assert.deepEqual(got.allocatable, tc.want);
    });
  }

  it('refuses reservations and thresholds the kubelet refuses', () => {
    const cap = computeCapacity(parseCapacityFlag(SIM), setDefaults({}));
    const cases: Array<[PartialKubeletConfiguration, RegExp]> = [
      [{ kubeReserved: { gpu: '1' } }, /^kubeReserved: cannot reserve "gpu" resource$/],
      [
        { systemReserved: { memory: '-1Gi' } },
        /^systemReserved: resource quantity for "memory" cannot be negative: -1Gi$/,
      ],
      [{ kubeReserved: { cpu: 'lots' } }, /^kubeReserved: cpu="lots": quantities must match/],
      [{ evictionHard: { 'memory.free': '1Gi' } }, /unsupported eviction signal memory\.free/],
      [{ evictionHard: { 'memory.available': '120%' } }, /must be <= 100%: 120%/],
      [{ evictionHard: { 'memory.available': '0' } }, /eviction threshold memory\.available must be positive: 0/],
    ];
    for (const [partial, re] of cases) {
      assert.throws(
        () => computeAllocatable(cap, setDefaults(partial)),
        (err: unknown) => isNodeAgentError(err, 'DKC_NODE_RESERVATION_INVALID') && re.test(err.message),
        JSON.stringify(partial),
      );
    }
  });

  it('parses thresholds as quantities or float32 fractions', () => {
    assert.deepEqual(parseEvictionThreshold('memory.available', '10%'), { percentage: Math.fround(0.1) });
    const q = parseEvictionThreshold('nodefs.available', '1Gi');
    assert.ok(q && 'quantity' in q && q.quantity.toString() === '1Gi');
    assert.equal(parseEvictionThreshold('memory.available', '100%'), undefined);
  });
});

describe('--capacity', () => {
  it('parses every resource, keeping canonical spellings', () => {
    const m = parseCapacityFlag(' cpu=4 , memory=8192Mi,pods=110,ephemeral-storage=20G');
    assert.equal(m.cpu?.toString(), '4');
    assert.equal(m.memory?.toString(), '8Gi');
    assert.equal(m.pods?.toString(), '110');
    assert.equal(m['ephemeral-storage']?.toString(), '20G');
  });

  it('replaces only the resources it names', () => {
    const host = {
      cpu: Quantity.parse('16'),
      memory: Quantity.parse('64Gi'),
      'ephemeral-storage': Quantity.parse('1Ti'),
    };
    const merged = mergeCapacity(host, parseCapacityFlag('cpu=2'));
    assert.deepEqual(formatResourceList(computeCapacity(merged, setDefaults({}))), {
      cpu: '2',
      'ephemeral-storage': '1Ti',
      memory: '64Gi',
      pods: '110',
    });
  });

  const bad: Array<[string, string]> = [
    ['', 'invalid --capacity: empty value; expected resource=quantity pairs such as cpu=4,memory=8Gi,pods=110'],
    ['cpu4', 'invalid --capacity: "cpu4" is not a resource=quantity pair (e.g. cpu=4,memory=8Gi,pods=110)'],
    ['cpu=4,,memory=1Gi', 'invalid --capacity: "" is not a resource=quantity pair (e.g. cpu=4,memory=8Gi,pods=110)'],
    ['gpu=1', 'invalid --capacity: unknown resource "gpu" (known: cpu, memory, pods, ephemeral-storage)'],
    ['cpu=4,cpu=2', 'invalid --capacity: cpu is given more than once'],
    [
      'memory=8GB',
      `invalid --capacity: memory="8GB": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
    ],
    ['memory=8Mii', `invalid --capacity: memory="8Mii": unable to parse quantity's suffix`],
    ['memory=-1Gi', 'invalid --capacity: memory=-1Gi must not be negative'],
    ['pods=1500m', 'invalid --capacity: pods=1500m must be a whole number'],
  ];
  for (const [flag, message] of bad) {
    it(`refuses ${JSON.stringify(flag)} in one line`, () => {
      assert.throws(
        () => parseCapacityFlag(flag),
        (err: unknown) =>
          isNodeAgentError(err, 'DKC_NODE_CAPACITY_INVALID') && err.message === message && !err.message.includes('\n'),
      );
    });
  }

  it('podsFromConfig without podsPerCore is maxPods', () => {
    assert.equal(podsFromConfig(Quantity.parse('64'), { maxPods: 250, podsPerCore: 0 }).toString(), '250');
  });
});
