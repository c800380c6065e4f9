// What the StatefulSet controller does in one sync (k8s:pkg/controller/statefulset/stateful_set_control.go
// updateStatefulSet, processReplica, processCondemned, runForAll and the rolling update after them): the Pods
// `<set>-<start>…` it creates, the failed or finished ones it recreates, the Pods beyond the range it deletes from
// the highest ordinal, and the out-of-date one the rolling update replaces. OrderedReady (monotonic) does one step
// at a time and only while every lower Pod is Running, Ready and available; Parallel (burst) does all at once.
// Pure: the host lists, patches, creates and deletes, and keeps kube's expectations.

import { type StatefulSet } from '../../api/apps.js';
import { isPodAvailable, isPodReady, isTerminating, type PodView } from '../../api/pods.js';
import { claimBySelector } from '../workload/controllerref.js';
import type { PodToCreate } from '../workload/podtemplate.js';
import { slowStartBatches } from '../workload/slowstart.js';
import {
  desiredReplicas,
  identityLabels,
  identityMatches,
  isMemberOf,
  podOrdinal,
  podRevision,
  startOrdinal,
  versionedPod,
  type Revisions,
} from './identity.js';
import { logs } from './messages.js';

export interface StatefulSetSyncInput {
  set: StatefulSet;
  /** Every Pod in the set's namespace. */
  pods: readonly PodView[];
  revisions: Revisions;
  nowMs: number;
}

/** A replica's slot: the Pod listed for the ordinal, or the one to create there. */
export type Slot = { ordinal: number; pod: PodView } | { ordinal: number; create: PodToCreate };

export interface StatefulSetDecision {
  error?: string;
  adopt: PodView[];
  release: PodView[];
  /** Failed (or Succeeded) Pods deleted to be created again: kube's RecreatingFailedPod / RecreatingTerminatedPod. */
  recreate: PodView[];
  /** In order: the Pods to create, and for Parallel the slow-start batches to create them in. */
  create: PodToCreate[];
  batches: number[];
  /** Pods beyond the range, highest ordinal first. */
  delete: PodView[];
  /** The out-of-date Pod the rolling update deletes, to come back at the update revision. */
  deleteForUpdate?: PodView;
  /** Pods whose identity labels are missing or wrong: the labels to patch in. */
  relabel: { pod: PodView; labels: Record<string, string> }[];
  /** The slots in the range and the Pods beyond it, after this sync: what the status counts. */
  replicas: Slot[];
  condemned: PodView[];
}

/** isCreated: the API has given the Pod a phase. */
export const isCreated = (pod: PodView): boolean => (pod.status?.phase ?? '') !== '';
export const isRunningAndReady = (pod: PodView): boolean => pod.status?.phase === 'Running' && isPodReady(pod);
const isHealthy = (pod: PodView): boolean => isRunningAndReady(pod) && !isTerminating(pod);
export const isAvailable = (set: StatefulSet, pod: PodView, nowMs: number): boolean =>
  isRunningAndReady(pod) && isPodAvailable(pod, set.spec.minReadySeconds ?? 0, nowMs);
export const isMonotonic = (set: StatefulSet): boolean => set.spec.podManagementPolicy !== 'Parallel';

function empty(): StatefulSetDecision {
  const out = { adopt: [], release: [], recreate: [], create: [], batches: [], delete: [], relabel: [] };
  return { ...out, replicas: [], condemned: [] };
}

/** Splits the owned Pods into the range's slots (new Pods where none is) and the condemned beyond it. */
function partition(set: StatefulSet, pods: readonly PodView[], revisions: Revisions): [Slot[], PodView[]] {
  const start = startOrdinal(set);
  const count = desiredReplicas(set);
  const listed = new Map<number, PodView>();
  const condemned: PodView[] = [];
  for (const pod of pods) {
    const { ordinal } = podOrdinal(pod);
    if (ordinal >= start && ordinal < start + count) listed.set(ordinal, pod);
    else if (ordinal >= 0) condemned.push(pod);
  }
  const slots: Slot[] = [];
  for (let ordinal = start; ordinal < start + count; ordinal++) {
    const pod = listed.get(ordinal);
    slots.push(pod ? { ordinal, pod } : { ordinal, create: versionedPod(set, revisions, ordinal) });
  }
  condemned.sort((a, b) => podOrdinal(b).ordinal - podOrdinal(a).ordinal);
  return [slots, condemned];
}

export function decideStatefulSet(input: StatefulSetSyncInput): StatefulSetDecision {
  const { set } = input;
  const out = empty();
  const claiming = claimBySelector(
    set,
    input.pods,
    (why) => logs.badSelector(set.metadata.namespace ?? '', set.metadata.name ?? '', why),
    (pod) => isMemberOf(set, pod),
  );
  if ('error' in claiming) return { ...out, error: claiming.error };
  const { owner, claimed } = claiming;
  out.adopt = claimed.adopt;
  out.release = claimed.release;
  [out.replicas, out.condemned] = partition(set, claimed.owned, input.revisions);
  if (owner.deleting) return out;
  const firstUnhealthy = firstUnhealthyPod(out.replicas, out.condemned);
  if (processReplicas(input, out)) return finish(out);
  if (processCondemned(input, out, firstUnhealthy)) return finish(out);
  if ((set.spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate') rollingUpdate(set, input.revisions, out);
  return finish(out);
}

function finish(out: StatefulSetDecision): StatefulSetDecision {
  out.batches = slowStartBatches(out.create.length);
  return out;
}

/** The lowest replica that is not healthy (a slot still to create counts), else the lowest such condemned Pod. */
function firstUnhealthyPod(replicas: readonly Slot[], condemned: readonly PodView[]): PodView | undefined {
  for (const slot of replicas) {
    if (!('pod' in slot)) return undefined;
    if (!isHealthy(slot.pod)) return slot.pod;
  }
  return [...condemned].reverse().find((p) => !isHealthy(p));
}

/** processReplica over the range; true when a monotonic set must stop here. */
function processReplicas(input: StatefulSetSyncInput, out: StatefulSetDecision): boolean {
  const { set, revisions, nowMs } = input;
  const monotonic = isMonotonic(set);
  for (let i = 0; i < out.replicas.length; i++) {
    let slot = out.replicas[i]!;
    if ('pod' in slot && ['Failed', 'Succeeded'].includes(slot.pod.status?.phase ?? '')) {
      out.recreate.push(slot.pod);
      slot = { ordinal: slot.ordinal, create: versionedPod(set, revisions, slot.ordinal) };
      out.replicas[i] = slot;
    }
    if ('create' in slot) {
      out.create.push(slot.create);
      if (monotonic) return true;
      continue;
    }
    const pod = slot.pod;
    if (isTerminating(pod) && monotonic) return true;
    if (!isAvailable(set, pod, nowMs) && monotonic) return true;
    if (!identityMatches(set, pod)) out.relabel.push({ pod, labels: identityLabels(set, slot.ordinal) });
  }
  return false;
}

/** processCondemned, highest ordinal first; true when a monotonic set must stop here. */
function processCondemned(input: StatefulSetSyncInput, out: StatefulSetDecision, first: PodView | undefined): boolean {
  const monotonic = isMonotonic(input.set);
  for (const pod of out.condemned) {
    if (isTerminating(pod)) {
      if (monotonic) return true;
      continue;
    }
    if (monotonic && pod !== first && !isAvailable(input.set, pod, input.nowMs)) return true;
    out.delete.push(pod);
    if (monotonic) return true;
  }
  return false;
}

/** From the highest ordinal down to the partition: delete the first Pod not at the update revision, or wait. */
function rollingUpdate(set: StatefulSet, revisions: Revisions, out: StatefulSetDecision): void {
  const partitionOrdinal = set.spec.updateStrategy?.rollingUpdate?.partition ?? 0;
  for (let i = out.replicas.length - 1; i >= partitionOrdinal; i--) {
    const slot = out.replicas[i]!;
    if (!('pod' in slot)) return;
    if (podRevision(slot.pod) !== revisions.update && !isTerminating(slot.pod)) {
      out.deleteForUpdate = slot.pod;
      return;
    }
    if (!isHealthy(slot.pod)) return;
  }
}
