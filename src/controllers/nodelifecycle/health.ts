// The node lifecycle controller's decisions, as kube-controller-manager's node lifecycle controller makes them, as
// pure functions: when a node was last heard from, which conditions become Unknown once it has been silent for the
// grace period, and which NoSchedule taints its Ready condition calls for.

import type { Lease, Node, NodeCondition, Taint } from '../../api/types.js';
import { formatTime } from '../../util/clock.js';

/** The conditions the kubelet posts and the controller sets to Unknown when it stops posting them. */
export const MONITORED_CONDITIONS = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'] as const;

export const TAINT_UNREACHABLE = 'node.kubernetes.io/unreachable';
export const TAINT_NOT_READY = 'node.kubernetes.io/not-ready';

export const REASON_STATUS_UNKNOWN = 'NodeStatusUnknown';
export const MESSAGE_STATUS_UNKNOWN = 'Kubelet stopped posting node status.';
export const REASON_NEVER_UPDATED = 'NodeStatusNeverUpdated';
export const MESSAGE_NEVER_UPDATED = 'Kubelet never posted node status.';

/** What the controller last saw of a node's signs of life, and when (on its own monotonic clock) they last moved. */
export interface NodeHealth {
  probeMs: number;
  readyHeartbeat: string | undefined;
  leaseRenewTime: string | undefined;
}

function readyCondition(node: Node): NodeCondition | undefined {
  return node.status?.conditions?.find((c) => c.type === 'Ready');
}

/** Compares MicroTime/Time strings as instants (they differ in precision). */
function after(a: string | undefined | null, b: string | undefined | null): boolean {
  if (!a) return false;
  if (!b) return true;
  return Date.parse(a) > Date.parse(b);
}

/**
 * The health record after observing `node` and its Lease at `nowMs`: the probe time moves when the Ready heartbeat
 * changed or the Lease was renewed since the last observation. A node seen for the first time gets a full grace
 * period from now, so a controller that just took over does not condemn every node at once.
 */
export function observeHealth(
  previous: NodeHealth | undefined,
  node: Node,
  lease: Lease | undefined,
  nowMs: number,
): NodeHealth {
  const readyHeartbeat = readyCondition(node)?.lastHeartbeatTime ?? undefined;
  const leaseRenewTime = lease?.spec?.renewTime ?? undefined;
  if (previous === undefined) return { probeMs: nowMs, readyHeartbeat, leaseRenewTime };
  const heartbeatMoved = readyHeartbeat !== previous.readyHeartbeat;
  const leaseRenewed = after(leaseRenewTime, previous.leaseRenewTime);
  if (!heartbeatMoved && !leaseRenewed) return previous;
  return { probeMs: nowMs, readyHeartbeat, leaseRenewTime: leaseRenewed ? leaseRenewTime : previous.leaseRenewTime };
}

export function silentTooLong(health: NodeHealth, nowMs: number, gracePeriodMs: number): boolean {
  return nowMs - health.probeMs > gracePeriodMs;
}

/**
 * The conditions of a node that has been silent past the grace period: each monitored condition that is not Unknown
 * yet becomes Unknown with a fresh lastTransitionTime and its lastHeartbeatTime kept; a missing one is added as never
 * updated. Undefined when nothing changes.
 */
export function conditionsForSilentNode(node: Node, now: Date): NodeCondition[] | undefined {
  const stamp = formatTime(now);
  const conditions = [...(node.status?.conditions ?? [])];
  let changed = false;
  for (const type of MONITORED_CONDITIONS) {
    const i = conditions.findIndex((c) => c.type === type);
    if (i < 0) {
      const heartbeat = node.metadata.creationTimestamp ?? stamp;
      conditions.push({
        type,
        status: 'Unknown',
        reason: REASON_NEVER_UPDATED,
        message: MESSAGE_NEVER_UPDATED,
        lastHeartbeatTime: heartbeat,
        lastTransitionTime: stamp,
      });
      changed = true;
    } else if (conditions[i]!.status !== 'Unknown') {
      conditions[i] = {
        ...conditions[i]!,
        status: 'Unknown',
        reason: REASON_STATUS_UNKNOWN,
        message: MESSAGE_STATUS_UNKNOWN,
        lastTransitionTime: stamp,
      };
      changed = true;
    }
  }
  return changed ? conditions : undefined;
}

/** The NoSchedule taint the Ready condition calls for (doNoScheduleTaintingPass): Unknown → unreachable, False → not-ready. */
function readinessTaintKey(node: Node): string | undefined {
  const status = readyCondition(node)?.status;
  if (status === 'Unknown') return TAINT_UNREACHABLE;
  if (status === 'False') return TAINT_NOT_READY;
  return undefined;
}

function isReadinessTaint(t: Taint): boolean {
  return t.effect === 'NoSchedule' && (t.key === TAINT_UNREACHABLE || t.key === TAINT_NOT_READY);
}

/**
 * The node's taints after the NoSchedule pass: the readiness taint its Ready condition calls for (added with
 * timeAdded = now), the other readiness taint removed, everyone else's taints untouched. Undefined when unchanged.
 */
export function taintsFor(node: Node, now: Date): Taint[] | undefined {
  const current = node.spec?.taints ?? [];
  const want = readinessTaintKey(node);
  const kept = current.filter((t) => !isReadinessTaint(t) || t.key === want);
  const has = want !== undefined && kept.some((t) => t.key === want && t.effect === 'NoSchedule');
  const next =
    has || want === undefined ? kept : [...kept, { key: want, effect: 'NoSchedule', timeAdded: formatTime(now) }];
  return next.length === current.length && next.every((t, i) => t === current[i]) ? undefined : next;
}
