// Path elements as structured-merge-diff names them in FieldsV1 (`f:name`, `k:{"type":"Ready"}`, `v:"x"`, `i:0`):
// how one is made from a field name, a list item's key fields or a set item's value, the order FieldsV1 is written
// in, and how a path reads in a conflict message (`.spec.containers[name="app"].image`). A path element is its
// serialized string, so a field set can be FieldsV1's own JSON object.

import { anyText } from '../../util/text.js';

/** The key of a FieldsV1 node that marks the node itself as a member of the set. */
export const SELF = '.';

/** A JSON scalar as it appears in list keys and set items. */
export type Scalar = string | number | boolean | null;

const GO_ESCAPE = /["\\\u0000-\u001f<>&\u2028\u2029\ud800-\udfff]/;

/** A string as Go's encoding/json writes it (HTML-safe escapes, \u00XX for control characters). */
export function goJsonString(s: string): string {
  if (!GO_ESCAPE.test(s)) return `"${s}"`;
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i]!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || ch === '<' || ch === '>' || ch === '&' || c === 0x2028 || c === 0x2029)
      out += `\\u${c.toString(16).padStart(4, '0')}`;
    else if (
      c >= 0xd800 &&
      c <= 0xdbff &&
      i + 1 < s.length &&
      s.charCodeAt(i + 1) >= 0xdc00 &&
      s.charCodeAt(i + 1) <= 0xdfff
    ) {
      out += ch + s[i + 1]!;
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) out += '\\ufffd';
    else out += ch;
  }
  return `${out}"`;
}

/** A scalar as Go's encoding/json writes it. */
export function goJson(v: Scalar): string {
  if (typeof v === 'string') return goJsonString(v);
  if (v === null) return 'null';
  return JSON.stringify(v);
}

export function fieldElement(name: string): string {
  return `f:${name}`;
}

/** A keyed list item's element: its key fields sorted by name, as `k:{"name":value,...}`. */
export function keyElement(fields: readonly (readonly [string, Scalar])[]): string {
  const sorted = fields.length > 1 ? [...fields].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)) : fields;
  let out = 'k:{';
  for (let i = 0; i < sorted.length; i++) {
    if (i > 0) out += ',';
    out += `${goJsonString(sorted[i]![0])}:${goJson(sorted[i]![1])}`;
  }
  return `${out}}`;
}

export function valueElement(v: Scalar): string {
  return `v:${goJson(v)}`;
}

export function indexElement(i: number): string {
  return `i:${i}`;
}

/** Whether a FieldsV1 key is a path element this implementation knows (others are dropped, as upstream does). */
export function isKnownElement(pe: string): boolean {
  return pe.length >= 2 && pe[1] === ':' && (pe[0] === 'f' || pe[0] === 'k' || pe[0] === 'v' || pe[0] === 'i');
}

/** A k:, v: or i: element as this server writes it (sorted key fields, Go's JSON); undefined when it does not parse. */
export function normalizeElement(pe: string): string | undefined {
  if (pe[0] === 'f') return pe;
  if (pe[0] === 'i') return /^i:-?\d+$/.test(pe) ? `i:${Number(pe.slice(2))}` : undefined;
  let v: unknown;
  try {
    v = JSON.parse(pe.slice(2));
  } catch {
    return undefined;
  }
  if (pe[0] === 'v') return v !== null && typeof v === 'object' ? `v:${JSON.stringify(v)}` : valueElement(v as Scalar);
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  return keyElement(
    Object.entries(v).map(
      ([name, x]) => [name, x !== null && typeof x === 'object' ? JSON.stringify(x) : (x as Scalar)] as const,
    ),
  );
}

const parsed = new Map<string, unknown>();

/** The JSON of a k: or v: element, parsed once (the cache is bounded). */
function payload(pe: string): unknown {
  let v = parsed.get(pe);
  if (v === undefined && !parsed.has(pe)) {
    try {
      v = JSON.parse(pe.slice(2));
    } catch {
      v = pe.slice(2);
    }
    if (parsed.size > 10_000) parsed.clear();
    parsed.set(pe, v);
  }
  return v;
}

/** The key fields of a k: element, sorted by name. */
export function keyFields(pe: string): [string, unknown][] {
  const v = payload(pe);
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return [];
  return Object.entries(v).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

function rank(v: unknown): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (v !== null && typeof v === 'object') return 4;
  return 5;
}

/** structured-merge-diff's order of values: numbers, strings, booleans, lists, maps, null. */
export function compareValues(a: unknown, b: unknown): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 0:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 1:
      return (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0;
    case 2:
      return a === b ? 0 : a ? 1 : -1;
    case 3: {
      const la = a as unknown[];
      const lb = b as unknown[];
      for (let i = 0; i < la.length && i < lb.length; i++) {
        const c = compareValues(la[i], lb[i]);
        if (c !== 0) return c;
      }
      return la.length - lb.length;
    }
    case 4: {
      const ea = Object.entries(a as object).sort((x, y) => (x[0] < y[0] ? -1 : 1));
      const eb = Object.entries(b as object).sort((x, y) => (x[0] < y[0] ? -1 : 1));
      for (let i = 0; i < ea.length && i < eb.length; i++) {
        if (ea[i]![0] !== eb[i]![0]) return ea[i]![0] < eb[i]![0] ? -1 : 1;
        const c = compareValues(ea[i]![1], eb[i]![1]);
        if (c !== 0) return c;
      }
      return ea.length - eb.length;
    }
    default:
      return 0;
  }
}

const TYPE_ORDER: Readonly<Record<string, number>> = { '.': 0, f: 1, k: 2, v: 3, i: 4 };

/** The order FieldsV1 is written in: "." first, then fields by name, keys, values, indexes (upstream's PathElement order). */
export function compareElements(a: string, b: string): number {
  if (a === b) return 0;
  const ta = TYPE_ORDER[a[0]!] ?? 5;
  const tb = TYPE_ORDER[b[0]!] ?? 5;
  if (ta !== tb) return ta - tb;
  switch (a[0]) {
    case 'f':
      return a < b ? -1 : 1;
    case 'k': {
      const fa = keyFields(a);
      const fb = keyFields(b);
      for (let i = 0; i < fa.length && i < fb.length; i++) {
        if (fa[i]![0] !== fb[i]![0]) return fa[i]![0] < fb[i]![0] ? -1 : 1;
        const c = compareValues(fa[i]![1], fb[i]![1]);
        if (c !== 0) return c;
      }
      return fa.length - fb.length;
    }
    case 'v':
      return compareValues(payload(a), payload(b));
    case 'i':
      return Number(a.slice(2)) - Number(b.slice(2));
    default:
      return a < b ? -1 : 1;
  }
}

/** A value as Go's fmt prints it in a path (%q for strings, %v otherwise). */
function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(show).join(',')}]`;
  if (typeof v === 'object')
    return Object.entries(v)
      .map(([k, x]) => `${k}=${show(x)}`)
      .join('');
  return anyText(v);
}

/** A path element as a conflict message writes it: `.name`, `[type="Ready"]`, `[="x"]`, `[0]`. */
export function elementString(pe: string): string {
  switch (pe[0]) {
    case 'f':
      return `.${pe.slice(2)}`;
    case 'k':
      return `[${keyFields(pe)
        .map(([k, v]) => `${k}=${show(v)}`)
        .join(',')}]`;
    case 'v':
      return `[=${show(payload(pe))}]`;
    case 'i':
      return `[${pe.slice(2)}]`;
    default:
      return '{{invalid path element}}';
  }
}

export function pathString(path: readonly string[]): string {
  return path.map(elementString).join('');
}
