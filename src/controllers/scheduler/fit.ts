// Where one Pod goes, as kube-scheduler's default profile decides it for the plugins dkc reproduces: the filters
// NodeUnschedulable, NodeName, TaintToleration, NodeAffinity (with its PreFilter that narrows a pod pinned by
// matchFields metadata.name) and NodeResourcesFit, in that order, the first failing one giving a node's reasons; the
// FailedScheduling text of FitError.Error with DefaultPreemption's part; and, among the nodes that fit, the one with
// the fewest pods (ties by name) — a spread, standing in for the score plugins. Pure: the scheduler feeds it its
// informers' nodes and the non-terminal pods bound to each, then binds or records the failure.
//
// A node that is not Ready carries the node.kubernetes.io/not-ready (or unreachable) NoSchedule taint from the node
// lifecycle controller, and fails TaintToleration like any other untolerated taint; the scheduler does not read
// node conditions itself.

import { isPodTerminal } from '../../api/pods.js';
import type { Node } from '../../api/types.js';
import type { Pod } from '../../api/workloads.js';
import {
  blocksScheduling,
  nodeNameFits,
  requiredNodeAffinityMatches,
  toleratesAll,
  untoleratedTaint,
} from '../../scheduling/constraints.js';
import { amounts, insufficientResources, podRequests, requestedBy, type Amounts } from '../../scheduling/resources.js';
import { messages, reasons } from './messages.js';

export const TAINT_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';

export type StatusCode = 'Unschedulable' | 'UnschedulableAndUnresolvable';

/** Why a node does not fit: the first failing plugin and its reasons. */
export interface NodeStatus {
  plugin: string;
  code: StatusCode;
  reasons: string[];
}

/** A node and the pods bound to it (terminal ones are ignored, as the scheduler's pod informer never sees them). */
export interface Candidate {
  node: Node;
  pods: readonly Pod[];
}

export type ScheduleResult =
  | { outcome: 'bind'; node: string; feasible: string[] }
  | {
      outcome: 'unschedulable';
      /** The FailedScheduling event's message and the PodScheduled=False condition's. */
      message: string;
      /** By node name. */
      statuses: ReadonlyMap<string, NodeStatus>;
      /** Preemption would make room: the nodes where lower-priority pods could go. */
      preemptionCandidates: string[];
    };

interface NodeView {
  node: Node;
  pods: readonly Pod[];
}

type Filter = (pod: Pod, request: Amounts, n: NodeView) => NodeStatus | undefined;

const unresolvable = (plugin: string, reason: string): NodeStatus => ({
  plugin,
  code: 'UnschedulableAndUnresolvable',
  reasons: [reason],
});

const nodeUnschedulable: Filter = (pod, _r, { node }) =>
  node.spec?.unschedulable && !toleratesAll(pod.spec?.tolerations, { key: TAINT_UNSCHEDULABLE, effect: 'NoSchedule' })
    ? unresolvable('NodeUnschedulable', reasons.unschedulable)
    : undefined;

const nodeName: Filter = (pod, _r, { node }) =>
  nodeNameFits(pod, node) ? undefined : unresolvable('NodeName', reasons.nodeName);

const taintToleration: Filter = (pod, _r, { node }) => {
  const taint = untoleratedTaint(node.spec?.taints, pod.spec?.tolerations, blocksScheduling);
  return taint ? unresolvable('TaintToleration', reasons.untoleratedTaint(taint.key, taint.value ?? '')) : undefined;
};

const nodeAffinity: Filter = (pod, _r, { node }) =>
  requiredNodeAffinityMatches(pod, node) ? undefined : unresolvable('NodeAffinity', reasons.nodeAffinity);

const nodeResourcesFit: Filter = (_pod, request, { node, pods }) => {
  const short = insufficientResources(request, {
    allocatable: amounts(node.status?.allocatable),
    requested: requestedBy(pods),
    pods: pods.length,
  });
  return short.length === 0
    ? undefined
    : { plugin: 'NodeResourcesFit', code: 'Unschedulable', reasons: short.map((s) => s.reason) };
};

const FILTERS: readonly Filter[] = [nodeUnschedulable, nodeName, taintToleration, nodeAffinity, nodeResourcesFit];

/** The first failing filter's status, or undefined when the pod fits the node. */
export function filterNode(pod: Pod, request: Amounts, n: NodeView): NodeStatus | undefined {
  for (const f of FILTERS) {
    const status = f(pod, request, n);
    if (status) return status;
  }
  return undefined;
}

/** NodeAffinity's PreFilter: the node names every term pins with matchFields metadata.name In, if all do. */
function preFilterNodeNames(pod: Pod): Set<string> | 'conflict' | undefined {
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (!terms || terms.length === 0) return undefined;
  const names = new Set<string>();
  for (const t of terms) {
    let termNames: Set<string> | undefined;
    for (const r of t.matchFields ?? []) {
      if (r.key !== 'metadata.name' || r.operator !== 'In') continue;
      const s = new Set(r.values ?? []);
      termNames = termNames === undefined ? s : new Set([...termNames].filter((n) => s.has(n)));
    }
    if (termNames === undefined) return undefined;
    for (const n of termNames) names.add(n);
  }
  return names.size === 0 ? 'conflict' : names;
}

const active = (c: Candidate): NodeView => ({ node: c.node, pods: c.pods.filter((p) => !isPodTerminal(p)) });
const nameOf = (n: Node): string => n.metadata.name ?? '';

export function schedule(pod: Pod, candidates: readonly Candidate[]): ScheduleResult {
  if (candidates.length === 0) {
    return { outcome: 'unschedulable', message: messages.noNodes, statuses: new Map(), preemptionCandidates: [] };
  }
  const views = candidates.map(active);
  const request = podRequests(pod);
  const statuses = new Map<string, NodeStatus>();
  const pinned = preFilterNodeNames(pod);
  let preFilterMessage: string | undefined;
  if (pinned === 'conflict') {
    preFilterMessage = reasons.affinityConflict;
    for (const v of views) statuses.set(nameOf(v.node), unresolvable('NodeAffinity', reasons.affinityConflict));
  } else {
    for (const v of views) {
      const status = pinned && !pinned.has(nameOf(v.node)) ? notPinned() : filterNode(pod, request, v);
      if (status) statuses.set(nameOf(v.node), status);
    }
  }
  const feasible = views.filter((v) => !statuses.has(nameOf(v.node)));
  if (feasible.length > 0) {
    const best = [...feasible].sort((a, b) => a.pods.length - b.pods.length || compare(nameOf(a.node), nameOf(b.node)));
    return { outcome: 'bind', node: nameOf(best[0]!.node), feasible: feasible.map((v) => nameOf(v.node)) };
  }
  const preemption = preempt(pod, request, views, statuses);
  const detail = preFilterMessage ?? histogram(statuses.values());
  const message =
    messages.fitError(views.length, detail) + (preemption.message ? ` ${messages.preemption(preemption.message)}` : '');
  return { outcome: 'unschedulable', message, statuses, preemptionCandidates: preemption.candidates };
}

const notPinned = (): NodeStatus => unresolvable('NodeAffinity', reasons.notInPreFilterResult(['NodeAffinity']));

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** FitError's histogram: `<count> <reason>` per distinct reason, string-sorted, joined by `, `. */
function histogram(statuses: Iterable<NodeStatus>): string {
  const counts = new Map<string, number>();
  for (const s of statuses) for (const r of s.reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts]
    .map(([r, n]) => `${n} ${r}`)
    .sort(compare)
    .join(', ');
}

const priorityOf = (p: Pod): number => p.spec?.priority ?? 0;

/**
 * DefaultPreemption's dry run: a node failing with UnschedulableAndUnresolvable is not helped; on the others the pod
 * is filtered again without the pods of lower priority — none there means no victims, a fit makes the node a
 * candidate. With a candidate kube-scheduler nominates it and says nothing of preemption.
 */
function preempt(
  pod: Pod,
  request: Amounts,
  views: readonly NodeView[],
  statuses: ReadonlyMap<string, NodeStatus>,
): { message?: string; candidates: string[] } {
  if (pod.spec?.preemptionPolicy === 'Never') return { message: messages.preemptionNever, candidates: [] };
  const nested: NodeStatus[] = [];
  const candidates: string[] = [];
  for (const v of views) {
    const status = statuses.get(nameOf(v.node));
    if (!status || status.code === 'UnschedulableAndUnresolvable') {
      nested.push(unresolvable('DefaultPreemption', reasons.preemptionNotHelpful));
      continue;
    }
    const rest = v.pods.filter((p) => priorityOf(p) >= priorityOf(pod));
    if (rest.length === v.pods.length) {
      nested.push(unresolvable('DefaultPreemption', reasons.noVictims));
      continue;
    }
    const again = filterNode(pod, request, { node: v.node, pods: rest });
    if (again) nested.push(again);
    else candidates.push(nameOf(v.node));
  }
  if (candidates.length > 0) return { candidates };
  return { message: messages.fitError(views.length, histogram(nested)), candidates };
}
