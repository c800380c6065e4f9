// Renders bad values the way kube-apiserver prints them inside field errors. For structs, slices
// and timestamps upstream falls back to Go's %#v or to a Stringer, so the messages contain Go
// syntax (e.g. `core.NodeConfigSource{ConfigMap:(*core.ConfigMapNodeConfigSource)(nil)}`); the
// generic JSON rendering of FieldError cannot express that, hence this small subclass.

import { FieldError, goQuote, type FieldErrorType } from '../field.js';

const label: Partial<Record<FieldErrorType, string>> = {
  FieldValueInvalid: 'Invalid value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueNotFound: 'Not found',
  FieldValueTooMany: 'Too many',
};

/** A FieldError whose bad value is shown as pre-rendered Go text instead of JSON. */
export class GoValueFieldError extends FieldError {
  constructor(
    type: FieldErrorType,
    fieldPath: string,
    badValue: unknown,
    readonly goText: string,
    detail: string,
  ) {
    super(type, fieldPath, badValue, detail);
  }

  override body(): string {
    const l = label[this.type];
    if (l === undefined) return super.body();
    let s = `${l}: ${this.goText}`;
    if (this.detail) s += `: ${this.detail}`;
    return s;
  }
}

export function invalidGo(path: string, value: unknown, goText: string, detail: string): FieldError {
  return new GoValueFieldError('FieldValueInvalid', path, value, goText, detail);
}

export function duplicateGo(path: string, value: unknown, goText: string, detail = ''): FieldError {
  return new GoValueFieldError('FieldValueDuplicate', path, value, goText, detail);
}

/** %#v of a []string. */
export function goStringSlice(values: readonly string[]): string {
  return `[]string{${values.map(goQuote).join(', ')}}`;
}

/** %#v of a Go pointer field inside a struct: `(*pkg.Type)(nil)` when nil, `&pkg.Type{...}` otherwise. */
export function goNilPointer(typeName: string): string {
  return `(*${typeName})(nil)`;
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/**
 * time.Time.String() of a timestamp, as metav1.Time prints it. Decoded times are in the server's
 * local zone upstream; dkc reports UTC, which is what servers running with TZ=UTC print.
 */
export function goTimeString(value: string | null | undefined): string {
  if (value === null || value === undefined || value === '') return '0001-01-01 00:00:00 +0000 UTC';
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return value;
  const d = new Date(ms);
  // Keep sub-millisecond digits present in the input (MicroTime) instead of the Date's truncation.
  const frac = /\.(\d+)/.exec(value)?.[1]?.replace(/0+$/, '') ?? '';
  const base = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  return `${base}${frac ? `.${frac}` : ''} +0000 UTC`;
}
