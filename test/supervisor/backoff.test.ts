// The restart pacing as numbers: exponential growth to the cap, reset after a healthy run, crash-loop
// saturation, clean-exit throttling, jitter bounds and option validation.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_BACKOFF,
  RestartBackoff,
  exponentialDelay,
  resolveBackoffOptions,
} from '../../src/supervisor/backoff.js';
import { SupervisorError } from '../../src/supervisor/errors.js';

const noJitter = { jitter: 0 };

function crashes(b: RestartBackoff, n: number, uptimeMs = 10): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(b.afterExit('crash', uptimeMs, i * 1000).delayMs);
  return out;
}

describe('exponentialDelay', () => {
  it('grows by the factor from the initial delay and stops at the cap', () => {
    const o = { initialMs: 200, factor: 2, maxMs: 10_000 };
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7, 8].map((n) => exponentialDelay(n, o)),
      [200, 400, 800, 1600, 3200, 6400, 10_000, 10_000],
    );
  });

  it('saturates at the cap for huge attempts instead of overflowing', () => {
    assert.equal(exponentialDelay(5_000, { initialMs: 1, factor: 10, maxMs: 7 }), 7);
    assert.equal(exponentialDelay(5_000, { initialMs: 0, factor: 10, maxMs: 7 }), 0);
    assert.equal(exponentialDelay(0, { initialMs: 5, factor: 2, maxMs: 7 }), 0);
  });
});

describe('RestartBackoff', () => {
  it('uses the documented defaults: 200 ms, ×2, capped at 10 s, reset after 30 s', () => {
    const o = resolveBackoffOptions();
    assert.equal(o.initialMs, 200);
    assert.equal(o.factor, 2);
    assert.equal(o.maxMs, 10_000);
    assert.equal(o.resetAfterMs, 30_000);
    assert.equal(o.crashLoopThreshold, Number.POSITIVE_INFINITY);
    assert.equal(DEFAULT_BACKOFF.initialMs, 200);
    const b = new RestartBackoff(noJitter);
    assert.deepEqual(crashes(b, 8), [200, 400, 800, 1600, 3200, 6400, 10_000, 10_000]);
  });

  it('counts consecutive crashes and starts over after a run of resetAfterMs', () => {
    const b = new RestartBackoff({ ...noJitter, initialMs: 100, maxMs: 1000, resetAfterMs: 5000 });
    assert.deepEqual(crashes(b, 3, 4999), [100, 200, 400]);
    assert.equal(b.consecutiveCrashes, 3);
    const d = b.afterExit('crash', 5000, 10_000);
    assert.equal(d.delayMs, 100);
    assert.equal(d.consecutiveCrashes, 1);
    assert.equal(b.afterExit('crash', 1, 11_000).delayMs, 200);
  });

  it('a long clean run also ends the crash series; a short one does not', () => {
    const b = new RestartBackoff({ ...noJitter, initialMs: 100, resetAfterMs: 1000 });
    crashes(b, 3);
    assert.equal(b.afterExit('clean', 10, 5000).delayMs, 0);
    assert.equal(b.consecutiveCrashes, 3);
    assert.equal(b.afterExit('crash', 10, 6000).delayMs, 800);
    assert.equal(b.afterExit('clean', 1000, 7000).delayMs, 0);
    assert.equal(b.consecutiveCrashes, 0);
    assert.equal(b.afterExit('crash', 10, 8000).delayMs, 100);
  });

  it('goes straight to the cap once crash-looping, and stays there', () => {
    const b = new RestartBackoff({ ...noJitter, initialMs: 10, maxMs: 5000, crashLoopThreshold: 3 });
    const d = [1, 2, 3, 4, 5].map((i) => b.afterExit('crash', 1, i));
    assert.deepEqual(
      d.map((x) => x.delayMs),
      [10, 20, 5000, 5000, 5000],
    );
    assert.deepEqual(
      d.map((x) => x.crashLooping),
      [false, false, true, true, true],
    );
    assert.equal(b.afterExit('crash', 60_000, 100).crashLooping, false, 'a healthy run clears the crash loop');
  });

  it('restarts clean exits at once until they exceed the burst within the window', () => {
    const b = new RestartBackoff({
      ...noJitter,
      initialMs: 50,
      maxMs: 400,
      cleanExitBurst: 3,
      cleanExitWindowMs: 1000,
    });
    const at = (t: number) => b.afterExit('clean', 5, t);
    assert.deepEqual(
      [0, 10, 20].map((t) => at(t).delayMs),
      [0, 0, 0],
    );
    const fourth = at(30);
    assert.equal(fourth.delayMs, 50);
    assert.equal(fourth.throttled, true);
    assert.equal(at(100).delayMs, 100);
    assert.equal(at(300).delayMs, 200);
    assert.equal(at(600).delayMs, 400);
    // The window slides: at 1050 only the exits at 100, 300, 600 and this one fall within the last second.
    assert.equal(at(1050).delayMs, 50);
    // Only exits within the last second count: at 5000 the window holds this one exit.
    const later = at(5000);
    assert.equal(later.delayMs, 0);
    assert.equal(later.throttled, false);
    assert.equal(b.consecutiveCrashes, 0, 'clean exits are never counted as crashes');
  });

  it('jitter only shortens a delay, by at most the jitter fraction', () => {
    const draws = [0, 0.5, 0.999999, 2, -1];
    let i = 0;
    const b = new RestartBackoff({ initialMs: 1000, factor: 1, maxMs: 1000, jitter: 0.2, random: () => draws[i++]! });
    assert.deepEqual(crashes(b, 5), [1000, 900, 800, 800, 1000]);
  });

  it('reset() forgets everything', () => {
    const b = new RestartBackoff({ ...noJitter, crashLoopThreshold: 1 });
    crashes(b, 4);
    assert.equal(b.crashLooping, true);
    b.reset();
    assert.equal(b.consecutiveCrashes, 0);
    assert.equal(b.afterExit('crash', 1, 0).delayMs, 10_000, 'threshold 1: the first crash already loops');
  });

  it('rejects options that make pacing meaningless, with a stable code', () => {
    const bad: Record<string, unknown>[] = [
      { initialMs: -1 },
      { initialMs: Number.NaN },
      { maxMs: Number.POSITIVE_INFINITY },
      { factor: 0.5 },
      { initialMs: 500, maxMs: 100 },
      { jitter: 1.5 },
      { jitter: Number.NaN },
      { crashLoopThreshold: 0 },
      { crashLoopThreshold: 2.5 },
      { cleanExitBurst: -1 },
      { cleanExitWindowMs: 0 },
      { random: 'no' },
    ];
    for (const o of bad) {
      assert.throws(
        () => new RestartBackoff(o),
        (err: unknown) => err instanceof SupervisorError && err.code === 'DKC_SUPERVISOR_INVALID_ARGUMENT',
        JSON.stringify(o),
      );
    }
    assert.doesNotThrow(
      () =>
        new RestartBackoff({ initialMs: 0, maxMs: 0, cleanExitBurst: Number.POSITIVE_INFINITY, crashLoopThreshold: 1 }),
    );
  });
});
