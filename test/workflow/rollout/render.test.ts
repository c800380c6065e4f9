// What `dkc rollout status` prints as a rollout moves: a line per batch, per failure and per phase, never twice for
// the same thing; the progress bar; and the exit code of each phase.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { exitCodeFor, exitCodeForPhase, progressBar, progressLines } from '../../../src/workflow/rollout/render.js';
import type { RolloutStatus } from '../../../src/api/dkc/rollout.js';

const pending: RolloutStatus = { phase: 'Pending' };
const canary: RolloutStatus = {
  phase: 'Progressing',
  targetNodes: 3,
  updatedNodes: 1,
  succeededNodes: 0,
  failedNodes: 0,
  currentBatch: 0,
  nodes: { 'node-1': { state: 'InFlight', batch: 0 }, 'node-2': { state: 'Pending' }, 'node-3': { state: 'Pending' } },
};
const batch1: RolloutStatus = {
  ...canary,
  updatedNodes: 3,
  succeededNodes: 1,
  currentBatch: 1,
  nodes: {
    'node-1': { state: 'Succeeded', batch: 0 },
    'node-3': { state: 'InFlight', batch: 1 },
    'node-2': { state: 'InFlight', batch: 1 },
  },
};
const succeeded: RolloutStatus = {
  ...batch1,
  phase: 'Succeeded',
  succeededNodes: 3,
  nodes: {
    'node-1': { state: 'Succeeded', batch: 0 },
    'node-2': { state: 'Succeeded', batch: 1 },
    'node-3': { state: 'Succeeded', batch: 1 },
  },
};

describe('progressLines', () => {
  it('says it waits while the controller has not started the rollout', () => {
    assert.deepEqual(progressLines('r', undefined, undefined, true), ['Waiting for nodeconfigrollout "r" to start...']);
    assert.deepEqual(progressLines('r', undefined, pending, true), ['Waiting for nodeconfigrollout "r" to start...']);
    assert.deepEqual(progressLines('r', undefined, pending), [], 'not again on the next event');
  });

  it('names each node left out for its kubelet version once, while it waits to start and as it goes', () => {
    const incompatible = [
      { node: 'old-1', kubeletVersion: '1.22', reason: 'unknown field singleProcessOOMKill' },
      { node: 'old-2', kubeletVersion: '1.30', reason: 'unknown field singleProcessOOMKill' },
    ];
    const blocked: RolloutStatus = { phase: 'Pending', incompatibleNodes: 1, incompatible: incompatible.slice(0, 1) };
    assert.deepEqual(progressLines('r', undefined, blocked, true), [
      'Waiting for nodeconfigrollout "r" to start...',
      'node old-1 left out: its kubelet 1.22 cannot run the config (unknown field singleProcessOOMKill)',
    ]);
    const done: RolloutStatus = { ...succeeded, incompatibleNodes: 2, incompatible };
    assert.deepEqual(progressLines('r', blocked, done), [
      'node old-2 left out: its kubelet 1.30 cannot run the config (unknown field singleProcessOOMKill)',
      'canary started: node-1',
      'batch 1 started: node-2, node-3',
      'nodeconfigrollout "r" successfully rolled out (3 of 3 nodes succeeded, 2 left out as incompatible)',
    ]);
  });

  it('prints a line per batch as it starts, then the phase reached, each once', () => {
    assert.deepEqual(progressLines('r', pending, canary), [
      'canary started: node-1',
      'nodeconfigrollout "r" progressing (0 of 3 nodes succeeded)',
    ]);
    assert.deepEqual(progressLines('r', canary, batch1), ['batch 1 started: node-2, node-3']);
    assert.deepEqual(progressLines('r', batch1, batch1), []);
    assert.deepEqual(progressLines('r', batch1, succeeded), [
      'nodeconfigrollout "r" successfully rolled out (3 of 3 nodes succeeded)',
    ]);
  });

  it("names a layered rollout's rendered ConfigMap (or a rollout's pinned copy) once, before its first batch", () => {
    const layered = (s: RolloutStatus): RolloutStatus => ({ ...s, renderedConfigMap: 'r-2k8bmh5f7c' });
    assert.deepEqual(progressLines('r', pending, layered(canary)), [
      "rolling out ConfigMap dkc-configs/r-2k8bmh5f7c: an immutable copy made from the rollout's config",
      'canary started: node-1',
      'nodeconfigrollout "r" progressing (0 of 3 nodes succeeded)',
    ]);
    assert.deepEqual(progressLines('r', layered(canary), layered(batch1)), ['batch 1 started: node-2, node-3']);
  });

  it('tells the whole story at once when first seen late', () => {
    assert.deepEqual(progressLines('r', undefined, succeeded, true), [
      'canary started: node-1',
      'batch 1 started: node-2, node-3',
      'nodeconfigrollout "r" successfully rolled out (3 of 3 nodes succeeded)',
    ]);
  });

  it('prints a line per failure and why the rollout stopped', () => {
    const failed: RolloutStatus = {
      ...canary,
      phase: 'Reverting',
      failedNodes: 1,
      failures: [
        { node: 'node-1', reason: 'ConfigError', message: 'failed to validate config, see Kubelet log for details' },
      ],
      conditions: [
        { type: 'Failed', status: 'True', reason: 'FailuresExceeded', message: '1 node failed, 0 tolerated' },
      ],
      nodes: { 'node-1': { state: 'Failed', batch: 0 } },
    };
    assert.deepEqual(progressLines('r', canary, failed), [
      'node node-1 failed (ConfigError): failed to validate config, see Kubelet log for details',
      'nodeconfigrollout "r" reverting (0 of 3 nodes succeeded, 1 failed): 1 node failed, 0 tolerated',
    ]);
    const reverted: RolloutStatus = {
      ...failed,
      phase: 'Reverted',
      nodes: { 'node-1': { state: 'Reverted', batch: 0 } },
    };
    assert.deepEqual(progressLines('r', failed, reverted), [
      'nodeconfigrollout "r" reverted (1 node restored): 1 node failed, 0 tolerated',
    ]);
  });

  it('an undo counts only the nodes it put back as restored, and names a node deleted mid-rollout', () => {
    const undone: RolloutStatus = {
      phase: 'Reverted',
      targetNodes: 3,
      failures: [
        {
          node: 'node-2',
          reason: 'Overridden',
          message: 'not restored: spec.configSource was changed since this rollout set it',
        },
      ],
      nodes: {
        'node-1': { state: 'Reverted', batch: 0, updatedAt: '2026-01-10T12:00:00Z' },
        'node-2': { state: 'Overridden', batch: 1, updatedAt: '2026-01-10T12:00:00Z', reason: 'Overridden' },
        'node-3': { state: 'Deleted', batch: 2, updatedAt: '2026-01-10T12:00:00Z' },
      },
    };
    const before: RolloutStatus = {
      ...undone,
      phase: 'Succeeded',
      failures: [],
      nodes: Object.fromEntries(Object.entries(undone.nodes!).map(([n, p]) => [n, { ...p, state: 'Succeeded' }])),
    };
    assert.deepEqual(progressLines('r', before, undone), [
      'node node-2 failed (Overridden): not restored: spec.configSource was changed since this rollout set it',
      'node node-3 was deleted during the rollout',
      'nodeconfigrollout "r" reverted (1 node restored, 2 not restored)',
    ]);
  });

  it('names the other rollout of a conflict', () => {
    const halted: RolloutStatus = {
      phase: 'Halted',
      targetNodes: 2,
      conditions: [
        {
          type: 'Failed',
          status: 'True',
          reason: 'Conflict',
          message: 'node node-1 is held by nodeconfigrollout "other"',
        },
      ],
    };
    assert.deepEqual(progressLines('r', pending, halted), [
      'nodeconfigrollout "r" halted (0 of 2 nodes succeeded): node node-1 is held by nodeconfigrollout "other"',
    ]);
  });

  it('prints pause and resume', () => {
    const paused: RolloutStatus = { ...batch1, phase: 'Paused' };
    assert.deepEqual(progressLines('r', batch1, paused), ['nodeconfigrollout "r" paused (1 of 3 nodes succeeded)']);
    assert.deepEqual(progressLines('r', paused, batch1), [
      'nodeconfigrollout "r" progressing (1 of 3 nodes succeeded)',
    ]);
  });

  it('prints a line when a node begins to wait (not Ready or not heartbeating), once', () => {
    const waiting: RolloutStatus = {
      ...batch1,
      waitingNodes: 1,
      nodes: {
        ...batch1.nodes,
        'node-4': { state: 'Pending', waitingReason: 'NotReady', waitingSince: '2026-01-10T12:00:00Z' },
      },
    };
    assert.deepEqual(progressLines('r', batch1, waiting), [
      'node node-4 waiting (NotReady): left unchanged until it is Ready with a fresh heartbeat',
    ]);
    assert.deepEqual(progressLines('r', waiting, waiting), []);
  });
});

describe('progressBar', () => {
  it('fills with succeeded and failed nodes and counts those in flight', () => {
    assert.equal(progressBar(batch1, 12), '[####........] 1/3 succeeded, 2 in flight, 0 failed  Progressing');
    assert.equal(
      progressBar({ phase: 'Halted', targetNodes: 4, succeededNodes: 2, failedNodes: 1, updatedNodes: 3 }, 8),
      '[####xx..] 2/4 succeeded, 0 in flight, 1 failed  Halted',
    );
    assert.equal(progressBar(undefined, 4), '[....] 0/0 succeeded, 0 in flight, 0 failed  Pending');
    assert.equal(
      progressBar({ ...batch1, waitingNodes: 1 }, 12),
      '[####........] 1/3 succeeded, 2 in flight, 0 failed, 1 waiting  Progressing',
    );
  });
});

describe('exitCodeForPhase', () => {
  it('is 0 for Succeeded, 1 for Halted and Reverted, and undefined while the rollout can still move', () => {
    assert.equal(exitCodeForPhase('Succeeded'), 0);
    assert.equal(exitCodeForPhase('Halted'), 1);
    assert.equal(exitCodeForPhase('Reverted'), 1);
    for (const p of ['Pending', 'Progressing', 'Paused', 'Reverting', undefined] as const)
      assert.equal(exitCodeForPhase(p), undefined);
  });
});

describe('exitCodeFor', () => {
  it('after an undo, waits for Reverted rather than trusting the phase from before it', () => {
    const r = (phase: RolloutStatus['phase'], revert?: boolean) => ({
      metadata: { name: 'r' },
      spec: revert === undefined ? {} : { revert },
      status: phase === undefined ? {} : { phase },
    });
    assert.equal(exitCodeFor(r('Succeeded')), 0);
    assert.equal(exitCodeFor(r('Succeeded', false)), 0);
    assert.equal(exitCodeFor(r('Succeeded', true)), undefined);
    assert.equal(exitCodeFor(r('Halted', true)), undefined);
    assert.equal(exitCodeFor(r('Reverting', true)), undefined);
    assert.equal(exitCodeFor(r('Reverted', true)), 1);
  });
});

describe('a rollout whose nodes left its config', () => {
  const degraded: RolloutStatus = {
    ...succeeded,
    degradedNodes: 2,
    degraded: [
      { node: 'node-1', reason: 'NotActive', message: "the kubelet runs local config, not the rollout's config" },
      { node: 'node-3', reason: 'LocalOverride', message: 'the kubelet does not run the new config’s maxPods' },
    ],
  };
  const r = (status: RolloutStatus) => ({ metadata: { name: 'r' }, spec: {}, status });

  it('exits 1 although it Succeeded, and 0 again once every node is back', () => {
    assert.equal(exitCodeFor(r(degraded)), 1);
    assert.equal(exitCodeFor(r({ ...degraded, degradedNodes: 0, degraded: [] })), 0);
  });

  it('names each node that left, and says how many no longer run the config', () => {
    assert.deepEqual(progressLines('r', undefined, degraded, true), [
      'canary started: node-1',
      'batch 1 started: node-2, node-3',
      "node node-1 no longer runs the config (NotActive): the kubelet runs local config, not the rollout's config",
      'node node-3 no longer runs the config (LocalOverride): the kubelet does not run the new config’s maxPods',
      'nodeconfigrollout "r" successfully rolled out (3 of 3 nodes succeeded), but 2 nodes no longer run it',
    ]);
    assert.deepEqual(
      progressLines('r', succeeded, { ...degraded, degradedNodes: 1, degraded: degraded.degraded!.slice(0, 1) }),
      [
        "node node-1 no longer runs the config (NotActive): the kubelet runs local config, not the rollout's config",
        'nodeconfigrollout "r": 1 of 3 nodes no longer run the config',
      ],
    );
    assert.deepEqual(progressLines('r', degraded, { ...succeeded, degradedNodes: 0, degraded: [] }), [
      'nodeconfigrollout "r": every node runs the config again',
    ]);
  });
});
