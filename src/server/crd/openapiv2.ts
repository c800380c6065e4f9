// A custom kind's schema as kube-apiserver publishes it in /openapi/v2 (apiextensions-apiserver's builder with
// ToStructuralOpenAPIV2). kubectl before 1.27 validates objects client-side against that document, and its
// validator knows only types, properties and required fields: anything it would misread is removed, so that what
// kubectl checks stays a subset of what the server checks (no junctors; untyped nullable values, preserved
// objects and item-less arrays; no `required` for nullable fields).

import { asNode, isEmbedded, isNullable, preservesUnknown, propertiesOf, type SchemaNode } from './nodes.js';

type Schema = Record<string, unknown>;

/** The keywords a structural schema keeps (apiextensions-apiserver's Structural), besides its x-kubernetes-* ones. */
const STRUCTURAL = new Set([
  'type',
  'title',
  'description',
  'default',
  'format',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
  'enum',
  'maxProperties',
  'minProperties',
  'required',
  'items',
  'properties',
  'additionalProperties',
]);

/** The metadata, apiVersion and kind properties of a kind or an embedded resource, given by the caller. */
export interface TypeMetaProperties {
  apiVersion: Schema;
  kind: Schema;
  metadata: Schema;
}

function filterNode(n: SchemaNode): Schema {
  const out: Schema = {};
  for (const [k, v] of Object.entries(n)) if (STRUCTURAL.has(k) || k.startsWith('x-kubernetes-')) out[k] = v;
  if (isNullable(n)) {
    // An untyped value cannot carry items or properties in kubectl's reading of the document.
    delete out['type'];
    delete out['items'];
    delete out['properties'];
  }
  if (preservesUnknown(n)) {
    delete out['items'];
    delete out['properties'];
    if (out['type'] === 'object') delete out['type'];
  }
  if (out['type'] === 'array' && asNode(out['items']) === undefined) delete out['type'];
  const props = asNode(out['properties']) !== undefined ? propertiesOf(n) : undefined;
  if (props !== undefined) {
    out['properties'] = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, filterNode(v)]));
    if (Array.isArray(out['required'])) {
      const required = out['required'].filter(
        (f) => !(typeof f === 'string' && props[f] !== undefined && isNullable(props[f])),
      );
      if (required.length > 0) out['required'] = required;
      else delete out['required'];
    }
  }
  const items = asNode(out['items']);
  if (items !== undefined) out['items'] = filterNode(items);
  const additional = asNode(out['additionalProperties']);
  if (additional !== undefined) {
    if (isNullable(additional)) delete out['required'];
    out['additionalProperties'] = filterNode(additional);
  }
  return out;
}

/** Embedded resources name their apiVersion, kind and metadata, and require the first two (addEmbeddedProperties). */
function addEmbedded(s: Schema, meta: TypeMetaProperties): void {
  const props = asNode(s['properties']);
  if (props !== undefined) for (const v of Object.values(props)) if (asNode(v)) addEmbedded(v as Schema, meta);
  const items = asNode(s['items']);
  if (items !== undefined) addEmbedded(items, meta);
  const additional = asNode(s['additionalProperties']);
  if (additional !== undefined) addEmbedded(additional, meta);
  if (preservesUnknown(s) || !isEmbedded(s)) return;
  s['properties'] = { ...(props ?? {}), ...meta };
  const required = Array.isArray(s['required']) ? [...(s['required'] as unknown[])] : [];
  for (const k of ['kind', 'apiVersion']) if (!required.includes(k)) required.push(k);
  s['required'] = required;
}

/**
 * The published schema of a custom kind: its CRD version's openAPIV3Schema filtered for kubectl, with the kind's
 * own apiVersion, kind and metadata. A schema that preserves unknown fields at its root is published as a bare
 * object: naming any property would make kubectl refuse every other one.
 */
export function crdSchemaForOpenApiV2(openAPIV3Schema: SchemaNode | undefined, meta: TypeMetaProperties): Schema {
  if (openAPIV3Schema === undefined || preservesUnknown(openAPIV3Schema)) return { type: 'object' };
  const out = filterNode(openAPIV3Schema);
  out['properties'] = { ...(asNode(out['properties']) ?? {}), ...meta };
  addEmbedded(out, meta);
  return out;
}
