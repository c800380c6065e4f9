import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TokenBucket } from '../../src/client/index.js';
import { sleep, systemClock } from '../../src/util/clock.js';
import { FakeClock } from '../helpers/fakeclock.js';

test('the system clock has a wall and a monotonic side', async () => {
  const wall = systemClock.now();
  assert.ok(wall instanceof Date && Math.abs(wall.getTime() - Date.now()) < 1000);
  const m0 = systemClock.monotonicMs();
  await sleep(systemClock, 20, undefined, () => new Error('aborted'));
  const elapsed = systemClock.monotonicMs() - m0;
  assert.ok(elapsed >= 15 && elapsed < 5000, `monotonic clock advanced ${elapsed} ms over a 20 ms sleep`);
});

test('one fake clock drives the token bucket through the monotonic side', () => {
  const clock = new FakeClock();
  const bucket = new TokenBucket(1, 1, clock);
  assert.equal(bucket.tryAcquire(), true);
  assert.equal(bucket.tryAcquire(), false);
  clock.advance(1000);
  assert.equal(bucket.tryAcquire(), true);
});

test('sleep rejects when aborted and clears its timer', async () => {
  const clock = new FakeClock();
  const ac = new AbortController();
  const p = sleep(clock, 1000, ac.signal, () => new Error('stopped'));
  assert.equal(clock.pendingTimers, 1);
  ac.abort();
  await assert.rejects(p, /stopped/);
  assert.equal(clock.pendingTimers, 0);
});
