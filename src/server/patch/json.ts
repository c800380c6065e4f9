// JSON value types shared by the patch engines (and by anyone handling decoded request bodies), plus
// the small toolkit the engines rely on: validated import of untrusted values, own-property access
// that cannot be fooled by keys such as "__proto__" or "constructor", structural equality and
// bounded-depth cloning. Every traversal here is depth-bounded so hostile input cannot blow the stack.

import { PatchError } from './errors.js';
import { anyText } from '../../util/text.js';

export type JsonPrimitive = string | number | boolean | null;
export type JsonArray = JsonValue[];
export interface JsonObject {
  [key: string]: JsonValue;
}
export type JsonValue = JsonPrimitive | JsonArray | JsonObject;

/** Deepest container nesting accepted in objects, patches and results ({} is 1, {"a":{}} is 2). */
export const MAX_DEPTH = 100;

export function isJsonObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function isJsonScalar(v: JsonValue | undefined): v is JsonPrimitive {
  return v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

export function hasOwn(obj: JsonObject, key: string): boolean {
  return Object.hasOwn(obj, key);
}

/** The own value under key; inherited members (toString, __proto__, …) never count as present. */
export function getOwn(obj: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** Assigns an own data property; a plain assignment of "__proto__" would change the prototype instead. */
export function setOwn(obj: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

export function deleteOwn(obj: JsonObject, key: string): void {
  if (Object.hasOwn(obj, key)) delete obj[key];
}

function depthError(what: string): PatchError {
  return new PatchError('DKC_PATCH_INVALID', `${what} is nested deeper than ${MAX_DEPTH} levels`);
}

/**
 * Structural equality: object key order is irrelevant, numbers compare by value. Recursion stops at
 * the shallower side, so its depth is bounded by the smaller of the two inputs.
 */
export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i] as JsonValue, b[i] as JsonValue)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    const bv = getOwn(b, k);
    if (bv === undefined || !jsonEqual(a[k] as JsonValue, bv)) return false;
  }
  return true;
}

/** Counts what a clone costs, so callers can cap accumulated copying. */
export interface CloneBudget {
  size: number;
}

/** Deep copy of a value the engines already own; throws PatchError beyond MAX_DEPTH. */
export function cloneJson<T extends JsonValue>(v: T, budget?: CloneBudget, what = 'the value'): T {
  return cloneAt(v, 0, budget, what) as T;
}

function cloneAt(v: JsonValue, depth: number, budget: CloneBudget | undefined, what: string): JsonValue {
  if (budget) budget.size += typeof v === 'string' ? v.length + 2 : 4;
  if (typeof v !== 'object' || v === null) return v;
  if (depth >= MAX_DEPTH) throw depthError(what);
  if (Array.isArray(v)) {
    const out: JsonValue[] = new Array<JsonValue>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = cloneAt(v[i] as JsonValue, depth + 1, budget, what);
    return out;
  }
  const out: JsonObject = {};
  for (const k of Object.keys(v)) {
    if (budget) budget.size += k.length + 3;
    setOwn(out, k, cloneAt(v[k] as JsonValue, depth + 1, budget, what));
  }
  return out;
}

/** True when v nests containers deeper than limit; never recurses more than limit + 1 levels. */
export function exceedsDepth(v: JsonValue, limit = MAX_DEPTH): boolean {
  if (typeof v !== 'object' || v === null) return false;
  if (limit <= 0) return true;
  const children = Array.isArray(v) ? v : Object.values(v);
  for (const c of children) if (exceedsDepth(c, limit - 1)) return true;
  return false;
}

/**
 * Validates an untrusted value as JSON and returns a private deep copy the engines may mutate.
 * Accepts only what JSON.parse can produce: plain objects, dense arrays, strings, finite numbers,
 * booleans and null. Anything else, nesting beyond MAX_DEPTH (which also catches cycles), or a
 * value that throws while being read, is reported as an 'DKC_PATCH_INVALID' PatchError.
 */
export function importJson(value: unknown, what: string): JsonValue {
  const path: string[] = [];
  try {
    return importAt(value, 0, path, what);
  } catch (err) {
    if (err instanceof PatchError) throw err;
    throw new PatchError('DKC_PATCH_INVALID', `${what} could not be read as JSON`, { cause: err });
  }
}

function pointerOf(path: string[]): string {
  return clip(path.map((s) => '/' + s.replace(/~/g, '~0').replace(/\//g, '~1')).join(''));
}

function importAt(v: unknown, depth: number, path: string[], what: string): JsonValue {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      if (Number.isFinite(v)) return v;
      throw new PatchError('DKC_PATCH_INVALID', `${what} is not valid JSON: non-finite number at "${pointerOf(path)}"`);
    case 'object':
      break;
    default:
      throw new PatchError('DKC_PATCH_INVALID', `${what} is not valid JSON: ${typeof v} at "${pointerOf(path)}"`);
  }
  if (v === null) return null;
  if (depth >= MAX_DEPTH) throw depthError(what);
  if (Array.isArray(v)) {
    const src: unknown[] = v;
    const out: JsonValue[] = new Array<JsonValue>(src.length);
    for (let i = 0; i < src.length; i++) {
      if (!(i in src))
        throw new PatchError('DKC_PATCH_INVALID', `${what} is not valid JSON: sparse array at "${pointerOf(path)}"`);
      path.push(String(i));
      out[i] = importAt(src[i], depth + 1, path, what);
      path.pop();
    }
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) {
    throw new PatchError('DKC_PATCH_INVALID', `${what} is not valid JSON: non-plain object at "${pointerOf(path)}"`);
  }
  const src = v as Record<string, unknown>;
  const out: JsonObject = {};
  for (const k of Object.keys(src)) {
    path.push(k);
    setOwn(out, k, importAt(src[k], depth + 1, path, what));
    path.pop();
  }
  return out;
}

/** Compact rendering of a value for error messages, cut short so messages stay readable. */
export function describeJson(v: JsonValue | undefined, max = 120): string {
  let s: string;
  try {
    s = v === undefined ? 'undefined' : JSON.stringify(v);
  } catch {
    s = anyText(v);
  }
  return s.length > max ? s.slice(0, max - 3) + '...' : s;
}

/** "an object", "an array", "a string", … for error messages. */
export function jsonKind(v: JsonValue | undefined): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return `a ${typeof v}`;
}

/** Imports the object being patched: it must be a JSON object (a stored Kubernetes object). */
export function importObject(original: unknown): JsonObject {
  const doc = importJson(original, 'the object being patched');
  if (!isJsonObject(doc)) {
    throw new PatchError('DKC_PATCH_INVALID', `the object being patched must be a JSON object, got ${jsonKind(doc)}`);
  }
  return doc;
}

/** A user-supplied string cut down for an error message (keys and pointers can be megabytes long). */
export function clip(s: string, max = 100): string {
  return s.length > max ? s.slice(0, max - 3) + '...' : s;
}
