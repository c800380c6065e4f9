// The ReplicaSet controller's loop (kube-controller-manager's replicaset controller): informers on ReplicaSets and
// Pods; a ReplicaSet is queued when it changes and when a Pod it owns or could adopt comes, changes or goes. A sync
// takes ./decide.ts's decision: adopts and releases, then — only when the last sync's creates and deletes have all
// been seen (../workload/expectations.ts) — creates Pods from the template in slow-start batches or deletes the
// lowest-ranked, with kube's events, and writes the status through the status subresource.

import { controllerOf, isPodReady, type PodView, type ReplicaSet } from '../../api/apps.js';
import { deepEqual } from '../../api/equal.js';
import type { KubeObject } from '../../client/index.js';
import { isApiError } from '../../client/index.js';
import { controllerEventRecorder, type EventRecorder } from '../../client/events.js';
import { objectKey } from '../../client/informer.js';
import { SharedInformerFactory, type InformerLike } from '../../client/sharedinformers.js';
import { errorMessage } from '../../util/errors.js';
import { klog } from '../../util/klog.js';
import { podPath, type PodControllerOptions, type PodObject } from '../podinformers.js';
import { SyncWorker } from '../syncworker.js';
import type { RunningController } from '../types.js';
import { syncedOrAborted } from '../waitsynced.js';
import { recheckOwner, writeClaim } from '../workload/adoption.js';
import { newControllerRef } from '../workload/controllerref.js';
import { Expectations } from '../workload/expectations.js';
import { resolveControllerRef, selectingControllers } from '../workload/lookup.js';
import { decideReplicaSet, replicaSetPod, type ReplicaSetDecision } from './decide.js';
import { events, texts } from './messages.js';
import { replicaSetStatus, requeueAfterSeconds } from './status.js';

type ReplicaSetObject = ReplicaSet & KubeObject;

export const REPLICASETS_PATH = '/apis/apps/v1/replicasets';
const rsPath = (ns: string, name: string): string => `/apis/apps/v1/namespaces/${ns}/replicasets/${name}`;

export type ReplicaSetControllerOptions = PodControllerOptions;

export class ReplicaSetController implements RunningController {
  private readonly o: ReplicaSetControllerOptions;
  private readonly rss: InformerLike<ReplicaSetObject>;
  private readonly pods: InformerLike<PodObject>;
  private readonly own: SharedInformerFactory | undefined;
  private readonly queue: SyncWorker;
  private readonly expectations: Expectations;
  private readonly recorder: EventRecorder;
  private stopped = false;

  constructor(o: ReplicaSetControllerOptions) {
    this.o = o;
    this.own = o.informers ? undefined : new SharedInformerFactory(o.client, { clock: o.clock });
    const informers = o.informers ?? this.own!;
    this.rss = informers.informer<ReplicaSetObject>(REPLICASETS_PATH);
    this.pods = informers.informer<PodObject>('/api/v1/pods');
    this.queue = new SyncWorker(
      o.clock,
      (key) => this.sync(key),
      (key, err) => klog.error(texts.syncFailed(key, errorMessage(err))),
    );
    this.expectations = new Expectations(o.clock);
    this.recorder = controllerEventRecorder(o.client, events.component, o.clock);
    this.rss.on('add', (rs) => this.queue.add(objectKey(rs)));
    this.rss.on('update', (_old, rs) => this.queue.add(objectKey(rs)));
    this.rss.on('delete', (rs) => this.expectations.forget(objectKey(rs)));
    this.pods.on('add', (p) => this.podAdded(p));
    this.pods.on('update', (old, p) => this.podUpdated(old, p));
    this.pods.on('delete', (p) => this.podDeleted(p));
    if (o.signal.aborted) this.stopped = true;
    else o.signal.addEventListener('abort', () => void this.stop(), { once: true });
  }

  async start(): Promise<void> {
    if (this.stopped) return;
    this.rss.start();
    this.pods.start();
    if (!(await syncedOrAborted(this.o.signal, this.rss, this.pods)) || this.stopped) return;
    this.queue.start();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.rss.stop();
    await this.pods.stop();
    await this.queue.stop();
    await this.recorder.stop();
    await this.own?.stop();
  }

  private ownerOf(p: PodView): ReplicaSetObject | undefined {
    return resolveControllerRef(this.rss.store, p.metadata.namespace ?? '', controllerOf(p.metadata), 'ReplicaSet');
  }

  private enqueueSelecting(p: PodView): void {
    for (const rs of selectingControllers(this.rss.store, p.metadata.namespace ?? '', p.metadata.labels))
      this.queue.add(objectKey(rs));
  }

  private podAdded(p: PodObject): void {
    if (p.metadata.deletionTimestamp) return this.podDeleted(p);
    const rs = controllerOf(p.metadata) ? this.ownerOf(p) : undefined;
    if (rs) {
      this.expectations.creationObserved(objectKey(rs));
      this.queue.add(objectKey(rs));
    } else if (!controllerOf(p.metadata)) this.enqueueSelecting(p);
  }

  private podUpdated(old: PodObject, cur: PodObject): void {
    if (old.metadata.resourceVersion === cur.metadata.resourceVersion) return;
    const labelsChanged = !deepEqual(old.metadata.labels ?? {}, cur.metadata.labels ?? {});
    if (cur.metadata.deletionTimestamp) {
      this.podDeleted(cur);
      if (labelsChanged) this.podDeleted(old);
      return;
    }
    const oldRef = controllerOf(old.metadata);
    const curRef = controllerOf(cur.metadata);
    const refChanged = !deepEqual(oldRef ?? null, curRef ?? null);
    const oldRs = refChanged && oldRef ? this.ownerOf(old) : undefined;
    if (oldRs) this.queue.add(objectKey(oldRs));
    if (curRef) {
      const rs = this.ownerOf(cur);
      if (!rs) return;
      this.queue.add(objectKey(rs));
      // Ready now: looked at again once minReadySeconds have passed, when it counts as available.
      const minReady = rs.spec.minReadySeconds ?? 0;
      if (!isPodReady(old) && isPodReady(cur) && minReady > 0) this.queue.addAfter(objectKey(rs), minReady * 1000 + 1);
      return;
    }
    if (labelsChanged || refChanged) this.enqueueSelecting(cur);
  }

  private podDeleted(p: PodObject): void {
    const rs = this.ownerOf(p);
    if (!rs) return;
    this.expectations.deletionObserved(objectKey(rs), objectKey(p));
    this.queue.add(objectKey(rs));
  }

  /** The Pods of every ReplicaSet with the same controller as `rs` (the ranking's related Pods). */
  private relatedPods(rs: ReplicaSetObject, pods: readonly PodObject[]): PodObject[] {
    const ref = controllerOf(rs.metadata);
    const uids = new Set(
      ref
        ? this.rss.store
            .list()
            .filter((r) => r.metadata.namespace === rs.metadata.namespace && controllerOf(r.metadata)?.uid === ref.uid)
            .map((r) => r.metadata.uid ?? '')
        : [rs.metadata.uid ?? ''],
    );
    return pods.filter((p) => uids.has(controllerOf(p.metadata)?.uid ?? ''));
  }

  private async sync(key: string): Promise<void> {
    const rs = this.rss.store.get(key);
    if (!rs) return this.expectations.forget(key);
    const needsSync = this.expectations.satisfied(key);
    const ns = rs.metadata.namespace ?? '';
    const pods = this.pods.store.list().filter((p) => p.metadata.namespace === ns);
    const nowMs = this.o.clock.now().getTime();
    const decision = decideReplicaSet({ rs, pods, relatedPods: this.relatedPods(rs, pods), nowMs });
    if (decision.error !== undefined) return klog.error(decision.error);
    await this.claim(rs, decision);
    const failure = needsSync && !rs.metadata.deletionTimestamp ? await this.manage(key, rs, decision) : undefined;
    const status = replicaSetStatus(rs, decision.active, failure, nowMs);
    if (!deepEqual(rs.status ?? {}, status)) await this.writeStatus(rs, status);
    const after = requeueAfterSeconds(rs, status, failure);
    if (after !== undefined) this.queue.addAfter(key, after * 1000);
    if (failure !== undefined) throw new Error(failure);
  }

  private async claim(rs: ReplicaSetObject, d: ReplicaSetDecision): Promise<void> {
    const { namespace = '', name = '', uid = '' } = rs.metadata;
    if (d.adopt.length > 0)
      await recheckOwner(this.o.client, rsPath(namespace, name), uid, {
        gone: (got) => texts.gone(namespace, name, got, uid),
        deleting: (at) => texts.justDeleted(namespace, name, at),
      });
    const ref = newControllerRef('apps/v1', 'ReplicaSet', rs);
    await writeClaim(this.o.client, ref, {
      adopt: d.adopt,
      release: d.release,
      pathOf: (p) => podPath(p as PodObject),
    });
  }

  /** The creates or deletes of the decision; the first failure's message, if any (kube's manageReplicasErr). */
  private async manage(key: string, rs: ReplicaSetObject, d: ReplicaSetDecision): Promise<string | undefined> {
    if (d.create > 0) return this.create(key, rs, d.batches);
    if (d.delete.length > 0) return this.delete(key, rs, d.delete);
    return undefined;
  }

  private async create(key: string, rs: ReplicaSetObject, batches: readonly number[]): Promise<string | undefined> {
    const total = batches.reduce((a, b) => a + b, 0);
    this.expectations.expect(key, total);
    const pod = replicaSetPod(rs);
    const path = `/api/v1/namespaces/${rs.metadata.namespace ?? ''}/pods`;
    let sent = 0;
    for (const size of batches) {
      const results = await Promise.allSettled(
        Array.from({ length: size }, () => this.o.client.create<PodObject>(path, pod)),
      );
      sent += size;
      let failure: string | undefined;
      for (const r of results) {
        if (r.status === 'fulfilled')
          this.event(rs, 'Normal', events.successfulCreate, events.created(r.value.metadata.name ?? ''));
        else {
          failure ??= errorMessage(r.reason);
          this.expectations.creationObserved(key);
          this.event(rs, 'Warning', events.failedCreate, events.createError(errorMessage(r.reason)));
        }
      }
      if (failure !== undefined) {
        this.expectations.creationObserved(key, total - sent);
        return failure;
      }
    }
    return undefined;
  }

  private async delete(key: string, rs: ReplicaSetObject, pods: readonly PodView[]): Promise<string | undefined> {
    this.expectations.expect(
      key,
      0,
      pods.map((p) => objectKey(p as PodObject)),
    );
    let failure: string | undefined;
    await Promise.all(
      pods.map(async (p) => {
        const name = p.metadata.name ?? '';
        try {
          await this.o.client.delete(podPath(p as PodObject));
          this.event(rs, 'Normal', events.successfulDelete, events.deleted(name));
        } catch (err) {
          this.expectations.deletionObserved(key, objectKey(p as PodObject));
          if (isApiError(err, 404)) return;
          failure ??= errorMessage(err);
          this.event(rs, 'Warning', events.failedDelete, events.deleteError(errorMessage(err)));
        }
      }),
    );
    return failure;
  }

  private async writeStatus(rs: ReplicaSetObject, status: ReplicaSet['status']): Promise<void> {
    const { namespace = '', name = '' } = rs.metadata;
    const body = { ...rs, apiVersion: 'apps/v1', kind: 'ReplicaSet', status };
    try {
      await this.o.client.update(`${rsPath(namespace, name)}/status`, body);
    } catch (err) {
      if (!isApiError(err, 404)) throw err;
    }
  }

  private event(rs: ReplicaSetObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    const { namespace = '', name = '', uid = '' } = rs.metadata;
    this.recorder.record({ apiVersion: 'apps/v1', kind: 'ReplicaSet', namespace, name, uid }, type, reason, message);
  }
}
