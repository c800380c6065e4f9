import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withDefaultTolerations } from '../../../src/server/pods/defaulttolerations.js';

const nr = { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };
const ur = { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };

test('DefaultTolerationSeconds adds the not-ready and unreachable NoExecute tolerations a Pod lacks, 300 s', () => {
  assert.deepEqual(withDefaultTolerations([]), [nr, ur]);
  const own = { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' };
  assert.deepEqual(withDefaultTolerations([own]), [own, nr, ur], 'after its own');
  const mine = { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 };
  assert.deepEqual(withDefaultTolerations([mine]), [mine, nr], 'its own unreachable toleration is kept as it is');
  assert.deepEqual(withDefaultTolerations([{ operator: 'Exists' }]), [{ operator: 'Exists' }], 'tolerates all already');
  const noSchedule = { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoSchedule' };
  assert.deepEqual(withDefaultTolerations([noSchedule]), [noSchedule, nr, ur], 'a NoSchedule one does not count');
});
