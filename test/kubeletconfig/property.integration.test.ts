import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  DecodeError,
  Duration,
  KNOWN_FEATURES,
  Quantity,
  aggregate,
  decode,
  encode,
  setDefaults,
  validate,
  validateStartup,
  type PartialKubeletConfiguration,
} from '../../src/kubeletconfig/index.js';
import { kubeletConfigurationSpec, type FieldSpec, type StructSpec } from '../../src/kubeletconfig/codec.js';

// Characters chosen to stress YAML and JSON quoting, plus any valid Unicode scalar.
const SPECIAL = [
  ...'\n\t\r\0"\'\\#:- {}[],&*!|>%@`?~.<\u0085\u00a0\u2028\u2029\ufeff\u007f',
  '<<',
  '---',
  '...',
  'yes',
  'null',
  '0x1F',
  '1e3',
  '0777',
];
const char = fc.oneof(
  fc.constantFrom(...SPECIAL),
  fc.constantFrom(...'abcxyzABC0189._/='),
  fc
    .integer({ min: 0x20, max: 0x10ffff })
    .filter((c) => c < 0xd800 || c > 0xdfff)
    .map((c) => String.fromCodePoint(c)),
);
const str = fc.string({ unit: char, maxLength: 8 });
const key = fc.oneof(str, fc.constantFrom('memory.available', 'cpu', 'memory', '__proto__', 'true', '1'));

const quantityText = fc
  .tuple(
    fc.constantFrom('', '+', '-'),
    fc.stringMatching(/^[0-9]{0,22}$/),
    fc.option(fc.stringMatching(/^[0-9]{0,12}$/), { nil: undefined }),
    fc.constantFrom(
      '',
      'n',
      'u',
      'm',
      'k',
      'M',
      'G',
      'T',
      'P',
      'E',
      'Ki',
      'Mi',
      'Gi',
      'Ti',
      'Pi',
      'Ei',
      'e3',
      'E-7',
      'e+40',
      'e-12',
    ),
  )
  .map(([sign, int, frac, suffix]) => `${sign}${int || '0'}${frac === undefined ? '' : '.' + frac}${suffix}`);
const quantity = quantityText.map((s) => Quantity.parse(s));

const duration = fc
  .oneof(
    fc.bigInt({ min: -(1n << 63n) + 1n, max: (1n << 63n) - 1n }),
    fc.bigInt({ min: -5_000_000_000n, max: 5_000_000_000n }),
    fc.constantFrom(0n, 100_000_000n, 1_000n, 999n),
  )
  .map((ns) => Duration.fromNanoseconds(ns));

const int32 = fc.oneof(fc.integer({ min: -3, max: 70000 }), fc.constantFrom(0, -1, 2147483647, -2147483648));
const int64 = fc.oneof(
  fc.integer({ min: -3, max: 2_000_000 }),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER),
);
const float = fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0));
const gateName = fc.constantFrom(
  ...[...KNOWN_FEATURES.keys()].filter((n) => !KNOWN_FEATURES.get(n)!.locked),
  'NodeLease',
  'NotAGate',
);

function arb(f: FieldSpec): fc.Arbitrary<unknown> {
  switch (f.kind) {
    case 'bool':
      return fc.boolean();
    case 'int32':
      return int32;
    case 'int64':
      return int64;
    case 'float64':
      return fc.oneof(float, fc.constantFrom(0.5, 1, 0, 2));
    case 'string':
      return fc.oneof(str, fc.constantFrom('none', 'static', 'pod', 'pods', 'json', '1.21', '0-3', 'Webhook'));
    case 'duration':
      return duration;
    case 'strings':
      return fc.array(fc.oneof(str, fc.constantFrom('pods', 'none', 'system-reserved')), { maxLength: 3 });
    case 'stringMap':
      return fc.dictionary(key, str, { maxKeys: 3 });
    case 'stringsMap':
      return fc.dictionary(key, fc.array(str, { maxLength: 2 }), { maxKeys: 2 });
    case 'boolMap':
      return fc.dictionary(gateName, fc.boolean(), { maxKeys: 3 });
    case 'quantityMap':
      return fc.dictionary(fc.constantFrom('memory', 'hugepages-2Mi', 'cpu'), quantity, { maxKeys: 2 });
    case 'struct':
      return structArb(f.struct!);
    case 'reservedMemory':
      return fc.array(
        fc.record(
          {
            numaNode: fc.integer({ min: -1, max: 3 }),
            limits: fc.dictionary(fc.constantFrom('memory', 'hugepages-1Gi', 'x'), quantity, { maxKeys: 2 }),
          },
          { requiredKeys: ['numaNode'] },
        ),
        { maxLength: 3 },
      );
    default:
      // The 1.22 schema has none of the kinds only later minors' fields use.
      throw new Error(`no arbitrary for ${f.kind}`);
  }
}

function structArb(spec: StructSpec): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(Object.fromEntries(spec.fields.map((f) => [f.json, arb(f)])), { requiredKeys: [] });
}

// A random subset of the 102 fields per config keeps generation cheap while every field gets exercised.
const config = fc
  .shuffledSubarray([...kubeletConfigurationSpec.fields], { maxLength: 40 })
  .chain((fields) => fc.record(Object.fromEntries(fields.map((f) => [f.json, arb(f)]))))
  .map((c) => c as PartialKubeletConfiguration);
const format = fc.constantFrom('yaml' as const, 'json' as const);

function checkValidationShape(c: PartialKubeletConfiguration): void {
  const full = setDefaults(c);
  const res = validate(full);
  assert.ok(Array.isArray(res.errors));
  assert.equal(res.message, aggregate(res.errors));
  const st = validateStartup(full);
  assert.ok(Array.isArray(st.errors));
}

// Each run draws a new seed, so the cases add up over runs; 3,000 a run keep the file to a few seconds of CPU.
const RUNS = 3_000;

test(`decode → encode → decode is stable and validate never throws (${RUNS} random configs)`, () => {
  fc.assert(
    fc.property(config, format, (cfg, fmt) => {
      const text1 = encode(cfg, fmt);
      const first = decode(text1);
      assert.equal(first.warnings.length, 0, 'encoded configs carry no unknown or duplicate fields');
      const d1 = first.config;
      const text2 = encode(d1, fmt);
      const d2 = decode(text2).config;
      assert.equal(encode(d2, fmt), text2, 'encode/decode reaches a fixpoint after one pass');
      // Compared once more through decode: a BinarySI quantity that is no multiple of 1024 (812.5Ki) prints without
      // a suffix ("832000", as apimachinery prints it) and reads back as DecimalSI ("832k") — the same value.
      const meaning = (c: PartialKubeletConfiguration) => encode(decode(encode(setDefaults(c), fmt)).config, fmt);
      assert.equal(meaning(d1), meaning(cfg), 'the round trip keeps the meaning');
      checkValidationShape(d1);
    }),
    { numRuns: RUNS },
  );
});

test(`mutated payloads decode or fail with a DecodeError; validate never throws (${RUNS} mutations)`, () => {
  const base = fc.tuple(config, format).map(([cfg, fmt]) => encode(cfg, fmt));
  const mutation = fc.tuple(fc.nat(), fc.nat({ max: 6 }), fc.string({ unit: char, maxLength: 6 }));
  fc.assert(
    fc.property(base, fc.array(mutation, { minLength: 1, maxLength: 3 }), (text, edits) => {
      let mutated = text;
      for (const [at, del, ins] of edits) {
        const i = at % (mutated.length + 1);
        mutated = mutated.slice(0, i) + ins + mutated.slice(i + del);
      }
      let decoded: PartialKubeletConfiguration;
      try {
        decoded = decode(mutated).config;
      } catch (e) {
        assert.ok(e instanceof DecodeError, `unexpected ${String(e)} for ${JSON.stringify(mutated)}`);
        return;
      }
      checkValidationShape(decoded);
      const again = encode(decoded);
      assert.equal(encode(decode(again).config), again);
    }),
    { numRuns: RUNS },
  );
});
