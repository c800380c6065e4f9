// What the garbage collector does with one object, as kube-controller-manager's garbage collector decides it
// (pkg/controller/garbagecollector: attemptToDeleteItem, processDeletingDependentsItem, orphanDependents), from what
// it knows of the object and of its owners. Pure: the controller looks things up and carries the answer out.
//
// The rules (https://kubernetes.io/docs/concepts/architecture/garbage-collection/):
// - an object whose owners are all gone (absent, or a different object under that name: another uid) is deleted,
//   with the propagation its own finalizers ask for, Background otherwise;
// - an object with one owner still there loses only its references to the absent owners and to owners that are
//   deleting their dependents in the foreground;
// - an object all of whose remaining owners are deleting in the foreground is deleted too — in the foreground when it
//   has dependents of its own, so the cascade goes all the way down before the owner goes;
// - an owner deleting in the foreground keeps its `foregroundDeletion` finalizer while a dependent with
//   blockOwnerDeletion=true exists;
// - an owner deleting with `orphan` first has its references removed from every dependent, then loses the finalizer.

import type { OwnerReference } from '../../api/types.js';

export const FINALIZER_ORPHAN = 'orphan';
export const FINALIZER_FOREGROUND = 'foregroundDeletion';

export type Policy = 'Foreground' | 'Background' | 'Orphan';

/** What the collector found for one owner reference. */
export type OwnerState =
  /** Not found, or found with another uid: the reference dangles. */
  | 'absent'
  /** There, and not deleting its dependents in the foreground. */
  | 'solid'
  /** There, being deleted with `foregroundDeletion`: it waits for its dependents. */
  | 'waiting'
  /** A cluster-scoped object naming a namespaced kind: never resolvable, so the object is never collected. */
  | 'invalid';

export interface ObjectMetaView {
  uid?: string | undefined;
  deletionTimestamp?: string | undefined | null;
  finalizers?: readonly string[] | undefined;
  ownerReferences?: readonly OwnerReference[] | undefined;
}

export type Action =
  | { do: 'nothing' }
  /** Remove these owner references (by uid) from the object. */
  | { do: 'removeOwners'; uids: string[] }
  /** Delete the object with this propagation policy. */
  | { do: 'delete'; policy: Policy }
  /** Remove this finalizer from the object. */
  | { do: 'removeFinalizer'; finalizer: string };

export function isDeleting(m: ObjectMetaView): boolean {
  return typeof m.deletionTimestamp === 'string' && m.deletionTimestamp !== '';
}

export function hasFinalizer(m: ObjectMetaView, f: string): boolean {
  return (m.finalizers ?? []).includes(f);
}

/** Being deleted in the foreground: kube's node.isDeletingDependents. */
export function isDeletingDependents(m: ObjectMetaView): boolean {
  return isDeleting(m) && hasFinalizer(m, FINALIZER_FOREGROUND);
}

/** Being deleted with its dependents orphaned. */
export function isOrphaning(m: ObjectMetaView): boolean {
  return isDeleting(m) && hasFinalizer(m, FINALIZER_ORPHAN);
}

/** The owner's state from what was found under the reference's coordinates. */
export function ownerState(ref: OwnerReference, found: ObjectMetaView | undefined): OwnerState {
  if (found === undefined || found.uid !== ref.uid) return 'absent';
  return isDeletingDependents(found) ? 'waiting' : 'solid';
}

/**
 * attemptToDeleteItem for an object not being deleted: `owners` gives each owner reference's state (by uid),
 * `hasDependents` whether anything names this object as its owner.
 */
export function decideDependent(
  obj: ObjectMetaView,
  owners: ReadonlyMap<string, OwnerState>,
  hasDependents: boolean,
): Action {
  if (isDeleting(obj)) return { do: 'nothing' };
  const refs = obj.ownerReferences ?? [];
  if (refs.length === 0) return { do: 'nothing' };
  const solid: string[] = [];
  const gone: string[] = [];
  const waiting: string[] = [];
  for (const ref of refs) {
    const state = owners.get(ref.uid);
    if (state === undefined || state === 'invalid') return { do: 'nothing' };
    if (state === 'solid') solid.push(ref.uid);
    else if (state === 'absent') gone.push(ref.uid);
    else waiting.push(ref.uid);
  }
  if (solid.length > 0) {
    const remove = [...gone, ...waiting];
    return remove.length > 0 ? { do: 'removeOwners', uids: remove } : { do: 'nothing' };
  }
  if (waiting.length > 0 && hasDependents) return { do: 'delete', policy: 'Foreground' };
  if (hasFinalizer(obj, FINALIZER_ORPHAN)) return { do: 'delete', policy: 'Orphan' };
  if (hasFinalizer(obj, FINALIZER_FOREGROUND)) return { do: 'delete', policy: 'Foreground' };
  return { do: 'delete', policy: 'Background' };
}

/** Whether `dependent`'s reference to `ownerUid` blocks that owner's foreground deletion. */
export function blocksOwner(dependent: ObjectMetaView, ownerUid: string): boolean {
  return (dependent.ownerReferences ?? []).some((r) => r.uid === ownerUid && r.blockOwnerDeletion === true);
}

/** processDeletingDependentsItem: an owner deleting in the foreground lets go once no dependent blocks it. */
export function decideForegroundOwner(owner: ObjectMetaView, blockingDependents: number): Action {
  if (!isDeletingDependents(owner)) return { do: 'nothing' };
  return blockingDependents === 0 ? { do: 'removeFinalizer', finalizer: FINALIZER_FOREGROUND } : { do: 'nothing' };
}

/** The owner references left once `uids` are removed. */
export function withoutOwners(refs: readonly OwnerReference[], uids: readonly string[]): OwnerReference[] {
  const drop = new Set(uids);
  return refs.filter((r) => !drop.has(r.uid));
}

/** The finalizers left once `finalizer` is removed. */
export function withoutFinalizer(finalizers: readonly string[], finalizer: string): string[] {
  return finalizers.filter((f) => f !== finalizer);
}

/** objectReference.String() of kube's garbage collector, as its events print an owner. */
export function describeOwner(ref: OwnerReference, namespace: string): string {
  return `[${ref.apiVersion}/${ref.kind}, namespace: ${namespace}, name: ${ref.name}, uid: ${ref.uid}]`;
}

/** The Warning event's message for an owner reference that cannot resolve in the dependent's namespace. */
export function invalidNamespaceMessage(ref: OwnerReference, namespace: string): string {
  return `ownerRef ${describeOwner(ref, namespace)} does not exist in namespace ${JSON.stringify(namespace)}`;
}

export const INVALID_NAMESPACE_REASON = 'OwnerRefInvalidNamespace';
