// The status a look ends with (phase, counts, conditions, the nodes' records) and the events that tell what changed
// since the last one. Pure.

import type { NodeConfigSource } from '../../../api/types.js';
import { reasonOf, type Incompatibility } from '../../../nodepolicy/compat.js';
import { conditionMessages, conditionReasons, eventMessages, waitingMessages } from '../messages.js';
import {
  desiredSource,
  formatTimeFloor,
  isFinishedPhase,
  type NodeProgress,
  type Phase,
  type IncompatibleNode,
  type RolloutCondition,
  type RolloutFailure,
  type RolloutStatus,
} from '../../../api/dkc/rollout.js';
import { degradedCondition, degradedEvents, degradedFields } from '../degraded.js';
import type { Outcome, Plan, PlanInput, RolloutEvent } from './types.js';
import { withoutWaiting } from './records.js';

type ConditionSpec = Omit<RolloutCondition, 'lastTransitionTime'>;

function mergeConditions(
  old: readonly RolloutCondition[] | undefined,
  next: readonly ConditionSpec[],
  now: string,
): RolloutCondition[] {
  return next.map((c) => {
    const prev = old?.find((o) => o.type === c.type);
    return {
      ...c,
      lastTransitionTime:
        prev?.lastTransitionTime !== undefined && prev.status === c.status ? prev.lastTransitionTime : now,
    };
  });
}

interface Counts {
  done: number;
  total: number;
  succeeded: number;
  /** Nodes deleted while this rollout had changed them. */
  deleted: number;
  /** Nodes an undo put back on what this rollout found. */
  restored: number;
  /** Nodes this rollout changed that an undo could not restore (Overridden, Deleted, NotRestored). */
  notRestored: number;
}

function countsOf(entries: readonly [string, NodeProgress][]): Counts {
  const by = (f: (p: NodeProgress) => boolean): number => entries.filter(([, p]) => f(p)).length;
  return {
    done: by((p) => p.state !== 'Pending' && p.state !== 'InFlight'),
    total: entries.length,
    succeeded: by((p) => p.state === 'Succeeded'),
    deleted: by((p) => p.state === 'Deleted'),
    restored: by((p) => p.state === 'Reverted'),
    notRestored: by(
      (p) =>
        p.state === 'NotRestored' || ((p.state === 'Overridden' || p.state === 'Deleted') && p.updatedAt !== undefined),
    ),
  };
}

/** The Progressing condition each phase reports, before a wait or a block says more. */
function progressingOfPhase(o: Outcome, counts: Counts, incompatible: number): ConditionSpec {
  const c = (status: ConditionSpec['status'], reason: string, message: string): ConditionSpec => ({
    type: 'Progressing',
    status,
    reason,
    message,
  });
  const degraded = o.degraded?.length ?? 0;
  const progressing: Record<Phase, ConditionSpec> = {
    Pending: c('Unknown', conditionReasons.pending, conditionMessages.progressing(counts.done, counts.total)),
    Progressing: c('True', conditionReasons.progressing, conditionMessages.progressing(counts.done, counts.total)),
    Paused: c('Unknown', conditionReasons.paused, conditionMessages.paused),
    Succeeded: c(
      'False',
      conditionReasons.complete,
      conditionMessages.complete(counts.succeeded - degraded, counts.total, counts.deleted) +
        conditionMessages.degradedSince(degraded) +
        conditionMessages.leftOut(incompatible),
    ),
    Halted: c('False', conditionReasons.halted, o.failure?.message ?? conditionMessages.notComplete),
    Reverting: c('True', conditionReasons.reverting, o.failure?.message ?? conditionMessages.undo),
    Reverted: c('False', conditionReasons.reverted, conditionMessages.reverted(counts.restored, counts.notRestored)),
  };
  return progressing[o.phase];
}

/** The Progressing condition: the phase's, unless nodes are held back (stalled past the deadline) or it is blocked. */
function progressingCondition(o: Outcome, counts: Counts, incompatible: number): ConditionSpec {
  let p = progressingOfPhase(o, counts, incompatible);
  const w = o.waiting;
  if (o.phase === 'Progressing' && w !== undefined && w.nodes.length > 0) {
    p = w.stalled
      ? {
          type: 'Progressing',
          status: 'False',
          reason: conditionReasons.nodesNotReady,
          message: conditionMessages.nodesNotReady(w.nodes, w.deadlineSeconds),
        }
      : { ...p, message: conditionMessages.waiting(counts.done, counts.total, w.nodes) };
  }
  if (o.blocked) p = { type: 'Progressing', status: 'False', ...o.blocked };
  return p;
}

function conditionsFor(
  o: Outcome,
  counts: Counts,
  old: RolloutStatus | undefined,
  incompatible: number,
): ConditionSpec[] {
  const p = progressingCondition(o, counts, incompatible);
  const complete: ConditionSpec =
    o.phase === 'Succeeded'
      ? { type: 'Complete', status: 'True', reason: conditionReasons.complete, message: p.message }
      : { type: 'Complete', status: 'False', reason: p.reason, message: conditionMessages.notComplete };
  const prevFailed = old?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');
  const failed: ConditionSpec = o.failure
    ? { type: 'Failed', status: 'True', ...o.failure }
    : prevFailed
      ? { type: 'Failed', status: 'True', reason: prevFailed.reason, message: prevFailed.message }
      : { type: 'Failed', status: 'False', reason: p.reason, message: conditionMessages.notFailed };
  const degraded = degradedCondition(o.degraded ?? [], counts.total, old);
  return degraded ? [p, complete, failed, degraded] : [p, complete, failed];
}

export function buildStatus(
  input: PlanInput,
  nodes: Record<string, NodeProgress>,
  outcome: Outcome,
  currentBatch: number | undefined,
): RolloutStatus {
  const old = input.rollout.status;
  const now = formatTimeFloor(input.now.getTime());
  const starting = outcome.phase === 'Pending' || outcome.phase === 'Progressing' || outcome.phase === 'Paused';
  const entries = Object.entries(nodes)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, p]): [string, NodeProgress] => [name, starting ? p : withoutWaiting(p)]);
  const failures: RolloutFailure[] = entries
    // A failed node keeps its reason when it is reverted: the status still says why the rollout stopped.
    .filter(([, p]) => p.reason !== undefined)
    .map(([node, p]) => ({
      node,
      reason: (p.reason ?? 'Overridden') as RolloutFailure['reason'],
      message: p.message ?? '',
    }));
  const counts = countsOf(entries);
  const incompatible = outcome.incompatible ? outcome.incompatible.map(incompatibleRecord) : (old?.incompatible ?? []);
  const status: RolloutStatus = {
    phase: outcome.phase,
    observedGeneration: input.rollout.metadata.generation ?? 0,
    targetNodes: entries.length,
    updatedNodes: entries.filter(([, p]) => p.updatedAt !== undefined).length,
    succeededNodes: counts.succeeded,
    failedNodes: failures.length,
    waitingNodes: entries.filter(([, p]) => p.waitingReason !== undefined).length,
    failures,
    ...degradedFields(outcome.degraded ?? [], old),
    conditions: mergeConditions(old?.conditions, conditionsFor(outcome, counts, old, incompatible.length), now),
    startTime: old?.startTime ?? now,
    nodes: Object.fromEntries(entries),
  };
  // Absent rather than null until the rollout finishes (metav1.Time's omitempty), so a write reads back unchanged.
  if (isFinishedPhase(outcome.phase))
    status.completionTime = old?.phase === outcome.phase ? (old.completionTime ?? now) : now;
  if (currentBatch !== undefined) status.currentBatch = currentBatch;
  // Absent while there are none, so a rollout over one kubelet version keeps the status it always had.
  if (incompatible.length > 0) {
    status.incompatibleNodes = incompatible.length;
    status.incompatible = incompatible;
  }
  return status;
}

function incompatibleRecord(i: Incompatibility): IncompatibleNode {
  return { node: i.node, kubeletVersion: i.version, reason: reasonOf(i) };
}

/** What changed since the last status, as events: the rollout's start and batches, its nodes, its phase. */
function eventsFor(input: PlanInput, status: RolloutStatus, desired: NodeConfigSource | null): RolloutEvent[] {
  const old = input.rollout.status;
  return [
    ...startEvents(old, status, desired),
    ...nodeEvents(old, status),
    ...incompatibleEvents(old, status),
    ...phaseEvents(old, status),
    ...degradedEvents(old, status),
  ];
}

/** The rollout started (its first status), and a batch started. */
function startEvents(
  old: RolloutStatus | undefined,
  status: RolloutStatus,
  desired: NodeConfigSource | null,
): RolloutEvent[] {
  const events: RolloutEvent[] = [];
  if (!old?.startTime)
    events.push({
      type: 'Normal',
      reason: 'RolloutStarted',
      message: eventMessages.started(desired, status.targetNodes ?? 0),
    });
  const nodes = status.nodes ?? {};
  if (status.currentBatch !== undefined && status.currentBatch !== old?.currentBatch) {
    const batch = status.currentBatch;
    const members = Object.keys(nodes).filter((n) => nodes[n]!.batch === batch);
    if (members.length > 0)
      events.push({ type: 'Normal', reason: 'BatchStarted', message: eventMessages.batchStarted(batch, members) });
  }
  return events;
}

/** Each node that reached a state worth telling, then each node newly held back. */
function nodeEvents(old: RolloutStatus | undefined, status: RolloutStatus): RolloutEvent[] {
  const nodes = Object.entries(status.nodes ?? {});
  const reached = nodes.flatMap(([name, p]) => {
    const e = p.state === old?.nodes?.[name]?.state ? undefined : stateEvent(name, p);
    return e ? [e] : [];
  });
  const waiting = nodes.flatMap(([name, p]): RolloutEvent[] =>
    p.waitingReason !== undefined && old?.nodes?.[name]?.waitingReason === undefined
      ? [
          {
            type: 'Normal',
            reason: 'NodeWaiting',
            message: eventMessages.nodeWaiting(name, waitingMessages[p.waitingReason]),
          },
        ]
      : [],
  );
  return [...reached, ...waiting];
}

/** The event of a node that has just reached state `p.state`, if that state has one. */
function stateEvent(name: string, p: NodeProgress): RolloutEvent | undefined {
  switch (p.state) {
    case 'Succeeded':
      return {
        type: 'Normal',
        reason: 'NodeSucceeded',
        message: eventMessages.nodeSucceeded(name, p.updatedAt !== undefined),
      };
    case 'Failed':
    case 'Overridden':
      return {
        type: 'Warning',
        reason: 'NodeFailed',
        message: eventMessages.nodeFailed(name, p.reason ?? '', p.message ?? ''),
      };
    case 'Deleted':
      return { type: 'Warning', reason: 'NodeDeleted', message: eventMessages.nodeDeleted(name) };
    case 'NotRestored':
      return {
        type: 'Warning',
        reason: 'NodeNotRestored',
        message: eventMessages.nodeNotRestored(name, p.message ?? ''),
      };
    default:
      return undefined;
  }
}

/** Each selected node newly left out for its kubelet version. */
function incompatibleEvents(old: RolloutStatus | undefined, status: RolloutStatus): RolloutEvent[] {
  const seen = new Set((old?.incompatible ?? []).map((i) => i.node));
  return (status.incompatible ?? [])
    .filter((i) => !seen.has(i.node))
    .map((i) => ({
      type: 'Warning',
      reason: 'NodeIncompatible',
      message: eventMessages.nodeIncompatible(i.node, i.kubeletVersion, i.reason),
    }));
}

/** The rollout reached a phase that ends it: Halted, Succeeded or Reverted. */
function phaseEvents(old: RolloutStatus | undefined, status: RolloutStatus): RolloutEvent[] {
  if (status.phase === old?.phase) return [];
  const counts = countsOf(Object.entries(status.nodes ?? {}));
  switch (status.phase) {
    case 'Halted': {
      const why = status.conditions?.find((c) => c.type === 'Failed' && c.status === 'True')?.message ?? '';
      return [{ type: 'Warning', reason: 'RolloutHalted', message: eventMessages.halted(why) }];
    }
    case 'Succeeded':
      return [
        {
          type: 'Normal',
          reason: 'RolloutSucceeded',
          message: eventMessages.succeeded(counts.succeeded, counts.total, counts.deleted),
        },
      ];
    case 'Reverted':
      return [
        {
          type: counts.notRestored > 0 ? 'Warning' : 'Normal',
          reason: 'RolloutReverted',
          message: eventMessages.reverted(counts.restored, counts.notRestored),
        },
      ];
    default:
      return [];
  }
}

export function finishPlan(
  input: PlanInput,
  nodes: Record<string, NodeProgress>,
  outcome: Outcome,
  currentBatch: number | undefined,
  rest: Partial<Plan> = {},
): Plan {
  const status = buildStatus(input, nodes, outcome, currentBatch);
  return { assignments: [], ...rest, status, events: eventsFor(input, status, desiredSource(input.rollout.spec)) };
}
