// A StatefulSet's status after a sync (k8s:pkg/controller/statefulset/stateful_set_control.go updateStatus,
// computeReplicaStatus, completeRollingUpdate): counts over the Pods in the range and beyond it, the revisions,
// and, once every Pod is updated and ready under RollingUpdate, the update revision becoming the current one.

import { type StatefulSet, type StatefulSetStatus } from '../../api/apps.js';
import { isTerminating } from '../../api/pods.js';
import { isAvailable, isCreated, isRunningAndReady, type StatefulSetDecision } from './decide.js';
import { desiredReplicas, podRevision, type Revisions } from './identity.js';

export function statefulSetStatus(
  set: StatefulSet,
  decision: Pick<StatefulSetDecision, 'replicas' | 'condemned' | 'deleteForUpdate'>,
  revisions: Revisions,
  nowMs: number,
): StatefulSetStatus {
  const n = { replicas: 0, readyReplicas: 0, currentReplicas: 0, updatedReplicas: 0, availableReplicas: 0 };
  const listed = decision.replicas.flatMap((slot) => ('pod' in slot ? [slot.pod] : []));
  for (const pod of [...listed, ...decision.condemned]) {
    if (!isCreated(pod)) continue;
    n.replicas++;
    if (isRunningAndReady(pod)) {
      n.readyReplicas++;
      if (isAvailable(set, pod, nowMs)) n.availableReplicas++;
    }
    if (isTerminating(pod)) continue;
    if (podRevision(pod) === revisions.current.name) n.currentReplicas++;
    if (podRevision(pod) === revisions.update) n.updatedReplicas++;
  }
  if (decision.deleteForUpdate !== undefined) n.currentReplicas--;
  const s: StatefulSetStatus = {
    observedGeneration: set.metadata.generation ?? 0,
    replicas: n.replicas,
    readyReplicas: n.readyReplicas,
    currentReplicas: n.currentReplicas,
    updatedReplicas: n.updatedReplicas,
    currentRevision: revisions.current.name,
    updateRevision: revisions.update,
    collisionCount: set.status?.collisionCount ?? 0,
    availableReplicas: n.availableReplicas,
  };
  const rollingUpdate = (set.spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
  if (rollingUpdate && s.updatedReplicas === s.replicas && s.readyReplicas === s.replicas) {
    s.currentReplicas = s.updatedReplicas;
    s.currentRevision = revisions.update;
  }
  return s;
}

/** Sync again after minReadySeconds while not every desired Pod is available. */
export function requeueAfterSeconds(set: StatefulSet, status: StatefulSetStatus): number | undefined {
  const minReady = set.spec.minReadySeconds ?? 0;
  return minReady > 0 && status.availableReplicas !== desiredReplicas(set) ? minReady : undefined;
}
