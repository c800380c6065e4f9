// Read access to one node of a CRD's openAPIV3Schema (JSONSchemaProps as decoded from JSON), shared by pruning,
// defaulting, validation and the structural checks so that each reads the schema the same way.

export type SchemaNode = Readonly<Record<string, unknown>>;

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function asNode(v: unknown): SchemaNode | undefined {
  return isPlainObject(v) ? v : undefined;
}

/** Each schema node's properties, worked out once: pruning and defaulting ask for them at every field of every write. */
const propertiesCache = new WeakMap<SchemaNode, Readonly<Record<string, SchemaNode>> | null>();

export function propertiesOf(n: SchemaNode): Readonly<Record<string, SchemaNode>> | undefined {
  const cached = propertiesCache.get(n);
  if (cached !== undefined) return cached ?? undefined;
  const p = n['properties'];
  let out: Record<string, SchemaNode> | null = null;
  if (isPlainObject(p)) {
    out = {};
    for (const [k, v] of Object.entries(p)) if (isPlainObject(v)) out[k] = v;
    Object.freeze(out);
  }
  propertiesCache.set(n, out);
  return out ?? undefined;
}

export function itemsOf(n: SchemaNode): SchemaNode | undefined {
  return asNode(n['items']);
}

/**
 * The schema of undeclared keys: a node; ANY_VALUE when additionalProperties is a boolean (kube keeps the key but
 * knows nothing of its value, so nested fields are pruned); undefined when absent.
 */
export const ANY_VALUE = 'any';
export function additionalOf(n: SchemaNode): SchemaNode | typeof ANY_VALUE | undefined {
  const a = n['additionalProperties'];
  if (typeof a === 'boolean') return ANY_VALUE;
  return asNode(a);
}

export const preservesUnknown = (n: SchemaNode): boolean => n['x-kubernetes-preserve-unknown-fields'] === true;
export const isEmbedded = (n: SchemaNode): boolean => n['x-kubernetes-embedded-resource'] === true;
export const isIntOrString = (n: SchemaNode): boolean => n['x-kubernetes-int-or-string'] === true;
export const isNullable = (n: SchemaNode): boolean => n['nullable'] === true;

/** The schema of one key of an object: its property, else additionalProperties. */
export function fieldSchema(n: SchemaNode | undefined, key: string): SchemaNode | typeof ANY_VALUE | undefined {
  if (!n) return undefined;
  return propertiesOf(n)?.[key] ?? additionalOf(n);
}

/** The schema node of one key, when there is one to descend into. */
export function fieldNode(n: SchemaNode | undefined, key: string): SchemaNode | undefined {
  const s = fieldSchema(n, key);
  return s === ANY_VALUE ? undefined : s;
}
