// JSON patch engine (RFC 6902): the RFC's appendix A examples, pointer escaping and array indices,
// kube-style failures with their PatchError codes, atomicity, immutability of inputs and the
// amplification limits.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import {
  applyJsonPatch,
  MAX_DEPTH,
  MAX_JSON_PATCH_OPERATIONS,
  PatchError,
  parsePointer,
  type JsonObject,
  type JsonValue,
  type PatchErrorCode,
} from '../../../src/server/patch/index.js';

function throwsPatch(fn: () => unknown, code: PatchErrorCode, message?: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof PatchError, `expected a PatchError, got ${String(err)}`);
    assert.equal(err.code, code, `code of "${err.message}"`);
    if (message) assert.match(err.message, message);
    return true;
  });
}

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    for (const c of Object.values(v)) deepFreeze(c);
    Object.freeze(v);
  }
  return v;
}

const apply = (doc: JsonObject, patch: JsonValue): JsonObject => applyJsonPatch(deepFreeze(doc), deepFreeze(patch));

describe('RFC 6902 appendix A', () => {
  it('A.1 adds an object member', () => {
    assert.deepEqual(apply({ foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }]), { baz: 'qux', foo: 'bar' });
  });
  it('A.2 adds an array element', () => {
    assert.deepEqual(apply({ foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }]), {
      foo: ['bar', 'qux', 'baz'],
    });
  });
  it('A.3 removes an object member', () => {
    assert.deepEqual(apply({ baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }]), { foo: 'bar' });
  });
  it('A.4 removes an array element', () => {
    assert.deepEqual(apply({ foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }]), {
      foo: ['bar', 'baz'],
    });
  });
  it('A.5 replaces a value', () => {
    assert.deepEqual(apply({ baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }]), {
      baz: 'boo',
      foo: 'bar',
    });
  });
  it('A.6 moves a value', () => {
    const doc = { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } };
    assert.deepEqual(apply(doc, [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }]), {
      foo: { bar: 'baz' },
      qux: { corge: 'grault', thud: 'fred' },
    });
  });
  it('A.7 moves an array element', () => {
    assert.deepEqual(
      apply({ foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }]),
      {
        foo: ['all', 'cows', 'eat', 'grass'],
      },
    );
  });
  it('A.8 tests a value successfully', () => {
    const doc = { baz: 'qux', foo: ['a', 2, 'c'] };
    assert.deepEqual(
      apply(doc, [
        { op: 'test', path: '/baz', value: 'qux' },
        { op: 'test', path: '/foo/1', value: 2 },
      ]),
      doc,
    );
  });
  it('A.9 reports a failing test', () => {
    throwsPatch(
      () => apply({ baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }]),
      'DKC_PATCH_TEST_FAILED',
      /testing value "\/baz" failed: test failed/,
    );
  });
  it('A.10 adds a nested member object', () => {
    assert.deepEqual(apply({ foo: 'bar' }, [{ op: 'add', path: '/child', value: { grandchild: {} } }]), {
      foo: 'bar',
      child: { grandchild: {} },
    });
  });
  it('A.11 ignores unrecognized elements', () => {
    assert.deepEqual(apply({ foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }]), {
      foo: 'bar',
      baz: 'qux',
    });
  });
  it('A.12 refuses to add to a nonexistent target', () => {
    throwsPatch(
      () => apply({ foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }]),
      'DKC_PATCH_MISSING_PATH',
      /doc is missing path: "\/baz\/bat"/,
    );
  });
  it('A.13 (duplicate "op", as parsed: the last one wins) removes a missing member and fails', () => {
    const parsed = JSON.parse('[{ "op": "add", "path": "/baz", "value": "qux", "op": "remove" }]') as JsonValue;
    throwsPatch(() => apply({ foo: 'bar' }, parsed), 'DKC_PATCH_MISSING_PATH');
  });
  it('A.14 decodes ~ escapes in the right order', () => {
    const doc = { '/': 9, '~1': 10 };
    assert.deepEqual(apply(doc, [{ op: 'test', path: '/~01', value: 10 }]), doc);
  });
  it('A.15 does not equate strings and numbers', () => {
    throwsPatch(
      () => apply({ '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: '10' }]),
      'DKC_PATCH_TEST_FAILED',
    );
  });
  it('A.16 adds an array value', () => {
    assert.deepEqual(apply({ foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }]), {
      foo: ['bar', ['abc', 'def']],
    });
  });
});

describe('pointers and indices', () => {
  it('decodes RFC 6901 pointers', () => {
    assert.deepEqual(parsePointer(''), []);
    assert.deepEqual(parsePointer('/'), ['']);
    assert.deepEqual(parsePointer('/a~1b/m~0n/~01'), ['a/b', 'm~n', '~1']);
    throwsPatch(() => parsePointer('a/b'), 'DKC_PATCH_INVALID');
    throwsPatch(() => parsePointer('/a~2'), 'DKC_PATCH_INVALID');
    throwsPatch(() => parsePointer('/a~'), 'DKC_PATCH_INVALID');
  });

  it('addresses annotation keys with "/" through ~1', () => {
    const node = { metadata: { annotations: { 'node.alpha.kubernetes.io/ttl': '0' } } };
    const out = apply(node, [
      { op: 'replace', path: '/metadata/annotations/node.alpha.kubernetes.io~1ttl', value: '30' },
      { op: 'add', path: '/metadata/annotations/example.com~1owner', value: 'me' },
    ]);
    assert.deepEqual(out.metadata, {
      annotations: { 'node.alpha.kubernetes.io/ttl': '30', 'example.com/owner': 'me' },
    });
  });

  it('appends with "-" and inserts at index == length, but not past it', () => {
    assert.deepEqual(apply({ a: [1] }, [{ op: 'add', path: '/a/1', value: 2 }]), { a: [1, 2] });
    assert.deepEqual(apply({ a: [] }, [{ op: 'add', path: '/a/-', value: 1 }]), { a: [1] });
    throwsPatch(() => apply({ a: [1] }, [{ op: 'add', path: '/a/3', value: 2 }]), 'DKC_PATCH_MISSING_PATH');
  });

  it('rejects non-canonical and out-of-range indices', () => {
    throwsPatch(() => apply({ a: [1, 2] }, [{ op: 'add', path: '/a/01', value: 0 }]), 'DKC_PATCH_MISSING_PATH');
    throwsPatch(() => apply({ a: [1, 2] }, [{ op: 'remove', path: '/a/2' }]), 'DKC_PATCH_MISSING_PATH');
    throwsPatch(() => apply({ a: [1, 2] }, [{ op: 'remove', path: '/a/-' }]), 'DKC_PATCH_MISSING_PATH');
    throwsPatch(() => apply({ a: [1, 2] }, [{ op: 'replace', path: '/a/x', value: 0 }]), 'DKC_PATCH_MISSING_PATH');
    throwsPatch(() => apply({ a: [1, 2] }, [{ op: 'remove', path: '/a/-1' }]), 'DKC_PATCH_MISSING_PATH');
  });

  it('treats members named like Object.prototype properties as ordinary keys', () => {
    throwsPatch(() => apply({}, [{ op: 'remove', path: '/toString' }]), 'DKC_PATCH_MISSING_PATH');
    throwsPatch(() => apply({}, [{ op: 'test', path: '/constructor', value: null }]), 'DKC_PATCH_TEST_FAILED');
    const out = apply({}, [{ op: 'add', path: '/__proto__', value: { polluted: true } }]);
    assert.ok(Object.prototype.hasOwnProperty.call(out, '__proto__'));
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.equal((out as Record<string, unknown>)['polluted'], undefined);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });

  it('replaces and tests the whole document with the empty pointer', () => {
    assert.deepEqual(apply({ a: 1 }, [{ op: 'replace', path: '', value: { b: 2 } }]), { b: 2 });
    assert.deepEqual(apply({ a: 1 }, [{ op: 'test', path: '', value: { a: 1 } }]), { a: 1 });
    throwsPatch(
      () => apply({ a: 1 }, [{ op: 'replace', path: '', value: [1] }]),
      'DKC_PATCH_INVALID',
      /must be a JSON object/,
    );
    throwsPatch(() => apply({ a: 1 }, [{ op: 'remove', path: '' }]), 'DKC_PATCH_INVALID');
  });
});

describe('operations', () => {
  it('replace keeps the member in place and requires it to exist', () => {
    const out = apply({ a: 1, b: 2, c: 3 }, [{ op: 'replace', path: '/b', value: null }]);
    assert.deepEqual(Object.keys(out), ['a', 'b', 'c']);
    assert.equal(out['b'], null);
    throwsPatch(
      () => apply({ a: 1 }, [{ op: 'replace', path: '/spec/foo', value: 1 }]),
      'DKC_PATCH_MISSING_PATH',
      /replace operation does not apply: doc is missing key: "\/spec\/foo"/,
    );
  });

  it('add replaces an existing member', () => {
    assert.deepEqual(apply({ a: { x: 1 } }, [{ op: 'add', path: '/a', value: 5 }]), { a: 5 });
  });

  it('copy deep-copies, so later edits do not leak into the source', () => {
    const out = apply({ spec: { podCIDRs: ['10.0.0.0/24'] } }, [
      { op: 'copy', from: '/spec/podCIDRs', path: '/spec/backup' },
      { op: 'add', path: '/spec/backup/-', value: 'fd00::/64' },
    ]);
    assert.deepEqual(out, { spec: { podCIDRs: ['10.0.0.0/24'], backup: ['10.0.0.0/24', 'fd00::/64'] } });
  });

  it('move onto itself is a no-op, into its own child is malformed', () => {
    assert.deepEqual(apply({ a: { b: 1 } }, [{ op: 'move', from: '/a', path: '/a' }]), { a: { b: 1 } });
    throwsPatch(
      () => apply({ a: { b: 1 } }, [{ op: 'move', from: '/a', path: '/a/b/c' }]),
      'DKC_PATCH_INVALID',
      /own child/,
    );
    throwsPatch(() => apply({ a: 1 }, [{ op: 'move', from: '', path: '/x' }]), 'DKC_PATCH_INVALID');
    // A sibling sharing a name prefix is not a child.
    assert.deepEqual(apply({ a: 1 }, [{ op: 'move', from: '/a', path: '/ab' }]), { ab: 1 });
  });

  it('move and copy need an existing source', () => {
    throwsPatch(
      () => apply({}, [{ op: 'move', from: '/nope', path: '/x' }]),
      'DKC_PATCH_MISSING_PATH',
      /doc is missing from path: "\/nope"/,
    );
    throwsPatch(() => apply({}, [{ op: 'copy', from: '/nope', path: '/x' }]), 'DKC_PATCH_MISSING_PATH');
  });

  it('test compares structurally, ignoring member order', () => {
    const doc = {
      spec: { configSource: { configMap: { name: 'c', namespace: 'kube-system', kubeletConfigKey: 'kubelet' } } },
    };
    const patch: JsonValue = [
      {
        op: 'test',
        path: '/spec/configSource',
        value: { configMap: { kubeletConfigKey: 'kubelet', namespace: 'kube-system', name: 'c' } },
      },
      { op: 'remove', path: '/spec/configSource' },
    ];
    assert.deepEqual(apply(doc, patch), { spec: {} });
    throwsPatch(
      () => apply(doc, [{ op: 'test', path: '/spec/configSource/configMap', value: { name: 'c' } }]),
      'DKC_PATCH_TEST_FAILED',
    );
    throwsPatch(() => apply(doc, [{ op: 'test', path: '/spec/missing', value: null }]), 'DKC_PATCH_TEST_FAILED');
    throwsPatch(() => apply({ a: 1 }, [{ op: 'test', path: '/a', value: 1.5 }]), 'DKC_PATCH_TEST_FAILED');
    throwsPatch(() => apply({ a: [1, 2] }, [{ op: 'test', path: '/a', value: [2, 1] }]), 'DKC_PATCH_TEST_FAILED');
  });

  it('is atomic: a failing operation leaves no partial result and the input untouched', () => {
    const doc = { metadata: { labels: { a: '1' } } };
    const snapshot = structuredClone(doc);
    throwsPatch(
      () =>
        applyJsonPatch(doc, [
          { op: 'add', path: '/metadata/labels/b', value: '2' },
          { op: 'test', path: '/metadata/labels/a', value: 'other' },
        ]),
      'DKC_PATCH_TEST_FAILED',
    );
    assert.deepEqual(doc, snapshot);
  });

  it('never mutates the original or the patch', () => {
    const doc = { a: [1, 2, 3], b: { c: { d: 1 } } };
    const patch = [
      { op: 'add', path: '/a/0', value: { v: 0 } },
      { op: 'move', from: '/b/c', path: '/e' },
      { op: 'add', path: '/e/x', value: 2 },
      { op: 'remove', path: '/a/1' },
    ];
    const docCopy = structuredClone(doc);
    const patchCopy = structuredClone(patch);
    const out = applyJsonPatch(doc, patch);
    assert.deepEqual(out, { a: [{ v: 0 }, 2, 3], b: {}, e: { d: 1, x: 2 } });
    assert.deepEqual(doc, docCopy);
    assert.deepEqual(patch, patchCopy);
    // The result shares nothing with the inputs.
    (out['a'] as JsonValue[]).push(9);
    assert.deepEqual(patch, patchCopy);
  });
});

describe('malformed JSON patches', () => {
  it('rejects an object body (client-node default content type) with a hint', () => {
    throwsPatch(
      () => apply({}, { spec: { unschedulable: true } }),
      'DKC_PATCH_INVALID',
      /must be a JSON array of operations, got an object/,
    );
  });

  it('rejects other non-array bodies', () => {
    for (const body of [null, 'add', 3, true]) throwsPatch(() => apply({}, body), 'DKC_PATCH_INVALID');
  });

  it('validates every operation before applying any', () => {
    // The first operation would fail its test; the malformed second one is what gets reported.
    throwsPatch(
      () =>
        apply({ a: 1 }, [
          { op: 'test', path: '/a', value: 2 },
          { op: 'add', value: 1 },
        ]),
      'DKC_PATCH_INVALID',
    );
  });

  it('rejects operations with missing or mistyped members', () => {
    const cases: JsonValue[] = [
      ['not an object'],
      [{ path: '/a', value: 1 }],
      [{ op: 'add', value: 1 }],
      [{ op: 'add', path: 5, value: 1 }],
      [{ op: 'add', path: '/a' }],
      [{ op: 'replace', path: '/a' }],
      [{ op: 'test', path: '/a' }],
      [{ op: 'move', path: '/a' }],
      [{ op: 'copy', path: '/a', from: 1 }],
      [{ op: 'frobnicate', path: '/a' }],
      [{ op: 'ADD', path: '/a', value: 1 }],
      [{ op: 'add', path: 'a', value: 1 }],
    ];
    for (const patch of cases) throwsPatch(() => apply({ a: 0 }, patch), 'DKC_PATCH_INVALID');
    throwsPatch(
      () => apply({}, [{ op: 'frobnicate', path: '/a' }]),
      'DKC_PATCH_INVALID',
      /Unexpected kind: frobnicate/,
    );
  });

  it('accepts null as an explicit value', () => {
    assert.deepEqual(apply({}, [{ op: 'add', path: '/a', value: null }]), { a: null });
  });

  it('an empty patch is a no-op', () => {
    assert.deepEqual(apply({ a: 1 }, []), { a: 1 });
  });
});

describe('limits', () => {
  it('caps the number of operations', () => {
    const ops = Array.from({ length: MAX_JSON_PATCH_OPERATIONS + 1 }, () => ({ op: 'test', path: '', value: {} }));
    throwsPatch(() => applyJsonPatch({}, ops), 'DKC_PATCH_INVALID', /maximum operations/);
    assert.deepEqual(applyJsonPatch({}, ops.slice(1)), {});
  });

  it('stops copy amplification', () => {
    // Each copy of the whole document into a new member doubles its size.
    const ops = Array.from({ length: 40 }, (_, i) => ({ op: 'copy', from: '', path: `/c${i}` }));
    throwsPatch(() => applyJsonPatch({ seed: 'x'.repeat(100) }, ops), 'DKC_PATCH_INVALID', /accumulated size/);
  });

  it('rejects results nested deeper than the limit, however they were built', () => {
    let value: JsonValue = 1;
    for (let i = 0; i < MAX_DEPTH - 2; i++) value = { v: value };
    // The patch itself is exactly MAX_DEPTH deep (array, operation, value), and so is this result.
    const ok = applyJsonPatch({ b: {} }, [{ op: 'add', path: '/b/a', value }]);
    assert.ok(ok['b']);
    throwsPatch(
      () => applyJsonPatch({ b: { c: {} } }, [{ op: 'add', path: '/b/c/a', value }]),
      'DKC_PATCH_INVALID',
      /deeper than 100/,
    );
    throwsPatch(
      () => applyJsonPatch({}, [{ op: 'add', path: '/a', value: { v: value } }]),
      'DKC_PATCH_INVALID',
      /deeper than 100/,
    );
    // Moving a subtree under its sibling, repeatedly, deepens the document one level per operation.
    const ops: JsonValue[] = [];
    for (let i = 0; i < 200; i++) {
      ops.push(
        { op: 'add', path: '/n', value: {} },
        { op: 'move', from: '/t', path: '/n/t' },
        { op: 'move', from: '/n', path: '/t' },
      );
    }
    throwsPatch(() => applyJsonPatch({ t: {} }, ops), 'DKC_PATCH_INVALID', /deeper than 100/);
  });
});
