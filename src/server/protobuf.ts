// Decoding of Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`): the `k8s\0`
// envelope around a runtime.Unknown whose `raw` bytes are the object's own message. kubectl ≥1.32 sends
// typed creates (notably `create configmap`) this way and treats a 415 as fatal, so the server turns such
// bodies into exactly the JSON object an older kubectl would have posted and handles both alike.
//
// The wire schema comes from the schema facts of the served kinds, turned into a protobufjs reflection
// root. protobufjs is loaded on the first protobuf body only: almost every request is JSON.

import { createRequire } from 'node:module';
import type * as Protobuf from 'protobufjs';
import { isScalarType, kindFact, schemaFacts, typeFact, type TypeFact } from './schema/facts.js';
import { CodedError, errorMessage } from '../util/errors.js';

/** Why a body was rejected; lets the HTTP layer choose between 400 and 415 without parsing messages. */
export type ProtobufDecodeReason =
  'BadPrefix' | 'Malformed' | 'MissingKind' | 'MissingVersion' | 'NotRegistered' | 'UnsupportedEncoding';

/** The only error decodeKubernetesProtobuf throws: a request body that is not the protobuf it claims to be. */
export class ProtobufDecodeError extends CodedError<'DKC_SERVER_INVALID_PROTOBUF'> {
  override name = 'ProtobufDecodeError';
  readonly reason: ProtobufDecodeReason;

  constructor(reason: ProtobufDecodeReason, message: string) {
    super('DKC_SERVER_INVALID_PROTOBUF', message);
    this.reason = reason;
  }
}

export interface DecodedObject {
  apiVersion: string;
  kind: string;
  /** The object in its JSON form, `kind` and `apiVersion` included. */
  object: Record<string, unknown>;
}

/** `k8s\0`, the prefix of every Kubernetes protobuf payload. */
export const KUBERNETES_PROTOBUF_MAGIC: readonly number[] = [0x6b, 0x38, 0x73, 0x00];

// ---------------------------------------------------------------------------------------------------
// Schema
//
// The wire schema is derived from the schema facts (schema/kinds.ts, generated from upstream's
// generated.proto and Go types). Fields keep Go struct order so that the JSON keys come out in the order
// encoding/json writes them, and each field carries its Go JSON behaviour, which protobuf cannot express:
//   omitempty  a zero scalar and an empty list or map are left out; an embedded struct is always written,
//              as encoding/json never omits a struct value;
//   keep       no omitempty: the value is written even when zero (an empty list or map as null);
//   ptr        a Go pointer: written whenever the field was on the wire, zero or not.
// meta.Time and meta.MicroTime are written as RFC 3339 strings and left out when zero (Go would write
// null there, which every reader treats like absence).

const UNKNOWN = 'k8s.io.apimachinery.pkg.runtime.Unknown';

interface JsonField {
  id: number;
  type: string;
  rule?: 'repeated';
  keyType?: 'string';
  options?: { go?: 'keep' | 'ptr'; inline?: boolean };
}

function protoTypeOf(type: string): string {
  return isScalarType(type) ? type : `.${typeFact(type).proto}`;
}

function messageFields(t: TypeFact): Record<string, JsonField> {
  const out: Record<string, JsonField> = {};
  if (t.fields !== undefined) {
    // An embedded struct is one message field on the wire; its fields are read from that message.
    for (const e of t.embeds ?? []) out[e.name] = { id: e.id, type: protoTypeOf(e.type), options: { inline: true } };
    for (const f of t.fields) {
      if (f.embedded !== undefined) continue;
      const field: JsonField = { id: f.id, type: protoTypeOf(f.type) };
      if (f.list === true) field.rule = 'repeated';
      if (f.map === true) field.keyType = 'string';
      if (f.go !== 'omitempty') field.options = { go: f.go };
      out[f.name] = field;
    }
  } else {
    for (const f of t.wire ?? []) {
      out[f.name] = { id: f.id, type: protoTypeOf(f.type), ...(f.list === true ? { rule: 'repeated' as const } : {}) };
    }
  }
  return out;
}

/** Builds a protobufjs JSON descriptor (INamespace) of every message in the schema facts. */
function descriptor(): Protobuf.INamespace {
  const root: Protobuf.INamespace = { nested: {} };
  for (const t of Object.values(schemaFacts.types)) {
    const parts = t.proto.split('.');
    let ns = root;
    for (const part of parts.slice(0, -1)) {
      ns.nested ??= {};
      ns = ns.nested[part] ??= { nested: {} };
    }
    ns.nested ??= {};
    ns.nested[parts[parts.length - 1] as string] = { fields: messageFields(t) };
  }
  return root;
}

/** The message of a served kind that may arrive in a body, i.e. what this decoder has "registered". */
function registeredMessage(apiVersion: string, kind: string): string | undefined {
  const k = kindFact(apiVersion, kind);
  return k === undefined || k.partial === true ? undefined : typeFact(k.type).proto;
}

// ---------------------------------------------------------------------------------------------------
// Lazy loading

interface Loaded {
  pb: typeof Protobuf;
  root: Protobuf.Root;
}

let loaded: Loaded | undefined;

function load(): Loaded {
  if (loaded === undefined) {
    // The light build has reflection and the reader without the .proto parser; a synchronous require
    // keeps the decoder synchronous for the request handler.
    const pb = createRequire(import.meta.url)('protobufjs/light.js') as typeof Protobuf;
    const root = pb.Root.fromJSON(descriptor());
    root.resolveAll();
    loaded = { pb, root };
  }
  return loaded;
}

/**
 * The protobufjs reflection root of the wire schema (package names as upstream's, e.g.
 * `k8s.io.api.core.v1.ConfigMap`), for encoding Kubernetes protobuf messages.
 */
export function kubernetesProtobufRoot(): Protobuf.Root {
  return load().root;
}

// ---------------------------------------------------------------------------------------------------
// Wire decoding
//
// Fields are walked by hand over protobufjs' Reader instead of Type.decode: the generated decoder does not
// check wire types (a varint where a string is expected is silently misread, where Go reports an error),
// and the walk also records which fields were present, which the Go JSON flags need.

type Wire = Map<number, unknown>;
const WIRE_VARINT = 0;
const WIRE_LEN = 2;
const MAX_DEPTH = 32;
const PACKABLE = new Set(['bool', 'int32', 'int64']);

const utf8 = new TextDecoder('utf-8', { fatal: false });

function fail(message: string): never {
  throw new ProtobufDecodeError('Malformed', message);
}

function isScalar(type: string): boolean {
  return isScalarType(type);
}

function readScalar(r: Protobuf.Reader, type: string, wireType: number, field: string): unknown {
  const expected = type === 'string' || type === 'bytes' ? WIRE_LEN : WIRE_VARINT;
  if (wireType !== expected) fail(`proto: wrong wireType = ${wireType} for field ${field}`);
  switch (type) {
    case 'string':
      // Go keeps the raw bytes and its JSON encoder replaces invalid UTF-8 with U+FFFD; so does this.
      return utf8.decode(r.bytes());
    case 'bytes':
      return r.bytes();
    case 'bool':
      return r.bool();
    case 'int32':
      return r.int32();
    default: {
      const v: unknown = r.int64();
      if (typeof v === 'number') return v;
      const long = v as { low: number; high: number };
      return Number(BigInt.asIntN(64, (BigInt(long.high >>> 0) << 32n) | BigInt(long.low >>> 0)));
    }
  }
}

function readMessage(r: Protobuf.Reader, type: Protobuf.Type, depth: number, into: Wire = new Map()): Wire {
  if (depth > MAX_DEPTH) fail('proto: message nesting too deep');
  const byId = type.fieldsById;
  while (r.pos < r.len) {
    const tag = r.uint32();
    const id = tag >>> 3;
    const wireType = tag & 7;
    if (id === 0) fail(`proto: ${type.name}: illegal tag 0 (wire type ${wireType})`);
    const field = byId[id];
    if (field === undefined) {
      r.skipType(wireType, depth);
      continue;
    }
    if (field.map) {
      if (wireType !== WIRE_LEN) fail(`proto: wrong wireType = ${wireType} for field ${field.name}`);
      let entries = into.get(id) as Map<string, unknown> | undefined;
      if (entries === undefined) into.set(id, (entries = new Map()));
      const [key, value] = readMapEntry(r, field, depth + 1);
      entries.delete(key);
      entries.set(key, value);
    } else if (field.repeated && wireType === WIRE_LEN && PACKABLE.has(field.type)) {
      // A packed run of numbers, which Go's Unmarshal accepts for a repeated scalar as well as one value a tag.
      withinLength(r, () => {
        while (r.pos < r.len) pushTo(into, id, readScalar(r, field.type, WIRE_VARINT, field.name));
      });
    } else if (isScalar(field.type)) {
      const value = readScalar(r, field.type, wireType, field.name);
      if (field.repeated) pushTo(into, id, value);
      else into.set(id, value);
    } else {
      if (wireType !== WIRE_LEN) fail(`proto: wrong wireType = ${wireType} for field ${field.name}`);
      const sub = field.resolvedType as Protobuf.Type;
      if (field.repeated) {
        pushTo(
          into,
          id,
          withinLength(r, () => readMessage(r, sub, depth + 1)),
        );
      } else {
        // A repeated occurrence of an embedded message merges into the first, as Go's Unmarshal does.
        const existing = into.get(id) as Wire | undefined;
        into.set(
          id,
          withinLength(r, () => readMessage(r, sub, depth + 1, existing)),
        );
      }
    }
  }
  return into;
}

function pushTo(into: Wire, id: number, value: unknown): void {
  const list = into.get(id) as unknown[] | undefined;
  if (list === undefined) into.set(id, [value]);
  else list.push(value);
}

/** Runs `read` with the reader limited to the next length-delimited payload. */
function withinLength<T>(r: Protobuf.Reader, read: () => T): T {
  const length = r.uint32();
  const end = r.pos + length;
  if (end > r.len) fail(`proto: unexpected EOF (length ${length} at offset ${r.pos} exceeds the message)`);
  const outer = r.len;
  r.len = end;
  const value = read();
  r.len = outer;
  return value;
}

function readMapEntry(r: Protobuf.Reader, field: Protobuf.Field, depth: number): [string, unknown] {
  return withinLength(r, () => {
    let key = '';
    let value: unknown;
    while (r.pos < r.len) {
      const tag = r.uint32();
      const wireType = tag & 7;
      switch (tag >>> 3) {
        case 1:
          key = readScalar(r, 'string', wireType, `${field.name} key`) as string;
          break;
        case 2:
          if (isScalar(field.type)) value = readScalar(r, field.type, wireType, `${field.name} value`);
          else {
            if (wireType !== WIRE_LEN) fail(`proto: wrong wireType = ${wireType} for field ${field.name} value`);
            value = withinLength(r, () => readMessage(r, field.resolvedType as Protobuf.Type, depth + 1));
          }
          break;
        case 0:
          fail(`proto: ${field.name} entry: illegal tag 0 (wire type ${wireType})`);
        default:
          r.skipType(wireType, depth);
      }
    }
    return [key, value];
  });
}

// ---------------------------------------------------------------------------------------------------
// Go JSON rendering

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1.';
const TIME_TYPES = new Set([`${META}Time`, `${META}MicroTime`]);
const QUANTITY = 'k8s.io.apimachinery.pkg.api.resource.Quantity';
const INT_OR_STRING = 'k8s.io.apimachinery.pkg.util.intstr.IntOrString';
const RAW_EXTENSION = 'k8s.io.apimachinery.pkg.runtime.RawExtension';
const EXTRA_VALUES = new Set(['k8s.io.api.authorization.v1.ExtraValue', 'k8s.io.api.authentication.v1.ExtraValue']);
const MIN_SECONDS = -62167219200; // 0000-01-01T00:00:00Z
const MAX_SECONDS = 253402300799; // 9999-12-31T23:59:59Z

function renderTime(wire: Wire | undefined, micro: boolean): string | undefined {
  if (wire === undefined || (!wire.has(1) && !wire.has(2))) return undefined;
  let seconds = (wire.get(1) as number | undefined) ?? 0;
  let nanos = (wire.get(2) as number | undefined) ?? 0;
  // metav1.Time keeps whole seconds only; MicroTime keeps microseconds. time.Unix normalises nanos.
  seconds += Math.floor(nanos / 1e9);
  nanos = ((nanos % 1e9) + 1e9) % 1e9;
  if (!Number.isSafeInteger(seconds) || seconds < MIN_SECONDS || seconds > MAX_SECONDS) {
    fail(`Time.MarshalJSON: year outside of range [0,9999] (seconds ${seconds})`);
  }
  const iso = new Date(seconds * 1000).toISOString().slice(0, 19);
  if (!micro) return `${iso}Z`;
  return `${iso}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
}

function isZero(value: unknown): boolean {
  return value === '' || value === 0 || value === false || value === undefined;
}

/** Defines a key even when it is `__proto__`: ConfigMap keys such as that one are valid and must survive. */
function setKey(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

function renderValue(field: Protobuf.Field, raw: unknown): unknown {
  if (isScalar(field.type)) {
    return field.type === 'bytes' ? Buffer.from(raw as Uint8Array).toString('base64') : raw;
  }
  return renderMessage(field.resolvedType as Protobuf.Type, raw as Wire);
}

/** JSON bytes carried in a bytes field (FieldsV1, RawExtension); `empty` when there are none. */
function parseEmbedded(raw: Uint8Array | undefined, empty: unknown, what: string): unknown {
  if (raw === undefined || raw.length === 0) return empty;
  try {
    return JSON.parse(utf8.decode(raw)) as unknown;
  } catch {
    fail(`proto: ${what} holds invalid JSON`);
  }
}

function renderMessage(type: Protobuf.Type, wire: Wire | undefined): unknown {
  const name = type.fullName.slice(1);
  if (TIME_TYPES.has(name)) return renderTime(wire, name.endsWith('MicroTime'));
  if (name === QUANTITY) return wire?.get(1) || '0';
  // intstr.IntOrString: type 1 is a string, anything else the integer.
  if (name === INT_OR_STRING) return wire?.get(1) === 1 ? (wire.get(3) ?? '') : (wire?.get(2) ?? 0);
  // A Go named slice, wrapped in a message with `items` on the wire.
  if (EXTRA_VALUES.has(name)) return wire?.get(1) ?? [];
  // runtime.RawExtension: its JSON is the embedded object itself (a ControllerRevision's data).
  if (name === RAW_EXTENSION) return parseEmbedded(wire?.get(1) as Uint8Array | undefined, null, 'RawExtension');
  if (name === `${META}FieldsV1`) return parseEmbedded(wire?.get(1) as Uint8Array | undefined, {}, 'FieldsV1');
  const out: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    const options = field.options as { go?: string; inline?: boolean } | undefined;
    const go = options?.go;
    const present = wire !== undefined && wire.has(field.id);
    const raw = wire?.get(field.id);
    if (options?.inline === true) {
      // Go's JSON writes an embedded struct's fields in the outer object.
      Object.assign(out, renderMessage(field.resolvedType as Protobuf.Type, raw as Wire | undefined));
    } else if (field.map) {
      const entries = raw as Map<string, unknown> | undefined;
      if (entries === undefined || entries.size === 0) {
        // Go unmarshals no entries as a nil map, which a field without omitempty writes as null.
        if (go === 'keep') out[field.name] = null;
        continue;
      }
      const obj: Record<string, unknown> = {};
      // encoding/json writes map keys sorted.
      for (const key of [...entries.keys()].sort()) {
        const v = entries.get(key);
        setKey(obj, key, renderMapValue(field, v));
      }
      out[field.name] = obj;
    } else if (field.repeated) {
      const list = raw as unknown[] | undefined;
      if (list === undefined || list.length === 0) {
        // A nil slice, as Go unmarshals no elements: null without omitempty, as a JSON client sends it.
        if (go === 'keep') out[field.name] = null;
        continue;
      }
      out[field.name] = list.map((item) => renderValue(field, item));
    } else if (isScalar(field.type)) {
      if (go === 'ptr' ? !present : go !== 'keep' && isZero(raw)) continue;
      out[field.name] = present ? renderValue(field, raw) : zeroOf(field.type);
    } else {
      if (go === 'ptr' && !present) continue;
      const value = renderMessage(field.resolvedType as Protobuf.Type, raw as Wire | undefined);
      if (value === undefined) continue;
      out[field.name] = value;
    }
  }
  return out;
}

function renderMapValue(field: Protobuf.Field, value: unknown): unknown {
  if (value !== undefined) return renderValue(field, value);
  if (isScalar(field.type)) return field.type === 'bytes' ? '' : zeroOf(field.type);
  return renderMessage(field.resolvedType as Protobuf.Type, undefined);
}

function zeroOf(type: string): unknown {
  switch (type) {
    case 'string':
    case 'bytes':
      return '';
    case 'bool':
      return false;
    default:
      return 0;
  }
}

// ---------------------------------------------------------------------------------------------------
// Entry point

/** True when the body starts with the Kubernetes protobuf prefix. */
export function hasKubernetesProtobufMagic(body: Uint8Array): boolean {
  return body.length >= 4 && KUBERNETES_PROTOBUF_MAGIC.every((b, i) => body[i] === b);
}

/**
 * Decodes a `k8s\0` + runtime.Unknown body into the JSON object a JSON client would have sent.
 * Throws ProtobufDecodeError, and nothing else, for any body it cannot accept.
 */
export function decodeKubernetesProtobuf(body: Uint8Array): DecodedObject {
  if (!hasKubernetesProtobufMagic(body)) {
    throw new ProtobufDecodeError(
      'BadPrefix',
      'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]',
    );
  }
  try {
    return decodeEnvelope(body);
  } catch (err) {
    if (err instanceof ProtobufDecodeError) throw err;
    // protobufjs reports truncation as RangeError and bad wire types as Error; anything else here
    // (stack exhaustion included) is equally a body we cannot read.
    const detail = errorMessage(err);
    throw new ProtobufDecodeError('Malformed', `unable to decode protobuf body: ${detail}`);
  }
}

function decodeEnvelope(body: Uint8Array): DecodedObject {
  const { pb, root } = load();
  // A plain Uint8Array view, never a Buffer: protobufjs' BufferReader clamps over-long strings
  // instead of reporting the truncation.
  const view = new Uint8Array(body.buffer, body.byteOffset + 4, body.byteLength - 4);
  const unknown = readMessage(new pb.Reader(view), root.lookupType(UNKNOWN), 0);
  const typeMeta = unknown.get(1) as Wire | undefined;
  const apiVersion = (typeMeta?.get(1) as string | undefined) ?? '';
  const kind = (typeMeta?.get(2) as string | undefined) ?? '';
  // Worded like runtime.NewMissingKindErr, which prints the TypeMeta with %#v.
  const shown = `runtime.TypeMeta{APIVersion:${JSON.stringify(apiVersion)}, Kind:${JSON.stringify(kind)}}`;
  if (kind === '') throw new ProtobufDecodeError('MissingKind', `Object 'Kind' is missing in '${shown}'`);
  if (apiVersion === '') {
    throw new ProtobufDecodeError('MissingVersion', `Object 'apiVersion' is missing in '${shown}'`);
  }
  const encoding = (unknown.get(3) as string | undefined) ?? '';
  if (encoding !== '') {
    throw new ProtobufDecodeError(
      'UnsupportedEncoding',
      `unsupported protobuf content encoding ${JSON.stringify(encoding)}`,
    );
  }
  const message = registeredMessage(apiVersion, kind);
  if (message === undefined) {
    throw new ProtobufDecodeError(
      'NotRegistered',
      `no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)}`,
    );
  }
  const raw = (unknown.get(2) as Uint8Array | undefined) ?? new Uint8Array(0);
  const rawView = new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength);
  const type = root.lookupType(message);
  const wire = readMessage(new pb.Reader(rawView), type, 0);
  const rendered = renderMessage(type, wire) as Record<string, unknown>;
  return { apiVersion, kind, object: { kind, apiVersion, ...rendered } };
}
