// The checks kube-apiserver makes on a CRD's own openAPIV3Schema before it serves it: the structural-schema
// invariants (apiextensions-apiserver pkg/apiserver/schema/validation.go) and the CRD schema rules that matter
// here (pkg/apis/apiextensions/validation). The errors are sorted by their text, as upstream sorts them.

import { field, type FieldError } from '../../api/field.js';
import { goStringSlice, invalidGo } from '../../api/validation/goprint.js';
import { structuralText as text } from './messages.js';
import { goSharpV } from './gotext.js';
import { pruneValue } from './prune.js';
import { goRegExp } from './regexp.js';
import { compileValidator, translate } from './validate.js';
import { asNode, isEmbedded, isIntOrString, isPlainObject, preservesUnknown, type SchemaNode } from './nodes.js';
import { errorMessage } from '../../util/errors.js';

type Level = 'root' | 'item' | 'field';

const TYPE_REQUIRED: Record<Level, string> = {
  root: text.typeRequiredRoot,
  item: text.typeRequiredArray,
  field: text.typeRequired,
};

const typeOf = (n: SchemaNode): string => (typeof n['type'] === 'string' ? n['type'] : '');

const UNSUPPORTED = ['id', 'additionalItems', 'patternProperties', 'definitions', 'dependencies'] as const;

function keywordChecks(n: SchemaNode, path: string, errs: FieldError[]): void {
  const type = typeOf(n);
  if (type && !text.supportedTypes.includes(type))
    errs.push(field.notSupported(`${path}.type`, type, text.supportedTypes));
  if (type === 'null') errs.push(field.forbidden(`${path}.type`, text.typeNull));
  for (const k of UNSUPPORTED) if (isSet(n[k])) errs.push(field.forbidden(`${path}.${k}`, text.notSupported(k)));
  if (n['$ref'] !== undefined) errs.push(field.forbidden(`${path}.$ref`, text.refForbidden));
  if (Array.isArray(n['items'])) errs.push(field.forbidden(`${path}.items`, text.itemsArray));
  if (n['uniqueItems'] === true) errs.push(field.forbidden(`${path}.uniqueItems`, text.uniqueItems));
  const additional = n['additionalProperties'];
  const hasProperties = Object.keys(asNode(n['properties']) ?? {}).length > 0;
  if (hasProperties && (additional === false || asNode(additional))) {
    errs.push(field.forbidden(`${path}.additionalProperties`, text.propertiesAndAdditional));
  }
  if (n['x-kubernetes-preserve-unknown-fields'] === false) {
    errs.push(field.invalid(`${path}.x-kubernetes-preserve-unknown-fields`, false, text.preserveFalse));
  }
  const pattern = n['pattern'];
  const compiled = typeof pattern === 'string' ? goRegExp(pattern) : undefined;
  if (compiled instanceof Error)
    errs.push(field.invalid(`${path}.pattern`, pattern, text.invalidPattern(compiled.message)));
}

/** A keyword is set when present and not empty (Go's zero values count as absent). */
const isSet = (v: unknown): boolean =>
  v !== undefined && v !== null && v !== '' && !(isPlainObject(v) && Object.keys(v).length === 0);

/** x-kubernetes-list-type and -map-type: on the right types, with the keys a map list needs. */
function listTypeChecks(n: SchemaNode, path: string, errs: FieldError[]): void {
  const type = typeOf(n);
  const listType = n['x-kubernetes-list-type'];
  const mapType = n['x-kubernetes-map-type'];
  const keys = Array.isArray(n['x-kubernetes-list-map-keys'])
    ? (n['x-kubernetes-list-map-keys'] as unknown[]).map(String)
    : [];
  if (mapType !== undefined && type !== 'object') errs.push(wrongType(path, type, text.mapTypeObject));
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') {
    errs.push(field.notSupported(`${path}.x-kubernetes-map-type`, mapType, ['atomic', 'granular']));
  }
  if (listType !== undefined && type !== 'array') errs.push(wrongType(path, type, text.listTypeArray));
  if (listType !== undefined && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    errs.push(field.notSupported(`${path}.x-kubernetes-list-type`, listType, ['atomic', 'set', 'map']));
  }
  if (keys.length > 0 && listType === undefined)
    errs.push(field.required(`${path}.x-kubernetes-list-type`, text.listMapKeysNeedMap));
  else if (keys.length > 0 && listType !== 'map')
    errs.push(field.invalid(`${path}.x-kubernetes-list-type`, listType, text.listMapKeysNeedMap));
  if ((listType === 'set' || listType === 'map') && asNode(n['items'])?.['nullable'] === true) {
    errs.push(field.forbidden(`${path}.items.nullable`, text.listItemsNullable(listType)));
  }
  if (listType === 'map') listMapChecks(n, keys, path, errs);
}

const wrongType = (path: string, type: string, detail: string): FieldError =>
  type ? field.invalid(`${path}.type`, type, detail) : field.required(`${path}.type`, detail);

function listMapChecks(n: SchemaNode, keys: string[], path: string, errs: FieldError[]): void {
  if (keys.length === 0) errs.push(field.required(`${path}.x-kubernetes-list-map-keys`, text.mapKeysRequired));
  const items = asNode(n['items']);
  if (!items) {
    errs.push(field.required(`${path}.items`, text.mapItemsRequired));
    return;
  }
  if (typeOf(items) !== 'object') {
    errs.push(field.invalid(`${path}.items.type`, typeOf(items), text.mapItemsObject));
    return;
  }
  const props = asNode(items['properties']) ?? {};
  const required = new Set(Array.isArray(items['required']) ? (items['required'] as unknown[]).map(String) : []);
  const seen = new Set<string>();
  for (const k of keys) {
    const prop = asNode(props[k]);
    if (!prop)
      errs.push(invalidGo(`${path}.x-kubernetes-list-map-keys`, keys, goStringSlice(keys), text.mapKeysProperties));
    else if (typeOf(prop) === 'array' || typeOf(prop) === 'object') {
      errs.push(field.invalid(`${path}.items.properties[${k}].type`, typeOf(items), text.mapKeyScalar));
    }
    // Server-side apply identifies an item by its keys, so each item must have them.
    if (prop && !required.has(k) && prop['default'] === undefined)
      errs.push(field.required(`${path}.items.properties[${k}].default`, text.mapKeyDefault));
    if (prop && prop['nullable'] === true)
      errs.push(field.forbidden(`${path}.items.properties[${k}].nullable`, text.mapKeyNullable));
    if (seen.has(k))
      errs.push(invalidGo(`${path}.x-kubernetes-list-map-keys`, keys, goStringSlice(keys), text.mapKeysDuplicate));
    seen.add(k);
  }
}

/** apiVersion, kind and metadata at the root take no defaults, however deep. */
function topLevelMetaDefaults(n: SchemaNode, name: string, path: string, errs: FieldError[], depth = 0): void {
  if (depth > 64) return;
  if (n['default'] !== undefined) errs.push(field.forbidden(`${path}.default`, text.topLevelDefault(name)));
  for (const [k, v] of Object.entries(asNode(n['properties']) ?? {})) {
    topLevelMetaDefaults(asNode(v) ?? {}, name, `${path}.properties[${k}]`, errs, depth + 1);
  }
  const items = asNode(n['items']);
  if (items) topLevelMetaDefaults(items, name, `${path}.items`, errs, depth + 1);
  const additional = asNode(n['additionalProperties']);
  if (additional) topLevelMetaDefaults(additional, name, `${path}.additionalProperties`, errs, depth + 1);
}

function extensionChecks(n: SchemaNode, lvl: Level, path: string, errs: FieldError[]): void {
  const type = typeOf(n);
  if (isIntOrString(n) && preservesUnknown(n)) {
    errs.push(field.invalid(`${path}.x-kubernetes-preserve-unknown-fields`, true, text.intOrStringExcludes));
  }
  if (isIntOrString(n) && isEmbedded(n))
    errs.push(field.invalid(`${path}.x-kubernetes-embedded-resource`, true, text.intOrStringExcludes));
  if (isEmbedded(n) && type !== 'object') {
    errs.push(
      type ? field.invalid(`${path}.type`, type, text.embeddedType) : field.required(`${path}.type`, text.embeddedType),
    );
  } else if (!type && !isIntOrString(n) && !preservesUnknown(n)) {
    errs.push(field.required(`${path}.type`, TYPE_REQUIRED[lvl]));
  }
  if (isEmbedded(n) && n['additionalProperties'] !== undefined)
    errs.push(field.forbidden(`${path}.additionalProperties`, text.embeddedAdditional));
  if (lvl === 'root' && type && type !== 'object')
    errs.push(field.invalid(`${path}.type`, type, text.rootMustBeObject));
  if (lvl === 'root' && n['additionalProperties'] !== undefined)
    errs.push(field.forbidden(`${path}.additionalProperties`, text.rootAdditional));
  const noProperties = Object.keys(asNode(n['properties']) ?? {}).length === 0;
  if (isEmbedded(n) && !preservesUnknown(n) && noProperties)
    errs.push(field.required(`${path}.properties`, text.embeddedProperties));
}

/** apiVersion and kind are strings, and metadata at the root may restrict nothing but name and generateName. */
function metaChecks(n: SchemaNode, lvl: Level, path: string, errs: FieldError[]): void {
  const props = asNode(n['properties']);
  if (!props) return;
  const checkMeta = lvl === 'root' || isEmbedded(n);
  for (const k of ['kind', 'apiVersion']) {
    const p = asNode(props[k]);
    if (p && checkMeta && typeOf(p) !== 'string')
      errs.push(field.invalid(`${path}.properties[${k}].type`, typeOf(p), text.mustBeString));
  }
  const meta = asNode(props['metadata']);
  if (!meta) return;
  const metaPath = `${path}.properties[metadata]`;
  if (checkMeta && typeOf(meta) !== 'object')
    errs.push(field.invalid(`${metaPath}.type`, typeOf(meta), text.mustBeObject));
  if (lvl !== 'root') return;
  const rest = Object.keys(meta).filter((k) => k !== 'type' && k !== 'default' && k !== 'properties');
  const metaProps = Object.keys(asNode(meta['properties']) ?? {});
  const onlyNames = metaProps.every((k) => k === 'name' || k === 'generateName');
  if (rest.length > 0 || !onlyNames) errs.push(field.forbidden(metaPath, text.metadataRestricted));
}

const TOP_LEVEL_META = new Set(['apiVersion', 'kind', 'metadata']);

const INT_OR_STRING_ANY_OF = JSON.stringify([{ type: 'integer' }, { type: 'string' }]);

/** Schemas under allOf/anyOf/oneOf/not may only add value validations, never shape. */
function nestedChecks(n: SchemaNode, path: string, errs: FieldError[]): void {
  if (n['type'] !== undefined) errs.push(field.forbidden(`${path}.type`, text.nestedEmpty));
  for (const k of [
    'additionalProperties',
    'default',
    'externalDocs',
    'x-kubernetes-list-type',
    'x-kubernetes-map-type',
  ]) {
    if (n[k] !== undefined) errs.push(field.forbidden(`${path}.${k}`, text.nestedUndefined));
  }
  for (const k of ['title', 'description']) if (n[k]) errs.push(field.forbidden(`${path}.${k}`, text.nestedEmpty));
  for (const k of [
    'nullable',
    'x-kubernetes-preserve-unknown-fields',
    'x-kubernetes-embedded-resource',
    'x-kubernetes-int-or-string',
  ]) {
    if (n[k] === true) errs.push(field.forbidden(`${path}.${k}`, text.nestedFalse));
  }
  const props = asNode(n['properties']) ?? {};
  if (props['metadata'] !== undefined) errs.push(field.forbidden(`${path}.properties[metadata]`, text.nestedMetadata));
  for (const [k, v] of Object.entries(props)) nestedChecks(asNode(v) ?? {}, `${path}.properties[${k}]`, errs);
  const items = asNode(n['items']);
  if (items) nestedChecks(items, `${path}.items`, errs);
  junctorChecks(n, path, errs);
}

function junctorChecks(n: SchemaNode, path: string, errs: FieldError[]): void {
  const skipAnyOf = JSON.stringify(n['anyOf']) === INT_OR_STRING_ANY_OF;
  for (const k of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = n[k];
    if (!Array.isArray(list) || (k === 'anyOf' && skipAnyOf)) continue;
    list.forEach((s, i) => {
      const sub = asNode(s) ?? {};
      if (k === 'allOf' && i === 0 && JSON.stringify(sub['anyOf']) === INT_OR_STRING_ANY_OF) return;
      nestedChecks(sub, `${path}.${k}[${i}]`, errs);
    });
  }
  const not = asNode(n['not']);
  if (not) nestedChecks(not, `${path}.not`, errs);
}

/** A default must survive pruning unchanged and be valid against its own schema. */
function defaultChecks(n: SchemaNode, path: string, errs: FieldError[]): void {
  const value = n['default'];
  if (value === undefined || value === null) return;
  const pruned = pruneValue(structuredClone(value), n, isEmbedded(n));
  if (pruned.length > 0) {
    errs.push(invalidGo(`${path}.default`, value, goSharpV(value), text.defaultUnknownFields));
    return;
  }
  try {
    const validate = compileValidator(n);
    if (!validate(value)) errs.push(...translate(validate.errors, value, `${path}.default`));
  } catch (e) {
    errs.push(field.invalid(path, '', errorMessage(e)));
  }
}

function walk(n: SchemaNode, lvl: Level, path: string, errs: FieldError[], depth: number, inMeta = false): void {
  if (depth > 64) return;
  if (!inMeta) defaultChecks(n, path, errs);
  keywordChecks(n, path, errs);
  listTypeChecks(n, path, errs);
  extensionChecks(n, lvl, path, errs);
  metaChecks(n, lvl, path, errs);
  junctorChecks(n, path, errs);
  if (typeOf(n) === 'array' && n['items'] === undefined) errs.push(field.required(`${path}.items`, text.itemsRequired));
  const items = asNode(n['items']);
  if (items) walk(items, 'item', `${path}.items`, errs, depth + 1, inMeta);
  for (const [k, v] of Object.entries(asNode(n['properties']) ?? {})) {
    const topMeta = lvl === 'root' && TOP_LEVEL_META.has(k);
    const sub = asNode(v) ?? {};
    if (topMeta) topLevelMetaDefaults(sub, k, `${path}.properties[${k}]`, errs);
    walk(sub, 'field', `${path}.properties[${k}]`, errs, depth + 1, inMeta || topMeta);
  }
  const additional = asNode(n['additionalProperties']);
  if (additional) walk(additional, 'field', `${path}.additionalProperties`, errs, depth + 1, inMeta);
}

/**
 * The schema's structural errors under `basePath` (`spec.versions[0].schema.openAPIV3Schema`), sorted by text;
 * defaults included (outside metadata): each must have no unknown fields and be valid against its schema.
 */
export function validateStructural(openAPIV3Schema: unknown, basePath: string): FieldError[] {
  const root = asNode(openAPIV3Schema);
  if (!root) return [field.required(basePath, text.schemaRequired)];
  const errs: FieldError[] = [];
  walk(root, 'root', basePath, errs, 0);
  return errs.sort((a, b) => (a.toString() < b.toString() ? -1 : a.toString() > b.toString() ? 1 : 0));
}
