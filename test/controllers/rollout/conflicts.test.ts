// A node whose assignment another field manager applies (a server-side apply conflict the controller does not force)
// fails once the conflict outlives the progress deadline (reason NodeConflict), and the rollout halts or reverts by
// its policy instead of retrying for ever: the plan as a table, the tracker, and the controller against a fake API
// whose node-1 refuses every apply.

import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { NodeConfigRollout, NodeProgress, RolloutStatus } from '../../../src/api/dkc/rollout.js';
import type { Node } from '../../../src/api/types.js';
import { ApiError } from '../../../src/client/index.js';
import { ConflictTracker, type NodeConflict } from '../../../src/controllers/rollout/conflicts.js';
import { RolloutController } from '../../../src/controllers/rollout/controller.js';
import { planRollout, type PlanInput } from '../../../src/controllers/rollout/plan/index.js';
import { systemClock } from '../../../src/util/clock.js';
import { FakeApi } from './fakeapi.js';
import { CM, OLD, at, found, iso, lease, leasesFor, node, rollout, switched, type SpecFields } from './fixtures.js';

const REFUSAL = 'node node-1 not assigned: its assignment is applied by another field manager (conflict with "gitops")';
const since = (seconds: number): NodeConflict => ({ sinceMs: at(seconds).getTime(), message: REFUSAL });
const progressing = (nodes: Record<string, NodeProgress>): RolloutStatus => ({
  phase: 'Progressing',
  startTime: iso(0),
  currentBatch: 0,
  nodes,
});
/** node-1 refused since `seconds`, recorded about to change; node-2 switched and succeeded in the canary. */
const input = (seconds: number, spec: SpecFields = {}): PlanInput => {
  const nodes = [node('node-1'), switched('node-2')];
  return {
    rollout: rollout(
      { progressDeadlineSeconds: 60, ...spec },
      progressing({
        'node-1': { state: 'Pending', previous: found() },
        'node-2': { state: 'Succeeded', batch: 0, updatedAt: iso(0), previous: found() },
      }),
    ),
    nodes,
    configMap: CM,
    others: [],
    now: at(100),
    startedAt: at(-3600),
    leases: leasesFor(nodes, at(100)),
    conflicts: new Map([['node-1', since(seconds)]]),
  };
};

interface Row {
  name: string;
  input: PlanInput;
  phase: string;
  node1: { state: string; reason?: string };
  patched: string[];
}

const TABLE: Row[] = [
  {
    name: 'a conflict younger than the deadline: node-1 is tried again',
    input: input(50),
    phase: 'Progressing',
    node1: { state: 'InFlight' },
    patched: ['node-1'],
  },
  {
    name: 'one older than the deadline, failurePolicy Revert: node-1 fails (NodeConflict) and the rollout reverts',
    input: input(30),
    phase: 'Reverting',
    node1: { state: 'Failed', reason: 'NodeConflict' },
    patched: [],
  },
  {
    name: 'the same with failurePolicy Halt: Halted',
    input: input(30, { failurePolicy: 'Halt' }),
    phase: 'Halted',
    node1: { state: 'Failed', reason: 'NodeConflict' },
    patched: [],
  },
  {
    name: 'within maxFailures: node-1 failed, the rollout goes on without it',
    input: input(30, { maxFailures: 1 }),
    phase: 'Succeeded',
    node1: { state: 'Failed', reason: 'NodeConflict' },
    patched: [],
  },
];

describe('a conflict that outlives the progress deadline', () => {
  for (const row of TABLE) {
    it(row.name, () => {
      const plan = planRollout(row.input);
      assert.equal(plan.status.phase, row.phase);
      const p = plan.status.nodes?.['node-1'];
      assert.deepEqual({ state: p?.state, ...(p?.reason ? { reason: p.reason } : {}) }, row.node1);
      assert.deepEqual(
        plan.assignments.map((x) => x.node),
        row.patched,
      );
      if (row.node1.reason)
        assert.equal(p?.message, `not assigned for 60s (progressDeadlineSeconds): ${REFUSAL}`, 'the refusal is said');
    });
  }

  it('the tracker keeps when a node was first refused, and forgets it once a write succeeds', () => {
    const t = new ConflictTracker();
    t.refused('r1', 'node-1', 'a', 1000);
    t.refused('r1', 'node-1', 'b', 5000);
    assert.deepEqual(t.of('r1')?.get('node-1'), { sinceMs: 1000, message: 'b' });
    t.written('r1', 'node-1');
    assert.equal(t.of('r1'), undefined);
    t.refused('r1', 'node-2', 'c', 1);
    t.forget('r1');
    assert.equal(t.of('r1'), undefined);
  });
});

const running: RolloutController[] = [];
afterEach(async () => {
  for (const c of running.splice(0)) await c.stop();
});

describe('RolloutController and a node another applier holds', () => {
  it('fails it with NodeConflict after progressDeadlineSeconds and halts by its policy, instead of retrying for ever', async () => {
    const api = new FakeApi();
    api.put('configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: 'kube-system', name: 'new', uid: CM.uid, resourceVersion: CM.resourceVersion },
      data: { kubelet: '' },
    });
    api.put('nodes', node('node-1') as never);
    api.put('leases', lease('node-1', new Date()) as never);
    const r = rollout({ progressDeadlineSeconds: 1, failurePolicy: 'Halt' });
    delete r.metadata.resourceVersion;
    api.put('rollouts', r as never);
    api.beforeWrite = (w) => {
      if (w.type === 'apply' && w.path === '/api/v1/nodes/node-1')
        throw new ApiError({
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          code: 409,
          reason: 'Conflict',
          message: 'Apply failed with 1 conflict: conflict with "gitops": .spec.configSource',
          details: {
            causes: [
              { reason: 'FieldManagerConflict', message: 'conflict with "gitops"', field: '.spec.configSource' },
            ],
          },
        });
    };
    const c = new RolloutController({
      client: api,
      clock: systemClock,
      signal: new AbortController().signal,
      retryInitialMs: 5,
    });
    running.push(c);
    await c.start();
    const phase = () => (api.read('rollouts', 'r1') as NodeConfigRollout | undefined)?.status?.phase;
    await api.waitFor(() => phase() === 'Halted', 'Halted');
    const s = (api.read('rollouts', 'r1') as NodeConfigRollout).status;
    assert.deepEqual(
      s?.failures?.map((f) => [f.node, f.reason]),
      [['node-1', 'NodeConflict']],
    );
    assert.deepEqual((api.read('nodes', 'node-1') as unknown as Node).spec?.configSource, OLD, 'node-1 unchanged');
  });
});
