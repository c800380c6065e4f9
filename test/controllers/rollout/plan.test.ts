// The rollout decision, one table row per rule of the issue (order and batches, success and each failure reason,
// soak, pause, joining and deleted nodes, failure policies, revert, conflicts, undo, reset to local config, and the
// recovery of a change whose status write was lost), plus the exact patches it asks for.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, NodeConfigSource } from '../../../src/api/types.js';
import { handBackTo, planRollout, type Plan, type PlanInput } from '../../../src/controllers/rollout/plan/index.js';
import { assignmentPatch } from '../../../src/controllers/rollout/apply.js';
import {
  LEGACY_PREVIOUS_SOURCE_ANNOTATION,
  REVERT_RECORD_ANNOTATION,
  PAUSED_AFTER_CANARY_ANNOTATION,
  ROLLOUT_ANNOTATION,
  ROLLOUT_FINALIZER,
  type NodeProgress,
  type RolloutStatus,
} from '../../../src/api/dkc/rollout.js';
import {
  CM,
  NEW,
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

const blue = (n: number): Node[] => Array.from({ length: n }, (_, i) => node(`node-${i + 1}`));
const inFlight = (batch: number, updated = 0, extra: Partial<NodeProgress> = {}): NodeProgress => ({
  state: 'InFlight',
  batch,
  updatedAt: iso(updated),
  previous: found(),
  ...extra,
});
const done = (batch: number, extra: Partial<NodeProgress> = {}): NodeProgress => ({
  state: 'Succeeded',
  batch,
  updatedAt: iso(0),
  previous: found(),
  ...extra,
});
/** A node of the rollout that failed and is gone: a failure of the controller's own records, so a Reverting is its decision. */
const FAILED_GONE: Record<string, NodeProgress> = {
  'node-0': { state: 'Failed', batch: 0, reason: 'ConfigError', message: 'failed to validate config' },
};
const progressing = (nodes: Record<string, NodeProgress>, currentBatch?: number): RolloutStatus => ({
  phase: 'Progressing',
  startTime: iso(0),
  nodes,
  ...(currentBatch !== undefined ? { currentBatch } : {}),
});
/** Every node heartbeating at `now` unless `leases` says otherwise; the controller started an hour before. */
const base = (over: Partial<PlanInput>): PlanInput => {
  const input = {
    rollout: rollout(),
    nodes: blue(3),
    configMap: CM,
    others: [],
    now: at(10),
    startedAt: at(-3600),
    ...over,
  };
  return { ...input, leases: over.leases ?? leasesFor(input.nodes, input.now) };
};

/**
 * An undo over two looks: the first one's patches, and the status and events as they stand once each patched node
 * reports what it was put back on (only then does it count as restored).
 */
const planUndo = (input: PlanInput): Plan => {
  const first = planRollout(input);
  const next = planRollout(afterPatches(input, first));
  assert.deepEqual(next.assignments, [], 'nothing patched again');
  return { ...next, assignments: first.assignments, events: [...first.events, ...next.events] };
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
  /**
   * An undo's row: phase, states and reasons are the next look's, once each patched node reports what it was put back
   * on (a node counts as restored only then); events are both looks'.
   */
  restored?: true;
}

const pendingAll = (names: string[]): Record<string, NodeProgress> =>
  Object.fromEntries(names.map((n) => [n, { state: 'Pending' }]));

const rows: Row[] = [
  // ---- order and batches
  {
    name: 'first look: the canary is the first node by name; the others wait',
    input: base({
      nodes: [node('node-3'), node('node-1'), node('node-2'), node('other', { labels: { pool: 'green' } })],
    }),
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
    input: base({
      nodes: [switched('node-1', { active: OLD }), node('node-2'), node('node-3')],
      rollout: rollout({}, progressing({ 'node-1': inFlight(0) }, 0)),
    }),
    patched: [],
    phase: 'Progressing',
    states: { 'node-1': 'InFlight' },
    currentBatch: 0,
  },
  {
    name: 'the canary succeeds: it is recorded and batch 1 starts in the same look',
    input: base({
      nodes: [switched('node-1'), node('node-2'), node('node-3')],
      rollout: rollout({ strategy: { canary: 1, maxUnavailable: 2 } }, progressing({ 'node-1': inFlight(0) }, 0)),
    }),
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
      rollout: rollout(
        { strategy: { canary: 1, maxUnavailable: '50%' } },
        progressing({ 'node-1': done(0), 'node-2': inFlight(1) }, 1),
      ),
    }),
    patched: ['node-3'],
    phase: 'Progressing',
    currentBatch: 2,
  },
  {
    name: 'maxUnavailable 0 still lets one node through',
    input: base({
      nodes: [switched('node-1'), node('node-2')],
      rollout: rollout({ strategy: { canary: 1, maxUnavailable: 0 } }, progressing({ 'node-1': done(0) }, 0)),
    }),
    patched: ['node-2'],
    phase: 'Progressing',
  },
  {
    name: 'all nodes succeeded: Succeeded',
    input: base({
      nodes: [switched('node-1'), switched('node-2')],
      rollout: rollout({}, progressing({ 'node-1': done(0), 'node-2': inFlight(1) }, 1)),
    }),
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
    input: base({
      nodes: [switched('node-1', { active: { configMap: { ...NEW.configMap!, uid: CM.uid, resourceVersion: '9' } } })],
      rollout: rollout({}, progressing({ 'node-1': inFlight(0) }, 0)),
    }),
    patched: [],
    phase: 'Progressing',
    states: { 'node-1': 'InFlight' },
    requeueAfterMs: 110_000,
  },
  {
    name: 'not Ready: still in flight until the deadline',
    input: base({
      nodes: [switched('node-1', { ready: 'False' })],
      rollout: rollout({}, progressing({ 'node-1': inFlight(0) }, 0)),
    }),
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
    input: base({
      now: at(41),
      nodes: [switched('node-1')],
      rollout: rollout(
        { strategy: { canary: 1, soakSeconds: 30 } },
        progressing({ 'node-1': inFlight(0, 0, { readySince: iso(10) }) }, 0),
      ),
    }),
    patched: [],
    phase: 'Succeeded',
  },
  {
    name: 'soak: a Ready flap after readySince restarts the soak',
    input: base({
      now: at(41),
      nodes: [switched('node-1', { readyTransition: iso(35) })],
      leases: leasesFor([node('node-1')], at(41), 80),
      rollout: rollout(
        { strategy: { canary: 1, soakSeconds: 30 } },
        progressing({ 'node-1': inFlight(0, 0, { readySince: iso(10) }) }, 0),
      ),
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
      nodes: [
        switched('node-1', {
          active: OLD,
          assigned: NEW_ACTIVE,
          error: 'failed to validate config, see Kubelet log for details',
        }),
      ],
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
    input: base({
      nodes: [
        switched('node-1', { active: OLD, assigned: OLD, error: 'failed to load config, see Kubelet log for details' }),
      ],
      rollout: rollout({}, progressing({ 'node-1': inFlight(0) }, 0)),
    }),
    patched: [],
    phase: 'Progressing',
    states: { 'node-1': 'InFlight' },
  },
  {
    name: 'an error about an earlier version of the same ConfigMap is stale: still in flight',
    input: base({
      nodes: [
        switched('node-1', {
          active: OLD,
          assigned: { configMap: { ...NEW.configMap!, uid: CM.uid, resourceVersion: '9' } },
          error: 'failed to validate config, see Kubelet log for details',
        }),
      ],
      rollout: rollout({}, progressing({ 'node-1': inFlight(0) }, 0)),
    }),
    patched: [],
    phase: 'Progressing',
    states: { 'node-1': 'InFlight' },
  },
  {
    name: 'NotActive: the deadline passes without the config active',
    input: base({
      now: at(120),
      nodes: [switched('node-1', { active: OLD })],
      rollout: rollout({ maxFailures: 1 }, progressing({ 'node-1': inFlight(0) }, 0)),
    }),
    patched: [],
    phase: 'Succeeded',
    reasons: { 'node-1': 'NotActive' },
  },
  {
    name: 'NotReady: the deadline passes with Ready not True',
    input: base({
      now: at(120),
      nodes: [switched('node-1', { ready: 'Unknown' })],
      rollout: rollout({ maxFailures: 1 }, progressing({ 'node-1': inFlight(0) }, 0)),
    }),
    patched: [],
    phase: 'Succeeded',
    reasons: { 'node-1': 'NotReady' },
  },
  {
    name: 'Overridden: someone else changed an in-flight node; counted, not touched',
    input: base({
      nodes: [switched('node-1', { source: OLD }), node('node-2')],
      rollout: rollout({ maxFailures: 1 }, progressing({ 'node-1': inFlight(0) }, 0)),
    }),
    patched: ['node-2'],
    phase: 'Progressing',
    states: { 'node-1': 'Overridden' },
    reasons: { 'node-1': 'Overridden' },
  },
  {
    name: 'Overridden: someone else changed a node that had succeeded',
    input: base({
      nodes: [switched('node-1', { source: OLD }), switched('node-2', { active: OLD })],
      rollout: rollout({ maxFailures: 1 }, progressing({ 'node-1': done(0), 'node-2': inFlight(1) }, 1)),
    }),
    patched: [],
    phase: 'Progressing',
    states: { 'node-1': 'Overridden', 'node-2': 'InFlight' },
  },
  {
    name: 'a failed sync (a download not yet allowed) is retried by the agent: not a failure before the deadline',
    input: base({
      nodes: [
        switched('node-1', {
          active: OLD,
          assigned: NEW_ACTIVE,
          error: 'failed to sync: failed to download config, see Kubelet log for details',
        }),
      ],
      rollout: rollout({}, progressing({ 'node-1': inFlight(0) }, 0)),
    }),
    patched: [],
    phase: 'Progressing',
    states: { 'node-1': 'InFlight' },
  },
  {
    name: "a failed sync still there at the deadline: ConfigError in the agent's words",
    input: base({
      now: at(301),
      nodes: [
        switched('node-1', {
          active: OLD,
          assigned: NEW_ACTIVE,
          error: 'failed to sync: failed to download config, see Kubelet log for details',
        }),
      ],
      rollout: rollout({ maxFailures: 1 }, progressing({ 'node-1': inFlight(0) }, 0)),
    }),
    patched: [],
    phase: 'Succeeded',
    states: { 'node-1': 'Failed' },
    reasons: { 'node-1': 'ConfigError' },
  },
  {
    name: 'failures within maxFailures: the rollout goes on',
    input: base({
      nodes: [switched('node-1', { active: OLD, assigned: NEW_ACTIVE, error: 'boom' }), node('node-2')],
      rollout: rollout({ maxFailures: 1 }, progressing({ 'node-1': inFlight(0) }, 0)),
    }),
    patched: ['node-2'],
    phase: 'Progressing',
  },
  {
    name: 'one failure more than maxFailures with Halt: Halted, nothing more starts, nodes left as they are',
    input: base({
      nodes: [switched('node-1', { active: OLD, assigned: NEW_ACTIVE, error: 'boom' }), node('node-2')],
      rollout: rollout({ failurePolicy: 'Halt' }, progressing({ 'node-1': inFlight(0) }, 0)),
    }),
    patched: [],
    phase: 'Halted',
    events: ['NodeFailed', 'RolloutHalted'],
  },
  {
    name: 'one failure more than maxFailures with Revert: Reverting first (recorded before any node is restored)',
    input: base({
      nodes: [switched('node-1', { active: OLD, assigned: NEW_ACTIVE, error: 'boom' }), node('node-2')],
      rollout: rollout({}, progressing({ 'node-1': inFlight(0) }, 0)),
    }),
    patched: [],
    phase: 'Reverting',
    requeueAfterMs: 0,
  },
  // ---- reverting
  {
    name: 'Reverting: each node this rollout changed is restored to what its own record says it found; Reverted',
    restored: true,
    input: base({
      nodes: [switched('node-1'), switched('node-2', { record: found(null) }), node('node-3')],
      rollout: rollout(
        {},
        {
          ...progressing(
            {
              'node-1': done(0),
              'node-2': { state: 'Failed', batch: 1, updatedAt: iso(0), reason: 'ConfigError', previous: found(null) },
              'node-3': { state: 'Pending' },
            },
            1,
          ),
          phase: 'Reverting',
        },
      ),
    }),
    patched: ['node-1', 'node-2'],
    phase: 'Reverted',
    states: { 'node-1': 'Reverted', 'node-2': 'Reverted', 'node-3': 'Pending' },
    events: ['RolloutReverted'],
  },
  {
    name: 'Reverting: a node that names this rollout on its target but has no record in its status is NotRestored, never guessed',
    restored: true,
    input: base({
      nodes: [switched('node-1'), switched('node-9', { labels: {}, legacyPrevious: JSON.stringify(OLD) })],
      rollout: rollout({}, { ...progressing({ ...FAILED_GONE, 'node-1': done(0) }, 0), phase: 'Reverting' }),
    }),
    patched: ['node-1'],
    phase: 'Reverted',
    states: { 'node-1': 'Reverted', 'node-9': 'NotRestored' },
    reasons: { 'node-9': 'NoRecord' },
    events: ['RolloutReverted', 'NodeNotRestored'],
  },
  {
    name: 'Reverting: a node recorded as changed by an older controller (no previous source in the record) is NotRestored',
    input: base({
      nodes: [switched('node-1', { legacyPrevious: JSON.stringify(OLD) })],
      rollout: rollout(
        {},
        {
          ...progressing({ ...FAILED_GONE, 'node-1': { state: 'Succeeded', batch: 0, updatedAt: iso(0) } }, 0),
          phase: 'Reverting',
        },
      ),
    }),
    patched: [],
    phase: 'Reverted',
    states: { 'node-1': 'NotRestored' },
    reasons: { 'node-1': 'NoRecord' },
  },
  {
    name: 'Reverting: a node someone else changed since is left alone',
    input: base({
      nodes: [switched('node-1', { source: OLD })],
      rollout: rollout({}, { ...progressing({ ...FAILED_GONE, 'node-1': done(0) }, 0), phase: 'Reverting' }),
    }),
    patched: [],
    phase: 'Reverted',
    states: { 'node-1': 'Overridden' },
  },
  {
    name: 'Reverting after a restart: a node already restored (annotation gone) is recorded as Reverted, not patched again',
    restored: true,
    input: base({
      nodes: [node('node-1'), switched('node-2')],
      rollout: rollout(
        {},
        { ...progressing({ ...FAILED_GONE, 'node-1': done(0), 'node-2': inFlight(1) }, 1), phase: 'Reverting' },
      ),
    }),
    patched: ['node-2'],
    phase: 'Reverted',
    states: { 'node-1': 'Reverted', 'node-2': 'Reverted' },
  },
  {
    name: 'undo (spec.revert) of a Succeeded rollout restores its nodes',
    restored: true,
    input: base({
      nodes: [switched('node-1'), switched('node-2')],
      rollout: rollout(
        { revert: true },
        { ...progressing({ 'node-1': done(0), 'node-2': done(1) }, 1), phase: 'Succeeded' },
      ),
    }),
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
    input: base({
      nodes: [node('node-1'), switched('node-2', { source: OLD })],
      rollout: rollout({}, { ...progressing({ 'node-2': done(0) }, 0), phase: 'Succeeded' }),
    }),
    patched: [],
    phase: 'Succeeded',
  },
  // ---- pause
  {
    name: 'spec.paused: no node starts, in-flight nodes finish',
    input: base({
      nodes: [switched('node-1'), node('node-2')],
      rollout: rollout({ paused: true }, progressing({ 'node-1': inFlight(0) }, 0)),
    }),
    patched: [],
    phase: 'Paused',
    states: { 'node-1': 'Succeeded', 'node-2': 'Pending' },
  },
  {
    name: 'pauseAfterCanary: the canary succeeded, so the rollout pauses itself instead of starting batch 1',
    input: base({
      nodes: [switched('node-1'), node('node-2')],
      rollout: rollout({ strategy: { canary: 1, pauseAfterCanary: true } }, progressing({ 'node-1': inFlight(0) }, 0)),
    }),
    patched: [],
    phase: 'Paused',
    pause: true,
  },
  {
    name: 'pauseAfterCanary, resumed: the pause already happened, batch 1 starts',
    input: base({
      nodes: [switched('node-1'), node('node-2')],
      rollout: rollout(
        { strategy: { canary: 1, pauseAfterCanary: true } },
        { ...progressing({ 'node-1': done(0) }, 0), phase: 'Paused' },
        { annotations: { [PAUSED_AFTER_CANARY_ANNOTATION]: 'true' } },
      ),
    }),
    patched: ['node-2'],
    phase: 'Progressing',
    currentBatch: 1,
  },
  // ---- membership
  {
    name: 'a node that starts matching mid-rollout joins',
    input: base({
      nodes: [switched('node-1'), node('node-2'), node('node-0')],
      rollout: rollout(
        { strategy: { canary: 1, maxUnavailable: 5 } },
        progressing({ 'node-1': done(0), 'node-2': { state: 'Pending' } }, 0),
      ),
    }),
    patched: ['node-0', 'node-2'],
    phase: 'Progressing',
  },
  {
    name: 'a node deleted in flight stays in the record as Deleted',
    input: base({
      nodes: [switched('node-1')],
      rollout: rollout({}, progressing({ 'node-1': done(0), 'node-2': inFlight(1) }, 1)),
    }),
    patched: [],
    phase: 'Succeeded',
    states: { 'node-2': 'Deleted' },
    events: ['NodeDeleted', 'RolloutSucceeded'],
  },
  {
    name: 'a changed node that stops matching stays tracked (it is still this rollout’s to revert)',
    input: base({
      nodes: [switched('node-1', { labels: {}, active: OLD })],
      rollout: rollout({}, progressing({ 'node-1': inFlight(0) }, 0)),
    }),
    patched: [],
    phase: 'Progressing',
    states: { 'node-1': 'InFlight' },
  },
  // ---- conflicts
  {
    name: 'a node held by another unfinished rollout: Halted (Conflict), nothing touched',
    input: base({
      nodes: [node('node-1', { owner: 'other', source: NEW }), node('node-2')],
      others: [rollout({}, { phase: 'Progressing' }, { name: 'other' })],
    }),
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
    name: 'an older rollout Halted before it touched them holds nothing (rollouts created in one second, by name)',
    input: base({
      others: [rollout({}, { phase: 'Halted' }, { name: 'a-older', creationTimestamp: iso(-600) })],
    }),
    patched: ['node-1'],
    phase: 'Progressing',
  },
  {
    name: 'a newer rollout selecting the same nodes does not hold them',
    input: base({ others: [rollout({}, undefined, { name: 'newer', creationTimestamp: iso(0) })] }),
    patched: ['node-1'],
    phase: 'Progressing',
  },
  {
    name: 'a node changed by a finished rollout is free',
    input: base({
      nodes: [node('node-1', { owner: 'other' })],
      others: [rollout({}, { phase: 'Succeeded' }, { name: 'other', creationTimestamp: iso(-600) })],
    }),
    patched: ['node-1'],
    phase: 'Progressing',
  },
  // ---- reset to local config
  {
    name: 'configSource {} resets the nodes to local config; nodes on local config already are done',
    input: base({
      rollout: rollout({ configSource: {} }),
      nodes: [node('node-1', { source: null }), node('node-2')],
      configMap: undefined,
    }),
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
    input: base({
      configMap: undefined,
      nodes: [switched('node-1'), node('node-2')],
      rollout: rollout({}, progressing({ 'node-1': inFlight(0) }, 0)),
    }),
    patched: [],
    phase: 'Progressing',
    states: { 'node-1': 'InFlight', 'node-2': 'Pending' },
  },
  // ---- recovery
  {
    name: 'the last leader recorded the canary, patched it and stopped before writing status: recorded as in flight, not patched again',
    input: base({
      nodes: [switched('node-1', { active: OLD }), node('node-2')],
      rollout: rollout(
        {},
        progressing({ ...pendingAll(['node-2']), 'node-1': { state: 'Pending', previous: found() } }),
      ),
    }),
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
      rollout: rollout(
        {},
        progressing(
          { 'node-1': done(0), 'node-2': { state: 'Pending', previous: found() }, 'node-3': { state: 'Pending' } },
          0,
        ),
      ),
    }),
    patched: [],
    phase: 'Progressing',
    states: { 'node-2': 'InFlight', 'node-3': 'Pending' },
    currentBatch: 1,
  },
  {
    name: 'a node that names this rollout (dkc.io/rollout) without a record of ours is not taken for one we changed',
    input: base({
      nodes: [switched('node-1', { active: OLD }), node('node-2')],
      rollout: rollout({}, progressing(pendingAll(['node-1', 'node-2']))),
    }),
    patched: ['node-1'],
    phase: 'Progressing',
    states: { 'node-1': 'InFlight', 'node-2': 'Pending' },
  },
];

describe('planRollout', () => {
  for (const row of rows) {
    it(row.name, () => {
      const plan = planRollout(row.input);
      assert.deepEqual(
        plan.assignments.map((p) => p.node),
        row.patched,
      );
      const next = row.restored ? planRollout(afterPatches(row.input, plan)) : plan;
      if (row.restored) assert.deepEqual(next.assignments, [], 'nothing patched again');
      assert.equal(next.status.phase, row.phase);
      for (const [n, state] of Object.entries(row.states ?? {}))
        assert.equal(next.status.nodes?.[n]?.state, state, `state of ${n}`);
      for (const [n, reason] of Object.entries(row.reasons ?? {}))
        assert.equal(next.status.nodes?.[n]?.reason, reason, `reason of ${n}`);
      if (row.currentBatch !== undefined) assert.equal(plan.status.currentBatch, row.currentBatch);
      const events = row.restored ? [...plan.events, ...next.events] : plan.events;
      if (row.events) assert.deepEqual(events.map((e) => e.reason).sort(), [...row.events].sort());
      assert.equal(plan.rolloutPatch !== undefined, row.pause === true);
      if (row.requeueAfterMs !== undefined) assert.equal(plan.requeueAfterMs, row.requeueAfterMs);
    });
  }
});

describe('planRollout patches and status', () => {
  it('a start patch carries the annotation and the new source together, with the node’s resourceVersion', () => {
    const plan = planRollout(base({ nodes: [node('node-1', { rv: '77' })] }));
    assert.deepEqual(plan.assignments[0], {
      node: 'node-1',
      resourceVersion: '77',
      holder: { rollout: 'r1', record: found() },
      source: NEW,
    });
    assert.deepEqual(assignmentPatch(plan.assignments[0], 'Node'), {
      metadata: {
        resourceVersion: '77',
        annotations: {
          [ROLLOUT_ANNOTATION]: 'r1',
          [REVERT_RECORD_ANNOTATION]: JSON.stringify(found()),
          [LEGACY_PREVIOUS_SOURCE_ANNOTATION]: null,
        },
      },
      spec: { configSource: NEW },
    });
  });

  it('a node without a source records {} as its previous source, and reverting restores no source', () => {
    const start = planRollout(base({ nodes: [node('node-1', { source: null })] }));
    assert.deepEqual(start.intent?.nodes?.['node-1'], { state: 'Pending', previous: { configSource: {} } });
    const revert = planRollout(
      base({
        nodes: [switched('node-1', { record: found(null) })],
        rollout: rollout({ revert: true }, progressing({ 'node-1': done(0, { previous: found(null) }) }, 0)),
      }),
    );
    assert.deepEqual(revert.assignments[0], { node: 'node-1', resourceVersion: '100', holder: null, source: null });
  });

  it('a node assigned nothing that runs a rollout copy (its NodeConfig made again) records that copy; any other ConfigMap it reports is read as local config', () => {
    const copy: NodeConfigSource = {
      configMap: { ...OLD_ACTIVE.configMap!, namespace: 'dkc-configs', name: 'r0-abc' },
    };
    const recreated = node('node-1', { source: null, active: copy });
    const isCopy = (ref: { namespace: string; name: string }): boolean => ref.name === 'r0-abc';
    const start = planRollout(base({ nodes: [recreated], rolloutCopy: isCopy }));
    assert.deepEqual(start.intent?.nodes?.['node-1'], {
      state: 'Pending',
      previous: {
        configSource: { configMap: { namespace: 'dkc-configs', name: 'r0-abc', kubeletConfigKey: 'kubelet' } },
      },
    });
    const notCopy = planRollout(base({ nodes: [recreated], rolloutCopy: () => false }));
    assert.deepEqual(notCopy.intent?.nodes?.['node-1'], { state: 'Pending', previous: { configSource: {} } });
    const failing = node('node-1', { source: null, active: copy, error: 'failed to validate config' });
    const erred = planRollout(base({ nodes: [failing], rolloutCopy: isCopy }));
    assert.deepEqual(erred.intent?.nodes?.['node-1'], { state: 'Pending', previous: { configSource: {} } });
  });

  it('what a node runs is recorded before it is patched; a record whose patch never landed is replaced by what the node runs now', () => {
    const stale = base({
      rollout: rollout(
        {},
        progressing({ ...pendingAll(['node-2', 'node-3']), 'node-1': { state: 'Pending', previous: found(NEW) } }),
      ),
    });
    const plan = planRollout(stale);
    assert.deepEqual(
      plan.assignments.map((p) => p.node),
      ['node-1'],
    );
    assert.deepEqual(
      plan.intent?.nodes?.['node-1'],
      { state: 'Pending', previous: found(OLD) },
      'written before the patch',
    );
    assert.equal(plan.intent?.nodes?.['node-1']?.updatedAt, undefined);
    assert.deepEqual(plan.status.nodes?.['node-1'], {
      state: 'InFlight',
      batch: 0,
      updatedAt: iso(10),
      previous: found(OLD),
    });
  });

  it('a revert restores the exact previous source of the record', () => {
    const prev = { configMap: { namespace: 'ns', name: 'x', kubeletConfigKey: 'k' } };
    const plan = planRollout(
      base({
        nodes: [switched('node-1', { record: found(prev) })],
        rollout: rollout(
          { revert: true },
          { phase: 'Halted', nodes: { 'node-1': done(0, { previous: found(prev) }) } },
        ),
      }),
    );
    assert.deepEqual(plan.assignments[0]!.source, prev);
  });

  it('an unreadable record is never guessed at: the node is left and reported', () => {
    const bad = { configSource: { configMap: { namespace: 'ns', name: 7 } } } as unknown as NonNullable<
      NodeProgress['previous']
    >;
    const plan = planRollout(
      base({
        nodes: [switched('node-1')],
        rollout: rollout({ revert: true }, { phase: 'Halted', nodes: { 'node-1': done(0, { previous: bad }) } }),
      }),
    );
    assert.deepEqual(plan.assignments, []);
    assert.equal(plan.status.nodes?.['node-1']?.state, 'NotRestored');
  });

  it('the conflict names the other rollout in the Failed condition', () => {
    const plan = planRollout(
      base({
        nodes: [node('node-1', { owner: 'other' })],
        others: [rollout({}, { phase: 'Paused' }, { name: 'other' })],
      }),
    );
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
    const plan = planRollout(
      base({
        rollout: rollout({
          nodeSelector: { matchExpressions: [{ key: 'pool', operator: 'Gt' as 'In', values: ['1'] }] },
        }),
      }),
    );
    assert.equal(plan.status.phase, 'Halted');
    assert.deepEqual(plan.assignments, []);
    const failed = plan.status.conditions?.find((c) => c.type === 'Failed');
    assert.deepEqual([failed?.status, failed?.reason], ['True', 'InvalidSelector']);
    assert.match(failed?.message ?? '', /"Gt" is not a valid label selector operator/);
  });

  it('counts and failures reflect the nodes', () => {
    const plan = planRollout(
      base({
        nodes: [
          switched('node-1'),
          switched('node-2', { active: OLD, assigned: NEW_ACTIVE, error: 'bad' }),
          node('node-3'),
        ],
        rollout: rollout(
          { maxFailures: 1, strategy: { canary: 1, maxUnavailable: 1 } },
          progressing({ 'node-1': done(0), 'node-2': inFlight(1) }, 1),
        ),
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
    assert.deepEqual(third.assignments, []);
  });

  it('conditions keep their transition time while their status holds', () => {
    const first = planRollout(base({}));
    const later = planRollout(
      base({
        now: at(500),
        rollout: rollout({}, first.status),
        nodes: [switched('node-1', { active: OLD }), node('node-2'), node('node-3')],
      }),
    );
    const t = (s: RolloutStatus): string | undefined =>
      s.conditions?.find((c) => c.type === 'Progressing')?.lastTransitionTime;
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

  it('a soak is over at its end when the node renewed within one renewal interval before it, else at the next renewal', () => {
    const input = base({
      now: at(41),
      nodes: [switched('node-1')],
      rollout: soak30({ 'node-1': inFlight(0, 0, { readySince: iso(10) }) }),
    });
    // A 40 s Lease is renewed every 10 s: a renewal 10.5 s before the end is not one of the soak's last interval.
    const unheard = planRollout({ ...input, leases: leasesFor(input.nodes, at(29.5)) });
    assert.equal(unheard.status.nodes?.['node-1']?.state, 'InFlight');
    assert.equal(unheard.status.nodes?.['node-1']?.readySince, iso(10));
    assert.equal(
      unheard.requeueAfterMs,
      8_501,
      'no timer for the soak’s end, which has passed: the renewal is an event; the next timer is the lapse',
    );
    const heard = planRollout({ ...input, leases: leasesFor(input.nodes, at(30)) });
    assert.equal(heard.status.nodes?.['node-1']?.state, 'Succeeded');
  });

  it('a soak ends at its end, not at the renewal after it: 30 s of soak take 30 s', () => {
    const soaking = base({
      now: at(35),
      nodes: [switched('node-1')],
      leases: leasesFor([switched('node-1')], at(35)),
      rollout: soak30({ 'node-1': inFlight(0, 0, { readySince: iso(10) }) }),
    });
    const before = planRollout(soaking);
    assert.equal(before.status.nodes?.['node-1']?.state, 'InFlight');
    assert.equal(before.requeueAfterMs, 5_000, 'looks again at the soak’s end');
    // At the end, 5 s after the last renewal (the next is 5 s away): over.
    const atEnd = planRollout({ ...soaking, now: at(40) });
    assert.equal(atEnd.status.nodes?.['node-1']?.state, 'Succeeded');
  });

  it('a heartbeat older than half the Lease’s duration stops the soak, Ready=True notwithstanding', () => {
    const input = base({
      now: at(41),
      nodes: [switched('node-1')],
      rollout: soak30({ 'node-1': inFlight(0, 0, { readySince: iso(10) }) }),
    });
    const stale = planRollout({ ...input, leases: leasesFor(input.nodes, at(20)) });
    assert.equal(stale.status.phase, 'Progressing');
    assert.deepEqual(stale.status.nodes?.['node-1'], inFlight(0), 'in flight, its soak dropped');
    const short = planRollout({ ...input, leases: leasesFor(input.nodes, at(36), 8) });
    assert.equal(short.status.nodes?.['node-1']?.readySince, undefined, 'a Lease of 8 s is stale after 4 s');
    const fresh = planRollout({ ...input, leases: leasesFor(input.nodes, at(21)) });
    assert.equal(fresh.status.nodes?.['node-1']?.readySince, iso(10), 'exactly 20 s is still fresh');
  });

  it('a node with no Lease never soaks', () => {
    const plan = planRollout(
      base({ now: at(41), nodes: [switched('node-1')], leases: new Map(), rollout: soak30({ 'node-1': inFlight(0) }) }),
    );
    assert.deepEqual(plan.status.nodes?.['node-1'], inFlight(0));
  });

  it('looks again when a soaking node’s heartbeat would lapse, if that comes before the soak’s end', () => {
    const input = base({
      now: at(20),
      nodes: [switched('node-1')],
      rollout: soak30({ 'node-1': inFlight(0, 0, { readySince: iso(10) }) }),
    });
    const plan = planRollout({ ...input, leases: leasesFor(input.nodes, at(15)) });
    assert.equal(plan.requeueAfterMs, 15_001);
  });

  it('a soak recorded before the controller started begins again at its first look', () => {
    const input = base({
      now: at(41),
      startedAt: at(35),
      nodes: [switched('node-1')],
      rollout: soak30({ 'node-1': inFlight(0, 0, { readySince: iso(10) }) }),
    });
    const plan = planRollout(input);
    assert.equal(plan.status.nodes?.['node-1']?.state, 'InFlight');
    assert.equal(plan.status.nodes?.['node-1']?.readySince, iso(41));
    assert.equal(plan.requeueAfterMs, 20_001);
    const later = planRollout({
      ...input,
      now: at(71),
      leases: leasesFor(input.nodes, at(71)),
      rollout: soak30({ 'node-1': plan.status.nodes['node-1'] }),
    });
    assert.equal(later.status.nodes?.['node-1']?.state, 'Succeeded');
  });

  it('without a soak, a healthy node still needs a fresh heartbeat to succeed', () => {
    const input = base({
      nodes: [switched('node-1')],
      rollout: rollout({}, progressing({ 'node-1': inFlight(0) }, 0)),
    });
    assert.equal(
      planRollout({ ...input, leases: leasesFor(input.nodes, at(-11)) }).status.nodes?.['node-1']?.state,
      'InFlight',
    );
    assert.equal(planRollout(input).status.nodes?.['node-1']?.state, 'Succeeded');
  });

  it('a changed node whose heartbeat is stale at the deadline fails NotReady, saying when it last renewed', () => {
    const input = base({
      now: at(120),
      nodes: [switched('node-1')],
      rollout: rollout({ maxFailures: 1 }, progressing({ 'node-1': inFlight(0) }, 0)),
    });
    const plan = planRollout({ ...input, leases: leasesFor(input.nodes, at(5)) });
    assert.deepEqual(plan.status.failures, [
      {
        node: 'node-1',
        reason: 'NotReady',
        message: `node stopped heartbeating after the change (its Lease was last renewed at ${at(5).toISOString()})`,
      },
    ]);
    const none = planRollout({ ...input, leases: new Map() });
    assert.equal(
      none.status.failures?.[0]?.message,
      'node stopped heartbeating after the change (its Lease was never renewed)',
    );
  });

  it('a node not Ready is held: not changed, marked waiting, the next node is the canary', () => {
    const wide = rollout({ strategy: { canary: 1, maxUnavailable: 3 } });
    const plan = planRollout(
      base({ nodes: [neverReady('node-1'), node('node-2'), node('node-3', { ready: 'False' })], rollout: wide }),
    );
    assert.deepEqual(
      plan.assignments.map((p) => p.node),
      ['node-2'],
    );
    assert.deepEqual(plan.status.nodes?.['node-1'], {
      state: 'Pending',
      waitingReason: 'NotReady',
      waitingSince: iso(10),
    });
    assert.deepEqual(plan.status.nodes?.['node-3'], {
      state: 'Pending',
      waitingReason: 'NotReady',
      waitingSince: iso(10),
    });
    assert.equal(plan.status.waitingNodes, 2);
    assert.equal(plan.status.failedNodes, 0);
    assert.deepEqual(
      plan.events.filter((e) => e.reason === 'NodeWaiting').map((e) => e.message),
      [
        'Node node-1 is not Ready: it waits, unchanged, until it is Ready with a fresh heartbeat',
        'Node node-3 is not Ready: it waits, unchanged, until it is Ready with a fresh heartbeat',
      ],
    );
    assert.equal(
      progressingCondition(plan.status)?.message,
      '0 of 3 nodes done; waiting, unchanged, for Ready and a fresh heartbeat: node-1, node-3',
    );
  });

  it('a node whose Ready=True nobody renews (a stale Lease, or none) is held as HeartbeatStale', () => {
    const nodes = [node('node-1'), node('node-2'), node('node-3')];
    const leases = leasesFor(nodes, at(10));
    leases.set('node-1', leasesFor(nodes, at(-11)).get('node-1')!);
    leases.delete('node-2');
    const plan = planRollout(base({ nodes, leases, rollout: rollout({ strategy: { canary: 1, maxUnavailable: 3 } }) }));
    assert.deepEqual(
      plan.assignments.map((p) => p.node),
      ['node-3'],
    );
    assert.equal(plan.status.nodes?.['node-1']?.waitingReason, 'HeartbeatStale');
    assert.equal(plan.status.nodes?.['node-2']?.waitingReason, 'HeartbeatStale');
    assert.match(
      plan.events.find((e) => e.reason === 'NodeWaiting')?.message ?? '',
      /^Node node-1 has a stale heartbeat/,
    );
  });

  it('a waiting node keeps its waitingSince and its event is not repeated; back up, it loses the mark and starts', () => {
    const r = rollout(
      { strategy: { canary: 1, maxUnavailable: 2 } },
      progressing(
        { 'node-1': done(0), 'node-2': { state: 'Pending', waitingReason: 'NotReady', waitingSince: iso(5) } },
        0,
      ),
    );
    const still = planRollout(base({ nodes: [switched('node-1'), node('node-2', { ready: 'Unknown' })], rollout: r }));
    assert.deepEqual(still.status.nodes?.['node-2'], {
      state: 'Pending',
      waitingReason: 'NotReady',
      waitingSince: iso(5),
    });
    assert.deepEqual(still.events, []);
    const back = planRollout(base({ nodes: [switched('node-1'), node('node-2')], rollout: r }));
    assert.deepEqual(
      back.assignments.map((p) => p.node),
      ['node-2'],
    );
    const started = back.status.nodes?.['node-2'];
    assert.deepEqual(
      [started?.state, started?.waitingReason, started?.waitingSince],
      ['InFlight', undefined, undefined],
    );
    assert.equal(back.status.waitingNodes, 0);
  });

  it('a node already on the target but not heartbeating is not counted as succeeded: it waits', () => {
    const plan = planRollout(base({ nodes: [node('node-1', { source: NEW, active: NEW_ACTIVE })], leases: new Map() }));
    assert.equal(plan.status.phase, 'Progressing');
    assert.equal(plan.status.nodes?.['node-1']?.waitingReason, 'HeartbeatStale');
    assert.deepEqual(plan.assignments, []);
  });

  it('maxUnavailable counts the nodes that are down: with 2 allowed and one down, one starts at a time', () => {
    const nodes = [switched('node-1'), neverReady('node-2'), node('node-3'), node('node-4')];
    const plan = planRollout(
      base({
        nodes,
        rollout: rollout({ strategy: { canary: 1, maxUnavailable: 2 } }, progressing({ 'node-1': done(0) }, 0)),
      }),
    );
    assert.deepEqual(
      plan.assignments.map((p) => p.node),
      ['node-3'],
    );
  });

  it('a node that succeeded and is down now counts too', () => {
    const nodes = [switched('node-1', { ready: 'Unknown' }), node('node-2'), node('node-3')];
    const plan = planRollout(
      base({
        nodes,
        rollout: rollout({ strategy: { canary: 1, maxUnavailable: 2 } }, progressing({ 'node-1': done(0) }, 0)),
      }),
    );
    assert.deepEqual(
      plan.assignments.map((p) => p.node),
      ['node-2'],
    );
    assert.equal(plan.status.nodes?.['node-1']?.state, 'Succeeded');
  });

  it('with maxUnavailable 1 and a node down nothing starts, the canary included', () => {
    const plan = planRollout(base({ nodes: [neverReady('node-1'), node('node-2')] }));
    assert.deepEqual(plan.assignments, []);
    assert.equal(plan.status.phase, 'Progressing');
    assert.equal(plan.status.currentBatch, undefined);
    const wider = planRollout(
      base({
        nodes: [neverReady('node-1'), node('node-2')],
        rollout: rollout({ strategy: { canary: 1, maxUnavailable: 2 } }),
      }),
    );
    assert.deepEqual(
      wider.assignments.map((p) => p.node),
      ['node-2'],
    );
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
    assert.deepEqual(stalled.assignments, []);
    const c = progressingCondition(stalled.status);
    assert.deepEqual([c?.status, c?.reason], ['False', 'NodesNotReady']);
    assert.equal(
      c?.message,
      'no node can start: node-2 not Ready with a fresh heartbeat for more than 60s; the rollout changes a waiting node once it is, and finishes once none is left in the selector',
    );
    assert.equal(stalled.status.conditions?.find((x) => x.type === 'Complete')?.status, 'False');
    const gone = planRollout(base({ now: at(70), nodes: [switched('node-1')], rollout: r }));
    assert.equal(gone.status.phase, 'Succeeded', 'once the waiting node is gone (or left the selector)');
  });

  it('a rollout that stops starting nodes (reverting) drops the waiting marks', () => {
    const waiting = { state: 'Pending' as const, waitingReason: 'NotReady' as const, waitingSince: iso(5) };
    const nodes = [switched('node-1', { active: OLD, assigned: NEW_ACTIVE, error: 'boom' }), neverReady('node-2')];
    const plan = planRollout(
      base({ nodes, rollout: rollout({}, progressing({ 'node-1': inFlight(0), 'node-2': waiting }, 0)) }),
    );
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
    assert.deepEqual(
      plan.assignments.map((p) => p.source),
      [{ configMap: { namespace: 'dkc-configs', name: 'r1-abc', kubeletConfigKey: 'kubelet' } }],
    );
    assert.equal(plan.status.renderedConfigMap, 'r1-abc');
    assert.equal(plan.status.phase, 'Progressing');
  });

  it('keeps to the recorded ConfigMap, whatever a later rendering says', () => {
    const first = planRollout(base({ rollout: layered(), rendered: { name: 'r1-abc' } }));
    const nodes = [
      node('node-1', {
        source: { configMap: { namespace: 'dkc-configs', name: 'r1-abc', kubeletConfigKey: 'kubelet' } },
      }),
      node('node-2'),
      node('node-3'),
    ];
    const next = planRollout(
      base({ rollout: layered(first.status), nodes, rendered: { name: 'r1-other' }, now: at(11) }),
    );
    assert.equal(next.status.renderedConfigMap, 'r1-abc');
    assert.ok(next.assignments.every((p) => p.source !== 'kept' && p.source?.configMap?.name === 'r1-abc'));
  });

  it('a layer that cannot be rendered halts the rollout with the reason, before any node changes', () => {
    const failure = {
      reason: 'LayerNotFound',
      message: 'layer ConfigMap default/pool not found: the layers cannot be rendered',
    };
    const plan = planRollout(base({ rollout: layered(), rendered: { failure } }));
    assert.deepEqual(plan.assignments, []);
    assert.equal(plan.status.phase, 'Halted');
    assert.equal(failedCondition(plan.status)?.reason, 'LayerNotFound');
    assert.equal(failedCondition(plan.status)?.message, failure.message);
    assert.equal(plan.status.renderedConfigMap, undefined);
  });

  it('configSource and layers together halt with InvalidSpec instead of choosing one', () => {
    const plan = planRollout(base({ rollout: rollout({ layers: LAYERS }), rendered: { name: 'r1-abc' } }));
    assert.deepEqual(plan.assignments, []);
    assert.equal(plan.status.phase, 'Halted');
    assert.equal(failedCondition(plan.status)?.reason, 'InvalidSpec');
  });

  it('an undo restores the nodes this rollout moved to the rendered ConfigMap', () => {
    const target = { configMap: { namespace: 'dkc-configs', name: 'r1-abc', kubeletConfigKey: 'kubelet' } };
    const moved = switched('node-1', { source: target });
    const r = layered({ phase: 'Succeeded', renderedConfigMap: 'r1-abc', nodes: { 'node-1': done(0) } });
    r.spec!.revert = true;
    const plan = planUndo(base({ rollout: r, nodes: [moved] }));
    assert.deepEqual(
      plan.assignments.map((p) => p.source),
      [OLD],
    );
    assert.equal(plan.status.phase, 'Reverted');
    assert.equal(plan.status.renderedConfigMap, 'r1-abc');
  });
});

describe('the record of what each rollout found', () => {
  const cm = (name: string) => ({ configMap: { namespace: 'kube-system', name, kubeletConfigKey: 'kubelet' } });
  const M60 = cm('m60');
  const M70 = cm('m70');
  const VICTIM = { configMap: { namespace: 'victim', name: 'app-secrets', kubeletConfigKey: 'kubelet' } };
  const names = ['node-1', 'node-2', 'node-3', 'node-4', 'node-5'];
  /** The guarded record each holder's change left on its nodes. */
  const records: Record<string, NonNullable<NodeProgress['previous']>> = {
    ra2: found(null),
    rc2: found(M60, 'ra2'),
  };
  const on =
    (src: typeof M60 | null, owner?: string) =>
    (n: string): Node =>
      node(n, {
        source: src,
        active: null,
        ...(owner !== undefined ? { owner, ...(records[owner] ? { record: records[owner] } : {}) } : {}),
      });
  /** ra2 moved all five from their local config to m60 and Succeeded. */
  const ra2 = (
    spec = {},
    nodes: Record<string, NodeProgress> = Object.fromEntries(names.map((n) => [n, done(0, { previous: found(null) })])),
  ) =>
    rollout(
      { configSource: M60, nodeSelector: {}, ...spec },
      { phase: 'Succeeded', startTime: iso(0), nodes },
      { name: 'ra2', creationTimestamp: iso(-600) },
    );
  /** rc2 moved node-4 and node-5 from ra2's m60 to m70 and Succeeded. */
  const rc2 = (spec = {}, state: NodeProgress['state'] = 'Succeeded') =>
    rollout(
      { configSource: M70, nodeSelector: { matchLabels: { pool: 'five' } }, ...spec },
      {
        phase: state === 'Reverted' ? 'Reverted' : 'Succeeded',
        startTime: iso(0),
        nodes: {
          'node-4': { ...done(0, { previous: found(M60, 'ra2') }), state },
          'node-5': { ...done(1, { previous: found(M60, 'ra2') }), state },
        },
      },
      { name: 'rc2', creationTimestamp: iso(-300) },
    );
  const labelled = (n: Node): Node =>
    ['node-4', 'node-5'].includes(n.metadata.name!)
      ? { ...n, metadata: { ...n.metadata, labels: { pool: 'five' } } }
      : n;

  it('a rollout taking nodes from a finished one records what they ran and who held them', () => {
    const nodes = names.map((n) => labelled(on(M60, 'ra2')(n)));
    const plan = planRollout(
      base({
        rollout: rollout({ configSource: M70, nodeSelector: { matchLabels: { pool: 'five' } } }, undefined, {
          name: 'rc2',
        }),
        nodes,
        others: [ra2()],
      }),
    );
    assert.deepEqual(plan.intent?.nodes?.['node-4'], {
      state: 'Pending',
      previous: { configSource: M60, rollout: 'ra2' },
    });
    assert.deepEqual(plan.status.nodes?.['node-4']?.previous, { configSource: M60, rollout: 'ra2' });
    assert.deepEqual(
      plan.assignments.map((p) => p.node),
      ['node-4'],
    );
  });

  it('undo rc2: node-4/5 go back to m60 and to ra2, whose own record still says what ra2 found', () => {
    const nodes = [
      ...['node-1', 'node-2', 'node-3'].map(on(M60, 'ra2')),
      ...['node-4', 'node-5'].map(on(M70, 'rc2')),
    ].map(labelled);
    const plan = planUndo(base({ rollout: rc2({ revert: true }), nodes, others: [ra2()] }));
    assert.deepEqual(
      plan.assignments.map((p) => [p.node, p.source, p.holder?.rollout ?? null]),
      [
        ['node-4', M60, 'ra2'],
        ['node-5', M60, 'ra2'],
      ],
    );
    // Given back with ra2's own record of them, which its undo then restores.
    assert.deepEqual(plan.assignments[0]!.holder, { rollout: 'ra2', record: found(null) });
    assert.deepEqual(plan.status.nodes?.['node-4']?.state, 'Reverted');
    assert.equal(
      plan.status.conditions?.find((c) => c.type === 'Progressing')?.message,
      'every node this rollout changed is back on its previous config source',
    );
  });

  it('then undo ra2: all five back on their local config', () => {
    const nodes = names.map(on(M60, 'ra2'));
    const plan = planUndo(base({ rollout: ra2({ revert: true }), nodes, others: [rc2({}, 'Reverted')] }));
    assert.deepEqual(
      plan.assignments.map((p) => [p.node, p.source, p.holder?.rollout ?? null]),
      names.map((n) => [n, null, null]),
    );
    assert.deepEqual(
      plan.events.map((e) => e.message),
      ['Rollout reverted: 5 nodes restored to their previous config source'],
    );
  });

  it('undo ra2 while rc2 holds node-4/5: they are Overridden (state and reason), not Reverted, and not counted as restored', () => {
    const nodes = [
      ...['node-1', 'node-2', 'node-3'].map(on(M60, 'ra2')),
      ...['node-4', 'node-5'].map(on(M70, 'rc2')),
    ].map(labelled);
    const plan = planUndo(base({ rollout: ra2({ revert: true }), nodes, others: [rc2()] }));
    assert.deepEqual(
      plan.assignments.map((p) => p.node),
      ['node-1', 'node-2', 'node-3'],
    );
    const s = plan.status;
    assert.deepEqual(
      names.map((n) => s.nodes?.[n]?.state),
      ['Reverted', 'Reverted', 'Reverted', 'Overridden', 'Overridden'],
    );
    assert.deepEqual(
      s.failures?.map((f) => [f.node, f.reason]),
      [
        ['node-4', 'Overridden'],
        ['node-5', 'Overridden'],
      ],
    );
    assert.match(s.failures?.[0]?.message ?? '', /^not restored: .*ConfigMap kube-system\/m70 .*rollout rc2/);
    assert.equal(
      s.conditions?.find((c) => c.type === 'Progressing')?.message,
      '3 of 5 nodes this rollout changed are back on their previous config source; 2 not (see status.nodes)',
    );
    const reverted = plan.events.find((e) => e.reason === 'RolloutReverted');
    assert.deepEqual(
      [reverted?.type, reverted?.message],
      [
        'Warning',
        'Rollout reverted: 3 nodes restored to their previous config source, 2 not restored (see status.nodes)',
      ],
    );
  });

  it('then undo rc2: node-4/5 back on what rc2 found (m60), given back to nobody (ra2 let go of them)', () => {
    const overridden = { ...done(0, { previous: found(null) }), state: 'Overridden' as const, reason: 'Overridden' };
    const ra2Undone = ra2(
      { revert: true },
      {
        ...Object.fromEntries(
          ['node-1', 'node-2', 'node-3'].map((n) => [
            n,
            { ...done(0, { previous: found(null) }), state: 'Reverted' as const },
          ]),
        ),
        'node-4': overridden,
        'node-5': overridden,
      },
    );
    ra2Undone.status!.phase = 'Reverted';
    const nodes = [...['node-1', 'node-2', 'node-3'].map(on(null)), ...['node-4', 'node-5'].map(on(M70, 'rc2'))].map(
      labelled,
    );
    const plan = planRollout(base({ rollout: rc2({ revert: true }), nodes, others: [ra2Undone] }));
    assert.deepEqual(
      plan.assignments.map((p) => [p.node, p.source, p.holder?.rollout ?? null]),
      [
        ['node-4', M60, null],
        ['node-5', M60, null],
      ],
    );
  });

  it('an undo interrupted after its node patches: nodes back on what it found and given back are recorded Reverted, not patched again', () => {
    const nodes = [
      ...['node-1', 'node-2', 'node-3'].map(on(M60, 'ra2')),
      // Put back by the last leader, and running it.
      node('node-4', {
        source: M60,
        active: { configMap: { ...M60.configMap, uid: 'u', resourceVersion: '1' } },
        owner: 'ra2',
        record: found(null),
      }),
      on(M70, 'rc2')('node-5'),
    ].map(labelled);
    const plan = planUndo(base({ rollout: rc2({ revert: true }), nodes, others: [ra2()] }));
    assert.deepEqual(
      plan.assignments.map((p) => p.node),
      ['node-5'],
    );
    assert.deepEqual(
      [plan.status.nodes?.['node-4']?.state, plan.status.nodes?.['node-5']?.state],
      ['Reverted', 'Reverted'],
    );
  });

  it('a node on what the rollout found but held by another rollout is Overridden, not taken for restored', () => {
    const nodes = [on(null, 'rd')('node-1')];
    const plan = planRollout(
      base({ rollout: ra2({ revert: true }, { 'node-1': done(0, { previous: found(null) }) }), nodes }),
    );
    assert.deepEqual(plan.assignments, []);
    assert.equal(plan.status.nodes?.['node-1']?.state, 'Overridden');
  });

  it('a previous holder is given a node back only if its own record claims it', () => {
    const claim = ra2();
    assert.equal(handBackTo('node-4', { configSource: M60, rollout: 'ra2' }, [claim]), 'ra2');
    assert.equal(handBackTo('node-4', { configSource: M70, rollout: 'ra2' }, [claim]), undefined, 'not its target');
    assert.equal(
      handBackTo('node-9', { configSource: M60, rollout: 'ra2' }, [claim]),
      undefined,
      'not a node it changed',
    );
    assert.equal(
      handBackTo('node-4', { configSource: M60, rollout: 'ra2' }, [ra2({ revert: true })]),
      undefined,
      'undone',
    );
    assert.equal(
      handBackTo('node-4', { configSource: M60, rollout: 'ra2' }, [
        { ...claim, metadata: { ...claim.metadata, deletionTimestamp: iso(0) } },
      ]),
      undefined,
      'deleted',
    );
    assert.equal(handBackTo('node-4', { configSource: M60, rollout: 'gone' }, [claim]), undefined, 'no such rollout');
  });

  it('the dkc.io/previous-config-source annotation (node-writable) is never read: a revert assigns only what the record says', () => {
    const forged = switched('node-1', {
      legacyPrevious: JSON.stringify(VICTIM),
      active: OLD,
      assigned: NEW_ACTIVE,
      error: 'failed to validate config, see Kubelet log for details',
    });
    const failing = planRollout(
      base({ nodes: [forged], rollout: rollout({}, progressing({ 'node-1': inFlight(0) }, 0)) }),
    );
    assert.equal(failing.status.phase, 'Reverting');
    const plan = planRollout(base({ nodes: [forged], rollout: rollout({}, failing.status) }));
    assert.deepEqual(
      plan.assignments.map((p) => [p.node, p.source]),
      [['node-1', OLD]],
    );
    assert.equal(
      assignmentPatch(plan.assignments[0]!, 'Node').metadata.annotations[LEGACY_PREVIOUS_SOURCE_ANNOTATION],
      null,
      'and the stale annotation goes',
    );
  });

  it('a forged dkc.io/rollout names no holder to give a node back to: the record of that holder decides', () => {
    // node-1 named ra2 on itself before rc2 took it; ra2 never changed node-1 (its record has no entry for it).
    const plan = planRollout(
      base({ rollout: rc2({ revert: true }), nodes: [labelled(on(M70, 'rc2')('node-4'))], others: [ra2({}, {})] }),
    );
    assert.deepEqual(
      plan.assignments.map((p) => p.holder?.rollout ?? null),
      [null],
    );
  });
});

describe('deleted nodes and deleted rollouts', () => {
  it('a node deleted while in flight is recorded Deleted with an event, not as a failure; the rollout says so when it ends', () => {
    const plan = planRollout(
      base({
        nodes: [switched('node-1')],
        rollout: rollout({}, progressing({ 'node-1': done(0), 'node-2': inFlight(1) }, 1)),
      }),
    );
    assert.equal(plan.status.phase, 'Succeeded');
    assert.deepEqual(plan.status.nodes?.['node-2'], {
      ...inFlight(1),
      state: 'Deleted',
      message: 'the Node was deleted during the rollout',
    });
    assert.deepEqual([plan.status.targetNodes, plan.status.succeededNodes, plan.status.failedNodes], [2, 1, 0]);
    assert.deepEqual(
      plan.events.map((e) => [e.reason, e.message]),
      [
        ['NodeDeleted', 'Node node-2 was deleted during the rollout'],
        ['RolloutSucceeded', 'Rollout succeeded: 1 of 2 nodes run the new config (1 deleted during the rollout)'],
      ],
    );
  });

  it('a node deleted before it was changed just drops out', () => {
    const plan = planRollout(
      base({
        nodes: [switched('node-1', { active: OLD })],
        rollout: rollout({}, progressing({ 'node-1': inFlight(0), 'node-2': { state: 'Pending' } }, 0)),
      }),
    );
    assert.deepEqual(Object.keys(plan.status.nodes ?? {}), ['node-1']);
  });

  it('an undo counts a deleted node as not restored', () => {
    const plan = planUndo(
      base({
        nodes: [switched('node-1')],
        rollout: rollout(
          { revert: true },
          { ...progressing({ 'node-1': done(0), 'node-2': done(1) }, 1), phase: 'Succeeded' },
        ),
      }),
    );
    assert.deepEqual(
      [plan.status.nodes?.['node-1']?.state, plan.status.nodes?.['node-2']?.state],
      ['Reverted', 'Deleted'],
    );
    assert.equal(
      plan.events.find((e) => e.reason === 'RolloutReverted')?.message,
      'Rollout reverted: 1 node restored to their previous config source, 1 not restored (see status.nodes)',
    );
  });

  it('a rollout without the finalizer gets it before it changes any node', () => {
    const plan = planRollout(base({ rollout: rollout({}, undefined, { finalizers: ['example.com/other'] }) }));
    assert.deepEqual(plan.assignments, []);
    assert.deepEqual(plan.rolloutPatch, { metadata: { finalizers: ['example.com/other', ROLLOUT_FINALIZER] } });
    assert.equal(plan.requeueAfterMs, 0);
  });

  const deleting = (spec = {}, status?: RolloutStatus) => rollout(spec, status, { deletionTimestamp: iso(5) });

  it('a rollout deleted mid-flight is undone first: its nodes back on what it found', () => {
    const plan = planUndo(
      base({
        nodes: [switched('node-1'), switched('node-2', { active: OLD }), node('node-3')],
        rollout: deleting(
          {},
          progressing({ 'node-1': done(0), 'node-2': inFlight(1), 'node-3': { state: 'Pending' } }, 1),
        ),
      }),
    );
    assert.deepEqual(
      plan.assignments.map((p) => [p.node, p.source]),
      [
        ['node-1', OLD],
        ['node-2', OLD],
      ],
    );
    assert.equal(plan.status.phase, 'Reverted');
    assert.equal(plan.finalize, undefined, 'the finalizer stays until a look finds nothing left');
  });

  it('a finished rollout deleted: its nodes keep their source and are let go of; then the finalizer goes', () => {
    const status = { ...progressing({ 'node-1': done(0), 'node-2': done(1) }, 1), phase: 'Succeeded' as const };
    const plan = planRollout(
      base({ nodes: [switched('node-1'), switched('node-2', { owner: 'later' })], rollout: deleting({}, status) }),
    );
    assert.deepEqual(plan.assignments, [{ node: 'node-1', resourceVersion: '100', holder: null, source: 'kept' }]);
    assert.deepEqual(assignmentPatch(plan.assignments[0]!, 'Node'), {
      metadata: {
        resourceVersion: '100',
        annotations: {
          [ROLLOUT_ANNOTATION]: null,
          [REVERT_RECORD_ANNOTATION]: null,
          [LEGACY_PREVIOUS_SOURCE_ANNOTATION]: null,
        },
      },
    });
    assert.deepEqual(
      plan.events.map((e) => e.reason),
      ['NodesReleased'],
    );
    assert.equal(plan.finalize, undefined);
    const after = planRollout(
      base({
        nodes: [node('node-1', { source: NEW }), switched('node-2', { owner: 'later' })],
        rollout: deleting({}, status),
      }),
    );
    assert.deepEqual(after.assignments, []);
    assert.deepEqual(after.finalize, { metadata: { finalizers: null } });
    assert.equal(after.status, status, 'no status write for an object about to go');
  });

  it('a deleted rollout that never had our finalizer is left to the server', () => {
    const plan = planRollout(base({ rollout: rollout({}, undefined, { deletionTimestamp: iso(5), finalizers: [] }) }));
    assert.deepEqual([plan.assignments, plan.finalize, plan.rolloutPatch], [[], undefined, undefined]);
  });
});
