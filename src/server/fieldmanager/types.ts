// The shape server-side apply merges by (structured-merge-diff's schema): for each value, whether it is a scalar, a
// list — atomic, a set, or a map keyed by some of its items' fields — or a map — a struct of declared fields, or a
// map of arbitrary keys, granular or atomic. Built-in kinds take it from the one schema source (list types, map keys,
// patch strategies, map and struct types, as kube-openapi's schemaconv reads them); custom kinds from their CRD's
// x-kubernetes-list-type, x-kubernetes-list-map-keys and x-kubernetes-map-type. A value of no known shape is
// "deduced": maps merge key by key, lists are atomic.

import { isScalarType, schemaFacts, typeFact, type FieldFact } from '../schema/facts.js';
import type { SchemaNode } from '../crd/nodes.js';

export interface ListShape {
  /** Atomic lists are replaced whole; the others merge item by item. */
  readonly atomic: boolean;
  /** Key fields of a keyed list; empty for a set of scalars (and for atomic lists). */
  readonly keys: readonly string[];
  /** Defaults of key fields an item may omit (custom kinds' schema defaults). */
  readonly keyDefaults?: Readonly<Record<string, unknown>>;
  element: SsaType;
}

export interface MapShape {
  readonly atomic: boolean;
  /** Declared fields (a struct); a declared field is not itself a member of a field set. */
  readonly fields?: ReadonlyMap<string, SsaType>;
  /** Type of undeclared keys; undefined when the schema declares none (a struct that takes no other fields). */
  element?: SsaType;
}

export interface SsaType {
  readonly scalar: boolean;
  readonly list?: ListShape;
  readonly map?: MapShape;
}

const SCALAR: SsaType = { scalar: true };

function untypedAtomic(): SsaType {
  const list: ListShape = { atomic: true, keys: [], element: SCALAR };
  const map: MapShape = { atomic: true };
  const t: SsaType = { scalar: true, list, map };
  list.element = t;
  map.element = t;
  return t;
}

/** Any value, replaced whole (kube's __untyped_atomic_). */
export const UNTYPED: SsaType = untypedAtomic();

function deduced(): SsaType {
  const map: MapShape = { atomic: false };
  const t: SsaType = { scalar: true, list: { atomic: true, keys: [], element: UNTYPED }, map };
  map.element = t;
  return t;
}

/** A value of no declared shape (kube's __untyped_deduced_): maps merge by key, lists are replaced whole. */
export const DEDUCED: SsaType = deduced();

// ---- built-in kinds, from the schema facts -------------------------------------------------------------------

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const SPECIAL_SCALARS = new Set([
  `${META}Time`,
  `${META}MicroTime`,
  'io.k8s.apimachinery.pkg.api.resource.Quantity',
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
]);
const builtinTypes = new Map<string, SsaType>();

function definitionType(definition: string): SsaType {
  const known = builtinTypes.get(definition);
  if (known) return known;
  if (SPECIAL_SCALARS.has(definition)) return SCALAR;
  const fact = typeFact(definition);
  if (fact.special || fact.opaque || fact.fields === undefined) {
    // ExtraValue is a []string; the others (FieldsV1, Patch, RawExtension, cut-short types) are free-form.
    const wireList = fact.wire?.length === 1 && fact.wire[0]!.list === true;
    return wireList ? { scalar: false, list: { atomic: true, keys: [], element: SCALAR } } : DEDUCED;
  }
  const fields = new Map<string, SsaType>();
  const map: MapShape = { atomic: fact.structType === 'atomic' || fact.mapType === 'atomic', fields };
  const t: SsaType = { scalar: false, map };
  builtinTypes.set(definition, t);
  for (const f of fact.fields) fields.set(f.name, fieldType(f));
  return t;
}

/** A list's relationship as schemaconv reads it: x-kubernetes-list-type, else a merge patch strategy, else atomic. */
function listShape(f: FieldFact, element: SsaType): ListShape {
  if (f.listType === 'map') return { atomic: false, keys: f.listMapKeys ?? [], element };
  if (f.listType === 'set') return { atomic: false, keys: [], element };
  if (f.listType === 'atomic') return { atomic: true, keys: [], element };
  const strategy = (f.patchStrategy ?? '').split(',');
  if (strategy[0] === 'merge') return { atomic: false, keys: f.patchMergeKey ? [f.patchMergeKey] : [], element };
  return { atomic: true, keys: [], element };
}

function fieldType(f: FieldFact): SsaType {
  const base = isScalarType(f.type) ? SCALAR : definitionType(f.type);
  if (f.list) return { scalar: false, list: listShape(f, base) };
  if (f.map) return { scalar: false, map: { atomic: f.mapType === 'atomic', element: base } };
  return base;
}

const TYPE_META: readonly [string, SsaType][] = [
  ['apiVersion', SCALAR],
  ['kind', SCALAR],
];

function withTypeMeta(t: SsaType): SsaType {
  const map = t.map!;
  return {
    scalar: false,
    map: {
      atomic: false,
      fields: new Map([...TYPE_META, ...(map.fields ?? new Map())]),
      ...(map.element ? { element: map.element } : {}),
    },
  };
}

const kindTypes = new Map<string, SsaType>();

/** The type of a built-in kind by its kind name; DEDUCED for a kind the schema source does not describe. */
export function builtinKindType(kind: string): SsaType {
  const known = kindTypes.get(kind);
  if (known) return known;
  const fact = schemaFacts.kinds.find((k) => k.kind === kind);
  const t = fact ? withTypeMeta(definitionType(fact.type)) : DEDUCED;
  kindTypes.set(kind, t);
  return t;
}

// ---- custom kinds, from a CRD version's openAPIV3Schema ---------------------------------------------------------

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function crdList(s: SchemaNode, preserve: boolean, depth: number): ListShape {
  const items = isObject(s['items']) ? s['items'] : undefined;
  const element = items ? crdType(items, preserve, depth + 1) : UNTYPED;
  const listType = s['x-kubernetes-list-type'];
  if (listType === 'set') return { atomic: false, keys: [], element };
  if (listType === 'map') {
    const keys = stringList(s['x-kubernetes-list-map-keys']);
    const props = items && isObject(items['properties']) ? items['properties'] : {};
    const keyDefaults: Record<string, unknown> = {};
    for (const k of keys) {
      const p = props[k];
      if (isObject(p) && p['default'] !== undefined) keyDefaults[k] = p['default'];
    }
    return { atomic: false, keys, element, ...(Object.keys(keyDefaults).length ? { keyDefaults } : {}) };
  }
  return { atomic: true, keys: [], element };
}

function crdMap(s: SchemaNode, preserve: boolean, depth: number): MapShape {
  const props = isObject(s['properties']) ? s['properties'] : undefined;
  const fields = new Map<string, SsaType>();
  if (props)
    for (const [k, v] of Object.entries(props)) if (isObject(v)) fields.set(k, crdType(v, preserve, depth + 1));
  const additional = s['additionalProperties'];
  let element: SsaType | undefined;
  if (isObject(additional)) element = crdType(additional, preserve, depth + 1);
  else if (additional === true || preserve || fields.size === 0) element = DEDUCED;
  return {
    atomic: s['x-kubernetes-map-type'] === 'atomic',
    ...(fields.size ? { fields } : {}),
    ...(element ? { element } : {}),
  };
}

function crdType(s: SchemaNode, inheritedPreserve: boolean, depth: number): SsaType {
  if (depth > 64) return DEDUCED;
  const preserve = inheritedPreserve || s['x-kubernetes-preserve-unknown-fields'] === true;
  if (s['x-kubernetes-int-or-string'] === true) return SCALAR;
  switch (s['type']) {
    case 'object':
      return { scalar: false, map: crdMap(s, preserve, depth) };
    case 'array':
      return { scalar: false, list: crdList(s, preserve, depth) };
    case 'string':
    case 'integer':
    case 'number':
    case 'boolean':
      return SCALAR;
    default:
      // No type: any value, each shape as the schema would read it.
      return { scalar: true, list: crdList(s, preserve, depth), map: crdMap(s, preserve, depth) };
  }
}

const customTypes = new WeakMap<object, SsaType>();

/** The type of a custom kind from its version's openAPIV3Schema; metadata is ObjectMeta, as kube-apiserver publishes it. */
export function customKindType(openAPIV3Schema: Record<string, unknown>): SsaType {
  const known = customTypes.get(openAPIV3Schema);
  if (known) return known;
  const root = crdType(openAPIV3Schema, false, 0);
  const rootMap = root.map ?? { atomic: false, element: DEDUCED };
  const fields = new Map(rootMap.fields ?? []);
  fields.set('apiVersion', SCALAR);
  fields.set('kind', SCALAR);
  fields.set('metadata', definitionType(`${META}ObjectMeta`));
  const t: SsaType = {
    scalar: false,
    map: { atomic: false, fields, ...(rootMap.element ? { element: rootMap.element } : {}) },
  };
  customTypes.set(openAPIV3Schema, t);
  return t;
}
