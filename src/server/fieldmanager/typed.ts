// Values walked by their server-side-apply type (structured-merge-diff's typed package), on plain JSON: the fields a
// value sets (toFieldSet), what changed between two values (compare), the merge of an applied configuration into an
// object (merge, the applied side winning), and the removal of fields (removeItems). Lists and maps go item by item
// where their type says so (keyed lists by their key fields, sets by value) and whole where it says atomic.
//
// Walking an applied configuration is strict: a field the schema does not declare, a value of the wrong shape, a
// keyed list item without its keys, or a repeated key is an error. Stored objects are walked leniently (anything
// unexpected is one atomic value), since an object that exists must stay writable.

import { DEDUCED, type ListShape, type SsaType } from './types.js';
import { emptySet, hasElement, below, insert, isEmptySet, isMember, type FieldSet } from './fieldset.js';
import { fieldElement, keyElement, pathString, SELF, valueElement, type Scalar } from './pathelement.js';
import { typedText } from './messages.js';

type Json = unknown;
type JsonObject = Record<string, unknown>;

/** A value that does not fit its type, at a path written as conflict messages write paths. */
export class TypedValueError extends Error {
  override readonly name = 'TypedValueError';
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(path ? `${path}: ${detail}` : detail);
  }
}

function isObject(v: Json): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isScalar(v: Json): v is Scalar {
  return v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

function isEmptyObject(o: JsonObject): boolean {
  for (const _ in o) return false;
  return true;
}

/** The type of one key of a map: its declared field, else the map's element type (undefined when neither). */
function fieldTypeOf(t: SsaType, key: string): SsaType | undefined {
  const map = t.map;
  if (!map) return undefined;
  return map.fields?.get(key) ?? map.element;
}

function isDeclared(t: SsaType, key: string): boolean {
  return t.map?.fields?.has(key) === true;
}

type Shape = 'scalar' | 'list' | 'map' | 'null' | 'mismatch';

function shapeOf(v: Json, t: SsaType): Shape {
  if (v === null) return 'null';
  if (Array.isArray(v)) return t.list ? 'list' : 'mismatch';
  if (typeof v === 'object') return t.map ? 'map' : 'mismatch';
  return t.scalar ? 'scalar' : 'mismatch';
}

function describeKind(v: Json): string {
  if (Array.isArray(v)) return 'list';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'map';
  return typeof v === 'string' ? 'string' : typeof v === 'boolean' ? 'boolean' : 'number';
}

function expected(t: SsaType): string {
  return t.map ? 'map' : t.list ? 'list' : 'scalar';
}

/** The path element of a list item, or an error message when the item cannot be one. */
function itemElement(list: ListShape, item: Json): string | { error: string } {
  if (list.keys.length > 0) {
    if (item === null) return { error: typedText.nullKeyedItem };
    if (!isObject(item)) return { error: typedText.nonMapKeyedItem };
    const fields: [string, Scalar][] = [];
    for (const k of list.keys) {
      if (Object.hasOwn(item, k)) {
        const v = item[k];
        fields.push([k, isScalar(v) ? v : JSON.stringify(v)]);
      } else if (list.keyDefaults && Object.hasOwn(list.keyDefaults, k)) {
        const d = list.keyDefaults[k];
        fields.push([k, isScalar(d) ? d : JSON.stringify(d)]);
      }
    }
    if (fields.length === 0) return { error: typedText.itemOmitsKeys(list.keys) };
    return keyElement(fields);
  }
  if (Array.isArray(item)) return { error: typedText.setOfLists };
  if (item === null) return { error: typedText.nullSetItem };
  if (typeof item === 'object') return { error: typedText.mapSetItem };
  return valueElement(item as Scalar);
}

// ---- toFieldSet ---------------------------------------------------------------------------------------------

class FieldSetWalker {
  readonly set: FieldSet = emptySet();
  private readonly path: string[] = [];
  constructor(private readonly strict: boolean) {}

  private fail(detail: string): never {
    throw new TypedValueError(pathString(this.path), detail);
  }

  walk(v: Json, t: SsaType): void {
    const shape = shapeOf(v, t);
    if (shape === 'mismatch') {
      if (this.strict) this.fail(typedText.expected(expected(t), describeKind(v)));
      insert(this.set, this.path);
      return;
    }
    if (shape === 'scalar') {
      insert(this.set, this.path);
      return;
    }
    if (shape === 'null') {
      // A null map or list sets nothing below it (its parent records it); a null scalar is the scalar.
      if (!t.map && !t.list) insert(this.set, this.path);
      else if ((t.map && t.map.atomic) || (!t.map && t.list?.atomic)) insert(this.set, this.path);
      return;
    }
    if (shape === 'list') return this.list(v as Json[], t.list!);
    return this.map(v as JsonObject, t);
  }

  private list(items: Json[], list: ListShape): void {
    if (list.atomic) {
      insert(this.set, this.path);
      return;
    }
    const pes: (string | undefined)[] = [];
    const seen = new Set<string>();
    const repeated = new Set<string>();
    for (let i = 0; i < items.length; i++) {
      const pe = itemElement(list, items[i]);
      if (typeof pe !== 'string') {
        if (this.strict) this.fail(typedText.element(i, pe.error));
        pes.push(undefined);
        continue;
      }
      pes.push(pe);
      if (seen.has(pe)) {
        if (this.strict) this.fail(typedText.duplicateEntries(pe));
        if (!repeated.has(pe)) {
          repeated.add(pe);
          this.path.push(pe);
          insert(this.set, this.path);
          this.path.pop();
        }
      } else seen.add(pe);
    }
    for (let i = 0; i < items.length; i++) {
      const pe = pes[i];
      if (pe === undefined || repeated.has(pe)) continue;
      this.path.push(pe);
      this.walk(items[i], list.element);
      insert(this.set, this.path);
      this.path.pop();
    }
  }

  private map(obj: JsonObject, t: SsaType): void {
    if (t.map!.atomic) {
      insert(this.set, this.path);
      return;
    }
    for (const k in obj) {
      const v = obj[k];
      if (v === undefined) continue;
      const ft = fieldTypeOf(t, k);
      this.path.push(fieldElement(k));
      if (ft === undefined) {
        if (this.strict) this.fail(typedText.notDeclared);
        insert(this.set, this.path);
      } else {
        this.walk(v, ft);
        if (v === null || (isObject(v) && isEmptyObject(v)) || !isDeclared(t, k)) insert(this.set, this.path);
      }
      this.path.pop();
    }
  }
}

/** Every field a value sets (leaves, list items, undeclared map keys, empty and null values). */
export function toFieldSet(v: Json, t: SsaType, strict = false): FieldSet {
  const w = new FieldSetWalker(strict);
  w.walk(v, t);
  return w.set;
}

// ---- compare ------------------------------------------------------------------------------------------------

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

export function jsonEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as JsonObject;
  const bo = b as JsonObject;
  let n = 0;
  for (const k in ao) {
    if (ao[k] === undefined) continue;
    n++;
    if (!Object.hasOwn(bo, k) || !jsonEqual(ao[k], bo[k])) return false;
  }
  for (const k in bo) if (bo[k] !== undefined) n--;
  return n === 0;
}

function isEmptyContainer(v: Json): boolean {
  return v === undefined || v === null || (Array.isArray(v) ? v.length === 0 : isObject(v) && isEmptyObject(v));
}

class CompareWalker {
  readonly result: Comparison = { added: emptySet(), modified: emptySet(), removed: emptySet() };
  private readonly path: string[] = [];

  private leaf(l: Json, r: Json): void {
    if (l === undefined) insert(this.result.added, this.path);
    else if (r === undefined) insert(this.result.removed, this.path);
    else if (!jsonEqual(l, r)) insert(this.result.modified, this.path);
  }

  /** At least one of l and r is defined. */
  compare(l: Json, r: Json, t: SsaType): void {
    const ls = l === undefined ? undefined : shapeOf(l, t);
    const rs = r === undefined ? undefined : shapeOf(r, t);
    // Null stands for an empty value of the other side's shape.
    const shape =
      rs === undefined || rs === 'null'
        ? ls === 'null' || ls === undefined
          ? (rs ?? 'null')
          : ls
        : ls === undefined || ls === 'null' || ls === rs
          ? rs
          : 'mismatch';
    if (shape === 'mismatch' && ls !== 'mismatch' && rs !== 'mismatch') {
      // A value that changed shape (possible only where the type allows several): the old value's items go, the
      // new one's arrive, and the value itself is modified.
      this.children(l, undefined, t, ls!);
      this.children(undefined, r, t, rs!);
      insert(this.result.modified, this.path);
      return;
    }
    if (shape === 'list' && !t.list!.atomic && !(isEmptyContainer(l) && isEmptyContainer(r))) {
      this.children(l, r, t, 'list');
    } else if (shape === 'map' && !t.map!.atomic && !(isEmptyContainer(l) && isEmptyContainer(r))) {
      this.children(l, r, t, 'map');
    } else {
      this.leaf(l, r);
      return;
    }
    if (l === undefined) insert(this.result.added, this.path);
    else if (r === undefined) insert(this.result.removed, this.path);
  }

  private children(l: Json, r: Json, t: SsaType, shape: Shape): void {
    if (shape === 'map') {
      const lo = isObject(l) ? l : undefined;
      const ro = isObject(r) ? r : undefined;
      if (lo) {
        for (const k in lo) {
          if (lo[k] === undefined) continue;
          this.child(
            fieldElement(k),
            lo[k],
            ro && Object.hasOwn(ro, k) ? ro[k] : undefined,
            fieldTypeOf(t, k) ?? DEDUCED,
          );
        }
      }
      if (ro) {
        for (const k in ro) {
          if (ro[k] === undefined || (lo && Object.hasOwn(lo, k) && lo[k] !== undefined)) continue;
          this.child(fieldElement(k), undefined, ro[k], fieldTypeOf(t, k) ?? DEDUCED);
        }
      }
      return;
    }
    if (shape === 'list') this.listItems(Array.isArray(l) ? l : [], Array.isArray(r) ? r : [], t.list!);
  }

  private child(pe: string, l: Json, r: Json, t: SsaType): void {
    this.path.push(pe);
    this.compare(l, r, t);
    this.path.pop();
  }

  private index(items: Json[], list: ListShape, order: string[], seen: Map<string, Json[]>): void {
    for (const item of items) {
      const pe = itemElement(list, item);
      if (typeof pe !== 'string') continue;
      const found = seen.get(pe);
      if (found) found.push(item);
      else {
        seen.set(pe, [item]);
        order.push(pe);
      }
    }
  }

  private listItems(l: Json[], r: Json[], list: ListShape): void {
    const order: string[] = [];
    const lv = new Map<string, Json[]>();
    const rv = new Map<string, Json[]>();
    this.index(l, list, order, lv);
    const rOrder: string[] = [];
    this.index(r, list, rOrder, rv);
    for (const pe of rOrder) if (!lv.has(pe)) order.push(pe);
    for (const pe of order) {
      const ll = lv.get(pe) ?? [];
      const rl = rv.get(pe) ?? [];
      if (ll.length <= 1 && rl.length <= 1) {
        this.child(pe, ll[0], rl[0], list.element);
      } else if (ll.length >= 2 && rl.length >= 2) {
        if (ll.length !== rl.length || ll.some((x, i) => !jsonEqual(x, rl[i]))) {
          this.path.push(pe);
          insert(this.result.modified, this.path);
          this.path.pop();
        }
      } else if (ll.length >= 2) {
        if (rl.length !== 0) this.child(pe, undefined, rl[0], list.element);
        this.path.push(pe);
        insert(this.result.removed, this.path);
        this.path.pop();
      } else {
        if (ll.length !== 0) this.child(pe, ll[0], undefined, list.element);
        this.path.push(pe);
        insert(this.result.added, this.path);
        this.path.pop();
      }
    }
  }
}

/** The fields r adds to, changes in, and removes from l (no field is in two of the sets). */
export function compare(l: Json, r: Json, t: SsaType): Comparison {
  const w = new CompareWalker();
  w.compare(l, r, t);
  return w.result;
}

export function isSame(c: Comparison): boolean {
  return isEmptySet(c.added) && isEmptySet(c.modified) && isEmptySet(c.removed);
}

// ---- merge --------------------------------------------------------------------------------------------------

function clone(v: Json): Json {
  return v === null || typeof v !== 'object' ? v : structuredClone(v);
}

/**
 * The applied configuration `r` merged into `l`: leaves, atomic values and empty containers from r where r has them;
 * maps key by key; keyed lists and sets item by item, in r's order where r reorders shared items (upstream's rules).
 * The result shares nothing with its inputs.
 */
export function merge(l: Json, r: Json, t: SsaType): Json {
  if (r === undefined) return clone(l);
  if (l === undefined) return mergeShaped(undefined, r, t);
  return mergeShaped(l, r, t);
}

function mergeShaped(l: Json, r: Json, t: SsaType): Json {
  const ls = l === undefined ? undefined : shapeOf(l, t);
  const rs = shapeOf(r, t);
  const shape =
    rs === 'null'
      ? ls === undefined || ls === 'null'
        ? 'null'
        : ls
      : ls === undefined || ls === 'null' || ls === rs
        ? rs
        : 'mismatch';
  if (shape === 'list' && !t.list!.atomic && !(isEmptyContainer(l) && isEmptyContainer(r))) {
    return mergeLists(Array.isArray(l) ? l : [], Array.isArray(r) ? r : [], t.list!);
  }
  if (shape === 'map' && !t.map!.atomic && !(isEmptyContainer(l) && isEmptyContainer(r))) {
    const lo = isObject(l) ? l : {};
    const ro = isObject(r) ? r : {};
    const out: JsonObject = {};
    for (const k in lo) {
      if (lo[k] === undefined) continue;
      const rv = Object.hasOwn(ro, k) ? ro[k] : undefined;
      out[k] = merge(lo[k], rv, fieldTypeOf(t, k) ?? DEDUCED);
    }
    for (const k in ro) {
      if (ro[k] === undefined || Object.hasOwn(out, k)) continue;
      out[k] = merge(undefined, ro[k], fieldTypeOf(t, k) ?? DEDUCED);
    }
    return out;
  }
  return clone(r);
}

/** Items of both lists: l's order, except that items r also has come in r's order (upstream's visitListItems). */
function mergeLists(l: Json[], r: Json[], list: ListShape): Json[] {
  const lpe = l.map((x) => itemElement(list, x));
  const rpe = r.map((x) => itemElement(list, x));
  const lBy = new Map<string, Json>();
  const lDup = new Set<string>();
  for (let i = 0; i < l.length; i++) {
    const pe = lpe[i];
    if (typeof pe !== 'string') continue;
    if (lBy.has(pe)) lDup.add(pe);
    else lBy.set(pe, l[i]);
  }
  const rBy = new Map<string, Json>();
  for (let i = 0; i < r.length; i++) {
    const pe = rpe[i];
    if (typeof pe === 'string' && !rBy.has(pe)) rBy.set(pe, r[i]);
  }
  const lItem = (pe: string): Json => (lDup.has(pe) ? undefined : lBy.get(pe));
  const shared: string[] = [];
  for (const pe of rpe) if (typeof pe === 'string' && lBy.has(pe)) shared.push(pe);
  let sharedAt = 0;
  let nextShared: string | undefined = shared[sharedAt++];
  const merged = new Set<string>();
  const out: Json[] = [];
  let li = 0;
  let ri = 0;
  while (li < l.length || ri < r.length) {
    if (li < l.length && ri < r.length) {
      const pe = lpe[li];
      if (typeof pe === 'string' && pe === rpe[ri]) {
        merged.add(pe);
        out.push(merge(lItem(pe), rBy.get(pe), list.element));
        li++;
        ri++;
        nextShared = shared[sharedAt++];
        continue;
      }
      if (typeof pe === 'string' && rBy.has(pe) && nextShared !== undefined && nextShared !== pe) {
        li++;
        continue;
      }
    }
    if (li < l.length) {
      const pe = lpe[li];
      if (typeof pe !== 'string') {
        out.push(clone(l[li]));
        li++;
        continue;
      }
      if (!rBy.has(pe)) {
        out.push(clone(l[li]));
        li++;
        continue;
      } else if (merged.has(pe)) {
        li++;
      }
    }
    if (ri < r.length) {
      const pe = rpe[ri];
      if (typeof pe === 'string') {
        merged.add(pe);
        out.push(merge(lItem(pe), rBy.get(pe), list.element));
        if (nextShared !== undefined && nextShared === pe) nextShared = shared[sharedAt++];
      }
      ri++;
    }
  }
  return out;
}

// ---- removeItems --------------------------------------------------------------------------------------------

/**
 * The value without the fields and items of `s` (a field named in s goes with everything below it). A container left
 * with nothing is dropped rather than kept as null.
 */
export function removeItems(v: Json, s: FieldSet, t: SsaType): Json {
  if (isEmptySet(s)) return v;
  const out = removeFrom(v, s, t);
  return out === undefined && isObject(v) ? {} : out;
}

function removeFrom(v: Json, s: FieldSet, t: SsaType): Json {
  if (Array.isArray(v) && t.list && !t.list.atomic) {
    const list = t.list;
    const items: Json[] = [];
    for (const item of v) {
      const pe = itemElement(list, item);
      if (typeof pe !== 'string') {
        items.push(item);
        continue;
      }
      if (hasElement(s, pe)) continue;
      const sub = below(s, pe);
      items.push(isEmptySet(sub) ? item : (removeFrom(item, sub, list.element) ?? {}));
    }
    return items.length > 0 ? items : undefined;
  }
  if (isObject(v) && t.map && !t.map.atomic) {
    const out: JsonObject = {};
    for (const k in v) {
      if (v[k] === undefined) continue;
      const pe = fieldElement(k);
      if (hasElement(s, pe)) continue;
      const sub = below(s, pe);
      if (isEmptySet(sub)) out[k] = v[k];
      else {
        const rest = removeFrom(v[k], sub, fieldTypeOf(t, k) ?? DEDUCED);
        if (rest !== undefined) out[k] = rest;
      }
    }
    return isEmptyObject(out) ? undefined : out;
  }
  return v;
}

// ---- ensureNamedFieldsAreMembers ----------------------------------------------------------------------------

/** The set with every declared struct field that has members below it made a member too (upstream's prune helper). */
export function ensureNamedFieldsAreMembers(s: FieldSet, t: SsaType): FieldSet {
  const out: FieldSet = {};
  for (const k in s) {
    if (k === SELF) continue;
    const node = s[k]!;
    let childType: SsaType = DEDUCED;
    let declared = false;
    if (k.startsWith('f:') && t.map) {
      const name = k.slice(2);
      declared = isDeclared(t, name);
      childType = fieldTypeOf(t, name) ?? DEDUCED;
    } else if (t.list) childType = t.list.element;
    let hasKids = false;
    for (const c in node) if (c !== SELF) hasKids = true;
    const member = isMember(node) || (declared && hasKids);
    if (!hasKids) {
      out[k] = {};
      continue;
    }
    const kids = ensureNamedFieldsAreMembers(node, childType);
    out[k] = member ? { [SELF]: {}, ...kids } : kids;
  }
  return out;
}
