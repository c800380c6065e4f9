// The text formats: a neutral document tree, strict JSON read/write, and YAML read/write with go-yaml v2's
// semantics — what the kubelet's codec sees and writes. One module for both formats for start-up cost.

import { compareGoStrings, goFloat32G, goJSONFloat, goJSONString } from './values.js';
import { CodedError, errorMessage } from '../util/errors.js';
import { anyText } from '../util/text.js';
import { ErrorCodes } from './errors.js';

// =========================================================================================================
// JSON, and the document tree every format is read into. The reader accepts exactly RFC 8259 JSON and reports
// syntax errors in encoding/json's words ("invalid character '0' looking for beginning of object key
// string"), because a payload such as `{0xdeadbeef}` must fail with the message the kubelet logs. It also
// records duplicate keys, which the kubelet's strict pass turns into a warning.

// The neutral document tree between the text formats and the typed decoder: what Go's decoders see after
// sigs.k8s.io/yaml has turned YAML into JSON. Numbers keep their literal text (an int32 field must reject
// "1.0" from JSON but accept 1.0 from YAML, which arrives as "1"), object entries keep their order and any
// duplicates (JSON duplicates merge into the same Go struct, YAML duplicates are collapsed earlier).

export type JNode =
  | { readonly t: 'null' }
  | { readonly t: 'bool'; readonly v: boolean }
  | { readonly t: 'num'; readonly raw: string }
  /** `raw` is the literal between the quotes when it contained escapes (Quantity reads raw bytes). */
  | { readonly t: 'str'; readonly v: string; readonly raw?: string }
  | { readonly t: 'arr'; readonly items: readonly JNode[] }
  | { readonly t: 'obj'; readonly entries: ReadonlyArray<readonly [string, JNode]> };

/** The first byte of the node's JSON text, which json-iterator quotes in its type errors. */
export function firstChar(n: JNode): string {
  switch (n.t) {
    case 'null':
      return 'n';
    case 'bool':
      return n.v ? 't' : 'f';
    case 'num':
      return n.raw[0] ?? '0';
    case 'str':
      return '"';
    case 'arr':
      return '[';
    case 'obj':
      return '{';
  }
}

/** encoding/json's name for the JSON type in UnmarshalTypeError messages. */
export function jsonTypeName(n: JNode): string {
  switch (n.t) {
    case 'null':
      return 'null';
    case 'bool':
      return 'bool';
    case 'num':
      return 'number';
    case 'str':
      return 'string';
    case 'arr':
      return 'array';
    case 'obj':
      return 'object';
  }
}

export function childPath(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

export class JSONSyntaxError extends CodedError<typeof ErrorCodes.Syntax> {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCodes.Syntax, message, options);
  }
}

const WS = new Set([' ', '\t', '\n', '\r']);

/** encoding/json's quoteChar: the offending character in single quotes. */
function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return `'"'`;
  const q = JSON.stringify(c);
  return `'${q.slice(1, -1)}'`;
}

export interface ParsedJSON {
  node: JNode;
  /** Paths of keys repeated within one object, in document order. */
  duplicates: string[];
}

export function parseJSON(text: string): ParsedJSON {
  let i = 0;
  const n = text.length;
  const duplicates: string[] = [];

  const eof = (): never => {
    throw new JSONSyntaxError('unexpected end of JSON input');
  };
  const bad = (context: string): never => {
    throw new JSONSyntaxError(`invalid character ${quoteChar(text[i]!)} ${context}`);
  };
  const skipWS = () => {
    while (i < n && WS.has(text[i]!)) i++;
  };

  const literal = (word: string, node: JNode): JNode => {
    for (let k = 0; k < word.length; k++, i++) {
      if (i >= n) eof();
      if (text[i] !== word[k]) bad(`in literal ${word} (expecting ${quoteChar(word[k]!)})`);
    }
    return node;
  };

  const digits = (context: string) => {
    if (i >= n) eof();
    if (text[i]! < '0' || text[i]! > '9') bad(context);
    while (i < n && text[i]! >= '0' && text[i]! <= '9') i++;
  };

  const number = (): JNode => {
    const start = i;
    if (text[i] === '-') {
      i++;
      if (i >= n) eof();
      if (text[i]! < '0' || text[i]! > '9') bad('in numeric literal');
    }
    if (text[i] === '0') i++;
    else digits('in numeric literal');
    if (i < n && text[i] === '.') {
      i++;
      digits('after decimal point in numeric literal');
    }
    if (i < n && (text[i] === 'e' || text[i] === 'E')) {
      i++;
      if (i < n && (text[i] === '+' || text[i] === '-')) i++;
      digits('in exponent of numeric literal');
    }
    return { t: 'num', raw: text.slice(start, i) };
  };

  const string = (): { v: string; raw?: string } => {
    i++; // opening quote
    const start = i;
    let out = '';
    let escaped = false;
    let seg = i;
    for (;;) {
      if (i >= n) eof();
      const c = text[i]!;
      if (c === '"') {
        out += text.slice(seg, i);
        const raw = text.slice(start, i);
        i++;
        return escaped ? { v: out, raw } : { v: out };
      }
      if (c < ' ') bad('in string literal');
      if (c === '\\') {
        escaped = true;
        out += text.slice(seg, i);
        i++;
        if (i >= n) eof();
        const e = text[i]!;
        const simple: Record<string, string> = {
          '"': '"',
          '\\': '\\',
          '/': '/',
          b: '\b',
          f: '\f',
          n: '\n',
          r: '\r',
          t: '\t',
        };
        if (e in simple) {
          out += simple[e];
          i++;
        } else if (e === 'u') {
          i++;
          let code = 0;
          for (let k = 0; k < 4; k++, i++) {
            if (i >= n) eof();
            const h = parseInt(text[i]!, 16);
            if (Number.isNaN(h)) bad('in \\u hexadecimal character escape');
            code = code * 16 + h;
          }
          out += String.fromCharCode(code);
        } else bad('in string escape code');
        seg = i;
        continue;
      }
      i++;
    }
  };

  const value = (path: string, depth: number): JNode => {
    if (depth > 10000) throw new JSONSyntaxError('exceeded max depth');
    skipWS();
    if (i >= n) eof();
    const c = text[i]!;
    if (c === '{') return object(path, depth);
    if (c === '[') return array(path, depth);
    if (c === '"') {
      const s = string();
      return s.raw !== undefined ? { t: 'str', v: s.v, raw: s.raw } : { t: 'str', v: s.v };
    }
    if (c === '-' || (c >= '0' && c <= '9')) return number();
    if (c === 't') return literal('true', { t: 'bool', v: true });
    if (c === 'f') return literal('false', { t: 'bool', v: false });
    if (c === 'n') return literal('null', { t: 'null' });
    return bad('looking for beginning of value');
  };

  const object = (path: string, depth: number): JNode => {
    i++;
    const entries: Array<readonly [string, JNode]> = [];
    const seen = new Set<string>();
    skipWS();
    if (i >= n) eof();
    if (text[i] === '}') {
      i++;
      return { t: 'obj', entries };
    }
    for (;;) {
      skipWS();
      if (i >= n) eof();
      if (text[i] !== '"') bad('looking for beginning of object key string');
      const key = string().v;
      skipWS();
      if (i >= n) eof();
      if (text[i] !== ':') bad('after object key');
      i++;
      const p = childPath(path, key);
      if (seen.has(key)) duplicates.push(p);
      seen.add(key);
      entries.push([key, value(p, depth + 1)]);
      skipWS();
      if (i >= n) eof();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '}') {
        i++;
        return { t: 'obj', entries };
      }
      bad('after object key:value pair');
    }
  };

  const array = (path: string, depth: number): JNode => {
    i++;
    const items: JNode[] = [];
    skipWS();
    if (i >= n) eof();
    if (text[i] === ']') {
      i++;
      return { t: 'arr', items };
    }
    for (;;) {
      items.push(value(`${path}[${items.length}]`, depth + 1));
      skipWS();
      if (i >= n) eof();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === ']') {
        i++;
        return { t: 'arr', items };
      }
      bad('after array element');
    }
  };

  const node = value('', 0);
  skipWS();
  if (i < n) bad('after top-level value');
  return { node, duplicates };
}

/** Writes a tree as JSON the way encoding/json does (HTML-safe escapes); `indent` > 0 pretty-prints. */
export function writeJSON(node: JNode, indent = 0): string {
  const out: string[] = [];
  const nl = (depth: number) => (indent > 0 ? '\n' + ' '.repeat(indent * depth) : '');
  const sep = indent > 0 ? ': ' : ':';
  const walk = (x: JNode, depth: number) => {
    switch (x.t) {
      case 'null':
        out.push('null');
        return;
      case 'bool':
        out.push(x.v ? 'true' : 'false');
        return;
      case 'num':
        out.push(x.raw);
        return;
      case 'str':
        out.push(goJSONString(x.v));
        return;
      case 'arr':
        if (x.items.length === 0) {
          out.push('[]');
          return;
        }
        out.push('[');
        x.items.forEach((item, k) => {
          if (k > 0) out.push(',');
          out.push(nl(depth + 1));
          walk(item, depth + 1);
        });
        out.push(nl(depth), ']');
        return;
      case 'obj':
        if (x.entries.length === 0) {
          out.push('{}');
          return;
        }
        out.push('{');
        x.entries.forEach(([k, v], idx) => {
          if (idx > 0) out.push(',');
          out.push(nl(depth + 1), goJSONString(k), sep);
          walk(v, depth + 1);
        });
        out.push(nl(depth), '}');
        return;
    }
  };
  walk(node, 0);
  return out.join('');
}

// =========================================================================================================
// YAML in both directions, with go-yaml v2's semantics. Reading follows the kubelet's path (sigs.k8s.io/yaml
// over go-yaml v2): YAML 1.1 plain-scalar resolution (`yes` is a bool, `0x10` an int, `1e3` a float that re-emerges as JSON 1000),
// keys stringified the way sigs.k8s.io/yaml does, duplicate keys last-wins, `<<` merges, only the first
// document read, keys sorted as json.Marshal sorts a map.
//
// Start-up cost matters (the agent re-reads its checkpoint on every restart), so plain block YAML — what
// every KubeletConfiguration file and ConfigMap payload in practice is — goes through a small reader here,
// and anything it is not certain about (anchors, tags, block scalars, multi-line scalars, odd indentation)
// falls back to the `yaml` package, loaded synchronously on first use.

export class YAMLSyntaxError extends CodedError<typeof ErrorCodes.Syntax> {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCodes.Syntax, message, options);
  }
}

type YScalar = { readonly t: 'scalar'; readonly v: string; readonly plain: boolean; readonly tag?: string };
type YNode =
  | YScalar
  | { readonly t: 'map'; readonly pairs: Array<readonly [YNode, YNode]> }
  | { readonly t: 'seq'; readonly items: YNode[] };

const EMPTY: YScalar = { t: 'scalar', v: '', plain: true };

// ---------------------------------------------------------------------------------------------------------
// Fast reader for plain block YAML. Returns undefined ("not sure") instead of guessing.

class Bail extends Error {}
const bail = (): never => {
  throw new Bail();
};

interface Line {
  indent: number;
  text: string;
}

const UNSUPPORTED_CHARS = /[\t\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufeff\u2028\u2029]/;
const PLAIN_START_FORBIDDEN = new Set(['[', ']', '{', '}', ',', '#', '&', '*', '!', '|', '>', "'", '"', '%', '@', '`']);

function isSeqItem(text: string): boolean {
  return text === '-' || text.startsWith('- ');
}

function readDoubleQuoted(s: string, start: number): { v: string; end: number } {
  let out = '';
  let i = start + 1;
  while (i < s.length) {
    const c = s[i]!;
    if (c === '"') return { v: out, end: i + 1 };
    if (c !== '\\') {
      out += c;
      i++;
      continue;
    }
    const e = s[i + 1];
    const simple: Record<string, string> = {
      '0': '\0',
      a: '\x07',
      b: '\b',
      t: '\t',
      n: '\n',
      v: '\v',
      f: '\f',
      r: '\r',
      e: '\x1b',
      ' ': ' ',
      '"': '"',
      '/': '/',
      '\\': '\\',
      N: '\u0085',
      _: '\u00a0',
      L: '\u2028',
      P: '\u2029',
    };
    if (e !== undefined && e in simple) {
      out += simple[e];
      i += 2;
      continue;
    }
    const width = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
    if (width === 0) bail();
    const h = s.slice(i + 2, i + 2 + width);
    if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(h)) bail();
    const cp = parseInt(h, 16);
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) bail();
    out += String.fromCodePoint(cp);
    i += 2 + width;
  }
  return bail();
}

function readSingleQuoted(s: string, start: number): { v: string; end: number } {
  let out = '';
  let i = start + 1;
  while (i < s.length) {
    const c = s[i]!;
    if (c === "'") {
      if (s[i + 1] === "'") {
        out += "'";
        i += 2;
        continue;
      }
      return { v: out, end: i + 1 };
    }
    out += c;
    i++;
  }
  return bail();
}

/** After a complete value: only spaces and an optional comment may follow. */
function expectEnd(s: string, pos: number): void {
  const rest = s.slice(pos);
  if (rest.trim() === '') return;
  if (/^\s+#/.test(rest)) return;
  bail();
}

function readQuoted(s: string, pos: number): { node: YScalar; end: number } {
  const r = s[pos] === '"' ? readDoubleQuoted(s, pos) : readSingleQuoted(s, pos);
  return { node: { t: 'scalar', v: r.v, plain: false }, end: r.end };
}

/** A key at the start of `text`: returns the key and where the value starts, or undefined if not a key. */
function readKey(text: string): { key: YScalar; rest: string } | undefined {
  const c = text[0];
  if (c === '"' || c === "'") {
    const { node, end } = readQuoted(text, 0);
    let p = end;
    while (text[p] === ' ') p++;
    if (text[p] === ':' && (p + 1 === text.length || text[p + 1] === ' '))
      return { key: node, rest: text.slice(p + 1) };
    return undefined;
  }
  // A flow collection used as a key is legal YAML but never a KubeletConfiguration; readInline rejects the
  // trailing ": value" and the full parser takes over.
  if (c === '[' || c === '{') return undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '#' && i > 0 && text[i - 1] === ' ') return undefined;
    if (ch === ':' && (i + 1 === text.length || text[i + 1] === ' ')) {
      const key = text.slice(0, i).trimEnd();
      if (key === '' || key === '<<') bail();
      if (PLAIN_START_FORBIDDEN.has(key[0]!) || key[0] === '?' || key[0] === ':') bail();
      return { key: { t: 'scalar', v: key, plain: true }, rest: text.slice(i + 1) };
    }
  }
  return undefined;
}

function readFlow(s: string, pos: number): { node: YNode; end: number } {
  const skip = (p: number) => {
    while (s[p] === ' ') p++;
    return p;
  };
  const plain = (p: number, forKey: boolean): { node: YScalar; end: number } => {
    const start = p;
    for (;;) {
      const ch = s[p];
      if (ch === undefined || ch === ',' || ch === '[' || ch === ']' || ch === '{' || ch === '}') break;
      if (ch === ':' && (s[p + 1] === undefined || s[p + 1] === ' ' || ',[]{}'.includes(s[p + 1]!))) break;
      if (ch === '#' && s[p - 1] === ' ') bail();
      p++;
    }
    const v = s.slice(start, p).trimEnd();
    if (
      v === '' ||
      PLAIN_START_FORBIDDEN.has(v[0]!) ||
      v[0] === '?' ||
      v[0] === ':' ||
      (v[0] === '-' && (v.length === 1 || v[1] === ' '))
    )
      bail();
    if (!forKey && s[p] === ':') bail();
    return { node: { t: 'scalar', v, plain: true }, end: p };
  };
  const value = (p: number, forKey: boolean): { node: YNode; end: number } => {
    const ch = s[p];
    if (ch === '"' || ch === "'") return readQuoted(s, p);
    if (ch === '[' || ch === '{') {
      if (forKey) bail();
      return collection(p);
    }
    return plain(p, forKey);
  };
  const collection = (p: number): { node: YNode; end: number } => {
    const open = s[p]!;
    const close = open === '[' ? ']' : '}';
    p = skip(p + 1);
    const items: YNode[] = [];
    const pairs: Array<readonly [YNode, YNode]> = [];
    if (s[p] === close) return { node: open === '[' ? { t: 'seq', items } : { t: 'map', pairs }, end: p + 1 };
    for (;;) {
      p = skip(p);
      if (open === '[') {
        const r = value(p, false);
        items.push(r.node);
        p = r.end;
      } else {
        const k = value(p, true);
        p = skip(k.end);
        if (s[p] !== ':') bail();
        p = skip(p + 1);
        if (s[p] === ',' || s[p] === '}') pairs.push([k.node, EMPTY]);
        else {
          const v = value(p, false);
          pairs.push([k.node, v.node]);
          p = v.end;
        }
      }
      p = skip(p);
      if (s[p] === ',') {
        p = skip(p + 1);
        if (s[p] === close) bail();
        continue;
      }
      if (s[p] === close) return { node: open === '[' ? { t: 'seq', items } : { t: 'map', pairs }, end: p + 1 };
      bail();
    }
  };
  return collection(pos);
}

/** A value on the same line as its key or dash. */
function readInline(text: string): YNode {
  const c = text[0]!;
  if (c === '"' || c === "'") {
    const { node, end } = readQuoted(text, 0);
    expectEnd(text, end);
    return node;
  }
  if (c === '[' || c === '{') {
    const { node, end } = readFlow(text, 0);
    expectEnd(text, end);
    return node;
  }
  if (PLAIN_START_FORBIDDEN.has(c) || ((c === '?' || c === ':' || c === '-') && (text.length === 1 || text[1] === ' ')))
    bail();
  let end = text.length;
  const hash = text.indexOf(' #');
  if (hash >= 0) end = hash;
  const v = text.slice(0, end).trimEnd();
  if (v.includes(': ') || v.endsWith(':')) bail();
  return { t: 'scalar', v, plain: true };
}

function fastParse(src: string): YNode | null | undefined {
  if (UNSUPPORTED_CHARS.test(src) || /\r(?!\n)/.test(src)) return undefined;
  const lines: Line[] = [];
  let started = false;
  for (const raw of src.split('\n')) {
    const l = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const body = l.trimStart();
    const indent = l.length - body.length;
    const text = body.trimEnd();
    if (text === '' || text[0] === '#') continue;
    if (indent === 0 && /^(---|\.\.\.)(\s|$)/.test(text)) {
      const rest = text.slice(3).trim();
      // Content on a marker line ("--- {a: 1}") is for the full parser.
      if (rest !== '' && rest[0] !== '#') return undefined;
      if (text.startsWith('---') && !started && lines.length === 0) {
        started = true;
        continue;
      }
      break; // only the first document counts
    }
    if (indent === 0 && text[0] === '%') return undefined;
    lines.push({ indent, text });
  }
  if (lines.length === 0) return null;

  let idx = 0;
  const block = (indent: number): YNode => {
    const line = lines[idx]!;
    if (line.indent !== indent) bail();
    if (isSeqItem(line.text)) return seq(indent);
    if (readKey(line.text)) return map(indent);
    return bail();
  };
  const valueAfter = (rest: string, indent: number, allowSameIndentSeq: boolean): YNode => {
    const v = rest.trimStart();
    if (v === '' || v[0] === '#') {
      const next = lines[idx];
      if (next && next.indent > indent) return block(next.indent);
      if (allowSameIndentSeq && next && next.indent === indent && isSeqItem(next.text)) return seq(indent);
      return EMPTY;
    }
    const node = readInline(v);
    const next = lines[idx];
    if (next && next.indent > indent) bail();
    return node;
  };
  const map = (indent: number): YNode => {
    const pairs: Array<readonly [YNode, YNode]> = [];
    while (idx < lines.length) {
      const line = lines[idx]!;
      if (line.indent < indent) break;
      if (line.indent > indent || isSeqItem(line.text)) bail();
      const k = readKey(line.text);
      if (!k) bail();
      idx++;
      pairs.push([k!.key, valueAfter(k!.rest, indent, true)]);
    }
    return { t: 'map', pairs };
  };
  const seq = (indent: number): YNode => {
    const items: YNode[] = [];
    while (idx < lines.length) {
      const line = lines[idx]!;
      if (line.indent < indent) break;
      if (line.indent > indent) bail();
      if (!isSeqItem(line.text)) break;
      const after = line.text === '-' ? '' : line.text.slice(2);
      const content = after.trimStart();
      const col = indent + 2 + (after.length - content.length);
      if (content !== '' && content[0] !== '#' && !isSeqItem(content) && readKey(content)) {
        lines[idx] = { indent: col, text: content };
        items.push(map(col));
        continue;
      }
      if (isSeqItem(content)) bail();
      idx++;
      items.push(valueAfter(content, indent, false));
    }
    return { t: 'seq', items };
  };

  let root: YNode;
  const first = lines[0]!;
  if (isSeqItem(first.text) || readKey(first.text)) root = block(first.indent);
  else {
    if (lines.length > 1) return undefined;
    root = readInline(first.text);
    idx = 1;
  }
  if (idx !== lines.length) return undefined;
  return root;
}

function tryFast(src: string): YNode | null | undefined {
  try {
    return fastParse(src);
  } catch (e) {
    if (e instanceof Bail) return undefined;
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Full reader on top of the `yaml` package (loaded on first use only).

type YamlModule = typeof import('yaml');
/**
 * In the built library (scripts/bundle.mjs) the loader passes this in: the `yaml` package as one script with its own
 * V8 code cache (its ~40 module files would cost ~25 ms to require). In tsc's separate modules it is an undeclared
 * global, which `typeof` reports as 'undefined'.
 */
declare const __loadYaml: (() => unknown) | undefined;
let yamlModule: YamlModule | undefined;
function yamlLib(): YamlModule {
  // node:module is looked up only here: importing it statically costs every process that never needs it.
  yamlModule ??= (
    typeof __loadYaml === 'function'
      ? __loadYaml()
      : process.getBuiltinModule('node:module').createRequire(import.meta.url)('yaml')
  ) as YamlModule;
  return yamlModule;
}

// The `yaml` package's messages may quote the document (a token's source, a tag, a directive), and a syntax error
// reaches events, rollout conditions and logs whose readers may not read the ConfigMap it came from. So a message
// is shown as the package words it only when it is known to carry nothing of the document: one of its fixed texts,
// or one whose only variable part is a token type. Any other is described by its error code; the line says where.
const YAML_FIXED_MESSAGES = new Set([
  'A block sequence may not be used as an implicit map key',
  'A node can have at most one anchor',
  'A node can have at most one tag',
  'Alias cannot be an empty string',
  'All sequence items must start at the same column',
  'An alias node must not specify any properties',
  'Anchor cannot be an empty string',
  'Block collection cannot start on same line with directives-end marker',
  'Block scalar values in collections must be indented',
  'Block scalars with more-indented leading empty lines must use an explicit indentation indicator',
  'Comments must be separated from other tokens by white space characters',
  'Flow map in block collection must be sufficiently indented and end with a }',
  'Flow sequence in block collection must be sufficiently indented and end with a ]',
  'Implicit keys need to be on a single line',
  'Implicit keys of flow sequence pairs need to be on a single line',
  'Implicit map keys need to be followed by map values',
  'Map keys must be unique',
  'Missing closing "quote',
  "Missing closing 'quote",
  'Missing directives-end indicator line',
  'Missing directives-end/doc-start indicator line',
  'Missing newline after block sequence props',
  'Nested mappings are not allowed in compact mappings',
  'Sequence item without - indicator',
  'Tabs are not allowed as indentation',
  'Tags and anchors must be separated from the next token by white space',
  'Unexpected block-seq-ind on same line with key',
]);
const YAML_TOKEN_TYPE_MESSAGE = /^Unexpected [a-z-]+ (?:at node end|token(?: in YAML (?:stream|document))?)$/;
const YAML_CODE_TEXTS: Readonly<Record<string, string>> = {
  ALIAS_PROPS: 'an alias node must not specify any properties',
  BAD_ALIAS: 'invalid alias or anchor',
  BAD_COLLECTION_TYPE: 'a tag does not fit its collection',
  BAD_DIRECTIVE: 'invalid directive',
  BAD_DQ_ESCAPE: 'invalid escape sequence in a double-quoted scalar',
  BAD_INDENT: 'bad indentation',
  BAD_PROP_ORDER: 'an anchor or tag before its indicator',
  BAD_SCALAR_START: 'a plain value starts with a reserved character',
  BLOCK_AS_IMPLICIT_KEY: 'a block collection as an implicit key',
  BLOCK_IN_FLOW: 'a block collection inside a flow collection',
  DUPLICATE_KEY: 'map keys must be unique',
  KEY_OVER_1024_CHARS: 'an implicit key longer than 1024 characters',
  MISSING_CHAR: 'a missing character',
  MULTILINE_IMPLICIT_KEY: 'implicit keys need to be on a single line',
  MULTIPLE_ANCHORS: 'a node can have at most one anchor',
  MULTIPLE_DOCS: 'more than one document',
  MULTIPLE_TAGS: 'a node can have at most one tag',
  NON_STRING_KEY: 'a key that is not a string',
  TAB_AS_INDENT: 'tabs are not allowed as indentation',
  TAG_RESOLVE_FAILED: 'a tag that cannot be resolved',
  UNEXPECTED_TOKEN: 'unexpected token',
};

/** A `yaml` package error as go-yaml's `yaml: line N: …`, quoting nothing of the document. */
export function yamlErrorText(err: {
  code: string;
  message: string;
  linePos?: ReadonlyArray<{ line: number }> | undefined;
}): string {
  const line = err.linePos?.[0]?.line;
  const text = err.message.split(/ at line \d+, column \d+/)[0]!.split('\n')[0]!;
  const shown =
    YAML_FIXED_MESSAGES.has(text) || YAML_TOKEN_TYPE_MESSAGE.test(text)
      ? text
      : (YAML_CODE_TEXTS[err.code] ?? 'syntax error');
  return `yaml: ${line !== undefined ? `line ${line}: ` : ''}${shown}`;
}

function fullParse(src: string): YNode | null {
  const Y = yamlLib();
  const docs = Y.parseAllDocuments(src, { schema: 'failsafe', uniqueKeys: false, strict: false, prettyErrors: true });
  const doc = Array.isArray(docs) ? docs[0] : undefined;
  if (!doc) return null;
  const err = doc.errors[0];
  if (err) throw new YAMLSyntaxError(yamlErrorText(err));
  const memo = new Map<unknown, YNode>();
  const convert = (node: unknown): YNode => {
    if (node === null || node === undefined) return EMPTY;
    const known = memo.get(node);
    if (known) return known;
    if (Y.isAlias(node)) {
      const target = node.resolve(doc);
      if (!target) throw new YAMLSyntaxError('yaml: unknown anchor referenced'); // go-yaml names it; the name is the document's
      return convert(target);
    }
    if (Y.isScalar(node)) {
      const v = node.value === null || node.value === undefined ? '' : anyText(node.value);
      const s: YScalar = node.tag
        ? { t: 'scalar', v, plain: node.type === 'PLAIN', tag: node.tag }
        : { t: 'scalar', v, plain: node.type === 'PLAIN' };
      memo.set(node, s);
      return s;
    }
    if (Y.isMap(node)) {
      const m: { t: 'map'; pairs: Array<readonly [YNode, YNode]> } = { t: 'map', pairs: [] };
      memo.set(node, m);
      for (const p of node.items) m.pairs.push([convert(p.key), convert(p.value)]);
      return m;
    }
    if (Y.isSeq(node)) {
      const q: { t: 'seq'; items: YNode[] } = { t: 'seq', items: [] };
      memo.set(node, q);
      for (const item of node.items) q.items.push(convert(item));
      return q;
    }
    throw new YAMLSyntaxError('yaml: unsupported node');
  };
  return doc.contents === null ? null : convert(doc.contents);
}

// ---------------------------------------------------------------------------------------------------------
// go-yaml v2 resolution and the sigs.k8s.io/yaml conversion to JSON.

type Resolved =
  | { k: 'null' }
  | { k: 'bool'; v: boolean }
  | { k: 'int'; v: bigint }
  | { k: 'float'; v: number }
  | { k: 'str'; v: string };

const STR_TAG = 'tag:yaml.org,2002:str';
const MAX_INT64 = (1n << 63n) - 1n;
const MAX_UINT64 = (1n << 64n) - 1n;

const RESOLVE_MAP: ReadonlyMap<string, Resolved> = (() => {
  const m = new Map<string, Resolved>();
  for (const s of ['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'])
    m.set(s, { k: 'bool', v: true });
  for (const s of ['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'])
    m.set(s, { k: 'bool', v: false });
  for (const s of ['', '~', 'null', 'Null', 'NULL']) m.set(s, { k: 'null' });
  for (const s of ['.nan', '.NaN', '.NAN']) m.set(s, { k: 'float', v: NaN });
  for (const s of ['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF']) m.set(s, { k: 'float', v: Infinity });
  for (const s of ['-.inf', '-.Inf', '-.INF']) m.set(s, { k: 'float', v: -Infinity });
  return m;
})();

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;

/** strconv.ParseInt(s, 0, 64) / ParseUint(s, 0, 64) after go-yaml removed underscores. */
function parseGoInt(s: string, signed: boolean): bigint | undefined {
  let neg = false;
  let body = s;
  if (signed && (body[0] === '+' || body[0] === '-')) {
    neg = body[0] === '-';
    body = body.slice(1);
  }
  if (body === '') return undefined;
  let base = 10;
  if (body[0] === '0') {
    const p = body[1]?.toLowerCase();
    if (body.length >= 3 && p === 'b') {
      base = 2;
      body = body.slice(2);
    } else if (body.length >= 3 && p === 'o') {
      base = 8;
      body = body.slice(2);
    } else if (body.length >= 3 && p === 'x') {
      base = 16;
      body = body.slice(2);
    } else {
      base = 8;
      body = body.slice(1);
    }
  }
  const valid = base === 2 ? /^[01]*$/ : base === 8 ? /^[0-7]*$/ : base === 10 ? /^[0-9]+$/ : /^[0-9a-fA-F]+$/;
  if (!valid.test(body)) return undefined;
  const prefix = base === 2 ? '0b' : base === 8 ? '0o' : base === 16 ? '0x' : '';
  let v = body === '' ? 0n : BigInt(prefix + body);
  if (neg) v = -v;
  if (signed ? v > MAX_INT64 || v < -MAX_INT64 - 1n : v > MAX_UINT64) return undefined;
  return v;
}

/** go-yaml v2's resolution of an untagged plain scalar. */
function resolvePlain(s: string): Resolved {
  const c = s[0];
  const hinted = c === undefined || '+-0123456789yYnNtTfFoO~.'.includes(c);
  if (!hinted) return { k: 'str', v: s };
  const mapped = RESOLVE_MAP.get(s);
  if (mapped) return mapped;
  if (c === '.') {
    if (/^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(s)) {
      const v = Number(s);
      if (Number.isFinite(v)) return { k: 'float', v };
    }
    return { k: 'str', v: s };
  }
  if (c === '+' || c === '-' || (c! >= '0' && c! <= '9')) {
    const plain = s.replace(/_/g, '');
    const i = parseGoInt(plain, true) ?? parseGoInt(plain, false);
    if (i !== undefined) return { k: 'int', v: i };
    if (YAML_STYLE_FLOAT.test(plain)) {
      const v = Number(plain);
      if (Number.isFinite(v)) return { k: 'float', v };
    }
    if (plain.startsWith('0b')) {
      const b = parseBinary(plain.slice(2));
      if (b !== undefined) return { k: 'int', v: b };
    } else if (plain.startsWith('-0b')) {
      const b = parseBinary('-' + plain.slice(3));
      if (b !== undefined) return { k: 'int', v: b };
    }
  }
  return { k: 'str', v: s };
}

function parseBinary(s: string): bigint | undefined {
  const m = /^([+-]?)([01]+)$/.exec(s);
  if (!m) return undefined;
  const v = BigInt('0b' + m[2]) * (m[1] === '-' ? -1n : 1n);
  return v > MAX_UINT64 || v < -MAX_INT64 - 1n ? undefined : v;
}

function resolveScalar(n: YScalar): Resolved {
  const tag = n.tag;
  if (tag === STR_TAG || (tag !== undefined && !tag.startsWith('tag:yaml.org,2002:'))) return { k: 'str', v: n.v };
  if (tag === undefined) return n.plain ? resolvePlain(n.v) : { k: 'str', v: n.v };
  const short = tag.slice('tag:yaml.org,2002:'.length);
  if (short === 'binary') {
    try {
      const bin = atob(n.v.replace(/\s+/g, ''));
      return { k: 'str', v: new TextDecoder().decode(Uint8Array.from(bin, (ch) => ch.charCodeAt(0))) };
    } catch {
      throw new YAMLSyntaxError(`yaml: !!binary value contains invalid base64 data`);
    }
  }
  if (short === 'timestamp') return { k: 'str', v: n.v };
  const r = resolvePlain(n.v);
  const ok =
    (short === 'int' && r.k === 'int') ||
    (short === 'float' && (r.k === 'float' || r.k === 'int')) ||
    (short === 'bool' && r.k === 'bool') ||
    (short === 'null' && r.k === 'null');
  if (ok) return short === 'float' && r.k === 'int' ? { k: 'float', v: Number(r.v) } : r;
  if (short === 'map' || short === 'seq' || short === 'merge') return r;
  // go-yaml quotes the value too; here the tags say what was wrong without the document's text.
  throw new YAMLSyntaxError(
    `yaml: cannot decode !!${r.k === 'int' ? 'int' : r.k === 'float' ? 'float' : r.k === 'bool' ? 'bool' : r.k === 'null' ? 'null' : 'str'} as a !!${short}`,
  );
}

function resolvedToJNode(r: Resolved): JNode {
  switch (r.k) {
    case 'null':
      return { t: 'null' };
    case 'bool':
      return { t: 'bool', v: r.v };
    case 'int':
      return { t: 'num', raw: r.v.toString() };
    case 'float':
      try {
        return { t: 'num', raw: goJSONFloat(r.v) };
      } catch (e) {
        throw new YAMLSyntaxError(errorMessage(e), { cause: e });
      }
    case 'str':
      return { t: 'str', v: r.v };
  }
}

function keyString(n: YNode): string {
  if (n.t !== 'scalar') throw new YAMLSyntaxError('yaml: invalid map key: a collection cannot be a key');
  const r = resolveScalar(n);
  switch (r.k) {
    case 'str':
      return r.v;
    case 'bool':
      return r.v ? 'true' : 'false';
    case 'int':
      if (r.v > MAX_INT64) throw new YAMLSyntaxError('Unsupported map key of type: uint64');
      return r.v.toString();
    case 'float': {
      const s = goFloat32G(r.v);
      return s === '+Inf' ? '.inf' : s === '-Inf' ? '-.inf' : s === 'NaN' ? '.nan' : s;
    }
    case 'null':
      throw new YAMLSyntaxError('Unsupported map key of type: <nil>, key: <nil>');
  }
}

function isMergeKey(n: YNode): boolean {
  return n.t === 'scalar' && ((n.plain && n.v === '<<' && n.tag === undefined) || n.tag === 'tag:yaml.org,2002:merge');
}

const MAX_EXPANDED_NODES = 1_000_000;

function toTree(root: YNode | null, duplicates: string[]): JNode {
  let budget = MAX_EXPANDED_NODES;
  const conv = (n: YNode, path: string): JNode => {
    if (--budget < 0) throw new YAMLSyntaxError('yaml: document contains excessive aliasing');
    if (n.t === 'scalar') return resolvedToJNode(resolveScalar(n));
    if (n.t === 'seq') return { t: 'arr', items: n.items.map((x, i) => conv(x, `${path}[${i}]`)) };
    const out = new Map<string, JNode>();
    const merge = (v: YNode) => {
      if (v.t !== 'map') throw new YAMLSyntaxError('yaml: map merge requires map or sequence of maps as the value');
      const merged = conv(v, path);
      if (merged.t === 'obj') for (const [k, x] of merged.entries) out.set(k, x);
    };
    const explicit = new Set<string>();
    for (const [k, v] of n.pairs) {
      if (isMergeKey(k)) {
        if (v.t === 'seq') for (let i = v.items.length - 1; i >= 0; i--) merge(v.items[i]!);
        else merge(v);
        continue;
      }
      const key = keyString(k);
      const p = childPath(path, key);
      if (explicit.has(key)) duplicates.push(p);
      explicit.add(key);
      out.set(key, conv(v, p));
    }
    const keys = [...out.keys()].sort(compareGoStrings);
    return { t: 'obj', entries: keys.map((k) => [k, out.get(k)!] as const) };
  };
  return root === null ? { t: 'null' } : conv(root, '');
}

export interface ParsedYAML {
  node: JNode;
  duplicates: string[];
  /** True when the `yaml` package had to be loaded (for start-up measurements and tests). */
  usedFullParser: boolean;
}

/** YAML text → tree, as sigs.k8s.io/yaml.YAMLToJSON would present it to the JSON decoder. */
export function parseYAML(src: string, options: { forceFullParser?: boolean } = {}): ParsedYAML {
  const duplicates: string[] = [];
  const fast = options.forceFullParser ? undefined : tryFast(src);
  if (fast !== undefined) return { node: toTree(fast, duplicates), duplicates, usedFullParser: false };
  const full = fullParse(src);
  return { node: toTree(full, duplicates), duplicates, usedFullParser: true };
}

// ---------------------------------------------------------------------------------------------------------
// Writing: tree → YAML in the shape sigs.k8s.io/yaml + go-yaml v2 produce (what kubeadm writes): keys in
// go-yaml's order, two-space indentation, sequences not indented under their key, `{}` and `[]` for empty
// collections, and a string quoted whenever a YAML 1.1 reader would take it for something else ("yes",
// "0777", "1e3"), so the kubelet reads back exactly the string that was written.

const ASCII = /^[\x00-\x7f]*$/;
const isLetter = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c > '\x7f' && /\p{L}/u.test(c));
const isDigit = (c: string) => (c >= '0' && c <= '9') || (c > '\x7f' && /\p{Nd}/u.test(c));

type Runes = ArrayLike<string>;
const runes = (s: string): Runes => (ASCII.test(s) ? s : [...s]);

/** go-yaml v2's keyList.Less as a three-way comparison: letters after non-letters, digit runs as numbers. */
function compareRunes(ar: Runes, br: Runes): number {
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = isLetter(ar[i]!);
    const bl = isLetter(br[i]!);
    if (al && bl) return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)! ? -1 : 1;
    if (al || bl) return bl ? -1 : 1;
    let an = 0n;
    let bn = 0n;
    if (ar[i] === '0' || br[i] === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]!); j--) {
        if (ar[j] !== '0') {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai]!); ai++) an = an * 10n + BigInt(ar[ai]!.codePointAt(0)! - 48);
    let bi = i;
    for (; bi < br.length && isDigit(br[bi]!); bi++) bn = bn * 10n + BigInt(br[bi]!.codePointAt(0)! - 48);
    if (an !== bn) return an < bn ? -1 : 1;
    if (ai !== bi) return ai < bi ? -1 : 1;
    return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)! ? -1 : 1;
  }
  return ar.length - br.length;
}

export function yamlKeyLess(a: string, b: string): boolean {
  return compareRunes(runes(a), runes(b)) < 0;
}

const INDICATOR_START = new Set([...'-?:,[]{}#&*!|>\'"%@`']);

function needsQuotes(s: string): boolean {
  if (s === '' || s === '<<' || s.startsWith('...')) return true;
  if (!/^[\x20-\x7e]+$/.test(s)) return true;
  if (INDICATOR_START.has(s[0]!) || s[0] === ' ' || s.endsWith(' ') || s.endsWith(':')) return true;
  if (s.includes(': ') || s.includes(' #')) return true;
  return resolvePlain(s).k !== 'str';
}

/**
 * A double-quoted YAML scalar. JSON escaping covers quotes, backslashes and C0 controls; characters YAML does
 * not allow raw (DEL, C1 controls, non-characters) or that YAML 1.1 treats as line breaks (NEL, LS, PS) are
 * escaped as well.
 */
function quote(s: string): string {
  return JSON.stringify(s).replace(
    /[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function scalar(n: JNode): string {
  switch (n.t) {
    case 'null':
      return 'null';
    case 'bool':
      return n.v ? 'true' : 'false';
    case 'num':
      return n.raw;
    case 'str':
      return needsQuotes(n.v) ? quote(n.v) : n.v;
    default:
      throw new Error('not a scalar');
  }
}

function key(k: string): string {
  return needsQuotes(k) ? quote(k) : k;
}

function sortedEntries(n: Extract<JNode, { t: 'obj' }>): Array<readonly [string, JNode]> {
  return n.entries
    .map((e) => ({ e, r: runes(e[0]) }))
    .sort((x, y) => compareRunes(x.r, y.r))
    .map((x) => x.e);
}

function emptyOrScalar(n: JNode): string | undefined {
  if (n.t === 'obj') return n.entries.length === 0 ? '{}' : undefined;
  if (n.t === 'arr') return n.items.length === 0 ? '[]' : undefined;
  return scalar(n);
}

function writeMap(n: Extract<JNode, { t: 'obj' }>, indent: number, out: string[], firstPrefix?: string): void {
  sortedEntries(n).forEach(([k, v], i) => {
    const pad = i === 0 && firstPrefix !== undefined ? firstPrefix : ' '.repeat(indent);
    const inline = emptyOrScalar(v);
    if (inline !== undefined) out.push(`${pad}${key(k)}: ${inline}`);
    else {
      out.push(`${pad}${key(k)}:`);
      writeBlock(v, v.t === 'arr' ? indent : indent + 2, out);
    }
  });
}

function writeSeq(n: Extract<JNode, { t: 'arr' }>, indent: number, out: string[]): void {
  const pad = ' '.repeat(indent);
  for (const item of n.items) {
    const inline = emptyOrScalar(item);
    if (inline !== undefined) out.push(`${pad}- ${inline}`);
    else if (item.t === 'obj') writeMap(item, indent + 2, out, `${pad}- `);
    else {
      out.push(`${pad}-`);
      writeBlock(item, indent + 2, out);
    }
  }
}

function writeBlock(n: JNode, indent: number, out: string[]): void {
  if (n.t === 'obj') writeMap(n, indent, out);
  else if (n.t === 'arr') writeSeq(n, indent, out);
  else out.push(' '.repeat(indent) + scalar(n));
}

/** The YAML document for a tree, ending in a newline. */
export function writeYAML(n: JNode): string {
  const inline = emptyOrScalar(n);
  if (inline !== undefined) return inline + '\n';
  const out: string[] = [];
  writeBlock(n, 0, out);
  return out.join('\n') + '\n';
}
