// What `kubectl rollout status statefulset/<name>` prints (kubectl:pkg/polymorphichelpers/rollout_status.go
// StatefulSetStatusViewer): RollingUpdate only; once the spec is observed, waiting for every replica to be
// ready, then, with a rollingUpdate block (the apiserver always defaults one), for the Pods from the partition up
// to be updated; without one, for the update revision to become the current one.

import type { StatefulSet } from '../../api/apps.js';
import type { RolloutStatusLine } from '../deployment/rolloutstatus.js';
import { rolloutStatus as text } from './messages.js';

export function statefulSetRolloutStatusMessage(set: StatefulSet): RolloutStatusLine {
  const strategy = set.spec.updateStrategy ?? { type: 'RollingUpdate', rollingUpdate: { partition: 0 } };
  if ((strategy.type ?? 'RollingUpdate') !== 'RollingUpdate') {
    return { message: '', done: true, error: text.onlyRollingUpdate };
  }
  const s = set.status;
  const observed = s?.observedGeneration ?? 0;
  if (observed === 0 || (set.metadata.generation ?? 0) > observed) return { message: text.specUpdate, done: false };
  const replicas = set.spec.replicas;
  const ready = s?.readyReplicas ?? 0;
  if (replicas !== undefined && ready < replicas) return { message: text.ready(replicas - ready), done: false };
  const updated = s?.updatedReplicas ?? 0;
  if (strategy.rollingUpdate) {
    const partition = strategy.rollingUpdate.partition;
    if (replicas !== undefined && partition !== undefined && updated < replicas - partition) {
      return { message: text.partitioned(updated, replicas - partition), done: false };
    }
    return { message: text.partitionedDone(updated), done: true };
  }
  if (s?.updateRevision !== s?.currentRevision) {
    return { message: text.rolling(updated, s?.updateRevision ?? ''), done: false };
  }
  return { message: text.done(s?.currentReplicas ?? 0, s?.currentRevision ?? ''), done: true };
}
