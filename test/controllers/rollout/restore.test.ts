// An undo's node counts as restored only when its status shows the restored config active, as success already
// requires; a node that never acknowledges the assignment (a stopped daemon: status.config.assigned unchanged) is
// NotRestored (NotActive) once the progress deadline passes, and the rollout says "Reverted" only then.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NodeProgress } from '../../../src/api/dkc/rollout.js';
import { planRollout, type PlanInput } from '../../../src/controllers/rollout/plan/index.js';
import { restoredOn } from '../../../src/controllers/rollout/restore.js';
import {
  CM,
  NEW_ACTIVE,
  OLD,
  OLD_ACTIVE,
  afterPatches,
  at,
  found,
  iso,
  leasesFor,
  node,
  rollout,
  switched,
} from './fixtures.js';

const done = (batch: number): NodeProgress => ({ state: 'Succeeded', batch, updatedAt: iso(0), previous: found() });
/** An undo of a Succeeded rollout over node-1 and node-2, looked at `seconds` after T0, progressDeadlineSeconds 60. */
const undo = (): PlanInput => {
  const nodes = [switched('node-1'), switched('node-2')];
  return {
    rollout: rollout(
      { revert: true, progressDeadlineSeconds: 60 },
      { phase: 'Succeeded', startTime: iso(0), currentBatch: 1, nodes: { 'node-1': done(0), 'node-2': done(1) } },
    ),
    nodes,
    configMap: CM,
    others: [],
    now: at(10),
    startedAt: at(-3600),
    leases: leasesFor(nodes, at(10)),
  };
};

/** The look after the patches, at `seconds`, node-2's agent stopped: it still reports the rollout's config. */
function withNode2Stopped(seconds: number, node2 = switched('node-2')): PlanInput {
  const first = undo();
  const plan = planRollout(first);
  const next = afterPatches(first, plan);
  const stopped = { ...node2, spec: { configSource: OLD }, metadata: { ...node2.metadata, annotations: {} } };
  const nodes = next.nodes.map((n) => (n.metadata.name === 'node-2' ? stopped : n));
  return { ...next, nodes, now: at(seconds), leases: leasesFor(nodes, at(seconds)) };
}

describe('an undo restores a node when the node says so', () => {
  it('the look that puts the nodes back says Reverting, with them in flight', () => {
    const plan = planRollout(undo());
    assert.equal(plan.status.phase, 'Reverting');
    assert.deepEqual(
      plan.assignments.map((p) => p.node),
      ['node-1', 'node-2'],
    );
    assert.deepEqual(
      Object.values(plan.status.nodes ?? {}).map((p) => p.state),
      ['InFlight', 'InFlight'],
    );
    assert.equal(plan.requeueAfterMs, 60_000, 'looked at again by the progress deadline');
    assert.deepEqual(
      plan.events.map((e) => e.reason),
      [],
    );
  });

  it('a node whose daemon is stopped (assigned unchanged) keeps the rollout Reverting, then is NotRestored (NotActive)', () => {
    const waiting = planRollout(withNode2Stopped(30));
    assert.equal(waiting.status.phase, 'Reverting');
    assert.deepEqual(
      [waiting.status.nodes?.['node-1']?.state, waiting.status.nodes?.['node-2']?.state],
      ['Reverted', 'InFlight'],
    );
    assert.equal(waiting.assignments.length, 0, 'not patched again');
    const late = planRollout(withNode2Stopped(71));
    assert.equal(late.status.phase, 'Reverted');
    const n2 = late.status.nodes?.['node-2'];
    assert.deepEqual(
      [n2?.state, n2?.reason, n2?.message],
      [
        'NotRestored',
        'NotActive',
        'not restored: the node did not acknowledge the assignment of its previous config source within 60s (status.config.assigned unchanged)',
      ],
    );
    assert.deepEqual(
      late.events.filter((e) => e.reason === 'RolloutReverted').map((e) => e.message),
      ['Rollout reverted: 1 node restored to their previous config source, 1 not restored (see status.nodes)'],
    );
  });

  it('one that acknowledged but does not run it says so', () => {
    const assignedOnly = switched('node-2', { assigned: OLD_ACTIVE, active: NEW_ACTIVE });
    const late = planRollout(withNode2Stopped(71, assignedOnly));
    assert.match(
      late.status.nodes?.['node-2']?.message ?? '',
      /was assigned but was not active, without error and Ready, within 60s$/,
    );
  });

  it('restored means assigned and active on the source, no error, Ready', () => {
    assert.equal(restoredOn(node('n', { source: OLD }), OLD), true);
    assert.equal(restoredOn(node('n', { source: OLD, ready: 'False' }), OLD), false);
    assert.equal(restoredOn(node('n', { source: OLD, error: 'failed to validate config' }), OLD), false);
    assert.equal(restoredOn(switched('n', { source: OLD }), OLD), false, 'still reports the rollout’s config');
    assert.equal(restoredOn(node('n', { source: null }), null), true, 'local config: nothing assigned or active');
  });
});
