// Taints and tolerations as kube matches them (core/v1 toleration.go ToleratesTaint, and the helpers the scheduler,
// the DaemonSet controller, the kubelet's admission and the taint eviction controller share): one definition here.

import type { OpenString, Taint } from './types.js';

export interface Toleration {
  key?: string;
  operator?: OpenString<'Exists' | 'Equal'>;
  value?: string;
  effect?: OpenString<'NoSchedule' | 'PreferNoSchedule' | 'NoExecute'>;
  tolerationSeconds?: number | null;
}

/**
 * Whether `t` tolerates `taint`: the same effect (or none given), the same key (or none given with Exists: every
 * key), and for Equal (the default operator) the same value.
 */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  const operator = t.operator || 'Equal';
  if (operator === 'Exists') return true;
  if (operator !== 'Equal') return false;
  return (t.key ?? '') !== '' && (t.value ?? '') === (taint.value ?? '');
}

/** The taints of `taints` that no toleration of `tolerations` tolerates (kube's FindMatchingUntoleratedTaint, all of them). */
export function untoleratedTaints(taints: readonly Taint[], tolerations: readonly Toleration[]): Taint[] {
  return taints.filter((taint) => !tolerations.some((t) => toleratesTaint(t, taint)));
}

/** The tolerations that tolerate some of `taints` (GetMatchingTolerations' second result). */
export function matchingTolerations(taints: readonly Taint[], tolerations: readonly Toleration[]): Toleration[] {
  return tolerations.filter((t) => taints.some((taint) => toleratesTaint(t, taint)));
}
