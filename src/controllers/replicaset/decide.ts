// What the ReplicaSet controller does in one sync (k8s:pkg/controller/replicaset/replica_set.go syncReplicaSet and
// manageReplicas), from the ReplicaSet and the Pods of its namespace: which orphans it adopts and which Pods it
// releases, how many Pods it creates (at most a burst of 500 a sync, in slow-start batches) or which it deletes.
// Pure: the host lists, patches, creates and deletes, and keeps kube's expectations (no second sync acts before
// the first one's creates and deletes are seen).

import { type ReplicaSet } from '../../api/apps.js';
import { isPodActive, type PodView } from '../../api/pods.js';
import { claimBySelector, newControllerRef } from '../workload/controllerref.js';
import { podFromTemplate, type PodToCreate } from '../workload/podtemplate.js';
import { slowStartBatches } from '../workload/slowstart.js';
import { logs } from './messages.js';
import { podsToDelete } from './rank.js';

/** replicaset.BurstReplicas: the most Pods one sync creates or deletes. */
export const BURST_REPLICAS = 500;

export interface ReplicaSetSyncInput {
  rs: ReplicaSet;
  /** Every Pod in the ReplicaSet's namespace. */
  pods: readonly PodView[];
  /** The Pods of every ReplicaSet with the same controller, this one's included; defaults to this one's. */
  relatedPods?: readonly PodView[];
  nowMs: number;
}

export interface ReplicaSetDecision {
  /** Set when the selector cannot be read: nothing else is done (kube logs it and waits for an update). */
  error?: string;
  adopt: PodView[];
  release: PodView[];
  /** The active Pods the ReplicaSet owns once it has adopted and released: what its status counts. */
  active: PodView[];
  /** How many Pods to create, and the slow-start batches to create them in. */
  create: number;
  batches: number[];
  delete: PodView[];
}

const nothing = (): ReplicaSetDecision => ({ adopt: [], release: [], active: [], create: 0, batches: [], delete: [] });

export const desiredReplicas = (rs: ReplicaSet): number => rs.spec.replicas ?? 1;

export function decideReplicaSet(input: ReplicaSetSyncInput): ReplicaSetDecision {
  const { rs } = input;
  const claiming = claimBySelector(rs, input.pods.filter(isPodActive), (why) =>
    logs.badSelector(rs.metadata.namespace ?? '', rs.metadata.name ?? '', why),
  );
  if ('error' in claiming) return { ...nothing(), error: claiming.error };
  const { owner, claimed } = claiming;
  const out: ReplicaSetDecision = { ...nothing(), adopt: claimed.adopt, release: claimed.release };
  out.active = claimed.owned;
  if (owner.deleting) return out;
  const diff = claimed.owned.length - desiredReplicas(rs);
  if (diff < 0) {
    out.create = Math.min(-diff, BURST_REPLICAS);
    out.batches = slowStartBatches(out.create);
  } else if (diff > 0) {
    const related = input.relatedPods ?? claimed.owned;
    out.delete = podsToDelete(claimed.owned, related, Math.min(diff, BURST_REPLICAS), input.nowMs);
  }
  return out;
}

/** The Pod each create sends. */
export function replicaSetPod(rs: ReplicaSet): PodToCreate {
  const ref = newControllerRef('apps/v1', 'ReplicaSet', rs);
  return podFromTemplate(rs.spec.template ?? {}, rs.metadata.name ?? '', rs.metadata.namespace ?? '', ref);
}
