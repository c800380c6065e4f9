// The Deployment controller's loop (kube-controller-manager's deployment controller): informers on Deployments,
// ReplicaSets and Pods; a Deployment is queued when it changes, when a ReplicaSet it owns or could adopt changes, and
// when a Pod of a Recreate Deployment goes. A sync takes ./decide.ts's decision and writes it in kube's order: adopt
// and release ReplicaSets, create the new one (a name taken by another template is a hash collision: the
// collisionCount goes up and the next sync hashes anew), update and delete ReplicaSets, record the scaling events,
// set the revision annotation, then write the status through the status subresource.

import {
  controllerOf,
  REVISION_ANNOTATION,
  type Deployment,
  type DeploymentStatus,
  type ReplicaSet,
} from '../../api/apps.js';
import { deepEqual } from '../../api/equal.js';
import { isApiError, type KubeObject } from '../../client/index.js';
import { objectKey } from '../../client/informer.js';
import type { InformerLike } from '../../client/sharedinformers.js';
import { formatTime } from '../../util/clock.js';
import { errorMessage } from '../../util/errors.js';
import { klog } from '../../util/klog.js';
import type { PodControllerOptions, PodObject } from '../podinformers.js';
import { QueuedController, referenceTo } from '../queuedcontroller.js';
import { writeClaim } from '../workload/adoption.js';
import { resolveControllerRef, selectingControllers } from '../workload/lookup.js';
import { decideDeployment, type DeploymentDecision } from './decide.js';
import { messages, reasons, texts } from './messages.js';
import { equalIgnoreHash } from './replicasets.js';
import { createFailedStatus } from './status.js';

type DeploymentObject = Deployment & KubeObject;
type ReplicaSetObject = ReplicaSet & KubeObject;

export const DEPLOYMENTS_PATH = '/apis/apps/v1/deployments';
const APPS = '/apis/apps/v1/namespaces';
const deploymentPath = (ns: string, name: string): string => `${APPS}/${ns}/deployments/${name}`;
const rsPath = (ns: string, name: string): string => `${APPS}/${ns}/replicasets/${name}`;

export type DeploymentControllerOptions = PodControllerOptions;

export class DeploymentController extends QueuedController {
  private readonly deployments: InformerLike<DeploymentObject>;
  private readonly rss: InformerLike<ReplicaSetObject>;
  private readonly pods: InformerLike<PodObject>;

  constructor(o: DeploymentControllerOptions) {
    super(o, texts);
    this.deployments = this.informer<DeploymentObject>(DEPLOYMENTS_PATH);
    this.rss = this.informer<ReplicaSetObject>('/apis/apps/v1/replicasets');
    this.pods = this.informer<PodObject>('/api/v1/pods');
    this.deployments.on('add', (d) => this.queue.add(objectKey(d)));
    this.deployments.on('update', (_old, d) => this.queue.add(objectKey(d)));
    this.rss.on('add', (rs) => this.rsChanged(undefined, rs));
    this.rss.on('update', (old, rs) => this.rsChanged(old, rs));
    this.rss.on('delete', (rs) => this.enqueueOwner(rs));
    this.pods.on('delete', (p) => this.podDeleted(p));
  }

  private ownerOf(rs: ReplicaSetObject): DeploymentObject | undefined {
    const ns = rs.metadata.namespace ?? '';
    return resolveControllerRef(this.deployments.store, ns, controllerOf(rs.metadata), 'Deployment');
  }

  private enqueueOwner(rs: ReplicaSetObject): void {
    const d = this.ownerOf(rs);
    if (d) this.queue.add(objectKey(d));
  }

  /** addReplicaSet / updateReplicaSet: the owner, the owner before, or the Deployments that could adopt it. */
  private rsChanged(old: ReplicaSetObject | undefined, rs: ReplicaSetObject): void {
    const oldRef = old && controllerOf(old.metadata);
    const ref = controllerOf(rs.metadata);
    const refChanged = old !== undefined && !deepEqual(oldRef ?? null, ref ?? null);
    if (refChanged && old && oldRef) this.enqueueOwner(old);
    if (ref) return this.enqueueOwner(rs);
    const labelsChanged = old === undefined || !deepEqual(old.metadata.labels ?? {}, rs.metadata.labels ?? {});
    if (rs.metadata.deletionTimestamp || !(labelsChanged || refChanged)) return;
    const ns = rs.metadata.namespace ?? '';
    for (const d of selectingControllers(this.deployments.store, ns, rs.metadata.labels)) this.queue.add(objectKey(d));
  }

  /** A Recreate Deployment waits for its old Pods to go before it scales the new ReplicaSet up. */
  private podDeleted(p: PodObject): void {
    const ns = p.metadata.namespace ?? '';
    const rs = resolveControllerRef(this.rss.store, ns, controllerOf(p.metadata), 'ReplicaSet');
    const d = rs && this.ownerOf(rs);
    if (d && d.spec.strategy?.type === 'Recreate') this.queue.add(objectKey(d));
  }

  protected async sync(key: string): Promise<void> {
    const found = this.deployments.store.get(key);
    if (!found) return;
    const ns = found.metadata.namespace ?? '';
    const inNs = <T extends KubeObject>(i: InformerLike<T>) =>
      i.store.list().filter((o) => o.metadata?.namespace === ns);
    const nowMs = this.o.clock.now().getTime();
    const decision = decideDeployment({
      deployment: found,
      replicaSets: inNs(this.rss),
      pods: inNs(this.pods),
      nowMs,
    });
    if (decision.error !== undefined) return klog.error(decision.error);
    await this.claim(found, decision);
    if (decision.create && !(await this.createNew(found, decision.create))) return;
    for (const { rs } of decision.update) await this.o.client.update(rsPath(ns, rs.metadata.name ?? ''), rs);
    for (const rs of decision.delete) await this.deleteReplicaSet(rs);
    for (const message of decision.events) this.say(found, 'Normal', reasons.scalingReplicaSet, message);
    const d = decision.revision !== undefined ? await this.setRevision(found, decision.revision) : found;
    if (decision.statusChanged) await this.writeStatus(d, decision.status);
    if (decision.requeueAfterSeconds !== undefined) this.queue.addAfter(key, decision.requeueAfterSeconds * 1000);
  }

  private async claim(d: DeploymentObject, decision: DeploymentDecision): Promise<void> {
    const { namespace = '', name = '' } = d.metadata;
    await writeClaim(
      this.o.client,
      { kind: 'Deployment', path: deploymentPath(namespace, name), object: d },
      { adopt: decision.adopt, release: decision.release, pathOf: (rs) => rsPath(namespace, rs.metadata.name ?? '') },
    );
  }

  /**
   * Creates the new ReplicaSet; false when the sync is to stop there. A name already taken by this Deployment's
   * own ReplicaSet of the same template is the informer lagging; by anything else, a hash collision.
   */
  private async createNew(d: DeploymentObject, rs: ReplicaSet): Promise<boolean> {
    const ns = d.metadata.namespace ?? '';
    try {
      await this.o.client.create(`${APPS}/${ns}/replicasets`, rs);
      return true;
    } catch (err) {
      if (!isApiError(err, 409)) {
        const message = messages.createFailed(rs.metadata.name ?? '', errorMessage(err));
        const status = createFailedStatus(d, message, formatTime(this.o.clock.now()));
        if (status) await this.writeStatus(d, status).catch(() => undefined);
        this.say(d, 'Warning', reasons.replicaSetCreateError, message);
        throw err;
      }
    }
    const existing = await this.o.client.get<ReplicaSetObject>(rsPath(ns, rs.metadata.name ?? ''));
    const ours = controllerOf(existing.metadata)?.uid === d.metadata.uid;
    if (ours && equalIgnoreHash(existing.spec.template, d.spec.template)) return false;
    const status = { ...(d.status ?? {}), collisionCount: (d.status?.collisionCount ?? 0) + 1 };
    await this.writeStatus(d, status);
    return false;
  }

  private async deleteReplicaSet(rs: ReplicaSet): Promise<void> {
    const { namespace = '', name = '' } = rs.metadata;
    try {
      await this.o.client.delete(rsPath(namespace, name));
    } catch (err) {
      if (!isApiError(err, 404)) throw err;
    }
  }

  /** The revision annotation, on the Deployment itself; the status is written on what this returns. */
  private async setRevision(d: DeploymentObject, revision: string): Promise<DeploymentObject> {
    const { namespace = '', name = '' } = d.metadata;
    const annotations = { ...(d.metadata.annotations ?? {}), [REVISION_ANNOTATION]: revision };
    const body = { ...d, apiVersion: 'apps/v1', kind: 'Deployment', metadata: { ...d.metadata, annotations } };
    return this.o.client.update<DeploymentObject>(deploymentPath(namespace, name), body);
  }

  private async writeStatus(d: DeploymentObject, status: DeploymentStatus): Promise<void> {
    const { namespace = '', name = '' } = d.metadata;
    await this.updateStatus(deploymentPath(namespace, name), {
      ...d,
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      status,
    });
  }

  private say(d: DeploymentObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.event(referenceTo('apps/v1', 'Deployment', d), type, reason, message);
  }
}
