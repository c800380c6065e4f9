// The rollout's decision, as one pure function (in the manner of the agent's boot decision): from the rollout
// object, the nodes, the target ConfigMap's uid and resourceVersion, the other rollouts and the time, decide the
// next node assignments, the status and the events. The controller does the I/O and feeds the results back in, so a new
// leader that reads the same API state decides the same thing: nothing is redone, skipped or lost. What a node ran
// before a rollout changed it is kept in that rollout's status (written before the change), never read from the
// Node, so an undo assigns only what the node really ran; each rollout keeps its own record, so a later rollout over
// the same nodes overwrites nothing, and undoing it hands the nodes back to the one before.
//
// The folder: ./types.ts (what goes in and comes out), ./records.ts (which nodes are whose, and what they ran before),
// ./batches.ts (which nodes start when), ./revert.ts (an undo, a deletion), ./status.ts (the status and events a
// look ends with); this file, which of them a look takes.

import type { Node } from '../../../api/types.js';
import { describeIncompatible } from '../../../nodepolicy/compat.js';
import { isLayered } from '../layers.js';
import { copySource, mayPin } from '../pin.js';
import { conditionMessages, conditionReasons, trustMessages, trustReasons } from '../messages.js';
import { decidedRevert } from '../trust.js';
import { nextDeadlineMs } from '../nodeview.js';
import {
  PAUSED_AFTER_CANARY_ANNOTATION,
  ROLLOUT_FINALIZER,
  formatTimeCeil,
  hasFinalizer,
  isDeleting,
  isFinished,
  needsWork,
  type DegradedNode,
  type RolloutStatus,
} from '../../../api/dkc/rollout.js';
import { errorMessage } from '../../../util/errors.js';
import { findDegraded } from '../degraded.js';
import type { Outcome, Plan, PlanInput, RolloutEvent, RolloutPatch } from './types.js';
import { nameOf, previousOf, selectorRequirements, startAssignment } from './records.js';
import { buildStatus, finishPlan } from './status.js';
import { planDeletion, planRevert } from './revert.js';
import {
  canarySettled,
  evaluate,
  nextBatch,
  nodeTarget,
  obstacle,
  stallDueMs,
  waitingOutcome,
  type Evaluated,
} from './batches.js';

export type {
  AssignmentHolder,
  EventReason,
  NodeAssignment,
  Plan,
  PlanInput,
  RolloutEvent,
  RolloutPatch,
} from './types.js';
export { handBackTo, holderOf, selectorRequirements, selects } from './records.js';

/** The ConfigMap a layered rollout rolls out: the one recorded in its status, else the one rendered for this look. */
export function renderedName(input: Pick<PlanInput, 'rollout' | 'rendered'>): string | undefined {
  const rendered = input.rendered;
  return input.rollout.status?.renderedConfigMap ?? (rendered && 'name' in rendered ? rendered.name : undefined);
}

/** Why a layered rollout not yet rendered cannot start, if it cannot. */
function layeredSpecFailure(input: PlanInput, name: string | undefined): Outcome['failure'] {
  const spec = input.rollout.spec;
  if (spec?.configSource !== undefined && spec.configSource !== null)
    return { reason: conditionReasons.invalidSpec, message: conditionMessages.bothSources };
  if (name !== undefined) return undefined;
  if (input.rendered && 'failure' in input.rendered) return input.rendered.failure;
  return { reason: conditionReasons.renderFailed, message: conditionMessages.notRendered };
}

/**
 * A layered rollout is planned as the rollout of its rendered ConfigMap, and records that ConfigMap's name. It
 * halts before touching any node when it has both sources, or when its layers cannot be rendered: read as "no
 * configSource", it would reset every node to its local config.
 */
function planLayered(input: PlanInput): Plan {
  const r = input.rollout;
  const old = r.status;
  const name = renderedName(input);
  const unfinished = r.spec?.revert !== true && old?.phase !== 'Reverting' && !isFinished(r);
  const failure =
    unfinished && old?.renderedConfigMap === undefined
      ? layeredSpecFailure(input, name)
      : unfinished && input.renderedDistrust !== undefined
        ? { reason: trustReasons.renderedNotOurs, message: input.renderedDistrust }
        : undefined;
  if (failure) return finishPlan(input, old?.nodes ?? {}, { phase: 'Halted', failure }, old?.currentBatch);
  return withRendered(planSource(asSourceRollout(input, name)), name, old);
}

/**
 * A layered rollout as the rollout of its rendered ConfigMap `name` (none yet: of nothing, since it changed no node);
 * a pinned one as the rollout of its copy.
 */
function asSourceRollout(input: PlanInput, name: string | undefined): PlanInput {
  const r = input.rollout;
  const spec = { ...r.spec, configSource: name === undefined ? null : copySource(r, name) };
  delete spec.layers;
  return { ...input, rollout: { ...r, spec } };
}

/** The plan's statuses with the rendered ConfigMap recorded (a layered rollout keeps to it from then on). */
function withRendered(plan: Plan, name: string | undefined, old: RolloutStatus | undefined): Plan {
  if (name === undefined || plan.status === old) return plan;
  const out: Plan = { ...plan, status: { ...plan.status, renderedConfigMap: name } };
  if (plan.intent) out.intent = { ...plan.intent, renderedConfigMap: name };
  return out;
}

export function planRollout(input: PlanInput): Plan {
  const r = input.rollout;
  if (isDeleting(r)) {
    const name = r.status?.renderedConfigMap;
    if (!isLayered(r) && name === undefined) return planDeletion(input);
    return withRendered(planDeletion(asSourceRollout(input, name)), name, r.status);
  }
  // The finalizer first, in a look of its own: no node is changed by a rollout that could vanish without letting go of it.
  if (needsWork(r) && !hasFinalizer(r)) {
    const rolloutPatch: RolloutPatch = {
      metadata: { finalizers: [...(r.metadata.finalizers ?? []), ROLLOUT_FINALIZER] },
    };
    return { assignments: [], rolloutPatch, status: r.status ?? {}, events: [], requeueAfterMs: 0 };
  }
  return isLayered(r) ? planLayered(input) : planPinned(input);
}

/**
 * A rollout of spec.configSource: of the pinned copy once it has one (./pin.ts), recorded in status.renderedConfigMap
 * as a layered rollout records its rendering; of the source itself when the source is immutable, or the rollout
 * changed nodes before it could pin. A copy that cannot be made (a ConfigMap of its name holds other content) halts
 * the rollout before any node changes.
 */
function planPinned(input: PlanInput): Plan {
  const r = input.rollout;
  const rendered = input.rendered;
  if (rendered && 'failure' in rendered && mayPin(r))
    return finishPlan(
      input,
      r.status?.nodes ?? {},
      { phase: 'Halted', failure: rendered.failure },
      r.status?.currentBatch,
    );
  const name = renderedName(input);
  if (name === undefined) return planSource(input);
  const unfinished = r.spec?.revert !== true && r.status?.phase !== 'Reverting' && !isFinished(r);
  if (unfinished && input.renderedDistrust !== undefined) {
    const failure = { reason: trustReasons.renderedNotOurs, message: input.renderedDistrust };
    return finishPlan(input, r.status?.nodes ?? {}, { phase: 'Halted', failure }, r.status?.currentBatch);
  }
  return withRendered(planSource(asSourceRollout(input, name)), name, r.status);
}

/** One gate of planSource: the plan when it decides the look, else undefined (the next gate is tried). */
type Gate<T> = (at: T) => Plan | undefined;

/** The rollout of spec.configSource (or of a layered rollout's rendered ConfigMap): the gates, in order. */
function planSource(input: PlanInput): Plan {
  const early = firstPlan(BEFORE_THE_NODES, input);
  if (early) return early;
  const look = lookAt(input);
  return firstPlan(ON_THE_NODES, look) ?? startNextBatch(look);
}

/** What the rollout's own state decides alone, before its nodes are looked at. */
const BEFORE_THE_NODES: readonly Gate<PlanInput>[] = [
  undoRequested,
  revertUnderWay,
  succeededAlready,
  finishedAlready,
  invalidSelector,
];

/** What the look at the nodes may decide before any starts; when none of these does, the next batch starts. */
const ON_THE_NODES: readonly Gate<Look>[] = [tooManyFailures, leavesNodesOut, allDone, obstructed, pausedAfterCanary];

function firstPlan<T>(gates: readonly Gate<T>[], at: T): Plan | undefined {
  for (const gate of gates) {
    const plan = gate(at);
    if (plan !== undefined) return plan;
  }
  return undefined;
}

/** The status as it is, nothing to do. */
function unchanged(input: PlanInput): Plan {
  return { assignments: [], status: input.rollout.status ?? {}, events: [] };
}

/** spec.revert: the rollout is undone, and once Reverted does nothing more. */
function undoRequested(input: PlanInput): Plan | undefined {
  if (input.rollout.spec?.revert !== true) return undefined;
  return input.rollout.status?.phase === 'Reverted' ? unchanged(input) : planRevert(input);
}

/** A revert under way goes on when the controller decided it (../trust.ts decidedRevert). */
function revertUnderWay(input: PlanInput): Plan | undefined {
  const r = input.rollout;
  const old = r.status;
  if (old?.phase !== 'Reverting') return undefined;
  if (decidedRevert(r)) return planRevert(input);
  // Not the controller's decision: planned as the rollout it is, and said so.
  const plan = planSource({ ...input, rollout: { ...r, status: { ...old, phase: 'Progressing' } } });
  const warning: RolloutEvent = {
    type: 'Warning',
    reason: 'StatusNotDecided',
    message: trustMessages.revertNotDecided,
  };
  return { ...plan, events: [warning, ...plan.events] };
}

function succeededAlready(input: PlanInput): Plan | undefined {
  return input.rollout.status?.phase === 'Succeeded' ? planSucceeded(input) : undefined;
}

function finishedAlready(input: PlanInput): Plan | undefined {
  return isFinished(input.rollout) ? unchanged(input) : undefined;
}

/** An invalid nodeSelector halts the rollout before any node changes. */
function invalidSelector(input: PlanInput): Plan | undefined {
  try {
    selectorRequirements(input.rollout.spec?.nodeSelector);
    return undefined;
  } catch (err) {
    const failure = {
      reason: conditionReasons.invalidSelector,
      message: conditionMessages.invalidSelector(errorMessage(err)),
    };
    const old = input.rollout.status;
    return finishPlan(input, old?.nodes ?? {}, { phase: 'Halted', failure }, old?.currentBatch);
  }
}

/** The look at the nodes the later gates decide on: every tracked node's next record, and what it found. */
interface Look extends Evaluated {
  input: PlanInput;
  /** Nodes recorded Succeeded that no longer run the config (../degraded.ts). */
  degraded: DegradedNode[];
  /** The tracked nodes still to start. */
  pending: Node[];
}

function lookAt(input: PlanInput): Look {
  // The selector is valid: invalidSelector let the look through.
  const e = evaluate(input, selectorRequirements(input.rollout.spec?.nodeSelector));
  const pending = e.tracked.filter((n) => e.nodes[nameOf(n)]?.state === 'Pending');
  return { ...e, input, degraded: findDegraded(input.nodes, e.nodes, e.target), pending };
}

/** The plan a look ends with: its records, with the nodes it left out and the degraded ones in the status. */
function finishLook(look: Look, outcome: Outcome, rest: Partial<Plan> = {}, currentBatch = look.currentBatch): Plan {
  const full = { ...outcome, incompatible: look.incompatible, degraded: look.degraded };
  return finishPlan(look.input, look.nodes, full, currentBatch, rest);
}

/** When to look again: the nodes' next soak or deadline, or when a wait passes the progress deadline. */
function later(look: Look): Pick<Plan, 'requeueAfterMs'> {
  const due = Object.entries(look.nodes)
    .map(([name, p]) => nextDeadlineMs(p, look.target, look.target.heartbeat(name)))
    .concat(stallDueMs(look.nodes, look.target))
    .filter((d): d is number => d !== undefined);
  return due.length > 0 ? { requeueAfterMs: Math.min(...due) } : {};
}

/** More failed nodes than maxFailures: Halted with failurePolicy Halt, else Reverting. */
function tooManyFailures(look: Look): Plan | undefined {
  const failedCount = Object.values(look.nodes).filter((p) => p.reason !== undefined).length;
  const max = look.strategy.maxFailures;
  if (failedCount <= max) return undefined;
  const failure = { reason: conditionReasons.failures, message: conditionMessages.failures(failedCount, max) };
  if (look.input.rollout.spec?.failurePolicy === 'Halt') return finishLook(look, { phase: 'Halted', failure });
  // Reverting is recorded before any node is restored; the next look (at once) restores them.
  return { ...finishLook(look, { phase: 'Reverting', failure }), requeueAfterMs: 0 };
}

/**
 * Without skipIncompatible, a rollout that would leave nodes out does not start (admission refuses it where it
 * runs; this is the same answer on an API server without it). Once started, later joiners are left out.
 */
function leavesNodesOut(look: Look): Plan | undefined {
  const changedAny = Object.values(look.nodes).some((p) => p.updatedAt !== undefined);
  const skips = look.input.rollout.spec?.strategy?.skipIncompatible === true;
  if (look.incompatible.length === 0 || skips || look.currentBatch !== undefined || changedAny) return undefined;
  const blocked = {
    reason: conditionReasons.incompatibleNodes,
    message: conditionMessages.incompatibleNodes(describeIncompatible(look.incompatible)),
  };
  return { ...finishLook(look, { phase: 'Pending', blocked }), ...later(look) };
}

/** Nothing left to start and nothing in flight: the rollout has succeeded. */
function allDone(look: Look): Plan | undefined {
  if (look.pending.length > 0 || Object.values(look.nodes).some((p) => p.state === 'InFlight')) return undefined;
  return finishLook(look, { phase: 'Succeeded' });
}

/** Something keeps every node from starting now: a conflict, a missing ConfigMap, a pause (./batches.ts obstacle). */
function obstructed(look: Look): Plan | undefined {
  const blocked = obstacle(look.input, look, look.pending);
  if (!blocked) return undefined;
  return { ...finishLook(look, blocked), ...(blocked.phase === 'Halted' ? {} : later(look)) };
}

/** pauseAfterCanary: once the canary has settled, the rollout pauses itself, once (the annotation says it did). */
function pausedAfterCanary(look: Look): Plan | undefined {
  const r = look.input.rollout;
  if (
    !canarySettled(look.nodes, look.currentBatch) ||
    r.spec?.strategy?.pauseAfterCanary !== true ||
    r.metadata.annotations?.[PAUSED_AFTER_CANARY_ANNOTATION] !== undefined
  )
    return undefined;
  const rolloutPatch: RolloutPatch = {
    metadata: { annotations: { [PAUSED_AFTER_CANARY_ANNOTATION]: 'true' } },
    spec: { paused: true },
  };
  return { ...finishLook(look, { phase: 'Paused' }, { rolloutPatch }), ...later(look) };
}

/**
 * The next batch starts: its nodes are recorded with what they run now (the intent, written before they change),
 * then assigned the rollout's source.
 */
function startNextBatch(look: Look): Plan {
  const { input, nodes, target } = look;
  const startable = look.pending.filter((n) => nodes[nameOf(n)]?.waitingReason === undefined);
  const { batch, start } = nextBatch(nodes, startable, look.currentBatch, look.strategy, look.unavailable);
  const updatedAt = formatTimeCeil(input.now.getTime());
  const before = { ...nodes };
  for (const n of start) {
    const previous = previousOf(n, input);
    before[nameOf(n)] = { state: 'Pending', previous };
    nodes[nameOf(n)] = { state: 'InFlight', batch, updatedAt, previous };
  }
  const assignments = start.map((n) =>
    startAssignment(n, target.rollout, target.desired, before[nameOf(n)]!.previous!),
  );
  const outcome: Outcome = { phase: 'Progressing', waiting: waitingOutcome(nodes, target, input.now) };
  const intent =
    assignments.length > 0
      ? { intent: buildStatus(input, before, { ...outcome, incompatible: look.incompatible }, look.currentBatch) }
      : {};
  const currentBatch = start.length > 0 ? batch : look.currentBatch;
  return { ...finishLook(look, outcome, { assignments, ...intent }, currentBatch), ...later(look) };
}

/**
 * A rollout that has succeeded changes no node, but keeps watching the ones it holds: a node that has left its config
 * since is counted and named (./degraded.ts). Its status is otherwise the one it finished with, generation included.
 */
function planSucceeded(input: PlanInput): Plan {
  const old = input.rollout.status ?? {};
  const degraded = findDegraded(input.nodes, old.nodes ?? {}, nodeTarget(input));
  if (degraded.length === 0 && old.degradedNodes === undefined) return { assignments: [], status: old, events: [] };
  const plan = finishPlan(input, old.nodes ?? {}, { phase: 'Succeeded', degraded }, old.currentBatch);
  if (old.observedGeneration !== undefined) plan.status.observedGeneration = old.observedGeneration;
  return plan;
}
