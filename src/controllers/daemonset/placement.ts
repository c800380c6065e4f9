// Where a DaemonSet's Pods belong (k8s:pkg/controller/daemon/daemon_controller.go NodeShouldRunDaemonPod,
// predicates, NewPod; util/daemonset_util.go AddOrUpdateDaemonPodTolerations, ReplaceDaemonSetPodNodeNameNodeAffinity,
// GetTargetNodeName; workloads.md §7.3). A node should run the daemon Pod when the template's nodeName, node
// selector and required node affinity admit it and every NoSchedule and NoExecute taint is tolerated, counting the
// tolerations every daemon Pod gets; a Pod already there keeps running while no NoExecute taint is untolerated.
// Pure.

import type { PodTemplateSpec } from '../../api/apps.js';
import type { PodView } from '../../api/pods.js';
import type { Node, Taint } from '../../api/types.js';
import type { Affinity, NodeSelectorTerm, Pod, PodSpec, Toleration } from '../../api/workloads.js';
import { blocksScheduling, requiredNodeAffinityMatches, untoleratedTaint } from '../../scheduling/constraints.js';
import { copyJson } from '../workload/podtemplate.js';

/** A Pod as the DaemonSet controller reads it: where it runs, or, before it is bound, where it is bound for. */
export interface DaemonPodView extends PodView {
  spec?: { nodeName?: string; affinity?: Affinity | null };
}

export interface NodePlacement {
  /** The node should run a daemon Pod: one is created when none is there. */
  shouldRun: boolean;
  /** A daemon Pod already on the node may stay. */
  shouldContinueRunning: boolean;
}

const exists = (key: string, effect: 'NoExecute' | 'NoSchedule'): Toleration => ({ key, operator: 'Exists', effect });

/** AddOrUpdateDaemonPodTolerations, in its order: never evicted for node problems, scheduled on cordoned nodes. */
export function daemonTolerations(hostNetwork: boolean): Toleration[] {
  const out = [
    exists('node.kubernetes.io/not-ready', 'NoExecute'),
    exists('node.kubernetes.io/unreachable', 'NoExecute'),
    exists('node.kubernetes.io/disk-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/memory-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/pid-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/unschedulable', 'NoSchedule'),
  ];
  if (hostNetwork) out.push(exists('node.kubernetes.io/network-unavailable', 'NoSchedule'));
  return out;
}

const sameToleration = (a: Toleration, b: Toleration): boolean =>
  (a.key ?? '') === (b.key ?? '') &&
  (a.effect ?? '') === (b.effect ?? '') &&
  (a.operator ?? '') === (b.operator ?? '') &&
  (a.value ?? '') === (b.value ?? '');

/** AddOrUpdateTolerationInPodSpec for each daemon toleration: one that matches in all but its seconds is replaced. */
export function withDaemonTolerations(
  tolerations: readonly Toleration[] | undefined,
  hostNetwork: boolean,
): Toleration[] {
  const out = [...(tolerations ?? [])];
  for (const t of daemonTolerations(hostNetwork)) {
    const i = out.findIndex((x) => sameToleration(x, t));
    if (i >= 0) out[i] = t;
    else out.push(t);
  }
  return out;
}

/** The template's spec as the core/v1 shape the scheduling predicates read. */
export function templateSpec(template: PodTemplateSpec): PodSpec {
  return (template.spec ?? {}) as unknown as PodSpec;
}

const hostNetworkOf = (template: PodTemplateSpec): boolean => template.spec?.['hostNetwork'] === true;

/** NodeShouldRunDaemonPod. */
export function nodeShouldRunDaemonPod(node: Node, template: PodTemplateSpec): NodePlacement {
  const spec = templateSpec(template);
  const name = node.metadata.name ?? '';
  const never = { shouldRun: false, shouldContinueRunning: false };
  if (spec.nodeName && spec.nodeName !== name) return never;
  const pod: Pod = { metadata: {}, spec: { ...spec, nodeName: name } };
  if (!requiredNodeAffinityMatches(pod, node)) return never;
  const tolerations = withDaemonTolerations(spec.tolerations, hostNetworkOf(template));
  const taints = node.spec?.taints;
  if (untoleratedTaint(taints, tolerations, blocksScheduling) === undefined) {
    return { shouldRun: true, shouldContinueRunning: true };
  }
  const noExecute = (t: Taint): boolean => t.effect === 'NoExecute';
  return { shouldRun: false, shouldContinueRunning: untoleratedTaint(taints, tolerations, noExecute) === undefined };
}

const NODE_NAME_FIELD = 'metadata.name';

/** ReplaceDaemonSetPodNodeNameNodeAffinity: the required terms become one, `metadata.name In [node]`. */
export function nodeNameAffinity(affinity: Affinity | null | undefined, nodeName: string): Affinity {
  const term: NodeSelectorTerm = { matchFields: [{ key: NODE_NAME_FIELD, operator: 'In', values: [nodeName] }] };
  const out: Affinity = affinity ? copyJson(affinity) : {};
  const nodeAffinity = out.nodeAffinity ?? {};
  nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution = { nodeSelectorTerms: [term] };
  out.nodeAffinity = nodeAffinity;
  return out;
}

/** GetTargetNodeName: the node a Pod runs on, or the one its `metadata.name In` field term binds it to. */
export function targetNodeName(pod: DaemonPodView): string | undefined {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  for (const term of terms ?? []) {
    for (const f of term.matchFields ?? []) {
      if (f.key !== NODE_NAME_FIELD || f.operator !== 'In') continue;
      return f.values?.length === 1 ? f.values[0] : undefined;
    }
  }
  return undefined;
}
