// The patch entry point: content-type mapping, dispatch, and the PatchError contract the HTTP layer
// relies on (code → status).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import {
  applyPatch,
  isPatchError,
  PatchError,
  patchContentTypeOf,
  patchErrorHttpStatus,
  type PatchErrorCode,
} from '../../../src/server/patch/index.js';

describe('patch entry point', () => {
  it('maps PATCH content types, ignoring parameters and case', () => {
    assert.equal(patchContentTypeOf('application/json-patch+json'), 'json');
    assert.equal(patchContentTypeOf('application/merge-patch+json; charset=utf-8'), 'merge');
    assert.equal(patchContentTypeOf('Application/Strategic-Merge-Patch+JSON'), 'strategic');
    assert.equal(patchContentTypeOf('application/apply-patch+yaml'), 'apply');
    assert.equal(patchContentTypeOf('application/json'), undefined);
    assert.equal(patchContentTypeOf('toString'), undefined);
    assert.equal(patchContentTypeOf(''), undefined);
  });

  it('maps error codes to 400 for malformed patches and 422 otherwise', () => {
    const expected: Record<PatchErrorCode, number> = {
      DKC_PATCH_INVALID: 400,
      DKC_PATCH_CONFLICT: 422,
      DKC_PATCH_TEST_FAILED: 422,
      DKC_PATCH_MISSING_PATH: 422,
    };
    assert.deepEqual({ ...patchErrorHttpStatus }, expected);
    for (const code of Object.keys(expected) as PatchErrorCode[]) {
      const err = new PatchError(code, 'm');
      assert.equal(err.httpStatus, expected[code]);
      assert.equal(err.name, 'PatchError');
      assert.ok(err instanceof Error);
      assert.ok(isPatchError(err));
    }
    assert.ok(!isPatchError(new Error('x')));
  });

  it('reports each engine failure with the documented code', () => {
    const node = { metadata: { name: 'n' }, spec: {} };
    const codeOf = (fn: () => unknown): string => {
      try {
        fn();
      } catch (err) {
        assert.ok(err instanceof PatchError);
        return err.code;
      }
      return 'no error';
    };
    assert.equal(
      codeOf(() => applyPatch('json', node, { spec: {} }, 'Node')),
      'DKC_PATCH_INVALID',
    );
    assert.equal(
      codeOf(() => applyPatch('json', node, [{ op: 'remove', path: '/spec/foo' }], 'Node')),
      'DKC_PATCH_MISSING_PATH',
    );
    assert.equal(
      codeOf(() => applyPatch('json', node, [{ op: 'test', path: '/metadata/name', value: 'm' }], 'Node')),
      'DKC_PATCH_TEST_FAILED',
    );
    assert.equal(
      codeOf(() => applyPatch('merge', node, [], 'Node')),
      'DKC_PATCH_INVALID',
    );
    assert.equal(
      codeOf(() => applyPatch('strategic', node, { spec: { $patch: 'x' } }, 'Node')),
      'DKC_PATCH_INVALID',
    );
    assert.equal(
      codeOf(() => applyPatch('strategic', { spec: { podCIDRs: [{}] } }, { spec: { podCIDRs: ['a'] } }, 'Node')),
      'DKC_PATCH_CONFLICT',
    );
    assert.equal(
      codeOf(() => applyPatch('strategic', node, { spec: { unschedulable: true } }, 'Node')),
      'no error',
    );
  });

  it('rejects an original that is not a JSON object', () => {
    assert.throws(() => applyPatch('merge', [] as unknown as Record<string, never>, {}, 'Node'), PatchError);
    assert.throws(() => applyPatch('strategic', null as unknown as Record<string, never>, {}, 'Node'), PatchError);
    assert.throws(() => applyPatch('json', 'x' as unknown as Record<string, never>, [], 'Node'), PatchError);
  });

  it('keeps the error cause when a value cannot be read', () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new RangeError('nope');
        },
      },
    );
    assert.throws(
      () => applyPatch('merge', {}, hostile, 'Node'),
      (err: unknown) => {
        assert.ok(err instanceof PatchError);
        assert.equal(err.code, 'DKC_PATCH_INVALID');
        assert.ok(err.cause instanceof RangeError);
        return true;
      },
    );
  });
});
