// kube-apiserver's deletion with finalizers, for every kind: a DELETE of an object that names finalizers only marks
// it (metadata.deletionTimestamp, deletionGracePeriodSeconds 0, the generation bumped once), and the object stays
// readable and writable — though no new finalizer may be added (the update validation says so) — until a write
// removes its last finalizer, which deletes it. Pure: the storage does the writes.

import type { KubeObject } from '../api/types.js';

export function pendingFinalizers(obj: KubeObject): boolean {
  return (obj.metadata.finalizers ?? []).length > 0;
}

export function isBeingDeleted(obj: KubeObject): boolean {
  return typeof obj.metadata.deletionTimestamp === 'string' && obj.metadata.deletionTimestamp !== '';
}

/** The object marked for deletion at `now` (an RFC 3339 time), as kube's markAsDeleting leaves it. */
export function markDeleting(obj: KubeObject, now: string): KubeObject {
  const meta = { ...obj.metadata };
  if (!isBeingDeleted(obj)) {
    if (typeof meta.generation === 'number' && meta.generation > 0) meta.generation += 1;
    meta.deletionTimestamp = now;
  }
  meta.deletionGracePeriodSeconds = 0;
  return { ...obj, metadata: meta };
}

/**
 * Whether an update turns into a delete (kube's shouldDeleteDuringUpdate): the stored object was being deleted with
 * no grace period left, and the update leaves it without finalizers.
 */
export function deletedByUpdate(next: KubeObject, current: KubeObject): boolean {
  if (pendingFinalizers(next) || !isBeingDeleted(current)) return false;
  const grace = current.metadata.deletionGracePeriodSeconds;
  return grace === undefined || grace === null || grace === 0;
}
