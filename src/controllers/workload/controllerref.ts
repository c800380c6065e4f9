// Ownership of a workload controller's dependents, as kube's ControllerRefManager decides it
// (k8s:pkg/controller/controller_ref_manager.go ClaimObject): a controller owns what names it as controller and
// matches its selector, adopts orphans that match, releases what it owns that no longer matches, and leaves alone
// what another controller owns. Pure: the host sends the patches this module writes.

import { type LabelSelector as ApiLabelSelector } from '../../api/apps.js';
import { controllerOf } from '../../api/pods.js';
import { matchesLabels, objectSelectorRequirements, type LabelSelector } from '../../api/selectors.js';
import type { OwnerReference } from '../../api/types.js';
import { errorMessage } from '../../util/errors.js';

/** The least of an object the claim looks at. */
export interface Claimable {
  metadata: {
    uid?: string;
    namespace?: string;
    labels?: Record<string, string>;
    deletionTimestamp?: string | null;
    ownerReferences?: OwnerReference[];
  };
}

export interface ClaimOwner {
  uid: string;
  namespace: string;
  /** An owner being deleted adopts nothing and releases nothing. */
  deleting: boolean;
}

export interface Claim<T> {
  /** What the controller works with: owned and matching, plus the orphans it adopts. */
  owned: T[];
  adopt: T[];
  release: T[];
}

const deleting = (o: Claimable): boolean => !!o.metadata.deletionTimestamp;

/** ClaimObject over a list, in its order; `filter` (ClaimPods' filters) narrows what matches beyond the selector. */
export function claim<T extends Claimable>(
  owner: ClaimOwner,
  selector: LabelSelector,
  objects: readonly T[],
  filter: (o: T) => boolean = () => true,
): Claim<T> {
  const out: Claim<T> = { owned: [], adopt: [], release: [] };
  for (const o of objects) {
    const ref = controllerOf(o.metadata);
    const matches = matchesLabels(selector, o.metadata.labels) && filter(o);
    if (ref !== undefined) {
      if (ref.uid !== owner.uid) continue;
      if (matches) out.owned.push(o);
      else if (!owner.deleting) out.release.push(o);
      continue;
    }
    if (owner.deleting || !matches || deleting(o)) continue;
    if (owner.namespace !== '' && owner.namespace !== (o.metadata.namespace ?? '')) continue;
    out.adopt.push(o);
    out.owned.push(o);
  }
  return out;
}

/** The least of a workload controller the claim of its dependents reads. */
export interface ClaimingController {
  metadata: { uid?: string; namespace?: string; deletionTimestamp?: string | null };
  spec: { selector: ApiLabelSelector };
}

/**
 * The claim a controller makes on `objects` with its selector, or, when the selector cannot be read, the
 * controller's message for it (`badSelector` gets the parser's reason): kube then logs it and does nothing else.
 */
export function claimBySelector<T extends Claimable>(
  controller: ClaimingController,
  objects: readonly T[],
  badSelector: (why: string) => string,
  filter?: (o: T) => boolean,
): { owner: ClaimOwner; claimed: Claim<T> } | { error: string } {
  let selector;
  try {
    selector = objectSelectorRequirements(controller.spec.selector);
  } catch (e) {
    return { error: badSelector(errorMessage(e)) };
  }
  const meta = controller.metadata;
  const owner = { uid: meta.uid ?? '', namespace: meta.namespace ?? '', deleting: !!meta.deletionTimestamp };
  return { owner, claimed: claim(owner, selector, objects, filter) };
}

/** metav1.NewControllerRef. */
export function newControllerRef(
  apiVersion: string,
  kind: string,
  owner: { metadata: { name?: string; uid?: string } },
): OwnerReference {
  return {
    apiVersion,
    kind,
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The strategic-merge patch that adopts an object (the object's uid guards against a recreated namesake). */
export function adoptPatch(ref: OwnerReference, objectUid: string): Record<string, unknown> {
  return { metadata: { ownerReferences: [ref], uid: objectUid } };
}

/** The strategic-merge patch that releases an object from the owner `ownerUid`. */
export function releasePatch(ownerUid: string, objectUid: string): Record<string, unknown> {
  return { metadata: { ownerReferences: [{ $patch: 'delete', uid: ownerUid }], uid: objectUid } };
}
