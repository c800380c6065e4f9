// Go's text for decoded JSON values, where kube-apiserver's output passes values through fmt: `%v` of a
// float64, fmt.Fprint (printer columns) and `%#v` (bad values in field errors).

import { FieldError } from '../../api/field.js';
import { GoValueFieldError } from '../../api/validation/goprint.js';
import { goQuote } from '../../gotext/quote.js';
import { goFloatG } from '../../kubeletconfig/values.js';
import { isPlainObject } from './nodes.js';
import { anyText } from '../../util/text.js';

/** A decoded JSON number: integers as int64 (apimachinery decodes them so), others as Go's `%v` of a float64. */
const goNumber = (v: number): string => (Number.isInteger(v) && Math.abs(v) < 1e21 ? String(v) : goFloatG(v));

/** fmt.Fprint of a decoded JSON value: `map[a:1]`, `[a b]`, `<nil>`. */
export function goPrint(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goPrint).join(' ')}]`;
  const o = v as Record<string, unknown>;
  return `map[${Object.keys(o)
    .sort()
    .map((k) => `${k}:${goPrint(o[k])}`)
    .join(' ')}]`;
}

/** `%#v` of a decoded JSON value: `map[string]interface {}{"a":1}`, `[]interface {}{"x"}`, `interface {}(nil)`. */
export function goSharpV(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSharpV).join(', ')}}`;
  if (!isPlainObject(v)) return anyText(v);
  const body = Object.keys(v)
    .sort()
    .map((k) => `${goQuote(k)}:${goSharpV(v[k])}`);
  return `map[string]interface {}{${body.join(', ')}}`;
}

/**
 * A field error whose bad value prints as apimachinery prints it: nil as the string "null" (quoted), maps and
 * slices in `%#v`; other values are already printed alike.
 */
export function goRendered(err: FieldError): FieldError {
  const v = err.badValue;
  if (v === null || v === undefined) return new FieldError(err.type, err.field, 'null', err.detail);
  if (isPlainObject(v) || Array.isArray(v))
    return new GoValueFieldError(err.type, err.field, v, goSharpV(v), err.detail);
  return err;
}
