// JSON merge patch engine (RFC 7386): the RFC's worked example and appendix A, Kubernetes' rule
// that the patch must be an object, and immutability of inputs.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { applyMergePatch, PatchError, type JsonObject, type JsonValue } from '../../../src/server/patch/index.js';

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    for (const c of Object.values(v)) deepFreeze(c);
    Object.freeze(v);
  }
  return v;
}

const merge = (doc: JsonObject, patch: JsonValue): JsonObject => applyMergePatch(deepFreeze(doc), deepFreeze(patch));

function rejects(patch: unknown, message?: RegExp): void {
  assert.throws(
    () => applyMergePatch({ a: 'foo' }, patch),
    (err: unknown) => {
      assert.ok(err instanceof PatchError, `expected a PatchError, got ${String(err)}`);
      assert.equal(err.code, 'DKC_PATCH_INVALID');
      assert.equal(err.httpStatus, 400);
      if (message) assert.match(err.message, message);
      return true;
    },
  );
}

describe('RFC 7386', () => {
  it('section 3 example', () => {
    const target = {
      title: 'Goodbye!',
      author: { givenName: 'John', familyName: 'Doe' },
      tags: ['example', 'sample'],
      content: 'This will be unchanged',
    };
    const patch = { title: 'Hello!', phoneNumber: '+01-123-456-7890', author: { familyName: null }, tags: ['example'] };
    assert.deepEqual(merge(target, patch), {
      title: 'Hello!',
      author: { givenName: 'John' },
      tags: ['example'],
      content: 'This will be unchanged',
      phoneNumber: '+01-123-456-7890',
    });
  });

  const appendixA: Array<[JsonObject, JsonObject, JsonObject]> = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  appendixA.forEach(([target, patch, result], i) => {
    it(`appendix A object case ${i + 1}: ${JSON.stringify(patch)}`, () => {
      assert.deepEqual(merge(target, patch), result);
    });
  });

  it('appendix A: an object patch over a non-object member starts from an empty object', () => {
    assert.deepEqual(merge({ a: [1, 2] }, { a: { a: 'b', c: null } }), { a: { a: 'b' } });
    assert.deepEqual(merge({ a: 'x' }, { a: { b: { c: null, d: 1 } } }), { a: { b: { d: 1 } } });
  });

  it('appendix A: non-object patches (which RFC 7386 would apply) are rejected by Kubernetes', () => {
    rejects(['c', 'd'], /must be a JSON object, got an array/);
    rejects(['c']);
    rejects(null, /got null/);
    rejects('bar', /got a string/);
    rejects(42);
  });
});

describe('Kubernetes usage', () => {
  it('clears spec.configSource with null (kubectl patch --type=merge)', () => {
    const node = {
      metadata: { name: 'n1' },
      spec: {
        podCIDR: '10.0.0.0/24',
        configSource: { configMap: { name: 'c', namespace: 'kube-system', kubeletConfigKey: 'kubelet' } },
      },
    };
    assert.deepEqual(merge(node, { spec: { configSource: null } }), {
      metadata: { name: 'n1' },
      spec: { podCIDR: '10.0.0.0/24' },
    });
  });

  it('replaces lists wholesale, even merge lists of strategic patches', () => {
    const node = {
      status: {
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'MemoryPressure', status: 'False' },
        ],
      },
    };
    assert.deepEqual(merge(node, { status: { conditions: [{ type: 'Ready', status: 'False' }] } }), {
      status: { conditions: [{ type: 'Ready', status: 'False' }] },
    });
  });

  it('keeps strategic directives as plain keys (they mean nothing here)', () => {
    assert.deepEqual(merge({ a: { x: 1 } }, { a: { $patch: 'delete' } }), { a: { x: 1, $patch: 'delete' } });
  });

  it('handles keys named like Object.prototype members', () => {
    const patch = JSON.parse('{"__proto__":{"x":1},"toString":null,"constructor":null}') as JsonObject;
    const out = merge({ constructor: 'c' }, patch);
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.deepEqual(Object.keys(out), ['__proto__']);
    assert.deepEqual(Object.getOwnPropertyDescriptor(out, '__proto__')?.value, { x: 1 });
  });

  it('never mutates its inputs and shares nothing with them', () => {
    const doc = { metadata: { labels: { a: '1' } }, data: { k: 'v' } };
    const patch = { metadata: { labels: { b: '2', a: null } }, data: { list: [1, 2] } };
    const docCopy = structuredClone(doc);
    const patchCopy = structuredClone(patch);
    const out = applyMergePatch(doc, patch);
    assert.deepEqual(out, { metadata: { labels: { b: '2' } }, data: { k: 'v', list: [1, 2] } });
    assert.deepEqual(doc, docCopy);
    assert.deepEqual(patch, patchCopy);
    ((out['data'] as JsonObject)['list'] as JsonValue[]).push(3);
    assert.deepEqual(patch, patchCopy);
  });

  it('an empty patch is a no-op', () => {
    assert.deepEqual(merge({ a: { b: [1] } }, {}), { a: { b: [1] } });
  });
});
