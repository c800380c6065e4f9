// Request bodies in YAML: decoded once, in time linear in the body, repeated keys found as the yaml package's
// `uniqueKeys` check finds them (and in its words), and bodies past the depth, node or token budget refused at a
// cost within the budget, never by exhausting the stack or the heap.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { StatusError, MAX_REQUEST_BODY_BYTES } from '../../src/api/errors.js';
import { decodeApplyBody, decodeObjectBody, YAML_LIMITS } from '../../src/server/body.js';

const YAML = 'application/yaml';
const near3MiB = MAX_REQUEST_BODY_BYTES - 1024;

function labels(n: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < n; i++) out[`example.com/label-${i}`] = `value-${i}`;
  return out;
}

function labelsYaml(n: number): string {
  const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: many', '  labels:'];
  for (let i = 0; i < n; i++) lines.push(`    example.com/label-${i}: value-${i}`);
  return lines.join('\n') + '\n';
}

/** CPU milliseconds `fn` took (user + system): steadier than wall time on a shared machine. */
async function cpuMs(fn: () => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

async function refusal(fn: () => Promise<unknown>): Promise<{ code: number; message: string; ms: number }> {
  let caught: unknown;
  const ms = await cpuMs(async () => {
    try {
      await fn();
    } catch (err) {
      caught = err;
    }
  });
  assert.ok(caught instanceof StatusError, `expected a Status, got ${String(caught)}`);
  return { code: caught.code, message: caught.status.message ?? '', ms };
}

const create = (text: string) => decodeObjectBody(Buffer.from(text), YAML);
const apply = (text: string, fv: 'Strict' | 'Warn' | 'Ignore', warnings: string[] = []) =>
  decodeApplyBody(Buffer.from(text), fv, warnings);

describe('YAML bodies: linear in the body', () => {
  it('20,000 labels decode in time linear in their count, as the same object in JSON does', async () => {
    // Against the same decoder on a quarter of the labels, in the same process: a machine busy with other work slows
    // both alike. Linear is about 4x (less, with the fixed cost); a duplicate check per key against the others, 16x.
    const best = async (text: string) => Math.min(await cpuMs(() => create(text)), await cpuMs(() => create(text)));
    const quarter = await best(labelsYaml(5_000));
    const text = labelsYaml(20_000);
    const whole = await best(text);
    assert.ok(whole < 7 * quarter, `20,000 labels took ${whole.toFixed(0)} ms of CPU, 5,000 ${quarter.toFixed(0)} ms`);
    const decoded = (await create(text)) as { metadata: { labels: unknown } };
    assert.deepEqual(decoded.metadata.labels, labels(20_000));
  });

  // Each at the size limit; apply's decoder shares the budgets (checked once: each refusal costs its budget's work).
  const refused: [string, () => string, RegExp][] = [
    ['3 MiB of nested flow sequences', () => '['.repeat(near3MiB), /is nested more than 500 levels deep$/],
    ['3 MiB of nested flow maps', () => '{a: '.repeat(near3MiB / 4), /is nested more than 500 levels deep$/],
    ['3 MiB of nested block sequences', () => 'a:\n' + '- '.repeat(near3MiB / 2) + 'x\n', /nested more than 500/],
    ['3 MiB of one flow sequence', () => 'a: [' + 'a,'.repeat(near3MiB / 2) + ']', /has more than 75000 YAML nodes$/],
    ['3 MiB of blank lines', () => 'a: b' + '\n'.repeat(near3MiB), /has more than 200000 YAML tokens$/],
  ];
  for (const [name, body, message] of refused) {
    it(`${name} is a 400 that costs less than the budget's work`, async () => {
      const text = body();
      assert.ok(text.length <= MAX_REQUEST_BODY_BYTES);
      const r = await refusal(() => create(text));
      assert.equal(r.code, 400);
      assert.match(r.message, /^the body of the request /);
      assert.match(r.message, message);
      assert.ok(r.ms < 1500, `refusing took ${r.ms.toFixed(0)} ms of CPU`);
    });
  }

  it('apply refuses a body past a budget in its own words', async () => {
    const r = await refusal(() => apply('['.repeat(near3MiB), 'Strict'));
    assert.deepEqual([r.code, r.message], [400, 'the patch is nested more than 500 levels deep']);
    assert.ok(r.ms < 500, `refusing took ${r.ms.toFixed(0)} ms of CPU`);
  });

  it('500 levels are accepted in every form; 501 are refused with the same words', async () => {
    const forms: ((n: number) => string)[] = [
      (n) => 'a: ' + '['.repeat(n - 1) + ']'.repeat(n - 1),
      (n) => 'a: ' + '{a: '.repeat(n - 1) + '1' + '}'.repeat(n - 1),
      (n) => Array.from({ length: n }, (_, i) => ' '.repeat(i) + 'a:').join('\n') + ' 1\n',
      (n) => 'a:\n' + '  ' + '- '.repeat(n - 1) + 'x\n',
    ];
    for (const form of forms) {
      await create(form(YAML_LIMITS.depth));
      const r = await refusal(() => create(form(YAML_LIMITS.depth + 1)));
      assert.equal(r.message, 'the body of the request is nested more than 500 levels deep');
    }
    // `[a: …]` is a sequence of one-pair maps: two levels of the value per level of the text.
    const pairs = '[a: '.repeat(300) + '1' + ']'.repeat(300);
    assert.equal(
      (await refusal(() => create(pairs))).message,
      'the body of the request is nested more than 500 levels deep',
    );
  });
});

describe('YAML bodies: errors in the yaml package`s words', () => {
  // What `parse(text, { uniqueKeys: true })` throws (first line), or the value it returns: bodies decode the same.
  const inputs = [
    'a: 1\na: 2\n',
    'metadata:\n  name: x\n  labels:\n    a: b\n    d: e\n    a: c\n    d: f\n',
    '{a: 1, b: {c: 1, c: 2}, a: 2}',
    '[{a: 1}, {a: 1}]',
    '[a: 1, a: 2]',
    'a: 1\nb: [1, 2\n',
    'x:\n  y: 1\n  y: 2\nz: [\n',
    'z: [\nx:\n  y: 1\n  y: 2\n',
    '1: a\n1.0: b\n',
    '"1": a\n1: b\n',
    '~: a\nnull: b\n',
    '.nan: 1\n.nan: 2\n',
    '&x a: 1\na: 2\n',
    'a: 1\n"a": 2\n',
    '? [a]\n: 1\n? [a]\n: 2\n',
    'a: 1\n\n\n   \na: 2',
    'k: ' + 'x'.repeat(100) + '\nk: ' + 'y'.repeat(100),
    ' '.repeat(70) + 'k: 1\n' + ' '.repeat(70) + 'k: 2\n',
    'a: b\n---\nc: d\n',
    'a: *x\n',
    'a: "unterminated\n',
    'a:\n  - b\n  - c: 1\n    c: 2\n',
  ];
  for (const text of inputs) {
    it(`create: ${JSON.stringify(text.slice(0, 40))}`, async () => {
      let want: { value: unknown } | { message: string };
      try {
        want = { value: parse(text, { uniqueKeys: true, maxAliasCount: 100 }) as unknown };
      } catch (err) {
        want = { message: `couldn't get version/kind: yaml parse error: ${(err as Error).message.split('\n')[0]}` };
      }
      let got: { value: unknown } | { message: string };
      try {
        got = { value: await create(text) };
      } catch (err) {
        got = { message: (err as StatusError).status.message ?? '' };
      }
      if ('value' in want && (want.value === null || typeof want.value !== 'object' || Array.isArray(want.value))) {
        assert.ok('message' in got && /must be an object/.test(got.message), JSON.stringify(got));
      } else if ('value' in want) {
        assert.deepEqual(got, { value: { metadata: {}, ...(want.value as object) } });
      } else {
        assert.deepEqual(got, want);
      }
    });
  }

  it('apply: Strict refuses the first repeated key, Warn warns of it, Ignore keeps the last value', async () => {
    const text = 'kind: ConfigMap\ndata:\n  a: "1"\n  b: "1"\n  a: "2"\n';
    assert.deepEqual(await refusal(() => apply(text, 'Strict')).then((r) => [r.code, r.message]), [
      400,
      'error strict decoding YAML: Map keys must be unique at line 5, column 3:',
    ]);
    const warnings: string[] = [];
    assert.deepEqual((await apply(text, 'Warn', warnings))['data'], { a: '2', b: '1' });
    assert.deepEqual(warnings, ['Map keys must be unique at line 5, column 3:']);
    const quiet: string[] = [];
    assert.deepEqual((await apply(text, 'Ignore', quiet))['data'], { a: '2', b: '1' });
    assert.deepEqual(quiet, []);
    const broken = await refusal(() => apply('a: 1\na: 2\nb: [\n', 'Ignore'));
    assert.match(
      broken.message,
      /^error decoding YAML: Flow sequence in block collection must be sufficiently indented/,
    );
  });
});
