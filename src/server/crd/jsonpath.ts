// additionalPrinterColumns: the subset of kubectl's JSONPath (k8s.io/client-go/util/jsonpath) that CRDs use —
// `.a.b`, `['a.b']`, `[0]`, `[-1]`, `[1:3]`, `[*]`, `..name`, filters `[?(@.type=="Ready")]` — and the cell
// each column type renders, as apiextensions-apiserver's table convertor does (missing keys give an empty cell,
// and only the first result is shown).

import { field, type FieldError } from '../../api/field.js';
import { humanDuration } from '../../api/humanize.js';
import { goPrint } from './gotext.js';
import { columnText } from './messages.js';
import { isPlainObject } from './nodes.js';
import { CodedError } from '../../util/errors.js';

type Literal = string | number | boolean;
type Operand = { kind: 'path'; steps: Step[] } | { kind: 'literal'; value: Literal };
type Filter = { op: '==' | '!=' | '<' | '>' | '<=' | '>=' | 'exists'; left: Operand; right?: Operand };

export type Step =
  | { kind: 'field'; name: string }
  | { kind: 'recursive'; name: string }
  | { kind: 'wildcard' }
  | { kind: 'index'; index: number }
  | { kind: 'slice'; start: number | undefined; end: number | undefined; step: number | undefined }
  | { kind: 'filter'; filter: Filter };

/** A JSONPath expression (a CRD's additionalPrinterColumns) that does not parse or cannot be evaluated. */
export class JsonPathError extends CodedError<'DKC_SERVER_INVALID_JSONPATH'> {
  override readonly name = 'JsonPathError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('DKC_SERVER_INVALID_JSONPATH', message, options);
  }
}

/** A field name; `\.` escapes a dot inside it (`.metadata.labels.app\.kubernetes\.io/name`). */
const NAME = /^(?:\\.|[^.[\]()\s=!<>'",@\\])+/;

class Parser {
  private pos = 0;
  constructor(private readonly src: string) {}

  parse(): Step[] {
    const steps = this.steps();
    if (this.pos < this.src.length) this.fail(`unexpected ${JSON.stringify(this.src.slice(this.pos))}`);
    return steps;
  }

  private fail(msg: string): never {
    throw new JsonPathError(`invalid JSONPath ${JSON.stringify(this.src)}: ${msg}`);
  }

  private steps(): Step[] {
    const steps: Step[] = [];
    if (this.src[this.pos] === '$') this.pos++;
    for (;;) {
      const c = this.src[this.pos];
      if (c === '.') steps.push(this.dot());
      else if (c === '[') steps.push(this.bracket());
      else return steps;
    }
  }

  private name(): string {
    const m = NAME.exec(this.src.slice(this.pos));
    if (!m) this.fail(`expected a field name at ${this.pos}`);
    this.pos += m[0].length;
    return m[0].replace(/\\(.)/g, '$1');
  }

  private dot(): Step {
    this.pos++;
    if (this.src[this.pos] === '.') {
      this.pos++;
      return { kind: 'recursive', name: this.name() };
    }
    if (this.src[this.pos] === '*') {
      this.pos++;
      return { kind: 'wildcard' };
    }
    return { kind: 'field', name: this.name() };
  }

  private bracket(): Step {
    const close = this.matchingClose();
    if (close < 0) this.fail('unclosed [');
    const inner = this.src.slice(this.pos + 1, close).trim();
    this.pos = close + 1;
    if (inner === '*') return { kind: 'wildcard' };
    if (inner.startsWith('?')) return { kind: 'filter', filter: parseFilter(inner, this.src) };
    const quoted = /^(['"])(.*)\1$/.exec(inner);
    if (quoted) return { kind: 'field', name: quoted[2]! };
    if (/^-?\d+$/.test(inner)) return { kind: 'index', index: Number(inner) };
    const slice = /^(-?\d*):(-?\d*)(?::(-?\d*))?$/.exec(inner);
    if (!slice) this.fail(`unsupported subscript [${inner}]`);
    const num = (s: string | undefined): number | undefined => (s ? Number(s) : undefined);
    return { kind: 'slice', start: num(slice[1]), end: num(slice[2]), step: num(slice[3]) };
  }

  /** The `]` closing the subscript at `pos`, skipping nested brackets and quoted strings. */
  private matchingClose(): number {
    let depth = 0;
    let quote = '';
    for (let i = this.pos; i < this.src.length; i++) {
      const c = this.src[i]!;
      if (quote) {
        if (c === quote) quote = '';
      } else if (c === '"' || c === "'") quote = c;
      else if (c === '[') depth++;
      else if (c === ']' && --depth === 0) return i;
    }
    return -1;
  }
}

function parseOperand(text: string, src: string): Operand {
  const t = text.trim();
  if (t.startsWith('@')) return { kind: 'path', steps: new Parser(t.slice(1)).parse() };
  const quoted = /^(['"])(.*)\1$/.exec(t);
  if (quoted) return { kind: 'literal', value: quoted[2]! };
  if (t === 'true' || t === 'false') return { kind: 'literal', value: t === 'true' };
  if (t !== '' && !Number.isNaN(Number(t))) return { kind: 'literal', value: Number(t) };
  throw new JsonPathError(`invalid JSONPath ${JSON.stringify(src)}: unrecognized operand ${JSON.stringify(t)}`);
}

function parseFilter(inner: string, src: string): Filter {
  const body = /^\?\s*\((.*)\)$/s.exec(inner)?.[1];
  if (body === undefined) throw new JsonPathError(`invalid JSONPath ${JSON.stringify(src)}: malformed filter`);
  const m = /^(.*?)\s*(==|!=|<=|>=|<|>)\s*(.*)$/s.exec(body);
  if (!m) return { op: 'exists', left: parseOperand(body, src) };
  return { op: m[2] as Filter['op'], left: parseOperand(m[1]!, src), right: parseOperand(m[3]!, src) };
}

export function parseJsonPath(path: string): Step[] {
  const trimmed = path.trim().replace(/^\{(.*)\}$/s, '$1');
  return new Parser(trimmed).parse();
}

function recursive(v: unknown, name: string, out: unknown[]): void {
  if (Array.isArray(v)) {
    for (const x of v) recursive(x, name, out);
  } else if (isPlainObject(v)) {
    if (name in v) out.push(v[name]);
    for (const x of Object.values(v)) recursive(x, name, out);
  }
}

function sliceOf(list: unknown[], s: Extract<Step, { kind: 'slice' }>): unknown[] {
  const len = list.length;
  const norm = (i: number): number => Math.min(len, Math.max(0, i < 0 ? len + i : i));
  const step = s.step ?? 1;
  const out: unknown[] = [];
  for (let i = norm(s.start ?? 0); i < norm(s.end ?? len); i += Math.max(1, step)) out.push(list[i]);
  return out;
}

function compare(op: Filter['op'], a: unknown, b: unknown): boolean {
  if (op === '==') return a === b;
  if (op === '!=') return a !== b;
  if (typeof a !== typeof b || (typeof a !== 'number' && typeof a !== 'string')) return false;
  const [x, y] = [a, b as number | string];
  return op === '<' ? x < y : op === '>' ? x > y : op === '<=' ? x <= y : x >= y;
}

function operandValues(o: Operand, item: unknown): unknown[] {
  return o.kind === 'literal' ? [o.value] : evaluate(o.steps, [item]);
}

function matches(f: Filter, item: unknown): boolean {
  const left = operandValues(f.left, item);
  if (f.op === 'exists') return left.length > 0;
  const right = f.right ? operandValues(f.right, item) : [];
  return left.length > 0 && right.length > 0 && compare(f.op, left[0], right[0]);
}

function apply(step: Step, v: unknown, out: unknown[]): void {
  switch (step.kind) {
    case 'field':
      if (isPlainObject(v) && step.name in v) out.push(v[step.name]);
      return;
    case 'recursive':
      return recursive(v, step.name, out);
    case 'wildcard':
      if (Array.isArray(v)) out.push(...(v as unknown[]));
      else if (isPlainObject(v))
        out.push(
          ...Object.keys(v)
            .sort()
            .map((k) => v[k]),
        );
      return;
    case 'index':
      if (Array.isArray(v)) {
        const i = step.index < 0 ? v.length + step.index : step.index;
        if (i >= 0 && i < v.length) out.push(v[i]);
      }
      return;
    case 'slice':
      if (Array.isArray(v)) out.push(...sliceOf(v, step));
      return;
    case 'filter':
      if (Array.isArray(v)) out.push(...(v as unknown[]).filter((x) => matches(step.filter, x)));
  }
}

/** Every value the path selects from `roots`, in document order; missing keys select nothing. */
export function evaluate(steps: readonly Step[], roots: unknown[]): unknown[] {
  let current = roots;
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) apply(step, v, next);
    current = next;
  }
  return current;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** metav1.Time from a query parameter, then its age: `<unknown>` for none, `<invalid>` if unreadable. */
function dateCell(v: string, now: number): string {
  if (v === '' || v === 'null') return '<unknown>';
  const t = RFC3339.test(v) ? Date.parse(v) : NaN;
  return Number.isNaN(t) ? '<invalid>' : humanDuration(now - t);
}

/** A Table cell for a column `type`, from the first value the column's path selects (null for an empty cell). */
export function renderCell(value: unknown, type: string, now: number): unknown {
  if (value === undefined || value === null) return null;
  switch (type) {
    case 'string':
      return goPrint(value);
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      return typeof value === 'string' ? dateCell(value, now) : null;
    default:
      return null;
  }
}

/**
 * One additionalPrinterColumns cell of `obj`: `jsonPath` as the CRD declares it (`.status.phase`), `type` the
 * column's type, `now` the time `date` columns are aged against (ms since the epoch).
 */
export function evaluateColumn(obj: unknown, jsonPath: string | readonly Step[], type: string, now: number): unknown {
  const steps = typeof jsonPath === 'string' ? parseJsonPath(jsonPath) : jsonPath;
  const results = evaluate(steps, [obj]);
  return renderCell(results[0], type, now);
}

/** apiextensions-apiserver's check of a printer column's jsonPath when a CRD is written (validateSimpleJSONPath). */
export function validateSimpleJsonPath(jsonPath: string, fieldPath: string): FieldError[] {
  if (jsonPath === '') return [field.invalid(fieldPath, jsonPath, columnText.empty)];
  if (!jsonPath.startsWith('.')) return [field.invalid(fieldPath, jsonPath, columnText.notSimple)];
  return [];
}
