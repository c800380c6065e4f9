// Nodes whose assignment another field manager applies (a server-side apply conflict the controller does not force,
// ./apply.ts): how long each has refused, and, once that outlives the rollout's progress deadline, the node's failure
// (reason NodeConflict), which the rollout's failure policy then answers as any other, instead of retrying for ever.
// The controller keeps when it first saw each conflict (in memory: a new leader starts the count again, so a
// conflict fails a node after one to two deadlines); the plan decides. Pure but for the tracker's clock reads.

import type { NodeProgress } from '../../api/dkc/rollout.js';
import { conflictMessages } from './messages.js';

/** A node's standing conflict: first seen at `sinceMs` (wall clock), with the write's refusal. */
export interface NodeConflict {
  sinceMs: number;
  message: string;
}

/** Per rollout, per node: the conflicts of the node writes that failed, forgotten when a write succeeds. */
export class ConflictTracker {
  private readonly byRollout = new Map<string, Map<string, NodeConflict>>();

  refused(rollout: string, node: string, message: string, nowMs: number): void {
    const nodes = this.byRollout.get(rollout) ?? new Map<string, NodeConflict>();
    const seen = nodes.get(node);
    nodes.set(node, { sinceMs: seen?.sinceMs ?? nowMs, message });
    this.byRollout.set(rollout, nodes);
  }

  written(rollout: string, node: string): void {
    this.byRollout.get(rollout)?.delete(node);
  }

  of(rollout: string): ReadonlyMap<string, NodeConflict> | undefined {
    const nodes = this.byRollout.get(rollout);
    return nodes && nodes.size > 0 ? nodes : undefined;
  }

  forget(rollout: string): void {
    this.byRollout.delete(rollout);
  }
}

/**
 * A Pending node's record once its conflict has outlived the progress deadline: Failed (NodeConflict), never
 * changed by this rollout, so an undo has nothing of it to restore; undefined while the deadline has not passed.
 */
export function conflictFailure(
  p: NodeProgress,
  conflict: NodeConflict | undefined,
  nowMs: number,
  deadlineMs: number,
): NodeProgress | undefined {
  if (p.state !== 'Pending' || conflict === undefined || nowMs < conflict.sinceMs + deadlineMs) return undefined;
  const next: NodeProgress = {
    ...p,
    state: 'Failed',
    reason: 'NodeConflict',
    message: conflictMessages.outlived(Math.round(deadlineMs / 1000), conflict.message),
  };
  delete next.waitingReason;
  delete next.waitingSince;
  return next;
}
