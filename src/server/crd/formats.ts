// The string formats kube-apiserver checks in custom resources: exactly the set apiextensions-apiserver keeps
// (every other format, int32 and int64 included, is stripped from the schema before validation and so never
// checked), each tested the way kube-openapi's strfmt registry tests it. Names match after removing dashes,
// as go-openapi normalizes them (`date-time` is `datetime`).

import { isIPv4, isIPv6 } from 'node:net';

type Check = (s: string) => boolean;

const rx =
  (re: RegExp): Check =>
  (s) =>
    re.test(s);

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const HOSTNAME =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
const OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|0*[0-9]{1,2})';
const SLOPPY_V4 = new RegExp(`^${OCTET}\\.${OCTET}\\.${OCTET}\\.${OCTET}$`);
const CREDIT_CARD =
  /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/;
const BYTE_ = '(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])';
const RGB = new RegExp(`^rgb\\(\\s*${BYTE_}\\s*,\\s*${BYTE_}\\s*,\\s*${BYTE_}\\s*\\)$`);
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const MAC =
  /^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{2}[:-]){7}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{2}[:-]){19}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{4}\.){2}[0-9a-fA-F]{4}$|^([0-9a-fA-F]{4}\.){3}[0-9a-fA-F]{4}$|^([0-9a-fA-F]{4}\.){9}[0-9a-fA-F]{4}$/;
const TIME_OF_DAY = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;
const GO_DURATION = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/;
const HUMAN_DURATION = /(\d+)\s*([A-Za-zµ]+)/g;
const DURATION_UNITS = [
  ['ns', 'nano'],
  ['us', 'µs', 'micro'],
  ['ms', 'milli'],
  ['s', 'sec'],
  ['m', 'min'],
  ['h', 'hr', 'hour'],
  ['d', 'day'],
  ['w', 'wk', 'week'],
];

function ipv4(s: string): boolean {
  return SLOPPY_V4.test(s) || (isIPv6(s) && s.includes('.'));
}

function cidr(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const [ip, bits] = [s.slice(0, slash), s.slice(slash + 1)];
  if (!/^\d{1,3}$/.test(bits)) return false;
  const max = SLOPPY_V4.test(ip) ? 32 : isIPv6(ip) ? 128 : -1;
  return max >= 0 && Number(bits) <= max;
}

function hostname(s: string): boolean {
  return HOSTNAME.test(s) && s.length <= 255 && s.split('.').every((p) => p.length <= 63);
}

/** net/mail.ParseAddress, approximated: `local@domain` or `Name <local@domain>`. */
function email(s: string): boolean {
  const m = /^(?:[^<>]*<([^<>\s]+)>|([^<>\s]+))$/.exec(s.trim());
  const addr = m?.[1] ?? m?.[2];
  return addr !== undefined && /^[^@\s]+@[^@\s]+$/.test(addr) && !addr.endsWith('.');
}

/** url.ParseRequestURI: an absolute URI or an absolute path, without spaces or fragments. */
function uri(s: string): boolean {
  if (s === '' || /[\s#]/.test(s)) return false;
  return s.startsWith('/') || /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s);
}

/** time.Parse("2006-01-02"): the day must exist in its month. */
export function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]!;
  return d <= days;
}

/** strfmt.IsDateTime: a date, `t`, then a time of day with a zone, compared as kube-openapi compares it. */
function dateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0]!)) return false;
  const m = TIME_OF_DAY.exec(parts[1]!);
  return m !== null && m[1]! <= '23' && m[2]! <= '59' && m[3]! <= '59';
}

function duration(s: string): boolean {
  if (GO_DURATION.test(s) || s === '0') return true;
  for (const [, , unitText] of s.matchAll(HUMAN_DURATION)) {
    const unit = unitText!.toLowerCase().trim();
    const known = DURATION_UNITS.some((variants) =>
      variants.some((v, i) => v.toLowerCase() === unit || (i === variants.length - 1 && unit.startsWith(v))),
    );
    if (known) return true;
  }
  return false;
}

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

function creditCard(s: string): boolean {
  const digits = s.replace(/[^0-9]+/g, '');
  return CREDIT_CARD.test(digits) && luhn(digits);
}

function isbn10(s: string): boolean {
  const v = s.replace(/[\s-]+/g, '');
  if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(v)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(v[i]);
  sum += v[9] === 'X' ? 100 : 10 * Number(v[9]);
  return sum % 11 === 0;
}

function isbn13(s: string): boolean {
  const v = s.replace(/[\s-]+/g, '');
  if (!/^[0-9]{13}$/.test(v)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(v[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === Number(v[12]);
}

/** The formats checked, by normalized name. */
export const kubeFormats: Readonly<Record<string, Check>> = {
  bsonobjectid: rx(/^[0-9a-fA-F]{24}$/),
  uri,
  email,
  hostname,
  ipv4,
  ipv6: (s) => isIPv6(s) || (isIPv4(s) && s.includes(':')),
  cidr,
  mac: rx(MAC),
  uuid: rx(UUID),
  uuid3: rx(UUID3),
  uuid4: rx(UUID4),
  uuid5: rx(UUID5),
  isbn: (s) => isbn10(s) || isbn13(s),
  isbn10,
  isbn13,
  creditcard: creditCard,
  ssn: rx(/^\d{3}[- ]?\d{2}[- ]?\d{4}$/),
  hexcolor: rx(/^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/),
  rgbcolor: rx(RGB),
  byte: rx(BASE64),
  password: () => true,
  date: isDate,
  duration,
  datetime: dateTime,
};

/** The checked format a schema's `format` names, or undefined when kube-apiserver ignores it. */
export function normalizeFormat(format: unknown): string | undefined {
  if (typeof format !== 'string' || format === '') return undefined;
  const name = format.replace(/-/g, '');
  return Object.hasOwn(kubeFormats, name) ? name : undefined;
}
