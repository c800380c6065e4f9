// The disruption controller's second duty (disruption.go syncStalePodDisruption, nonTerminatingPodHasStaleDisruption-
// Condition): a Pod marked DisruptionTarget=True that is still not being deleted two minutes later — an eviction
// or a preemption that did not go through — has the condition reset to False. The kubelet's own mark
// (TerminationByKubelet) and a finished Pod's are never stale. Pure: the controller waits, then applies the reset.

import { isPodTerminal } from '../../api/pods.js';
import type { Pod } from '../../api/workloads.js';
import { formatTime } from '../../util/clock.js';

/** stalePodDisruptionTimeout. */
export const STALE_POD_DISRUPTION_TIMEOUT_MS = 2 * 60 * 1000;
export const DISRUPTION_TARGET = 'DisruptionTarget';
/** The field manager of the reset (fieldManager in disruption.go). */
export const STALE_FIELD_MANAGER = 'DisruptionController';
const TERMINATION_BY_KUBELET = 'TerminationByKubelet';

/** Undefined when the Pod has no stale-to-be condition; else how long until it is stale (0: it is). */
export function staleDisruptionIn(pod: Pod, nowMs: number): number | undefined {
  if (pod.metadata.deletionTimestamp) return undefined;
  const cond = pod.status?.conditions?.find((c) => c.type === DISRUPTION_TARGET);
  if (!cond || cond.status !== 'True' || cond.reason === TERMINATION_BY_KUBELET || isPodTerminal(pod)) return undefined;
  const since = Date.parse(cond.lastTransitionTime ?? '');
  const waitMs = STALE_POD_DISRUPTION_TIMEOUT_MS - (nowMs - (Number.isNaN(since) ? 0 : since));
  return Math.max(0, waitMs);
}

/** The apply configuration of the reset: the condition False, guarded by the Pod's resourceVersion. */
export function staleDisruptionReset(pod: Pod, nowMs: number): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: pod.metadata.name,
      namespace: pod.metadata.namespace,
      resourceVersion: pod.metadata.resourceVersion,
    },
    status: {
      conditions: [{ type: DISRUPTION_TARGET, status: 'False', lastTransitionTime: formatTime(new Date(nowMs)) }],
    },
  };
}
