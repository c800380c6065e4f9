// The node lifecycle decisions, as pure functions: probe times, Unknown conditions, readiness taints.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Lease, Node } from '../../../src/api/types.js';
import {
  conditionsForSilentNode,
  observeHealth,
  silentTooLong,
  taintsFor,
  TAINT_UNREACHABLE,
} from '../../../src/controllers/nodelifecycle/index.js';

const T0 = '2024-01-15T10:00:00Z';
const NOW = new Date(Date.UTC(2024, 0, 15, 10, 5, 0));

function node(ready: string, extra: Partial<Node> = {}): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'n1', creationTimestamp: '2024-01-15T09:00:00Z', resourceVersion: '5' },
    status: {
      conditions: ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready'].map((type) => ({
        type,
        status: type === 'Ready' ? ready : 'False',
        reason: 'Kubelet',
        message: 'kubelet',
        lastHeartbeatTime: T0,
        lastTransitionTime: T0,
      })),
    },
    ...extra,
  };
}

const lease = (renewTime: string): Lease => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name: 'n1' },
  spec: { renewTime },
});

describe('node health', () => {
  it('probes at first sight, again only when the Lease is renewed or the Ready heartbeat moves', () => {
    const h0 = observeHealth(undefined, node('True'), lease('2024-01-15T10:00:00.000000Z'), 1000);
    assert.equal(h0.probeMs, 1000);
    const same = observeHealth(h0, node('True'), lease('2024-01-15T10:00:00.000000Z'), 50_000);
    assert.equal(same.probeMs, 1000);
    assert.equal(silentTooLong(same, 41_000, 40_000), false);
    assert.equal(silentTooLong(same, 41_001, 40_000), true);
    const renewed = observeHealth(same, node('True'), lease('2024-01-15T10:00:10.000000Z'), 60_000);
    assert.equal(renewed.probeMs, 60_000);
    const older = observeHealth(renewed, node('True'), lease('2024-01-15T10:00:05.000000Z'), 70_000);
    assert.equal(older.probeMs, 60_000, 'a Lease going back in time is no sign of life');
    const moved = node('True');
    moved.status!.conditions![3]!.lastHeartbeatTime = '2024-01-15T10:01:00Z';
    assert.equal(observeHealth(renewed, moved, lease('2024-01-15T10:00:10.000000Z'), 80_000).probeMs, 80_000);
  });

  it('sets every monitored condition to Unknown, keeping heartbeats, and adds missing ones as never updated', () => {
    const n = node('True');
    n.status!.conditions = n.status!.conditions!.filter((c) => c.type !== 'PIDPressure');
    const next = conditionsForSilentNode(n, NOW)!;
    const ready = next.find((c) => c.type === 'Ready')!;
    assert.deepEqual(ready, {
      type: 'Ready',
      status: 'Unknown',
      reason: 'NodeStatusUnknown',
      message: 'Kubelet stopped posting node status.',
      lastHeartbeatTime: T0,
      lastTransitionTime: '2024-01-15T10:05:00Z',
    });
    assert.deepEqual(
      next.find((c) => c.type === 'PIDPressure'),
      {
        type: 'PIDPressure',
        status: 'Unknown',
        reason: 'NodeStatusNeverUpdated',
        message: 'Kubelet never posted node status.',
        lastHeartbeatTime: '2024-01-15T09:00:00Z',
        lastTransitionTime: '2024-01-15T10:05:00Z',
      },
    );
    assert.ok(next.every((c) => c.status === 'Unknown'));
    assert.equal(
      conditionsForSilentNode({ ...n, status: { conditions: next } }, NOW),
      undefined,
      'nothing left to change',
    );
  });

  it("taints an Unknown node unreachable, keeps others' taints, and removes the taint once Ready is True", () => {
    const foreign = { key: 'example.com/dedicated', value: 'x', effect: 'NoSchedule' };
    const unknown = node('Unknown', { spec: { taints: [foreign] } });
    const tainted = taintsFor(unknown, NOW)!;
    assert.deepEqual(tainted, [
      foreign,
      { key: TAINT_UNREACHABLE, effect: 'NoSchedule', timeAdded: '2024-01-15T10:05:00Z' },
      { key: TAINT_UNREACHABLE, effect: 'NoExecute', timeAdded: '2024-01-15T10:05:00Z' },
    ]);
    assert.equal(taintsFor({ ...unknown, spec: { taints: tainted } }, NOW), undefined, 'already tainted');
    assert.deepEqual(taintsFor({ ...node('True'), spec: { taints: tainted } }, NOW), [foreign]);
    assert.equal(taintsFor(node('True'), NOW), undefined);
    assert.deepEqual(
      taintsFor({ ...node('False'), spec: { taints: tainted } }, NOW)?.map((t) => `${t.key}:${t.effect}`),
      [
        'example.com/dedicated:NoSchedule',
        'node.kubernetes.io/not-ready:NoSchedule',
        'node.kubernetes.io/not-ready:NoExecute',
      ],
    );
  });

  it('taints a cordoned node unschedulable and a node under pressure by its condition, and only while so', () => {
    const keys = (t: { key: string; effect: string }[] | undefined) => t?.map((x) => `${x.key}:${x.effect}`);
    const cordoned = node('True', { spec: { unschedulable: true } });
    const t1 = taintsFor(cordoned, NOW);
    assert.deepEqual(keys(t1), ['node.kubernetes.io/unschedulable:NoSchedule']);
    assert.equal(t1?.[0]?.timeAdded, '2024-01-15T10:05:00Z');
    assert.equal(taintsFor({ ...cordoned, spec: { unschedulable: true, taints: t1 } }, NOW), undefined);
    assert.deepEqual(taintsFor({ ...node('True'), spec: { taints: t1 } }, NOW), [], 'uncordoned: the taint goes');
    const pressed = node('True');
    pressed.status!.conditions = pressed.status!.conditions!.map((c) =>
      c.type === 'DiskPressure' ? { ...c, status: 'True' } : c,
    );
    assert.deepEqual(keys(taintsFor(pressed, NOW)), ['node.kubernetes.io/disk-pressure:NoSchedule']);
    // A taint of the same key with another effect is someone else's: kept.
    const theirs = { key: 'node.kubernetes.io/unschedulable', effect: 'NoExecute' };
    assert.equal(taintsFor(node('True', { spec: { taints: [theirs] } }), NOW), undefined);
  });
});
