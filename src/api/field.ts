// Field-level validation errors in apimachinery's shape (k8s.io/apimachinery/pkg/util/validation/field):
// the rendered text of each error type is what kubectl users grep for, so it is reproduced exactly.

import { goQuote } from '../gotext/quote.js';

export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError';

const typeText: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
};

/** Types whose rendering omits the offending value. */
const valueless = new Set<FieldErrorType>([
  'FieldValueRequired',
  'FieldValueForbidden',
  'FieldValueTooLong',
  'InternalError',
]);

export { goQuote };

function renderValue(v: unknown): string {
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v === null || v === undefined) return 'null';
  return JSON.stringify(v);
}

export class FieldError {
  constructor(
    readonly type: FieldErrorType,
    readonly field: string,
    readonly badValue: unknown,
    readonly detail: string,
  ) {}

  /** The part after `<field>: `, which is also a StatusCause's message. */
  body(): string {
    let s = typeText[this.type];
    if (!valueless.has(this.type)) s = `${s}: ${renderValue(this.badValue)}`;
    if (this.detail) s += `: ${this.detail}`;
    return s;
  }

  toString(): string {
    return `${this.field}: ${this.body()}`;
  }
}

export const field = {
  required: (path: string, detail = '') => new FieldError('FieldValueRequired', path, '', detail),
  invalid: (path: string, value: unknown, detail = '') => new FieldError('FieldValueInvalid', path, value, detail),
  forbidden: (path: string, detail = '') => new FieldError('FieldValueForbidden', path, '', detail),
  notSupported: (path: string, value: unknown, valid: string[]) =>
    new FieldError(
      'FieldValueNotSupported',
      path,
      value,
      valid.length ? `supported values: ${valid.map(goQuote).join(', ')}` : '',
    ),
  duplicate: (path: string, value: unknown) => new FieldError('FieldValueDuplicate', path, value, ''),
  notFound: (path: string, value: unknown) => new FieldError('FieldValueNotFound', path, value, ''),
  tooLong: (path: string, max: number) =>
    new FieldError('FieldValueTooLong', path, '', `must have at most ${max} bytes`),
  tooMany: (path: string, actual: number, max: number) =>
    new FieldError('FieldValueTooMany', path, actual, `must have at most ${max} items`),
  internal: (path: string, err: Error) => new FieldError('InternalError', path, '', err.message),
};

/**
 * utilerrors.NewAggregate(...).Error(): one message as is, several as `[a, b]`, duplicates removed.
 */
export function aggregate(messages: string[]): string {
  const seen = new Set<string>();
  const unique: string[] = [];
  for (const m of messages) {
    if (!seen.has(m)) {
      seen.add(m);
      unique.push(m);
    }
  }
  if (unique.length === 1) return unique[0]!;
  return `[${unique.join(', ')}]`;
}
