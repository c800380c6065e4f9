// A Pod's status conditions as kube's registry sets them (pkg/api/pod's UpdatePodCondition): the binding's
// PodScheduled, the Eviction API's DisruptionTarget. Pure.

import type { PodCondition } from './types.js';

/** UpdatePodCondition: the condition replaced whole, its transition time kept when the status does not change. */
export function withCondition(conditions: readonly PodCondition[], next: PodCondition, now: string): PodCondition[] {
  const old = conditions.find((c) => c.type === next.type);
  const lastTransitionTime = old && old.status === next.status ? (old.lastTransitionTime ?? now) : now;
  const condition = { lastProbeTime: null, ...next, lastTransitionTime };
  return old ? conditions.map((c) => (c === old ? condition : c)) : [...conditions, condition];
}
