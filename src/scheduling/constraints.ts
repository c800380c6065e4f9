// Whether a Pod may go to a Node by the node's taints and labels, as kube-scheduler and the kubelet's admission both
// decide it: v1helper.ToleratesTaint / FindMatchingUntoleratedTaint, and the required node affinity
// (component-helpers nodeaffinity.GetRequiredNodeAffinity: spec.nodeSelector AND any of the required
// nodeSelectorTerms; a term ANDs its expressions and fields, a term that does not parse matches nothing, an empty
// term matches nothing; matchFields knows only metadata.name). Pure.

import { matchesLabelRequirement, newLabelRequirement, type LabelOperator } from '../api/selectors.js';
import type { Node, Taint } from '../api/types.js';
import type { NodeSelectorRequirement, NodeSelectorTerm, Pod, Toleration } from '../api/workloads.js';

export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  switch (t.operator ?? '') {
    case '':
    case 'Equal':
      return (t.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

export function toleratesAll(tolerations: readonly Toleration[] | undefined, taint: Taint): boolean {
  return (tolerations ?? []).some((t) => toleratesTaint(t, taint));
}

/** The first taint, among those `relevant` picks, that no toleration tolerates. */
export function untoleratedTaint(
  taints: readonly Taint[] | undefined,
  tolerations: readonly Toleration[] | undefined,
  relevant: (t: Taint) => boolean,
): Taint | undefined {
  return (taints ?? []).find((t) => relevant(t) && !toleratesAll(tolerations, t));
}

export const blocksScheduling = (t: Taint): boolean => t.effect === 'NoSchedule' || t.effect === 'NoExecute';

const NODE_SELECTOR_OPERATORS: Readonly<Record<string, LabelOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
  Gt: 'gt',
  Lt: 'lt',
};

function matchesExpression(e: NodeSelectorRequirement, labels: Record<string, string> | undefined): boolean {
  const op = NODE_SELECTOR_OPERATORS[e.operator];
  if (op === undefined) throw new Error(`${JSON.stringify(e.operator)} is not a valid node selector operator`);
  return matchesLabelRequirement(newLabelRequirement(e.key, op, e.values ?? []), labels);
}

function matchesField(e: NodeSelectorRequirement, node: Node): boolean {
  if (e.key !== 'metadata.name' || (e.values ?? []).length !== 1 || (e.operator !== 'In' && e.operator !== 'NotIn')) {
    throw new Error(`not a valid field selector requirement: ${e.key} ${e.operator}`);
  }
  const named = e.values![0] === node.metadata.name;
  return e.operator === 'In' ? named : !named;
}

function termMatches(term: NodeSelectorTerm, node: Node): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  try {
    return exprs.every((e) => matchesExpression(e, node.metadata.labels)) && fields.every((f) => matchesField(f, node));
  } catch {
    return false;
  }
}

/** spec.nodeSelector and the required node affinity both hold for the node. */
export function requiredNodeAffinityMatches(pod: Pod, node: Node): boolean {
  const labels = node.metadata.labels ?? {};
  for (const [k, v] of Object.entries(pod.spec?.nodeSelector ?? {})) {
    if (!Object.prototype.hasOwnProperty.call(labels, k) || labels[k] !== v) return false;
  }
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!required) return true;
  return required.nodeSelectorTerms.some((t) => termMatches(t, node));
}

/** The NodeName plugin: a pod that names a node fits only that node. */
export function nodeNameFits(pod: Pod, node: Node): boolean {
  const name = pod.spec?.nodeName;
  return !name || name === node.metadata.name;
}
