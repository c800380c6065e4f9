// The Eviction API's decision case for case against workloads.md §2.2–2.3 (kube's eviction REST): each row fails
// if the rule it names is removed.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  decideEviction,
  MAX_DISRUPTED_PODS,
  type Budget,
  type EvictionDecision,
} from '../../../src/server/pods/eviction.js';
import type { PodObject } from '../../../src/server/pods/types.js';

const NOW = '2025-01-01T00:00:00Z';
const ready = [{ type: 'Ready', status: 'True' }];
const pod = (phase: string, extra: Partial<PodObject['metadata']> = {}, conditions = ready): PodObject => ({
  metadata: { name: 'web-1', namespace: 'default', resourceVersion: '7', labels: { app: 'web' }, ...extra },
  spec: { nodeName: 'n1', containers: [{ name: 'a', image: 'x' }] },
  status: { phase, conditions },
});
const budget = (
  status: Budget['status'],
  extra: { generation?: number; policy?: string; name?: string } = {},
): Budget => ({
  metadata: {
    name: extra.name ?? 'web-pdb',
    namespace: 'default',
    generation: extra.generation ?? 1,
    resourceVersion: '3',
  },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    ...(extra.policy ? { unhealthyPodEvictionPolicy: extra.policy } : {}),
  },
  status: {
    observedGeneration: 1,
    disruptionsAllowed: 1,
    currentHealthy: 3,
    desiredHealthy: 2,
    expectedPods: 3,
    ...status,
  },
});
const refusal = (d: EvictionDecision) => {
  assert.equal(d.action, 'refuse');
  return d.action === 'refuse' ? d.error : assert.fail();
};

describe('decideEviction', () => {
  it('201 path: the one budget gives up a disruption and records the pod', () => {
    const d = decideEviction(pod('Running'), [budget({})], { now: NOW });
    assert.equal(d.action, 'decrement');
    if (d.action !== 'decrement') return;
    assert.equal(d.status.disruptionsAllowed, 0);
    assert.deepEqual(d.status.disruptedPods, { 'web-1': NOW });
    assert.deepEqual(d.status.conditions, [
      {
        type: 'DisruptionAllowed',
        status: 'False',
        reason: 'InsufficientPods',
        message: '',
        observedGeneration: 1,
        lastTransitionTime: NOW,
      },
    ]);
  });
  it('a dry run decrements without recording the pod', () => {
    const d = decideEviction(pod('Running'), [budget({ disruptionsAllowed: 2 })], { now: NOW, dryRun: true });
    assert.ok(d.action === 'decrement' && d.status.disruptionsAllowed === 1 && d.status.disruptedPods === undefined);
  });
  it('429 with the budget’s needed and current healthy when none is left, no Retry-After', () => {
    const err = refusal(
      decideEviction(pod('Running'), [budget({ disruptionsAllowed: 0, currentHealthy: 2 })], { now: NOW }),
    );
    assert.equal(err.code, 429);
    assert.equal(err.status.reason, 'TooManyRequests');
    assert.equal(err.message, "Cannot evict pod as it would violate the pod's disruption budget.");
    assert.deepEqual(err.status.details?.causes, [
      { reason: 'DisruptionBudget', message: 'The disruption budget web-pdb needs 2 healthy pods and has 2 currently' },
    ]);
    assert.equal(err.status.details?.retryAfterSeconds, undefined);
  });
  it('429 "still being processed", Retry-After 10, while observedGeneration lags', () => {
    const err = refusal(decideEviction(pod('Running'), [budget({}, { generation: 2 })], { now: NOW }));
    assert.equal(err.code, 429);
    assert.equal(err.status.details?.retryAfterSeconds, 10);
    assert.deepEqual(err.status.details?.causes, [
      { reason: 'DisruptionBudget', message: 'The disruption budget web-pdb is still being processed by the server.' },
    ]);
  });
  it('500 when more than one budget selects the pod', () => {
    const err = refusal(decideEviction(pod('Running'), [budget({}), budget({}, { name: 'other' })], { now: NOW }));
    assert.equal(err.code, 500);
    assert.equal(err.status.reason, undefined);
    assert.equal(
      err.message,
      'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
    );
  });
  it('403 for a negative budget and for too many unconfirmed evictions', () => {
    const negative = refusal(decideEviction(pod('Running'), [budget({ disruptionsAllowed: -1 })], { now: NOW }));
    assert.equal(negative.code, 403);
    assert.equal(
      negative.message,
      'poddisruptionbudget.policy "web-pdb" is forbidden: pdb disruptions allowed is negative',
    );
    const disruptedPods = Object.fromEntries(Array.from({ length: MAX_DISRUPTED_PODS + 1 }, (_, i) => [`p${i}`, NOW]));
    const big = refusal(decideEviction(pod('Running'), [budget({ disruptedPods })], { now: NOW }));
    assert.equal(big.code, 403);
    assert.equal(
      big.message,
      'poddisruptionbudget.policy "web-pdb" is forbidden: DisruptedPods map too big - too many evictions not confirmed by PDB controller',
    );
    const atLimit = Object.fromEntries(Array.from({ length: MAX_DISRUPTED_PODS }, (_, i) => [`p${i}`, NOW]));
    assert.equal(
      decideEviction(pod('Running'), [budget({ disruptedPods: atLimit })], { now: NOW }).action,
      'decrement',
    );
  });
  it('pods not running or terminating bypass the budget (Pending ones pinned to their resourceVersion)', () => {
    const none = [budget({ disruptionsAllowed: 0 })];
    assert.deepEqual(decideEviction(pod('Succeeded'), none, { now: NOW }), { action: 'delete' });
    assert.deepEqual(decideEviction(pod('Failed'), none, { now: NOW }), { action: 'delete' });
    assert.deepEqual(decideEviction(pod('Pending'), none, { now: NOW }), { action: 'delete', precondition: '7' });
    assert.deepEqual(decideEviction(pod('Running', { deletionTimestamp: NOW }), none, { now: NOW }), {
      action: 'delete',
    });
  });
  it('no matching budget: delete; null selects nothing, {} everything', () => {
    assert.deepEqual(
      decideEviction(pod('Running', { labels: { app: 'db' } }), [budget({ disruptionsAllowed: 0 })], { now: NOW }),
      {
        action: 'delete',
      },
    );
    const nil: Budget = { ...budget({ disruptionsAllowed: 0 }), spec: { selector: null } };
    assert.deepEqual(decideEviction(pod('Running'), [nil], { now: NOW }), { action: 'delete' });
    const all: Budget = { ...budget({ disruptionsAllowed: 0 }), spec: { selector: {} } };
    assert.equal(decideEviction(pod('Running'), [all], { now: NOW }).action, 'refuse');
  });
  it('an unready pod: IfHealthyBudget deletes while the budget is healthy, else the budget decides', () => {
    const unready = pod('Running', {}, [{ type: 'Ready', status: 'False' }]);
    assert.deepEqual(decideEviction(unready, [budget({ disruptionsAllowed: 0, currentHealthy: 2 })], { now: NOW }), {
      action: 'delete',
      precondition: '7',
    });
    assert.equal(
      decideEviction(unready, [budget({ disruptionsAllowed: 0, currentHealthy: 1 })], { now: NOW }).action,
      'refuse',
    );
    assert.equal(
      decideEviction(unready, [budget({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0 })], { now: NOW })
        .action,
      'refuse',
    );
  });
  it('an unready pod: AlwaysAllow deletes whatever the budget', () => {
    const unready = pod('Running', {}, []);
    assert.deepEqual(
      decideEviction(unready, [budget({ disruptionsAllowed: 0, currentHealthy: 0 }, { policy: 'AlwaysAllow' })], {
        now: NOW,
      }),
      { action: 'delete', precondition: '7' },
    );
  });
});
