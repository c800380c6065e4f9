// Label and field selectors with Kubernetes' syntax and semantics (k8s.io/apimachinery/pkg/labels
// and pkg/fields). Clients (kubectl describe, the node agent's informers, kubectl delete's wait on
// 1.20) depend on these being parsed exactly like kube-apiserver does, including the quirks: empty
// values, escaped separators, and error texts that end up in 400 responses.

import { isQualifiedName, isValidLabelValue } from './validation/names.js';
import { CodedError, errorMessage } from '../util/errors.js';

// ---- errors ---------------------------------------------------------------------------------

export type SelectorErrorCode =
  /** A label selector does not parse, or a key or value in it is not valid. */
  | 'DKC_API_LABEL_SELECTOR_SYNTAX'
  /** A field selector does not parse. */
  | 'DKC_API_FIELD_SELECTOR_SYNTAX'
  /** A field selector names a field the resource cannot be selected by. */
  | 'DKC_API_FIELD_LABEL_NOT_SUPPORTED';

/** A selector the server cannot use; its message is what goes into the 400 BadRequest Status. */
export class SelectorError extends CodedError<SelectorErrorCode> {
  override name = 'SelectorError';
}

// ---- label selectors ------------------------------------------------------------------------

export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  /** Sorted and de-duplicated, as upstream stores them. */
  values: string[];
}

/** An empty list selects everything. */
export type LabelSelector = LabelRequirement[];

const enum Tok {
  Error,
  EndOfString,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
}

const keywords: ReadonlyMap<string, Tok> = new Map([
  [')', Tok.ClosedPar],
  [',', Tok.Comma],
  ['!', Tok.DoesNotExist],
  ['==', Tok.DoubleEquals],
  ['=', Tok.Equals],
  ['>', Tok.GreaterThan],
  ['in', Tok.In],
  ['<', Tok.LessThan],
  ['!=', Tok.NotEquals],
  ['notin', Tok.NotIn],
  ['(', Tok.OpenPar],
]);

const binaryOperators = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];

interface Scanned {
  tok: Tok;
  lit: string;
}

const isWhitespace = (c: string): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isSpecial = (c: string): boolean => '=!(),><'.includes(c);

/** The lexer reads the whole input up front, as upstream's parser does before interpreting it. */
function lex(input: string): Scanned[] {
  const out: Scanned[] = [];
  let pos = 0;
  const peek = (): string => (pos < input.length ? input[pos]! : '');
  for (;;) {
    while (pos < input.length && isWhitespace(input[pos]!)) pos++;
    const c = peek();
    if (c === '') {
      out.push({ tok: Tok.EndOfString, lit: '' });
      return out;
    }
    if (isSpecial(c)) {
      // Longest run of special characters that still forms a known symbol.
      let buf = '';
      let last: Scanned | undefined;
      while (pos < input.length && isSpecial(input[pos]!)) {
        const next = buf + input[pos]!;
        const t = keywords.get(next);
        if (t !== undefined) {
          last = { tok: t, lit: next };
          buf = next;
          pos++;
        } else if (last) {
          break;
        } else {
          buf = next;
          pos++;
        }
      }
      out.push(last ?? { tok: Tok.Error, lit: `error expected: keyword found '${buf}'` });
      continue;
    }
    let buf = '';
    while (pos < input.length && !isSpecial(input[pos]!) && !isWhitespace(input[pos]!)) buf += input[pos++]!;
    out.push({ tok: keywords.get(buf) ?? Tok.Identifier, lit: buf });
  }
}

/** Where a value is expected, `in` and `notin` are ordinary words (a key or a value may be "in"). */
const enum Ctx {
  KeyAndOperator,
  Values,
}

class LabelParser {
  private pos = 0;
  constructor(private readonly items: Scanned[]) {}

  private look(ctx: Ctx): Scanned {
    const s = this.items[this.pos]!;
    if (ctx === Ctx.Values && (s.tok === Tok.In || s.tok === Tok.NotIn)) return { tok: Tok.Identifier, lit: s.lit };
    return s;
  }

  private take(ctx: Ctx): Scanned {
    const s = this.look(ctx);
    if (this.pos < this.items.length - 1) this.pos++;
    return s;
  }

  parse(): LabelSelector {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.look(Ctx.Values);
      switch (tok) {
        case Tok.Identifier:
        case Tok.DoesNotExist: {
          let r: LabelRequirement;
          try {
            r = this.parseRequirement();
          } catch (e) {
            throw new SelectorError(
              'DKC_API_LABEL_SELECTOR_SYNTAX',
              `unable to parse requirement: ${errorMessage(e)}`,
              { cause: e },
            );
          }
          reqs.push(r);
          const next = this.take(Ctx.Values);
          if (next.tok === Tok.EndOfString) return reqs;
          if (next.tok === Tok.Comma) {
            const after = this.look(Ctx.Values);
            if (after.tok !== Tok.Identifier && after.tok !== Tok.DoesNotExist) {
              throw new SelectorError(
                'DKC_API_LABEL_SELECTOR_SYNTAX',
                `found '${after.lit}', expected: identifier after ','`,
              );
            }
            break;
          }
          throw new SelectorError(
            'DKC_API_LABEL_SELECTOR_SYNTAX',
            `found '${next.lit}', expected: ',' or 'end of string'`,
          );
        }
        case Tok.EndOfString:
          return reqs;
        default:
          throw new SelectorError(
            'DKC_API_LABEL_SELECTOR_SYNTAX',
            `found '${lit}', expected: !, identifier, or 'end of string'`,
          );
      }
    }
  }

  private parseRequirement(): LabelRequirement {
    let op: LabelOperator | undefined;
    let s = this.take(Ctx.Values);
    if (s.tok === Tok.DoesNotExist) {
      op = '!';
      s = this.take(Ctx.Values);
    }
    if (s.tok !== Tok.Identifier) throw new Error(`found '${s.lit}', expected: identifier`);
    const key = s.lit;
    checkLabelKey(key);
    const after = this.look(Ctx.Values).tok;
    // A unary `!key` ends the requirement whatever follows; the caller then rejects e.g. `!a=b`.
    if (op === '!' || after === Tok.EndOfString || after === Tok.Comma) {
      return newLabelRequirement(key, op ?? 'exists', []);
    }
    const operator = this.parseOperator();
    const values = operator === 'in' || operator === 'notin' ? this.parseValues() : this.parseExactValue();
    return newLabelRequirement(key, operator, values);
  }

  private parseOperator(): LabelOperator {
    const { tok, lit } = this.take(Ctx.KeyAndOperator);
    switch (tok) {
      case Tok.In:
        return 'in';
      case Tok.Equals:
        return '=';
      case Tok.DoubleEquals:
        return '==';
      case Tok.GreaterThan:
        return 'gt';
      case Tok.LessThan:
        return 'lt';
      case Tok.NotIn:
        return 'notin';
      case Tok.NotEquals:
        return '!=';
      default:
        throw new Error(`found '${lit}', expected: ${binaryOperators.join(', ')}`);
    }
  }

  private parseValues(): string[] {
    const open = this.take(Ctx.Values);
    if (open.tok !== Tok.OpenPar) throw new Error(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.look(Ctx.Values);
    switch (tok) {
      case Tok.Identifier:
      case Tok.Comma: {
        const set = this.parseIdentifiersList();
        if (this.take(Ctx.Values).tok !== Tok.ClosedPar) throw new Error(`found '${lit}', expected: ')'`);
        return set;
      }
      case Tok.ClosedPar:
        this.take(Ctx.Values);
        return [''];
      default:
        throw new Error(`found '${lit}', expected: ',', ')' or identifier`);
    }
  }

  private parseIdentifiersList(): string[] {
    const set = new Set<string>();
    for (;;) {
      const { tok, lit } = this.take(Ctx.Values);
      if (tok === Tok.Identifier) {
        set.add(lit);
        const next = this.look(Ctx.Values);
        if (next.tok === Tok.Comma) continue;
        if (next.tok === Tok.ClosedPar) return [...set];
        throw new Error(`found '${next.lit}', expected: ',' or ')'`);
      }
      if (tok === Tok.Comma) {
        // Adjacent or dangling commas stand for an empty value: "(,a)", "(a,)", "(a,,b)".
        if (set.size === 0) set.add('');
        const next = this.look(Ctx.Values);
        if (next.tok === Tok.ClosedPar) {
          set.add('');
          return [...set];
        }
        if (next.tok === Tok.Comma) {
          this.take(Ctx.Values);
          set.add('');
        }
        continue;
      }
      throw new Error(`found '${lit}', expected: ',', or identifier`);
    }
  }

  private parseExactValue(): string[] {
    const next = this.look(Ctx.Values);
    if (next.tok === Tok.EndOfString || next.tok === Tok.Comma) return [''];
    const { tok, lit } = this.take(Ctx.Values);
    if (tok === Tok.Identifier) return [lit];
    throw new Error(`found '${lit}', expected: identifier`);
  }
}

function checkLabelKey(key: string): void {
  const errs = isQualifiedName(key);
  if (errs.length) throw new Error(`invalid label key ${JSON.stringify(key)}: ${errs.join('; ')}`);
}

const INT64 = /^[+-]?\d+$/;

/** labels.NewRequirement: validates the key, the value count for the operator, and each value. */
export function newLabelRequirement(key: string, operator: LabelOperator, values: readonly string[]): LabelRequirement {
  checkLabelKey(key);
  const vals = [...new Set(values)].sort();
  switch (operator) {
    case 'in':
    case 'notin':
      if (vals.length === 0) throw new Error("for 'in', 'notin' operators, values set can't be empty");
      break;
    case '=':
    case '==':
    case '!=':
      if (vals.length !== 1) throw new Error('exact-match compatibility requires one single value');
      break;
    case 'exists':
    case '!':
      if (vals.length !== 0) throw new Error('values set must be empty for exists and does not exist');
      break;
    case 'gt':
    case 'lt':
      if (vals.length !== 1) throw new Error("for 'Gt', 'Lt' operators, exactly one value is required");
      for (const v of vals)
        if (!INT64.test(v)) throw new Error("for 'Gt', 'Lt' operators, the value must be an integer");
      break;
  }
  for (const v of vals) {
    const errs = isValidLabelValue(v);
    if (errs.length)
      throw new Error(`invalid label value: ${JSON.stringify(v)}: at key: ${JSON.stringify(key)}: ${errs.join('; ')}`);
  }
  return { key, operator, values: vals };
}

/**
 * labels.Parse. Requirements come back sorted by key, as upstream sorts them; "" and whitespace
 * select everything.
 */
export function parseLabelSelector(selector: string): LabelSelector {
  const reqs = new LabelParser(lex(selector)).parse();
  return reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** metav1.LabelSelector, as objects carry it (a rollout's or a policy's nodeSelector). */
export interface ObjectLabelSelector {
  matchLabels?: Readonly<Record<string, string>>;
  matchExpressions?: readonly { key: string; operator: string; values?: readonly string[] }[];
}

const OBJECT_SELECTOR_OPERATORS: Readonly<Record<string, LabelOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/** metav1.LabelSelectorAsSelector: the requirements of an object's selector (none selects everything); throws on an invalid one. */
export function objectSelectorRequirements(sel: ObjectLabelSelector | undefined): LabelSelector {
  const reqs: LabelRequirement[] = [];
  for (const [k, v] of Object.entries(sel?.matchLabels ?? {})) reqs.push(newLabelRequirement(k, '=', [v]));
  for (const e of sel?.matchExpressions ?? []) {
    const op = OBJECT_SELECTOR_OPERATORS[e.operator];
    if (op === undefined) throw new Error(`${JSON.stringify(e.operator)} is not a valid label selector operator`);
    reqs.push(newLabelRequirement(e.key, op, e.values ?? []));
  }
  return reqs;
}

export type Labels = Readonly<Record<string, string>> | undefined | null;

function has(labels: Labels, key: string): boolean {
  return !!labels && Object.prototype.hasOwnProperty.call(labels, key);
}

export function matchesLabelRequirement(r: LabelRequirement, labels: Labels): boolean {
  const present = has(labels, r.key);
  const value = present ? labels![r.key]! : '';
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return present && r.values.includes(value);
    case 'notin':
    case '!=':
      return !present || !r.values.includes(value);
    case 'exists':
      return present;
    case '!':
      return !present;
    case 'gt':
    case 'lt': {
      if (!present || !INT64.test(value)) return false;
      const have = BigInt(value);
      const want = BigInt(r.values[0]!);
      return r.operator === 'gt' ? have > want : have < want;
    }
  }
}

export function matchesLabels(selector: LabelSelector, labels: Labels): boolean {
  return selector.every((r) => matchesLabelRequirement(r, labels));
}

/** The selector's canonical text (labels.Selector.String()), e.g. for messages naming the selector. */
export function labelSelectorString(selector: LabelSelector): string {
  return selector
    .map((r) => {
      switch (r.operator) {
        case 'exists':
          return r.key;
        case '!':
          return `!${r.key}`;
        case 'in':
        case 'notin':
          return `${r.key} ${r.operator} (${r.values.join(',')})`;
        case 'gt':
          return `${r.key}>${r.values[0]}`;
        case 'lt':
          return `${r.key}<${r.values[0]}`;
        default:
          return `${r.key}${r.operator}${r.values[0]}`;
      }
    })
    .join(',');
}

// ---- field selectors ------------------------------------------------------------------------

export type FieldOperator = '=' | '!=';

export interface FieldRequirement {
  field: string;
  /** `==` is folded into `=`, as upstream's hasTerm does. */
  operator: FieldOperator;
  value: string;
}

/** Splits on commas not preceded by a backslash; the escapes stay in the terms. */
function splitTerms(selector: string): string[] {
  if (selector === '') return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

const termOperators = ['!=', '==', '='] as const;

/** The first operator occurrence splits the term: field names cannot contain escapes. */
function splitTerm(term: string): { lhs: string; op: (typeof termOperators)[number]; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of termOperators) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/** fields.UnescapeValue: `\\`, `\,` and `\=` are the only escapes; bare `,` or `=` are errors. */
export function unescapeFieldValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c === '\\' || c === ',' || c === '=') out += c;
      else
        throw new SelectorError(
          'DKC_API_FIELD_SELECTOR_SYNTAX',
          `invalid field selector: invalid escape sequence: \\${c}`,
        );
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=') {
      // Go prints the rune with %v, i.e. as its code point number.
      throw new SelectorError(
        'DKC_API_FIELD_SELECTOR_SYNTAX',
        `invalid field selector: unescaped character in value: ${c.codePointAt(0)}`,
      );
    } else out += c;
  }
  if (inSlash)
    throw new SelectorError('DKC_API_FIELD_SELECTOR_SYNTAX', 'invalid field selector: invalid escape sequence: \\');
  return out;
}

/** fields.EscapeValue, for building selectors from arbitrary values. */
export function escapeFieldValue(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/,/g, '\\,').replace(/=/g, '\\=');
}

/**
 * fields.ParseSelector. Terms are returned in sorted order (upstream sorts them), so the result
 * does not depend on the order a client happened to emit them in; empty terms are skipped.
 */
export function parseFieldSelector(selector: string): FieldRequirement[] {
  const parts = splitTerms(selector).sort();
  const reqs: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const t = splitTerm(part);
    if (!t)
      throw new SelectorError(
        'DKC_API_FIELD_SELECTOR_SYNTAX',
        `invalid selector: '${selector}'; can't understand '${part}'`,
      );
    const value = unescapeFieldValue(t.rhs);
    reqs.push({ field: t.lhs, operator: t.op === '!=' ? '!=' : '=', value });
  }
  return reqs;
}

/** A missing field reads as "", as upstream's fields.Set does. */
export function matchesFields(
  reqs: readonly FieldRequirement[],
  getter: (fieldPath: string) => string | undefined,
): boolean {
  return reqs.every((r) => {
    const v = getter(r.field) ?? '';
    return r.operator === '=' ? v === r.value : v !== r.value;
  });
}

/** The error kube-apiserver gives for a field the resource cannot be selected by. */
export function fieldLabelNotSupported(name: string): SelectorError {
  return new SelectorError('DKC_API_FIELD_LABEL_NOT_SUPPORTED', `field label not supported: ${name}`);
}

/** Throws for the first requirement on a field outside `supported`. */
export function checkSupportedFields(reqs: readonly FieldRequirement[], supported: Iterable<string>): void {
  const ok = new Set(supported);
  for (const r of reqs) if (!ok.has(r.field)) throw fieldLabelNotSupported(r.field);
}

/** The selector's canonical text, escapes included. */
export function fieldSelectorString(reqs: readonly FieldRequirement[]): string {
  return reqs.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`).join(',');
}
