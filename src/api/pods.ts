// Readings of a core/v1 Pod that several components make (the workload and disruption controllers, the scheduler, the
// node's admission), in the words of upstream's helpers (k8s:pkg/api/v1/pod/util.go, pkg/controller/controller_utils.go):
// podutil.IsPodReady and IsPodAvailable, metav1.GetControllerOf, the terminal phases. They read the least of a Pod,
// PodView, which the full ./workloads.ts Pod is one of. Pure.

import type { OwnerReference, Time } from './types.js';

export interface PodConditionView {
  type: string;
  status: string;
  lastTransitionTime?: Time | null;
}

/** The least of a core/v1 Pod the workload controllers decide from. */
export interface PodView {
  metadata: {
    name?: string;
    namespace?: string;
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    creationTimestamp?: Time | null;
    deletionTimestamp?: Time | null;
    ownerReferences?: OwnerReference[];
  };
  spec?: { nodeName?: string };
  status?: {
    phase?: string;
    conditions?: PodConditionView[];
    containerStatuses?: { restartCount?: number }[];
  };
}

/** The one owner reference with controller: true (metav1.GetControllerOf). */
export function controllerOf(meta: {
  ownerReferences?: readonly OwnerReference[] | undefined;
}): OwnerReference | undefined {
  return (meta.ownerReferences ?? []).find((r) => r.controller === true);
}

export function isTerminating(pod: PodView): boolean {
  return typeof pod.metadata.deletionTimestamp === 'string' && pod.metadata.deletionTimestamp !== '';
}

/** Succeeded or Failed: the Pod will not run again. */
export function isPodTerminal(pod: PodView): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/** controller.IsPodActive: neither terminal nor being deleted. */
export function isPodActive(pod: PodView): boolean {
  return !isPodTerminal(pod) && !isTerminating(pod);
}

function readyCondition(pod: PodView): PodConditionView | undefined {
  return pod.status?.conditions?.find((c) => c.type === 'Ready');
}

/** podutil.IsPodReady: condition Ready is True. */
export function isPodReady(pod: PodView): boolean {
  return readyCondition(pod)?.status === 'True';
}

/** When a ready Pod became ready (ms), undefined when it is not ready or the time is not recorded. */
export function podReadySinceMs(pod: PodView): number | undefined {
  const c = readyCondition(pod);
  return c?.status === 'True' ? timeMs(c.lastTransitionTime) : undefined;
}

/** podutil.IsPodAvailable: ready, and (minReadySeconds > 0) ready for strictly longer than minReadySeconds. */
export function isPodAvailable(pod: PodView, minReadySeconds: number, nowMs: number): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds <= 0) return true;
  const since = podReadySinceMs(pod);
  return since !== undefined && since + minReadySeconds * 1000 < nowMs;
}

/** A metav1.Time as ms; an absent or unreadable one is the zero time (undefined). */
export function timeMs(t: Time | null | undefined): number | undefined {
  if (!t) return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}
