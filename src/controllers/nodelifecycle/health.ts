// The node lifecycle controller's decisions, as kube-controller-manager's node lifecycle controller makes them, as
// pure functions: when a node was last heard from, which conditions become Unknown once it has been silent for the
// grace period, and which taints its conditions and its cordon call for.

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

export const TAINT_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';

/** The conditions whose True status calls for a NoSchedule taint (TaintNodesByCondition), besides Ready. */
const PRESSURE_TAINTS: Readonly<Record<string, string>> = {
  MemoryPressure: 'node.kubernetes.io/memory-pressure',
  DiskPressure: 'node.kubernetes.io/disk-pressure',
  PIDPressure: 'node.kubernetes.io/pid-pressure',
  NetworkUnavailable: 'node.kubernetes.io/network-unavailable',
};

/** Every taint this controller owns: the readiness pair in both effects, the pressure ones and the cordon's. */
const OWNED = new Set([
  `${TAINT_UNREACHABLE}:NoSchedule`,
  `${TAINT_NOT_READY}:NoSchedule`,
  `${TAINT_UNREACHABLE}:NoExecute`,
  `${TAINT_NOT_READY}:NoExecute`,
  `${TAINT_UNSCHEDULABLE}:NoSchedule`,
  ...Object.values(PRESSURE_TAINTS).map((k) => `${k}:NoSchedule`),
]);

/**
 * The taints the node's state calls for, as `key:effect`: its Ready condition's (Unknown → unreachable, False →
 * not-ready) as NoSchedule (doNoScheduleTaintingPass) and as NoExecute (doNoExecuteTaintingPass, which the taint
 * eviction controller acts on), a pressure condition's that is True, and the cordon's (spec.unschedulable).
 */
function wantedTaints(node: Node): string[] {
  const status = readyCondition(node)?.status;
  const readiness = status === 'Unknown' ? TAINT_UNREACHABLE : status === 'False' ? TAINT_NOT_READY : undefined;
  const want = readiness ? [`${readiness}:NoSchedule`, `${readiness}:NoExecute`] : [];
  for (const c of node.status?.conditions ?? [])
    if (c.status === 'True' && PRESSURE_TAINTS[c.type]) want.push(`${PRESSURE_TAINTS[c.type]}:NoSchedule`);
  if (node.spec?.unschedulable === true) want.push(`${TAINT_UNSCHEDULABLE}:NoSchedule`);
  return want;
}

const taintId = (t: Taint) => `${t.key}:${t.effect}`;

/**
 * The node's taints after both tainting passes: each taint its state calls for (added with timeAdded = now), the
 * controller's others removed, everyone else's taints untouched. Undefined when unchanged.
 */
export function taintsFor(node: Node, now: Date): Taint[] | undefined {
  const current = node.spec?.taints ?? [];
  const want = wantedTaints(node);
  const kept = current.filter((t) => !OWNED.has(taintId(t)) || want.includes(taintId(t)));
  const added = want
    .filter((id) => !kept.some((t) => taintId(t) === id))
    .map((id): Taint => {
      const at = id.lastIndexOf(':');
      return { key: id.slice(0, at), effect: id.slice(at + 1), timeAdded: formatTime(now) };
    });
  const next = [...kept, ...added];
  return next.length === current.length && next.every((t, i) => t === current[i]) ? undefined : next;
}
