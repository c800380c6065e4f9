// A node's heartbeat as the rollout judges it: fresh for half its Lease's duration after a renewal (20 s of the
// kubelet's 40 s, two renew intervals), on the controller's clock; no Lease, or no renewal in it, is never fresh.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { heartbeatOf, isFresh, staleAtMs } from '../../../src/controllers/rollout/heartbeat.js';
import { at, lease } from './fixtures.js';

describe('heartbeat', () => {
  it('a renewal keeps the heartbeat fresh for half the Lease’s duration, and not a millisecond more', () => {
    const h = heartbeatOf(lease('n', at(0)));
    assert.deepEqual(h, { renewedMs: at(0).getTime(), freshForMs: 20_000 });
    assert.equal(isFresh(h, at(20).getTime()), true);
    assert.equal(isFresh(h, at(20).getTime() + 1), false);
    assert.equal(staleAtMs(h), at(20).getTime() + 1);
  });

  it('the bound follows the Lease’s own duration (an agent renewing every second has 2 s)', () => {
    const h = heartbeatOf(lease('n', at(0), 4));
    assert.equal(isFresh(h, at(2).getTime()), true);
    assert.equal(isFresh(h, at(2.001).getTime()), false);
  });

  it('a Lease without a duration is taken as the kubelet’s default 40 s', () => {
    const l = lease('n', at(0));
    delete l.spec!.leaseDurationSeconds;
    assert.equal(heartbeatOf(l).freshForMs, 20_000);
  });

  it('no Lease, or one never renewed, is never fresh and never turns stale', () => {
    for (const h of [heartbeatOf(undefined), heartbeatOf({ ...lease('n', at(0)), spec: { holderIdentity: 'n' } })]) {
      assert.equal(h.renewedMs, undefined);
      assert.equal(isFresh(h, at(0).getTime()), false);
      assert.equal(staleAtMs(h), undefined);
    }
  });

  it('a renewal stamped ahead of the controller’s clock is fresh', () => {
    assert.equal(isFresh(heartbeatOf(lease('n', at(5))), at(0).getTime()), true);
  });
});
