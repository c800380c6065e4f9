// The rollouts page's decisions: each batch's progress from the rollout's per-node status, the nodes left out for
// their kubelet version, and which of the `dkc rollout` actions make sense in a phase (the page still lets the API
// have the last word).

import { isFinishedPhase, type NodeProgress, type Phase, type RolloutStatus } from '../../api/dkc/rollout.js';

/** The nodes a rollout left out for their kubelet version, one entry per version and reason, oldest version first. */
export interface LeftOut {
  kubeletVersion: string;
  reason: string;
  nodes: string[];
}

export interface BatchProgress {
  /** 0 is the canary. */
  batch: number;
  total: number;
  succeeded: number;
  failed: number;
  inFlight: number;
  /** Reverted or Overridden: no longer the rollout's to count. */
  other: number;
}

/** The batches the controller has started, in order; nodes not yet in a batch are counted by `pendingNodes`. */
export function batchProgress(status: RolloutStatus | undefined): BatchProgress[] {
  const batches = new Map<number, BatchProgress>();
  for (const p of Object.values(status?.nodes ?? {})) {
    if (p.batch === undefined || p.state === 'Pending') continue;
    let b = batches.get(p.batch);
    if (!b) batches.set(p.batch, (b = { batch: p.batch, total: 0, succeeded: 0, failed: 0, inFlight: 0, other: 0 }));
    b.total++;
    count(b, p);
  }
  return [...batches.values()].sort((a, b) => a.batch - b.batch);
}

function count(b: BatchProgress, p: NodeProgress): void {
  if (p.state === 'Succeeded') b.succeeded++;
  else if (p.state === 'Failed') b.failed++;
  else if (p.state === 'InFlight') b.inFlight++;
  else b.other++;
}

export function pendingNodes(status: RolloutStatus | undefined): number {
  return Object.values(status?.nodes ?? {}).filter((p) => p.batch === undefined || p.state === 'Pending').length;
}

/** status.incompatible grouped by kubelet version and reason (a fleet has many nodes and few versions). */
export function leftOut(status: RolloutStatus | undefined): LeftOut[] {
  const groups = new Map<string, LeftOut>();
  for (const i of status?.incompatible ?? []) {
    const key = `${i.kubeletVersion}\u0000${i.reason}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { kubeletVersion: i.kubeletVersion, reason: i.reason, nodes: [] }));
    g.nodes.push(i.node);
  }
  const minor = (v: string): number => Number(v.split('.')[1] ?? NaN) || 0;
  for (const g of groups.values()) g.nodes.sort();
  return [...groups.values()].sort(
    (a, b) =>
      minor(a.kubeletVersion) - minor(b.kubeletVersion) || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0),
  );
}

/** Which buttons are enabled: pause while it runs, resume while paused, undo until it has been reverted. */
export function availableActions(
  phase: Phase | undefined,
  paused: boolean,
): { pause: boolean; resume: boolean; undo: boolean } {
  const final = isFinishedPhase(phase);
  return { pause: !paused && !final, resume: paused && !final, undo: phase !== 'Reverted' && phase !== 'Reverting' };
}
