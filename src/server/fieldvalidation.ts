// Server-side field validation (the `fieldValidation` query parameter): fields the served types do not have are
// found by walking the objects against the published OpenAPI schemas, then removed — as Go's typed decoding drops
// them — and reported: Strict refuses the request, Warn (the default, as in kube-apiserver ≥ 1.25) answers with
// `Warning` headers, Ignore drops them silently.

import { errors } from '../api/errors.js';
import type { KubeObject } from '../api/types.js';
import { COORDINATION, CORE, schemas, type JsonSchema } from './openapi-schemas.js';
import { checkTypes } from './typecheck.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

const REF_PREFIX = '#/components/schemas/';

function resolve(schema: JsonSchema | undefined): JsonSchema | undefined {
  let s = schema;
  for (let depth = 0; s && depth < 8; depth++) {
    const ref = s['$ref'];
    if (typeof ref === 'string') {
      s = schemas[ref.slice(REF_PREFIX.length)];
      continue;
    }
    const allOf = s['allOf'];
    if (Array.isArray(allOf) && allOf.length === 1) {
      s = allOf[0] as JsonSchema;
      continue;
    }
    return s;
  }
  return s;
}

/** Removes unknown fields from `value` in place and returns their paths (`spec.foo`, `data`…). */
function prune(value: unknown, schema: JsonSchema | undefined, path: string, out: string[], depth: number): void {
  const s = resolve(schema);
  if (!s || depth > 64 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    const items = s['items'] as JsonSchema | undefined;
    if (items) value.forEach((v, i) => prune(v, items, `${path}[${i}]`, out, depth + 1));
    return;
  }
  const obj = value as Record<string, unknown>;
  const props = s['properties'] as Record<string, JsonSchema> | undefined;
  const additional = s['additionalProperties'];
  if (props) {
    for (const key of Object.keys(obj)) {
      const child = props[key];
      const p = path ? `${path}.${key}` : key;
      if (child) prune(obj[key], child, p, out, depth + 1);
      else if (additional && typeof additional === 'object')
        prune(obj[key], additional as JsonSchema, p, out, depth + 1);
      else if (additional !== true) {
        out.push(p);
        delete obj[key];
      }
    }
  } else if (additional && typeof additional === 'object') {
    for (const key of Object.keys(obj))
      prune(obj[key], additional as JsonSchema, path ? `${path}.${key}` : key, out, depth + 1);
  }
}

function definitionFor(group: string, kind: string, version: string): string | undefined {
  if (group === '') return `${CORE}${kind}`;
  if (group === 'coordination.k8s.io') return `${COORDINATION}${kind}`;
  if (group === 'rbac.authorization.k8s.io') return `io.k8s.api.rbac.v1.${kind}`;
  if (group === 'policy') return `io.k8s.api.policy.${version}.${kind}`;
  if (group === 'apps') return `io.k8s.api.apps.${version}.${kind}`;
  return undefined;
}

export function parseFieldValidation(value: string | null): FieldValidation {
  if (value === null || value === '') return 'Warn';
  if (value === 'Strict' || value === 'Warn' || value === 'Ignore') return value;
  throw errors.badRequest(
    `invalid fieldValidation directive: ${value}; supported directives are: Strict, Warn, Ignore`,
  );
}

/**
 * Drops the fields of `obj` its kind does not have. Strict: a 400 naming them; otherwise the warnings to send
 * (none for Ignore).
 */
export function checkFields(
  group: string,
  kind: string,
  obj: KubeObject,
  mode: FieldValidation,
  version = 'v1',
): string[] {
  const definition = definitionFor(group, kind, version);
  if (definition) checkTypes(obj, definition, kind, version);
  const unknown: string[] = [];
  prune(obj, definition === undefined ? undefined : schemas[definition], '', unknown, 0);
  if (unknown.length === 0 || mode === 'Ignore') return [];
  const messages = unknown.map((p) => `unknown field ${JSON.stringify(p)}`);
  if (mode === 'Strict') throw errors.badRequest(`strict decoding error: ${messages.join(', ')}`);
  return messages;
}
