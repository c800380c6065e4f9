// A ReplicaSet's status after a sync (k8s:pkg/controller/replicaset/replica_set_utils.go calculateStatus):
// counts over the active Pods it owns, the ReplicaFailure condition while creates or deletes fail, and the
// generation it has seen.

import { type ReplicaSet, type ReplicaSetCondition, type ReplicaSetStatus } from '../../api/apps.js';
import { isPodAvailable, isPodReady, type PodView } from '../../api/pods.js';
import { matchesLabels, newLabelRequirement } from '../../api/selectors.js';
import { formatTime } from '../../util/clock.js';
import { desiredReplicas } from './decide.js';
import { FAILED_CREATE, FAILED_DELETE, REPLICA_FAILURE } from './messages.js';

/** Whether the Pod carries every label of the template (fullyLabeledReplicas). */
function fullyLabeled(rs: ReplicaSet, pod: PodView): boolean {
  const want = Object.entries(rs.spec.template?.metadata?.labels ?? {});
  return matchesLabels(
    want.map(([k, v]) => newLabelRequirement(k, '=', [v])),
    pod.metadata.labels,
  );
}

function withFailure(
  conditions: readonly ReplicaSetCondition[],
  failure: string | undefined,
  diff: number,
  nowIso: string,
): ReplicaSetCondition[] {
  const current = conditions.find((c) => c.type === REPLICA_FAILURE);
  if (failure !== undefined && current === undefined) {
    const reason = diff < 0 ? FAILED_CREATE : diff > 0 ? FAILED_DELETE : '';
    const cond: ReplicaSetCondition = { type: REPLICA_FAILURE, status: 'True', lastTransitionTime: nowIso, reason };
    cond.message = failure;
    return [...conditions, cond];
  }
  if (failure === undefined && current !== undefined) return conditions.filter((c) => c !== current);
  return [...conditions];
}

/**
 * The status to write: `active` are the Pods the sync worked with, `failure` the error of its creates or deletes
 * (kube's manageReplicasErr), if any.
 */
export function replicaSetStatus(
  rs: ReplicaSet,
  active: readonly PodView[],
  failure: string | undefined,
  nowMs: number,
): ReplicaSetStatus {
  const minReady = rs.spec.minReadySeconds ?? 0;
  const ready = active.filter(isPodReady);
  const status: ReplicaSetStatus = {
    replicas: active.length,
    fullyLabeledReplicas: active.filter((p) => fullyLabeled(rs, p)).length,
    readyReplicas: ready.length,
    availableReplicas: ready.filter((p) => isPodAvailable(p, minReady, nowMs)).length,
    observedGeneration: rs.metadata.generation ?? 0,
  };
  const diff = active.length - desiredReplicas(rs);
  const conditions = withFailure(rs.status?.conditions ?? [], failure, diff, formatTime(new Date(nowMs)));
  if (conditions.length > 0) status.conditions = conditions;
  return status;
}

/**
 * When to sync again although nothing changes: all Pods ready but not all yet available, after minReadySeconds
 * (kube requeues then so availableReplicas catches up). Undefined when no such wait is due.
 */
export function requeueAfterSeconds(
  rs: ReplicaSet,
  status: ReplicaSetStatus,
  failure: string | undefined,
): number | undefined {
  const minReady = rs.spec.minReadySeconds ?? 0;
  const want = desiredReplicas(rs);
  if (failure !== undefined || minReady <= 0) return undefined;
  return status.readyReplicas === want && status.availableReplicas !== want ? minReady : undefined;
}
