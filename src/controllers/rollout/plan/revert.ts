// An undo (spec.revert, too many failures, a deletion of a rollout still moving) puts each node this rollout
// changed back on what its record says the node ran before; a deleted rollout that has finished lets go of its nodes.
// Pure.

import type { Node, NodeConfigSource } from '../../../api/types.js';
import { eventMessages, failureMessages, trustMessages } from '../messages.js';
import { recordAgrees } from '../trust.js';
import { restoreDueMs, restoreStep, restoring } from '../restore.js';
import { changedByUs, isMine, ownerOf, specOnTarget, specSource } from '../nodeview.js';
import {
  ROLLOUT_FINALIZER,
  desiredSource,
  hasFinalizer,
  needsWork,
  sourceOfRecord,
  type NodeProgress,
} from '../../../api/dkc/rollout.js';
import type { NodeAssignment, Plan, PlanInput, RolloutEvent } from './types.js';
import { byName, deletedRecord, handBackTo, letGo, nameOf, notRestored, recordOf } from './records.js';
import { finishPlan } from './status.js';

interface RevertStep {
  record?: NodeProgress;
  assignment?: NodeAssignment;
}

/**
 * One node of an undo. Restored only to the source this rollout's own record says it found, and only while the
 * node is still this rollout's (annotated and on its target); a node found back on that source (by the last
 * leader, which stopped before recording it) is recorded Reverted; one someone else has changed since is
 * Overridden; one that carries this rollout's annotation on its target without a record of what it ran before
 * is NotRestored. Nothing is ever guessed.
 */
function revertNode(
  input: PlanInput,
  name: string,
  node: Node | undefined,
  prev: NodeProgress | undefined,
  desired: NodeConfigSource | null,
): RevertStep {
  const me = input.rollout.metadata.name ?? '';
  if (!node) {
    if (prev === undefined || prev.state === 'Pending') return {};
    return { record: changedByUs(prev) ? deletedRecord(prev) : prev };
  }
  const mine = isMine(node, me);
  const onTarget = specOnTarget(node, desired);
  const changed = changedByUs(prev) || (prev?.state === 'Pending' && prev.previous !== undefined && mine && onTarget);
  if (!changed) {
    const unrecorded = prev === undefined || (prev.state === 'Pending' && prev.previous === undefined);
    if (mine && onTarget && unrecorded) return { record: notRestored(prev, 'NotRestored', failureMessages.noRecord) };
    return prev ? { record: prev } : {};
  }
  const record = prev!;
  const previous = record.previous;
  const source = sourceOfRecord(previous?.configSource);
  if (mine && onTarget) {
    if (previous === undefined || source === undefined)
      return { record: notRestored(record, 'NotRestored', failureMessages.noRecord) };
    // Restored only as the node's own guarded record says too: a record anyone else wrote assigns nothing.
    if (!recordAgrees(node, previous))
      return { record: notRestored(record, 'NotRestored', trustMessages.recordDisagrees) };
    const holder = handBackTo(name, previous, input.others);
    const theirs = holder === undefined ? undefined : recordOf(input.others, holder, name);
    return {
      record: restoring(record, input.now.getTime()),
      assignment: letGo(node, holder !== undefined && theirs ? { rollout: holder, record: theirs } : null, source),
    };
  }
  const holder = ownerOf(node);
  // Back where this rollout found it and let go of, as only its own restoring write leaves a node: the last leader
  // restored it and stopped before recording so.
  if (
    !mine &&
    source !== undefined &&
    specOnTarget(node, source) &&
    (holder === undefined || holder === previous?.rollout)
  ) {
    return { record: restoreStep(node, record, source, input.now.getTime(), deadlineOf(input)) };
  }
  return {
    record: notRestored(
      record,
      'Overridden',
      failureMessages.overriddenSince(specSource(node), holder === me ? undefined : holder),
    ),
  };
}

/**
 * Reverting: every node this rollout changed gets back what it ran before, as this rollout's record says, and goes
 * back to the rollout that held it before when that one still claims it. The nodes' state and the record together
 * say which nodes are left, so a revert interrupted at any point finishes on the next look.
 */
export function planRevert(input: PlanInput): Plan {
  const me = input.rollout.metadata.name ?? '';
  const desired = desiredSource(input.rollout.spec);
  const old = input.rollout.status?.nodes ?? {};
  const present = new Map(input.nodes.map((n) => [nameOf(n), n]));
  const names = new Set([...Object.keys(old), ...input.nodes.filter((n) => isMine(n, me)).map(nameOf)]);
  const nodes: Record<string, NodeProgress> = {};
  const assignments: NodeAssignment[] = [];
  for (const name of [...names].sort()) {
    const step = revertNode(input, name, present.get(name), old[name], desired);
    if (step.record) nodes[name] = step.record;
    if (step.assignment) assignments.push(step.assignment);
  }
  for (const [name, p] of Object.entries(nodes)) {
    if (p.readySince === undefined) continue;
    const copy = { ...p };
    delete copy.readySince;
    nodes[name] = copy;
  }
  // Every node still to restore is assigned in this step, and counts as restored once it reports the restored config
  // active (./restore.ts): until then the rollout is Reverting, looked at again by the progress deadline.
  const now = input.now.getTime();
  const waiting = Object.values(nodes).some((p) => p.state === 'InFlight');
  const due = restoreDueMs(nodes, now, deadlineOf(input));
  return finishPlan(input, nodes, { phase: waiting ? 'Reverting' : 'Reverted' }, input.rollout.status?.currentBatch, {
    assignments,
    ...(due !== undefined ? { requeueAfterMs: due } : {}),
  });
}

/** The rollout's progress deadline in ms (progressDeadlineSeconds, 120 by default). */
export function deadlineOf(input: PlanInput): number {
  return (input.rollout.spec?.progressDeadlineSeconds ?? 120) * 1000;
}

/**
 * A deleted rollout, before it goes: one still moving (or being undone) is undone first, as `dkc rollout undo`
 * would; one that has finished leaves every node on the source it has and lets go of the nodes it still holds.
 * The finalizer goes last, in a look that finds nothing left to do.
 */
export function planDeletion(input: PlanInput): Plan {
  const r = input.rollout;
  const old = r.status;
  if (!hasFinalizer(r)) return { assignments: [], status: old ?? {}, events: [] };
  if (needsWork(r)) return planRevert(input);
  const me = r.metadata.name ?? '';
  const held = [...input.nodes].filter((n) => isMine(n, me)).sort(byName);
  if (held.length > 0) {
    const events: RolloutEvent[] = [
      { type: 'Normal', reason: 'NodesReleased', message: eventMessages.released(held.map(nameOf)) },
    ];
    return { assignments: held.map((n) => letGo(n, null)), status: old ?? {}, events, requeueAfterMs: 0 };
  }
  const rest = (r.metadata.finalizers ?? []).filter((f) => f !== ROLLOUT_FINALIZER);
  return {
    assignments: [],
    status: old ?? {},
    events: [],
    finalize: { metadata: { finalizers: rest.length > 0 ? rest : null } },
  };
}
