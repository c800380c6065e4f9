// The rollout decision, one table row per rule of the issue (order and batches, success and each failure reason,
// soak, pause, joining and deleted nodes, failure policies, revert, conflicts, undo, reset to local config, and the
// recovery of a change whose status write was lost), plus the exact patches it asks for.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Node } from '../../../src/api/types.js';
import { planRollout, type PlanInput } from '../../../src/controllers/rollout/plan.js';
import {
  PAUSED_AFTER_CANARY_ANNOTATION,
  PREVIOUS_SOURCE_ANNOTATION,
  ROLLOUT_ANNOTATION,
  type NodeProgress,
  type RolloutStatus,
} from '../../../src/controllers/rollout/resource.js';
import { CM, NEW, NEW_ACTIVE, OLD, at, iso, leasesFor, node, rollout, switched } from './fixtures.js';

const blue = (n: number): Node[] => Array.from({ length: n }, (_, i) => node(`node-${i + 1}`));
const inFlight = (batch: number, updated = 0, extra: Partial<NodeProgress> = {}): NodeProgress => ({ state: 'InFlight', batch, updatedAt: iso(updated), ...extra });
const done = (batch: number): NodeProgress => ({ state: 'Succeeded', batch, updatedAt: iso(0) });
const progressing = (nodes: Record<string, NodeProgress>, currentBatch?: number): RolloutStatus => ({
  phase: 'Progressing',
  startTime: iso(0),
  nodes,
  ...(currentBatch !== undefined ? { currentBatch } : {}),
});
/** Every node heartbeating at `now` unless `leases` says otherwise; the controller started an hour before. */
const base = (over: Partial<PlanInput>): PlanInput => {
  const input = { rollout: rollout(), nodes: blue(3), configMap: CM, others: [], now: at(10), startedAt: at(-3600), ...over };
  return { ...input, leases: over.leases ?? leasesFor(input.nodes, input.now) };
};

interface Row {
  name: string;
  input: PlanInput;
  /** Nodes patched, in order. */
  patched: string[];
  phase: string;
  /** Expected node states (only those listed are checked). */
  states?: Record<string, string>;
  reasons?: Record<string, string>;
  currentBatch?: number;
  events?: string[];
  pause?: boolean;
  requeueAfterMs?: number;
}

const pendingAll = (names: string[]): Record<string, NodeProgress> => Object.fromEntries(names.map((n) => [n, { state: 'Pending' }]));

const rows: Row[] = [
  // ---- order and batches
  {
    name: 'first look: the canary is the first node by name; the others wait',
    input: base({ nodes: [node('node-3'), node('node-1'), node('node-2'), node('other', { labels: { pool: 'green' } })] }),
    patched: ['node-1'],
    phase: 'Progressing',
    states: { 'node-1': 'InFlight', 'node-2': 'Pending', 'node-3': 'Pending' },
    currentBatch: 0,
    events: ['RolloutStarted', 'BatchStarted'],
  },
  {
    name: 'canary "50%" of 3 nodes is 2 (rounded up)',
    input: base({ rollout: rollout({ strategy: { canary: '50%', maxUnavailable: 1 } }) }),
    patched: ['node-1', 'node-2'],
    phase: 'Progressing',
    currentBatch: 0,
  },
  {
    name: 'canary 0: the first batch is batch 1, maxUnavailable wide',
    input: base({ rollout: rollout({ strategy: { canary: 0, maxUnavailable: 2 } }) }),
    patched: ['node-1', 'node-2'],
    phase: 'Progressing',
    currentBatch: 1,
  },
  {
    name: 'while the canary is in flight nothing else starts',
    input: base({ nodes: [switched('node-1', { active: OLD }), node('node-2'), node('node-3')], rollout: rollout({}, progressing({ 'node-1': inFlight(0) }, 0)) }),
    patched: [],
    phase: 'Progressing',
    states: { 'node-1': 'InFlight' },
    currentBatch: 0,
  },
  {
    name: 'the canary succeeds: it is recorded and batch 1 starts in the same look',
    input: base({ nodes: [switched('node-1'), node('node-2'), node('node-3')], rollout: rollout({ strategy: { canary: 1, maxUnavailable: 2 } }, progressing({ 'node-1': inFlight(0) }, 0)) }),
    patched: ['node-2', 'node-3'],
    phase: 'Progressing',
    states: { 'node-1': 'Succeeded', 'node-2': 'InFlight', 'node-3': 'InFlight' },
    currentBatch: 1,
    events: ['BatchStarted', 'NodeSucceeded'],
  },
  {
    name: 'maxUnavailable "50%" of 4 is 2: one in flight leaves one slot',
    input: base({
      nodes: [switched('node-1'), switched('node-2', { active: OLD }), node('node-3'), node('node-4')],
      rollout: rollout({ strategy: { canary: 1, maxUnavailable: '50%' } }, progressing({ 'node-1': done(0), 'node-2': inFlight(1) }, 1)),
    }),
    patched: ['node-3'],
    phase: 'Progressing',
    currentBatch: 2,
  },
  {
    name: 'maxUnavailable 0 still lets one node through',
    input: base({ nodes: [switched('node-1'), node('node-2')], rollout: rollout({ strategy: { canary: 1, maxUnavailable: 0 } }, progressing({ 'node-1': done(0) }, 0)) }),
    patched: ['node-2'],
    phase: 'Progressing',
  },
  {
    name: 'all nodes succeeded: Succeeded',
    input: base({ nodes: [switched('node-1'), switched('node-2')], rollout: rollout({}, progressing({ 'node-1': done(0), 'node-2': inFlight(1) }, 1)) }),
    patched: [],
    phase: 'Succeeded',
    events: ['NodeSucceeded', 'RolloutSucceeded'],
  },
  {
    name: 'nodes already on the target count as succeeded without a change',
    input: base({ nodes: [node('node-1', { source: NEW, active: NEW_ACTIVE }), node('node-2')] }),
    patched: ['node-2'],
    phase: 'Progressing',
    states: { 'node-1': 'Succeeded', 'node-2': 'InFlight' },
    currentBatch: 0,
  },
  {
    name: 'every node already on the target: Succeeded at once, nothing patched',
    input: base({ nodes: [node('node-1', { source: NEW, active: NEW_ACTIVE })] }),
    patched: [],
    phase: 'Succeeded',
  },
  {
    name: 'a selector that matches nothing: Succeeded with no target',
    input: base({ rollout: rollout({ nodeSelector: { matchLabels: { pool: 'none' } } }) }),
    patched: [],
    phase: 'Succeeded',
  },
  {
    name: 'matchExpressions select as well as matchLabels',
    input: base({
      rollout: rollout({ nodeSelector: { matchExpressions: [{ key: 'pool', operator: 'In', values: ['green'] }] } }),
      nodes: [node('node-1'), node('node-2', { labels: { pool: 'green' } })],
    }),
    patched: ['node-2'],
    phase: 'Progressing',
  },
  // ---- success needs the ConfigMap's current identity, no error, Ready, for the soak time
  {
    name: 'active with an older resourceVersion of the ConfigMap is not yet success',
    input: base({ nodes: [switched('node-1', { active: { configMap: { ...NEW.configMap!, uid: CM.uid, resourceVersion: '9' } } })], rollout: rollout({}, progressing({ 'node-1': inFlight(0) }, 0)) }),
    patched: [],
    phase: 'Progressing',
    states: { 'node-1': 'InFlight' },
    requeueAfterMs: 110_000,
  },
  {
    name: 'not Ready: still in flight until the deadline',
    input: base({ nodes: [switched('node-1', { ready: 'False' })], rollout: rollout({}, progressing({ 'node-1': inFlight(0) }, 0)) }),
    patched: [],
    phase: 'Progressing',
    states: { 'node-1': 'InFlight' },
  },
  {
    name: 'soak: healthy for the first time starts the soak and asks to look again when it ends',
    input: base({
      nodes: [switched('node-1')],
      // Renewed for 80 s (fresh for 40 s): the soak's end comes before the heartbeat could lapse.
      leases: leasesFor([switched('node-1')], at(10), 80),
      rollout: rollout({ strategy: { canary: 1, soakSeconds: 30 } }, progressing({ 'node-1': inFlight(0) }, 0)),
    }),
    patched: [],
    phase: 'Progressing',
    states: { 'node-1': 'InFlight' },
    requeueAfterMs: 30_000,
  },
  {
    name: 'soak: healthy since readySince for soakSeconds: Succeeded',
    input: base({ now: at(41), nodes: [switched('node-1')], rollout: rollout({ strategy: { canary: 1, soakSeconds: 30 } }, progressing({ 'node-1': inFlight(0, 0, { readySince: iso(10) }) }, 0)) }),
    patched: [],
    phase: 'Succeeded',
  },
  {
    name: 'soak: a Ready flap after readySince restarts the soak',
    input: base({
      now: at(41),
      nodes: [switched('node-1', { readyTransition: iso(35) })],
      leases: leasesFor([node('node-1')], at(41), 80),
      rollout: rollout({ strategy: { canary: 1, soakSeconds: 30 } }, progressing({ 'node-1': inFlight(0, 0, { readySince: iso(10) }) }, 0)),
    }),
    patched: [],
    phase: 'Progressing',
    states: { 'node-1': 'InFlight' },
    requeueAfterMs: 24_000,
  },
  // ---- failures
  {
    name: 'ConfigError: the node reports an error for the rollout source',
    input: base({
      nodes: [switched('node-1', { active: OLD, assigned: NEW_ACTIVE, error: 'failed to validate config, see Kubelet log for details' })],
      rollout: rollout({ maxFailures: 1 }, progressing({ 'node-1': inFlight(0) }, 0)),
    }),
    patched: [],
    phase: 'Succeeded',
    states: { 'node-1': 'Failed' },
    reasons: { 'node-1': 'ConfigError' },
    events: ['NodeFailed', 'RolloutSucceeded'],
  },
  {
    name: 'an error about another assigned source is not this rollout failing',
    input: base({ nodes: [switched('node-1', { active: OLD, assigned: OLD, error: 'failed to load config, see Kubelet log for details' })], rollout: rollout({}, progressing({ 'node-1': inFlight(0) }, 0)) }),
    patched: [],
    phase: 'Progressing',
    states: { 'node-1': 'InFlight' },
  },
  {
    name: 'an error about an earlier version of the same ConfigMap is stale: still in flight',
    input: base({
      nodes: [switched('node-1', { active: OLD, assigned: { configMap: { ...NEW.configMap!, uid: CM.uid, resourceVersion: '9' } }, error: 'failed to validate config, see Kubelet log for details' })],
      rollout: rollout({}, progressing({ 'node-1': inFlight(0) }, 0)),
    }),
    patched: [],
    phase: 'Progressing',
    states: { 'node-1': 'InFlight' },
  },
  {
    name: 'NotActive: the deadline passes without the config active',
    input: base({ now: at(120), nodes: [switched('node-1', { active: OLD })], rollout: rollout({ maxFailures: 1 }, progressing({ 'node-1': inFlight(0) }, 0)) }),
    patched: [],
    phase: 'Succeeded',
    reasons: { 'node-1': 'NotActive' },
  },
  {
    name: 'NotReady: the deadline passes with Ready not True',
    input: base({ now: at(120), nodes: [switched('node-1', { ready: 'Unknown' })], rollout: rollout({ maxFailures: 1 }, progressing({ 'node-1': inFlight(0) }, 0)) }),
    patched: [],
    phase: 'Succeeded',
    reasons: { 'node-1': 'NotReady' },
  },
  {
    name: 'Overridden: someone else changed an in-flight node; counted, not touched',
    input: base({ nodes: [switched('node-1', { source: OLD }), node('node-2')], rollout: rollout({ maxFailures: 1 }, progressing({ 'node-1': inFlight(0) }, 0)) }),
    patched: ['node-2'],
    phase: 'Progressing',
    states: { 'node-1': 'Overridden' },
    reasons: { 'node-1': 'Overridden' },
  },
  {
    name: 'Overridden: someone else changed a node that had succeeded',
    input: base({ nodes: [switched('node-1', { source: OLD }), switched('node-2', { active: OLD })], rollout: rollout({ maxFailures: 1 }, progressing({ 'node-1': done(0), 'node-2': inFlight(1) }, 1)) }),
    patched: [],
    phase: 'Progressing',
    states: { 'node-1': 'Overridden', 'node-2': 'InFlight' },
  },
  {
    name: 'a failed sync (a download not yet allowed) is retried by the agent: not a failure before the deadline',
    input: base({
      nodes: [switched('node-1', { active: OLD, assigned: NEW_ACTIVE, error: 'failed to sync: failed to download config, see Kubelet log for details' })],
      rollout: rollout({}, progressing({ 'node-1': inFlight(0) }, 0)),
    }),
    patched: [],
    phase: 'Progressing',
    states: { 'node-1': 'InFlight' },
  },
  {
    name: 'a failed sync still there at the deadline: ConfigError in the agent\'s words',
    input: base({
      now: at(301),
      nodes: [switched('node-1', { active: OLD, assigned: NEW_ACTIVE, error: 'failed to sync: failed to download config, see Kubelet log for details' })],
      rollout: rollout({ maxFailures: 1 }, progressing({ 'node-1': inFlight(0) }, 0)),
    }),
    patched: [],
    phase: 'Succeeded',
    states: { 'node-1': 'Failed' },
    reasons: { 'node-1': 'ConfigError' },
  },
  {
    name: 'failures within maxFailures: the rollout goes on',
    input: base({ nodes: [switched('node-1', { active: OLD, assigned: NEW_ACTIVE, error: 'boom' }), node('node-2')], rollout: rollout({ maxFailures: 1 }, progressing({ 'node-1': inFlight(0) }, 0)) }),
    patched: ['node-2'],
    phase: 'Progressing',
  },
  {
    name: 'one failure more than maxFailures with Halt: Halted, nothing more starts, nodes left as they are',
    input: base({ nodes: [switched('node-1', { active: OLD, assigned: NEW_ACTIVE, error: 'boom' }), node('node-2')], rollout: rollout({ failurePolicy: 'Halt' }, progressing({ 'node-1': inFlight(0) }, 0)) }),
    patched: [],
    phase: 'Halted',
    events: ['NodeFailed', 'RolloutHalted'],
  },
  {
    name: 'one failure more than maxFailures with Revert: Reverting first (recorded before any node is restored)',
    input: base({ nodes: [switched('node-1', { active: OLD, assigned: NEW_ACTIVE, error: 'boom' }), node('node-2')], rollout: rollout({}, progressing({ 'node-1': inFlight(0) }, 0)) }),
    patched: [],
    phase: 'Reverting',
    requeueAfterMs: 0,
  },
  // ---- reverting
  {
    name: 'Reverting: each node this rollout changed is restored, found by its annotation; Reverted',
    input: base({
      nodes: [switched('node-1'), switched('node-2', { previous: 'null' }), node('node-3'), switched('node-9', { labels: {} })],
      rollout: rollout({}, { ...progressing({ 'node-1': done(0), 'node-2': { state: 'Failed', batch: 1, updatedAt: iso(0), reason: 'ConfigError' }, 'node-3': { state: 'Pending' } }, 1), phase: 'Reverting' }),
    }),
    patched: ['node-1', 'node-2', 'node-9'],
    phase: 'Reverted',
    states: { 'node-1': 'Reverted', 'node-2': 'Reverted', 'node-3': 'Pending', 'node-9': 'Reverted' },
    events: ['RolloutReverted'],
  },
  {
    name: 'Reverting: a node someone else changed since is left alone',
    input: base({ nodes: [switched('node-1', { source: OLD })], rollout: rollout({}, { ...progressing({ 'node-1': done(0) }, 0), phase: 'Reverting' }) }),
    patched: [],
    phase: 'Reverted',
    states: { 'node-1': 'Overridden' },
  },
  {
    name: 'Reverting after a restart: a node already restored (annotation gone) is recorded as Reverted, not patched again',
    input: base({ nodes: [node('node-1'), switched('node-2')], rollout: rollout({}, { ...progressing({ 'node-1': done(0), 'node-2': inFlight(1) }, 1), phase: 'Reverting' }) }),
    patched: ['node-2'],
    phase: 'Reverted',
    states: { 'node-1': 'Reverted', 'node-2': 'Reverted' },
  },
  {
    name: 'undo (spec.revert) of a Succeeded rollout restores its nodes',
    input: base({ nodes: [switched('node-1'), switched('node-2')], rollout: rollout({ revert: true }, { ...progressing({ 'node-1': done(0), 'node-2': done(1) }, 1), phase: 'Succeeded' }) }),
    patched: ['node-1', 'node-2'],
    phase: 'Reverted',
  },
  {
    name: 'undo of a Reverted rollout: nothing more',
    input: base({ nodes: [node('node-1')], rollout: rollout({ revert: true }, { phase: 'Reverted' }) }),
    patched: [],
    phase: 'Reverted',
  },
  {
    name: 'a finished rollout does nothing, even with nodes changing around it',
    input: base({ nodes: [node('node-1'), switched('node-2', { source: OLD })], rollout: rollout({}, { ...progressing({ 'node-2': done(0) }, 0), phase: 'Succeeded' }) }),
    patched: [],
    phase: 'Succeeded',
  },
  // ---- pause
  {
    name: 'spec.paused: no node starts, in-flight nodes finish',
    input: base({ nodes: [switched('node-1'), node('node-2')], rollout: rollout({ paused: true }, progressing({ 'node-1': inFlight(0) }, 0)) }),
    patched: [],
    phase: 'Paused',
    states: { 'node-1': 'Succeeded', 'node-2': 'Pending' },
  },
  {
    name: 'pauseAfterCanary: the canary succeeded, so the rollout pauses itself instead of starting batch 1',
    input: base({ nodes: [switched('node-1'), node('node-2')], rollout: rollout({ strategy: { canary: 1, pauseAfterCanary: true } }, progressing({ 'node-1': inFlight(0) }, 0)) }),
    patched: [],
    phase: 'Paused',
    pause: true,
  },
  {
    name: 'pauseAfterCanary, resumed: the pause already happened, batch 1 starts',
    input: base({
      nodes: [switched('node-1'), node('node-2')],
      rollout: rollout({ strategy: { canary: 1, pauseAfterCanary: true } }, { ...progressing({ 'node-1': done(0) }, 0), phase: 'Paused' }, { annotations: { [PAUSED_AFTER_CANARY_ANNOTATION]: 'true' } }),
    }),
    patched: ['node-2'],
    phase: 'Progressing',
    currentBatch: 1,
  },
  // ---- membership
  {
    name: 'a node that starts matching mid-rollout joins',
    input: base({ nodes: [switched('node-1'), node('node-2'), node('node-0')], rollout: rollout({ strategy: { canary: 1, maxUnavailable: 5 } }, progressing({ 'node-1': done(0), 'node-2': { state: 'Pending' } }, 0)) }),
    patched: ['node-0', 'node-2'],
    phase: 'Progressing',
  },
  {
    name: 'a deleted node drops out',
    input: base({ nodes: [switched('node-1')], rollout: rollout({}, progressing({ 'node-1': done(0), 'node-2': inFlight(1) }, 1)) }),
    patched: [],
    phase: 'Succeeded',
  },
  {
    name: 'a changed node that stops matching stays tracked (it is still this rollout’s to revert)',
    input: base({ nodes: [switched('node-1', { labels: {}, active: OLD })], rollout: rollout({}, progressing({ 'node-1': inFlight(0) }, 0)) }),
    patched: [],
    phase: 'Progressing',
    states: { 'node-1': 'InFlight' },
  },
  // ---- conflicts
  {
    name: 'a node held by another unfinished rollout: Halted (Conflict), nothing touched',
    input: base({ nodes: [node('node-1', { owner: 'other', source: NEW }), node('node-2')], others: [rollout({}, { phase: 'Progressing' }, { name: 'other' })] }),
    patched: [],
    phase: 'Halted',
    events: ['RolloutStarted', 'RolloutHalted'],
  },
  {
    name: 'an older unfinished rollout selecting the same nodes holds them before it touches them',
    input: base({ others: [rollout({}, undefined, { name: 'older', creationTimestamp: iso(-600) })] }),
    patched: [],
    phase: 'Halted',
  },
  {
    name: 'a newer rollout selecting the same nodes does not hold them',
    input: base({ others: [rollout({}, undefined, { name: 'newer', creationTimestamp: iso(0) })] }),
    patched: ['node-1'],
    phase: 'Progressing',
  },
  {
    name: 'a node changed by a finished rollout is free',
    input: base({ nodes: [node('node-1', { owner: 'other' })], others: [rollout({}, { phase: 'Succeeded' }, { name: 'other', creationTimestamp: iso(-600) })] }),
    patched: ['node-1'],
    phase: 'Progressing',
  },
  // ---- reset to local config
  {
    name: 'configSource {} resets the nodes to local config; nodes on local config already are done',
    input: base({ rollout: rollout({ configSource: {} }), nodes: [node('node-1', { source: null }), node('node-2')], configMap: undefined }),
    patched: ['node-2'],
    phase: 'Progressing',
    states: { 'node-1': 'Succeeded', 'node-2': 'InFlight' },
  },
  // ---- missing ConfigMap
  {
    name: 'the ConfigMap does not exist: nothing starts, the rollout stays Pending',
    input: base({ configMap: undefined }),
    patched: [],
    phase: 'Pending',
  },
  {
    name: 'the ConfigMap disappears mid-rollout: nothing more starts, nodes in flight are still judged',
    input: base({ configMap: undefined, nodes: [switched('node-1'), node('node-2')], rollout: rollout({}, progressing({ 'node-1': inFlight(0) }, 0)) }),
    patched: [],
    phase: 'Progressing',
    states: { 'node-1': 'InFlight', 'node-2': 'Pending' },
  },
  // ---- recovery
  {
    name: 'the last leader patched the canary and stopped before writing status: recorded as in flight, not patched again',
    input: base({ nodes: [switched('node-1', { active: OLD }), node('node-2')], rollout: rollout({}, progressing(pendingAll(['node-1', 'node-2']))) }),
    patched: [],
    phase: 'Progressing',
    states: { 'node-1': 'InFlight', 'node-2': 'Pending' },
    currentBatch: 0,
    events: ['BatchStarted'],
  },
  {
    name: 'the same after batch 1 was patched: the recovered node is batch 2 and fills the only slot',
    input: base({
      nodes: [switched('node-1'), switched('node-2', { active: OLD }), node('node-3')],
      rollout: rollout({}, progressing({ 'node-1': done(0), 'node-2': { state: 'Pending' }, 'node-3': { state: 'Pending' } }, 0)),
    }),
    patched: [],
    phase: 'Progressing',
    states: { 'node-2': 'InFlight', 'node-3': 'Pending' },
    currentBatch: 1,
  },
];

describe('planRollout', () => {
  for (const row of rows) {
    it(row.name, () => {
      const plan = planRollout(row.input);
      assert.deepEqual(
        plan.nodePatches.map((p) => p.node),
        row.patched,
      );
      assert.equal(plan.status.phase, row.phase);
      for (const [n, state] of Object.entries(row.states ?? {})) assert.equal(plan.status.nodes?.[n]?.state, state, `state of ${n}`);
      for (const [n, reason] of Object.entries(row.reasons ?? {})) assert.equal(plan.status.nodes?.[n]?.reason, reason, `reason of ${n}`);
      if (row.currentBatch !== undefined) assert.equal(plan.status.currentBatch, row.currentBatch);
      if (row.events) assert.deepEqual(plan.events.map((e) => e.reason).sort(), [...row.events].sort());
      assert.equal(plan.rolloutPatch !== undefined, row.pause === true);
      if (row.requeueAfterMs !== undefined) assert.equal(plan.requeueAfterMs, row.requeueAfterMs);
    });
  }
});

describe('planRollout patches and status', () => {
  it('a start patch carries the annotations and the new source together, with the node’s resourceVersion', () => {
    const plan = planRollout(base({ nodes: [node('node-1', { rv: '77' })] }));
    assert.deepEqual(plan.nodePatches[0], {
      node: 'node-1',
      resourceVersion: '77',
      patch: {
        metadata: { resourceVersion: '77', annotations: { [ROLLOUT_ANNOTATION]: 'r1', [PREVIOUS_SOURCE_ANNOTATION]: JSON.stringify(OLD) } },
        spec: { configSource: NEW },
      },
    });
  });

  it('a node without a source records "null" as its previous source, and reverting restores no source', () => {
    const start = planRollout(base({ nodes: [node('node-1', { source: null })] }));
    assert.equal(start.nodePatches[0]!.patch.metadata.annotations[PREVIOUS_SOURCE_ANNOTATION], 'null');
    const revert = planRollout(base({ nodes: [switched('node-1', { previous: 'null' })], rollout: rollout({ revert: true }, progressing({ 'node-1': done(0) }, 0)) }));
    assert.deepEqual(revert.nodePatches[0]!.patch, {
      metadata: { resourceVersion: '100', annotations: { [ROLLOUT_ANNOTATION]: null, [PREVIOUS_SOURCE_ANNOTATION]: null } },
      spec: { configSource: null },
    });
  });

  it('a revert restores the exact previous source', () => {
    const prev = { configMap: { namespace: 'ns', name: 'x', kubeletConfigKey: 'k' } };
    const plan = planRollout(base({ nodes: [switched('node-1', { previous: JSON.stringify(prev) })], rollout: rollout({ revert: true }, { phase: 'Halted' }) }));
    assert.deepEqual(plan.nodePatches[0]!.patch.spec.configSource, prev);
  });

  it('an unreadable previous-source annotation is never guessed at: the node is left and counted', () => {
    const plan = planRollout(base({ nodes: [switched('node-1', { previous: '{not json' })], rollout: rollout({ revert: true }, { phase: 'Halted' }) }));
    assert.deepEqual(plan.nodePatches, []);
    assert.equal(plan.status.nodes?.['node-1']?.state, 'Overridden');
  });

  it('the conflict names the other rollout in the Failed condition', () => {
    const plan = planRollout(base({ nodes: [node('node-1', { owner: 'other' })], others: [rollout({}, { phase: 'Paused' }, { name: 'other' })] }));
    const failed = plan.status.conditions?.find((c) => c.type === 'Failed');
    assert.equal(failed?.status, 'True');
    assert.equal(failed?.reason, 'Conflict');
    assert.match(failed?.message ?? '', /\bother\b/);
  });

  it('a missing ConfigMap is named in the Progressing condition', () => {
    const plan = planRollout(base({ configMap: undefined }));
    const c = plan.status.conditions?.find((x) => x.type === 'Progressing');
    assert.deepEqual([c?.status, c?.reason], ['False', 'ConfigMapNotFound']);
    assert.match(c?.message ?? '', /kube-system\/new/);
  });

  it('an invalid selector halts the rollout with the reason', () => {
    const plan = planRollout(base({ rollout: rollout({ nodeSelector: { matchExpressions: [{ key: 'pool', operator: 'Gt' as 'In', values: ['1'] }] } }) }));
    assert.equal(plan.status.phase, 'Halted');
    assert.deepEqual(plan.nodePatches, []);
    const failed = plan.status.conditions?.find((c) => c.type === 'Failed');
    assert.deepEqual([failed?.status, failed?.reason], ['True', 'InvalidSelector']);
    assert.match(failed?.message ?? '', /"Gt" is not a valid label selector operator/);
  });

  it('counts and failures reflect the nodes', () => {
    const plan = planRollout(
      base({
        nodes: [switched('node-1'), switched('node-2', { active: OLD, assigned: NEW_ACTIVE, error: 'bad' }), node('node-3')],
        rollout: rollout({ maxFailures: 1, strategy: { canary: 1, maxUnavailable: 1 } }, progressing({ 'node-1': done(0), 'node-2': inFlight(1) }, 1)),
      }),
    );
    const s = plan.status;
    assert.deepEqual([s.targetNodes, s.updatedNodes, s.succeededNodes, s.failedNodes], [3, 3, 1, 1]);
    assert.deepEqual(s.failures, [{ node: 'node-2', reason: 'ConfigError', message: 'bad' }]);
    assert.equal(s.observedGeneration, 1);
  });

  it('looking again at an unchanged world changes nothing (no status churn, no events, no patches)', () => {
    let input = base({ rollout: rollout({ strategy: { canary: 1, soakSeconds: 30 } }) });
    const first = planRollout(input);
    const nodes = input.nodes.map((n) => (n.metadata.name === 'node-1' ? switched('node-1') : n));
    input = { ...input, nodes, rollout: { ...input.rollout, status: first.status }, now: at(12) };
    const second = planRollout(input);
    input = { ...input, rollout: { ...input.rollout, status: second.status }, now: at(13) };
    const third = planRollout(input);
    assert.deepEqual(third.status, second.status);
    assert.deepEqual(third.events, []);
    assert.deepEqual(third.nodePatches, []);
  });

  it('conditions keep their transition time while their status holds', () => {
    const first = planRollout(base({}));
    const later = planRollout(base({ now: at(500), rollout: rollout({}, first.status), nodes: [switched('node-1', { active: OLD }), node('node-2'), node('node-3')] }));
    const t = (s: RolloutStatus): string | undefined => s.conditions?.find((c) => c.type === 'Progressing')?.lastTransitionTime;
    assert.equal(t(later.status), t(first.status));
  });
});

describe('planRollout: soak only on heartbeats, nodes that are down held', () => {
  const soak30 = (nodes: Record<string, NodeProgress>, currentBatch = 0): ReturnType<typeof rollout> =>
    rollout({ strategy: { canary: 1, soakSeconds: 30 } }, progressing(nodes, currentBatch));
  const neverReady = (name: string): Node => {
    const n = node(name);
    delete n.status;
    return n;
  };
  const progressingCondition = (st: RolloutStatus) => st.conditions?.find((c) => c.type === 'Progressing');

  it('a soak is over only at a heartbeat at or after its end', () => {
    const input = base({ now: at(41), nodes: [switched('node-1')], rollout: soak30({ 'node-1': inFlight(0, 0, { readySince: iso(10) }) }) });
    const unheard = planRollout({ ...input, leases: leasesFor(input.nodes, at(39.5)) });
    assert.equal(unheard.status.nodes?.['node-1']?.state, 'InFlight');
    assert.equal(unheard.status.nodes?.['node-1']?.readySince, iso(10));
    assert.equal(unheard.requeueAfterMs, 18_501, 'no timer for the soak’s end, which has passed: the renewal is an event; the next timer is the lapse');
    const heard = planRollout({ ...input, leases: leasesFor(input.nodes, at(40)) });
    assert.equal(heard.status.nodes?.['node-1']?.state, 'Succeeded');
  });

  it('a heartbeat older than half the Lease’s duration stops the soak, Ready=True notwithstanding', () => {
    const input = base({ now: at(41), nodes: [switched('node-1')], rollout: soak30({ 'node-1': inFlight(0, 0, { readySince: iso(10) }) }) });
    const stale = planRollout({ ...input, leases: leasesFor(input.nodes, at(20)) });
    assert.equal(stale.status.phase, 'Progressing');
    assert.deepEqual(stale.status.nodes?.['node-1'], inFlight(0), 'in flight, its soak dropped');
    const short = planRollout({ ...input, leases: leasesFor(input.nodes, at(36), 8) });
    assert.equal(short.status.nodes?.['node-1']?.readySince, undefined, 'a Lease of 8 s is stale after 4 s');
    const fresh = planRollout({ ...input, leases: leasesFor(input.nodes, at(21)) });
    assert.equal(fresh.status.nodes?.['node-1']?.readySince, iso(10), 'exactly 20 s is still fresh');
  });

  it('a node with no Lease never soaks', () => {
    const plan = planRollout(base({ now: at(41), nodes: [switched('node-1')], leases: new Map(), rollout: soak30({ 'node-1': inFlight(0) }) }));
    assert.deepEqual(plan.status.nodes?.['node-1'], inFlight(0));
  });

  it('looks again when a soaking node’s heartbeat would lapse, if that comes before the soak’s end', () => {
    const input = base({ now: at(20), nodes: [switched('node-1')], rollout: soak30({ 'node-1': inFlight(0, 0, { readySince: iso(10) }) }) });
    const plan = planRollout({ ...input, leases: leasesFor(input.nodes, at(15)) });
    assert.equal(plan.requeueAfterMs, 15_001);
  });

  it('a soak recorded before the controller started begins again at its first look', () => {
    const input = base({ now: at(41), startedAt: at(35), nodes: [switched('node-1')], rollout: soak30({ 'node-1': inFlight(0, 0, { readySince: iso(10) }) }) });
    const plan = planRollout(input);
    assert.equal(plan.status.nodes?.['node-1']?.state, 'InFlight');
    assert.equal(plan.status.nodes?.['node-1']?.readySince, iso(41));
    assert.equal(plan.requeueAfterMs, 20_001);
    const later = planRollout({ ...input, now: at(71), leases: leasesFor(input.nodes, at(71)), rollout: soak30({ 'node-1': plan.status.nodes!['node-1']! }) });
    assert.equal(later.status.nodes?.['node-1']?.state, 'Succeeded');
  });

  it('without a soak, a healthy node still needs a fresh heartbeat to succeed', () => {
    const input = base({ nodes: [switched('node-1')], rollout: rollout({}, progressing({ 'node-1': inFlight(0) }, 0)) });
    assert.equal(planRollout({ ...input, leases: leasesFor(input.nodes, at(-11)) }).status.nodes?.['node-1']?.state, 'InFlight');
    assert.equal(planRollout(input).status.nodes?.['node-1']?.state, 'Succeeded');
  });

  it('a changed node whose heartbeat is stale at the deadline fails NotReady, saying when it last renewed', () => {
    const input = base({ now: at(120), nodes: [switched('node-1')], rollout: rollout({ maxFailures: 1 }, progressing({ 'node-1': inFlight(0) }, 0)) });
    const plan = planRollout({ ...input, leases: leasesFor(input.nodes, at(5)) });
    assert.deepEqual(plan.status.failures, [
      { node: 'node-1', reason: 'NotReady', message: `node stopped heartbeating after the change (its Lease was last renewed at ${at(5).toISOString()})` },
    ]);
    const none = planRollout({ ...input, leases: new Map() });
    assert.equal(none.status.failures?.[0]?.message, 'node stopped heartbeating after the change (its Lease was never renewed)');
  });

  it('a node not Ready is held: not changed, marked waiting, the next node is the canary', () => {
    const wide = rollout({ strategy: { canary: 1, maxUnavailable: 3 } });
    const plan = planRollout(base({ nodes: [neverReady('node-1'), node('node-2'), node('node-3', { ready: 'False' })], rollout: wide }));
    assert.deepEqual(plan.nodePatches.map((p) => p.node), ['node-2']);
    assert.deepEqual(plan.status.nodes?.['node-1'], { state: 'Pending', waitingReason: 'NotReady', waitingSince: iso(10) });
    assert.deepEqual(plan.status.nodes?.['node-3'], { state: 'Pending', waitingReason: 'NotReady', waitingSince: iso(10) });
    assert.equal(plan.status.waitingNodes, 2);
    assert.equal(plan.status.failedNodes, 0);
    assert.deepEqual(
      plan.events.filter((e) => e.reason === 'NodeWaiting').map((e) => e.message),
      ['Node node-1 is not Ready: it waits, unchanged, until it is Ready with a fresh heartbeat', 'Node node-3 is not Ready: it waits, unchanged, until it is Ready with a fresh heartbeat'],
    );
    assert.equal(progressingCondition(plan.status)?.message, '0 of 3 nodes done; waiting, unchanged, for Ready and a fresh heartbeat: node-1, node-3');
  });

  it('a node whose Ready=True nobody renews (a stale Lease, or none) is held as HeartbeatStale', () => {
    const nodes = [node('node-1'), node('node-2'), node('node-3')];
    const leases = leasesFor(nodes, at(10));
    leases.set('node-1', leasesFor(nodes, at(-11)).get('node-1')!);
    leases.delete('node-2');
    const plan = planRollout(base({ nodes, leases, rollout: rollout({ strategy: { canary: 1, maxUnavailable: 3 } }) }));
    assert.deepEqual(plan.nodePatches.map((p) => p.node), ['node-3']);
    assert.equal(plan.status.nodes?.['node-1']?.waitingReason, 'HeartbeatStale');
    assert.equal(plan.status.nodes?.['node-2']?.waitingReason, 'HeartbeatStale');
    assert.match(plan.events.find((e) => e.reason === 'NodeWaiting')?.message ?? '', /^Node node-1 has a stale heartbeat/);
  });

  it('a waiting node keeps its waitingSince and its event is not repeated; back up, it loses the mark and starts', () => {
    const r = rollout({ strategy: { canary: 1, maxUnavailable: 2 } }, progressing({ 'node-1': done(0), 'node-2': { state: 'Pending', waitingReason: 'NotReady', waitingSince: iso(5) } }, 0));
    const still = planRollout(base({ nodes: [switched('node-1'), node('node-2', { ready: 'Unknown' })], rollout: r }));
    assert.deepEqual(still.status.nodes?.['node-2'], { state: 'Pending', waitingReason: 'NotReady', waitingSince: iso(5) });
    assert.deepEqual(still.events, []);
    const back = planRollout(base({ nodes: [switched('node-1'), node('node-2')], rollout: r }));
    assert.deepEqual(back.nodePatches.map((p) => p.node), ['node-2']);
    assert.deepEqual(back.status.nodes?.['node-2'], { state: 'InFlight', batch: 1, updatedAt: iso(10) });
    assert.equal(back.status.waitingNodes, 0);
  });

  it('a node already on the target but not heartbeating is not counted as succeeded: it waits', () => {
    const plan = planRollout(base({ nodes: [node('node-1', { source: NEW, active: NEW_ACTIVE })], leases: new Map() }));
    assert.equal(plan.status.phase, 'Progressing');
    assert.equal(plan.status.nodes?.['node-1']?.waitingReason, 'HeartbeatStale');
    assert.deepEqual(plan.nodePatches, []);
  });

  it('maxUnavailable counts the nodes that are down: with 2 allowed and one down, one starts at a time', () => {
    const nodes = [switched('node-1'), neverReady('node-2'), node('node-3'), node('node-4')];
    const plan = planRollout(base({ nodes, rollout: rollout({ strategy: { canary: 1, maxUnavailable: 2 } }, progressing({ 'node-1': done(0) }, 0)) }));
    assert.deepEqual(plan.nodePatches.map((p) => p.node), ['node-3']);
  });

  it('a node that succeeded and is down now counts too', () => {
    const nodes = [switched('node-1', { ready: 'Unknown' }), node('node-2'), node('node-3')];
    const plan = planRollout(base({ nodes, rollout: rollout({ strategy: { canary: 1, maxUnavailable: 2 } }, progressing({ 'node-1': done(0) }, 0)) }));
    assert.deepEqual(plan.nodePatches.map((p) => p.node), ['node-2']);
    assert.equal(plan.status.nodes?.['node-1']?.state, 'Succeeded');
  });

  it('with maxUnavailable 1 and a node down nothing starts, the canary included', () => {
    const plan = planRollout(base({ nodes: [neverReady('node-1'), node('node-2')] }));
    assert.deepEqual(plan.nodePatches, []);
    assert.equal(plan.status.phase, 'Progressing');
    assert.equal(plan.status.currentBatch, undefined);
    const wider = planRollout(base({ nodes: [neverReady('node-1'), node('node-2')], rollout: rollout({ strategy: { canary: 1, maxUnavailable: 2 } }) }));
    assert.deepEqual(wider.nodePatches.map((p) => p.node), ['node-2']);
  });

  it('only waiting nodes left: not Succeeded; past the progress deadline the Progressing condition turns False (NodesNotReady), still waiting', () => {
    const waiting = { state: 'Pending' as const, waitingReason: 'NotReady' as const, waitingSince: iso(10) };
    const r = rollout({ progressDeadlineSeconds: 60 }, progressing({ 'node-1': done(0), 'node-2': waiting }, 0));
    const nodes = [switched('node-1'), neverReady('node-2')];
    const before = planRollout(base({ now: at(69), nodes, rollout: r }));
    assert.equal(before.status.phase, 'Progressing');
    assert.equal(progressingCondition(before.status)?.status, 'True');
    assert.equal(before.requeueAfterMs, 1_000, 'looks again when the wait passes the deadline');
    const stalled = planRollout(base({ now: at(70), nodes, rollout: r }));
    assert.equal(stalled.status.phase, 'Progressing');
    assert.deepEqual(stalled.nodePatches, []);
    const c = progressingCondition(stalled.status);
    assert.deepEqual([c?.status, c?.reason], ['False', 'NodesNotReady']);
    assert.equal(c?.message, 'no node can start: node-2 not Ready with a fresh heartbeat for more than 60s; the rollout changes a waiting node once it is, and finishes once none is left in the selector');
    assert.equal(stalled.status.conditions?.find((x) => x.type === 'Complete')?.status, 'False');
    const gone = planRollout(base({ now: at(70), nodes: [switched('node-1')], rollout: r }));
    assert.equal(gone.status.phase, 'Succeeded', 'once the waiting node is gone (or left the selector)');
  });

  it('a rollout that stops starting nodes (reverting) drops the waiting marks', () => {
    const waiting = { state: 'Pending' as const, waitingReason: 'NotReady' as const, waitingSince: iso(5) };
    const nodes = [switched('node-1', { active: OLD, assigned: NEW_ACTIVE, error: 'boom' }), neverReady('node-2')];
    const plan = planRollout(base({ nodes, rollout: rollout({}, progressing({ 'node-1': inFlight(0), 'node-2': waiting }, 0)) }));
    assert.equal(plan.status.phase, 'Reverting');
    assert.deepEqual(plan.status.nodes?.['node-2'], { state: 'Pending' });
    assert.equal(plan.status.waitingNodes, 0);
  });
});

describe('planRollout of layers', () => {
  const LAYERS = [
    { configMap: { namespace: 'default', name: 'base', kubeletConfigKey: 'kubelet' } },
    { configMap: { namespace: 'default', name: 'pool', kubeletConfigKey: 'kubelet' } },
  ];
  const layered = (status?: RolloutStatus): ReturnType<typeof rollout> => {
    const r = rollout({ layers: LAYERS }, status);
    delete r.spec!.configSource;
    return r;
  };
  const failedCondition = (st: RolloutStatus) => st.conditions?.find((c) => c.type === 'Failed');

  it('rolls out the rendered ConfigMap and records its name', () => {
    const plan = planRollout(base({ rollout: layered(), rendered: { name: 'r1-abc' } }));
    assert.deepEqual(plan.nodePatches.map((p) => p.patch.spec.configSource), [{ configMap: { namespace: 'kube-system', name: 'r1-abc', kubeletConfigKey: 'kubelet' } }]);
    assert.equal(plan.status.renderedConfigMap, 'r1-abc');
    assert.equal(plan.status.phase, 'Progressing');
  });

  it('keeps to the recorded ConfigMap, whatever a later rendering says', () => {
    const first = planRollout(base({ rollout: layered(), rendered: { name: 'r1-abc' } }));
    const nodes = [node('node-1', { source: { configMap: { namespace: 'kube-system', name: 'r1-abc', kubeletConfigKey: 'kubelet' } } }), node('node-2'), node('node-3')];
    const next = planRollout(base({ rollout: layered(first.status), nodes, rendered: { name: 'r1-other' }, now: at(11) }));
    assert.equal(next.status.renderedConfigMap, 'r1-abc');
    assert.ok(next.nodePatches.every((p) => p.patch.spec.configSource?.configMap?.name === 'r1-abc'));
  });

  it('a layer that cannot be rendered halts the rollout with the reason, before any node changes', () => {
    const failure = { reason: 'LayerNotFound', message: 'layer ConfigMap default/pool not found: the layers cannot be rendered' };
    const plan = planRollout(base({ rollout: layered(), rendered: { failure } }));
    assert.deepEqual(plan.nodePatches, []);
    assert.equal(plan.status.phase, 'Halted');
    assert.equal(failedCondition(plan.status)?.reason, 'LayerNotFound');
    assert.equal(failedCondition(plan.status)?.message, failure.message);
    assert.equal(plan.status.renderedConfigMap, undefined);
  });

  it('configSource and layers together halt with InvalidSpec instead of choosing one', () => {
    const plan = planRollout(base({ rollout: rollout({ layers: LAYERS }), rendered: { name: 'r1-abc' } }));
    assert.deepEqual(plan.nodePatches, []);
    assert.equal(plan.status.phase, 'Halted');
    assert.equal(failedCondition(plan.status)?.reason, 'InvalidSpec');
  });

  it('an undo restores the nodes this rollout moved to the rendered ConfigMap', () => {
    const target = { configMap: { namespace: 'kube-system', name: 'r1-abc', kubeletConfigKey: 'kubelet' } };
    const moved = switched('node-1', { source: target });
    const r = layered({ phase: 'Succeeded', renderedConfigMap: 'r1-abc', nodes: { 'node-1': done(0) } });
    r.spec!.revert = true;
    const plan = planRollout(base({ rollout: r, nodes: [moved] }));
    assert.deepEqual(plan.nodePatches.map((p) => p.patch.spec.configSource), [OLD]);
    assert.equal(plan.status.phase, 'Reverted');
    assert.equal(plan.status.renderedConfigMap, 'r1-abc');
  });
});
