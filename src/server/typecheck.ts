// Request bodies decoded against the served types, as kube-apiserver's typed JSON decoding does: a value of the
// wrong JSON type for its field (`data: [1, 2]`, `metadata.labels: "a"`) is a 400 with Go's unmarshal wording,
// before anything is stored. Types come from the component schemas served at /openapi (the one schema source).
// (Nesting depth is bounded earlier, when the body is decoded: see body.ts.)

import { errors } from '../api/errors.js';
import { schemas, type JsonSchema } from './openapi-schemas.js';

const REF_PREFIX = '#/components/schemas/';

interface Resolved {
  schema: JsonSchema;
  /** The Go type's short name (`v1.ObjectMeta`) when the schema is a named struct. */
  name?: string;
}

function resolve(schema: JsonSchema, name?: string): Resolved {
  let s = schema;
  let n = name;
  for (let i = 0; i < 8; i++) {
    const ref = s['$ref'];
    if (typeof ref === 'string') {
      n = ref.slice(REF_PREFIX.length);
      s = schemas[n] ?? {};
      continue;
    }
    const allOf = s['allOf'];
    if (Array.isArray(allOf) && allOf.length === 1) {
      s = allOf[0] as JsonSchema;
      continue;
    }
    break;
  }
  return n === undefined ? { schema: s } : { schema: s, name: n };
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'object' ? 'object' : typeof v; // string, number
}

/** Go's spelling of the type a schema stands for, as encoding/json names it in errors. */
function goType(r: Resolved): string {
  const s = r.schema;
  if (r.name && s['type'] === 'object' && s['properties']) return `v1.${r.name.slice(r.name.lastIndexOf('.') + 1)}`;
  switch (s['type']) {
    case 'string':
      return r.name ? `v1.${r.name.slice(r.name.lastIndexOf('.') + 1)}` : 'string';
    case 'integer':
      return s['format'] === 'int32' ? 'int32' : 'int64';
    case 'boolean':
      return 'bool';
    case 'number':
      return 'float64';
    case 'array':
      return `[]${goType(resolve((s['items'] as JsonSchema) ?? {}))}`;
    case 'object': {
      const add = s['additionalProperties'];
      return add && typeof add === 'object'
        ? `map[string]${goType(resolve(add as JsonSchema))}`
        : 'map[string]interface {}';
    }
    default:
      return 'interface {}';
  }
}

interface Context {
  /** The innermost Go struct around the value, and the JSON path from the root. */
  struct: string;
  path: string;
}

class TypeMismatch extends Error {}

function mismatch(value: unknown, r: Resolved, ctx: Context): TypeMismatch {
  return new TypeMismatch(
    `json: cannot unmarshal ${jsonKind(value)} into Go struct field ${ctx.struct}.${ctx.path} of type ${goType(r)}`,
  );
}

function check(value: unknown, schema: JsonSchema, ctx: Context, name?: string): void {
  if (value === null || value === undefined) return; // null decodes to the zero value
  const r = resolve(schema, name);
  const s = r.schema;
  const oneOf = s['oneOf'];
  if (Array.isArray(oneOf)) {
    if (
      !(oneOf as JsonSchema[]).some(
        (alt) =>
          alt['type'] === jsonKind(value) ||
          (alt['type'] === 'number' && typeof value === 'number') ||
          (alt['type'] === 'integer' && Number.isInteger(value)),
      )
    )
      throw mismatch(value, r, ctx);
    return;
  }
  switch (s['type']) {
    case 'string':
      if (typeof value !== 'string') throw mismatch(value, r, ctx);
      return;
    case 'boolean':
      if (typeof value !== 'boolean') throw mismatch(value, r, ctx);
      return;
    case 'number':
      if (typeof value !== 'number') throw mismatch(value, r, ctx);
      return;
    case 'integer': {
      const bound = s['format'] === 'int32' ? 2 ** 31 : 2 ** 63;
      if (typeof value !== 'number' || !Number.isInteger(value) || value >= bound || value < -bound)
        throw mismatch(value, r, ctx);
      return;
    }
    case 'array': {
      if (!Array.isArray(value)) throw mismatch(value, r, ctx);
      const items = s['items'] as JsonSchema | undefined;
      if (items) for (const v of value) check(v, items, ctx);
      return;
    }
    case 'object':
      return checkObject(value, r, ctx);
    default:
      return;
  }
}

function checkObject(value: unknown, r: Resolved, ctx: Context): void {
  if (typeof value !== 'object' || Array.isArray(value)) throw mismatch(value, r, ctx);
  const obj = value as Record<string, unknown>;
  const props = r.schema['properties'] as Record<string, JsonSchema> | undefined;
  const additional = r.schema['additionalProperties'];
  const struct = props && r.name ? r.name.slice(r.name.lastIndexOf('.') + 1) : ctx.struct;
  for (const [key, v] of Object.entries(obj)) {
    const field = props?.[key];
    if (field) {
      // encoding/json names a struct field by its whole path of field names from the root (map keys not included).
      check(v, field, { struct, path: ctx.path ? `${ctx.path}.${key}` : key });
    } else if (additional && typeof additional === 'object') {
      check(v, additional as JsonSchema, ctx);
    } // unknown fields are fieldValidation's business
  }
}

/**
 * Checks `obj` against the schema named `definition`; a mismatch is kube-apiserver's 400
 * `<Kind> in version "<v>" cannot be handled as a <Kind>: json: cannot unmarshal …`.
 */
export function checkTypes(obj: unknown, definition: string, kind: string, version: string): void {
  const schema = schemas[definition];
  if (!schema) return;
  try {
    check(obj, { $ref: `${REF_PREFIX}${definition}` }, { struct: kind, path: '' });
  } catch (err) {
    if (err instanceof TypeMismatch)
      throw errors.badRequest(
        `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: ${err.message}`,
      );
    throw err;
  }
}
