// structured-merge-diff's Updater: how the managers' field sets move on a write. An update takes every field it
// changes from whoever held it; an apply owns exactly the fields of its configuration, removes the fields it
// applied last time and no longer applies when no one else holds them, and is refused with the conflicting fields
// when it would change a field another manager holds (unless forced, which takes them).
//
// Every kind is served in one shape (custom kinds' versions without conversion), so sets recorded at any
// apiVersion are compared against the same comparison.

import {
  difference,
  emptySet,
  intersection,
  isEmptySet,
  recursiveDifference,
  union,
  type FieldSet,
} from './fieldset.js';
import type { Managed, VersionedSet } from './managed.js';
import {
  compare,
  ensureNamedFieldsAreMembers,
  jsonEqual,
  merge,
  removeItems,
  toFieldSet,
  type Comparison,
} from './typed.js';
import type { SsaType } from './types.js';

/** Fields of other managers an apply would change: manager identifier → the paths. */
export class Conflicts extends Error {
  override readonly name = 'Conflicts';
  constructor(readonly byManager: Map<string, FieldSet>) {
    super('conflicts');
  }
}

export interface UpdaterContext {
  readonly type: SsaType;
  readonly apiVersion: string;
  /** Fields the write cannot change (another subresource's), left out of comparisons and of the writer's set. */
  readonly ignored: FieldSet;
}

function excludeIgnored(c: Comparison, ignored: FieldSet): Comparison {
  if (isEmptySet(ignored)) return c;
  return {
    added: recursiveDifference(c.added, ignored),
    modified: recursiveDifference(c.modified, ignored),
    removed: recursiveDifference(c.removed, ignored),
  };
}

/**
 * Takes the fields `next` changes from every manager but `workflow` (refusing, unless `force`, when one holds any),
 * and the fields it removes from all of them. Mutates `managed.fields`.
 */
/** The object without the top-level fields the write has no say over (so a status write compares status alone). */
function withoutIgnored(obj: unknown, ignored: FieldSet): unknown {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return obj;
  let out: Record<string, unknown> | undefined;
  for (const k of Object.keys(obj)) {
    const node = ignored[`f:${k}`];
    if (node === undefined || !isEmptySet(node)) continue;
    out ??= { ...(obj as Record<string, unknown>) };
    delete out[k];
  }
  return out ?? obj;
}

function takeChanged(
  cx: UpdaterContext,
  live: unknown,
  next: unknown,
  managed: Managed,
  workflow: string,
  force: boolean,
): Comparison {
  const c = excludeIgnored(
    compare(withoutIgnored(live, cx.ignored), withoutIgnored(next, cx.ignored), cx.type),
    cx.ignored,
  );
  const changed = union(c.modified, c.added);
  const conflicts = new Map<string, FieldSet>();
  if (!isEmptySet(changed)) {
    for (const [id, vs] of managed.fields) {
      if (id === workflow) continue;
      const clash = intersection(vs.set, changed);
      if (!isEmptySet(clash)) conflicts.set(id, clash);
    }
  }
  if (!force && conflicts.size > 0) throw new Conflicts(conflicts);
  for (const [id, vs] of managed.fields) {
    if (id === workflow) continue;
    let set = vs.set;
    const clash = conflicts.get(id);
    if (clash) set = difference(set, clash);
    set = difference(set, c.removed);
    if (set === vs.set) continue;
    if (isEmptySet(set)) managed.fields.delete(id);
    else managed.fields.set(id, { ...vs, set });
  }
  return c;
}

/**
 * Records an update (create, update, patch) by `manager`: it takes what it changed from the others and keeps what it
 * owned, less what the update removed — upstream's update under a stand-in manager merged into the real one.
 * `strip` holds fields no one owns. Returns whether the manager took anything (its entry's time then moves).
 */
export function recordUpdate(
  cx: UpdaterContext,
  live: unknown,
  next: unknown,
  managed: Managed,
  manager: string,
  strip: FieldSet,
): boolean {
  const c = takeChanged(cx, live, next, managed, manager, true);
  const taken = difference(union(c.modified, c.added), strip);
  const previous = managed.fields.get(manager);
  const kept = previous ? difference(previous.set, c.removed) : emptySet();
  if (isEmptySet(taken)) {
    if (previous && kept !== previous.set) {
      if (isEmptySet(kept)) managed.fields.delete(manager);
      else managed.fields.set(manager, { ...previous, set: kept });
    }
    return false;
  }
  managed.fields.set(manager, { set: union(kept, taken), apiVersion: cx.apiVersion, applied: false });
  return true;
}

/**
 * Merges an applied configuration into `live` for `manager`; returns the new object, or undefined when nothing
 * changes. Throws Conflicts unless `force`. Mutates `managed.fields`.
 */
export function recordApply(
  cx: UpdaterContext,
  live: unknown,
  config: unknown,
  configSet: FieldSet,
  managed: Managed,
  manager: string,
  force: boolean,
): unknown {
  let next = merge(live, config, cx.type);
  const last = managed.fields.get(manager);
  const set = recursiveDifference(configSet, cx.ignored);
  managed.fields.set(manager, { set, apiVersion: cx.apiVersion, applied: true });
  next = prune(cx, next, managed, set, last);
  takeChanged(cx, live, next, managed, manager, force);
  if (isEmptySet(set)) managed.fields.delete(manager);
  return jsonEqual(live, next) ? undefined : next;
}

/**
 * Removes what the manager applied last time and applies no more, unless someone still owns it (upstream's prune:
 * remove the last applied set, add back everything owned, add back everything that was not the manager's).
 */
function prune(
  cx: UpdaterContext,
  merged: unknown,
  managed: Managed,
  applied: FieldSet,
  last: VersionedSet | undefined,
): unknown {
  // Applying at least what it applied last time leaves nothing to remove (asked of the sets as they are first:
  // making named fields members keeps a subset a subset, and costs two walks of both sets).
  if (!last || isEmptySet(difference(last.set, applied))) return merged;
  const t = cx.type;
  const lastNamed = ensureNamedFieldsAreMembers(last.set, t);
  if (isEmptySet(difference(lastNamed, ensureNamedFieldsAreMembers(applied, t)))) return merged;
  let pruned = removeItems(merged, lastNamed, t);
  let owned = emptySet();
  for (const vs of managed.fields.values()) owned = union(owned, vs.set);
  const mergedSet = ensureNamedFieldsAreMembers(toFieldSet(merged, t), t);
  let prunedSet = ensureNamedFieldsAreMembers(toFieldSet(pruned, t), t);
  pruned = removeItems(merged, difference(mergedSet, union(prunedSet, ensureNamedFieldsAreMembers(owned, t))), t);
  prunedSet = ensureNamedFieldsAreMembers(toFieldSet(pruned, t), t);
  return removeItems(merged, intersection(difference(mergedSet, prunedSet), lastNamed), t);
}
