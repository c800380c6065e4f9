import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FAILED_POD_BACKOFF, FailedPodBackoff } from '../../../src/controllers/daemonset/backoff.js';

const MAX = FAILED_POD_BACKOFF.maxMs;

describe('FailedPodBackoff', () => {
  const rows: { name: string; nexts: number[]; at: number; inBackoff: boolean; delayMs: number }[] = [
    { name: 'never failed', nexts: [], at: 0, inBackoff: false, delayMs: 0 },
    { name: 'just failed: 1 s', nexts: [0], at: 999, inBackoff: true, delayMs: 1_000 },
    { name: 'the second passed', nexts: [0], at: 1_000, inBackoff: false, delayMs: 1_000 },
    { name: 'failed again: doubled', nexts: [0, 1_000], at: 2_999, inBackoff: true, delayMs: 2_000 },
    { name: 'thrice: 4 s', nexts: [0, 1_000, 3_000], at: 6_999, inBackoff: true, delayMs: 4_000 },
    {
      name: 'capped at 15 min',
      nexts: Array.from({ length: 12 }, (_, i) => i * MAX),
      at: 11 * MAX + 1,
      inBackoff: true,
      delayMs: MAX,
    },
    { name: 'forgotten after twice the cap', nexts: [0, 1_000], at: 1_000 + 2 * MAX + 1, inBackoff: false, delayMs: 0 },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const b = new FailedPodBackoff();
      for (const t of r.nexts) b.next('ds/n', t);
      assert.equal(b.inBackoff('ds/n', r.at), r.inBackoff);
      assert.equal(b.inBackoff('ds/other', r.at), false, 'per node');
      assert.equal(b.delayMs('ds/n'), r.delayMs);
    });
  }

  it('an entry forgotten starts again at 1 s', () => {
    const b = new FailedPodBackoff();
    b.next('k', 0);
    b.next('k', 1_000);
    b.next('k', 1_000 + 2 * MAX + 1);
    assert.equal(b.delayMs('k'), 1_000);
  });
});
