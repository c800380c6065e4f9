// The node loops' retry delays, step by step on a fake clock: registration (the kubelet's 100 ms doubling to
// 7 s) and the Lease (200 ms doubling, never beyond the renew interval), both from the one backoff rule.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  LeaseRenewer,
  registerNode,
  type LeaseClient,
  type RegistrationClient,
} from '../../../src/agent/node/index.js';
import { FakeClock } from '../../helpers/fakeclock.js';

const refused = (): Promise<never> => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1'));

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

/** Checks that, after each attempt, the next one comes exactly `delay` ms later on `clock`. */
async function assertDelays(clock: FakeClock, attempts: () => number, delays: number[]): Promise<void> {
  await settle();
  for (const [i, delay] of delays.entries()) {
    const before = attempts();
    clock.advance(delay - 1);
    await settle();
    assert.equal(attempts(), before, `retry ${i + 1} came before ${delay} ms`);
    clock.advance(1);
    await settle();
    assert.equal(attempts(), before + 1, `retry ${i + 1} did not come at ${delay} ms`);
  }
}

describe('retry delays of the node loops', () => {
  it('registration: 100 ms, doubling, capped at 7 s', async () => {
    const clock = new FakeClock();
    let attempts = 0;
    const client = {
      create: () => (attempts++, refused()),
      get: refused,
      patch: refused,
    } as unknown as RegistrationClient;
    const ac = new AbortController();
    const done = registerNode(client, { nodeName: 'n1', clock, signal: ac.signal }).catch((e: unknown) => e);
    await assertDelays(clock, () => attempts, [100, 200, 400, 800, 1600, 3200, 6400, 7000, 7000]);
    ac.abort();
    assert.match(String(await done), /aborted/);
  });

  it('lease: 200 ms after a failure, doubling, never beyond the renew interval', async () => {
    const clock = new FakeClock();
    let attempts = 0;
    const client = { get: () => (attempts++, refused()), create: refused, update: refused } as unknown as LeaseClient;
    const renewer = new LeaseRenewer({ client, nodeName: 'n1', nodeUID: 'u1', leaseDurationSeconds: 4, clock });
    renewer.start();
    try {
      await assertDelays(clock, () => attempts, [200, 400, 800, 1000, 1000]);
    } finally {
      await renewer.stop();
    }
  });
});
