// YAML request bodies composed once, in time and memory linear in the body, with depth, node and token budgets that
// stop the parse as soon as one is spent. The yaml package's own `uniqueKeys` check compares each key with every
// earlier key of its map (quadratic: 20,000 labels cost seconds), and its composer recurses once per level (a body of
// nested flow collections overflows the stack after taking gigabytes), so repeated keys are found here with a set per
// map on an iterative walk, and the lexer's tokens are counted, and the parser's nesting watched, while it runs.
// Errors keep the package's words: the first line of what `parse(text, { uniqueKeys: true })` would throw.

import {
  Composer,
  CST,
  isMap,
  isSeq,
  isScalar,
  Lexer,
  LineCounter,
  Parser,
  YAMLParseError,
  type Document,
  type YAMLError,
} from 'yaml';
import { bodyText } from './messages.js';

export interface YamlLimits {
  readonly depth: number;
  readonly nodes: number;
  readonly tokens: number;
}

export type YamlLimit = keyof YamlLimits;

/** A budget spent: the parse stopped there, having done no more than the budget's worth of work. */
export class YamlLimitError extends Error {
  constructor(
    readonly limit: YamlLimit,
    readonly value: number,
  ) {
    super(`yaml ${limit} limit ${value} exceeded`);
    this.name = 'YamlLimitError';
  }

  /** The refusal as the client reads it, naming `what` was sent ("the body of the request", "the patch"). */
  text(what: string): string {
    if (this.limit === 'depth') return bodyText.tooDeep(what, this.value);
    if (this.limit === 'nodes') return bodyText.tooManyYamlNodes(what, this.value);
    return bodyText.tooManyYamlTokens(what, this.value);
  }
}

const NODE_STARTS: ReadonlySet<string> = new Set([
  'scalar',
  'single-quoted-scalar',
  'double-quoted-scalar',
  'block-scalar-header',
  'alias',
  'flow-map-start',
  'flow-seq-start',
  'seq-item-ind',
  'explicit-key-ind',
  'map-value-ind',
  'comma',
]);

/**
 * The parser's CST documents, lexing and parsing one token at a time and stopping at the first budget spent. The
 * parser's stack holds the document and every collection still open (and at most a scalar on top): more than
 * `depth + 2` entries is a value nested deeper than `depth`.
 */
function* boundedTokens(text: string, parser: Parser, limits: YamlLimits): Generator<CST.Token> {
  let tokens = 0;
  let nodes = 0;
  let atScalar = false;
  for (const lexeme of new Lexer().lex(text)) {
    if (++tokens > limits.tokens) throw new YamlLimitError('tokens', limits.tokens);
    if (atScalar) {
      atScalar = false; // the source of the scalar its marker announced
    } else {
      const type = CST.tokenType(lexeme);
      if (type === 'scalar') atScalar = true;
      if (type && NODE_STARTS.has(type) && ++nodes > limits.nodes) {
        throw new YamlLimitError('nodes', limits.nodes);
      }
    }
    yield* parser.next(lexeme);
    if (parser.stack.length > limits.depth + 2) throw new YamlLimitError('depth', limits.depth);
  }
  yield* parser.end();
}

/** The offset of the first key repeated in its map (`===` on scalar values, as the yaml package compares them). */
export function firstRepeatedKey(root: unknown): number | undefined {
  let first: number | undefined;
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isMap(node)) {
      const seen = new Set<unknown>();
      for (const pair of node.items) {
        const key = pair.key;
        if (isScalar(key) && !Number.isNaN(key.value)) {
          if (!seen.has(key.value)) seen.add(key.value);
          else if (key.range && (first === undefined || key.range[0] < first)) first = key.range[0];
        }
        stack.push(pair.key, pair.value);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) stack.push(item);
    }
  }
  return first;
}

/** The first line of the message the yaml package's prettified error would carry (`… at line L, column C:`). */
function located(err: YAMLError, text: string, lc: LineCounter): string {
  const message = err.message.split('\n')[0]!;
  if (err.pos[0] === -1) return message;
  const { line, col } = lc.linePos(err.pos[0]);
  const starts = lc.lineStarts;
  const lineStr = text.substring(starts[line - 1]!, starts[line]).replace(/[\n\r]+$/, '');
  // The package shows the line (and the one before when pointing at its indentation), `…` where it trims one
  // longer than 80 characters, and ends the first line with `:` when what it shows is not blank.
  let shown = lineStr;
  if (line > 1 && /^ *$/.test(lineStr.substring(0, col - 1)))
    shown = text.substring(starts[line - 2]!, starts[line - 1]) + shown;
  const pointed = lineStr.length > 80 || /[^ ]/.test(shown);
  return `${message} at line ${line}, column ${col}${pointed ? ':' : ''}`;
}

export interface ComposedYaml {
  readonly doc: Document.Parsed;
  /** The first syntax error (repeated keys aside), in the yaml package's words. */
  readonly error: string | undefined;
  /** The first repeated key, in the words of the package's `uniqueKeys` check. */
  readonly repeatedKey: string | undefined;
  /** Whichever of the two `parse` with `uniqueKeys: true` would have thrown. */
  readonly firstError: string | undefined;
}

/** One YAML document, composed once within `limits` (throws YamlLimitError when one is spent). */
export function composeYaml(text: string, limits: YamlLimits): ComposedYaml {
  const lc = new LineCounter();
  lc.addNewLine(0);
  const parser = new Parser(lc.addNewLine);
  const composer = new Composer({ uniqueKeys: false });
  let doc: Document.Parsed | undefined;
  for (const next of composer.compose(boundedTokens(text, parser, limits), true, text.length)) {
    if (!doc) {
      doc = next;
      continue;
    }
    doc.errors.push(new YAMLParseError([next.range[0], next.range[1]], 'MULTIPLE_DOCS', bodyText.multipleDocuments));
    break;
  }
  const composed = doc!; // compose(…, forceDoc = true) always yields a document
  const syntax = composed.errors[0];
  const repeatedAt = firstRepeatedKey(composed.contents);
  const repeated =
    repeatedAt === undefined
      ? undefined
      : new YAMLParseError([repeatedAt, repeatedAt + 1], 'DUPLICATE_KEY', bodyText.duplicateKey);
  const error = syntax && located(syntax, text, lc);
  const repeatedKey = repeated && located(repeated, text, lc);
  const repeatedFirst = repeated !== undefined && (syntax === undefined || repeated.pos[0] < syntax.pos[0]);
  return { doc: composed, error, repeatedKey, firstError: repeatedFirst ? repeatedKey : error };
}
