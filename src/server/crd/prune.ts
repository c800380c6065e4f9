// Pruning and defaulting of custom resources, as apiextensions-apiserver's structural pruning and defaulting
// algorithms do them (pkg/apiserver/schema/{pruning,defaulting}): both run when a request body is decoded and
// again when an object is read from storage, so a schema change applies to stored objects as they are read.

import {
  additionalOf,
  ANY_VALUE,
  fieldNode,
  fieldSchema,
  isEmbedded,
  isNullable,
  isPlainObject,
  itemsOf,
  preservesUnknown,
  propertiesOf,
  type SchemaNode,
} from './nodes.js';

/** TypeMeta and ObjectMeta: never pruned at the root or in an embedded resource (ObjectMeta is coerced elsewhere). */
const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

const child = (path: string, key: string): string => (path ? `${path}.${key}` : key);

/** ObjectMeta's fields (v1.22): what an embedded resource's metadata keeps when it is decoded as ObjectMeta. */
const OBJECT_META_FIELDS = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'clusterName',
  'managedFields',
]);

/** An embedded resource's metadata read as ObjectMeta: unknown fields go (and are reported), a null creationTimestamp too. */
function coerceEmbeddedMeta(x: Record<string, unknown>, path: string, out: string[]): void {
  const meta = x['metadata'];
  if (path === '' || !isPlainObject(meta)) return;
  for (const k of Object.keys(meta)) {
    if (OBJECT_META_FIELDS.has(k)) continue;
    out.push(`${child(path, 'metadata')}.${k}`);
    delete meta[k];
  }
  if (meta['creationTimestamp'] === null || meta['creationTimestamp'] === '') delete meta['creationTimestamp'];
}

/** Removes the fields `s` does not declare from `x`, recording their paths (`spec.foo`, `spec.items[0].bar`). */
function prune(x: unknown, s: SchemaNode | undefined, path: string, out: string[], keepMeta: boolean): void {
  if (s && preservesUnknown(s)) return skipPrune(x, s, path, out);
  if (Array.isArray(x)) {
    const items = s ? itemsOf(s) : undefined;
    x.forEach((v, i) => prune(v, items, `${path}[${i}]`, out, false));
    return;
  }
  if (!isPlainObject(x)) return;
  const meta = keepMeta || (s !== undefined && isEmbedded(s));
  if (s && isEmbedded(s)) coerceEmbeddedMeta(x, path, out);
  for (const k of Object.keys(x)) {
    if (s && meta && META_FIELDS.has(k)) continue;
    const sub = fieldSchema(s, k);
    if (sub) {
      prune(x[k], sub === ANY_VALUE ? undefined : sub, child(path, k), out, false);
      continue;
    }
    if (!META_FIELDS.has(k) || path !== '') out.push(child(path, k));
    delete x[k];
  }
}

/** Under x-kubernetes-preserve-unknown-fields: unknown keys stay, declared ones are still pruned inside. */
function skipPrune(x: unknown, s: SchemaNode, path: string, out: string[]): void {
  if (Array.isArray(x)) {
    const items = itemsOf(s);
    if (items) x.forEach((v, i) => prune(v, items, `${path}[${i}]`, out, false));
    return;
  }
  if (!isPlainObject(x)) return;
  const embedded = isEmbedded(s);
  if (embedded) coerceEmbeddedMeta(x, path, out);
  for (const k of Object.keys(x)) {
    if (embedded && META_FIELDS.has(k)) continue;
    const sub = fieldSchema(s, k);
    if (sub) prune(x[k], sub === ANY_VALUE ? undefined : sub, child(path, k), out, false);
  }
}

/** Prunes a whole custom resource; the paths come back sorted, as kube-apiserver reports them. */
export function pruneObject(obj: Record<string, unknown>, root: SchemaNode): string[] {
  return pruneValue(obj, root, true);
}

/** Prunes any value against its schema node; a resource root keeps apiVersion, kind and metadata. */
export function pruneValue(x: unknown, s: SchemaNode, isResourceRoot: boolean): string[] {
  const out: string[] = [];
  prune(x, s, '', out, isResourceRoot);
  return out.sort();
}

const hasDefault = (s: SchemaNode): boolean => s['default'] !== undefined && s['default'] !== null;
const isNonNullableNull = (v: unknown, s: SchemaNode | undefined): s is SchemaNode =>
  v === null && s !== undefined && !isNullable(s);

/** A null where the schema does not allow one and has no default is dropped rather than refused. */
function pruneNonNullableNullsWithoutDefaults(x: unknown, node: SchemaNode | undefined): void {
  // Below a value the schema says nothing of (metadata's managedFields, a preserved unknown field) nothing is dropped.
  if (node === undefined) return;
  if (Array.isArray(x)) {
    const items = node ? itemsOf(node) : undefined;
    for (const v of x) pruneNonNullableNullsWithoutDefaults(v, items);
    return;
  }
  if (!isPlainObject(x)) return;
  for (const k of Object.keys(x)) {
    const sub = fieldNode(node, k);
    if (isNonNullableNull(x[k], sub) && !hasDefault(sub)) delete x[k];
    else pruneNonNullableNullsWithoutDefaults(x[k], sub);
  }
}

/** Whether a schema node declares a default anywhere below it (properties, items, additionalProperties). */
const defaultsBelowCache = new WeakMap<SchemaNode, boolean>();
function hasDefaultsBelow(s: SchemaNode): boolean {
  const cached = defaultsBelowCache.get(s);
  if (cached !== undefined) return cached;
  const additional = additionalOf(s);
  const children = [
    ...Object.values(propertiesOf(s) ?? {}),
    ...[itemsOf(s), additional === ANY_VALUE ? undefined : additional].filter((n) => n !== undefined),
  ];
  const found = children.some((c) => hasDefault(c) || hasDefaultsBelow(c));
  defaultsBelowCache.set(s, found);
  return found;
}

/**
 * Fills defaults where a field is absent (or null and not nullable), then descends, defaults included; a value whose
 * schema declares no default below it is left without a walk (a status map of thousands of entries, every write).
 */
function applyDefaults(x: unknown, s: SchemaNode | undefined): void {
  if (!s || !hasDefaultsBelow(s)) return;
  if (Array.isArray(x)) {
    const items = itemsOf(s);
    x.forEach((v, i) => {
      if (isNonNullableNull(v, items) && hasDefault(items)) x[i] = structuredClone(items['default']);
      applyDefaults(x[i], items);
    });
    return;
  }
  if (!isPlainObject(x)) return;
  const props = propertiesOf(s) ?? {};
  for (const [k, prop] of Object.entries(props)) {
    if (!hasDefault(prop)) continue;
    if (!(k in x) || isNonNullableNull(x[k], prop)) x[k] = structuredClone(prop['default']);
  }
  const additional = additionalOf(s);
  for (const k of Object.keys(x)) {
    const prop = props[k];
    if (prop) {
      applyDefaults(x[k], prop);
    } else if (additional !== undefined && additional !== ANY_VALUE) {
      if (isNonNullableNull(x[k], additional) && hasDefault(additional)) x[k] = structuredClone(additional['default']);
      applyDefaults(x[k], additional);
    }
  }
}

export function defaultObject(obj: Record<string, unknown>, root: SchemaNode): void {
  pruneNonNullableNullsWithoutDefaults(obj, root);
  applyDefaults(obj, root);
}
