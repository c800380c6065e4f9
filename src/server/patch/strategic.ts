// Kubernetes strategic merge patch, served for application/strategic-merge-patch+json and sent by
// `kubectl patch` (default) and `kubectl edit`. It follows k8s.io/apimachinery/pkg/util/strategicpatch
// as kube-apiserver runs it (parallel deletion lists merged, unmatched nulls ignored): maps merge
// recursively, null deletes, lists merge element-wise only where the schema says so, and the
// directives ($patch, $retainKeys, $setElementOrder/…, $deleteFromPrimitiveList/…) are honoured and
// never survive into the result. Where upstream would leak a directive or crash, we do the evident
// thing instead (see the notes on mergeMap and freshValue).

import { PatchError, toPatchError } from './errors.js';
import {
  clip,
  deleteOwn,
  describeJson,
  getOwn,
  hasOwn,
  importJson,
  importObject,
  isJsonObject,
  isJsonScalar,
  jsonKind,
  setOwn,
  type JsonObject,
  type JsonPrimitive,
  type JsonValue,
} from './json.js';
import { childMeta, patchMetaForKind, type PatchMeta } from './schema.js';

const PATCH = '$patch';
const RETAIN_KEYS = '$retainKeys';
const SET_ORDER = '$setElementOrder';
const DELETE_PRIMITIVES = '$deleteFromPrimitiveList';

/** Applies a strategic merge patch to an object of the given kind (unknown kinds: map merge, list replace). */
export function applyStrategicMergePatch(original: JsonObject, patch: unknown, kind: string): JsonObject {
  return applyStrategicMergePatchWithMeta(original, patch, patchMetaForKind(kind));
}

/** Same, with explicit schema metadata for the object's root. Returns a new object; inputs are untouched. */
export function applyStrategicMergePatchWithMeta(
  original: JsonObject,
  patch: unknown,
  meta: PatchMeta | undefined,
): JsonObject {
  try {
    const doc = importObject(original);
    const p = importJson(patch, 'the strategic merge patch');
    if (!isJsonObject(p)) {
      throw invalid(`a strategic merge patch must be a JSON object, got ${jsonKind(p)}`);
    }
    // "$patch: delete" at the root cannot remove the object itself; like upstream it empties it.
    return mergeMap(doc, p, meta) ?? {};
  } catch (err) {
    throw toPatchError(err);
  }
}

function invalid(message: string): PatchError {
  return new PatchError('DKC_PATCH_INVALID', message);
}

function conflict(message: string): PatchError {
  return new PatchError('DKC_PATCH_CONFLICT', message);
}

function badPatchType(directive: JsonValue, where: JsonObject): PatchError {
  return invalid(`unknown patch type: ${describeJson(directive)} in map: ${describeJson(where)}`);
}

function noMergeKey(element: JsonValue, mergeKey: string): PatchError {
  return invalid(`map: ${describeJson(element)} does not contain declared merge key: ${mergeKey}`);
}

function without(obj: JsonObject, key: string): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(obj)) if (k !== key) setOwn(out, k, obj[k] as JsonValue);
  return out;
}

/** The list field a "$prefix/field" directive key names; malformed keys are rejected like upstream. */
function directiveField(key: string, prefix: string, format: string): string {
  if (key.length <= prefix.length + 1 || key[prefix.length] !== '/') {
    throw invalid(`invalid patch format of ${format}: malformed directive key ${JSON.stringify(clip(key))}`);
  }
  return key.slice(prefix.length + 1);
}

/**
 * Merges patch into orig (a private copy, mutated and returned). Returns null when the patch says
 * "$patch: delete": the caller then drops the field, where upstream would leave an empty map (the
 * same thing once decoded into an optional field, and plainly what the directive asks for).
 */
function mergeMap(orig: JsonObject, patch: JsonObject, meta: PatchMeta | undefined): JsonObject | null {
  let p = patch;
  if (hasOwn(p, PATCH)) {
    const directive = p[PATCH] as JsonValue;
    if (directive === 'delete') return null;
    // The patch, stripped of its own directives, becomes the whole map.
    if (directive === 'replace') return mergeMap({}, without(p, PATCH), meta);
    // Explicitly asking for the default is accepted (upstream rejects it).
    if (directive !== 'merge') throw badPatchType(directive, p);
    p = without(p, PATCH);
  }

  applyRetainKeys(orig, p);

  // Deletion lists run before merging, so the order they appear in the patch does not matter.
  for (const key of Object.keys(p)) {
    if (!key.startsWith(DELETE_PRIMITIVES)) continue;
    const field = directiveField(key, DELETE_PRIMITIVES, 'primitive list');
    const values = p[key] as JsonValue;
    if (!Array.isArray(values) || !values.every(isJsonScalar)) {
      throw invalid(`invalid patch format of primitive list: ${clip(key)} must be a list of primitive values`);
    }
    const current = getOwn(orig, field);
    if (Array.isArray(current)) {
      const doomed = new KeyedPositions(undefined, values);
      setOwn(
        orig,
        field,
        current.filter((v) => !isJsonScalar(v) || doomed.indexOf(v) < 0),
      );
    }
  }

  const ordered = applySetElementOrder(orig, p, meta);

  for (const key of Object.keys(p)) {
    if (key === RETAIN_KEYS || key.startsWith(SET_ORDER) || key.startsWith(DELETE_PRIMITIVES) || ordered.has(key))
      continue;
    const pv = p[key] as JsonValue;
    if (pv === null) {
      deleteOwn(orig, key);
      continue;
    }
    const ov = getOwn(orig, key);
    const fieldMeta = childMeta(meta, key);
    if (isJsonObject(ov) && isJsonObject(pv)) {
      const merged = mergeMap(ov, pv, fieldMeta);
      if (merged === null) deleteOwn(orig, key);
      else setOwn(orig, key, merged);
    } else if (Array.isArray(ov) && Array.isArray(pv)) {
      setOwn(
        orig,
        key,
        fieldMeta?.listStrategy === 'merge' ? mergeList(ov, pv, fieldMeta, key) : freshList(pv, fieldMeta),
      );
    } else {
      // Absent, or of another JSON type: nothing to merge with, the patch value is taken.
      const fresh = freshValue(pv, fieldMeta, key);
      if (fresh === undefined) deleteOwn(orig, key);
      else setOwn(orig, key, fresh);
    }
  }
  return orig;
}

/**
 * "$retainKeys": every non-null field the patch sets must be listed, and fields of the original
 * that are not listed are cleared before merging, so the result holds only listed keys.
 */
function applyRetainKeys(orig: JsonObject, p: JsonObject): void {
  if (!hasOwn(p, RETAIN_KEYS)) return;
  const list = p[RETAIN_KEYS] as JsonValue;
  if (!Array.isArray(list) || !list.every((k) => typeof k === 'string')) {
    throw invalid('invalid patch format of retainKeys: $retainKeys must be a list of field names');
  }
  const keep = new Set(list);
  for (const key of Object.keys(p)) {
    if (key === RETAIN_KEYS || p[key] === null || key.startsWith(SET_ORDER) || key.startsWith(DELETE_PRIMITIVES))
      continue;
    if (!keep.has(key)) {
      throw invalid(
        `invalid patch format of retainKeys: field ${JSON.stringify(clip(key))} is patched but not listed in $retainKeys`,
      );
    }
  }
  for (const key of Object.keys(orig)) if (!keep.has(key)) delete orig[key];
}

/**
 * "$setElementOrder/<list>": merges the list it names (if the patch carries it) and then orders the
 * result: listed elements in the directive's order, elements only the server knows interleaved by
 * their original positions. Returns the list fields it has fully handled.
 */
function applySetElementOrder(orig: JsonObject, p: JsonObject, meta: PatchMeta | undefined): Set<string> {
  const handled = new Set<string>();
  for (const key of Object.keys(p)) {
    if (!key.startsWith(SET_ORDER)) continue;
    const field = directiveField(key, SET_ORDER, 'setElementOrder list');
    const order = p[key] as JsonValue;
    if (!Array.isArray(order))
      throw invalid(`invalid patch format of setElementOrder list: ${clip(key)} must be a list`);
    const fieldMeta = childMeta(meta, field);
    // Only merge lists have an order worth keeping; any other list is replaced by the patch anyway.
    if (fieldMeta?.listStrategy !== 'merge') continue;
    const mergeKey = fieldMeta.mergeKey;
    for (const item of order) {
      if (mergeKey === undefined) {
        if (!isJsonScalar(item))
          throw invalid(`invalid patch format of setElementOrder list: ${clip(key)} must list primitive values`);
      } else if (!isJsonObject(item) || !hasOwn(item, mergeKey)) {
        throw noMergeKey(item, mergeKey);
      }
    }
    const pv = getOwn(p, field);
    if (pv === null) continue; // the list is being deleted; there is nothing to order
    if (pv !== undefined && !Array.isArray(pv)) {
      throw invalid(`${clip(field)} must be a list when ${clip(key)} is given, got ${jsonKind(pv)}`);
    }
    const ov = getOwn(orig, field);
    if (ov !== undefined && !Array.isArray(ov)) continue; // the patch value simply replaces a non-list
    if (ov === undefined && pv === undefined) continue;
    if (pv !== undefined) validateAgainstOrder(pv, order, mergeKey, key);
    const base = ov ?? [];
    const merged = pv === undefined ? base.slice() : mergeList(base, pv, fieldMeta, field);
    setOwn(orig, field, orderElements(merged, order, base, mergeKey));
    handled.add(field);
  }
  return handled;
}

/** The patch list's ordinary elements must appear in the $setElementOrder list, in the same relative order. */
function validateAgainstOrder(
  patchList: JsonValue[],
  order: JsonValue[],
  mergeKey: string | undefined,
  key: string,
): void {
  const regular = patchList.filter((e) => !isDirectiveElement(e));
  let pi = 0;
  for (let oi = 0; pi < regular.length && oi < order.length; oi++) {
    const item = regular[pi] as JsonValue;
    if (mergeKey !== undefined && (!isJsonObject(item) || !hasOwn(item, mergeKey))) throw noMergeKey(item, mergeKey);
    if (sameIdentity(item, order[oi] as JsonValue, mergeKey)) pi++;
  }
  if (pi < regular.length) {
    throw invalid(
      `The order in patch list: ${describeJson(patchList)} doesn't match ${clip(key)} list: ${describeJson(order)}`,
    );
  }
}

/** An element carrying "$patch: delete|replace" (a "merge" element is an ordinary one). */
function isDirectiveElement(e: JsonValue): boolean {
  return isJsonObject(e) && hasOwn(e, PATCH) && e[PATCH] !== 'merge';
}

function sameIdentity(a: JsonValue, b: JsonValue, mergeKey: string | undefined): boolean {
  if (mergeKey === undefined) return isJsonScalar(a) && a === b;
  if (!isJsonObject(a) || !isJsonObject(b)) return false;
  const ka = getOwn(a, mergeKey);
  const kb = getOwn(b, mergeKey);
  return ka !== undefined && kb !== undefined && identityEqual(ka, kb);
}

function identityEqual(a: JsonValue, b: JsonValue): boolean {
  if (isJsonScalar(a) || isJsonScalar(b)) return a === b;
  return canonical(a) === canonical(b);
}

/**
 * Merges a patch list into a merge list (patchStrategy "merge"). Sets of primitives are unioned
 * without duplicates; lists of objects are matched by merge key, honouring "$patch: delete"
 * (drop matching elements) and "$patch: replace" (the patch's elements become the list).
 */
function mergeList(orig: JsonValue[], patch: JsonValue[], meta: PatchMeta, field: string): JsonValue[] {
  if (orig.length === 0 && patch.length === 0) return [];
  return meta.mergeKey === undefined
    ? mergePrimitiveList(orig, patch, field)
    : mergeKeyedList(orig, patch, meta, meta.mergeKey, field);
}

function mergePrimitiveList(orig: JsonValue[], patch: JsonValue[], field: string): JsonValue[] {
  const items: JsonPrimitive[] = [];
  let replace = false;
  for (const e of patch) {
    if (isJsonScalar(e)) {
      items.push(e);
    } else if (Array.isArray(e)) {
      throw conflict(`${clip(field)}: lists of lists are not supported`);
    } else if (hasOwn(e, PATCH)) {
      const directive = e[PATCH] as JsonValue;
      if (directive === 'replace') replace = true;
      else if (directive === 'delete' || directive === 'merge') {
        throw invalid(
          `${clip(field)} is a list of primitives: "$patch: ${directive}" elements are not supported there (use ${DELETE_PRIMITIVES}/${clip(field)} to remove values)`,
        );
      } else throw badPatchType(directive, e);
    } else {
      throw invalid(`${clip(field)} is a list of primitives, got element ${describeJson(e)}`);
    }
  }
  if (replace) return dedupe(items);
  if (!orig.every(isJsonScalar)) {
    throw conflict(
      `list element types are not identical: ${clip(field)} holds non-primitive values and cannot be merged as a set`,
    );
  }
  const merged = dedupe([...orig, ...items]);
  return orderElements(merged, items, orig, undefined);
}

function dedupe(values: JsonPrimitive[]): JsonPrimitive[] {
  const seen = new KeyedPositions(undefined, []);
  const out: JsonPrimitive[] = [];
  for (const v of values) {
    if (seen.indexOf(v) >= 0) continue;
    seen.add(v, out.length);
    out.push(v);
  }
  return out;
}

function mergeKeyedList(
  orig: JsonValue[],
  patch: JsonValue[],
  meta: PatchMeta,
  mergeKey: string,
  field: string,
): JsonValue[] {
  const deletions: JsonValue[] = [];
  const regular: JsonObject[] = [];
  let replace = false;
  for (const e of patch) {
    if (Array.isArray(e)) throw conflict(`${clip(field)}: lists of lists are not supported`);
    if (!isJsonObject(e))
      throw invalid(`${clip(field)} is a list of objects merged by "${mergeKey}", got element ${describeJson(e)}`);
    if (!hasOwn(e, PATCH)) {
      if (!hasOwn(e, mergeKey)) throw noMergeKey(e, mergeKey);
      regular.push(e);
      continue;
    }
    const directive = e[PATCH] as JsonValue;
    if (directive === 'delete') {
      if (!hasOwn(e, mergeKey)) throw noMergeKey(e, mergeKey);
      deletions.push(e[mergeKey] as JsonValue);
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      if (!hasOwn(e, mergeKey)) throw noMergeKey(e, mergeKey);
      regular.push(without(e, PATCH));
    } else {
      throw badPatchType(directive, e);
    }
  }
  if (replace) {
    const out: JsonValue[] = [];
    for (const e of regular) out.push(mergeMap({}, e, meta) ?? {});
    return out;
  }
  if (!orig.every(isJsonObject)) {
    throw conflict(
      `list element types are not identical: ${clip(field)} holds non-object values and cannot be merged by "${mergeKey}"`,
    );
  }

  const doomed = new KeyedPositions(undefined, deletions);
  const work: JsonValue[] = orig.filter((e) => {
    const k = getOwn(e, mergeKey);
    return k === undefined || doomed.indexOf(k) < 0;
  });
  const serverOrder = work.slice();
  const positions = new KeyedPositions(mergeKey, work);
  for (const e of regular) {
    const i = positions.indexOf(e);
    if (i >= 0) {
      work[i] = mergeMap(work[i] as JsonObject, e, meta) ?? {};
    } else {
      positions.add(e, work.length);
      work.push(mergeMap({}, e, meta) ?? {});
    }
  }
  return orderElements(work, regular, serverOrder, mergeKey);
}

/**
 * Upstream's ordering rule for a merged list: elements named by `order` take that order, the
 * server-only ones keep theirs, and the two runs are interleaved using the original positions (so
 * an element new to the list lands ahead of the server-only ones it cannot be compared with).
 */
function orderElements(
  merged: JsonValue[],
  order: JsonValue[],
  serverOrder: JsonValue[],
  mergeKey: string | undefined,
): JsonValue[] {
  const orderPos = new KeyedPositions(mergeKey, order);
  const named: Array<{ e: JsonValue; at: number; seq: number }> = [];
  const serverOnly: JsonValue[] = [];
  merged.forEach((e, seq) => {
    const at = orderPos.indexOf(e);
    if (at >= 0) named.push({ e, at, seq });
    else serverOnly.push(e);
  });
  named.sort((a, b) => a.at - b.at || a.seq - b.seq);
  // Server-only elements are already in their original relative order: every merge step keeps it.
  return interleave(
    serverOnly,
    named.map((n) => n.e),
    serverOrder,
    mergeKey,
  );
}

function interleave(
  left: JsonValue[],
  right: JsonValue[],
  serverOrder: JsonValue[],
  mergeKey: string | undefined,
): JsonValue[] {
  const pos = new KeyedPositions(mergeKey, serverOrder);
  const out: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++] as JsonValue);
    else if (j >= right.length) out.push(left[i++] as JsonValue);
    else {
      const li = pos.indexOf(left[i] as JsonValue);
      const ri = pos.indexOf(right[j] as JsonValue);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++] as JsonValue);
      else out.push(right[j++] as JsonValue);
    }
  }
  return out;
}

/**
 * A value with nothing to merge with (new field, or a different JSON type) is the patch value
 * applied to an empty one: directives inside it are interpreted and removed, null members vanish,
 * and "$patch: delete" yields undefined (the field is not created).
 */
function freshValue(v: JsonValue, meta: PatchMeta | undefined, field: string): JsonValue | undefined {
  if (isJsonObject(v)) return mergeMap({}, v, meta) ?? undefined;
  if (Array.isArray(v)) return meta?.listStrategy === 'merge' ? mergeList([], v, meta, field) : freshList(v, meta);
  return v;
}

/** An atomic list is taken from the patch as is, except that its elements are cleaned like fresh values. */
function freshList(list: JsonValue[], meta: PatchMeta | undefined): JsonValue[] {
  const out: JsonValue[] = [];
  for (const e of list) {
    if (isJsonObject(e)) {
      const m = mergeMap({}, e, meta);
      if (m !== null) out.push(m);
    } else if (Array.isArray(e)) {
      out.push(freshList(e, undefined));
    } else {
      out.push(e);
    }
  }
  return out;
}

/**
 * First position of each identity in a list: the merge-key value for lists of objects, the value
 * itself for primitives. Scalars hash directly; other key values by a canonical rendering.
 */
class KeyedPositions {
  private readonly scalars = new Map<JsonPrimitive, number>();
  private readonly composites = new Map<string, number>();

  constructor(
    private readonly mergeKey: string | undefined,
    list: readonly JsonValue[],
  ) {
    list.forEach((e, i) => this.add(e, i));
  }

  private identity(e: JsonValue): JsonValue | undefined {
    if (this.mergeKey === undefined) return e;
    return isJsonObject(e) ? getOwn(e, this.mergeKey) : undefined;
  }

  add(e: JsonValue, at: number): void {
    const id = this.identity(e);
    if (id === undefined) return;
    if (isJsonScalar(id)) {
      if (!this.scalars.has(id)) this.scalars.set(id, at);
    } else {
      const c = canonical(id);
      if (!this.composites.has(c)) this.composites.set(c, at);
    }
  }

  indexOf(e: JsonValue): number {
    const id = this.identity(e);
    if (id === undefined) return -1;
    const at = isJsonScalar(id) ? this.scalars.get(id) : this.composites.get(canonical(id));
    return at ?? -1;
  }
}

/** JSON text with object keys sorted, so equal values render identically. */
function canonical(v: JsonValue): string {
  if (!isJsonObject(v)) {
    return Array.isArray(v) ? `[${v.map(canonical).join(',')}]` : JSON.stringify(v);
  }
  return `{${Object.keys(v)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(v[k] as JsonValue)}`)
    .join(',')}}`;
}
