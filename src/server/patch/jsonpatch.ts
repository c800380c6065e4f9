// JSON patch (RFC 6902, pointers per RFC 6901), served for application/json-patch+json. The whole
// operation list is validated before anything is applied, so a malformed patch is always reported
// as such (400) rather than as whatever its first applicable operation happened to hit. Operations
// run on a private copy: a failing patch leaves nothing half-applied. Limits mirror the ones
// kube-apiserver enforces against amplification (operation count, accumulated copy size).

import { PatchError, toPatchError } from './errors.js';
import {
  clip,
  cloneJson,
  exceedsDepth,
  getOwn,
  hasOwn,
  importJson,
  importObject,
  isJsonObject,
  jsonEqual,
  jsonKind,
  MAX_DEPTH,
  setOwn,
  type CloneBudget,
  type JsonObject,
  type JsonValue,
} from './json.js';

/** kube-apiserver refuses JSON patches with more operations than this. */
export const MAX_JSON_PATCH_OPERATIONS = 10000;
/** Cap on what `copy` operations may add in total (approximate serialized bytes). */
export const MAX_ACCUMULATED_COPY_SIZE = 10 * 1024 * 1024;

export type JsonPatchOpName = 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';

/** One validated operation, with its pointers already decoded into reference tokens. */
export interface JsonPatchOperation {
  readonly op: JsonPatchOpName;
  readonly path: string;
  readonly pathTokens: readonly string[];
  readonly from?: string;
  readonly fromTokens?: readonly string[];
  readonly value?: JsonValue;
}

const opNames: ReadonlySet<string> = new Set<JsonPatchOpName>(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/** Applies an RFC 6902 patch; returns a new object and leaves both inputs untouched. */
export function applyJsonPatch(original: JsonObject, patch: unknown): JsonObject {
  try {
    const ops = parseJsonPatch(patch);
    let root: JsonValue = importObject(original);
    const budget: CloneBudget = { size: 0 };
    for (const op of ops) root = applyOperation(root, op, budget);
    if (!isJsonObject(root)) {
      throw new PatchError('DKC_PATCH_INVALID', `the patched document must be a JSON object, got ${jsonKind(root)}`);
    }
    if (exceedsDepth(root)) {
      throw new PatchError('DKC_PATCH_INVALID', `the patched document is nested deeper than ${MAX_DEPTH} levels`);
    }
    return root;
  } catch (err) {
    throw toPatchError(err);
  }
}

/** Validates a JSON-patch body and decodes it into operations; throws 'DKC_PATCH_INVALID' on any defect. */
export function parseJsonPatch(patch: unknown): JsonPatchOperation[] {
  const body = importJson(patch, 'the JSON patch');
  if (!Array.isArray(body)) {
    throw new PatchError(
      'DKC_PATCH_INVALID',
      `a JSON patch must be a JSON array of operations, got ${jsonKind(body)}` +
        (isJsonObject(body) ? ' (was a merge patch sent with the json-patch content type?)' : ''),
    );
  }
  if (body.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new PatchError(
      'DKC_PATCH_INVALID',
      `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${body.length}`,
    );
  }
  return body.map((raw, i) => parseOperation(raw, i));
}

function parseOperation(raw: JsonValue, i: number): JsonPatchOperation {
  const where = `JSON patch operation ${i}`;
  if (!isJsonObject(raw))
    throw new PatchError('DKC_PATCH_INVALID', `${where} must be a JSON object, got ${jsonKind(raw)}`);
  const op = getOwn(raw, 'op');
  if (typeof op !== 'string') throw new PatchError('DKC_PATCH_INVALID', `${where} has no "op" member of type string`);
  if (!opNames.has(op)) throw new PatchError('DKC_PATCH_INVALID', `${where}: Unexpected kind: ${clip(op)}`);
  const name = op as JsonPatchOpName;
  const path = getOwn(raw, 'path');
  if (typeof path !== 'string')
    throw new PatchError('DKC_PATCH_INVALID', `${where} ("${name}") has no "path" member of type string`);
  const pathTokens = parsePointer(path, `${where} ("${name}") path`);
  switch (name) {
    case 'add':
    case 'replace':
    case 'test': {
      if (!hasOwn(raw, 'value'))
        throw new PatchError('DKC_PATCH_INVALID', `${where} ("${name}") has no "value" member`);
      return { op: name, path, pathTokens, value: raw['value'] as JsonValue };
    }
    case 'move':
    case 'copy': {
      const from = getOwn(raw, 'from');
      if (typeof from !== 'string')
        throw new PatchError('DKC_PATCH_INVALID', `${where} ("${name}") has no "from" member of type string`);
      const fromTokens = parsePointer(from, `${where} ("${name}") from`);
      if (name === 'move' && fromTokens.length < pathTokens.length && isPrefix(fromTokens, pathTokens)) {
        throw new PatchError(
          'DKC_PATCH_INVALID',
          `${where}: cannot move ${JSON.stringify(clip(from))} into its own child ${JSON.stringify(clip(path))}`,
        );
      }
      return { op: name, path, pathTokens, from, fromTokens };
    }
    case 'remove':
      return { op: name, path, pathTokens };
  }
}

/** Decodes an RFC 6901 pointer into reference tokens ("" is the whole document). */
export function parsePointer(pointer: string, what = 'JSON pointer'): string[] {
  if (pointer === '') return [];
  if (pointer[0] !== '/')
    throw new PatchError(
      'DKC_PATCH_INVALID',
      `${what} ${JSON.stringify(clip(pointer))} must be empty or start with "/"`,
    );
  if (/~(?![01])/.test(pointer)) {
    throw new PatchError(
      'DKC_PATCH_INVALID',
      `${what} ${JSON.stringify(clip(pointer))} has "~" not followed by "0" or "1"`,
    );
  }
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function isPrefix(prefix: readonly string[], tokens: readonly string[]): boolean {
  for (let i = 0; i < prefix.length; i++) if (prefix[i] !== tokens[i]) return false;
  return true;
}

const indexToken = /^(0|[1-9][0-9]*)$/;

/** Array index named by a token, or -1 if the token is not a canonical index below limit. */
function arrayIndex(token: string, limit: number): number {
  if (!indexToken.test(token)) return -1;
  const n = Number(token);
  return n < limit ? n : -1;
}

/** The value at tokens, or undefined when any step is missing. */
function lookup(root: JsonValue, tokens: readonly string[]): JsonValue | undefined {
  let cur: JsonValue | undefined = root;
  for (const t of tokens) {
    if (cur === undefined || typeof cur !== 'object' || cur === null) return undefined;
    if (Array.isArray(cur)) {
      const i = arrayIndex(t, cur.length);
      cur = i < 0 ? undefined : cur[i];
    } else {
      cur = getOwn(cur, t);
    }
  }
  return cur;
}

type Container = JsonObject | JsonValue[];

function containerAt(root: JsonValue, tokens: readonly string[]): Container | undefined {
  const v = lookup(root, tokens);
  return typeof v === 'object' && v !== null ? v : undefined;
}

function missing(op: string, what: 'path' | 'key' | 'from path', pointer: string): PatchError {
  return new PatchError(
    'DKC_PATCH_MISSING_PATH',
    `${op} operation does not apply: doc is missing ${what}: ${JSON.stringify(clip(pointer))}: missing value`,
  );
}

function addAt(
  root: JsonValue,
  tokens: readonly string[],
  value: JsonValue,
  opName: string,
  pointer: string,
): JsonValue {
  if (tokens.length === 0) return value;
  const parent = containerAt(root, tokens.slice(0, -1));
  const last = tokens[tokens.length - 1] as string;
  if (parent === undefined) throw missing(opName, 'path', pointer);
  if (Array.isArray(parent)) {
    if (last === '-') {
      parent.push(value);
    } else {
      const i = arrayIndex(last, parent.length + 1);
      if (i < 0) throw missing(opName, 'path', pointer);
      parent.splice(i, 0, value);
    }
  } else {
    setOwn(parent, last, value);
  }
  return root;
}

/** Removes and returns the value at tokens (which must not be empty), or undefined if missing. */
function removeAt(root: JsonValue, tokens: readonly string[]): JsonValue | undefined {
  const parent = containerAt(root, tokens.slice(0, -1));
  const last = tokens[tokens.length - 1] as string;
  if (parent === undefined) return undefined;
  if (Array.isArray(parent)) {
    const i = arrayIndex(last, parent.length);
    if (i < 0) return undefined;
    return parent.splice(i, 1)[0];
  }
  const v = getOwn(parent, last);
  if (v !== undefined) delete parent[last];
  return v;
}

function applyOperation(root: JsonValue, op: JsonPatchOperation, budget: CloneBudget): JsonValue {
  switch (op.op) {
    case 'add':
      return addAt(root, op.pathTokens, op.value as JsonValue, 'add', op.path);
    case 'remove': {
      if (op.pathTokens.length === 0)
        throw new PatchError('DKC_PATCH_INVALID', 'remove operation cannot remove the whole document');
      if (removeAt(root, op.pathTokens) === undefined) throw missing('remove', 'path', op.path);
      return root;
    }
    case 'replace': {
      if (op.pathTokens.length === 0) return op.value as JsonValue;
      const parent = containerAt(root, op.pathTokens.slice(0, -1));
      const last = op.pathTokens[op.pathTokens.length - 1] as string;
      if (Array.isArray(parent)) {
        const i = arrayIndex(last, parent.length);
        if (i < 0) throw missing('replace', 'key', op.path);
        parent[i] = op.value as JsonValue;
      } else {
        // Replacing in place keeps the member where it was in the object's key order.
        if (parent === undefined || getOwn(parent, last) === undefined) throw missing('replace', 'key', op.path);
        setOwn(parent, last, op.value as JsonValue);
      }
      return root;
    }
    case 'move': {
      const fromTokens = op.fromTokens as readonly string[];
      if (lookup(root, fromTokens) === undefined) throw missing('move', 'from path', op.from as string);
      // Moving onto itself is a no-op; moving into a descendant was rejected while parsing, which
      // also rules out moving the whole document anywhere but onto itself.
      if (fromTokens.length === op.pathTokens.length && isPrefix(fromTokens, op.pathTokens)) return root;
      const value = removeAt(root, fromTokens) as JsonValue;
      return addAt(root, op.pathTokens, value, 'move', op.path);
    }
    case 'copy': {
      const source = lookup(root, op.fromTokens as readonly string[]);
      if (source === undefined) throw missing('copy', 'from path', op.from as string);
      const value = cloneJson(source, budget, 'the copied value');
      if (budget.size > MAX_ACCUMULATED_COPY_SIZE) {
        throw new PatchError(
          'DKC_PATCH_INVALID',
          `Unable to complete the copy, the accumulated size increase of copy is ${budget.size}, exceeding the limit ${MAX_ACCUMULATED_COPY_SIZE}`,
        );
      }
      return addAt(root, op.pathTokens, value, 'copy', op.path);
    }
    case 'test': {
      const actual = lookup(root, op.pathTokens);
      if (actual === undefined) {
        throw new PatchError(
          'DKC_PATCH_TEST_FAILED',
          `testing value ${JSON.stringify(clip(op.path))} failed: test failed (the path does not exist)`,
        );
      }
      if (!jsonEqual(actual, op.value as JsonValue)) {
        throw new PatchError(
          'DKC_PATCH_TEST_FAILED',
          `testing value ${JSON.stringify(clip(op.path))} failed: test failed`,
        );
      }
      return root;
    }
  }
}
