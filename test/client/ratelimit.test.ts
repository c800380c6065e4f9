import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ClientError, TokenBucket } from '../../src/client/index.js';
import { FakeTimers } from './harness.js';

describe('TokenBucket', () => {
  it('lets a burst through at once, then one request per 1/qps, in arrival order', async () => {
    const timers = new FakeTimers();
    const bucket = new TokenBucket(5, 3, timers);
    const order: number[] = [];
    await Promise.all([bucket.acquire(), bucket.acquire(), bucket.acquire()]);
    assert.equal(timers.pending().length, 0);
    const waits = [0, 1, 2].map((i) => bucket.acquire().then(() => order.push(i)));
    assert.deepEqual(
      timers.pending().map((t) => Math.round(t.ms)),
      [200, 400, 600],
    );
    for (const t of timers.pending()) timers.fire(t);
    await Promise.all(waits);
    assert.deepEqual(order, [0, 1, 2]);
  });

  it('refills with time, up to the burst', () => {
    const timers = new FakeTimers();
    const bucket = new TokenBucket(10, 2, timers);
    assert.equal(bucket.tryAcquire(), true);
    assert.equal(bucket.tryAcquire(), true);
    assert.equal(bucket.tryAcquire(), false);
    timers.advance(100);
    assert.equal(bucket.tryAcquire(), true);
    assert.equal(bucket.tryAcquire(), false);
    timers.advance(60_000);
    assert.equal(bucket.tryAcquire(), true);
    assert.equal(bucket.tryAcquire(), true);
    assert.equal(bucket.tryAcquire(), false);
  });

  it('gives the reservation back when a wait is aborted', async () => {
    const timers = new FakeTimers();
    const bucket = new TokenBucket(1, 1, timers);
    await bucket.acquire();
    const ac = new AbortController();
    const waiting = bucket.acquire(ac.signal);
    ac.abort();
    await assert.rejects(waiting, (e: unknown) => e instanceof ClientError && e.code === 'DKC_CLIENT_ABORTED');
    assert.equal(timers.pending().length, 0);
    // Only the first token's debt remains: the next caller waits one interval, not two.
    void bucket.acquire();
    assert.equal(Math.round(timers.pending()[0]!.ms), 1000);
    await assert.rejects(bucket.acquire(AbortSignal.abort()), { code: 'DKC_CLIENT_ABORTED' });
  });

  it('rejects nonsensical settings', () => {
    assert.throws(() => new TokenBucket(0, 1), { code: 'DKC_CLIENT_INVALID_ARGUMENT' });
    assert.throws(() => new TokenBucket(5, 0), { code: 'DKC_CLIENT_INVALID_ARGUMENT' });
    assert.throws(() => new TokenBucket(Number.NaN, 1), { code: 'DKC_CLIENT_INVALID_ARGUMENT' });
  });
});
