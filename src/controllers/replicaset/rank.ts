// Which of a ReplicaSet's Pods go first when it scales down (k8s:pkg/controller/controller_utils.go
// ActivePodsWithRanks.Less, with the LogarithmicScaleDown and PodDeletionCost behaviour that is on by default):
//   1. unassigned before assigned;
//   2. Pending (or no phase) before Unknown before Running;
//   3. not ready before ready;
//   4. lower controller.kubernetes.io/pod-deletion-cost before higher;
//   5. more related Pods on the same node before fewer (spreads what is left);
//   6. ready for less time before longer, compared on a log2 scale of their age (ties by uid);
//   7. more container restarts before fewer;
//   8. created later before earlier, on the same log2 scale (ties by uid); an unknown time counts as the newest.

import { POD_DELETION_COST_ANNOTATION } from '../../api/apps.js';
import { isPodActive, isPodReady, podReadySinceMs, timeMs } from '../../api/pods.js';
import type { PodView } from '../../api/pods.js';

const PHASE_ORDINAL: Readonly<Record<string, number>> = { Pending: 0, Unknown: 1, Running: 2 };
const INT32 = 2 ** 31;

const phaseOrdinal = (p: PodView): number => PHASE_ORDINAL[p.status?.phase ?? ''] ?? 0;

/** The annotation's value as an int32; anything else costs 0, as kube ignores an unreadable cost. */
export function deletionCost(p: PodView): number {
  const v = p.metadata.annotations?.[POD_DELETION_COST_ANNOTATION];
  if (v === undefined || !/^[+-]?\d+$/.test(v)) return 0;
  const n = Number(v);
  return n >= -INT32 && n < INT32 ? n : 0;
}

function maxRestarts(p: PodView): number {
  return Math.max(0, ...(p.status?.containerStatuses ?? []).map((c) => c.restartCount ?? 0));
}

/** floor(log2(age in ns)), -1 for an age that is not positive (logarithmicRankDiff). */
function logRank(tMs: number, nowMs: number): number {
  const ns = (nowMs - tMs) * 1e6;
  return ns > 0 ? Math.floor(Math.log2(ns)) : -1;
}

/** < 0 when a goes first: the later time (or the unknown one) first, on the log scale, uid breaking ties. */
function byAge(a: PodView, b: PodView, ta: number | undefined, tb: number | undefined, nowMs: number): number {
  if (ta === tb) return 0;
  if (ta === undefined) return -1;
  if (tb === undefined) return 1;
  const diff = logRank(ta, nowMs) - logRank(tb, nowMs);
  if (diff !== 0) return diff;
  const ua = a.metadata.uid ?? '';
  const ub = b.metadata.uid ?? '';
  return ua < ub ? -1 : ua > ub ? 1 : 0;
}

interface Ranked {
  pod: PodView;
  rank: number;
}

function compare(a: Ranked, b: Ranked, nowMs: number): number {
  const [pa, pb] = [a.pod, b.pod];
  const assignedA = !!pa.spec?.nodeName;
  const assignedB = !!pb.spec?.nodeName;
  if (assignedA !== assignedB) return assignedA ? 1 : -1;
  if (phaseOrdinal(pa) !== phaseOrdinal(pb)) return phaseOrdinal(pa) - phaseOrdinal(pb);
  if (isPodReady(pa) !== isPodReady(pb)) return isPodReady(pa) ? 1 : -1;
  if (deletionCost(pa) !== deletionCost(pb)) return deletionCost(pa) - deletionCost(pb);
  if (a.rank !== b.rank) return b.rank - a.rank;
  if (isPodReady(pa) && isPodReady(pb)) {
    const byReady = byAge(pa, pb, podReadySinceMs(pa), podReadySinceMs(pb), nowMs);
    if (byReady !== 0) return byReady;
  }
  if (maxRestarts(pa) !== maxRestarts(pb)) return maxRestarts(pb) - maxRestarts(pa);
  return byAge(pa, pb, timeMs(pa.metadata.creationTimestamp), timeMs(pb.metadata.creationTimestamp), nowMs);
}

/**
 * getPodsToDelete: the first `count` of `pods` in deletion order. A Pod's rank is how many active `related` Pods
 * (the Pods of every ReplicaSet with the same controller) share its node. All go when count covers them.
 */
export function podsToDelete(
  pods: readonly PodView[],
  related: readonly PodView[],
  count: number,
  nowMs: number,
): PodView[] {
  if (count >= pods.length) return [...pods];
  const onNode = new Map<string, number>();
  for (const p of related) {
    if (!isPodActive(p)) continue;
    const node = p.spec?.nodeName ?? '';
    onNode.set(node, (onNode.get(node) ?? 0) + 1);
  }
  const ranked = pods.map((pod) => ({ pod, rank: onNode.get(pod.spec?.nodeName ?? '') ?? 0 }));
  ranked.sort((a, b) => compare(a, b, nowMs));
  return ranked.slice(0, Math.max(0, count)).map((r) => r.pod);
}
