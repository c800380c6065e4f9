// Readings of a core/v1 Pod that several components make (the disruption controller, the scheduler, the node's
// admission), in the words of upstream's helpers: podutil.IsPodReady, metav1.GetControllerOf, the terminal phases.
// Pure.

import type { OwnerReference } from './types.js';
import type { Pod } from './workloads.js';

/** Ready=True (k8s.io/kubernetes/pkg/api/v1/pod IsPodReady). */
export function isPodReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** Succeeded or Failed: the pod holds no resources on its node any more. */
export function isPodTerminal(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

export function isPodDeleting(pod: Pod): boolean {
  const ts = pod.metadata.deletionTimestamp;
  return typeof ts === 'string' && ts !== '';
}

/** The owner reference with controller=true (metav1.GetControllerOf), if any. */
export function controllerOf(pod: Pod): OwnerReference | undefined {
  return pod.metadata.ownerReferences?.find((r) => r.controller === true);
}
