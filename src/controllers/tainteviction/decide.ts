// The taint eviction controller's decision (kube-controller-manager's taint-eviction-controller, processPodOnNode),
// as one pure function: a Pod on a node with NoExecute taints it does not all tolerate is deleted at once; one that
// tolerates them all is deleted when the shortest tolerationSeconds among the tolerations used runs out, counted
// from when the earliest of those taints was added (kube counts from when its controller first saw them, which a
// controller that just took over would restart; the taint's timeAdded survives it); with no tolerationSeconds it
// stays. A Pod already being deleted, or not bound, is left alone.

import type { Taint } from '../../api/types.js';
import type { Toleration } from '../../api/workloads.js';
import { toleratesTaint, untoleratedTaint } from '../../scheduling/constraints.js';

export interface EvictionInput {
  pod: { deleting: boolean; nodeName: string; tolerations: readonly Toleration[] };
  /** The taints of the Pod's node (none when it has no node object). */
  taints: readonly Taint[];
  nowMs: number;
}

export type EvictionDecision = { kind: 'keep' } | { kind: 'delete'; atMs: number };

export function decideEviction(input: EvictionInput): EvictionDecision {
  const { pod, nowMs } = input;
  if (pod.deleting || pod.nodeName === '') return { kind: 'keep' };
  const noExecute = input.taints.filter((t) => t.effect === 'NoExecute');
  if (noExecute.length === 0) return { kind: 'keep' };
  if (untoleratedTaint(noExecute, pod.tolerations, () => true)) return { kind: 'delete', atMs: nowMs };
  const seconds = pod.tolerations
    .filter((t) => noExecute.some((taint) => toleratesTaint(t, taint)))
    .map((t) => t.tolerationSeconds)
    .filter((s): s is number => typeof s === 'number');
  if (seconds.length === 0) return { kind: 'keep' };
  const wait = Math.max(0, Math.min(...seconds)) * 1000;
  const added = noExecute.map((t) => (t.timeAdded ? Date.parse(t.timeAdded) : nowMs)).filter((t) => !Number.isNaN(t));
  const since = Math.min(nowMs, ...added);
  return { kind: 'delete', atMs: since + wait };
}
