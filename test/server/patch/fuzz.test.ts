// Property tests: whatever arrives as a patch body (or, defensively, as the stored object), every
// engine either returns a clean JSON object or throws a PatchError, and never touches its inputs.
// Generators lean on the keys and values the engines treat specially, so directives, merge lists,
// pointers and prototype-named keys are hit far more often than uniform random JSON would.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';

import {
  applyJsonPatch,
  applyMergePatch,
  applyPatch,
  applyStrategicMergePatch,
  MAX_DEPTH,
  PatchError,
  type JsonObject,
  type JsonValue,
} from '../../../src/server/patch/index.js';

const RUNS = 2000;

const plainKeys = [
  'metadata',
  'spec',
  'status',
  'labels',
  'finalizers',
  'ownerReferences',
  'uid',
  'podCIDRs',
  'taints',
  'conditions',
  'addresses',
  'type',
  'name',
  'containers',
  'env',
  'a',
  'b',
  '',
  '__proto__',
  'toString',
  'constructor',
];
const directiveKeys = [
  '$patch',
  '$patch',
  '$retainKeys',
  '$setElementOrder/conditions',
  '$setElementOrder/podCIDRs',
  '$setElementOrder/finalizers',
  '$setElementOrder/taints',
  '$setElementOrder/a',
  '$deleteFromPrimitiveList/podCIDRs',
  '$deleteFromPrimitiveList/finalizers',
  '$deleteFromPrimitiveList/a',
  '$setElementOrder',
  '$deleteFromPrimitiveList/',
  '$other',
];
const scalars: JsonValue[] = [
  'delete',
  'replace',
  'merge',
  'Ready',
  'MemoryPressure',
  'a',
  'b',
  'u1',
  'type',
  'podCIDRs',
  '',
  0,
  1,
  -1.5,
  true,
  false,
  null,
];

function jsonTree(keys: string[]): fc.Arbitrary<JsonValue> {
  const { value } = fc.letrec<{ value: JsonValue; array: JsonValue[]; object: Record<string, JsonValue> }>((tie) => ({
    value: fc.oneof(
      { maxDepth: 5, depthSize: 'small', withCrossShrink: true },
      fc.constantFrom(...scalars),
      fc.string({ maxLength: 4 }),
      tie('array'),
      tie('object'),
    ),
    array: fc.array(tie('value'), { maxLength: 4 }),
    object: fc.dictionary(fc.constantFrom(...keys), tie('value'), { maxKeys: 5 }),
  }));
  return value;
}

const anyObject = (keys: string[]): fc.Arbitrary<JsonObject> =>
  fc.dictionary(fc.constantFrom(...keys), jsonTree(keys), { maxKeys: 6, noNullPrototype: true });

const originals = fc.oneof(
  anyObject(plainKeys),
  fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 5 }) as fc.Arbitrary<JsonObject>,
);
// Plain keys weighted up so that about half of the generated strategic patches apply cleanly.
const patchKeys = [...plainKeys, ...plainKeys, ...plainKeys, ...directiveKeys];
const patchBodies = fc.oneof(
  { weight: 4, arbitrary: anyObject(patchKeys) },
  { weight: 1, arbitrary: jsonTree(patchKeys) },
);
const hostile = fc.anything({
  maxDepth: 4,
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
  withUnicodeString: true,
});

const pointerTokens = [
  'a',
  'b',
  'spec',
  'podCIDRs',
  '0',
  '1',
  '2',
  '-',
  '01',
  '',
  '~0',
  '~1',
  '~',
  '~2',
  '__proto__',
  'constructor',
];
const pointer = fc.oneof(
  fc.array(fc.constantFrom(...pointerTokens), { maxLength: 4 }).map((t) => t.map((s) => '/' + s).join('')),
  fc.constantFrom('', '/', 'a', 'a/b', '/a~'),
);
const jsonPatchOp = fc.record(
  {
    op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'ADD', 'nope'),
    path: fc.oneof(pointer, pointer, fc.constant(7)),
    from: fc.oneof(pointer, fc.constant(null)),
    value: jsonTree(plainKeys),
  },
  { requiredKeys: ['op'] },
);
const jsonPatches = fc.oneof(
  { weight: 4, arbitrary: fc.array(jsonPatchOp, { maxLength: 6 }) },
  { weight: 1, arbitrary: jsonTree(patchKeys) },
);

/** Runs fn and accepts a JSON object result or a PatchError; anything else fails the property. */
function onlyPatchErrors(fn: () => JsonObject): JsonObject | undefined {
  try {
    return fn();
  } catch (err) {
    if (err instanceof PatchError) return undefined;
    throw err;
  }
}

function assertJsonObject(v: JsonObject): void {
  assert.equal(typeof v, 'object');
  assert.ok(v !== null && !Array.isArray(v));
  assertPlainJson(v, '');
  assert.ok(depth(v) <= MAX_DEPTH);
}

/** Round-tripping through JSON loses nothing: no undefined, NaN, functions, holes, class instances or odd prototypes. */
function assertPlainJson(v: unknown, at: string): void {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return;
  if (typeof v === 'number') return assert.ok(Number.isFinite(v), `${at}: ${v} is no JSON number`);
  assert.equal(typeof v, 'object', `${at}: a ${typeof v} is no JSON value`);
  if (Array.isArray(v)) {
    assert.equal(Object.keys(v).length, v.length, `${at}: array with holes or extra properties`);
    v.forEach((c, i) => assertPlainJson(c, `${at}/${i}`));
    return;
  }
  assert.equal(Object.getPrototypeOf(v), Object.prototype, `${at}: object is not a plain object`);
  assert.equal(Object.getOwnPropertySymbols(v).length, 0, `${at}: symbol keys`);
  for (const [k, c] of Object.entries(v as object)) assertPlainJson(c, `${at}/${k}`);
}

function depth(v: JsonValue): number {
  if (v === null || typeof v !== 'object') return 0;
  const children = Array.isArray(v) ? v : Object.values(v);
  return 1 + children.reduce<number>((m, c) => Math.max(m, depth(c)), 0);
}

const directive = /^\$(patch|retainKeys|setElementOrder|deleteFromPrimitiveList)/;
function hasDirectiveKey(v: JsonValue): boolean {
  if (Array.isArray(v)) return v.some(hasDirectiveKey);
  if (v !== null && typeof v === 'object')
    return Object.entries(v).some(([k, c]) => directive.test(k) || hasDirectiveKey(c));
  return false;
}

type Engine = (original: JsonObject, patch: unknown) => JsonObject;
const engines: Array<[string, Engine, fc.Arbitrary<unknown>]> = [
  ['json', applyJsonPatch, jsonPatches],
  ['merge', applyMergePatch, patchBodies],
  ['strategic (Node)', (o, p) => applyStrategicMergePatch(o, p, 'Node'), patchBodies],
  ['strategic (Pod)', (o, p) => applyStrategicMergePatch(o, p, 'Pod'), patchBodies],
];

for (const [name, engine, patches] of engines) {
  describe(`${name} engine under random input`, () => {
    it('returns a JSON object or throws PatchError, leaving the inputs untouched', () => {
      fc.assert(
        fc.property(originals, patches, (original, patch) => {
          const before = JSON.stringify([original, patch]);
          const out = onlyPatchErrors(() => engine(original, patch));
          assert.equal(JSON.stringify([original, patch]), before);
          if (out !== undefined) assertJsonObject(out);
        }),
        { numRuns: RUNS },
      );
    });

    it('throws nothing but PatchError on arbitrary JavaScript values', () => {
      fc.assert(
        fc.property(fc.oneof(originals, hostile), hostile, (original, patch) => {
          onlyPatchErrors(() => engine(original as JsonObject, patch));
        }),
        { numRuns: RUNS },
      );
    });
  });
}

describe('engine properties', () => {
  it('strategic results never carry directive keys (originals without them)', () => {
    fc.assert(
      fc.property(
        anyObject(plainKeys),
        patchBodies,
        fc.constantFrom('Node', 'Pod', 'Namespace', 'Widget'),
        (original, patch, kind) => {
          const out = onlyPatchErrors(() => applyStrategicMergePatch(original, patch, kind));
          if (out !== undefined) assert.ok(!hasDirectiveKey(out), JSON.stringify(out));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('merge patches are idempotent', () => {
    fc.assert(
      fc.property(originals, anyObject(patchKeys), (original, patch) => {
        const once = applyMergePatch(original, patch);
        assert.deepEqual(applyMergePatch(once, patch), once);
      }),
      { numRuns: RUNS },
    );
  });

  it('without lists of objects or directives, strategic and merge patches agree for schema-less kinds', () => {
    const simpleKeys = ['a', 'b', 'c', 'spec', 'conditions', '__proto__'];
    const { value } = fc.letrec<{ value: JsonValue; object: Record<string, JsonValue> }>((tie) => ({
      value: fc.oneof(
        { maxDepth: 4, depthSize: 'small' },
        fc.constantFrom<JsonValue>(null, 1, 'x', true),
        fc.array(fc.constantFrom<JsonValue>(1, 'x', null), { maxLength: 3 }),
        tie('object'),
      ),
      object: fc.dictionary(fc.constantFrom(...simpleKeys), tie('value'), { maxKeys: 4, noNullPrototype: true }),
    }));
    const obj = fc.dictionary(fc.constantFrom(...simpleKeys), value, {
      maxKeys: 4,
      noNullPrototype: true,
    }) as fc.Arbitrary<JsonObject>;
    fc.assert(
      fc.property(obj, obj, (original, patch) => {
        assert.deepEqual(
          applyPatch('strategic', original, patch, 'Widget'),
          applyPatch('merge', original, patch, 'Widget'),
        );
      }),
      { numRuns: RUNS },
    );
  });

  it('a JSON patch that only tests the document returns an equal document', () => {
    fc.assert(
      fc.property(originals, (original) => {
        const ops = Object.keys(original).map((k) => ({
          op: 'test',
          path: '/' + k.replace(/~/g, '~0').replace(/\//g, '~1'),
          value: original[k],
        }));
        // Compared as JSON text: -0 and 0 are the same JSON number, and generated objects may lack a prototype.
        assert.equal(JSON.stringify(applyJsonPatch(original, ops)), JSON.stringify(original));
      }),
      { numRuns: RUNS },
    );
  });
});
