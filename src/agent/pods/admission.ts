// Whether the node takes a Pod bound to it, as the kubelet's admission decides (pkg/kubelet/lifecycle/predicate.go
// predicateAdmitHandler.Admit, generalFilter, scheduler.AdmissionCheck): the resource fit against allocatable — the
// pod count against the running config's maxPods — then the required node affinity, the node name, and, for pods
// that are not static, the NoExecute taints; cordoning and NoSchedule taints do not matter here. Only the first
// failure is reported, as `OutOf<resource>` with the resource message or as the plugin's name with `Predicate …
// failed`. Requests of extended resources the node does not offer at all are left to the device plugins and not
// checked. Pure: the agent passes the pods it already runs and records the rejection.

import { isPodTerminal } from '../../api/pods.js';
import type { Node } from '../../api/types.js';
import type { Pod, PodStatus } from '../../api/workloads.js';
import { nodeNameFits, requiredNodeAffinityMatches, untoleratedTaint } from '../../scheduling/constraints.js';
import { amounts, insufficientResources, PODS, podRequests, requestedBy } from '../../scheduling/resources.js';
import { admission as texts } from './messages.js';

export interface AdmissionInput {
  pod: Pod;
  /** The node's own object: labels, taints and status.allocatable. */
  node: Node;
  /** maxPods of the KubeletConfiguration the node runs: the pod capacity. */
  maxPods: number;
  /** The pods the node has admitted; terminal ones hold nothing. */
  running: readonly Pod[];
}

export type Admission = { admit: true } | { admit: false; reason: string; message: string };

const CONFIG_SOURCE = 'kubernetes.io/config.source';

/** A pod from a manifest file or URL rather than the API server (kubetypes.IsStaticPod). */
function isStaticPod(pod: Pod): boolean {
  const source = pod.metadata.annotations?.[CONFIG_SOURCE];
  return source !== undefined && source !== 'api';
}

/** v1helper.IsExtendedResourceName, near enough: a qualified name outside kubernetes.io. */
const isExtended = (name: string): boolean => name.includes('/') && !name.includes('kubernetes.io/');

export function admitPod(input: AdmissionInput): Admission {
  const { pod, node } = input;
  const running = input.running.filter((p) => !isPodTerminal(p));
  const allocatable = amounts(node.status?.allocatable);
  allocatable.set(PODS, BigInt(input.maxPods));
  const request = podRequests(pod);
  for (const name of [...request.keys()]) if (isExtended(name) && !allocatable.has(name)) request.delete(name);
  const short = insufficientResources(request, { allocatable, requested: requestedBy(running), pods: running.length });
  const first = short[0];
  if (first) {
    const message = texts.insufficient(first.resource, first.requested, first.used, first.capacity);
    return { admit: false, reason: texts.outOf(first.resource), message };
  }
  const predicate = (plugin: string, why: string): Admission => ({
    admit: false,
    reason: plugin,
    message: texts.predicateFailed(plugin, why),
  });
  if (!requiredNodeAffinityMatches(pod, node)) return predicate('NodeAffinity', texts.nodeAffinity);
  if (!nodeNameFits(pod, node)) return predicate('NodeName', texts.nodeName);
  const noExecute = (t: { effect: string }) => t.effect === 'NoExecute';
  if (!isStaticPod(pod) && untoleratedTaint(node.spec?.taints, pod.spec?.tolerations, noExecute)) {
    return predicate('TaintToleration', texts.untoleratedTaints);
  }
  return { admit: true };
}

/** The status a rejected pod is given (kubelet rejectPod): Failed, with the reason and `Pod was rejected: …`. */
export function rejectedStatus(rejection: { reason: string; message: string }): PodStatus {
  return { phase: 'Failed', reason: rejection.reason, message: texts.rejected(rejection.message) };
}
