import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Quantity, setDefaults } from '../../../src/kubeletconfig/index.js';
import {
  buildNodeStatus,
  conditionEvents,
  computeAllocatable,
  computeCapacity,
  kubeletUserAgent,
  nodeStatusChanged,
  parseOSRelease,
  statusPatch,
  type HostSystemInfo,
  type NodeStatusInput,
} from '../../../src/agent/node/index.js';
import { formatMicroTime, formatTime } from '../../../src/util/clock.js';
import { managerFromUserAgent } from '../../../src/server/writeoptions.js';

const system: HostSystemInfo = {
  machineID: 'm-1',
  systemUUID: 'u-1',
  bootID: 'b-1',
  kernelVersion: '6.1.0',
  osImage: 'Debian GNU/Linux 12 (bookworm)',
  operatingSystem: 'linux',
  architecture: 'amd64',
};

function input(now: Date, extra: Partial<NodeStatusInput> = {}): NodeStatusInput {
  const config = setDefaults({ port: 10250 });
  const capacity = computeCapacity({ cpu: Quantity.parse('4'), memory: Quantity.parse('8Gi') }, config);
  return {
    config,
    capacity,
    allocatable: computeAllocatable(capacity, config),
    nodeIP: '10.0.0.5',
    hostname: 'node-a',
    system,
    now,
    ready: true,
    ...extra,
  };
}

const t0 = new Date(Date.UTC(2024, 0, 15, 10, 0, 0, 123));
const t1 = new Date(Date.UTC(2024, 0, 15, 10, 0, 10, 456));
const t2 = new Date(Date.UTC(2024, 0, 15, 10, 0, 20));

describe('buildNodeStatus', () => {
  it('reports the kubelet-shaped status', () => {
    const s = buildNodeStatus(input(t0));
    assert.deepEqual(
      s.conditions.map((c) => [c.type, c.status, c.reason, c.message]),
      [
        ['MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'],
        ['DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'],
        ['PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'],
        ['Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'],
      ],
    );
    for (const c of s.conditions) {
      assert.equal(c.lastHeartbeatTime, '2024-01-15T10:00:00Z');
      assert.equal(c.lastTransitionTime, '2024-01-15T10:00:00Z');
    }
    assert.deepEqual(s.addresses, [
      { type: 'InternalIP', address: '10.0.0.5' },
      { type: 'Hostname', address: 'node-a' },
    ]);
    assert.deepEqual(s.daemonEndpoints, { kubeletEndpoint: { Port: 10250 } });
    assert.deepEqual(s.capacity, { cpu: '4', memory: '8Gi', pods: '110' });
    assert.deepEqual(s.allocatable, { cpu: '4', memory: '8092Mi', pods: '110' });
    assert.deepEqual(s.nodeInfo, {
      machineID: 'm-1',
      systemUUID: 'u-1',
      bootID: 'b-1',
      kernelVersion: '6.1.0',
      osImage: 'Debian GNU/Linux 12 (bookworm)',
      containerRuntimeVersion: 'dkc://0.1.0',
      kubeletVersion: 'v1.22.17-dkc',
      kubeProxyVersion: 'v1.22.17-dkc',
      operatingSystem: 'linux',
      architecture: 'amd64',
    });
    assert.equal('config' in s, false);
  });

  it('keeps lastTransitionTime while a condition holds and moves it when it flips', () => {
    const first = buildNodeStatus(input(t0));
    const second = buildNodeStatus(input(t1, { previousConditions: first.conditions }));
    for (const c of second.conditions) {
      assert.equal(c.lastHeartbeatTime, '2024-01-15T10:00:10Z');
      assert.equal(c.lastTransitionTime, '2024-01-15T10:00:00Z', c.type);
    }
    const notReady = buildNodeStatus(
      input(t2, { previousConditions: second.conditions, ready: false, reason: 'config trial failed' }),
    );
    const ready = notReady.conditions.find((c) => c.type === 'Ready')!;
    assert.deepEqual(
      [ready.status, ready.reason, ready.message, ready.lastTransitionTime],
      ['False', 'KubeletNotReady', 'config trial failed', '2024-01-15T10:00:20Z'],
    );
    const mem = notReady.conditions.find((c) => c.type === 'MemoryPressure')!;
    assert.equal(mem.lastTransitionTime, '2024-01-15T10:00:00Z');
  });

  it('change detection ignores heartbeats only', () => {
    const a = buildNodeStatus(input(t0));
    const b = buildNodeStatus(input(t1, { previousConditions: a.conditions }));
    assert.equal(nodeStatusChanged(a, b), false);
    assert.equal(nodeStatusChanged(undefined, b), true);
    const c = buildNodeStatus(input(t1, { previousConditions: a.conditions, nodeIP: '10.0.0.6' }));
    assert.equal(nodeStatusChanged(a, c), true);
    const d = buildNodeStatus(input(t1, { previousConditions: a.conditions, config: { port: 10251 } }));
    assert.equal(nodeStatusChanged(a, d), true);
    // Key order from the server's JSON must not count as a change.
    const reordered = JSON.parse(
      JSON.stringify({
        nodeInfo: a.nodeInfo,
        allocatable: a.allocatable,
        capacity: a.capacity,
        daemonEndpoints: a.daemonEndpoints,
        addresses: a.addresses,
        conditions: a.conditions,
      }),
    ) as Parameters<typeof nodeStatusChanged>[0];
    assert.equal(nodeStatusChanged(reordered, b), false);
  });

  it('names the condition events the kubelet records', () => {
    const a = buildNodeStatus(input(t0));
    assert.deepEqual(conditionEvents(undefined, a.conditions), [
      'NodeHasSufficientMemory',
      'NodeHasNoDiskPressure',
      'NodeHasSufficientPID',
      'NodeReady',
    ]);
    assert.deepEqual(conditionEvents(a.conditions, a.conditions), []);
    const b = buildNodeStatus(input(t1, { previousConditions: a.conditions, ready: false }));
    assert.deepEqual(conditionEvents(a.conditions, b.conditions), ['NodeNotReady']);
  });

  it('patches only its own fields and nulls resources that disappeared', () => {
    const a = buildNodeStatus(input(t0));
    const b = buildNodeStatus(
      input(t1, { capacity: { cpu: Quantity.parse('4') }, allocatable: { cpu: Quantity.parse('4') } }),
    );
    const p = statusPatch(a, b);
    assert.deepEqual(Object.keys(p.status).sort(), [
      'addresses',
      'allocatable',
      'capacity',
      'conditions',
      'daemonEndpoints',
      'nodeInfo',
    ]);
    assert.deepEqual(p.status['capacity'], { cpu: '4', memory: null, pods: null });
  });
});

describe('time formats', () => {
  it('writes metav1.Time and MicroTime', () => {
    assert.equal(formatTime(t0), '2024-01-15T10:00:00Z');
    assert.equal(formatMicroTime(t0), '2024-01-15T10:00:00.123000Z');
  });

  it('reads PRETTY_NAME from os-release', () => {
    assert.equal(
      parseOSRelease('NAME="Debian GNU/Linux"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n'),
      'Debian GNU/Linux 12 (bookworm)',
    );
    assert.equal(parseOSRelease('ID=alpine'), '');
  });
});

describe('kubeletUserAgent', () => {
  it("is client-go's form with the kubelet's program name, so kube-apiserver names the node's field manager kubelet", () => {
    const ua = kubeletUserAgent('v1.31.4');
    assert.match(ua, /^kubelet\/v1\.31\.4 \([a-z0-9]+\/[a-z0-9]+\) kubernetes\/dkc$/);
    assert.equal(managerFromUserAgent(ua), 'kubelet');
    assert.ok(!ua.includes('x64'), "Go's architecture names (amd64), not Node's (x64)");
  });
});
