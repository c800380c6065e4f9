// Which nodes start when: the strategy (canary, maxUnavailable, maxFailures), every tracked node's next record, what
// keeps nodes from starting, and the nodes held back while they are down. Pure.

import type { Node } from '../../../api/types.js';
import { matchesLabels, type LabelRequirement } from '../../../api/selectors.js';
import type { Incompatibility } from '../../../nodepolicy/compat.js';
import { heartbeatOf } from '../heartbeat.js';
import { conditionMessages, conditionReasons } from '../messages.js';
import { conflictFailure } from '../conflicts.js';
import { isMine, stepNode, unavailableReason, type NodeTarget } from '../nodeview.js';
import { desiredSource, formatTimeFloor, scaledCount, type NodeProgress } from '../../../api/dkc/rollout.js';
import type { Outcome, PlanInput } from './types.js';
import { byName, deletedRecord, holderOf, nameOf, withoutWaiting } from './records.js';

export interface Strategy {
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
export function canarySettled(nodes: Record<string, NodeProgress>, current: number | undefined): boolean {
  return current === 0 && !Object.values(nodes).some((p) => p.batch === 0 && p.state === 'InFlight');
}

/**
 * The nodes to start now and their batch: the canary first (alone until it has settled), then as many as keep at
 * most maxUnavailable nodes unavailable. As a Deployment counts its unavailable pods, `unavailable` counts every
 * node in flight and every other node of the rollout that is down now (not Ready, or not heartbeating), so a node
 * that is down takes a place a change would take. The canary may hold up to max(canary, maxUnavailable) down. Each
 * start is a new batch number; batch 0 is the canary.
 */
export function nextBatch(
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

export interface Evaluated {
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
  return { ...p, waitingReason: reason, waitingSince: prev?.waitingSince ?? formatTimeFloor(t.now.getTime()) };
}

/** What the rollout wants on each node, and when, as the node's state machine takes it. */
export function nodeTarget(input: PlanInput): NodeTarget {
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
export function evaluate(input: PlanInput, reqs: LabelRequirement[]): Evaluated {
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
export function obstacle(input: PlanInput, e: Evaluated, pending: readonly Node[]): Outcome | undefined {
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

/**
 * The nodes held back, and whether the rollout has stalled on them: nothing is in flight (so nothing else can start
 * either) and one of them has waited longer than the progress deadline, as a Deployment's Progressing condition
 * turns False (ProgressDeadlineExceeded) while it keeps trying.
 */
export function waitingOutcome(nodes: Record<string, NodeProgress>, t: NodeTarget, now: Date): Outcome['waiting'] {
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
export function stallDueMs(nodes: Record<string, NodeProgress>, t: NodeTarget): number | undefined {
  const since = longestWaitSince(nodes);
  const due = since === undefined ? undefined : since + t.deadlineMs - t.now.getTime();
  return due !== undefined && due > 0 ? due : undefined;
}
