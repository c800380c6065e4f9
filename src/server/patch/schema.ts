// Strategic-merge metadata of the kinds we serve: which lists merge (and by which key) instead of
// being replaced. It comes from the `patchStrategy`/`patchMergeKey` struct tags of the upstream Go
// types (held in the schema facts), because that is what kube-apiserver consults; a path with no entry
// merges as a map and replaces as a list, which is also how any kind not served here is patched.

import { isScalarType, schemaFacts, typeFact, type FieldFact } from '../schema/facts.js';

/** Patch metadata of one field. For a list of objects, `fields` describes each element. */
export interface PatchMeta {
  /** 'merge' lists are merged element-wise; any other list is replaced as a whole. */
  readonly listStrategy?: 'merge';
  /** Identifies elements of a merge list of objects; absent for merge lists of primitives (sets). */
  readonly mergeKey?: string;
  /** Metadata of nested fields, of this object or of each element of this list. */
  readonly fields?: Readonly<Record<string, PatchMeta>>;
}

/** Metadata of a nested field, or undefined when the schema says nothing about it. */
export function childMeta(meta: PatchMeta | undefined, key: string): PatchMeta | undefined {
  const fields = meta?.fields;
  if (!fields || !Object.hasOwn(fields, key)) return undefined;
  return fields[key];
}

// Derived from the schema facts: a field whose `patchStrategy` tag includes "merge" is a merge list
// (keyed by its `patchMergeKey`, or a set of primitives without one); other fields only matter when
// something below them merges, so subtrees with nothing to merge are left out.

const MAX_DEPTH = 32;

function structMeta(definition: string, depth: number): PatchMeta | undefined {
  const t = typeFact(definition);
  if (t.fields === undefined || depth > MAX_DEPTH) return undefined;
  const fields: Record<string, PatchMeta> = {};
  for (const f of t.fields) {
    const meta = fieldMeta(f, depth + 1);
    if (meta !== undefined) fields[f.name] = meta;
  }
  return Object.keys(fields).length > 0 ? { fields } : undefined;
}

function fieldMeta(f: FieldFact, depth: number): PatchMeta | undefined {
  // Maps of structs (resource lists) merge as maps, which is also what no metadata means.
  if (f.map === true) return undefined;
  const inner = isScalarType(f.type) ? undefined : structMeta(f.type, depth);
  const merge = f.list === true && (f.patchStrategy ?? '').split(',').includes('merge');
  if (!merge) return inner;
  return {
    listStrategy: 'merge',
    ...(f.patchMergeKey !== undefined ? { mergeKey: f.patchMergeKey } : {}),
    ...(inner?.fields !== undefined ? { fields: inner.fields } : {}),
  };
}

const schemas: Readonly<Record<string, PatchMeta>> = Object.fromEntries(
  schemaFacts.kinds.map((k) => [k.kind, structMeta(k.type, 0) ?? {}]),
);

/** The strategic-merge metadata of a kind, or undefined (plain map merge, list replace) if unknown. */
export function patchMetaForKind(kind: string): PatchMeta | undefined {
  return Object.hasOwn(schemas, kind) ? schemas[kind] : undefined;
}

/** Kinds with a schema here. */
export function knownPatchKinds(): string[] {
  return Object.keys(schemas);
}
