// managedFields as the store keeps them (ADR 32). Everywhere else — requests, responses, watch events, the field
// manager — an entry is kube's ManagedFieldsEntry; in the stored bytes it is a compact array
// `[manager, operation, apiVersion, time, fields, subresource?]`, with the time in Unix seconds and the FieldsV1 set
// written as a path trie in one string, where a subtree that holds exactly every field of the object below it is
// written as `name*` (or `name*.` when each of its inner nodes is a member too). kube-apiserver keeps the entries in
// protobuf, whose field numbers stand in for the key names; this form does the same for JSON and also leans on the
// object the entries describe, so the fields a manager owns are not spelled twice.
//
// The compact form is exact: an entry is stored compact only when expanding it again gives the very same JSON text,
// and is kept as it was otherwise (an entry written by an older server, an unusual time). Reading either form gives
// the same entries, so stored objects of both forms live side by side.

import { formatTime } from '../../util/clock.js';
import { isEmptySet, type FieldSet } from './fieldset.js';
import { SELF } from './pathelement.js';

type Json = Record<string, unknown>;
type CompactEntry =
  [string, string, string, number | string, string] | [string, string, string, number | string, string, string];

const ENTRY_KEYS = ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource'];
const SPECIAL = /[\\,()*]/g;
const SIMPLE = /^[A-Za-z0-9._/-]+$/;
/** Where a name in the trie ends (or an escape begins). */
const NAME_END = /[\\,()*]/g;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The object the fields are read against: as stored, without its managedFields and resourceVersion. */
function fieldsView(obj: Json): Json {
  const meta = isObject(obj['metadata']) ? obj['metadata'] : {};
  const { managedFields: _m, resourceVersion: _rv, ...rest } = meta;
  return { ...obj, metadata: rest };
}

/**
 * Every field of `value` as a FieldSet (JSON's view: undefined members are absent), "." on inner nodes if `dots`; in
 * FieldsV1's order ("." first, then the fields by name), as the set it stands for was stored.
 */
function fieldsOf(value: Json, dots: boolean): FieldSet {
  const names = Object.keys(value).filter((k) => value[k] !== undefined);
  const out: FieldSet = {};
  if (dots && names.length > 0) out[SELF] = {};
  for (const k of names.sort()) {
    const v = value[k];
    out[`f:${k}`] = isObject(v) ? fieldsOf(v, dots) : {};
  }
  return out;
}

function hasDefinedField(value: Json): boolean {
  for (const k in value) if (value[k] !== undefined) return true;
  return false;
}

/** Whether `set` is exactly `fieldsOf(value, dots)`, without building it. */
function isFieldsOf(set: FieldSet, value: Json, dots: boolean): boolean {
  // "." is asked first: a map node of thousands of entries without it is answered at once, not after walking them.
  const hasSelf = set[SELF] !== undefined;
  if (!dots && hasSelf) return false;
  if (dots && !hasSelf && hasDefinedField(value)) return false;
  let n = 0;
  for (const k in value) {
    const v = value[k];
    if (v === undefined) continue;
    n++;
    const child = set[`f:${k}`];
    if (child === undefined) return false;
    if (isObject(v) ? !isFieldsOf(child, v, dots) : !isEmptySet(child)) return false;
  }
  if (dots && n > 0) {
    const self = set[SELF];
    if (self === undefined || !isEmptySet(self)) return false;
    n++;
  }
  for (const _ in set) n--;
  return n === 0;
}

function nameOf(pe: string): string {
  if (pe === SELF) return SELF;
  const field = pe.startsWith('f:') ? pe.slice(2) : undefined;
  if (field !== undefined && field !== '' && !/^[.~@]/.test(field)) return field.replace(SPECIAL, '\\$&');
  if (pe.startsWith('k:')) {
    const key = simpleKey(pe);
    if (key) return `@${key[0]}=${key[1]}`;
  }
  return `~${pe}`.replace(SPECIAL, '\\$&');
}

/** A list element's key of one string field, both plain words: `k:{"type":"Ready"}` → ['type', 'Ready']. */
function simpleKey(pe: string): [string, string] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(pe.slice(2));
  } catch {
    return undefined;
  }
  if (!isObject(parsed)) return undefined;
  const entries = Object.entries(parsed);
  if (entries.length !== 1) return undefined;
  const [field, value] = entries[0]!;
  if (typeof value !== 'string' || !SIMPLE.test(field) || !SIMPLE.test(value)) return undefined;
  return `k:${JSON.stringify({ [field]: value })}` === pe ? [field, value] : undefined;
}

function elementOf(name: string): string {
  if (name === SELF) return SELF;
  if (name.startsWith('~')) return name.slice(1);
  if (name.startsWith('@')) {
    const eq = name.indexOf('=');
    return `k:${JSON.stringify({ [name.slice(1, eq)]: name.slice(eq + 1) })}`;
  }
  return `f:${name}`;
}

/** The object's value below a field, when it is an object the shorthand can read. */
function valueBelow(value: Json | undefined, pe: string): Json | undefined {
  if (!value || !pe.startsWith('f:')) return undefined;
  const v = value[pe.slice(2)];
  return isObject(v) ? v : undefined;
}

function writeSet(set: FieldSet, value: Json | undefined): string {
  const parts: string[] = [];
  for (const [pe, child] of Object.entries(set)) {
    const name = nameOf(pe);
    const sub = valueBelow(value, pe);
    if (isEmptySet(child)) {
      parts.push(name);
    } else if (sub && isFieldsOf(child, sub, true)) {
      parts.push(`${name}*.`);
    } else if (sub && isFieldsOf(child, sub, false)) {
      parts.push(`${name}*`);
    } else {
      parts.push(`${name}(${writeSet(child, sub)})`);
    }
  }
  return parts.join(',');
}

class TrieReader {
  private pos = 0;
  constructor(private readonly text: string) {}

  /** The set, in the order it was written (the encoder wrote it in FieldsV1's order and checked it reads back so). */
  read(value: Json | undefined): FieldSet {
    const set = this.readList(value);
    if (this.pos !== this.text.length) throw this.corrupt();
    return set;
  }

  private readList(value: Json | undefined): FieldSet {
    const set: FieldSet = {};
    if (this.text[this.pos] === ')' || this.pos === this.text.length) return set;
    for (;;) {
      const pe = elementOf(this.readName());
      set[pe] = this.readNode(valueBelow(value, pe));
      if (this.text[this.pos] !== ',') return set;
      this.pos++;
    }
  }

  private readNode(sub: Json | undefined): FieldSet {
    const c = this.text[this.pos];
    if (c === '*') {
      this.pos++;
      const dots = this.text[this.pos] === SELF;
      if (dots) this.pos++;
      if (!sub) throw this.corrupt();
      return fieldsOf(sub, dots);
    }
    if (c !== '(') return {};
    this.pos++;
    const children = this.readList(sub);
    if (this.text[this.pos] !== ')') throw this.corrupt();
    this.pos++;
    return children;
  }

  private readName(): string {
    let name = '';
    for (;;) {
      NAME_END.lastIndex = this.pos;
      const end = NAME_END.exec(this.text)?.index ?? this.text.length;
      name += this.text.slice(this.pos, end);
      this.pos = end;
      if (this.text[end] !== '\\') break;
      name += this.text[end + 1] ?? '';
      this.pos = end + 2;
    }
    if (name === '') throw this.corrupt();
    return name;
  }

  private corrupt(): Error {
    return new Error(`stored managedFields are corrupt at offset ${this.pos} of ${JSON.stringify(this.text)}`);
  }
}

function compactTime(time: unknown): number | string | undefined {
  if (typeof time !== 'string') return undefined;
  const ms = Date.parse(time);
  return Number.isFinite(ms) && formatTime(new Date(ms)) === time ? ms / 1000 : time;
}

function expandEntry(e: CompactEntry, view: Json): Json {
  const [manager, operation, apiVersion, time, fields, subresource] = e;
  return {
    ...(manager !== '' ? { manager } : {}),
    operation,
    apiVersion,
    ...(time !== '' ? { time: typeof time === 'number' ? formatTime(new Date(time * 1000)) : time } : {}),
    fieldsType: 'FieldsV1',
    fieldsV1: new TrieReader(fields).read(view),
    ...(subresource !== undefined ? { subresource } : {}),
  };
}

/** The entry's compact form, or the entry itself when the compact form would not give it back exactly. */
function compactEntry(entry: unknown, view: Json): unknown {
  if (!isObject(entry) || !isObject(entry['fieldsV1']) || entry['fieldsType'] !== 'FieldsV1') return entry;
  const keys = Object.keys(entry);
  const order = keys.map((k) => ENTRY_KEYS.indexOf(k));
  if (order.some((o, i) => o < 0 || (i > 0 && o <= order[i - 1]!))) return entry;
  const { manager = '', operation, apiVersion, time, subresource } = entry;
  if (typeof manager !== 'string' || typeof operation !== 'string' || typeof apiVersion !== 'string') return entry;
  if (subresource !== undefined && typeof subresource !== 'string') return entry;
  // An empty manager or time would read back as absent.
  if (entry['manager'] === '' || time === '') return entry;
  const t = time === undefined ? '' : compactTime(time);
  if (t === undefined) return entry;
  const head = [manager, operation, apiVersion, t, writeSet(entry['fieldsV1'] as FieldSet, view)] as const;
  const compact: CompactEntry = subresource === undefined ? [...head] : [...head, subresource];
  // The head reads back as it was by construction; the set is checked, keys in order, as its JSON would be.
  return sameSet(new TrieReader(compact[4]).read(view), entry['fieldsV1']) ? compact : entry;
}

/** Whether `read` is `original`, key for key in the same order (what their JSON texts being equal means for sets). */
function sameSet(read: FieldSet, original: unknown): boolean {
  if (!isObject(original)) return false;
  const a = Object.keys(read);
  const b = Object.keys(original);
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] || !sameSet(read[a[i]!]!, original[b[i]!])) return false;
  return true;
}

/** The managedFields to store for the object `stored` (as it will be stored, its managedFields included). */
export function storedManagedFields(stored: Json): unknown {
  const entries = isObject(stored['metadata']) ? stored['metadata']['managedFields'] : undefined;
  if (!Array.isArray(entries)) return entries;
  const view = fieldsView(stored);
  return entries.map((e) => compactEntry(e, view));
}

/**
 * Turns the stored managedFields of a freshly decoded object back into kube's entries, in place. `written`, when the
 * object was just stored by this process, is the managedFields it was stored from: a compact entry is the entry at
 * its place there (compactEntry keeps an entry compact only when it reads back as exactly that), without reading
 * the trie again.
 */
export function expandStoredManagedFields(obj: Json, written?: readonly unknown[]): void {
  const meta = obj['metadata'];
  if (!isObject(meta) || !Array.isArray(meta['managedFields'])) return;
  const entries = meta['managedFields'] as unknown[];
  if (!entries.some(Array.isArray)) return;
  const known = written?.length === entries.length ? written : undefined;
  const view = known ? {} : fieldsView(obj);
  meta['managedFields'] = entries.map((e, i) =>
    Array.isArray(e) ? (known ? known[i] : expandEntry(e as CompactEntry, view)) : e,
  );
}
