import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { boolParam, int64Param, listResourceVersion, ParamError } from '../../src/server/params.js';

const q = (s: string) => new URLSearchParams(s);

describe('boolParam (apimachinery Convert_Slice_string_To_bool)', () => {
  const cases: [string, boolean][] = [
    ['', false],
    ['watch=true', true],
    ['watch=True', true],
    ['watch=TRUE', true],
    ['watch=1', true],
    ['watch=t', true],
    ['watch=', true],
    ['watch=false', false],
    ['watch=False', false],
    ['watch=FALSE', false],
    ['watch=0', false],
  ];
  for (const [query, want] of cases) it(`?${query} → ${want}`, () => assert.equal(boolParam(q(query), 'watch'), want));
});

describe('int64Param and listResourceVersion', () => {
  it('reads int64 values and refuses what strconv.ParseInt refuses', () => {
    assert.equal(int64Param(q('limit=500'), 'limit'), 500);
    assert.equal(int64Param(q(''), 'limit'), undefined);
    assert.throws(() => int64Param(q('limit=99999999999999999999'), 'limit'), ParamError);
    assert.throws(() => int64Param(q('limit=1e3'), 'limit'), ParamError);
  });
  it('reads resourceVersion and resourceVersionMatch', () => {
    assert.deepEqual(listResourceVersion(q('')), { match: 'NotOlderThan' });
    assert.deepEqual(listResourceVersion(q('resourceVersion=0')), { match: 'NotOlderThan' });
    assert.deepEqual(listResourceVersion(q('resourceVersion=12&resourceVersionMatch=Exact')), {
      revision: 12,
      match: 'Exact',
    });
    for (const bad of [
      'resourceVersion=abc',
      'resourceVersion=-5',
      'resourceVersionMatch=Exact',
      'resourceVersion=1&resourceVersionMatch=x',
    ]) {
      assert.throws(() => listResourceVersion(q(bad)), ParamError, bad);
    }
  });
});
