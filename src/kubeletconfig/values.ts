// The Go values a KubeletConfiguration is made of, as value objects with Go's exact semantics: Duration
// (time.Duration: int64 nanoseconds, ParseDuration/String) and Quantity (resource.Quantity: exact decimal,
// ParseQuantity/canonical form), plus the Go text renderings (%q, %v of floats, maps and slices,
// encoding/json's strings and floats) that leak into the kubelet's messages and files.
//
// The agent loads the library as one bundled script (docs/adr/0006-library-code-cache.md), so the number of
// modules here costs nothing at start-up; Duration and Quantity share this module with the Go renderings
// that they and the library's messages use.

import { goQuote } from '../gotext/quote.js';
import { DurationError, QuantityError } from './errors.js';

// =========================================================================================================
// Go's text renderings that leak into the kubelet's messages and files: strconv.Quote (%q), %v of floats,
// maps and slices, encoding/json's float and string forms, and byte-wise string ordering. Kept in one place
// so every message that quotes a value renders it as the Go binary would.

export { goQuote };

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

/** Shortest round-trip digits and decimal exponent of a finite non-zero double (|x| = 0.d1d2… × 10^dp). */
function shortestDigits(x: number): { digits: string; dp: number } {
  const [mant, exp] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = mant.replace('.', '');
  return { digits, dp: Number(exp) + 1 };
}

function formatE(neg: boolean, digits: string, dp: number): string {
  const exp = dp - 1;
  const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const es = Math.abs(exp) < 10 ? `0${Math.abs(exp)}` : String(Math.abs(exp));
  return `${neg ? '-' : ''}${mant}e${exp < 0 ? '-' : '+'}${es}`;
}

function formatF(neg: boolean, digits: string, dp: number): string {
  let s: string;
  if (dp <= 0) s = '0.' + '0'.repeat(-dp) + digits;
  else if (dp >= digits.length) s = digits + '0'.repeat(dp - digits.length);
  else s = digits.slice(0, dp) + '.' + digits.slice(dp);
  return (neg ? '-' : '') + s;
}

/** strconv.FormatFloat(x, 'g', -1, 64), which is also what %v prints for a float64. */
export function goFloatG(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  const neg = x < 0 || Object.is(x, -0);
  if (x === 0) return neg ? '-0' : '0';
  const { digits, dp } = shortestDigits(x);
  const exp = dp - 1;
  // Shortest formatting decides between %e and %f with a fixed precision of 6, as strconv does.
  return exp < -4 || exp >= 6 ? formatE(neg, digits, dp) : formatF(neg, digits, dp);
}

/** strconv.FormatFloat(x, 'g', -1, 32): used by sigs.k8s.io/yaml for float map keys. */
export function goFloat32G(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '+Inf' : '-Inf';
  const f = Math.fround(x);
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  let digits = '';
  let dp = 0;
  for (let p = 1; p <= 9; p++) {
    const candidate = Number(f.toPrecision(p));
    if (Math.fround(candidate) === f) {
      ({ digits, dp } = shortestDigits(candidate));
      break;
    }
  }
  const exp = dp - 1;
  return exp < -4 || exp >= 6 ? formatE(f < 0, digits, dp) : formatF(f < 0, digits, dp);
}

/** encoding/json's rendering of a float64 (throws on NaN/Inf like json.Marshal's UnsupportedValueError). */
export function goJSONFloat(x: number): string {
  if (!Number.isFinite(x)) {
    throw new RangeError(`json: unsupported value: ${goFloatG(x)}`);
  }
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  // JavaScript switches to exponent form at the same thresholds as encoding/json (1e-6, 1e21) and prints the
  // same shortest digits; only the sign-less exponent cleanup differs, and both print e-7, e+21.
  return String(x);
}

/** encoding/json's string literal: HTML-safe escapes and \u2028/\u2029, as json.Marshal writes them. */
const JSON_PLAIN = /^[^\x00-\x1f"\\<>&\u2028\u2029\ud800-\udfff]*$/;

export function goJSONString(s: string): string {
  if (JSON_PLAIN.test(s)) return `"${s}"`;
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i]!;
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c < 0x20 || c === 0x3c || c === 0x3e || c === 0x26 || c === 0x2028 || c === 0x2029)
      out += '\\u' + hex(c, 4);
    else if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += ch + s[i + 1];
        i++;
      } else out += '\\ufffd';
    } else if (c >= 0xdc00 && c <= 0xdfff) out += '\\ufffd';
    else out += ch;
  }
  return out + '"';
}

/** Go compares strings byte-wise (UTF-8); UTF-16 order differs only between surrogates and U+E000–U+FFFF. */
export function compareGoStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && x <= 0xdfff) x += 0x10000;
    if (y >= 0xd800 && y <= 0xdfff) y += 0x10000;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** %v of a map[string]string: keys sorted, `map[k:v k2:v2]`. */
export function goMapString(m: Readonly<Record<string, string>>): string {
  const keys = Object.keys(m).sort(compareGoStrings);
  return `map[${keys.map((k) => `${k}:${m[k]}`).join(' ')}]`;
}

/** %v of a []string: `[a b c]`. */
export function goSliceString(list: readonly string[]): string {
  return `[${list.join(' ')}]`;
}

/** strings.TrimSpace (Unicode white space as Go defines it). */
export function goTrimSpace(s: string): string {
  return s.replace(GO_SPACE_EDGES, '');
}

const GO_SPACE = '\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const GO_SPACE_EDGES = new RegExp(`^[${GO_SPACE}]+|[${GO_SPACE}]+$`, 'g');
/** True when the text, after Go's unicode.IsSpace trimming, starts with `{` (the JSON-vs-YAML sniff). */
export const LEADING_GO_SPACE = new RegExp(`^[${GO_SPACE}]*`);

/** Sets an own enumerable property even for keys such as `__proto__`, which plain assignment would not. */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

// =========================================================================================================
// Duration: the value object behind every metav1.Duration field. It holds Go's time.Duration (signed
// 64-bit nanoseconds) as a bigint so nothing is lost to floating point, parses with the exact rules and
// error texts of Go 1.16's time.ParseDuration (the toolchain of Kubernetes 1.22), and prints the way
// Duration.String() does, because that string is what the kubelet writes into /configz and its messages.

const MAX_INT64 = (1n << 63n) - 1n;
const NS = 1n;
const US = 1000n * NS;
const MS = 1000n * US;
const S = 1000n * MS;
const MIN = 60n * S;
const H = 60n * MIN;

const UNITS: ReadonlyMap<string, bigint> = new Map([
  ['ns', NS],
  ['us', US],
  ['\u00b5s', US], // U+00B5 micro sign
  ['\u03bcs', US], // U+03BC Greek small letter mu
  ['ms', MS],
  ['s', S],
  ['m', MIN],
  ['h', H],
]);

/** The time package's own quoting: non-ASCII and control bytes as \x escapes of their UTF-8 bytes. */
function timeQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0x80 || cp < 0x20) {
      for (const b of new TextEncoder().encode(ch)) out += '\\x' + b.toString(16).padStart(2, '0');
    } else {
      if (ch === '"' || ch === '\\') out += '\\';
      out += ch;
    }
  }
  return out + '"';
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

function fracDigits(v: bigint, prec: number): { frac: string; rest: bigint } {
  const p = 10n ** BigInt(prec);
  const digits = (v % p).toString().padStart(prec, '0').replace(/0+$/, '');
  return { frac: digits ? '.' + digits : '', rest: v / p };
}

export class Duration {
  /** Signed nanoseconds, always within Go's int64 range. */
  readonly nanoseconds: bigint;

  private constructor(ns: bigint) {
    this.nanoseconds = ns;
  }

  static readonly zero = new Duration(0n);

  static fromNanoseconds(ns: bigint | number): Duration {
    const v = typeof ns === 'bigint' ? ns : BigInt(Math.trunc(ns));
    if (v > MAX_INT64 || v < -MAX_INT64 - 1n) throw new RangeError('duration out of int64 range');
    return v === 0n ? Duration.zero : new Duration(v);
  }

  static fromMilliseconds(ms: number): Duration {
    return Duration.fromNanoseconds(BigInt(Math.trunc(ms)) * MS);
  }

  static fromSeconds(s: number): Duration {
    return Duration.fromNanoseconds(BigInt(Math.trunc(s)) * S);
  }

  /** time.ParseDuration: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+`, e.g. "1m30s", "100ms", "-1.5h", "0". */
  static parse(text: string): Duration {
    const invalid = () => new DurationError(`time: invalid duration ${timeQuote(text)}`, 'time: invalid duration');
    let s = text;
    let neg = false;
    if (s !== '' && (s[0] === '-' || s[0] === '+')) {
      neg = s[0] === '-';
      s = s.slice(1);
    }
    if (s === '0') return Duration.zero;
    if (s === '') throw invalid();
    let total = 0n;
    while (s !== '') {
      if (!(s[0] === '.' || isDigit(s[0]))) throw invalid();
      let i = 0;
      let v = 0n;
      for (; i < s.length && isDigit(s[i]); i++) {
        if (v > MAX_INT64 / 10n) throw invalid();
        v = v * 10n + BigInt(s.charCodeAt(i) - 48);
        if (v > MAX_INT64) throw invalid();
      }
      const pre = i > 0;
      s = s.slice(i);
      let post = false;
      let f = 0n;
      let scale = 1;
      if (s[0] === '.') {
        s = s.slice(1);
        let j = 0;
        let overflow = false;
        for (; j < s.length && isDigit(s[j]); j++) {
          if (overflow) continue;
          if (f > MAX_INT64 / 10n) {
            overflow = true;
            continue;
          }
          const y = f * 10n + BigInt(s.charCodeAt(j) - 48);
          if (y > MAX_INT64) {
            overflow = true;
            continue;
          }
          f = y;
          scale *= 10;
        }
        post = j > 0;
        s = s.slice(j);
      }
      if (!pre && !post) throw invalid();
      let k = 0;
      while (k < s.length && s[k] !== '.' && !isDigit(s[k])) k++;
      if (k === 0)
        throw new DurationError(`time: missing unit in duration ${timeQuote(text)}`, 'time: missing unit in duration');
      const u = s.slice(0, k);
      s = s.slice(k);
      const unit = UNITS.get(u);
      if (unit === undefined)
        throw new DurationError(
          `time: unknown unit ${timeQuote(u)} in duration ${timeQuote(text)}`,
          'time: unknown unit in duration',
        );
      if (v > MAX_INT64 / unit) throw invalid();
      v *= unit;
      if (f > 0n) {
        // Go computes the fractional part in float64 and truncates; doing the same keeps results bit-identical.
        v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
        if (v > MAX_INT64) throw invalid();
      }
      total += v;
      if (total > MAX_INT64) throw invalid();
    }
    return Duration.fromNanoseconds(neg ? -total : total);
  }

  isZero(): boolean {
    return this.nanoseconds === 0n;
  }

  sign(): -1 | 0 | 1 {
    return this.nanoseconds < 0n ? -1 : this.nanoseconds > 0n ? 1 : 0;
  }

  cmp(other: Duration): -1 | 0 | 1 {
    return this.nanoseconds < other.nanoseconds ? -1 : this.nanoseconds > other.nanoseconds ? 1 : 0;
  }

  equals(other: Duration): boolean {
    return this.nanoseconds === other.nanoseconds;
  }

  add(other: Duration): Duration {
    return Duration.fromNanoseconds(this.nanoseconds + other.nanoseconds);
  }

  sub(other: Duration): Duration {
    return Duration.fromNanoseconds(this.nanoseconds - other.nanoseconds);
  }

  /** Milliseconds for timers; sub-millisecond precision is truncated toward zero. */
  toMilliseconds(): number {
    return Number(this.nanoseconds / MS);
  }

  toSeconds(): number {
    return Number(this.nanoseconds) / 1e9;
  }

  /** Go's Duration.String(): "0s", "1.5µs", "100ms", "1m30s", "2h0m0s". */
  toString(): string {
    const ns = this.nanoseconds;
    if (ns === 0n) return '0s';
    const neg = ns < 0n;
    let u = neg ? -ns : ns;
    let out: string;
    if (u < S) {
      if (u < US) out = `${u}ns`;
      else if (u < MS) {
        const { frac, rest } = fracDigits(u, 3);
        out = `${rest}${frac}\u00b5s`;
      } else {
        const { frac, rest } = fracDigits(u, 6);
        out = `${rest}${frac}ms`;
      }
    } else {
      const { frac, rest } = fracDigits(u, 9);
      u = rest;
      out = `${u % 60n}${frac}s`;
      u /= 60n;
      if (u > 0n) {
        out = `${u % 60n}m${out}`;
        u /= 60n;
        if (u > 0n) out = `${u}h${out}`;
      }
    }
    return neg ? '-' + out : out;
  }

  toJSON(): string {
    return this.toString();
  }
}

// =========================================================================================================
// Quantity: Kubernetes' resource.Quantity as an exact decimal value object (bigint unscaled value and a
// power-of-ten scale, like inf.Dec). Parsing follows apimachinery's ParseQuantity step for step — including
// its round-up to nano precision, the BinarySI cap at 2^63-1 and the cached original spelling when it is
// already canonical — because the kubelet re-serialises reservedMemory limits and a byte that drifts in a
// round trip is a different config.

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

const FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const NUMERIC_WRONG = 'unable to parse numeric part of quantity';
const SUFFIX_WRONG = "unable to parse quantity's suffix";

const DECIMAL_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ['n', -9],
  ['u', -6],
  ['m', -3],
  ['', 0],
  ['k', 3],
  ['M', 6],
  ['G', 9],
  ['T', 12],
  ['P', 15],
  ['E', 18],
]);
const DECIMAL_BY_EXPONENT: ReadonlyMap<number, string> = new Map([...DECIMAL_SUFFIXES].map(([k, v]) => [v, k]));
const BINARY_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ['Ki', 10],
  ['Mi', 20],
  ['Gi', 30],
  ['Ti', 40],
  ['Pi', 50],
  ['Ei', 60],
]);
const BINARY_BY_POWER = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

interface Scanned {
  positive: boolean;
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

/** apimachinery's parseQuantityString, quirks included ("-" and "." scan as zero). */
function scan(str: string): Scanned {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (pos < end) {
    if (str[0] === '-') {
      positive = false;
      pos++;
    } else if (str[0] === '+') pos++;
  }
  while (pos < end && str[pos] === '0') pos++;
  if (pos >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };
  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  if (i >= end) return { positive, value: str, num: str.slice(pos), denom: '', suffix: '' };
  const num = str.slice(pos, i) || '0';
  pos = i;
  let denom = '';
  if (pos < end && str[pos] === '.') {
    pos++;
    let j = pos;
    while (j < end && isDigit(str[j])) j++;
    denom = str.slice(pos, j);
    if (j >= end) return { positive, value: str, num, denom, suffix: '' };
    pos = j;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  while (pos < end && 'eEinumkKMGTP'.includes(str[pos]!)) pos++;
  if (pos >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  if (str[pos] === '-' || str[pos] === '+') pos++;
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos < end) throw new QuantityError(FORMAT_WRONG);
  return { positive, value, num, denom, suffix: str.slice(suffixStart) };
}

/** Go's strconv.ParseInt(s, 10, 64) for the exponent of a DecimalExponent suffix. */
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const v = BigInt(s);
  return v > MAX_INT64 || v < -MAX_INT64 - 1n ? undefined : v;
}

function interpret(suffix: string): { base: 2 | 10; exponent: number; format: QuantityFormat } {
  const dec = DECIMAL_SUFFIXES.get(suffix);
  if (dec !== undefined) return { base: 10, exponent: dec, format: 'DecimalSI' };
  const bin = BINARY_SUFFIXES.get(suffix);
  if (bin !== undefined) return { base: 2, exponent: bin, format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    const parsed = parseInt64(suffix.slice(1));
    if (parsed === undefined) throw new QuantityError(SUFFIX_WRONG);
    // Go keeps the exponent in an int32 and wraps silently.
    return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: 'DecimalExponent' };
  }
  throw new QuantityError(SUFFIX_WRONG);
}

function pow10(n: number): bigint {
  return 10n ** BigInt(n);
}

function digitCount(v: bigint): number {
  return (v < 0n ? -v : v).toString().length;
}

export class Quantity {
  /** value = unscaled × 10^-scale */
  readonly unscaled: bigint;
  readonly scale: number;
  readonly format: QuantityFormat;
  /** The original spelling, kept only when apimachinery would keep it (already canonical). */
  private readonly cached: string | undefined;

  private constructor(unscaled: bigint, scale: number, format: QuantityFormat, cached?: string) {
    this.unscaled = unscaled;
    this.scale = scale;
    this.format = format;
    this.cached = cached;
  }

  static zero(format: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity(0n, 0, format);
  }

  /** An integer amount, e.g. bytes. */
  static fromBigInt(value: bigint, format: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity(value, 0, format);
  }

  /** resource.ParseQuantity. Throws QuantityError with apimachinery's messages. */
  static parse(str: string): Quantity {
    if (str.length === 0) throw new QuantityError(FORMAT_WRONG);
    if (str === '0') return new Quantity(0n, 0, 'DecimalSI', '0');
    const { positive, value, num, denom, suffix } = scan(str);
    const { base, exponent, format } = interpret(suffix);

    let precision: number;
    let scale: number;
    let mantissa = 1n;
    if (format === 'BinarySI') {
      scale = 0;
      if (exponent >= 0 && denom.length === 0) {
        mantissa = 1n << BigInt(exponent);
        precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
      } else precision = -1;
    } else {
      scale = exponent;
      precision = 18 - (num.length + denom.length);
    }

    if (precision >= 0) {
      scale -= denom.length;
      if (scale >= -9) {
        const shifted = num + denom;
        const result = BigInt(shifted) * mantissa;
        if (result <= MAX_INT64) {
          const signed = positive ? result : -result;
          const canonical =
            format === 'BinarySI'
              ? exponent % 10 === 0 && (BigInt(shifted) & 7n) !== 0n
              : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
          return new Quantity(signed, -scale, format, canonical ? str : undefined);
        }
      }
    }

    // The slow path: arbitrary precision, rounded up to nano, BinarySI capped at int64.
    const m = /^[+-]?(?:(\d+)\.?(\d*)|\.(\d+))$/.exec(value);
    if (!m) throw new QuantityError(NUMERIC_WRONG);
    const intPart = m[1] ?? '';
    const fracPart = m[1] !== undefined ? m[2]! : m[3]!;
    let unscaled = BigInt(intPart + fracPart || '0');
    let sc = fracPart.length;
    if (base === 10) sc -= exponent;
    else unscaled *= 1n << BigInt(exponent);
    let q = new Quantity(unscaled, sc, format).roundUp(-9);
    let fmt = format;
    if (fmt === 'BinarySI') {
      if (q.cmp(Quantity.fromBigInt(MAX_INT64)) > 0) q = Quantity.fromBigInt(MAX_INT64);
      if (q.unscaled !== 0n && q.cmp(Quantity.fromBigInt(1n)) < 0) fmt = 'DecimalSI';
    }
    const sign = value.startsWith('-') ? -1n : 1n;
    return new Quantity(q.unscaled * sign, q.scale, fmt);
  }

  /** Quantity.UnmarshalJSON: the raw JSON token, quotes stripped and white space trimmed. */
  static fromJSONToken(raw: string): Quantity {
    let v = raw;
    if (v.length >= 2 && v[0] === '"' && v[v.length - 1] === '"') v = v.slice(1, -1);
    return Quantity.parse(goTrimSpace(v));
  }

  sign(): -1 | 0 | 1 {
    return this.unscaled < 0n ? -1 : this.unscaled > 0n ? 1 : 0;
  }

  isZero(): boolean {
    return this.unscaled === 0n;
  }

  cmp(other: Quantity): -1 | 0 | 1 {
    const a = this.sign();
    const b = other.sign();
    if (a !== b) return a < b ? -1 : 1;
    if (a === 0) return 0;
    // Compare orders of magnitude first so that wildly different scales never build huge powers of ten.
    const oa = digitCount(this.unscaled) - this.scale;
    const ob = digitCount(other.unscaled) - other.scale;
    if (oa !== ob) return (oa > ob ? 1 : -1) * a > 0 ? 1 : -1;
    const s = Math.max(this.scale, other.scale);
    const x = this.unscaled * pow10(s - this.scale);
    const y = other.unscaled * pow10(s - other.scale);
    return x < y ? -1 : x > y ? 1 : 0;
  }

  equals(other: Quantity): boolean {
    return this.cmp(other) === 0;
  }

  add(other: Quantity): Quantity {
    const s = Math.max(this.scale, other.scale);
    const fmt = this.isZero() ? other.format : this.format;
    return new Quantity(this.unscaled * pow10(s - this.scale) + other.unscaled * pow10(s - other.scale), s, fmt);
  }

  sub(other: Quantity): Quantity {
    return this.add(other.neg());
  }

  neg(): Quantity {
    return new Quantity(-this.unscaled, this.scale, this.format);
  }

  /**
   * Quantity.RoundUp: rounds away from zero to a multiple of 10^scale (scale -3 = milli). The cached spelling
   * survives only when no rounding was needed, as apimachinery's int64 path does.
   */
  roundUp(scale: number): Quantity {
    const places = -scale;
    if (this.scale <= places) return this;
    const drop = this.scale - places;
    const mag = this.unscaled < 0n ? -this.unscaled : this.unscaled;
    let q: bigint;
    if (drop > digitCount(mag)) q = mag === 0n ? 0n : 1n;
    else {
      const d = pow10(drop);
      q = mag / d + (mag % d === 0n ? 0n : 1n);
    }
    return new Quantity(this.unscaled < 0n ? -q : q, places, this.format);
  }

  /** The value rounded up to an integer (Quantity.Value), e.g. bytes. */
  value(): bigint {
    const r = this.roundUp(0);
    return r.unscaled * pow10(-r.scale);
  }

  /** The value in thousandths, rounded up (Quantity.MilliValue). */
  milliValue(): bigint {
    const r = this.roundUp(-3);
    return r.unscaled * pow10(3 - r.scale);
  }

  /** A float approximation for display and metrics, never for decisions. */
  toNumber(): number {
    return Number(this.unscaled) * 10 ** -this.scale;
  }

  /** Quantity.String(): the cached spelling if canonical, otherwise the canonical form. */
  toString(): string {
    return this.cached ?? this.canonical();
  }

  toJSON(): string {
    return this.toString();
  }

  private canonical(): string {
    if (this.unscaled === 0n) return '0';
    const neg = this.unscaled < 0n;
    const mag = neg ? -this.unscaled : this.unscaled;
    let format = this.format;
    if (format === 'BinarySI') {
      const small = this.cmp(Quantity.fromBigInt(-1024n)) > 0 && this.cmp(Quantity.fromBigInt(1024n)) < 0;
      const integral = this.scale <= 0 || mag % pow10(this.scale) === 0n;
      if (small || !integral) format = 'DecimalSI';
      else {
        let m = this.scale <= 0 ? mag * pow10(-this.scale) : mag / pow10(this.scale);
        let k = 0;
        while (m >= 1024n && m % 1024n === 0n && k < 6) {
          m /= 1024n;
          k++;
        }
        return `${neg ? '-' : ''}${m}${BINARY_BY_POWER[k]}`;
      }
    }
    let m = mag;
    let e = -this.scale;
    while (m >= 10n && m % 10n === 0n) {
      m /= 10n;
      e++;
    }
    const r = ((e % 3) + 3) % 3;
    m *= pow10(r);
    e -= r;
    let suffix: string;
    if (format === 'DecimalExponent') suffix = e === 0 ? '' : `e${e}`;
    else {
      // apimachinery prints no suffix at all past "E" (a value-changing bug); keep the value by scaling the
      // mantissa into the largest suffix instead.
      if (e > 18) {
        m *= pow10(e - 18);
        e = 18;
      }
      suffix = DECIMAL_BY_EXPONENT.get(e)!;
    }
    return `${neg ? '-' : ''}${m}${suffix}`;
  }
}

/** strconv.ParseBool's accepted spellings and their values. */
const PARSE_BOOL: ReadonlyMap<string, boolean> = new Map([
  ...['1', 't', 'T', 'TRUE', 'true', 'True'].map((s) => [s, true] as const),
  ...['0', 'f', 'F', 'FALSE', 'false', 'False'].map((s) => [s, false] as const),
]);

/** strconv.ParseBool: the value of one of its spellings, undefined for anything else. */
export function goParseBool(s: string): boolean | undefined {
  return PARSE_BOOL.get(s);
}
