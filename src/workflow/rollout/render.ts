// What `dkc rollout status` shows, as pure functions of the rollout's status: the lines a change between two
// observed states adds (a line per node left out for its kubelet version, per batch started, per node failed or
// deleted, per phase reached), the live progress bar drawn on a terminal, and the exit code a phase means.

import { progress } from './errors.js';
import { isFinishedPhase, type Phase, type RolloutStatus } from '../../api/dkc/rollout.js';
import type { NodeConfigRollout } from './types.js';

/** 0 Succeeded, 1 Halted or Reverted; undefined while the rollout can still move. */
export function exitCodeForPhase(phase: Phase | undefined): 0 | 1 | undefined {
  if (!isFinishedPhase(phase)) return undefined;
  return phase === 'Succeeded' ? 0 : 1;
}

/**
 * The exit code once the rollout has come to rest. After `dkc rollout undo` (spec.revert) only Reverted counts: the
 * Succeeded or Halted still in the status is from before the controller saw the undo. A Succeeded rollout some of
 * whose nodes no longer run its config (status.degradedNodes) is 1: it is not what it says.
 */
export function exitCodeFor(rollout: NodeConfigRollout): 0 | 1 | undefined {
  const phase = rollout.status?.phase;
  if (rollout.spec?.revert === true && phase !== 'Reverted') return undefined;
  const code = exitCodeForPhase(phase);
  return code === 0 && (rollout.status?.degradedNodes ?? 0) > 0 ? 1 : code;
}

/** Batch number → the nodes started in it, sorted by name (the controller's order). */
export function batches(status: RolloutStatus | undefined): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const [node, p] of Object.entries(status?.nodes ?? {})) {
    if (p.batch === undefined || p.state === undefined || p.state === 'Pending') continue;
    const list = out.get(p.batch) ?? [];
    list.push(node);
    out.set(p.batch, list);
  }
  for (const list of out.values()) list.sort();
  return new Map([...out].sort((a, b) => a[0] - b[0]));
}

function batchLines(prev: RolloutStatus | undefined, next: RolloutStatus): string[] {
  const seen = batches(prev);
  const lines: string[] = [];
  for (const [batch, nodes] of batches(next)) {
    const before = new Set(seen.get(batch) ?? []);
    const fresh = nodes.filter((n) => !before.has(n));
    if (fresh.length > 0) lines.push(progress.batchStarted(batch, fresh));
  }
  return lines;
}

const failureKey = (f: { node?: string; reason?: string }): string => `${f.node ?? ''}\u0000${f.reason ?? ''}`;

function failureLines(prev: RolloutStatus | undefined, next: RolloutStatus): string[] {
  const seen = new Set((prev?.failures ?? []).map(failureKey));
  return (next.failures ?? [])
    .filter((f) => !seen.has(failureKey(f)))
    .map((f) => progress.nodeFailed(f.node ?? '<unknown>', f.reason ?? 'Unknown', f.message ?? ''));
}

/** A line for each node that began to wait since `prev`. */
function waitingLines(prev: RolloutStatus | undefined, next: RolloutStatus): string[] {
  return Object.entries(next.nodes ?? {})
    .filter(([node, p]) => p.waitingReason !== undefined && prev?.nodes?.[node]?.waitingReason === undefined)
    .map(([node, p]) => progress.nodeWaiting(node, p.waitingReason ?? ''));
}

/** A line per node that has become Deleted (it is no failure, so the failure lines do not name it). */
function deletedLines(prev: RolloutStatus | undefined, next: RolloutStatus): string[] {
  return Object.entries(next.nodes ?? {})
    .filter(([node, p]) => p.state === 'Deleted' && prev?.nodes?.[node]?.state !== 'Deleted')
    .map(([node]) => node)
    .sort()
    .map((node) => progress.nodeDeleted(node));
}

/** A line per named node that has left the config since `prev` (the status names a few; the count is of all). */
function degradedLines(prev: RolloutStatus | undefined, next: RolloutStatus): string[] {
  const seen = new Set((prev?.degraded ?? []).map((d) => d.node));
  return (next.degraded ?? [])
    .filter((d) => !seen.has(d.node))
    .map((d) => progress.nodeDegraded(d.node, d.reason, d.message));
}

/** A line when the count of nodes that left the config changes after the rollout succeeded. */
function degradedCountLine(name: string, prev: RolloutStatus | undefined, next: RolloutStatus): string[] {
  const n = next.degradedNodes ?? 0;
  if (next.phase !== 'Succeeded' || prev?.phase !== 'Succeeded' || n === (prev.degradedNodes ?? 0)) return [];
  return [progress.degraded(name, n, next.targetNodes ?? 0)];
}

/** A line per selected node newly left out because its kubelet cannot run the config. */
function incompatibleLines(prev: RolloutStatus | undefined, next: RolloutStatus | undefined): string[] {
  const seen = new Set((prev?.incompatible ?? []).map((i) => i.node));
  return (next?.incompatible ?? [])
    .filter((i) => !seen.has(i.node))
    .map((i) => progress.nodeIncompatible(i.node, i.kubeletVersion, i.reason));
}

function counts(s: RolloutStatus): string {
  return progress.counts(s.succeededNodes ?? 0, s.targetNodes ?? 0, s.failedNodes ?? 0, s.incompatibleNodes ?? 0);
}

/** Why the rollout stopped: the Failed condition's message (a Conflict names the other rollout). */
function failedMessage(s: RolloutStatus): string {
  const c = (s.conditions ?? []).find((x) => x.type === 'Failed' && x.status === 'True');
  const text = c?.message || c?.reason || '';
  return text ? `: ${text.replace(/\r?\n/g, ' ')}` : '';
}

/** The counts in parentheses, then why the rollout stopped when it did. */
function phaseDetail(s: RolloutStatus): string {
  switch (s.phase) {
    case 'Halted':
    case 'Reverting':
      return counts(s) + failedMessage(s);
    case 'Reverted': {
      const nodes = Object.values(s.nodes ?? {});
      const restored = nodes.filter((n) => n.state === 'Reverted').length;
      // Changed by this rollout and not put back: someone else changed it since, it was deleted, or it has no record.
      const notRestored = nodes.filter(
        (n) =>
          n.state === 'NotRestored' ||
          ((n.state === 'Overridden' || n.state === 'Deleted') && n.updatedAt !== undefined),
      ).length;
      return progress.restored(restored, notRestored) + failedMessage(s);
    }
    case 'Succeeded':
      return counts(s) + progress.degradedDetail(s.degradedNodes ?? 0);
    default:
      return counts(s);
  }
}

/**
 * The lines that the step from `prev` (undefined: nothing seen yet) to `next` adds, in the order things happen:
 * a layered rollout's rendered ConfigMap, batches started, nodes failed, nodes held back, then the phase reached.
 */
export function progressLines(
  name: string,
  prev: RolloutStatus | undefined,
  next: RolloutStatus | undefined,
  first = false,
): string[] {
  if (next?.phase === undefined || next.phase === 'Pending') {
    const waiting =
      first || (prev?.phase !== undefined && prev.phase !== 'Pending') ? [progress.waitingToStart(name)] : [];
    return [...waiting, ...incompatibleLines(prev, next)];
  }
  const rendered =
    next.renderedConfigMap !== undefined && next.renderedConfigMap !== prev?.renderedConfigMap
      ? [progress.rendered(next.renderedConfigMap)]
      : [];
  const lines = [
    ...rendered,
    ...incompatibleLines(prev, next),
    ...batchLines(prev, next),
    ...failureLines(prev, next),
    ...deletedLines(prev, next),
    ...waitingLines(prev, next),
    ...degradedLines(prev, next),
  ];
  if (next.phase !== prev?.phase) lines.push(progress.phase(name, next.phase, phaseDetail(next)));
  else lines.push(...degradedCountLine(name, prev, next));
  return lines;
}

/** Nodes changed but not yet succeeded or failed. */
export function inFlight(s: RolloutStatus): number {
  const nodes = Object.values(s.nodes ?? {});
  if (nodes.length > 0) return nodes.filter((n) => n.state === 'InFlight').length;
  return Math.max(0, (s.updatedNodes ?? 0) - (s.succeededNodes ?? 0) - (s.failedNodes ?? 0));
}

/** One terminal line: `[########............] 2/5 succeeded, 1 in flight, 0 failed  Progressing` (`, 1 waiting` when one is). */
export function progressBar(s: RolloutStatus | undefined, width = 20): string {
  const target = s?.targetNodes ?? 0;
  const done = s?.succeededNodes ?? 0;
  const failed = s?.failedNodes ?? 0;
  const filled = target > 0 ? Math.min(width, Math.round((done / target) * width)) : 0;
  const failedCells = target > 0 ? Math.min(width - filled, Math.round((failed / target) * width)) : 0;
  const bar = '#'.repeat(filled) + 'x'.repeat(failedCells) + '.'.repeat(width - filled - failedCells);
  const flying = s ? inFlight(s) : 0;
  const waiting = s?.waitingNodes ? `, ${s.waitingNodes} waiting` : '';
  return `[${bar}] ${done}/${target} succeeded, ${flying} in flight, ${failed} failed${waiting}  ${s?.phase ?? 'Pending'}`;
}
