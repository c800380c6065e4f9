// OpenAPI v3 component schemas for the kinds this server serves, under upstream's definition names
// (io.k8s.api.core.v1.Node, io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta, ...). kubectl explain
// renders these texts, and kubectl's strategic-merge-patch and list handling read the x-kubernetes-*
// extensions, so names, structure and extensions follow upstream: they are derived from the schema facts
// (generated from upstream's Go types), while the descriptions are our own (schema/descriptions.ts).

import { descriptions } from './schema/descriptions.js';
import { isScalarType, schemaFacts, type FieldFact, type TypeFact } from './schema/facts.js';

export type JsonSchema = { [key: string]: unknown };

export const CORE = 'io.k8s.api.core.v1.';
export const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
export const COORDINATION = 'io.k8s.api.coordination.v1.';
export const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

export function ref(name: string): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}

/** The texts kube-apiserver gives a custom kind's TypeMeta, metadata and list (its CRD says nothing of them). */
export const customKindText = {
  apiVersion: 'APIVersion defines the versioned schema of this representation of an object.',
  kind: 'Kind is a string value representing the REST resource this object represents.',
  metadata: "Standard object's metadata.",
  listMetadata: 'Standard list metadata.',
  list: (kind: string) => `${kind}List is a list of ${kind}`,
  items: (kind: string) => `List of ${kind.toLowerCase()}s.`,
};

const META_KINDS: Readonly<Record<string, Gvk>> = {
  // Upstream publishes these meta types under the core group-version, like the kinds of every group.
  [`${META}Status`]: { group: '', version: 'v1', kind: 'Status' },
  [`${META}DeleteOptions`]: { group: '', version: 'v1', kind: 'DeleteOptions' },
};

interface Gvk {
  group: string;
  version: string;
  kind: string;
}

/** The type itself: name → its own schema, for the types whose JSON form is not a struct. */
const RAW_EXTENSION = 'io.k8s.apimachinery.pkg.runtime.RawExtension';

const SPECIAL: Readonly<Record<string, JsonSchema>> = {
  [`${META}Time`]: { type: 'string', format: 'date-time' },
  [`${META}MicroTime`]: { type: 'string', format: 'date-time' },
  [QUANTITY]: { oneOf: [{ type: 'string' }, { type: 'number' }] },
  ['io.k8s.apimachinery.pkg.util.intstr.IntOrString']: {
    format: 'int-or-string',
    oneOf: [{ type: 'integer' }, { type: 'string' }],
  },
  [`${META}FieldsV1`]: { type: 'object' },
  [`${META}Patch`]: { type: 'object' },
  [RAW_EXTENSION]: { type: 'object' },
  ['io.k8s.api.authorization.v1.ExtraValue']: { type: 'array', items: { type: 'string', default: '' } },
  ['io.k8s.api.authentication.v1.ExtraValue']: { type: 'array', items: { type: 'string', default: '' } },
};

const SCALAR: Readonly<Record<string, JsonSchema>> = {
  string: { type: 'string' },
  bool: { type: 'boolean' },
  int32: { type: 'integer', format: 'int32' },
  int64: { type: 'integer', format: 'int64' },
  bytes: { type: 'string', format: 'byte' },
  double: { type: 'number', format: 'double' },
};
const ZERO: Readonly<Record<string, unknown>> = { string: '', bool: false, int32: 0, int64: 0, double: 0 };

function describe(definition: string, key: string): JsonSchema {
  const entry = Object.hasOwn(descriptions, definition) ? descriptions[definition] : undefined;
  const text = entry !== undefined && Object.hasOwn(entry, key) ? entry[key] : undefined;
  return text === undefined ? {} : { description: text };
}

/** A non-pointer struct that is no special type: encoding/json always writes it, so its default is {}. */
function isPlainStruct(type: string): boolean {
  return !isScalarType(type) && !Object.hasOwn(SPECIAL, type);
}

/** The schema of one element of a list or one value of a map. */
function elementSchema(type: string): JsonSchema {
  if (isScalarType(type)) return type === 'bytes' ? { ...SCALAR[type] } : { ...SCALAR[type], default: ZERO[type] };
  if (Object.hasOwn(SPECIAL, type)) return ref(type);
  return { allOf: [ref(type)], default: {} };
}

function listExtensions(f: FieldFact): JsonSchema {
  const out: JsonSchema = {};
  if (f.listMapKeys !== undefined) out['x-kubernetes-list-map-keys'] = f.listMapKeys;
  if (f.listType !== undefined) out['x-kubernetes-list-type'] = f.listType;
  if (f.patchMergeKey !== undefined) out['x-kubernetes-patch-merge-key'] = f.patchMergeKey;
  if (f.patchStrategy !== undefined) out['x-kubernetes-patch-strategy'] = f.patchStrategy;
  return out;
}

function fieldSchema(definition: string, f: FieldFact): JsonSchema {
  const description = describe(definition, f.name);
  if (f.list === true) return { ...description, type: 'array', items: elementSchema(f.type), ...listExtensions(f) };
  if (f.map === true) {
    return {
      ...description,
      type: 'object',
      additionalProperties: elementSchema(f.type),
      ...(f.mapType !== undefined ? { 'x-kubernetes-map-type': f.mapType } : {}),
    };
  }
  if (isScalarType(f.type)) {
    // Go writes a field without omitempty even when zero, which upstream documents as its default.
    const zero = f.go === 'keep' && f.type !== 'bytes' ? { default: ZERO[f.type] } : {};
    return { ...description, ...SCALAR[f.type], ...zero };
  }
  // OpenAPI 3.0 forbids siblings next to $ref, hence allOf.
  const value = f.go !== 'ptr' && isPlainStruct(f.type) ? { default: {} } : {};
  // List markers upstream puts on a struct field (Status.details) mean nothing there and are left out.
  return { allOf: [ref(f.type)], ...value, ...description };
}

const apiVersionField: JsonSchema = {
  description:
    'The versioned schema of this representation of the object, e.g. "v1". Clients send it and the server fills it in on every object it returns.',
  type: 'string',
};
const kindField: JsonSchema = {
  description: 'The kind of REST resource this object represents, in CamelCase. Cannot be updated.',
  type: 'string',
};

/** Definition name → group-version-kind, for every type that is a kind of its own. */
function kindsByDefinition(): Map<string, Gvk> {
  const out = new Map<string, Gvk>(Object.entries(META_KINDS));
  for (const k of schemaFacts.kinds) {
    out.set(k.type, { group: k.group, version: k.version, kind: k.kind });
    if (k.list !== undefined) out.set(k.list, { group: k.group, version: k.version, kind: `${k.kind}List` });
  }
  return out;
}

function structSchema(definition: string, t: TypeFact, gvk: Gvk | undefined): JsonSchema {
  const fields = t.fields ?? [];
  const properties: Record<string, JsonSchema> = {};
  const all: [string, JsonSchema][] = fields.map((f) => [f.name, fieldSchema(definition, f)]);
  if (gvk !== undefined) all.push(['apiVersion', apiVersionField], ['kind', kindField]);
  for (const [name, schema] of all.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) properties[name] = schema;
  const required = fields.filter((f) => f.go === 'keep' && f.optional !== true).map((f) => f.name);
  return {
    ...describe(definition, ''),
    type: 'object',
    ...(required.length > 0 ? { required } : {}),
    ...(fields.length > 0 || gvk !== undefined ? { properties } : {}),
    ...(t.structType === 'atomic' || t.mapType === 'atomic' ? { 'x-kubernetes-map-type': 'atomic' } : {}),
    ...(gvk !== undefined ? { 'x-kubernetes-group-version-kind': [gvk] } : {}),
  };
}

function buildSchemas(): Record<string, JsonSchema> {
  const kinds = kindsByDefinition();
  const out: Record<string, JsonSchema> = {};
  for (const [definition, t] of Object.entries(schemaFacts.types)) {
    // The protobuf envelope only; a RawExtension is a field's embedded object (a ControllerRevision's data).
    if (t.proto.startsWith('k8s.io.apimachinery.pkg.runtime.') && definition !== RAW_EXTENSION) continue;
    const special = Object.hasOwn(SPECIAL, definition) ? SPECIAL[definition] : undefined;
    out[definition] =
      special !== undefined
        ? { ...describe(definition, ''), ...special }
        : structSchema(definition, t, kinds.get(definition));
  }
  return out;
}

/** Every component schema this server can publish, keyed by upstream definition name. */
export const schemas: Readonly<Record<string, JsonSchema>> = buildSchemas();
