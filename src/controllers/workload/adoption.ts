// The writes of a workload controller's claim (kube's ControllerRefManager AdoptPod/ReleasePod and their ReplicaSet
// twins): before adopting, the controller is read afresh from the API — an owner deleted or recreated meanwhile must
// not adopt (RecheckDeletionTimestamp); then a strategic-merge patch per object, guarded by the object's UID. An
// object gone (404) or replaced (422, the UID guard) is skipped, as kube skips it.

import type { OwnerReference } from '../../api/types.js';
import { isApiError, type RestClient } from '../../client/index.js';
import { adoptPatch, releasePatch } from './controllerref.js';

interface Owned {
  metadata: { uid?: string };
}

export interface ClaimWrites<T extends Owned> {
  adopt: readonly T[];
  release: readonly T[];
  /** The object's API path. */
  pathOf(o: T): string;
}

const skippable = (err: unknown): boolean => isApiError(err, 404) || isApiError(err, 422);

/** The fresh read before an adoption: an error (the caller's words) when the owner is gone, replaced or deleting. */
export async function recheckOwner(
  client: Pick<RestClient, 'get'>,
  path: string,
  uid: string,
  texts: { gone(got: string): string; deleting(at: string): string },
): Promise<void> {
  const fresh = await client.get<{ metadata: { uid?: string; deletionTimestamp?: string | null } }>(path);
  if (fresh.metadata.uid !== uid) throw new Error(texts.gone(fresh.metadata.uid ?? ''));
  if (fresh.metadata.deletionTimestamp) throw new Error(texts.deleting(fresh.metadata.deletionTimestamp));
}

/** Adopts and releases as claimed; `ref` is the controller's reference for the adopted. */
export async function writeClaim<T extends Owned>(
  client: Pick<RestClient, 'patch'>,
  ref: OwnerReference,
  w: ClaimWrites<T>,
): Promise<void> {
  const send = async (o: T, patch: Record<string, unknown>) => {
    try {
      await client.patch(w.pathOf(o), 'strategic', patch);
    } catch (err) {
      if (!skippable(err)) throw err;
    }
  };
  for (const o of w.adopt) await send(o, adoptPatch(ref, o.metadata.uid ?? ''));
  for (const o of w.release) await send(o, releasePatch(ref.uid, o.metadata.uid ?? ''));
}
