// The ReplicaSet controller's loop (kube-controller-manager's replicaset controller): informers on ReplicaSets and
// Pods; a ReplicaSet is queued when it changes and when a Pod it owns or could adopt comes, changes or goes. A sync
// takes ./decide.ts's decision: adopts and releases, then — only when the last sync's creates and deletes have all
// been seen (../workload/expectations.ts) — creates Pods from the template in slow-start batches or deletes the
// lowest-ranked, with kube's events, and writes the status through the status subresource.

import { type ReplicaSet } from '../../api/apps.js';
import { controllerOf } from '../../api/pods.js';
import { deepEqual } from '../../api/equal.js';
import type { KubeObject } from '../../client/index.js';
import { objectKey } from '../../client/informer.js';
import type { InformerLike } from '../../client/sharedinformers.js';
import { klog } from '../../util/klog.js';
import { podPath, type PodControllerOptions, type PodObject } from '../podinformers.js';
import { QueuedController, referenceTo } from '../queuedcontroller.js';
import { writeClaim } from '../workload/adoption.js';
import { Expectations } from '../workload/expectations.js';
import { followPods } from '../workload/followpods.js';
import { PodControl } from '../workload/podcontrol.js';
import type { PodToCreate } from '../workload/podtemplate.js';
import { decideReplicaSet, replicaSetPod, type ReplicaSetDecision } from './decide.js';
import { events, texts } from './messages.js';
import { replicaSetStatus, requeueAfterSeconds } from './status.js';

type ReplicaSetObject = ReplicaSet & KubeObject;

export const REPLICASETS_PATH = '/apis/apps/v1/replicasets';
const rsPath = (ns: string, name: string): string => `/apis/apps/v1/namespaces/${ns}/replicasets/${name}`;

export type ReplicaSetControllerOptions = PodControllerOptions;

export class ReplicaSetController extends QueuedController {
  private readonly rss: InformerLike<ReplicaSetObject>;
  private readonly pods: InformerLike<PodObject>;
  private readonly expectations: Expectations;
  private readonly podControl: PodControl;

  constructor(o: ReplicaSetControllerOptions) {
    super(o, { component: events.component, syncFailed: texts.syncFailed });
    this.rss = this.informer<ReplicaSetObject>(REPLICASETS_PATH);
    this.pods = this.informer<PodObject>('/api/v1/pods');
    this.expectations = new Expectations(o.clock);
    this.podControl = new PodControl(o.client, this.expectations, (...e) => this.event(...e));
    this.rss.on('add', (rs) => this.queue.add(objectKey(rs)));
    this.rss.on('update', (_old, rs) => this.queue.add(objectKey(rs)));
    this.rss.on('delete', (rs) => this.expectations.forget(objectKey(rs)));
    followPods(this.pods, {
      kind: 'ReplicaSet',
      owners: this.rss.store,
      queue: this.queue,
      expectations: this.expectations,
    });
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

  protected async sync(key: string): Promise<void> {
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
    if (!deepEqual(rs.status ?? {}, status))
      await this.updateStatus(rsPath(ns, rs.metadata.name ?? ''), {
        ...rs,
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        status,
      });
    const after = requeueAfterSeconds(rs, status, failure);
    if (after !== undefined) this.queue.addAfter(key, after * 1000);
    if (failure !== undefined) throw new Error(failure);
  }

  private async claim(rs: ReplicaSetObject, d: ReplicaSetDecision): Promise<void> {
    const { namespace = '', name = '' } = rs.metadata;
    await writeClaim(
      this.o.client,
      { kind: 'ReplicaSet', path: rsPath(namespace, name), object: rs },
      { adopt: d.adopt, release: d.release, pathOf: (p) => podPath(p as PodObject) },
    );
  }

  /** The creates or deletes of the decision; the first failure's message, if any (kube's manageReplicasErr). */
  private async manage(key: string, rs: ReplicaSetObject, d: ReplicaSetDecision): Promise<string | undefined> {
    const target = { key, ref: referenceTo('apps/v1', 'ReplicaSet', rs) };
    const pod = replicaSetPod(rs);
    if (d.create > 0) return this.podControl.create(target, Array<PodToCreate>(d.create).fill(pod), d.batches);
    if (d.delete.length > 0) return this.podControl.delete(target, d.delete);
    return undefined;
  }
}
