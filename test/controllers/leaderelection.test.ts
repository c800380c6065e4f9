// Leader election on a fake clock against an in-memory Lease API: acquire, renew, give up after renewDeadline without
// a renewal, take over an expired Lease but never a live one, release on a clean stop.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Lease } from '../../src/api/types.js';
import {
  acquiredSpec,
  heldByOther,
  LeaderElector,
  leaderIdentity,
  leasePath,
  releasedSpec,
  type LeaderElectionOptions,
} from '../../src/controllers/leaderelection.js';
import { FakeClock } from '../helpers/fakeclock.js';
import { FakeLeases } from './fakeleases.js';

const NS = 'kube-system';
const NAME = 'dkc-controller';
const PATH = leasePath(NS, NAME);

/** Lets every pending promise continuation run (the fake API answers in microtasks). */
async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

/** Advances the fake clock in small steps, letting the elector react between them. */
async function elapse(clock: FakeClock, ms: number, stepMs = 100): Promise<void> {
  for (let t = 0; t < ms; t += stepMs) {
    clock.advance(Math.min(stepMs, ms - t));
    await flush();
  }
}

interface Candidate {
  elector: LeaderElector;
  stop: AbortController;
  done: Promise<void>;
  started: number;
  stopped: number;
  leaderSignal: AbortSignal | undefined;
}

function candidate(
  clock: FakeClock,
  api: FakeLeases,
  identity: string,
  extra: Partial<LeaderElectionOptions> = {},
): Candidate {
  const c = { started: 0, stopped: 0, leaderSignal: undefined } as Candidate;
  c.elector = new LeaderElector({
    client: api,
    namespace: NS,
    name: NAME,
    identity,
    clock,
    random: () => 0,
    onStartedLeading: (signal) => {
      c.started++;
      c.leaderSignal = signal;
    },
    onStoppedLeading: async () => {
      c.stopped++;
    },
    ...extra,
  });
  c.stop = new AbortController();
  c.done = c.elector.run(c.stop.signal);
  return c;
}

async function shutdown(clock: FakeClock, ...cs: Candidate[]): Promise<void> {
  for (const c of cs) c.stop.abort();
  await flush();
  await Promise.all(cs.map((c) => c.done));
  assert.equal(clock.pendingTimers, 0, 'no timer left behind');
}

function otherHolds(api: FakeLeases, clock: FakeClock, holder: string): Lease {
  const lease: Lease = {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: NAME, namespace: NS },
    spec: {
      holderIdentity: holder,
      leaseDurationSeconds: 15,
      acquireTime: clock.now().toISOString(),
      renewTime: clock.now().toISOString(),
      leaseTransitions: 3,
    },
  };
  return api.put(PATH, lease);
}

describe('leader election', () => {
  it("acquires a missing Lease with client-go's record, then renews it every retry period", async () => {
    const clock = new FakeClock();
    const api = new FakeLeases();
    const a = candidate(clock, api, 'host-a_1');
    await flush();
    assert.equal(a.started, 1);
    assert.equal(a.elector.isLeader, true);
    const first = api.lease(NAME)!;
    assert.deepEqual(first.spec, {
      holderIdentity: 'host-a_1',
      leaseDurationSeconds: 15,
      acquireTime: '2024-01-15T10:00:00.000000Z',
      renewTime: '2024-01-15T10:00:00.000000Z',
      leaseTransitions: 0,
    });
    await elapse(clock, 30_000);
    const later = api.lease(NAME)!;
    assert.equal(later.spec?.holderIdentity, 'host-a_1');
    assert.equal(later.spec?.acquireTime, first.spec?.acquireTime, 'acquireTime kept while held');
    assert.equal(later.spec?.leaseTransitions, 0);
    assert.ok(
      Date.parse(later.spec.renewTime!) >= Date.parse('2024-01-15T10:00:28Z'),
      `renewed late: ${later.spec?.renewTime}`,
    );
    assert.ok(api.writes >= 15, `about one renewal per 2 s, got ${api.writes} writes`);
    assert.equal(a.stopped, 0);
    assert.equal(a.leaderSignal?.aborted, false);
    await shutdown(clock, a);
  });

  it("loses leadership when no renewal succeeds for renewDeadline, and aborts the leader's signal at that instant", async () => {
    const clock = new FakeClock();
    const api = new FakeLeases();
    const a = candidate(clock, api, 'host-a_1');
    await flush();
    assert.equal(a.elector.isLeader, true);
    api.down = true;
    await elapse(clock, 8_000);
    assert.equal(a.elector.isLeader, true, 'still within renewDeadline (10 s)');
    assert.equal(a.leaderSignal?.aborted, false);
    await elapse(clock, 2_200);
    assert.equal(a.elector.isLeader, false);
    assert.equal(a.leaderSignal?.aborted, true);
    assert.equal(a.stopped, 1);
    // Back to campaigning: once the API answers again, it takes its own (unexpired) Lease back.
    api.down = false;
    await elapse(clock, 3_000);
    assert.equal(a.elector.isLeader, true);
    assert.equal(a.started, 2);
    await shutdown(clock, a);
  });

  it('steps down at once when it sees another holder', async () => {
    const clock = new FakeClock();
    const api = new FakeLeases();
    const a = candidate(clock, api, 'host-a_1');
    await flush();
    otherHolds(api, clock, 'intruder_9');
    await elapse(clock, 2_100);
    assert.equal(a.elector.isLeader, false);
    assert.equal(a.leaderSignal?.aborted, true);
    await shutdown(clock, a);
  });

  it('never takes over a Lease that its holder keeps renewing', async () => {
    const clock = new FakeClock();
    const api = new FakeLeases();
    otherHolds(api, clock, 'host-a_1');
    const b = candidate(clock, api, 'host-b_2');
    for (let i = 0; i < 30; i++) {
      await elapse(clock, 2_000);
      const lease = api.lease(NAME)!;
      api.put(PATH, { ...lease, spec: { ...lease.spec, renewTime: clock.now().toISOString() } });
    }
    assert.equal(b.started, 0);
    assert.equal(b.elector.leader, 'host-a_1');
    assert.equal(api.lease(NAME)!.spec?.holderIdentity, 'host-a_1');
    await shutdown(clock, b);
  });

  it('takes over a Lease not renewed for leaseDurationSeconds, counting the transition', async () => {
    const clock = new FakeClock();
    const api = new FakeLeases();
    otherHolds(api, clock, 'host-a_1');
    const b = candidate(clock, api, 'host-b_2');
    await elapse(clock, 14_000);
    assert.equal(b.started, 0, 'the lease has not expired yet as b observed it');
    await elapse(clock, 4_000);
    assert.equal(b.started, 1);
    const lease = api.lease(NAME)!;
    assert.equal(lease.spec?.holderIdentity, 'host-b_2');
    assert.equal(lease.spec?.leaseTransitions, 4);
    await shutdown(clock, b);
  });

  it('takes over at once from an identity known to be gone (its own previous run)', async () => {
    const clock = new FakeClock();
    const api = new FakeLeases();
    otherHolds(api, clock, 'host-a_old');
    const b = candidate(clock, api, 'host-a_new', { deadIdentities: ['host-a_old'] });
    await flush();
    assert.equal(b.started, 1);
    assert.equal(api.lease(NAME)!.spec?.leaseTransitions, 4);
    await shutdown(clock, b);
  });

  it('of two candidates exactly one leads, and on a clean stop it releases the Lease to the other at once', async () => {
    const clock = new FakeClock();
    const api = new FakeLeases();
    const a = candidate(clock, api, 'host-a_1');
    await flush();
    const b = candidate(clock, api, 'host-b_2');
    await elapse(clock, 20_000);
    assert.deepEqual([a.elector.isLeader, b.elector.isLeader], [true, false]);
    a.stop.abort();
    await flush();
    await a.done;
    assert.equal(a.stopped, 1);
    const released = api.lease(NAME)!;
    assert.equal(released.spec?.holderIdentity, '');
    assert.equal(released.spec?.leaseDurationSeconds, 1);
    assert.equal(released.spec?.leaseTransitions, 0);
    // b retries every 2 s (jitter 0 here): it needs no lease duration to pass.
    await elapse(clock, 2_100);
    assert.equal(b.elector.isLeader, true);
    assert.equal(api.lease(NAME)!.spec?.leaseTransitions, 1);
    await shutdown(clock, b);
  });

  it('the record helpers follow client-go', () => {
    const now = new Date(Date.UTC(2024, 0, 1));
    assert.equal(acquiredSpec({ holderIdentity: 'x', leaseTransitions: 2 }, 'me', 15_000, now).leaseTransitions, 3);
    assert.equal(
      acquiredSpec({ holderIdentity: 'me', leaseTransitions: 2, acquireTime: 'T0' }, 'me', 15_000, now).acquireTime,
      'T0',
    );
    assert.deepEqual(releasedSpec({ holderIdentity: 'me', leaseTransitions: 2 }, now), {
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: '2024-01-01T00:00:00.000000Z',
      renewTime: '2024-01-01T00:00:00.000000Z',
      leaseTransitions: 2,
    });
    assert.equal(heldByOther({ holderIdentity: '' }, 'me', 0, 0), false, 'a released lease is free');
    assert.equal(heldByOther({ holderIdentity: 'x', leaseDurationSeconds: 15 }, 'me', 0, 14_999), true);
    assert.equal(heldByOther({ holderIdentity: 'x', leaseDurationSeconds: 15 }, 'me', 0, 15_000), false);
    assert.match(
      leaderIdentity(() => Buffer.from([0xab, 0xcd])),
      /^.+_abcd$/,
    );
  });
});
