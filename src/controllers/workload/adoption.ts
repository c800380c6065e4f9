// The writes of a workload controller's claim (kube's ControllerRefManager AdoptPod/ReleasePod and their ReplicaSet
// twins): before adopting, the controller is read afresh from the API — an owner deleted or recreated meanwhile must
// not adopt (RecheckDeletionTimestamp); then a strategic-merge patch per object, guarded by the object's UID. An
// object gone (404) or replaced (422, the UID guard) is skipped, as kube skips it.

import { isApiError, type RestClient } from '../../client/index.js';
import { adoptPatch, newControllerRef, releasePatch } from './controllerref.js';
import { adoptionTexts } from './messages.js';

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

/** The controller that claims: its kind (apps/v1), its API path, the object. */
export interface ClaimingOwner {
  kind: string;
  path: string;
  object: { metadata: { namespace?: string; name?: string; uid?: string } };
}

/** The fresh read before an adoption: an error when the owner is gone, replaced or being deleted. */
async function recheckOwner(client: Pick<RestClient, 'get'>, owner: ClaimingOwner): Promise<void> {
  const { namespace = '', name = '', uid = '' } = owner.object.metadata;
  const fresh = await client.get<{ metadata: { uid?: string; deletionTimestamp?: string | null } }>(owner.path);
  const got = fresh.metadata.uid ?? '';
  if (got !== uid) throw new Error(adoptionTexts.gone(owner.kind, namespace, name, got, uid));
  const at = fresh.metadata.deletionTimestamp;
  if (at) throw new Error(adoptionTexts.justDeleted(namespace, name, at));
}

/** Adopts (once the owner is read afresh) and releases as claimed. */
export async function writeClaim<T extends Owned>(
  client: Pick<RestClient, 'get' | 'patch'>,
  owner: ClaimingOwner,
  w: ClaimWrites<T>,
): Promise<void> {
  if (w.adopt.length > 0) await recheckOwner(client, owner);
  const ref = newControllerRef('apps/v1', owner.kind, owner.object);
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
