// Property: on every document the library's fast YAML reader accepts, it agrees with the full reader (the
// `yaml` package under go-yaml v2's resolution) — the same tree, the same duplicate keys, and an error exactly
// when the full reader errs. Documents are generated in the fast reader's subset (block maps and sequences,
// compact "- key: value" items, plain and quoted scalars, one-line flow collections, comments, blank lines,
// document markers, CRLF), then some are damaged by one inserted character, so that both readers also meet
// near-misses of the subset.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseYAML, writeJSON } from '../../src/kubeletconfig/text.js';

const RUNS = 3000;

// Plain scalars go-yaml v2 resolves to something other than a string, and strings that look close to them.
const PLAIN_TOKENS = [
  '1',
  '-1',
  '+1',
  '0',
  '007',
  '0777',
  '0x1F',
  '0b101',
  '1_000',
  '1.5',
  '-1.5e-7',
  '1e3',
  '.5',
  '5.',
  '.inf',
  '-.Inf',
  '.NaN',
  'true',
  'False',
  'yes',
  'No',
  'on',
  'OFF',
  'y',
  'n',
  'null',
  'Null',
  '~',
  '2001-12-14',
  '12:30:00',
  '1Gi',
  '100m',
  '10s',
  'memory.available',
  'http://x:80/y',
  'a b',
  'a  b',
  'a:b',
  'a#b',
  'a-b',
  'a,b',
  'a?',
  'x=y',
  'é',
  '日本',
  '-a',
  '.a',
  '<<',
  '=',
  '100Mi',
  'systemd',
  'cgroupfs',
];
const PLAIN_UNITS = [...'abcxyz019 .:/#-_,?=+~é[]{}\'"!&*|>%@`<\\'];
const QUOTED_UNITS = [
  ...'ab z09 .:#-\'"\\/\n\t\r{}[],!&*|%@`~<é\u00a0\u2028\u0085\u{1f600}\u0007',
  '\\x41',
  '\\u00e9',
  '\\e',
  '\\0',
  '\\N',
  '\\_',
];

const plainText = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...PLAIN_TOKENS) },
  { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom(...PLAIN_UNITS), minLength: 1, maxLength: 8 }) },
);
const quotedText = fc.string({ unit: fc.constantFrom(...QUOTED_UNITS), maxLength: 8 });

const singleQuoted = (s: string): string => `'${s.replace(/'/g, "''")}'`;
// Mostly JSON's escapes (all valid in YAML); the units above also carry YAML-only ones such as \x41, \e, \N.
const doubleQuoted = (s: string): string =>
  `"${s.replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\t/g, '\\t').replace(/\r/g, '\\r')}"`;

const scalar: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: plainText },
  { weight: 1, arbitrary: quotedText.map(singleQuoted) },
  { weight: 1, arbitrary: quotedText.map(doubleQuoted) },
);

// One-line flow collections: [a, "b", {c: d}], {}, [].
const flowScalar = fc.oneof(
  fc.constantFrom('1', 'a', 'true', '~', 'x y', '0x10', 'a:b', '-1', 'é'),
  quotedText.map(singleQuoted),
  quotedText.map(doubleQuoted),
);
const { flow } = fc.letrec<{ flow: string; item: string }>((tie) => ({
  flow: fc.oneof(
    fc.array(tie('item'), { maxLength: 3 }).map((items) => `[${items.join(', ')}]`),
    fc
      .array(fc.tuple(fc.oneof(flowScalar, fc.constantFrom('k', 'cpu')), tie('item')), { maxLength: 3 })
      .map((es) => `{${es.map(([k, v]) => `${k}: ${v}`).join(', ')}}`),
  ),
  item: fc.oneof({ depthSize: 'small', maxDepth: 2 }, flowScalar, tie('flow')),
}));

const key = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'a',
      'b',
      'kind',
      'apiVersion',
      'evictionHard',
      'memory.available',
      'cpu',
      '1',
      'true',
      'x y',
      'on',
      'null',
      'é',
    ),
  },
  { weight: 1, arbitrary: plainText },
  { weight: 1, arbitrary: quotedText.map(singleQuoted) },
  { weight: 1, arbitrary: quotedText.map(doubleQuoted) },
);

type Node =
  | { kind: 'inline'; text: string }
  | { kind: 'empty' }
  | { kind: 'map'; entries: Array<[string, Node]> }
  | { kind: 'seq'; items: Node[]; underKeySameIndent: boolean };

const { node } = fc.letrec<{ node: Node; map: Node; seq: Node; leaf: Node }>((tie) => ({
  leaf: fc.oneof(
    { weight: 6, arbitrary: scalar.map((text): Node => ({ kind: 'inline', text })) },
    { weight: 1, arbitrary: flow.map((text): Node => ({ kind: 'inline', text })) },
    { weight: 1, arbitrary: fc.constant<Node>({ kind: 'empty' }) },
  ),
  map: fc
    .array(fc.tuple(key, tie('node')), { minLength: 1, maxLength: 4 })
    .map((entries): Node => ({ kind: 'map', entries })),
  seq: fc
    .record({ items: fc.array(tie('node'), { minLength: 1, maxLength: 3 }), underKeySameIndent: fc.boolean() })
    .map((s): Node => ({ kind: 'seq', ...s })),
  node: fc.oneof({ depthSize: 'small', maxDepth: 3, withCrossShrink: true }, tie('leaf'), tie('map'), tie('seq')),
}));

interface Style {
  width: number;
  comment: boolean[];
}

/** Renders `n` as block lines at `indent`; `style.comment` decides, line by line, on a trailing comment. */
function block(n: Node, indent: number, style: Style, out: string[]): void {
  const pad = ' '.repeat(indent);
  const trailing = () => (style.comment[out.length % style.comment.length] ? ' # note' : '');
  if (n.kind === 'map') {
    for (const [k, v] of n.entries) {
      if (v.kind === 'inline') out.push(`${pad}${k}: ${v.text}${trailing()}`);
      else if (v.kind === 'empty') out.push(`${pad}${k}:${trailing()}`);
      else {
        out.push(`${pad}${k}:${trailing()}`);
        block(v, v.kind === 'seq' && v.underKeySameIndent ? indent : indent + style.width, style, out);
      }
    }
  } else if (n.kind === 'seq') {
    for (const item of n.items) {
      if (item.kind === 'inline') out.push(`${pad}- ${item.text}${trailing()}`);
      else if (item.kind === 'empty') out.push(`${pad}-${trailing()}`);
      else if (item.kind === 'map') {
        // Compact form: the first entry on the dash's line, the others aligned with it.
        const start = out.length;
        block(item, indent + 2, style, out);
        out[start] = `${pad}- ${out[start]!.slice(indent + 2)}`;
      } else {
        out.push(`${pad}-`);
        block(item, indent + 2, style, out);
      }
    }
  } else if (n.kind === 'inline') out.push(`${pad}${n.text}${trailing()}`);
}

/** A document as header + body + footer (what may follow the first document). */
const parts = fc
  .record({
    root: fc.oneof(
      node.filter((n) => n.kind === 'map' || n.kind === 'seq'),
      node,
    ),
    width: fc.constantFrom(1, 2, 4),
    comment: fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
    header: fc.constantFrom('', '---\n', '--- # doc\n', '# head\n\n'),
    footer: fc.constantFrom('', '\n', '# tail\n', '...\n', '---\nother: doc\n', '...\nignored: [\n'),
    blankAt: fc.option(fc.nat(), { nil: undefined }),
    crlf: fc.boolean(),
  })
  .map(({ root, width, comment, header, footer, blankAt, crlf }) => {
    const lines: string[] = [];
    block(root, 0, { width, comment }, lines);
    if (blankAt !== undefined) lines.splice(blankAt % (lines.length + 1), 0, blankAt % 2 === 0 ? '' : '  # between');
    const eol = (t: string) => (crlf ? t.replace(/\n/g, '\r\n') : t);
    return { head: eol(header + lines.join('\n') + '\n'), footer: eol(footer) };
  });
const documents = parts.map(({ head, footer }) => head + footer);

// A near-miss: one character the grammar cares about, inserted anywhere in the first document. (Damage after
// it is left out: the kubelet's go-yaml reads only the first document, while the `yaml` package also reports
// syntax errors in later ones; the fast reader follows go-yaml there.)
const DAMAGE = [...':-#\'"[]{},&*!|>%@` \t\n', ': ', ' #', '- ', '  '];
const damaged = fc.tuple(parts, fc.nat(), fc.constantFrom(...DAMAGE)).map(([{ head, footer }, at, ch]) => {
  const i = at % (head.length + 1);
  return head.slice(0, i) + ch + head.slice(i) + footer.replace(/^(\.\.\.|---)\r?\n[^]*$/, '$1\n');
});

type Outcome = { ok: true; json: string; duplicates: string[]; fast: boolean } | { ok: false; error: string };

function read(doc: string, forceFullParser: boolean): Outcome {
  try {
    const r = parseYAML(doc, { forceFullParser });
    return { ok: true, json: writeJSON(r.node), duplicates: r.duplicates, fast: !r.usedFullParser };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

/** Checks one document; returns whether the fast reader took it. */
function agree(doc: string): boolean {
  const fast = read(doc, false);
  if (fast.ok && !fast.fast) return false; // handed to the full reader: nothing to compare
  const full = read(doc, true);
  if (!fast.ok) {
    // Errors raised after reading (conversion to the tree) are the same code on both paths.
    assert.equal(
      full.ok,
      false,
      `fast path failed (${fast.error}) where the full reader accepted ${JSON.stringify(doc)}`,
    );
    return true;
  }
  assert.ok(
    full.ok,
    `fast reader accepted what the full reader rejects (${full.ok ? '' : full.error}): ${JSON.stringify(doc)}`,
  );
  assert.equal(fast.json, full.json, JSON.stringify(doc));
  assert.deepEqual(fast.duplicates, full.duplicates, JSON.stringify(doc));
  return true;
}

test('the fast YAML reader agrees with the full reader on documents of its subset', () => {
  let fastCount = 0;
  let total = 0;
  fc.assert(
    fc.property(documents, (doc) => {
      total++;
      if (agree(doc)) fastCount++;
    }),
    { numRuns: RUNS },
  );
  // The generator stays inside the subset: most documents must really exercise the fast reader.
  assert.ok(fastCount >= total * 0.5, `the fast reader took only ${fastCount} of ${total} generated documents`);
});

test('the fast YAML reader accepts a damaged document only when the full reader reads it the same', () => {
  let fastCount = 0;
  let total = 0;
  fc.assert(
    fc.property(damaged, (doc) => {
      total++;
      if (agree(doc)) fastCount++;
    }),
    { numRuns: RUNS },
  );
  assert.ok(fastCount >= total * 0.2, `the fast reader took only ${fastCount} of ${total} damaged documents`);
});
