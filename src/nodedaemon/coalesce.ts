// Coalescing a burst of assignments: each assignment the daemon applies costs a restart of the kubelet, so before it
// writes the kubelet's file, and again before it runs the restart, it asks whether the assignment has moved on since
// the sync recorded the one at hand. If so it leaves the kubelet alone: the sync, poked by the same change, records
// the newer one and applies it, and five assignments in a burst restart the kubelet once or twice, not five times.
// Pure.

import type { NodeConfigSource } from '../api/types.js';

/**
 * Whether `recorded` (the assigned record: the source resolved to its ConfigMap's uid and resourceVersion) is no
 * longer what the node is assigned: `live` is the assignment's spec.configSource as the informer holds it now (which
 * the sync read `recorded` from, so it is never older). Only a new reference counts: an edit of the same ConfigMap is
 * seen through a cache that may lag behind the sync's own read, and skipping on it could leave the edit unapplied.
 */
export function superseded(recorded: NodeConfigSource | undefined, live: NodeConfigSource | undefined): boolean {
  const r = recorded?.configMap;
  const l = live?.configMap;
  if (!r || !l) return Boolean(r) !== Boolean(l);
  if (r.namespace !== l.namespace || r.name !== l.name || r.kubeletConfigKey !== l.kubeletConfigKey) return true;
  return Boolean(l.uid && r.uid && l.uid !== r.uid);
}
