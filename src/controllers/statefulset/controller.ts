// The StatefulSet controller's loop (kube-controller-manager's statefulset controller): informers on StatefulSets,
// their ControllerRevisions and Pods; a set is queued when it changes and when a Pod it owns or could adopt comes,
// changes or goes. A sync makes sure the ControllerRevision of the set's template exists (./revisions.ts), takes
// ./decide.ts's decision — the Pods `<set>-<ordinal>` one at a time in order under OrderedReady, all at once under
// Parallel, scale down from the highest ordinal, the rolling update from the top — adopts and releases, makes its
// writes with kube's events, writes the status through the status subresource, and deletes the oldest revisions
// beyond spec.revisionHistoryLimit. As kube's, it keeps no expectations: a Pod is created by name, and a second
// create of it fails with AlreadyExists and is retried.

import { type StatefulSet } from '../../api/apps.js';
import { controllerOf, type PodView } from '../../api/pods.js';
import { deepEqual } from '../../api/equal.js';
import { isApiError, type KubeObject } from '../../client/index.js';
import { objectKey } from '../../client/informer.js';
import type { InformerLike } from '../../client/sharedinformers.js';
import { errorMessage } from '../../util/errors.js';
import { klog } from '../../util/klog.js';
import { podPath, type PodControllerOptions, type PodObject } from '../podinformers.js';
import { QueuedController, referenceTo } from '../queuedcontroller.js';
import { writeClaim } from '../workload/adoption.js';
import { followPods } from '../workload/followpods.js';
import type { PodToCreate } from '../workload/podtemplate.js';
import { decideStatefulSet, type StatefulSetDecision } from './decide.js';
import { events, logs, RECREATING_FAILED_POD, RECREATING_TERMINATED_POD, type PodVerb } from './messages.js';
import type { Revisions } from './identity.js';
import { resolveRevisions, revisionsToTruncate, type ControllerRevision } from './revisions.js';
import { requeueAfterSeconds, statefulSetStatus } from './status.js';

type StatefulSetObject = StatefulSet & KubeObject;
type RevisionObject = ControllerRevision & KubeObject;

export const STATEFULSETS_PATH = '/apis/apps/v1/statefulsets';
export const REVISIONS_PATH = '/apis/apps/v1/controllerrevisions';
const setPath = (ns: string, name: string): string => `/apis/apps/v1/namespaces/${ns}/statefulsets/${name}`;

export type StatefulSetControllerOptions = PodControllerOptions;

export class StatefulSetController extends QueuedController {
  private readonly sets: InformerLike<StatefulSetObject>;
  private readonly revisions: InformerLike<RevisionObject>;
  private readonly pods: InformerLike<PodObject>;

  constructor(o: StatefulSetControllerOptions) {
    super(o, { component: events.component, syncFailed: logs.syncFailed });
    this.sets = this.informer<StatefulSetObject>(STATEFULSETS_PATH);
    this.revisions = this.informer<RevisionObject>(REVISIONS_PATH);
    this.pods = this.informer<PodObject>('/api/v1/pods');
    this.sets.on('add', (s) => this.queue.add(objectKey(s)));
    this.sets.on('update', (_old, s) => this.queue.add(objectKey(s)));
    // No expectations, as kube's: a Pod is created by name, and a second create of it fails.
    followPods(this.pods, { kind: 'StatefulSet', owners: this.sets.store, queue: this.queue });
  }

  private owned(set: StatefulSetObject): RevisionObject[] {
    const uid = set.metadata.uid ?? '';
    return this.revisions.store
      .list()
      .filter((r) => r.metadata.namespace === set.metadata.namespace && controllerOf(r.metadata)?.uid === uid);
  }

  protected async sync(key: string): Promise<void> {
    const stored = this.sets.store.get(key);
    if (!stored) return;
    const ns = stored.metadata.namespace ?? '';
    const owned = this.owned(stored);
    // The set as this sync sees it: with the collision count that gave its revision a free name.
    const { set, revisions } = await this.ensureRevision(stored, owned);
    const pods = this.pods.store.list().filter((p) => p.metadata.namespace === ns);
    const nowMs = this.o.clock.now().getTime();
    const decision = decideStatefulSet({ set, pods, revisions, nowMs });
    if (decision.error !== undefined) return klog.error(decision.error);
    await this.claim(set, decision);
    const failure = set.metadata.deletionTimestamp ? undefined : await this.apply(set, decision);
    const status = statefulSetStatus(set, decision, revisions, nowMs);
    if (!deepEqual(stored.status ?? {}, status))
      await this.updateStatus(setPath(ns, set.metadata.name ?? ''), {
        ...stored,
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        status,
      });
    const after = requeueAfterSeconds(set, status);
    if (after !== undefined) this.queue.addAfter(key, after * 1000);
    if (failure !== undefined) throw new Error(failure);
    const setPods = [...decision.replicas.flatMap((slot) => ('pod' in slot ? [slot.pod] : [])), ...decision.condemned];
    for (const rev of revisionsToTruncate(set, owned, setPods, revisions)) await this.deleteRevision(ns, rev);
  }

  private async deleteRevision(ns: string, rev: ControllerRevision): Promise<void> {
    try {
      await this.o.client.delete(`/apis/apps/v1/namespaces/${ns}/controllerrevisions/${rev.metadata.name ?? ''}`);
    } catch (err) {
      if (!isApiError(err, 404)) throw err;
    }
  }

  /**
   * getStatefulSetRevisions with CreateControllerRevision: the update revision created when the set has none; when
   * its name is taken by a revision of other data, the collision count goes up and the next name is tried.
   */
  private async ensureRevision(
    set: StatefulSetObject,
    owned: readonly ControllerRevision[],
  ): Promise<{ set: StatefulSetObject; revisions: Revisions }> {
    for (;;) {
      const { revisions, create } = resolveRevisions(set, owned);
      if (!create || !(await this.nameTaken(set.metadata.namespace ?? '', create))) return { set, revisions };
      const collisionCount = (set.status?.collisionCount ?? 0) + 1;
      set = { ...set, status: { replicas: 0, ...set.status, collisionCount } };
    }
  }

  /** Creates `rev`; true when a revision of other data holds its name. */
  private async nameTaken(ns: string, rev: ControllerRevision): Promise<boolean> {
    const path = `/apis/apps/v1/namespaces/${ns}/controllerrevisions`;
    try {
      await this.o.client.create(path, rev);
      return false;
    } catch (err) {
      if (!isApiError(err, 409)) throw err;
    }
    // Made by an earlier sync the informer has not shown yet, or another's.
    const exists = await this.o.client.get<ControllerRevision>(`${path}/${rev.metadata.name ?? ''}`);
    return !deepEqual(exists.data ?? null, rev.data ?? null);
  }

  private async claim(set: StatefulSetObject, d: StatefulSetDecision): Promise<void> {
    const { namespace = '', name = '' } = set.metadata;
    await writeClaim(
      this.o.client,
      { kind: 'StatefulSet', path: setPath(namespace, name), object: set },
      { adopt: d.adopt, release: d.release, pathOf: (p) => podPath(p as PodObject) },
    );
  }

  /** The decision's writes in kube's order; the first failure's message, if any. */
  private async apply(set: StatefulSetObject, d: StatefulSetDecision): Promise<string | undefined> {
    const { namespace = '', name = '' } = set.metadata;
    for (const pod of d.recreate) {
      const failed = pod.status?.phase === 'Failed';
      const podName = pod.metadata.name ?? '';
      this.say(
        set,
        failed ? 'Warning' : 'Normal',
        failed ? RECREATING_FAILED_POD : RECREATING_TERMINATED_POD,
        failed
          ? events.recreatingFailed(namespace, name, podName)
          : events.recreatingTerminated(namespace, name, podName),
      );
      const failure = await this.deletePod(set, pod);
      if (failure !== undefined) return failure;
    }
    let sent = 0;
    for (const size of d.batches) {
      const results = await Promise.all(d.create.slice(sent, sent + size).map((p) => this.createPod(set, p)));
      sent += size;
      const failure = results.find((r) => r !== undefined);
      if (failure !== undefined) return failure;
    }
    for (const { pod, labels } of d.relabel) {
      const failure = await this.write(set, 'Update', pod.metadata.name ?? '', () =>
        this.o.client.patch(podPath(pod as PodObject), 'merge', { metadata: { labels } }),
      );
      if (failure !== undefined) return failure;
    }
    for (const pod of [...d.delete, ...(d.deleteForUpdate ? [d.deleteForUpdate] : [])]) {
      const failure = await this.deletePod(set, pod);
      if (failure !== undefined) return failure;
    }
    return undefined;
  }

  private async createPod(set: StatefulSetObject, pod: PodToCreate): Promise<string | undefined> {
    const path = `/api/v1/namespaces/${pod.metadata.namespace ?? ''}/pods`;
    const name = pod.metadata.name ?? '';
    try {
      await this.o.client.create(path, pod);
    } catch (err) {
      // kube's CreateStatefulPod returns AlreadyExists without an event: the sync is retried.
      if (!isApiError(err, 409)) this.podEvent(set, 'Create', name, err);
      return errorMessage(err);
    }
    this.podEvent(set, 'Create', name);
    return undefined;
  }

  private deletePod(set: StatefulSetObject, pod: PodView): Promise<string | undefined> {
    return this.write(set, 'Delete', pod.metadata.name ?? '', async () => {
      try {
        await this.o.client.delete(podPath(pod as PodObject));
      } catch (err) {
        if (!isApiError(err, 404)) throw err;
      }
    });
  }

  /** One Pod write with its event; its failure's message. */
  private async write(
    set: StatefulSetObject,
    verb: PodVerb,
    pod: string,
    send: () => Promise<unknown>,
  ): Promise<string | undefined> {
    try {
      await send();
    } catch (err) {
      this.podEvent(set, verb, pod, err);
      return errorMessage(err);
    }
    this.podEvent(set, verb, pod);
    return undefined;
  }

  /** recordPodEvent: the write's outcome on the set. */
  private podEvent(set: StatefulSetObject, verb: PodVerb, pod: string, err?: unknown): void {
    const setName = set.metadata.name ?? '';
    if (err === undefined) this.say(set, 'Normal', events.succeeded(verb), events.podSucceeded(verb, pod, setName));
    else this.say(set, 'Warning', events.failed(verb), events.podFailed(verb, pod, setName, errorMessage(err)));
  }

  private say(set: StatefulSetObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.event(referenceTo('apps/v1', 'StatefulSet', set), type, reason, message);
  }
}
