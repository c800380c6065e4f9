// The garbage collector's I/O: discovery finds the collectable resources (again when a CRD changes, and every
// resync period), one informer each feeds the owner graph, and one worker carries out what decide.ts says for the
// objects the events point at — deletes with uid and resourceVersion preconditions, merge patches pinned to the
// resourceVersion they were computed from, so a concurrent writer wins and the object is looked at again.

import type { ObjectReference, OwnerReference } from '../../api/types.js';
import { ApiError, type KubeObject, type RestClient } from '../../client/index.js';
import { discover, preferredResources } from '../../client/discovery.js';
import { controllerEventRecorder, type EventRecorder } from '../../client/events.js';
import { SharedInformerFactory, type InformerLike } from '../../client/sharedinformers.js';
import { backoffDelay } from '../../util/backoff.js';
import type { Clock, TimerHandle } from '../../util/clock.js';
import { deepEqual } from '../../api/equal.js';
import { errorMessage } from '../../util/errors.js';
import { klog } from '../../util/klog.js';
import type { RunningController } from '../types.js';
import {
  FINALIZER_ORPHAN,
  INVALID_NAMESPACE_REASON,
  blocksOwner,
  decideDependent,
  decideForegroundOwner,
  invalidNamespaceMessage,
  isDeleting,
  isDeletingDependents,
  isOrphaning,
  ownerState,
  withoutFinalizer,
  withoutOwners,
  type Action,
  type OwnerState,
} from './decide.js';
import { OwnerGraph, type GraphNode } from './graph.js';
import { logs } from './messages.js';
import {
  collectableResources,
  collectionPath,
  discovered,
  objectPath,
  ResourceMap,
  type CrdNames,
  type GcResource,
} from './resources.js';

export const COMPONENT = 'garbage-collector-controller';
/** kube-controller-manager re-reads discovery this often for new resources. */
const DEFAULT_RESYNC_MS = 30_000;
const RETRY = { initialMs: 50, maxMs: 30_000, jitter: 0.2 };

export interface GarbageCollectorOptions {
  client: RestClient;
  clock: Clock;
  signal: AbortSignal;
  informers?: SharedInformerFactory;
  resyncMs?: number;
}

type Obj = KubeObject & {
  metadata: {
    uid?: string;
    name?: string;
    namespace?: string;
    resourceVersion?: string;
    ownerReferences?: OwnerReference[];
    finalizers?: string[];
    deletionTimestamp?: string;
  };
};

interface Monitor {
  resource: GcResource;
  informer: InformerLike<Obj>;
}

export class GarbageCollector implements RunningController {
  private readonly o: GarbageCollectorOptions;
  private readonly graph = new OwnerGraph();
  private readonly monitors = new Map<string, Monitor>();
  private resources = new ResourceMap([]);
  private readonly ownInformers: SharedInformerFactory | undefined;
  private readonly informers: SharedInformerFactory;
  private readonly events: EventRecorder;
  private readonly attemptToDelete = new Set<string>();
  private readonly attemptToOrphan = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly reported = new Set<string>();
  private readonly timers = new Set<TimerHandle>();
  private resyncTimer: TimerHandle = undefined;
  private rediscovery: TimerHandle = undefined;
  private working: Promise<void> | undefined;
  private synced = false;
  private stopped = false;

  constructor(options: GarbageCollectorOptions) {
    this.o = options;
    if (!options.informers) this.ownInformers = new SharedInformerFactory(options.client, { clock: options.clock });
    this.informers = options.informers ?? this.ownInformers!;
    this.events = controllerEventRecorder(options.client, COMPONENT, options.clock);
    if (options.signal.aborted) this.stopped = true;
    else options.signal.addEventListener('abort', () => void this.stop(), { once: true });
  }

  async start(): Promise<void> {
    await this.sync();
    this.scheduleResync();
  }

  /** Discovery, then a monitor for each new resource; the worker runs once every monitor has synced. */
  private async sync(): Promise<void> {
    if (this.stopped) return;
    const found = await this.discover();
    this.resources = new ResourceMap(found);
    const fresh: Monitor[] = [];
    for (const r of found) {
      const path = collectionPath(r);
      if (this.monitors.has(path)) continue;
      const m: Monitor = { resource: r, informer: this.informers.informer<Obj>(path) };
      m.informer.on('add', (obj) => this.observe(r, undefined, obj));
      m.informer.on('update', (old, obj) => this.observe(r, old, obj));
      m.informer.on('delete', (obj) => this.forget(obj));
      if (r.group === 'apiextensions.k8s.io' && r.resource === 'customresourcedefinitions') {
        // A CRD discovery has listed already (all of them, on the first list) changes nothing to watch.
        m.informer.on('add', (crd) => {
          if (!discovered(this.resources.resources, crd as CrdNames)) this.rediscoverSoon();
        });
        m.informer.on('update', () => this.rediscoverSoon());
        m.informer.on('delete', () => this.rediscoverSoon());
      }
      this.monitors.set(path, m);
      fresh.push(m);
    }
    for (const m of fresh) m.informer.start();
    await Promise.all(fresh.map((m) => m.informer.whenSynced()));
    if (this.stopped) return;
    if (!this.synced) {
      this.synced = true;
      klog.info(logs.synced(this.monitors.size, this.graph.size));
      for (const n of this.graph.all())
        if (n.meta.ownerReferences.length > 0 || isDeleting(n.meta)) this.enqueueNode(n);
    }
    this.kick();
  }

  private async discover(): Promise<GcResource[]> {
    const found = await discover(this.o.client, this.o.signal);
    for (const err of found.failed.values()) {
      // A group that went between the two reads: the next discovery sees it as it is.
      if (!(err instanceof ApiError && err.status.code === 404)) throw err;
    }
    return collectableResources(preferredResources(found.groups, found.lists));
  }

  private rediscoverSoon(): void {
    if (this.stopped || this.rediscovery !== undefined) return;
    this.rediscovery = this.o.clock.setTimeout(() => {
      this.rediscovery = undefined;
      this.sync().catch((err: unknown) => this.stopped || klog.error(logs.discoveryFailed(errorMessage(err))));
    }, 200);
  }

  private scheduleResync(): void {
    if (this.stopped) return;
    this.resyncTimer = this.o.clock.setTimeout(() => {
      this.sync()
        .catch((err: unknown) => this.stopped || klog.error(logs.discoveryFailed(errorMessage(err))))
        .finally(() => this.scheduleResync());
    }, this.o.resyncMs ?? DEFAULT_RESYNC_MS);
  }

  // ---- the graph builder ----

  private nodeOf(r: GcResource, obj: Obj): GraphNode | undefined {
    const m = obj.metadata;
    if (!m.uid) return undefined;
    return {
      uid: m.uid,
      resource: r,
      namespace: m.namespace ?? '',
      name: m.name ?? '',
      resourceVersion: m.resourceVersion ?? '',
      meta: {
        uid: m.uid,
        deletionTimestamp: m.deletionTimestamp,
        finalizers: m.finalizers ?? [],
        ownerReferences: m.ownerReferences ?? [],
      },
    };
  }

  private observe(r: GcResource, _old: Obj | undefined, obj: Obj): void {
    const node = this.nodeOf(r, obj);
    if (!node) return;
    const prev = this.graph.upsert(node);
    const refs = node.meta.ownerReferences;
    const ownersChanged = !deepEqual(prev?.meta.ownerReferences ?? [], refs);
    if (refs.length > 0 && (prev === undefined || ownersChanged)) this.enqueue(node.uid);
    // An owner deleting in the foreground may be unblocked by a dependent that let go of it.
    if (ownersChanged)
      for (const ref of prev?.meta.ownerReferences ?? [])
        if (!blocksOwner(node.meta, ref.uid)) this.enqueueIfDeletingDependents(ref.uid);
    if (isOrphaning(node.meta)) this.enqueueOrphan(node.uid);
    if (isDeletingDependents(node.meta)) {
      this.enqueue(node.uid);
      if (prev === undefined || !isDeletingDependents(prev.meta))
        for (const d of this.graph.dependentsOf(node.uid)) this.enqueue(d.uid);
    }
    // Dependents that named this uid before it was seen: their references may now resolve otherwise.
    if (prev === undefined)
      for (const d of this.graph.dependentsOf(node.uid))
        if (d.namespace !== node.namespace && r.namespaced) this.enqueue(d.uid);
  }

  private forget(obj: Obj): void {
    const uid = obj.metadata.uid;
    if (!uid) return;
    const gone = this.graph.remove(uid);
    for (const d of this.graph.dependentsOf(uid)) this.enqueue(d.uid);
    for (const ref of gone?.meta.ownerReferences ?? []) this.enqueueIfDeletingDependents(ref.uid);
  }

  private enqueueIfDeletingDependents(uid: string): void {
    const owner = this.graph.get(uid);
    if (owner && isDeletingDependents(owner.meta)) this.enqueue(uid);
  }

  private enqueueNode(n: GraphNode): void {
    if (isOrphaning(n.meta)) this.enqueueOrphan(n.uid);
    this.enqueue(n.uid);
  }

  private enqueue(uid: string): void {
    this.attemptToDelete.add(uid);
    this.kick();
  }

  private enqueueOrphan(uid: string): void {
    this.attemptToOrphan.add(uid);
    this.kick();
  }

  // ---- the worker ----

  private kick(): void {
    if (this.stopped || !this.synced || this.working !== undefined) return;
    this.working = this.work().finally(() => {
      this.working = undefined;
      if (this.attemptToDelete.size + this.attemptToOrphan.size > 0) this.kick();
    });
  }

  private async work(): Promise<void> {
    while (!this.stopped) {
      const [orphan] = this.attemptToOrphan;
      const [uid] = orphan !== undefined ? [undefined] : this.attemptToDelete;
      if (orphan === undefined && uid === undefined) return;
      const queue = orphan !== undefined ? this.attemptToOrphan : this.attemptToDelete;
      const key = (orphan ?? uid)!;
      queue.delete(key);
      try {
        if (orphan !== undefined) await this.orphanDependents(orphan);
        else await this.attemptDelete(key);
        this.failures.delete(`${orphan !== undefined ? 'o' : 'd'}/${key}`);
      } catch (err) {
        if (this.stopped) return;
        this.retryLater(orphan !== undefined ? 'o' : 'd', key, err);
      }
    }
  }

  private retryLater(kind: 'o' | 'd', uid: string, err: unknown): void {
    const id = `${kind}/${uid}`;
    const n = (this.failures.get(id) ?? 0) + 1;
    this.failures.set(id, n);
    const conflict = err instanceof ApiError && err.status.code === 409;
    if (!conflict) klog.error(logs.itemFailed(this.describe(uid), errorMessage(err)));
    const t = this.o.clock.setTimeout(
      () => {
        this.timers.delete(t);
        if (kind === 'o') this.enqueueOrphan(uid);
        else this.enqueue(uid);
      },
      backoffDelay(RETRY, n),
    );
    this.timers.add(t);
  }

  private describe(uid: string): string {
    const n = this.graph.get(uid);
    return n ? `${n.resource.kind} ${n.namespace ? `${n.namespace}/` : ''}${n.name} (${uid})` : uid;
  }

  /** attemptToDeleteItem and processDeletingDependentsItem. */
  private async attemptDelete(uid: string): Promise<void> {
    const node = this.graph.get(uid);
    if (!node) return;
    if (isDeletingDependents(node.meta)) {
      const blocking = this.graph.dependentsOf(uid).filter((d) => blocksOwner(d.meta, uid));
      const action = decideForegroundOwner(node.meta, blocking.length);
      if (action.do === 'nothing')
        for (const d of blocking) if (!isDeletingDependents(d.meta)) this.attemptToDelete.add(d.uid);
      return this.carryOut(node, action);
    }
    if (isDeleting(node.meta) || node.meta.ownerReferences.length === 0) return;
    const owners = new Map<string, OwnerState>();
    for (const ref of node.meta.ownerReferences) owners.set(ref.uid, await this.resolveOwner(node, ref));
    return this.carryOut(node, decideDependent(node.meta, owners, this.graph.hasDependents(uid)));
  }

  /** kube's isDangling: the owner as the graph has it, else as the API answers under the reference's coordinates. */
  private async resolveOwner(dep: GraphNode, ref: OwnerReference): Promise<OwnerState> {
    const r = this.resources.forKind(ref.apiVersion, ref.kind);
    if (!r) throw new Error(logs.unknownKind(ref.apiVersion, ref.kind));
    if (r.namespaced && dep.namespace === '') {
      this.reportInvalid(dep, ref);
      return 'invalid';
    }
    const seen = this.graph.get(ref.uid);
    if (seen && seen.resource.namespaced && seen.namespace !== dep.namespace) {
      this.reportInvalid(dep, ref);
      return 'absent';
    }
    if (seen && seen.name === ref.name && seen.resource.kind === r.kind) return ownerState(ref, seen.meta);
    try {
      const owner = await this.o.client.get<Obj>(objectPath(r, dep.namespace, ref.name), { signal: this.o.signal });
      return ownerState(ref, {
        uid: owner.metadata.uid,
        deletionTimestamp: owner.metadata.deletionTimestamp,
        finalizers: owner.metadata.finalizers ?? [],
      });
    } catch (err) {
      if (err instanceof ApiError && err.status.code === 404) return 'absent';
      throw err;
    }
  }

  private reportInvalid(dep: GraphNode, ref: OwnerReference): void {
    const key = `${dep.uid}/${ref.uid}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    const involved: ObjectReference = {
      kind: dep.resource.kind,
      apiVersion: apiVersionOf(dep.resource),
      name: dep.name,
      uid: dep.uid,
      ...(dep.namespace ? { namespace: dep.namespace } : {}),
    };
    this.events.record(involved, 'Warning', INVALID_NAMESPACE_REASON, invalidNamespaceMessage(ref, dep.namespace));
  }

  /** orphanDependents: every dependent lets go of the owner, then the owner loses its `orphan` finalizer. */
  private async orphanDependents(uid: string): Promise<void> {
    const owner = this.graph.get(uid);
    if (!owner || !isOrphaning(owner.meta)) return;
    for (const d of this.graph.dependentsOf(uid)) await this.carryOut(d, { do: 'removeOwners', uids: [uid] });
    await this.carryOut(owner, { do: 'removeFinalizer', finalizer: FINALIZER_ORPHAN });
  }

  private async carryOut(node: GraphNode, action: Action): Promise<void> {
    if (action.do === 'nothing' || this.stopped) return;
    const path = objectPath(node.resource, node.namespace, node.name);
    const signal = this.o.signal;
    const pin = { uid: node.uid, resourceVersion: node.resourceVersion };
    try {
      if (action.do === 'delete') {
        klog.info(logs.deleting(this.describe(node.uid), action.policy));
        await this.o.client.delete(path, {
          signal,
          body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: action.policy, preconditions: pin },
        });
      } else if (action.do === 'removeOwners') {
        const left = withoutOwners(node.meta.ownerReferences, action.uids);
        await this.o.client.patch(
          path,
          'merge',
          { metadata: { ...pin, ownerReferences: left.length ? left : null } },
          { signal },
        );
      } else {
        const left = withoutFinalizer(node.meta.finalizers ?? [], action.finalizer);
        await this.o.client.patch(
          path,
          'merge',
          { metadata: { ...pin, finalizers: left.length ? left : null } },
          { signal },
        );
      }
    } catch (err) {
      // Gone already: nothing left to do. A conflict: the informer brings the new version, looked at again.
      if (err instanceof ApiError && err.status.code === 404) return;
      throw err;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of [this.resyncTimer, this.rediscovery, ...this.timers])
      if (t !== undefined) this.o.clock.clearTimeout(t);
    this.timers.clear();
    await Promise.all([...this.monitors.values()].map((m) => m.informer.stop()));
    await this.ownInformers?.stop();
    await this.working?.catch(() => undefined);
    await this.events.stop();
  }
}

function apiVersionOf(r: GcResource): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}
