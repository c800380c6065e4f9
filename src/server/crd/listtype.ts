// x-kubernetes-list-type set and map: their items (sets) or their keys (maps) must be unique, checked as
// apiextensions-apiserver's listtype validation checks them — each value repeated is reported once, at its
// second appearance, as a Duplicate value.

import { FieldError, field } from '../../api/field.js';
import { GoValueFieldError } from '../../api/validation/goprint.js';
import { goSharpV } from './gotext.js';
import { listTypeText as text } from './messages.js';
import { additionalOf, ANY_VALUE, isPlainObject, itemsOf, propertiesOf, type SchemaNode } from './nodes.js';

/** A scalar as Go compares it; compound values by their (key-sorted) JSON. */
function identity(v: unknown): string {
  if (isPlainObject(v) || Array.isArray(v)) return `c:${JSON.stringify(sortKeys(v))}`;
  return `s:${typeof v}:${String(v)}`;
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!isPlainObject(v)) return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, sortKeys(v[k])]),
  );
}

/** Indexes of second appearances, each repeated value once. */
function repeats(values: unknown[]): number[] {
  const seen = new Map<string, number>();
  const out: number[] = [];
  values.forEach((v, i) => {
    const id = identity(v);
    const times = seen.get(id) ?? 0;
    seen.set(id, times + 1);
    if (times === 1) out.push(i);
  });
  return out;
}

function duplicate(path: string, v: unknown): FieldError {
  if (isPlainObject(v) || Array.isArray(v))
    return new GoValueFieldError('FieldValueDuplicate', path, v, goSharpV(v), '');
  return field.duplicate(path, v);
}

const UNSPECIFIED = Symbol('unspecified key');

function mapKeys(list: unknown[], keys: string[]): unknown[] {
  return list.map((x) => {
    const item = isPlainObject(x) ? x : {};
    if (keys.length === 1) return keys[0]! in item ? item[keys[0]!] : UNSPECIFIED;
    return Object.fromEntries(keys.filter((k) => k in item).map((k) => [k, item[k]]));
  });
}

function listMapErrors(path: string, s: SchemaNode, list: unknown[]): FieldError[] {
  const bad = list.findIndex((x) => x !== null && !isPlainObject(x));
  if (bad >= 0) return [field.invalid(`${path}[${bad}]`, list[bad], text.mapItemsObjects)];
  const keyNames = Array.isArray(s['x-kubernetes-list-map-keys'])
    ? (s['x-kubernetes-list-map-keys'] as unknown[]).map(String)
    : [];
  const keys = mapKeys(list, keyNames);
  return repeats(keys.map((k) => (k === UNSPECIFIED ? {} : k))).map((i) => {
    const k = keys[i];
    const shown = keyNames.length === 1 ? (k === UNSPECIFIED ? {} : { [keyNames[0]!]: k }) : k;
    return duplicate(`${path}[${i}]`, shown);
  });
}

function walk(x: unknown, s: SchemaNode | undefined, path: string, out: FieldError[], depth: number): void {
  if (!s || depth > 64) return;
  if (Array.isArray(x)) {
    const type = s['x-kubernetes-list-type'];
    if (type === 'set') for (const i of repeats(x)) out.push(duplicate(`${path}[${i}]`, x[i]));
    if (type === 'map') out.push(...listMapErrors(path, s, x));
    x.forEach((v, i) => walk(v, itemsOf(s), `${path}[${i}]`, out, depth + 1));
    return;
  }
  if (!isPlainObject(x)) return;
  const additional = additionalOf(s);
  const props = propertiesOf(s) ?? {};
  for (const [k, v] of Object.entries(x)) {
    if (additional && additional !== ANY_VALUE) walk(v, additional, `${path}[${k}]`, out, depth + 1);
    const prop = props[k];
    if (prop) walk(v, prop, path ? `${path}.${k}` : k, out, depth + 1);
  }
}

/** Duplicate items of list-type sets and duplicate keys of list-type maps anywhere in `obj`. */
export function validateListTypes(obj: unknown, root: SchemaNode): FieldError[] {
  const out: FieldError[] = [];
  walk(obj, root, '', out, 0);
  return out;
}
