// Reading and decoding request bodies: a size limit enforced while streaming (413 before buffering more),
// media types as kube-apiserver accepts them (JSON — also when no Content-Type is sent, as kubectl 1.20 does —
// YAML, Kubernetes protobuf, and patch bodies, whose types patchtypes.ts decides), and malformed input reported as a
// 400 Status.

import type { IncomingMessage } from 'node:http';
import { errors, MAX_REQUEST_BODY_BYTES } from '../api/errors.js';
import { errorMessage } from '../util/errors.js';
import { applyText } from './fieldmanager/messages.js';
import { bodyText } from './messages.js';
import type { ComposedYaml, YamlLimits } from './yamlbody.js';

export async function readBody(req: IncomingMessage, limit = MAX_REQUEST_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw errors.requestEntityTooLarge(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > limit) {
      req.resume();
      throw errors.requestEntityTooLarge(limit);
    }
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

function parseJson(buf: Buffer, what: string): unknown {
  try {
    return JSON.parse(buf.toString('utf8'));
  } catch (err) {
    throw errors.badRequest(`${what}: json parse error: ${errorMessage(err)}`);
  }
}

/** Deeper request bodies are refused before any recursive walk: every later step (patching, validation, cloning) recurses. */
export const MAX_BODY_DEPTH = 1000;

/**
 * What a YAML body may hold; a body of 3 MiB may hold a million tokens. Half JSON's depth: the yaml package's composer
 * recurses a few frames per level and overflows the stack at 650-900 levels. Node-starting tokens (scalars, aliases,
 * collection starts, `-`, `?`, `:`, `,`) cost the yaml package 2-5 µs each to lex, parse and compose, 30-60 times
 * JSON's cost, and a token of any kind (a blank line, a comment) 1-2 µs: 20,000 labels are 60,000 and 160,000 of them.
 * A body at either budget costs a few hundred milliseconds of CPU, and one past it is refused within that.
 */
export const YAML_LIMITS: YamlLimits = { depth: 500, nodes: 75_000, tokens: 200_000 };

/** A YAML body composed within the budgets (a spent budget is a 400, and costs no more than the budget's work). */
async function composeBody(buf: Buffer, what: string): Promise<ComposedYaml> {
  const { composeYaml, YamlLimitError } = await import('./yamlbody.js');
  try {
    return composeYaml(buf.toString('utf8'), YAML_LIMITS);
  } catch (err) {
    if (err instanceof YamlLimitError) throw errors.badRequest(err.text(what));
    throw err;
  }
}

async function parseYaml(buf: Buffer, what: string): Promise<unknown> {
  const composed = await composeBody(buf, 'the body of the request');
  if (composed.firstError !== undefined) throw errors.badRequest(bodyText.yamlParse(what, composed.firstError));
  let value: unknown;
  try {
    value = composed.doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    throw errors.badRequest(bodyText.yamlParse(what, errorMessage(err).split('\n')[0]!));
  }
  checkDepth(value, 'the body of the request', YAML_LIMITS.depth);
  return value;
}

/** An object body for create/update. */
export async function decodeObjectBody(buf: Buffer, contentType: string | undefined): Promise<Record<string, unknown>> {
  const mt = mediaType(contentType);
  let value: unknown;
  if (buf.length === 0) throw errors.badRequest('the body of the request was empty');
  if (mt === '' || mt === 'application/json' || mt === '*/*') {
    value = parseJson(buf, "couldn't get version/kind");
  } else if (mt === 'application/yaml' || mt === 'application/x-yaml' || mt === 'text/yaml') {
    value = await parseYaml(buf, "couldn't get version/kind");
  } else if (mt === 'application/vnd.kubernetes.protobuf') {
    const { decodeKubernetesProtobuf, ProtobufDecodeError } = await import('./protobuf.js');
    try {
      const decoded = decodeKubernetesProtobuf(buf);
      value = { apiVersion: decoded.apiVersion, kind: decoded.kind, ...decoded.object };
    } catch (err) {
      if (err instanceof ProtobufDecodeError) throw errors.badRequest(err.message);
      throw err;
    }
  } else {
    throw errors.unsupportedMediaType(contentType ?? '');
  }
  checkDepth(value, 'the body of the request');
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw errors.badRequest(
      `the body of the request must be an object, got ${Array.isArray(value) ? 'an array' : JSON.stringify(value)}`,
    );
  }
  const obj = value as Record<string, unknown>;
  if (obj['metadata'] === undefined || obj['metadata'] === null) obj['metadata'] = {};
  if (typeof obj['metadata'] !== 'object' || Array.isArray(obj['metadata'])) {
    throw errors.badRequest('metadata must be an object');
  }
  return obj;
}

export function decodePatchBody(buf: Buffer): unknown {
  if (buf.length === 0) throw errors.badRequest('the body of the request was empty');
  const patch = parseJson(buf, 'error decoding patch');
  checkDepth(patch, 'the patch');
  return patch;
}

const GO_KIND: Readonly<Record<string, string>> = {
  object: 'array',
  string: 'string',
  number: 'number',
  boolean: 'bool',
};

/**
 * A server-side apply body (YAML, of which JSON is a part) as kube-apiserver reads it: an object, repeated keys
 * allowed (the last wins); with fieldValidation Strict a repeated key is a 400, with Warn a warning.
 */
export async function decodeApplyBody(
  buf: Buffer,
  fieldValidation: 'Strict' | 'Warn' | 'Ignore',
  warnings: string[],
): Promise<Record<string, unknown>> {
  const text = buf.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const composed = await composeBody(buf, 'the patch');
    if (composed.error !== undefined) throw errors.badRequest(applyText.decodeYaml(composed.error));
    if (composed.repeatedKey !== undefined && fieldValidation !== 'Ignore') {
      if (fieldValidation === 'Strict') throw errors.badRequest(applyText.strictYaml(composed.repeatedKey));
      warnings.push(composed.repeatedKey);
    }
    try {
      value = composed.doc.toJS({ maxAliasCount: 100 });
    } catch (err) {
      throw errors.badRequest(applyText.decodeYaml(errorMessage(err).split('\n')[0]!));
    }
    checkDepth(value, 'the patch', YAML_LIMITS.depth);
  }
  checkDepth(value, 'the patch');
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    const kind = GO_KIND[Array.isArray(value) ? 'object' : typeof value] ?? 'value';
    throw errors.badRequest(
      `error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`,
    );
  }
  return value as Record<string, unknown>;
}

/** The nesting depth of a JSON value, up to `limit + 1` (iterative: safe for any input). */
export function jsonDepth(value: unknown, limit = MAX_BODY_DEPTH): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d > max) max = d;
    if (max > limit) return max;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
}

export function checkDepth(value: unknown, what: string, limit = MAX_BODY_DEPTH): void {
  if (jsonDepth(value, limit) > limit) throw errors.badRequest(bodyText.tooDeep(what, limit));
}
