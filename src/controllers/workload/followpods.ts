// How a workload controller follows Pods (kube's addPod, updatePod and deletePod of the ReplicaSet, DaemonSet and
// StatefulSet controllers): a Pod's owner, the controller its controllerRef names, is queued when the Pod comes,
// changes or goes — its creation and deletion counted against the owner's expectations, where it keeps them — and
// looked at again once minReadySeconds after it turns Ready; an orphan queues every controller whose selector matches
// it, to be adopted. A Pod being deleted counts as gone.

import { type LabelSelector } from '../../api/apps.js';
import { controllerOf, isPodReady, type PodView } from '../../api/pods.js';
import { deepEqual } from '../../api/equal.js';
import type { KubeObject } from '../../client/index.js';
import { objectKey, type InformerStore } from '../../client/informer.js';
import type { InformerLike } from '../../client/sharedinformers.js';
import type { PodObject } from '../podinformers.js';
import type { Expectations } from './expectations.js';
import { resolveControllerRef, selectingControllers } from './lookup.js';

type Owner = KubeObject & {
  metadata: { uid?: string; namespace?: string; name?: string };
  spec: { selector: LabelSelector; minReadySeconds?: number };
};

export interface PodFollowing<T extends Owner> {
  /** The owners' kind (apps/v1) and their informer's store. */
  kind: string;
  owners: InformerStore<T>;
  queue: { add(key: string): void; addAfter(key: string, ms: number): void };
  expectations?: Expectations;
}

/** Registers the handlers on `pods`; returns the lookup of a Pod's owner. */
export function followPods<T extends Owner>(
  pods: InformerLike<PodObject>,
  f: PodFollowing<T>,
): (p: PodView) => T | undefined {
  const ownerOf = (p: PodView): T | undefined =>
    resolveControllerRef(f.owners, p.metadata.namespace ?? '', controllerOf(p.metadata), f.kind);
  const enqueueSelecting = (p: PodView): void => {
    for (const o of selectingControllers(f.owners, p.metadata.namespace ?? '', p.metadata.labels))
      f.queue.add(objectKey(o));
  };
  const deleted = (p: PodObject): void => {
    const owner = ownerOf(p);
    if (!owner) return;
    f.expectations?.deletionObserved(objectKey(owner), objectKey(p));
    f.queue.add(objectKey(owner));
  };
  pods.on('add', (p) => {
    if (p.metadata.deletionTimestamp) return deleted(p);
    const owner = controllerOf(p.metadata) ? ownerOf(p) : undefined;
    if (owner) {
      f.expectations?.creationObserved(objectKey(owner));
      f.queue.add(objectKey(owner));
    } else if (!controllerOf(p.metadata)) enqueueSelecting(p);
  });
  pods.on('update', (old, cur) => updated(old, cur, { ownerOf, enqueueSelecting, deleted, queue: f.queue }));
  pods.on('delete', deleted);
  return ownerOf;
}

interface Handlers<T extends Owner> {
  ownerOf(p: PodView): T | undefined;
  enqueueSelecting(p: PodView): void;
  deleted(p: PodObject): void;
  queue: PodFollowing<T>['queue'];
}

function updated<T extends Owner>(old: PodObject, cur: PodObject, h: Handlers<T>): void {
  if (old.metadata.resourceVersion === cur.metadata.resourceVersion) return;
  const labelsChanged = !deepEqual(old.metadata.labels ?? {}, cur.metadata.labels ?? {});
  if (cur.metadata.deletionTimestamp) {
    h.deleted(cur);
    if (labelsChanged) h.deleted(old);
    return;
  }
  const oldRef = controllerOf(old.metadata);
  const curRef = controllerOf(cur.metadata);
  const refChanged = !deepEqual(oldRef ?? null, curRef ?? null);
  const oldOwner = refChanged && oldRef ? h.ownerOf(old) : undefined;
  if (oldOwner) h.queue.add(objectKey(oldOwner));
  if (curRef) {
    const owner = h.ownerOf(cur);
    if (!owner) return;
    h.queue.add(objectKey(owner));
    const minReady = owner.spec.minReadySeconds ?? 0;
    if (!isPodReady(old) && isPodReady(cur) && minReady > 0) h.queue.addAfter(objectKey(owner), minReady * 1000 + 1);
    return;
  }
  if (labelsChanged || refChanged) h.enqueueSelecting(cur);
}
