// Validation of custom resources against their openAPIV3Schema. ajv does the JSON-Schema checking; this module
// turns the CRD dialect into ajv's (OpenAPI v3.0's boolean exclusiveMinimum, nullable, x-kubernetes-int-or-string,
// only the formats kube-apiserver checks) and ajv's errors back into the field errors kube-apiserver reports
// (kube-openapi's validators, as apiextensions-apiserver converts their results).

import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { FieldError, field } from '../../api/field.js';
import { kubeFormats, normalizeFormat } from './formats.js';
import { goFloatG } from '../../kubeletconfig/values.js';
import { goRendered } from './gotext.js';
import { validationText as text } from './messages.js';
import { goRegExp } from './regexp.js';
import { asNode, isIntOrString, isNullable, isPlainObject, type SchemaNode } from './nodes.js';
import { anyText } from '../../util/text.js';

/** Keys on the converted schema that carry what the messages need (ajv ignores unknown keywords with strict off). */
const KUBE_TYPE = 'x-dkc-type';
const KUBE_FORMAT = 'x-dkc-format';

let shared: Ajv | undefined;
function ajv(): Ajv {
  if (shared) return shared;
  const a = new Ajv({
    allErrors: true,
    strict: false,
    logger: false,
    verbose: true,
    validateSchema: false,
    code: { regExp: goPatternEngine },
  });
  for (const [name, check] of Object.entries(kubeFormats)) a.addFormat(name, { type: 'string', validate: check });
  shared = a;
  return a;
}

const validPattern = (p: unknown): p is string => typeof p === 'string' && goRegExp(p) instanceof RegExp;

/** ajv's pattern engine: Go patterns (`(?i)…`, escapes unicode mode refuses) compiled as goRegExp reads them. */
const goPatternEngine = Object.assign((pattern: string): RegExp => goRegExp(pattern) as RegExp, { code: 'goRegExp' });

const NUMBERS = ['maxLength', 'minLength', 'multipleOf', 'maxItems', 'minItems', 'maxProperties', 'minProperties'];

/** Value keywords copied as they are, each only when it has the JSON type ajv requires (never a compile error). */
function copyValueKeywords(n: SchemaNode, out: Record<string, unknown>): void {
  for (const k of NUMBERS) if (typeof n[k] === 'number') out[k] = n[k];
  if (n['uniqueItems'] === true) out['uniqueItems'] = true;
  const required = n['required'];
  if (Array.isArray(required)) out['required'] = required.filter((r) => typeof r === 'string');
  if (Array.isArray(n['enum']) && n['enum'].length > 0) out['enum'] = n['enum'];
  if (validPattern(n['pattern'])) out['pattern'] = n['pattern'];
}

function convertType(n: SchemaNode, out: Record<string, unknown>): void {
  const types = isIntOrString(n)
    ? ['integer', 'string']
    : typeof n['type'] === 'string' && n['type']
      ? [n['type']]
      : [];
  if (types.length === 0) return;
  out[KUBE_TYPE] = types.join(',');
  out['type'] = isNullable(n) ? [...types, 'null'] : types.length === 1 ? types[0] : types;
}

function convertBounds(n: SchemaNode, out: Record<string, unknown>): void {
  if (typeof n['minimum'] === 'number')
    out[n['exclusiveMinimum'] === true ? 'exclusiveMinimum' : 'minimum'] = n['minimum'];
  if (typeof n['maximum'] === 'number')
    out[n['exclusiveMaximum'] === true ? 'exclusiveMaximum' : 'maximum'] = n['maximum'];
}

/** The CRD schema node in ajv's dialect (draft 2019-09 keywords); descriptions, defaults and extensions dropped. */
export function toAjv(n: SchemaNode): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  convertType(n, out);
  convertBounds(n, out);
  copyValueKeywords(n, out);
  const format = normalizeFormat(n['format']);
  if (format) {
    out['format'] = format;
    out[KUBE_FORMAT] = n['format'];
  }
  const props = n['properties'];
  if (isPlainObject(props)) out['properties'] = mapNodes(props);
  const items = asNode(n['items']);
  if (items) out['items'] = toAjv(items);
  const additional = n['additionalProperties'];
  if (additional === false) out['additionalProperties'] = false;
  else if (asNode(additional)) out['additionalProperties'] = toAjv(additional as SchemaNode);
  for (const k of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = n[k];
    if (Array.isArray(list)) out[k] = list.map((s) => toAjv(asNode(s) ?? {}));
  }
  const not = asNode(n['not']);
  if (not) out['not'] = toAjv(not);
  return out;
}

function mapNodes(props: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(props)) out[k] = toAjv(asNode(v) ?? {});
  return out;
}

export function compileValidator(root: SchemaNode): ValidateFunction {
  const a = ajv();
  const schema = toAjv(root);
  const fn = a.compile(schema);
  a.removeSchema(schema); // the function stays usable; the instance must not keep every schema ever compiled
  return fn;
}

/** The JSON type kube-openapi sees for a decoded value, and its Go format (int64/float64 as unstructured holds them). */
function goType(v: unknown): { type: string; format: string } {
  if (typeof v === 'boolean') return { type: 'boolean', format: '' };
  if (typeof v === 'string') return { type: 'string', format: '' };
  if (typeof v === 'number')
    return Number.isInteger(v) ? { type: 'integer', format: 'int64' } : { type: 'number', format: 'float64' };
  return Array.isArray(v) ? { type: 'array', format: '' } : { type: 'object', format: '' };
}

/** kube-openapi's typeValidator: which type (or format) a value fails, or undefined where it lets it pass. */
function typeError(path: string, schema: Record<string, unknown>, v: unknown): FieldError | undefined {
  const want = anyText(schema[KUBE_TYPE] ?? '');
  if (v === null) return field.invalid(path, 'null', text.type(path, want, 'null'));
  const types = want.split(',');
  const wantFormat = typeof schema[KUBE_FORMAT] === 'string' ? schema[KUBE_FORMAT] : '';
  const got = goType(v);
  const numeric = types.includes('integer') || types.includes('number');
  const stringLike = got.type === 'string' || got.type === 'array';
  const intAsNumber = got.type === 'integer' && types.includes('number');
  if (!stringLike && wantFormat && !(types.includes(got.type) || got.format === wantFormat || intAsNumber)) {
    return field.invalid(path, got.format, text.type(path, wantFormat, got.format));
  }
  if (!numeric && wantFormat && stringLike) return undefined;
  if (types.includes(got.type) || intAsNumber) return undefined;
  return field.invalid(path, got.type, text.type(path, want, got.type));
}

/**
 * Whether kube-openapi also finds the bound broken: an integer value is compared with the bound truncated to an
 * int64, which never fails where ajv's exact comparison passes, but may pass where it fails (0 against minimum 0.5).
 */
function bound(e: ErrorObject, v: unknown, exclusive: boolean): boolean {
  if (typeof v !== 'number' || !Number.isInteger(v)) return true;
  const { comparison } = e.params as { comparison: string };
  const l = Math.trunc(limit(e));
  if (comparison.startsWith('>')) return exclusive ? v <= l : v < l;
  return exclusive ? v >= l : v > l;
}

/** A number limit as kube-openapi prints it: an integer value is compared (and printed) as int64. */
const limitText = (limit: number, v: unknown): string =>
  typeof v === 'number' && Number.isInteger(v) ? String(Math.trunc(limit)) : goFloatG(limit);

const enumValues = (values: unknown[]): string[] => values.map((x) => (typeof x === 'string' ? x : JSON.stringify(x)));

/** The error paths apiextensions-apiserver reports for errors without a field (anyOf, oneOf, not). */
const NO_PATH = '<nil>';

type Translate = (e: ErrorObject, path: string, v: unknown) => FieldError | undefined | false;

const translators: Record<string, Translate> = {
  type: (e, path, v) => typeError(path, e.parentSchema as Record<string, unknown>, v),
  required: (e, path) => field.required(child(path, String((e.params as { missingProperty: string }).missingProperty))),
  enum: (e, path, v) =>
    field.notSupported(path, v, enumValues((e.params as { allowedValues: unknown[] }).allowedValues)),
  maxLength: (e, path, v) => new FieldError('FieldValueTooLong', path, v, text.tooLongDetail(limit(e))),
  minLength: (e, path, v) => field.invalid(path, v, text.tooShort(path, limit(e))),
  pattern: (e, path, v) =>
    field.invalid(path, v, text.pattern(path, String((e.params as { pattern: string }).pattern))),
  format: (e, path, v) =>
    field.invalid(
      path,
      v,
      text.type(path, String((e.parentSchema as Record<string, unknown>)[KUBE_FORMAT]), String(v)),
    ),
  minimum: (e, path, v) =>
    bound(e, v, false) && field.invalid(path, v, text.minimum(path, limitText(limit(e), v), false)),
  exclusiveMinimum: (e, path, v) =>
    bound(e, v, true) && field.invalid(path, v, text.minimum(path, limitText(limit(e), v), true)),
  maximum: (e, path, v) =>
    bound(e, v, false) && field.invalid(path, v, text.maximum(path, limitText(limit(e), v), false)),
  exclusiveMaximum: (e, path, v) =>
    bound(e, v, true) && field.invalid(path, v, text.maximum(path, limitText(limit(e), v), true)),
  multipleOf: (e, path, v) =>
    field.invalid(path, v, text.multipleOf(path, limitText((e.params as { multipleOf: number }).multipleOf, v))),
  maxItems: (e, path, v) => field.tooMany(path, (v as unknown[]).length, limit(e)),
  minItems: (e, path, v) => field.invalid(path, (v as unknown[]).length, text.minItems(path, limit(e))),
  maxProperties: (e, path, v) => field.tooMany(path, Object.keys(v as object).length, limit(e)),
  minProperties: (e, path, v) =>
    field.invalid(path, Object.keys(v as object).length, text.minProperties(path, limit(e))),
  uniqueItems: (_e, path) => field.invalid(path, '', text.unique(path)),
  additionalProperties: (e, path) => {
    const key = String((e.params as { additionalProperty: string }).additionalProperty);
    return field.invalid(path, key, text.forbiddenProperty(path, key));
  },
  anyOf: (_e, path) => field.invalid(NO_PATH, '', text.anyOf(path)),
  oneOf: (e, path) => field.invalid(NO_PATH, '', text.oneOf(path, passing(e))),
  not: (_e, path) => field.invalid(NO_PATH, '', text.not(path)),
};

const limit = (e: ErrorObject): number => Number((e.params as { limit: number }).limit);
const passing = (e: ErrorObject): number => {
  const p = (e.params as { passingSchemas: number[] | null }).passingSchemas;
  return Array.isArray(p) ? p.length : 0;
};
const child = (path: string, key: string): string => (path ? `${path}.${key}` : key);

/** kube's field path of a JSON pointer into `root`: `spec.items[0].name`. */
function locate(root: unknown, pointer: string): { path: string; value: unknown } {
  let path = '';
  let value = root;
  if (pointer === '') return { path, value };
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(value)) {
      path += `[${key}]`;
      value = value[Number(key)];
    } else {
      path = child(path, key);
      value = isPlainObject(value) ? value[key] : undefined;
    }
  }
  return { path, value };
}

/** kube-openapi's order of checks on one value: type, combinators, string, format, number, array, enum, object. */
const RANK: Record<string, number> = {
  type: 0,
  anyOf: 1,
  oneOf: 1,
  not: 1,
  maxLength: 2,
  minLength: 3,
  pattern: 4,
  format: 5,
  multipleOf: 6,
  minimum: 7,
  exclusiveMinimum: 7,
  maximum: 8,
  exclusiveMaximum: 8,
  maxItems: 9,
  minItems: 9,
  uniqueItems: 9,
  enum: 10,
  minProperties: 11,
  maxProperties: 11,
  additionalProperties: 12,
  required: 13,
};
/** A branch's errors follow the summary of their alternative. */
const rank = (e: ErrorObject): number => (branchOf(e) ? 1.5 : (RANK[e.keyword] ?? 14));

/** One schema's string checks stop at its first failure (maxLength, then minLength, then pattern). */
const STRING_CHECKS = new Set(['maxLength', 'minLength', 'pattern']);

interface Branch {
  /** The schema path of the anyOf/oneOf/not keyword the error lies under. */
  at: string;
  kind: string;
  index: string;
}

/** The first anyOf/oneOf/not the error lies under; a property named like a keyword (`properties/not`) is no keyword. */
function branchOf(e: ErrorObject): Branch | undefined {
  const segments = e.schemaPath.split('/');
  for (let i = 1; i < segments.length - 1; i++) {
    const seg = segments[i]!;
    if (seg === 'properties') i++;
    else if (seg === 'anyOf' || seg === 'oneOf' || seg === 'not') {
      return { at: segments.slice(0, i + 1).join('/'), kind: seg, index: segments[i + 1]! };
    }
  }
  return undefined;
}

/**
 * Alternatives that fail report one summary error and, as kube-openapi's "best failure", the errors of their first
 * branch (branches tie on kube's match count in the CRD patterns that occur, int-or-string's anyOf above all);
 * `not` and a oneOf that several branches pass report the summary only.
 */
function alternativesFiltered(errors: ErrorObject[]): ErrorObject[] {
  const passedOneOf = new Set(errors.filter((e) => e.keyword === 'oneOf' && passing(e) > 0).map((e) => e.schemaPath));
  return errors.filter((e) => {
    const b = branchOf(e);
    return !b || (b.kind !== 'not' && b.index === '0' && !passedOneOf.has(b.at));
  });
}

/** Errors grouped by the value they concern (in ajv's order of values), each group in kube-openapi's order of checks. */
function ordered(errors: ErrorObject[]): ErrorObject[] {
  const first = new Map<string, number>();
  for (const e of errors) if (!first.has(e.instancePath)) first.set(e.instancePath, first.size);
  return errors
    .map((e, i) => ({ e, i }))
    .sort((a, b) => first.get(a.e.instancePath)! - first.get(b.e.instancePath)! || rank(a.e) - rank(b.e) || a.i - b.i)
    .map(({ e }) => e);
}

/** An error of a value validated on its own, moved under the field path the value has (`….default`). */
function rebase(err: FieldError, base: string): FieldError {
  if (err.field === '' && !base) return new FieldError(err.type, NO_PATH, err.badValue, err.detail);
  if (!base) return err;
  const path = err.field === NO_PATH || err.field === '' ? base : `${base}.${err.field}`;
  return new FieldError(err.type, path, err.badValue, err.detail);
}

/**
 * kube-apiserver's field errors for ajv's, in a stable order. `base` is the field path of the validated value
 * when it is not a whole object (its errors then name their fields relative to it, as upstream's do).
 */
export function translate(errors: ErrorObject[] | null | undefined, obj: unknown, base = ''): FieldError[] {
  const out: FieldError[] = [];
  const stringChecked = new Set<string>();
  for (const e of ordered(alternativesFiltered(errors ?? []))) {
    if (STRING_CHECKS.has(e.keyword)) {
      const validator = `${e.instancePath}|${e.schemaPath.slice(0, e.schemaPath.lastIndexOf('/'))}`;
      if (stringChecked.has(validator)) continue;
      stringChecked.add(validator);
    }
    const { path, value } = locate(obj, e.instancePath);
    const err = translators[e.keyword]?.(e, path, value);
    if (err) out.push(goRendered(rebase(err, base)));
  }
  return out;
}
