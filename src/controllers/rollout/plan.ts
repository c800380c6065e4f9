// The rollout's decision, as one pure function (in the manner of the agent's boot decision): from the rollout
// object, the nodes, the target ConfigMap's uid and resourceVersion, the other rollouts and the time, decide the
// next node patches, the status and the events. The controller does the I/O and feeds the results back in, so a new
// leader that reads the same API state decides the same thing: nothing is redone, skipped or lost. What a node ran
// before a rollout changed it is kept in that rollout's status (written before the change), never read from the
// Node, so an undo assigns only what the node really ran; each rollout keeps its own record, so a later rollout over
// the same nodes overwrites nothing, and undoing it hands the nodes back to the one before.

import type { Lease, Node, NodeConfigSource } from '../../api/types.js';
import { newLabelRequirement, matchesLabels, type LabelRequirement, type LabelOperator } from '../../api/selectors.js';
import { describeIncompatible, reasonOf, type Incompatibility } from '../../nodepolicy/compat.js';
import { heartbeatOf } from './heartbeat.js';
import { isLayered } from './layers.js';
import { copySource, mayPin } from './pin.js';
import {
  conditionMessages,
  conditionReasons,
  eventMessages,
  failureMessages,
  trustMessages,
  trustReasons,
  waitingMessages,
} from './messages.js';
import { decidedRevert, encodeRecord, recordAgrees } from './trust.js';
import { conflictFailure, type NodeConflict } from './conflicts.js';
import { restoreDueMs, restoreStep, restoring } from './restore.js';
import {
  changedByUs,
  isMine,
  nextDeadlineMs,
  ownerOf,
  specOnTarget,
  specSource,
  stepNode,
  unavailableReason,
  type NodeTarget,
} from './nodeview.js';
import {
  LEGACY_PREVIOUS_SOURCE_ANNOTATION,
  PAUSED_AFTER_CANARY_ANNOTATION,
  REVERT_RECORD_ANNOTATION,
  ROLLOUT_ANNOTATION,
  ROLLOUT_FINALIZER,
  desiredSource,
  formatTime,
  formatTimeCeil,
  hasFinalizer,
  isDeleting,
  isFinished,
  isFinishedPhase,
  needsWork,
  recordSource,
  scaledCount,
  sourceOfRecord,
  type LabelSelector,
  type NodeConfigRollout,
  type NodeProgress,
  type Phase,
  type IncompatibleNode,
  type PreviousRecord,
  type RolloutCondition,
  type RolloutFailure,
  type RolloutStatus,
} from '../../api/dkc/rollout.js';
import { errorMessage } from '../../util/errors.js';
import type { KubeletReport } from '../../api/dkc/nodeconfig.js';
import { degradedCondition, degradedEvents, degradedFields, findDegraded } from './degraded.js';
import type { DegradedNode } from '../../api/dkc/rollout.js';

export interface PlanInput {
  rollout: NodeConfigRollout;
  /** Every node; the plan selects. */
  nodes: readonly Node[];
  /** The target ConfigMap's identity now; undefined when it does not exist (or the rollout resets to local config). */
  configMap: { uid: string; resourceVersion: string } | undefined;
  /** The other rollouts, for conflicts. */
  others: readonly NodeConfigRollout[];
  now: Date;
  /** The nodes' Leases in kube-node-lease, by node name: their heartbeats. A node without one has never heartbeated. */
  leases: Pick<ReadonlyMap<string, Lease>, 'get'>;
  /** When this controller started: soak time recorded before it went unobserved, and counts for nothing. */
  startedAt: Date;
  /**
   * A layered rollout's rendering, when the controller rendered it for this look: the rendered ConfigMap's name, or
   * why the layers cannot be rendered. Unused once status.renderedConfigMap is recorded (the rollout keeps to it).
   */
  rendered?: { name: string } | { failure: { reason: string; message: string } };
  /**
   * The nodes whose kubelet minor cannot run the target config, by node name (src/nodepolicy/compat.ts, judged by
   * the controller on the target's bytes); absent when every node can, or the target is not known yet. A selected
   * node among them that this rollout has not changed is never started.
   */
  incompatible?: ReadonlyMap<string, Incompatibility>;
  /**
   * Why the ConfigMap status.renderedConfigMap names is not the one this rollout's layers were rendered into
   * (./trust.ts renderedDistrust); absent when it is, or when the rollout is not layered.
   */
  renderedDistrust?: string;
  /** The nodes whose assignment another applier refused this rollout, since when (./conflicts.ts); absent: none. */
  conflicts?: ReadonlyMap<string, NodeConflict>;
  /**
   * Whether a ConfigMap reference names a copy some rollout made (./trust.ts isRolloutCopy): the one source a node's
   * own report may add to its revert record. Absent: none does.
   */
  rolloutCopy?: (ref: { namespace: string; name: string }) => boolean;
  /** Each node's daemon report (its NodeConfig's status.kubelet), by node name; absent where there are none. */
  kubelet?: Pick<ReadonlyMap<string, KubeletReport>, 'get'>;
  /** The fields the target config sets (./overrides.ts configFields), when the controller has read it. */
  targetFields?: ReadonlySet<string>;
}

export interface NodePatch {
  node: string;
  /** Precondition: a node that changed since it was read is not patched (409), and is looked at again. */
  resourceVersion: string;
  /**
   * A JSON merge patch: the dkc.io/rollout annotation and spec.configSource together, so that both or neither
   * change; without spec, the node is only handed back or released (its source stays).
   */
  patch: {
    metadata: { resourceVersion: string; annotations: Record<string, string | null> };
    spec?: { configSource: NodeConfigSource | null };
  };
}

/** A JSON merge patch of the rollout itself; the controller adds the resourceVersion it read as a precondition. */
export interface RolloutPatch {
  metadata: { annotations?: Record<string, string>; finalizers?: string[] | null };
  spec?: { paused: true };
}

export type EventReason =
  | 'RolloutStarted'
  | 'BatchStarted'
  | 'NodeSucceeded'
  | 'NodeFailed'
  | 'NodeWaiting'
  | 'NodeIncompatible'
  | 'NodeDeleted'
  | 'NodeNotRestored'
  | 'NodesReleased'
  | 'RolloutHalted'
  | 'RolloutReverted'
  | 'RolloutSucceeded'
  | 'StatusNotDecided'
  | 'NodesDegraded'
  | 'NodesRecovered';

export interface RolloutEvent {
  type: 'Normal' | 'Warning';
  reason: EventReason;
  message: string;
}

export interface Plan {
  /**
   * Written before the node patches: the status with each node about to change recorded (still Pending) with what it
   * runs now. A crash after it loses nothing: the next look finds the patched nodes and knows what they ran.
   */
  intent?: RolloutStatus;
  nodePatches: NodePatch[];
  /** A merge patch of the rollout itself (pauseAfterCanary; the finalizer), applied after the nodes, before the status. */
  rolloutPatch?: RolloutPatch;
  /** The whole status to write; the controller skips the write when it equals the current one. */
  status: RolloutStatus;
  /** A merge patch of the rollout applied last: removing the finalizer of a deleted rollout, which then goes. */
  finalize?: RolloutPatch;
  events: RolloutEvent[];
  /** Look again after this many ms even if nothing changes (soak and deadline timers). */
  requeueAfterMs?: number;
}

const SELECTOR_OPERATORS: Readonly<Record<string, LabelOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/** metav1.LabelSelector as requirements; throws on an invalid one. */
export function selectorRequirements(sel: LabelSelector | undefined): LabelRequirement[] {
  const reqs: LabelRequirement[] = [];
  for (const [k, v] of Object.entries(sel?.matchLabels ?? {})) reqs.push(newLabelRequirement(k, '=', [v]));
  for (const e of sel?.matchExpressions ?? []) {
    const op = SELECTOR_OPERATORS[e.operator];
    if (op === undefined) throw new Error(conditionMessages.invalidOperator(e.operator));
    reqs.push(newLabelRequirement(e.key, op, e.values ?? []));
  }
  return reqs;
}

/** Whether the rollout's nodeSelector selects the node (an invalid selector selects none). */
export function selects(r: NodeConfigRollout, node: Node): boolean {
  try {
    return matchesLabels(selectorRequirements(r.spec?.nodeSelector), node.metadata.labels);
  } catch {
    return false;
  }
}

const byName = (a: Node, b: Node): number => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1);
const nameOf = (n: Node): string => n.metadata.name ?? '';

function olderThan(a: NodeConfigRollout, b: NodeConfigRollout): boolean {
  const ta = Date.parse(a.metadata.creationTimestamp ?? '') || 0;
  const tb = Date.parse(b.metadata.creationTimestamp ?? '') || 0;
  return ta !== tb ? ta < tb : (a.metadata.name ?? '') < (b.metadata.name ?? '');
}

/**
 * The unfinished rollout other than `me` that holds `node`: the one whose own records say it changed it (or is about
 * to), or an older one that selects it (so two rollouts created together never both start on it). A rollout that is
 * undoing holds only what it changed. The node's dkc.io/rollout annotation decides nothing: a node may write it.
 */
export function holderOf(me: NodeConfigRollout, node: Node, others: readonly NodeConfigRollout[]): string | undefined {
  const myName = me.metadata.name;
  for (const o of others) {
    const name = o.metadata.name;
    if (name === myName || name === undefined) continue;
    if (!needsWork(o)) continue;
    if (claims(o, nameOf(node))) return name;
    if (
      o.spec?.revert !== true &&
      o.status?.phase !== 'Reverting' &&
      !isDeleting(o) &&
      olderThan(o, me) &&
      selects(o, node)
    )
      return name;
  }
  return undefined;
}

/** Whether `o`'s own status records it changed `node` and has not let go of it, or is about to change it. */
function claims(o: NodeConfigRollout, node: string): boolean {
  const p = o.status?.nodes?.[node];
  return changedByUs(p) || (p?.state === 'Pending' && p.previous !== undefined);
}

// ---- status assembly ----------------------------------------------------------------------------------------

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

interface Outcome {
  phase: Phase;
  /** Why it failed, for the Failed condition; undefined keeps an earlier failure (or none). */
  failure?: { reason: string; message: string };
  /** A reason the rollout cannot progress although it is not finished (e.g. the ConfigMap is missing). */
  blocked?: { reason: string; message: string };
  /** Nodes held unchanged until they are Ready with a fresh heartbeat; `stalled` once nothing else can move for longer than the deadline. */
  waiting?: { nodes: string[]; stalled: boolean; deadlineSeconds: number } | undefined;
  /** Selected nodes left out for their kubelet version; undefined keeps the status's earlier list. */
  incompatible?: readonly Incompatibility[];
  /** Nodes recorded Succeeded that no longer run the config (./degraded.ts); none when undefined. */
  degraded?: readonly DegradedNode[];
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

/** A rollout that no longer starts nodes holds none back: its records lose their waiting marks. */
function withoutWaiting(p: NodeProgress): NodeProgress {
  if (p.waitingReason === undefined && p.waitingSince === undefined) return p;
  const next = { ...p };
  delete next.waitingReason;
  delete next.waitingSince;
  return next;
}

function buildStatus(
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

// ---- events ---------------------------------------------------------------------------------------------------

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

function finishPlan(
  input: PlanInput,
  nodes: Record<string, NodeProgress>,
  outcome: Outcome,
  currentBatch: number | undefined,
  rest: Partial<Plan> = {},
): Plan {
  const status = buildStatus(input, nodes, outcome, currentBatch);
  return { nodePatches: [], ...rest, status, events: eventsFor(input, status, desiredSource(input.rollout.spec)) };
}

// ---- the decision ---------------------------------------------------------------------------------------------

/** What `node` runs now and who holds it: the record written before this rollout changes it. */
function previousOf(node: Node, input: PlanInput): PreviousRecord {
  const holder = ownerOf(node);
  return {
    configSource: recordSource(specSource(node) ?? reportedCopy(node, input)),
    ...(holder !== undefined && holder !== '' ? { rollout: holder } : {}),
  };
}

/**
 * What a node assigned nothing runs, when that is a rollout's copy (PlanInput.rolloutCopy): a node whose NodeConfig
 * was made again (its Node deleted and re-created) keeps the config it ran while its spec is empty, and reverting it
 * to "local config" would change what it runs. Its report decides nothing else: a source that is not such a copy
 * (which the node could name to be handed any ConfigMap) is read as local config, as the spec says.
 */
function reportedCopy(node: Node, input: PlanInput): NodeConfigSource | null {
  const c = node.status?.config;
  const active = c?.active?.configMap;
  if (!active || (c?.error ?? '') !== '' || input.rolloutCopy?.(active) !== true) return null;
  return { configMap: { namespace: active.namespace, name: active.name, kubeletConfigKey: active.kubeletConfigKey } };
}

/** Sets `node` to `desired`, held by `rollout`, with the guarded copy of the record written in the same change. */
function startPatch(
  node: Node,
  rollout: string,
  desired: NodeConfigSource | null,
  previous: PreviousRecord,
): NodePatch {
  const rv = node.metadata.resourceVersion ?? '';
  return {
    node: nameOf(node),
    resourceVersion: rv,
    patch: {
      metadata: {
        resourceVersion: rv,
        annotations: {
          [ROLLOUT_ANNOTATION]: rollout,
          [REVERT_RECORD_ANNOTATION]: encodeRecord(previous),
          [LEGACY_PREVIOUS_SOURCE_ANNOTATION]: null,
        },
      },
      spec: { configSource: desired },
    },
  };
}

/**
 * Gives the node back to `holder` with its record of the node (or to nobody, without a record), and, with `source`,
 * puts it back on that source in the same write.
 */
function letGoPatch(
  node: Node,
  holder: { name: string; record: PreviousRecord } | undefined,
  source?: NodeConfigSource | null,
): NodePatch {
  const rv = node.metadata.resourceVersion ?? '';
  const annotations = {
    [ROLLOUT_ANNOTATION]: holder?.name ?? null,
    [REVERT_RECORD_ANNOTATION]: holder ? encodeRecord(holder.record) : null,
    [LEGACY_PREVIOUS_SOURCE_ANNOTATION]: null,
  };
  return {
    node: nameOf(node),
    resourceVersion: rv,
    patch: {
      metadata: { resourceVersion: rv, annotations },
      ...(source !== undefined ? { spec: { configSource: source } } : {}),
    },
  };
}

/**
 * The source `r` assigns: a layered rollout's rendered ConfigMap (undefined before it has one), the pinned copy of
 * its configSource, or its configSource.
 */
function targetOf(r: NodeConfigRollout): NodeConfigSource | null | undefined {
  const rendered = r.status?.renderedConfigMap;
  if (rendered !== undefined) return copySource(r, rendered);
  return isLayered(r) ? undefined : desiredSource(r.spec);
}

function sameSource(a: NodeConfigSource | null | undefined, b: NodeConfigSource | null | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  const x = a?.configMap;
  const y = b?.configMap;
  if (!x || !y) return !x && !y;
  return x.namespace === y.namespace && x.name === y.name && x.kubeletConfigKey === y.kubeletConfigKey;
}

/**
 * The rollout that gets `node` back when an undo restores it to `previous`: the one that held it before, if that one
 * still claims it by its own record — not deleted, not undone, its status saying it changed the node, and the
 * source being restored its target. Otherwise nobody: the node is then on a source no rollout holds.
 */
export function handBackTo(
  node: string,
  previous: PreviousRecord,
  others: readonly NodeConfigRollout[],
): string | undefined {
  const holder = previous.rollout;
  if (holder === undefined) return undefined;
  const o = others.find((x) => x.metadata.name === holder);
  if (
    !o ||
    isDeleting(o) ||
    o.spec?.revert === true ||
    o.status?.phase === 'Reverting' ||
    o.status?.phase === 'Reverted'
  )
    return undefined;
  const theirs = o.status?.nodes?.[node];
  if (!changedByUs(theirs) || theirs?.previous === undefined) return undefined;
  return sameSource(targetOf(o), sourceOfRecord(previous.configSource)) ? holder : undefined;
}

/** Rollout `holder`'s record of what `node` ran before it changed it. */
function recordOf(others: readonly NodeConfigRollout[], holder: string, node: string): PreviousRecord | undefined {
  return others.find((o) => o.metadata.name === holder)?.status?.nodes?.[node]?.previous;
}

function notRestored(
  prev: NodeProgress | undefined,
  state: 'Overridden' | 'NotRestored',
  message: string,
): NodeProgress {
  if (prev?.state === state) return prev;
  const next: NodeProgress = {
    ...(prev ?? { state }),
    state,
    reason: state === 'Overridden' ? 'Overridden' : 'NoRecord',
    message,
  };
  delete next.readySince;
  return next;
}

/** A node this rollout changed is gone: recorded as such (a failure keeps its reason: it still says why the rollout stopped). */
function deletedRecord(prev: NodeProgress): NodeProgress {
  const next: NodeProgress = { ...prev, state: 'Deleted' };
  if (next.reason === undefined) next.message = failureMessages.deleted;
  delete next.readySince;
  return next;
}

interface RevertStep {
  record?: NodeProgress;
  patch?: NodePatch;
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
      patch: letGoPatch(node, holder !== undefined && theirs ? { name: holder, record: theirs } : undefined, source),
    };
  }
  const holder = ownerOf(node);
  // Back where this rollout found it and let go of, as only its own restoring patch leaves a node: the last leader
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
function planRevert(input: PlanInput): Plan {
  const me = input.rollout.metadata.name ?? '';
  const desired = desiredSource(input.rollout.spec);
  const old = input.rollout.status?.nodes ?? {};
  const present = new Map(input.nodes.map((n) => [nameOf(n), n]));
  const names = new Set([...Object.keys(old), ...input.nodes.filter((n) => isMine(n, me)).map(nameOf)]);
  const nodes: Record<string, NodeProgress> = {};
  const patches: NodePatch[] = [];
  for (const name of [...names].sort()) {
    const step = revertNode(input, name, present.get(name), old[name], desired);
    if (step.record) nodes[name] = step.record;
    if (step.patch) patches.push(step.patch);
  }
  for (const [name, p] of Object.entries(nodes)) {
    if (p.readySince === undefined) continue;
    const copy = { ...p };
    delete copy.readySince;
    nodes[name] = copy;
  }
  // Every node still to restore is patched in this step, and counts as restored once it reports the restored config
  // active (./restore.ts): until then the rollout is Reverting, looked at again by the progress deadline.
  const now = input.now.getTime();
  const waiting = Object.values(nodes).some((p) => p.state === 'InFlight');
  const due = restoreDueMs(nodes, now, deadlineOf(input));
  return finishPlan(input, nodes, { phase: waiting ? 'Reverting' : 'Reverted' }, input.rollout.status?.currentBatch, {
    nodePatches: patches,
    ...(due !== undefined ? { requeueAfterMs: due } : {}),
  });
}

/** The rollout's progress deadline in ms (progressDeadlineSeconds, 120 by default). */
function deadlineOf(input: PlanInput): number {
  return (input.rollout.spec?.progressDeadlineSeconds ?? 120) * 1000;
}

/**
 * A deleted rollout, before it goes: one still moving (or being undone) is undone first, as `dkc rollout undo`
 * would; one that has finished leaves every node on the source it has and lets go of the nodes it still holds.
 * The finalizer goes last, in a look that finds nothing left to do.
 */
function planDeletion(input: PlanInput): Plan {
  const r = input.rollout;
  const old = r.status;
  if (!hasFinalizer(r)) return { nodePatches: [], status: old ?? {}, events: [] };
  if (needsWork(r)) return planRevert(input);
  const me = r.metadata.name ?? '';
  const held = [...input.nodes].filter((n) => isMine(n, me)).sort(byName);
  if (held.length > 0) {
    const events: RolloutEvent[] = [
      { type: 'Normal', reason: 'NodesReleased', message: eventMessages.released(held.map(nameOf)) },
    ];
    return { nodePatches: held.map((n) => letGoPatch(n, undefined)), status: old ?? {}, events, requeueAfterMs: 0 };
  }
  const rest = (r.metadata.finalizers ?? []).filter((f) => f !== ROLLOUT_FINALIZER);
  return {
    nodePatches: [],
    status: old ?? {},
    events: [],
    finalize: { metadata: { finalizers: rest.length > 0 ? rest : null } },
  };
}

interface Strategy {
  canary: number;
  maxUnavailable: number;
  maxFailures: number;
}

function strategyOf(input: PlanInput, total: number): Strategy {
  const s = input.rollout.spec?.strategy;
  return {
    canary: scaledCount(s?.canary, total, 1),
    maxUnavailable: Math.max(1, scaledCount(s?.maxUnavailable, total, 1)),
    maxFailures: input.rollout.spec?.maxFailures ?? 0,
  };
}

/** The canary batch has started and every node of it has succeeded or failed. */
function canarySettled(nodes: Record<string, NodeProgress>, current: number | undefined): boolean {
  return current === 0 && !Object.values(nodes).some((p) => p.batch === 0 && p.state === 'InFlight');
}

/**
 * The nodes to start now and their batch: the canary first (alone until it has settled), then as many as keep at
 * most maxUnavailable nodes unavailable. As a Deployment counts its unavailable pods, `unavailable` counts every
 * node in flight and every other node of the rollout that is down now (not Ready, or not heartbeating), so a node
 * that is down takes a place a change would take. The canary may hold up to max(canary, maxUnavailable) down. Each
 * start is a new batch number; batch 0 is the canary.
 */
function nextBatch(
  nodes: Record<string, NodeProgress>,
  startable: readonly Node[],
  current: number | undefined,
  s: Strategy,
  unavailable: number,
): { batch: number; start: Node[] } {
  if (current === undefined && s.canary > 0) {
    const room = Math.max(s.canary, s.maxUnavailable) - unavailable;
    return { batch: 0, start: startable.slice(0, Math.max(0, Math.min(s.canary, room))) };
  }
  const next = current === undefined ? 1 : current + 1;
  if (current === 0 && !canarySettled(nodes, current)) return { batch: next, start: [] };
  return { batch: next, start: startable.slice(0, Math.max(0, s.maxUnavailable - unavailable)) };
}

interface Evaluated {
  target: NodeTarget;
  /** The selected nodes and the ones this rollout changed, sorted by name. */
  tracked: Node[];
  nodes: Record<string, NodeProgress>;
  currentBatch: number | undefined;
  strategy: Strategy;
  /** Nodes in flight, and the other nodes of the rollout that are down now. */
  unavailable: number;
  /** Selected nodes left out, unchanged, because their kubelet cannot run the target. */
  incompatible: Incompatibility[];
}

/**
 * A node not yet changed is held while it is not Ready or not heartbeating: marked waiting (since when, kept while it
 * waits), it is neither started nor blamed on the config. Its mark goes once it is back.
 */
function holdIfDown(p: NodeProgress, prev: NodeProgress | undefined, node: Node, t: NodeTarget): NodeProgress {
  const reason = unavailableReason(node, t.heartbeat(nameOf(node)), t.now.getTime());
  if (reason === undefined) return withoutWaiting(p);
  return { ...p, waitingReason: reason, waitingSince: prev?.waitingSince ?? formatTime(t.now.getTime()) };
}

/** What the rollout wants on each node, and when, as the node's state machine takes it. */
function nodeTarget(input: PlanInput): NodeTarget {
  const r = input.rollout;
  const spec = r.spec ?? {};
  return {
    rollout: r.metadata.name ?? '',
    desired: desiredSource(spec),
    configMap: input.configMap,
    soakMs: (spec.strategy?.soakSeconds ?? 0) * 1000,
    deadlineMs: (spec.progressDeadlineSeconds ?? 120) * 1000,
    now: input.now,
    heartbeat: (node) => heartbeatOf(input.leases.get(node)),
    startedMs: input.startedAt.getTime(),
    kubelet: (node) => input.kubelet?.get(node),
    fields: input.targetFields,
  };
}

/** Every tracked node's next record; a node found changed by this rollout but unrecorded joins the batch being started. */
function evaluate(input: PlanInput, reqs: LabelRequirement[]): Evaluated {
  const r = input.rollout;
  const target = nodeTarget(input);
  const selected = (n: Node): boolean => matchesLabels(reqs, n.metadata.labels);
  const tracked = [...input.nodes].sort(byName).filter((n) => isMine(n, target.rollout) || selected(n));
  const strategy = strategyOf(input, tracked.length);
  let currentBatch = r.status?.currentBatch;
  const recoveredBatch = currentBatch === undefined ? (strategy.canary > 0 ? 0 : 1) : currentBatch + 1;
  const nodes: Record<string, NodeProgress> = {};
  let unavailable = 0;
  const incompatible: Incompatibility[] = [];
  for (const n of tracked) {
    const prev = r.status?.nodes?.[nameOf(n)];
    let p = stepNode(n, prev, target, recoveredBatch);
    if (p.state === 'Pending' && !selected(n)) continue;
    // Never started, so never failed: a node this rollout has not changed whose kubelet cannot run the target.
    const unsuited = p.state === 'Pending' ? input.incompatible?.get(nameOf(n)) : undefined;
    if (unsuited !== undefined) {
      incompatible.push(unsuited);
      continue;
    }
    if (p.state === 'Pending') p = holdIfDown(p, prev, n, target);
    const conflicted = conflictFailure(p, input.conflicts?.get(nameOf(n)), input.now.getTime(), target.deadlineMs);
    if (conflicted) p = conflicted;
    nodes[nameOf(n)] = p;
    if (p.batch === recoveredBatch) currentBatch = recoveredBatch;
    if (p.state === 'InFlight' || unavailableReason(n, target.heartbeat(nameOf(n)), input.now.getTime()) !== undefined)
      unavailable++;
  }
  const present = new Set(input.nodes.map(nameOf));
  for (const [name, p] of Object.entries(r.status?.nodes ?? {})) {
    if (present.has(name) || p.state === 'Pending') continue;
    // Gone: a node this rollout had changed (or counted) stays in the record, never silently dropped.
    nodes[name] = p.state === 'InFlight' || p.state === 'Succeeded' ? deletedRecord(p) : p;
  }
  return { target, tracked, nodes, currentBatch, strategy, unavailable, incompatible };
}

/** Why nothing may start now (a conflict, a missing ConfigMap, a pause), or undefined when nodes may start. */
function obstacle(input: PlanInput, e: Evaluated, pending: readonly Node[]): Outcome | undefined {
  for (const n of pending) {
    const holder = holderOf(input.rollout, n, input.others);
    if (holder !== undefined)
      return {
        phase: 'Halted',
        failure: { reason: conditionReasons.conflict, message: conditionMessages.conflict(nameOf(n), holder) },
      };
  }
  const cm = e.target.desired?.configMap;
  if (cm && input.configMap === undefined) {
    const blocked = {
      reason: conditionReasons.configMapNotFound,
      message: conditionMessages.configMapNotFound(cm.namespace, cm.name),
    };
    return { phase: e.currentBatch === undefined ? 'Pending' : 'Progressing', blocked };
  }
  if (input.rollout.spec?.paused === true) return { phase: 'Paused' };
  return undefined;
}

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
    return { nodePatches: [], rolloutPatch, status: r.status ?? {}, events: [], requeueAfterMs: 0 };
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

/** The rollout of spec.configSource (or of a layered rollout's rendered ConfigMap). */
function planSource(input: PlanInput): Plan {
  const r = input.rollout;
  const old = r.status;
  const nothing = (): Plan => ({ nodePatches: [], status: old ?? {}, events: [] });
  if (r.spec?.revert === true) return old?.phase === 'Reverted' ? nothing() : planRevert(input);
  if (old?.phase === 'Reverting') {
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
  if (old?.phase === 'Succeeded') return planSucceeded(input);
  if (isFinished(r)) return nothing();

  let reqs: LabelRequirement[];
  try {
    reqs = selectorRequirements(r.spec?.nodeSelector);
  } catch (err) {
    const failure = {
      reason: conditionReasons.invalidSelector,
      message: conditionMessages.invalidSelector(errorMessage(err)),
    };
    return finishPlan(input, old?.nodes ?? {}, { phase: 'Halted', failure }, old?.currentBatch);
  }
  const e = evaluate(input, reqs);
  const { nodes, strategy } = e;
  const degraded = findDegraded(input.nodes, nodes, e.target);
  const finish = (
    nodes: Record<string, NodeProgress>,
    outcome: Outcome,
    currentBatch: number | undefined,
    rest: Partial<Plan> = {},
  ): Plan => finishPlan(input, nodes, { ...outcome, incompatible: e.incompatible, degraded }, currentBatch, rest);
  const later = (): Pick<Plan, 'requeueAfterMs'> => {
    const due = Object.entries(nodes)
      .map(([name, p]) => nextDeadlineMs(p, e.target, e.target.heartbeat(name)))
      .concat(stallDueMs(nodes, e.target))
      .filter((d): d is number => d !== undefined);
    return due.length > 0 ? { requeueAfterMs: Math.min(...due) } : {};
  };

  const failedCount = Object.values(nodes).filter((p) => p.reason !== undefined).length;
  if (failedCount > strategy.maxFailures) {
    const failure = {
      reason: conditionReasons.failures,
      message: conditionMessages.failures(failedCount, strategy.maxFailures),
    };
    if (r.spec?.failurePolicy === 'Halt') return finish(nodes, { phase: 'Halted', failure }, e.currentBatch);
    // Reverting is recorded before any node is restored; the next look (at once) restores them.
    return { ...finish(nodes, { phase: 'Reverting', failure }, e.currentBatch), requeueAfterMs: 0 };
  }
  // Without skipIncompatible, a rollout that would leave nodes out does not start (admission refuses it where it
  // runs; this is the same answer on an API server without it). Once started, later joiners are left out.
  const changedAny = Object.values(nodes).some((p) => p.updatedAt !== undefined);
  if (
    e.incompatible.length > 0 &&
    r.spec?.strategy?.skipIncompatible !== true &&
    e.currentBatch === undefined &&
    !changedAny
  ) {
    const blocked = {
      reason: conditionReasons.incompatibleNodes,
      message: conditionMessages.incompatibleNodes(describeIncompatible(e.incompatible)),
    };
    return { ...finish(nodes, { phase: 'Pending', blocked }, e.currentBatch), ...later() };
  }
  const pending = e.tracked.filter((n) => nodes[nameOf(n)]?.state === 'Pending');
  if (pending.length === 0 && !Object.values(nodes).some((p) => p.state === 'InFlight'))
    return finish(nodes, { phase: 'Succeeded' }, e.currentBatch);

  const blocked = obstacle(input, e, pending);
  if (blocked) return { ...finish(nodes, blocked, e.currentBatch), ...(blocked.phase === 'Halted' ? {} : later()) };
  if (
    canarySettled(nodes, e.currentBatch) &&
    r.spec?.strategy?.pauseAfterCanary === true &&
    r.metadata.annotations?.[PAUSED_AFTER_CANARY_ANNOTATION] === undefined
  ) {
    const rolloutPatch: RolloutPatch = {
      metadata: { annotations: { [PAUSED_AFTER_CANARY_ANNOTATION]: 'true' } },
      spec: { paused: true },
    };
    return { ...finish(nodes, { phase: 'Paused' }, e.currentBatch, { rolloutPatch }), ...later() };
  }
  const startable = pending.filter((n) => nodes[nameOf(n)]?.waitingReason === undefined);
  const { batch, start } = nextBatch(nodes, startable, e.currentBatch, strategy, e.unavailable);
  const updatedAt = formatTimeCeil(input.now.getTime());
  const before = { ...nodes };
  for (const n of start) {
    const previous = previousOf(n, input);
    before[nameOf(n)] = { state: 'Pending', previous };
    nodes[nameOf(n)] = { state: 'InFlight', batch, updatedAt, previous };
  }
  const patches = start.map((n) => startPatch(n, e.target.rollout, e.target.desired, before[nameOf(n)]!.previous!));
  const outcome: Outcome = { phase: 'Progressing', waiting: waitingOutcome(nodes, e.target, input.now) };
  const intent =
    patches.length > 0
      ? { intent: buildStatus(input, before, { ...outcome, incompatible: e.incompatible }, e.currentBatch) }
      : {};
  return {
    ...finish(nodes, outcome, start.length > 0 ? batch : e.currentBatch, { nodePatches: patches, ...intent }),
    ...later(),
  };
}

/**
 * A rollout that has succeeded changes no node, but keeps watching the ones it holds: a node that has left its config
 * since is counted and named (./degraded.ts). Its status is otherwise the one it finished with, generation included.
 */
function planSucceeded(input: PlanInput): Plan {
  const old = input.rollout.status ?? {};
  const degraded = findDegraded(input.nodes, old.nodes ?? {}, nodeTarget(input));
  if (degraded.length === 0 && old.degradedNodes === undefined) return { nodePatches: [], status: old, events: [] };
  const plan = finishPlan(input, old.nodes ?? {}, { phase: 'Succeeded', degraded }, old.currentBatch);
  if (old.observedGeneration !== undefined) plan.status.observedGeneration = old.observedGeneration;
  return plan;
}

/**
 * The nodes held back, and whether the rollout has stalled on them: nothing is in flight (so nothing else can start
 * either) and one of them has waited longer than the progress deadline, as a Deployment's Progressing condition
 * turns False (ProgressDeadlineExceeded) while it keeps trying.
 */
function waitingOutcome(nodes: Record<string, NodeProgress>, t: NodeTarget, now: Date): Outcome['waiting'] {
  const held = Object.entries(nodes).filter(([, p]) => p.waitingReason !== undefined);
  const since = longestWaitSince(nodes);
  if (held.length === 0 || since === undefined) return undefined;
  const moving = Object.values(nodes).some((p) => p.state === 'InFlight');
  return {
    nodes: held.map(([name]) => name),
    stalled: !moving && now.getTime() >= since + t.deadlineMs,
    deadlineSeconds: Math.round(t.deadlineMs / 1000),
  };
}

/** Since when the node that has waited longest has waited (ms), if any waits. */
function longestWaitSince(nodes: Record<string, NodeProgress>): number | undefined {
  const since = Object.values(nodes)
    .filter((p) => p.waitingReason !== undefined)
    .map((p) => Date.parse(p.waitingSince ?? ''))
    .filter((ms) => !Number.isNaN(ms));
  return since.length > 0 ? Math.min(...since) : undefined;
}

/** When a wait passes the progress deadline (the Progressing condition may turn False then), in ms from now. */
function stallDueMs(nodes: Record<string, NodeProgress>, t: NodeTarget): number | undefined {
  const since = longestWaitSince(nodes);
  const due = since === undefined ? undefined : since + t.deadlineMs - t.now.getTime();
  return due !== undefined && due > 0 ? due : undefined;
}
