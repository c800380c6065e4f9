import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchingTolerations, toleratesTaint, untoleratedTaints, type Toleration } from '../../src/api/tolerations.js';
import type { Taint } from '../../src/api/types.js';

const taint: Taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };

test('toleratesTaint, as kube matches', () => {
  const rows: [Toleration, boolean][] = [
    [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }, true],
    [{ key: 'dedicated', operator: 'Equal', value: 'gpu' }, true],
    [{ key: 'dedicated', value: 'cpu' }, false],
    [{ key: 'dedicated', operator: 'Exists' }, true],
    [{ key: 'other', operator: 'Exists' }, false],
    [{ operator: 'Exists' }, true],
    [{ operator: 'Exists', effect: 'NoExecute' }, false],
    [{ value: 'gpu' }, false],
    [{ key: 'dedicated', operator: 'Gt', value: 'gpu' }, false],
  ];
  for (const [t, want] of rows) assert.equal(toleratesTaint(t, taint), want, JSON.stringify(t));
});

test('the taints left untolerated, and the tolerations used', () => {
  const other: Taint = { key: 'x', effect: 'NoExecute' };
  const used: Toleration = { key: 'dedicated', operator: 'Exists' };
  assert.deepEqual(untoleratedTaints([taint, other], [used]), [other]);
  assert.deepEqual(matchingTolerations([taint, other], [used, { key: 'y', operator: 'Exists' }]), [used]);
});
