import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachBounded } from '../../src/util/bounded.js';

describe('forEachBounded', () => {
  it('keeps at most `limit` calls in flight and runs every item', async () => {
    let inFlight = 0;
    let most = 0;
    const done: number[] = [];
    await forEachBounded([...Array(20).keys()], 4, async (i) => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, (i * 7) % 5));
      inFlight--;
      done.push(i);
    });
    assert.equal(most, 4);
    assert.deepEqual(
      done.sort((a, b) => a - b),
      [...Array(20).keys()],
    );
  });

  it('attempts every item even when some fail, then rejects with the first failure', async () => {
    const attempted: number[] = [];
    await assert.rejects(
      forEachBounded([1, 2, 3, 4, 5], 2, async (i) => {
        attempted.push(i);
        if (i === 2 || i === 4) throw new Error(`item ${i}`);
      }),
      /item 2/,
    );
    assert.deepEqual(attempted, [1, 2, 3, 4, 5]);
  });
});
