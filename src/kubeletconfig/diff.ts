// What differs between two KubeletConfigurations, leaf by leaf. Both sides are compared in their encoded v1beta1
// form (Durations and Quantities in their canonical text), so `1m` and `60s` are the same value and a config that
// spells out a default equals one that leaves it out once both are defaulted. Structs and maps are walked key by
// key; lists are leaves, because the kubelet replaces a list whole. Pure: the CLI and the web view share it.

import { toJSONObject, type StructSpec } from './codec.js';
import type { JSONValue, KubeletConfiguration } from './types.js';

export interface FieldChange {
  /** The leaf in YAML path form: `maxPods`, `authentication.webhook.enabled`, `evictionHard["memory.available"]`. */
  readonly path: string;
  /** The path as keys, for programs. */
  readonly keys: readonly string[];
  /** Absent when the leaf exists only on the new side. */
  readonly old?: JSONValue;
  /** Absent when the leaf exists only on the old side. */
  readonly new?: JSONValue;
}

type JSONObject = { [key: string]: JSONValue };

const isObject = (v: JSONValue | undefined): v is JSONObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** Joins keys into a path, quoting the keys a dot would make ambiguous (`memory.available`). */
export function formatPath(keys: readonly string[]): string {
  let out = '';
  for (const k of keys) {
    if (PLAIN_KEY.test(k)) out += out === '' ? k : `.${k}`;
    else out += `[${JSON.stringify(k)}]`;
  }
  return out;
}

function sameValue(a: JSONValue, b: JSONValue): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A map or struct present on one side only is listed by its leaves, unless it is empty. */
const descends = (a: JSONValue | undefined, b: JSONValue | undefined): boolean =>
  (isObject(a) && isObject(b)) ||
  (a === undefined && isObject(b) && Object.keys(b).length > 0) ||
  (b === undefined && isObject(a) && Object.keys(a).length > 0);

/** Both key lists in one, each key where its own side puts it (both sides follow Go struct order, or sort). */
function union(a: readonly string[], b: readonly string[]): string[] {
  const out = [...a];
  let at = -1;
  for (const k of b) {
    const i = out.indexOf(k);
    if (i >= 0) at = i;
    else out.splice(++at, 0, k);
  }
  return out;
}

function walk(a: JSONValue | undefined, b: JSONValue | undefined, keys: string[], out: FieldChange[]): void {
  if (descends(a, b)) {
    const [oa, ob] = [isObject(a) ? a : {}, isObject(b) ? b : {}];
    const names = union(Object.keys(oa), Object.keys(ob));
    for (const k of names)
      walk(Object.hasOwn(oa, k) ? oa[k] : undefined, Object.hasOwn(ob, k) ? ob[k] : undefined, [...keys, k], out);
    return;
  }
  if (a !== undefined && b !== undefined && sameValue(a, b)) return;
  const change: { path: string; keys: string[]; old?: JSONValue; new?: JSONValue } = { path: formatPath(keys), keys };
  if (a !== undefined) change.old = a;
  if (b !== undefined) change.new = b;
  out.push(change);
}

/** The changed leaves from `a` to `b`, in Go struct order (map keys sorted); `schema` is a minor's (versions.ts). */
export function diffConfigs(a: KubeletConfiguration, b: KubeletConfiguration, schema?: StructSpec): FieldChange[] {
  return diffEncoded(toJSONObject(a, schema), toJSONObject(b, schema));
}

/** diffConfigs over configs already encoded with toJSONObject (a caller that needs the encoding too encodes once). */
export function diffEncoded(a: { [key: string]: JSONValue }, b: { [key: string]: JSONValue }): FieldChange[] {
  const out: FieldChange[] = [];
  const { kind: _ka, apiVersion: _va, ...ea } = a;
  const { kind: _kb, apiVersion: _vb, ...eb } = b;
  walk(ea, eb, [], out);
  return out;
}
