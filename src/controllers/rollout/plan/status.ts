// The status a look ends with (phase, counts, conditions, the nodes' records) and the events that tell what changed
// since the last one. Pure.

import type { NodeConfigSource } from '../../../api/types.js';
import { reasonOf, type Incompatibility } from '../../../nodepolicy/compat.js';
import { conditionMessages, conditionReasons, eventMessages, waitingMessages } from '../messages.js';
import {
  desiredSource,
  formatTime,
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

function conditionsFor(
  o: Outcome,
  counts: Counts,
  old: RolloutStatus | undefined,
  incompatible: number,
): ConditionSpec[] {
  const progressing: Record<Phase, ConditionSpec> = {
    Pending: {
      type: 'Progressing',
      status: 'Unknown',
      reason: conditionReasons.pending,
      message: conditionMessages.progressing(counts.done, counts.total),
    },
    Progressing: {
      type: 'Progressing',
      status: 'True',
      reason: conditionReasons.progressing,
      message: conditionMessages.progressing(counts.done, counts.total),
    },
    Paused: {
      type: 'Progressing',
      status: 'Unknown',
      reason: conditionReasons.paused,
      message: conditionMessages.paused,
    },
    Succeeded: {
      type: 'Progressing',
      status: 'False',
      reason: conditionReasons.complete,
      message:
        conditionMessages.complete(counts.succeeded - (o.degraded?.length ?? 0), counts.total, counts.deleted) +
        conditionMessages.degradedSince(o.degraded?.length ?? 0) +
        conditionMessages.leftOut(incompatible),
    },
    Halted: {
      type: 'Progressing',
      status: 'False',
      reason: conditionReasons.halted,
      message: o.failure?.message ?? conditionMessages.notComplete,
    },
    Reverting: {
      type: 'Progressing',
      status: 'True',
      reason: conditionReasons.reverting,
      message: o.failure?.message ?? conditionMessages.undo,
    },
    Reverted: {
      type: 'Progressing',
      status: 'False',
      reason: conditionReasons.reverted,
      message: conditionMessages.reverted(counts.restored, counts.notRestored),
    },
  };
  let p = progressing[o.phase];
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
  const now = formatTime(input.now.getTime());
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

function eventsFor(input: PlanInput, status: RolloutStatus, desired: NodeConfigSource | null): RolloutEvent[] {
  const old = input.rollout.status;
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
  for (const [name, p] of Object.entries(nodes)) {
    const before = old?.nodes?.[name]?.state;
    if (p.state === before) continue;
    if (p.state === 'Succeeded')
      events.push({
        type: 'Normal',
        reason: 'NodeSucceeded',
        message: eventMessages.nodeSucceeded(name, p.updatedAt !== undefined),
      });
    if (p.state === 'Failed' || p.state === 'Overridden') {
      events.push({
        type: 'Warning',
        reason: 'NodeFailed',
        message: eventMessages.nodeFailed(name, p.reason ?? '', p.message ?? ''),
      });
    }
    if (p.state === 'Deleted')
      events.push({ type: 'Warning', reason: 'NodeDeleted', message: eventMessages.nodeDeleted(name) });
    if (p.state === 'NotRestored')
      events.push({
        type: 'Warning',
        reason: 'NodeNotRestored',
        message: eventMessages.nodeNotRestored(name, p.message ?? ''),
      });
  }
  for (const [name, p] of Object.entries(nodes)) {
    if (p.waitingReason !== undefined && old?.nodes?.[name]?.waitingReason === undefined) {
      events.push({
        type: 'Normal',
        reason: 'NodeWaiting',
        message: eventMessages.nodeWaiting(name, waitingMessages[p.waitingReason]),
      });
    }
  }
  const seen = new Set((old?.incompatible ?? []).map((i) => i.node));
  for (const i of status.incompatible ?? []) {
    if (!seen.has(i.node))
      events.push({
        type: 'Warning',
        reason: 'NodeIncompatible',
        message: eventMessages.nodeIncompatible(i.node, i.kubeletVersion, i.reason),
      });
  }
  if (status.phase !== old?.phase) {
    const why = status.conditions?.find((c) => c.type === 'Failed' && c.status === 'True')?.message ?? '';
    if (status.phase === 'Halted')
      events.push({ type: 'Warning', reason: 'RolloutHalted', message: eventMessages.halted(why) });
    const counts = countsOf(Object.entries(nodes));
    if (status.phase === 'Succeeded') {
      events.push({
        type: 'Normal',
        reason: 'RolloutSucceeded',
        message: eventMessages.succeeded(counts.succeeded, counts.total, counts.deleted),
      });
    }
    if (status.phase === 'Reverted') {
      events.push({
        type: counts.notRestored > 0 ? 'Warning' : 'Normal',
        reason: 'RolloutReverted',
        message: eventMessages.reverted(counts.restored, counts.notRestored),
      });
    }
  }
  events.push(...degradedEvents(old, status));
  return events;
}

export function finishPlan(
  input: PlanInput,
  nodes: Record<string, NodeProgress>,
  outcome: Outcome,
  currentBatch: number | undefined,
  rest: Partial<Plan> = {},
): Plan {
  const status = buildStatus(input, nodes, outcome, currentBatch);
  return { nodePatches: [], ...rest, status, events: eventsFor(input, status, desiredSource(input.rollout.spec)) };
}
