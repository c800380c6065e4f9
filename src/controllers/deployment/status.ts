// A Deployment's status and conditions (k8s:pkg/controller/deployment/sync.go calculateStatus,
// syncRolloutStatus, progress.go; util/deployment_util.go DeploymentComplete, DeploymentProgressing,
// DeploymentTimedOut): counts summed over its ReplicaSets, Available against replicas − maxUnavailable, and the
// Progressing condition that records progress and, after progressDeadlineSeconds without any, the timeout.

import type { Deployment, DeploymentCondition, DeploymentStatus, ReplicaSet } from '../../api/apps.js';
import { timeMs } from '../../api/apps.js';
import { AVAILABLE, messages, PROGRESSING, reasons, REPLICA_FAILURE } from './messages.js';
import {
  desired,
  hasProgressDeadline,
  maxUnavailable,
  progressDeadline,
  sumReplicas,
  sumStatus,
} from './replicasets.js';

export function getCondition(s: DeploymentStatus, type: string): DeploymentCondition | undefined {
  return s.conditions?.find((c) => c.type === type);
}

export function removeCondition(s: DeploymentStatus, type: string): void {
  if (!s.conditions) return;
  s.conditions = s.conditions.filter((c) => c.type !== type);
  if (s.conditions.length === 0) delete s.conditions;
}

export function newCondition(
  type: string,
  status: 'True' | 'False' | 'Unknown',
  reason: string,
  message: string,
  nowIso: string,
): DeploymentCondition {
  return { type, status, lastUpdateTime: nowIso, lastTransitionTime: nowIso, reason, message };
}

/** SetDeploymentCondition: same status and reason is no change; same status keeps the transition time. */
export function setCondition(s: DeploymentStatus, cond: DeploymentCondition): void {
  const current = getCondition(s, cond.type);
  if (current && current.status === cond.status && current.reason === cond.reason) return;
  const next = { ...cond };
  if (current && current.status === cond.status) next.lastTransitionTime = current.lastTransitionTime ?? null;
  s.conditions = [...(s.conditions ?? []).filter((c) => c.type !== cond.type), next];
}

/** calculateStatus. */
export function calculateStatus(
  d: Deployment,
  all: readonly ReplicaSet[],
  newRS: ReplicaSet | undefined,
  nowIso: string,
): DeploymentStatus {
  const available = sumStatus(all, 'availableReplicas');
  const status: DeploymentStatus = {
    observedGeneration: d.metadata.generation ?? 0,
    replicas: sumStatus(all, 'replicas'),
    updatedReplicas: newRS ? sumStatus([newRS], 'replicas') : 0,
    readyReplicas: sumStatus(all, 'readyReplicas'),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, sumReplicas(all) - available),
  };
  if (d.status?.collisionCount !== undefined) status.collisionCount = d.status.collisionCount;
  if (d.status?.conditions?.length) status.conditions = d.status.conditions.map((c) => ({ ...c }));
  const ok = available >= desired(d) - maxUnavailable(d);
  setCondition(
    status,
    ok
      ? newCondition(AVAILABLE, 'True', reasons.minimumReplicasAvailable, messages.minimumAvailable, nowIso)
      : newCondition(AVAILABLE, 'False', reasons.minimumReplicasUnavailable, messages.minimumUnavailable, nowIso),
  );
  return status;
}

/** DeploymentComplete: every desired replica updated, available, and nothing old left. */
export function isComplete(d: Deployment, s: DeploymentStatus): boolean {
  const n = desired(d);
  return (
    s.updatedReplicas === n &&
    s.replicas === n &&
    s.availableReplicas === n &&
    (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 0)
  );
}

/** DeploymentProgressing: more updated, fewer old, more ready or more available than the last status said. */
export function isProgressing(d: Deployment, s: DeploymentStatus): boolean {
  const old = d.status ?? {};
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (s.replicas ?? 0) - (s.updatedReplicas ?? 0);
  return (
    (s.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
    newOld < oldOld ||
    (s.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (s.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
  );
}

/** DeploymentTimedOut: no progress recorded for longer than progressDeadlineSeconds. */
export function isTimedOut(d: Deployment, s: DeploymentStatus, nowMs: number): boolean {
  if (!hasProgressDeadline(d)) return false;
  const c = getCondition(s, PROGRESSING);
  if (!c) return false;
  if (c.reason === reasons.newReplicaSetAvailable) return false;
  if (c.reason === reasons.progressDeadlineExceeded) return true;
  const from = timeMs(c.lastUpdateTime) ?? 0;
  return from + progressDeadline(d) * 1000 < nowMs;
}

function progressCondition(
  d: Deployment,
  s: DeploymentStatus,
  newRS: ReplicaSet | undefined,
  nowMs: number,
  nowIso: string,
): void {
  const dn = d.metadata.name ?? '';
  const rn = newRS?.metadata.name;
  if (isComplete(d, s)) {
    const msg = rn !== undefined ? messages.progressed(rn) : messages.deploymentProgressed(dn);
    setCondition(s, newCondition(PROGRESSING, 'True', reasons.newReplicaSetAvailable, msg, nowIso));
  } else if (isProgressing(d, s)) {
    const msg = rn !== undefined ? messages.progressing(rn) : messages.deploymentProgressing(dn);
    const cond = newCondition(PROGRESSING, 'True', reasons.replicaSetUpdated, msg, nowIso);
    const current = getCondition(d.status ?? {}, PROGRESSING);
    // Progress refreshes lastUpdateTime even under the same reason, which setCondition alone would not.
    if (current) {
      if (current.status === 'True') cond.lastTransitionTime = current.lastTransitionTime ?? null;
      removeCondition(s, PROGRESSING);
    }
    setCondition(s, cond);
  } else if (isTimedOut(d, s, nowMs)) {
    const msg = rn !== undefined ? messages.timedOut(rn) : messages.deploymentTimedOut(dn);
    setCondition(s, newCondition(PROGRESSING, 'False', reasons.progressDeadlineExceeded, msg, nowIso));
  }
}

/** getReplicaFailures: the new ReplicaSet's ReplicaFailure first, else any old one's. */
function replicaFailure(all: readonly ReplicaSet[], newRS: ReplicaSet | undefined): DeploymentCondition | undefined {
  for (const rs of newRS ? [newRS, ...all] : all) {
    const c = rs.status?.conditions?.find((x) => x.type === REPLICA_FAILURE);
    if (c) return { ...c, lastUpdateTime: c.lastTransitionTime ?? null };
  }
  return undefined;
}

/** syncRolloutStatus: the status after a rollout step, and when to look again for a stalled one (seconds). */
export function rolloutStatus(
  d: Deployment,
  all: readonly ReplicaSet[],
  newRS: ReplicaSet | undefined,
  nowMs: number,
  nowIso: string,
): { status: DeploymentStatus; requeueAfterSeconds?: number } {
  const s = calculateStatus(d, all, newRS, nowIso);
  if (!hasProgressDeadline(d)) removeCondition(s, PROGRESSING);
  const current = getCondition(d.status ?? {}, PROGRESSING);
  const complete = s.replicas === s.updatedReplicas && current?.reason === reasons.newReplicaSetAvailable;
  if (hasProgressDeadline(d) && !complete) progressCondition(d, s, newRS, nowMs, nowIso);
  const failure = replicaFailure(all, newRS);
  if (failure) setCondition(s, failure);
  else removeCondition(s, REPLICA_FAILURE);
  const out: { status: DeploymentStatus; requeueAfterSeconds?: number } = { status: s };
  const after = stuckRequeue(d, s, nowMs);
  if (after !== undefined) out.requeueAfterSeconds = after;
  return out;
}

/** requeueStuckDeployment: when the deadline of a rollout without progress falls, plus a second of slack. */
function stuckRequeue(d: Deployment, s: DeploymentStatus, nowMs: number): number | undefined {
  const current = getCondition(d.status ?? {}, PROGRESSING);
  if (!hasProgressDeadline(d) || !current) return undefined;
  if (isComplete(d, s) || current.reason === reasons.progressDeadlineExceeded) return undefined;
  const afterMs = (timeMs(current.lastUpdateTime) ?? 0) + progressDeadline(d) * 1000 - nowMs;
  return afterMs < 1000 ? 0 : Math.ceil(afterMs / 1000) + 1;
}

/**
 * getNewReplicaSet's answer to a create that failed: with a progress deadline, Progressing False
 * (ReplicaSetCreateError) with kube's message, to be written before the sync is retried; undefined without one.
 */
export function createFailedStatus(d: Deployment, message: string, nowIso: string): DeploymentStatus | undefined {
  if (!hasProgressDeadline(d)) return undefined;
  const status: DeploymentStatus = { ...(d.status ?? {}) };
  setCondition(status, newCondition(PROGRESSING, 'False', reasons.replicaSetCreateError, message, nowIso));
  return status;
}
