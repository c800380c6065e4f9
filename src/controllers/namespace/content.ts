// The namespace controller's decisions about content, as kube-controller-manager's namespace deleter makes them: what a
// resource's objects left after the deletes mean (gone; held by finalizers, which is normal and waited for; or left
// without any finalizer, which is an error), how long to wait before looking again, and the spec.finalizers to write
// through /finalize once nothing is left. Pure.

import { unexpectedRemainderMessage } from './conditions.js';
import type { GroupVersionResource } from './discovery.js';

/** kube's default wait for finalizers found on objects being deleted, in seconds. */
export const FINALIZER_ESTIMATE_SECONDS = 15;

export interface Remainder {
  /** Seconds to wait for what is left; 0 when nothing is to be waited for. */
  estimateSeconds: number;
  count: number;
  /** Objects left per finalizer they name. */
  finalizers: Record<string, number>;
  /** Objects left that no finalizer holds: they should have gone. */
  error?: string;
}

/** What the objects of `gvr` still in `namespace` after its deletes mean. */
export function remainderOf(
  namespace: string,
  gvr: GroupVersionResource,
  left: readonly { metadata?: { [field: string]: unknown } }[],
): Remainder {
  if (left.length === 0) return { estimateSeconds: 0, count: 0, finalizers: {} };
  const finalizers: Record<string, number> = {};
  for (const o of left) {
    const named = o.metadata?.['finalizers'];
    for (const f of Array.isArray(named) ? named : [])
      if (typeof f === 'string') finalizers[f] = (finalizers[f] ?? 0) + 1;
  }
  if (Object.keys(finalizers).length > 0)
    return { estimateSeconds: FINALIZER_ESTIMATE_SECONDS, count: left.length, finalizers };
  return { estimateSeconds: 0, count: left.length, finalizers, error: unexpectedRemainderMessage(namespace, gvr) };
}

/** How long to wait before looking at a namespace whose content is still going (kube: half the estimate, plus one second). */
export function requeueAfterMs(estimateSeconds: number): number {
  return (Math.floor(estimateSeconds / 2) + 1) * 1000;
}

/** spec.finalizers without `token`, sorted and without repeats, as the namespace deleter writes them through /finalize. */
export function finalizersWithout(finalizers: readonly string[], token: string): string[] {
  return [...new Set(finalizers.filter((f) => f !== token))].sort();
}

/** The path of a resource's objects in a namespace. */
export function collectionPath(gvr: GroupVersionResource, namespace: string): string {
  const base = gvr.group === '' ? `/api/${gvr.version}` : `/apis/${gvr.group}/${gvr.version}`;
  return `${base}/namespaces/${encodeURIComponent(namespace)}/${gvr.resource}`;
}
