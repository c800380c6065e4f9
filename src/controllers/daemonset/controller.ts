// The DaemonSet controller's loop (kube-controller-manager's daemonset controller): informers on DaemonSets, Nodes
// and Pods; a DaemonSet is queued when it changes, when a Pod it owns or could adopt comes, changes or goes, and when
// a node comes, goes or changes where daemon Pods belong. A sync takes ./decide.ts's decision: adopts and releases,
// then — only when the last sync's creates and deletes have all been seen — creates the daemon Pods (each bound to
// its node by a required node affinity the scheduler honours) and deletes the misscheduled, failed, duplicate and
// out-of-date ones, and writes the status through the status subresource. The Pods carry the template's hash in
// controller-revision-hash; no decision reads a revision's history, so no ControllerRevision is written.

import type { DaemonSet } from '../../api/apps.js';
import { deepEqual } from '../../api/equal.js';
import type { KubeObject } from '../../client/index.js';
import { objectKey } from '../../client/informer.js';
import type { InformerLike } from '../../client/sharedinformers.js';
import { klog } from '../../util/klog.js';
import { podPath, type NodeObject, type PodControllerOptions, type PodObject } from '../podinformers.js';
import { QueuedController, referenceTo } from '../queuedcontroller.js';
import { writeClaim } from '../workload/adoption.js';
import { Expectations } from '../workload/expectations.js';
import { followPods } from '../workload/followpods.js';
import { PodControl, podObjectKey, type PodControlTarget } from '../workload/podcontrol.js';
import { failedPodBackoffKey, FailedPodBackoff } from './backoff.js';
import { decideDaemonSet, type DaemonSetDecision } from './decide.js';
import { events, FAILED_DAEMON_POD, texts } from './messages.js';
import { nodeShouldRunDaemonPod } from './placement.js';
import { daemonPodFor, revisionHash } from './pod.js';
import { daemonSetStatus, requeueAfterSeconds } from './status.js';

type DaemonSetObject = DaemonSet & KubeObject;

export const DAEMONSETS_PATH = '/apis/apps/v1/daemonsets';
const dsPath = (ns: string, name: string): string => `/apis/apps/v1/namespaces/${ns}/daemonsets/${name}`;

export type DaemonSetControllerOptions = PodControllerOptions;

export class DaemonSetController extends QueuedController {
  private readonly dss: InformerLike<DaemonSetObject>;
  private readonly nodes: InformerLike<NodeObject>;
  private readonly pods: InformerLike<PodObject>;
  private readonly expectations: Expectations;
  private readonly backoff = new FailedPodBackoff();
  private readonly podControl: PodControl;

  constructor(o: DaemonSetControllerOptions) {
    super(o, { component: events.component, syncFailed: texts.syncFailed });
    this.dss = this.informer<DaemonSetObject>(DAEMONSETS_PATH);
    this.nodes = this.informer<NodeObject>('/api/v1/nodes');
    this.pods = this.informer<PodObject>('/api/v1/pods');
    this.expectations = new Expectations(o.clock);
    this.podControl = new PodControl(o.client, this.expectations, (...e) => this.event(...e));
    this.dss.on('add', (ds) => this.queue.add(objectKey(ds)));
    this.dss.on('update', (_old, ds) => this.queue.add(objectKey(ds)));
    this.dss.on('delete', (ds) => this.expectations.forget(objectKey(ds)));
    this.nodes.on('add', () => this.enqueueAll());
    this.nodes.on('update', (old, cur) => this.nodeUpdated(old, cur));
    this.nodes.on('delete', () => this.enqueueAll());
    followPods(this.pods, {
      kind: 'DaemonSet',
      owners: this.dss.store,
      queue: this.queue,
      expectations: this.expectations,
    });
  }

  private enqueueAll(): void {
    for (const ds of this.dss.store.list()) this.queue.add(objectKey(ds));
  }

  /** Only the DaemonSets whose placement on the node changes (kube's updateNode). */
  private nodeUpdated(old: NodeObject, cur: NodeObject): void {
    if (deepEqual(old.metadata.labels ?? {}, cur.metadata.labels ?? {}) && deepEqual(old.spec ?? {}, cur.spec ?? {}))
      return;
    for (const ds of this.dss.store.list()) {
      const before = nodeShouldRunDaemonPod(old, ds.spec.template);
      const after = nodeShouldRunDaemonPod(cur, ds.spec.template);
      if (!deepEqual(before, after)) this.queue.add(objectKey(ds));
    }
  }

  protected async sync(key: string): Promise<void> {
    const ds = this.dss.store.get(key);
    if (!ds) return this.expectations.forget(key);
    const ns = ds.metadata.namespace ?? '';
    const nodes = this.nodes.store.list();
    const pods = this.pods.store.list().filter((p) => p.metadata.namespace === ns);
    const hash = revisionHash(ds);
    const nowMs = this.o.clock.now().getTime();
    const uid = ds.metadata.uid ?? '';
    const failedBackoff = new Set(
      nodes.map((n) => n.metadata.name ?? '').filter((n) => this.backoff.inBackoff(failedPodBackoffKey(uid, n), nowMs)),
    );
    const needsSync = this.expectations.satisfied(key);
    const decision = decideDaemonSet({ ds, nodes, pods, hash, nowMs, failedBackoff });
    for (const note of decision.notes) klog.info(note);
    if (decision.error !== undefined) return klog.error(decision.error);
    if (ds.metadata.deletionTimestamp) return;
    await this.claim(ds, decision);
    const failure = needsSync ? await this.manage(key, ds, hash, decision) : undefined;
    const status = daemonSetStatus(ds, nodes, decision.byNode, hash, nowMs);
    if (!deepEqual(ds.status ?? {}, status))
      await this.updateStatus(dsPath(ns, ds.metadata.name ?? ''), {
        ...ds,
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        status,
      });
    this.requeue(key, ds, decision, status);
    if (failure !== undefined) throw new Error(failure);
  }

  private requeue(key: string, ds: DaemonSetObject, d: DaemonSetDecision, status: DaemonSet['status']): void {
    const after = status ? requeueAfterSeconds(ds, status) : undefined;
    if (after !== undefined) this.queue.addAfter(key, after * 1000);
    for (const node of d.backingOff)
      this.queue.addAfter(key, this.backoff.delayMs(failedPodBackoffKey(ds.metadata.uid ?? '', node)));
  }

  private async claim(ds: DaemonSetObject, d: DaemonSetDecision): Promise<void> {
    const { namespace = '', name = '' } = ds.metadata;
    await writeClaim(
      this.o.client,
      { kind: 'DaemonSet', path: dsPath(namespace, name), object: ds },
      { adopt: d.adopt, release: d.release, pathOf: (p) => podPath(p as PodObject) },
    );
  }

  /** syncNodes: the deletes and the creates of the decision; the first failure's message, if any. */
  private async manage(
    key: string,
    ds: DaemonSetObject,
    hash: string,
    d: DaemonSetDecision,
  ): Promise<string | undefined> {
    const { namespace = '', uid = '' } = ds.metadata;
    const target: PodControlTarget = { key, ref: referenceTo('apps/v1', 'DaemonSet', ds) };
    const nowMs = this.o.clock.now().getTime();
    for (const { pod, node } of d.failed) {
      this.backoff.next(failedPodBackoffKey(uid, node), nowMs);
      const message = events.failedPod(namespace, pod.metadata.name ?? '', node);
      klog.info(message);
      this.event(target.ref, 'Warning', FAILED_DAEMON_POD, message);
    }
    if (d.create.length === 0 && d.delete.length === 0) return undefined;
    // kube expects both at once, then creates before it deletes.
    this.expectations.expect(key, d.create.length, d.delete.map(podObjectKey));
    const created =
      d.create.length > 0
        ? await this.podControl.create(
            target,
            d.create.map((n) => daemonPodFor(ds, hash, n)),
            d.batches,
            false,
          )
        : undefined;
    const deleted = d.delete.length > 0 ? await this.podControl.delete(target, d.delete, false) : undefined;
    return created ?? deleted;
  }
}
