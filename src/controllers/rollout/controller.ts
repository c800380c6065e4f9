// The rollout controller: informers on NodeConfigRollouts, Nodes and ConfigMaps feed a work queue keyed by rollout;
// (and on the nodes' Leases, their heartbeats, and on the channel's records: NodeConfigs where the API server drops
// the Node's fields) one worker asks the plan what to do and does it through the API, in an
// order that keeps every crash harmless: the record of what each node about to change runs now (in the rollout's
// status), then the node assignments (each naming the rollout in the same write as the new source, on the Node or its
// NodeConfig as the channel says: ./assignment.ts), then the rollout's
// own spec (pauseAfterCanary, its finalizer), then its status (with the resourceVersion it was computed from, so a
// stale view is refused rather than written), then events, and last the removal of a deleted rollout's finalizer.
// Timers for soak, heartbeats and deadlines run on the injected clock.

import { deepEqual } from '../../api/equal.js';
import type { ConfigMap, Lease, Node, OwnerReference } from '../../api/types.js';
import { controllerEventRecorder, type EventRecorder } from '../../client/events.js';
import { NODE_LEASE_NAMESPACE } from '../../api/types.js';
import type { ConfigChannel } from '../../client/channel.js';
import { isApiError, type RestClient } from '../../client/index.js';
import { SharedInformerFactory, type InformerLike } from '../../client/sharedinformers.js';
import { backoffDelay } from '../../util/backoff.js';
import type { Clock } from '../../util/clock.js';
import { klog } from '../../util/klog.js';
import { forEachBounded } from '../../util/bounded.js';
import type { Registry } from '../../util/prom.js';
import { CompatibilityJudge } from './compat.js';
import { NODES_PATH, NodeChannel, NodeConfigChannel, type AssignmentWriter, type Cached } from './assignment.js';
import {
  RENDERED_NAMESPACE,
  isLayered,
  layersOf,
  renderRollout,
  renderedSource,
  renderedStillInUse,
  renderingKubelet,
  type RenderOutcome,
} from './layers.js';
import { conditionMessages, conditionReasons, logs } from './messages.js';
import { registerRolloutMetrics } from './metrics.js';
import { planRollout, renderedName, selects, type Plan, type PlanInput, type RolloutPatch } from './plan/index.js';
import { WorkQueue } from './queue.js';
import { copySource, mayPin, pinnedCopy } from './pin.js';
import { watchesNode } from './degraded.js';
import { ownerOf } from './nodeview.js';
import { ConfigFields } from './overrides.js';
import {
  API_VERSION,
  COMPONENT,
  KIND,
  ROLLOUTS_PATH,
  desiredSource,
  isDeleting,
  isFinished,
  needsWork,
  rolloutOwnerReference,
  rolloutReference,
  type NodeConfigRollout,
  type RolloutStatus,
} from '../../api/dkc/rollout.js';
import { isRolloutCopy, renderedDistrust } from './trust.js';
import { ConflictTracker } from './conflicts.js';
import { WrittenObjects } from './written.js';
import { FIELD_MANAGER, isAssignmentConflict } from './apply.js';
import { errorMessage } from '../../util/errors.js';

/** What the controller needs of the API client. */
export type RolloutClient = Pick<RestClient, 'list' | 'watch' | 'get' | 'patch' | 'update' | 'create'>;

export interface RolloutControllerOptions {
  client: RolloutClient;
  clock: Clock;
  /** Aborted when leadership is lost or the host stops. */
  signal: AbortSignal;
  /** First retry delay after a failed step; 100 ms. */
  retryInitialMs?: number;
  /** dkc_rollout_nodes and dkc_rollout_phase go here until the controller stops. */
  metrics?: Registry;
  /** Where assignments live (found once at start: ./findchannel.ts); the Node by default. */
  channel?: ConfigChannel;
  /** The process's shared informers (the host's); the controller makes and stops its own when none are given. */
  informers?: SharedInformerFactory;
}

/** Whether an update of a rollout leaves what its users asked for as it was (only its status, or nothing, changed). */
function sameIntent(old: NodeConfigRollout, r: NodeConfigRollout): boolean {
  return (
    old.metadata.generation === r.metadata.generation &&
    isDeleting(old) === isDeleting(r) &&
    deepEqual(old.metadata.annotations ?? {}, r.metadata.annotations ?? {})
  );
}

type CachedNode = Cached<Node>;
type CachedRollout = Cached<NodeConfigRollout>;
type CachedConfigMap = Cached<ConfigMap>;
type CachedLease = Cached<Lease>;

const CONFIGMAPS_PATH = '/api/v1/configmaps';
const LEASES_PATH = `/apis/coordination.k8s.io/v1/namespaces/${NODE_LEASE_NAMESPACE}/leases`;
const RETRY_MAX_MS = 10_000;

/** Node assignments of one batch written at once (kube-controller-manager's controllers write in parallel too). */
const NODE_WRITES_IN_FLIGHT = 16;

/**
 * Node and ConfigMap changes are batched, as kube-controller-manager's endpoint controllers batch Pod changes
 * (--endpoint-updates-batch-period), but by how long the last look took: a look prompted by them waits until
 * LOOK_BATCH_FACTOR times that has passed since the last one ended, at most LOOK_BATCH_MAX_MS. A rollout over a few
 * nodes is looked at again within milliseconds; one over thousands, whose every look plans every node and rewrites a
 * status naming each, spends at most a fifth of its time looking instead of once per heartbeat. The node assignments
 * a look writes are the rollout's progress, not the cost of looking: their time does not count, or a batch of a
 * thousand nodes would wait the longest period before its nodes' answers were seen.
 */
const LOOK_BATCH_FACTOR = 4;
/**
 * At 5,000 nodes a look's own work is two writes of a status naming every node (~450 KB, each ~0.45 s of the
 * server's CPU when it is idle) and the plan: with looks at most 2 s apart the rollout of bench:scale took 154 s, 4 s
 * apart 127 s, 8 s apart 131 s. At 1,000 nodes a look takes ~0.3 s and this cap is not reached.
 */
const LOOK_BATCH_MAX_MS = 4_000;

export class RolloutController {
  private readonly client: RolloutClient;
  private readonly clock: Clock;
  private readonly queue: WorkQueue;
  private readonly rollouts: InformerLike<CachedRollout>;
  private readonly nodes: InformerLike<CachedNode>;
  private readonly configMaps: InformerLike<CachedConfigMap>;
  private readonly leases: InformerLike<CachedLease>;
  /** When this controller started: the plan counts no soak time from before it. */
  private readonly startedAt: Date;
  private readonly assignments: AssignmentWriter;
  private readonly writtenRollouts = new WrittenObjects<CachedRollout>();
  private readonly events: EventRecorder;
  private readonly compatibility = new CompatibilityJudge();
  private readonly fields = new ConfigFields();
  private readonly failures = new Map<string, number>();
  private readonly conflicts = new ConflictTracker();
  /** Per rollout: when its last look ended and how long it took without its node writes (monotonic ms). */
  private readonly lastLook = new Map<string, { endedAt: number; tookMs: number }>();
  /** How long the current look's node assignments took to write (monotonic ms). */
  private nodeWritesMs = 0;
  /** The rollout being looked at, and whether a batched change of it arrived meanwhile. */
  private looking: { key: string; changed: boolean } | undefined;
  private readonly abort = new AbortController();
  private readonly retryInitialMs: number;
  private loop: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  private readonly removeMetrics: () => void;
  /** The informers this controller made because its host shared none; stopped with it. */
  private readonly ownInformers: SharedInformerFactory | undefined;

  constructor(options: RolloutControllerOptions) {
    this.client = options.client;
    this.clock = options.clock;
    this.retryInitialMs = options.retryInitialMs ?? 100;
    this.queue = new WorkQueue(options.clock);
    if (!options.informers) this.ownInformers = new SharedInformerFactory(options.client, { clock: options.clock });
    const informers = options.informers ?? this.ownInformers!;
    this.rollouts = informers.informer<CachedRollout>(ROLLOUTS_PATH);
    this.nodes = informers.informer<CachedNode>(NODES_PATH);
    this.configMaps = informers.informer<CachedConfigMap>(CONFIGMAPS_PATH);
    this.leases = informers.informer<CachedLease>(LEASES_PATH);
    this.assignments =
      options.channel === 'nodeconfig'
        ? new NodeConfigChannel(options.client, informers)
        : new NodeChannel(options.client);
    this.startedAt = options.clock.now();
    this.events = controllerEventRecorder(options.client, COMPONENT, options.clock);
    this.wire();
    const metrics = options.metrics;
    this.removeMetrics = metrics ? registerRolloutMetrics(metrics, () => this.rollouts.store.list()) : () => undefined;
    // Lost leadership stops every write at once; the host's stop() then only waits.
    if (options.signal.aborted) void this.stop();
    else options.signal.addEventListener('abort', () => void this.stop(), { once: true });
  }

  /**
   * Starts the informers and, once all have listed, the worker. Resolves at once: a cluster without the CRD
   * yet keeps the rollouts informer retrying, and must not keep the host from starting its other controllers.
   */
  start(): Promise<void> {
    for (const i of this.informers()) i.start();
    this.loop ??= this.run();
    return Promise.resolve();
  }

  private async run(): Promise<void> {
    const synced = await Promise.all(this.informers().map((i) => i.whenSynced()));
    if (!synced.every(Boolean) || this.abort.signal.aborted) return;
    for (const r of this.rollouts.store.list()) this.queue.add(r.metadata.name ?? '');
    await this.work();
  }

  /** Stops informers, timers and the worker; resolves when no write of this controller is in flight any more. */
  stop(): Promise<void> {
    this.stopping ??= this.shutDown();
    return this.stopping;
  }

  private async shutDown(): Promise<void> {
    this.removeMetrics();
    this.abort.abort();
    this.queue.shutDown();
    await Promise.all(this.informers().map((i) => i.stop()));
    await this.ownInformers?.stop();
    await this.loop;
    await this.events.stop();
  }

  private informers(): InformerLike<{ metadata: { name?: string } }>[] {
    return [this.rollouts, this.nodes, this.configMaps, this.leases, ...this.assignments.informers] as InformerLike<{
      metadata: { name?: string };
    }>[];
  }

  private wire(): void {
    const byName = (r: NodeConfigRollout): void => this.queue.add(r.metadata.name ?? '');
    const batched = (r: NodeConfigRollout): void => this.addBatched(r.metadata.name ?? '');
    this.rollouts.on('add', byName);
    // A user's change (spec: generation; pause and undo annotations) is looked at at once; a status write, ours
    // included, waits for the batch.
    this.rollouts.on('update', (old, r) => (sameIntent(old, r) ? batched(r) : byName(r)));
    this.rollouts.on('delete', (r) => {
      this.writtenRollouts.forget(r.metadata.name ?? '');
      this.lastLook.delete(r.metadata.name ?? '');
      this.conflicts.forget(r.metadata.name ?? '');
    });
    // Every rollout still at work, and the Succeeded one that counted the node and holds it still (it watches that
    // the node stays on its config): a rollout the node has since left for another is not looked at for it.
    const byNode = (node: string | undefined): void => {
      const seen = node === undefined ? undefined : this.nodes.store.get(node);
      const holder = seen && ownerOf(this.assignments.view(seen));
      for (const r of this.rollouts.store.list()) {
        const holds = holder === undefined || holder === r.metadata.name;
        if (needsWork(r) || (holds && watchesNode(r, node))) batched(r);
      }
    };
    this.nodes.on('add', (n) => byNode(n.metadata?.name));
    this.nodes.on('update', (_old, n) => byNode(n.metadata?.name));
    this.nodes.on('delete', (n) => {
      this.assignments.forget(n.metadata?.name ?? '');
      byNode(n.metadata?.name);
    });
    this.assignments.onChange(byNode);
    const byConfigMap = (cm: CachedConfigMap): void => {
      for (const r of this.rollouts.store.list()) {
        const refs = [r.spec?.configSource?.configMap, ...layersOf(r).map((l) => l.configMap)];
        const rendered = r.status?.renderedConfigMap;
        if (rendered !== undefined) refs.push(renderedSource(rendered).configMap);
        const uses = refs.some(
          (ref) => ref && ref.namespace === cm.metadata.namespace && ref.name === cm.metadata.name,
        );
        if (uses && (needsWork(r) || watchesNode(r, undefined))) batched(r);
      }
    };
    this.configMaps.on('add', byConfigMap);
    this.configMaps.on('update', (_old, cm) => byConfigMap(cm));
    this.configMaps.on('delete', byConfigMap);
    // A heartbeat matters to the rollouts soaking or holding its node; a lapse is found by time (the plan's timers).
    const byLease = (l: CachedLease): void => {
      const node = l.metadata.name ?? '';
      for (const r of this.rollouts.store.list()) {
        const p = r.status?.nodes?.[node];
        if (p !== undefined && (p.state === 'InFlight' || p.waitingReason !== undefined) && needsWork(r)) batched(r);
      }
    };
    this.leases.on('add', byLease);
    this.leases.on('update', (_old, l) => byLease(l));
    this.leases.on('delete', byLease);
    for (const i of this.informers()) {
      i.on('error', (err) => klog.v(2, logs.informer(i.path, errorMessage(err))));
    }
  }

  /** Looks at `key` again once its batch period after the last look has passed (at once if it has). */
  private addBatched(key: string): void {
    if (this.looking?.key === key) {
      this.looking.changed = true; // the batch period counts from the end of this look
      return;
    }
    const last = this.lastLook.get(key);
    const wait = last
      ? last.endedAt + Math.min(LOOK_BATCH_MAX_MS, LOOK_BATCH_FACTOR * last.tookMs) - this.clock.monotonicMs()
      : 0;
    if (wait > 0) this.queue.addAfter(key, wait);
    else this.queue.add(key);
  }

  private async work(): Promise<void> {
    for (;;) {
      const key = await this.queue.next();
      if (key === undefined) return;
      const began = this.clock.monotonicMs();
      this.looking = { key, changed: false };
      this.nodeWritesMs = 0;
      try {
        const requeueAfterMs = await this.sync(key);
        this.failures.delete(key);
        // Due from when the look began (what the plan's time was), however long its writes took.
        if (requeueAfterMs !== undefined) this.queue.addAfter(key, requeueAfterMs - (this.clock.monotonicMs() - began));
      } catch (err) {
        if (this.abort.signal.aborted) return;
        const n = (this.failures.get(key) ?? 0) + 1;
        this.failures.set(key, n);
        const conflict = isApiError(err) && err.status.code === 409;
        if (!conflict) klog.warning(logs.retrying(key, errorMessage(err)));
        this.queue.addAfter(key, backoffDelay({ initialMs: this.retryInitialMs, maxMs: RETRY_MAX_MS, jitter: 0.2 }, n));
      } finally {
        const endedAt = this.clock.monotonicMs();
        this.lastLook.set(key, { endedAt, tookMs: Math.max(0, endedAt - began - this.nodeWritesMs) });
        const changed = this.looking.changed;
        this.looking = undefined;
        if (changed) this.addBatched(key);
        this.queue.done(key);
      }
    }
  }

  private currentRollout(name: string): CachedRollout | undefined {
    return this.writtenRollouts.view(name, this.rollouts.store.get(name));
  }

  private currentNodes(): Node[] {
    const out: Node[] = [];
    for (const seen of this.nodes.store.list()) out.push(this.assignments.view(seen));
    return out;
  }

  /** One look at one rollout; resolves with when to look again by time alone. */
  private async sync(name: string): Promise<number | undefined> {
    const rollout = this.currentRollout(name);
    if (!rollout) return undefined;
    const rendering = isLayered(rollout) ? await this.render(rollout) : await this.pin(rollout);
    const input: Omit<PlanInput, 'configMap'> = {
      rollout,
      nodes: this.currentNodes(),
      others: this.rollouts.store.list().filter((r) => r.metadata.name !== name),
      now: this.clock.now(),
      leases: { get: (node) => this.leases.store.get(`${NODE_LEASE_NAMESPACE}/${node}`) },
      startedAt: this.startedAt,
      kubelet: { get: (node) => this.assignments.kubelet(node) },
      rolloutCopy: (ref) => isRolloutCopy(this.configMaps.store.get(`${ref.namespace}/${ref.name}`)),
    };
    if (rendering)
      input.rendered = 'failure' in rendering ? rendering : { name: rendering.configMap.metadata.name ?? '' };
    const copy = renderedName(input);
    const ref = (copy !== undefined ? copySource(rollout, copy) : desiredSource(rollout.spec))?.configMap;
    const cm =
      rendering && 'configMap' in rendering
        ? rendering.configMap
        : ref
          ? this.configMaps.store.get(`${ref.namespace}/${ref.name}`)
          : undefined;
    // A recorded rendered or pinned ConfigMap is assigned only if it is one this controller made for this rollout.
    const distrust = copy !== undefined && !rendering ? renderedDistrust(rollout, cm) : undefined;
    if (distrust !== undefined) input.renderedDistrust = distrust;
    const conflicts = this.conflicts.of(name);
    if (conflicts) input.conflicts = conflicts;
    const configMap =
      cm?.metadata.uid !== undefined
        ? { uid: cm.metadata.uid, resourceVersion: cm.metadata.resourceVersion ?? '' }
        : undefined;
    // Only a rollout still starting nodes asks which of them its target does not suit.
    if (cm && ref && needsWork(rollout) && rollout.spec?.revert !== true && !isDeleting(rollout)) {
      const incompatible = this.compatibility.judge(cm, ref.kubeletConfigKey, input.nodes);
      if (incompatible.size > 0) input.incompatible = incompatible;
    }
    const fields = cm && ref ? this.fields.of(cm, ref.kubeletConfigKey) : undefined;
    if (fields) input.targetFields = fields;
    const plan = planRollout({ ...input, configMap });
    await this.apply(rollout, plan);
    return plan.requeueAfterMs;
  }

  /**
   * A layered rollout not yet rendered: its layers rendered into the ConfigMap they name, created unless it exists
   * (with the same content: the name is the content's hash). Undefined when there is nothing to render.
   */
  private async render(rollout: CachedRollout): Promise<RenderOutcome | undefined> {
    const spec = rollout.spec;
    if (
      !isLayered(rollout) ||
      rollout.status?.renderedConfigMap !== undefined ||
      isFinished(rollout) ||
      spec?.revert === true ||
      isDeleting(rollout)
    )
      return undefined;
    if (spec?.configSource !== undefined && spec.configSource !== null) return undefined;
    const layers = new Map<string, ConfigMap>();
    for (const { configMap: ref } of layersOf(rollout)) {
      const cm = await this.configMapNow(ref.namespace, ref.name);
      if (cm) layers.set(`${ref.namespace}/${ref.name}`, cm);
    }
    const kubelet = renderingKubelet(this.currentNodes().filter((n) => selects(rollout, n)));
    const out = renderRollout(
      rollout.metadata.name ?? '',
      layersOf(rollout),
      (ns, n) => layers.get(`${ns}/${n}`),
      kubelet,
    );
    if ('failure' in out) return out;
    return this.ensureCopy(rollout, out.configMap, logs.rendered);
  }

  /**
   * A rollout of a mutable ConfigMap not yet started: the immutable copy it assigns instead (./pin.ts), created unless
   * it exists. Undefined when it assigns its source as it is (immutable, missing: the plan says it is missing, or
   * the rollout changed nodes before it could pin).
   */
  private async pin(rollout: CachedRollout): Promise<RenderOutcome | undefined> {
    const ref = rollout.spec?.configSource?.configMap;
    if (!ref || !mayPin(rollout)) return undefined;
    const source = await this.configMapNow(ref.namespace, ref.name);
    const copy = source && pinnedCopy(rollout.metadata.name ?? '', source);
    return copy ? this.ensureCopy(rollout, copy, logs.pinned) : undefined;
  }

  /**
   * The rendered or pinned ConfigMap `out`, created (owned by the rollout) unless it exists with the same content (the
   * name is the content's hash), and taken over when it exists without this rollout as its owner.
   */
  private async ensureCopy(
    rollout: CachedRollout,
    out: ConfigMap,
    log: (rollout: string, configMap: string) => string,
  ): Promise<RenderOutcome> {
    const name = out.metadata.name ?? '';
    const owner = rolloutOwnerReference(rollout);
    let cm = await this.configMapNow(RENDERED_NAMESPACE, name);
    if (!cm) {
      try {
        const owned = { ...out, metadata: { ...out.metadata, ownerReferences: [owner] } };
        cm = await this.client.create<CachedConfigMap>(`/api/v1/namespaces/${RENDERED_NAMESPACE}/configmaps`, owned, {
          signal: this.abort.signal,
          query: { fieldManager: FIELD_MANAGER },
        });
        klog.info(log(rollout.metadata.name ?? '', name));
      } catch (err) {
        // Created meanwhile (by a previous leader): the same name is the same content, checked below.
        if (!isApiError(err) || err.status.code !== 409) throw err;
        cm = await this.configMapNow(RENDERED_NAMESPACE, name);
        if (!cm) throw err;
      }
    }
    if (!deepEqual(cm.data ?? {}, out.data ?? {}) || !deepEqual(cm.binaryData ?? {}, out.binaryData ?? {}))
      return {
        failure: {
          reason: conditionReasons.renderFailed,
          message: conditionMessages.renderedConflict(`${RENDERED_NAMESPACE}/${name}`),
        },
      };
    return { configMap: await this.adopt(cm, owner) };
  }

  /**
   * A rendered ConfigMap found already made (by a rollout of the same name deleted since, or before rendered
   * ConfigMaps had owners) is taken over: its owner becomes this rollout, so the garbage collector keeps it while
   * the rollout lives and deletes it after. Pinned to the version read: a concurrent change is a 409, retried.
   */
  private async adopt(cm: CachedConfigMap, owner: OwnerReference): Promise<CachedConfigMap> {
    const refs = cm.metadata.ownerReferences ?? [];
    if (refs.some((r) => r.uid === owner.uid)) return cm;
    const kept = refs.filter(
      (r) => !(r.kind === owner.kind && r.name === owner.name && r.apiVersion === owner.apiVersion),
    );
    const path = `/api/v1/namespaces/${RENDERED_NAMESPACE}/configmaps/${encodeURIComponent(cm.metadata.name ?? '')}`;
    const patch = {
      metadata: {
        uid: cm.metadata.uid,
        resourceVersion: cm.metadata.resourceVersion,
        ownerReferences: [...kept, owner],
      },
    };
    return this.client.patch<CachedConfigMap>(path, 'merge', patch, {
      signal: this.abort.signal,
      query: { fieldManager: FIELD_MANAGER },
    });
  }

  /** A deleted rollout's rendered ConfigMaps that nodes still use are let go of (renderedStillInUse), pinned to the version read. */
  private async keepRenderedInUse(rollout: NodeConfigRollout): Promise<void> {
    const uid = rollout.metadata.uid ?? '';
    for (const cm of renderedStillInUse(uid, this.configMaps.store.list(), this.currentNodes())) {
      const path = `/api/v1/namespaces/${RENDERED_NAMESPACE}/configmaps/${encodeURIComponent(cm.metadata.name ?? '')}`;
      const refs = (cm.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
      const patch = {
        metadata: {
          uid: cm.metadata.uid,
          resourceVersion: cm.metadata.resourceVersion,
          ownerReferences: refs.length > 0 ? refs : null,
        },
      };
      await this.client.patch(path, 'merge', patch, {
        signal: this.abort.signal,
        query: { fieldManager: FIELD_MANAGER },
      });
      klog.info(logs.renderedKept(rollout.metadata.name ?? '', cm.metadata.name ?? ''));
    }
  }

  /** A ConfigMap from the cache, or from the API when the cache has not seen it (yet): one just created is not missing. */
  private async configMapNow(namespace: string, name: string): Promise<CachedConfigMap | undefined> {
    const cached = this.configMaps.store.get(`${namespace}/${name}`);
    if (cached) return cached;
    try {
      return await this.client.get<CachedConfigMap>(
        `/api/v1/namespaces/${encodeURIComponent(namespace)}/configmaps/${encodeURIComponent(name)}`,
        { signal: this.abort.signal },
      );
    } catch (err) {
      if (isApiError(err) && err.status.code === 404) return undefined;
      throw err;
    }
  }

  private async apply(rollout: CachedRollout, plan: Plan): Promise<void> {
    const name = rollout.metadata.name ?? '';
    const signal = this.abort.signal;
    const path = `${ROLLOUTS_PATH}/${encodeURIComponent(name)}`;
    let current = rollout;
    const query = { fieldManager: FIELD_MANAGER };
    const writeStatus = async (status: RolloutStatus): Promise<void> => {
      if (deepEqual(status, current.status ?? {})) return;
      const seen = this.rollouts.store.get(name);
      // The status is the controller's report: applied with force, and written whole when the apply left fields
      // another manager recorded (a status from before managedFields), so it is exactly what the plan says.
      const applied = {
        apiVersion: API_VERSION,
        kind: KIND,
        metadata: { name, resourceVersion: current.metadata.resourceVersion },
        status,
      };
      current = await this.client.patch<CachedRollout>(`${path}/status`, 'apply', applied, {
        signal,
        query: { ...query, force: 'true' },
      });
      if (!deepEqual(status, current.status ?? {}))
        current = await this.client.update<CachedRollout>(`${path}/status`, { ...current, status }, { signal, query });
      this.writtenRollouts.record(name, current, seen);
    };
    const patchRollout = async (patch: RolloutPatch): Promise<void> => {
      const body = { ...patch, metadata: { ...patch.metadata, resourceVersion: current.metadata.resourceVersion } };
      const seen = this.rollouts.store.get(name);
      current = await this.client.patch<CachedRollout>(path, 'merge', body, { signal, query });
      this.writtenRollouts.record(name, current, seen);
    };
    // What each node runs now is in the rollout's status before any of them changes.
    if (plan.intent) await writeStatus(plan.intent);
    // A batch may name hundreds of nodes: one write after another took a request's latency each.
    const writesBegan = this.clock.monotonicMs();
    await forEachBounded(plan.assignments, NODE_WRITES_IN_FLIGHT, async (a) => {
      try {
        await this.assignments.write(a, this.nodes.store.get(a.node), signal);
        this.conflicts.written(name, a.node);
      } catch (err) {
        // Another applier declares the node's assignment: said on the rollout, and the look fails (retried, backing
        // off) until the progress deadline fails the node (./conflicts.ts).
        if (isAssignmentConflict(err)) {
          this.conflicts.refused(name, a.node, err.message, this.clock.now().getTime());
          this.events.record(rolloutReference(current), 'Warning', 'NodeConflict', err.message);
        }
        throw err;
      }
      if (a.source !== 'kept') klog.info(logs.nodeSet(name, a.node, a.source));
      else klog.info(logs.nodeReleased(name, a.node, a.holder?.rollout ?? null));
    }).finally(() => {
      this.nodeWritesMs = this.clock.monotonicMs() - writesBegan;
    });
    if (plan.rolloutPatch) await patchRollout(plan.rolloutPatch);
    await writeStatus(plan.status);
    if (current.status?.phase !== rollout.status?.phase)
      klog.info(logs.phase(name, rollout.status?.phase, current.status?.phase));
    const ref = rolloutReference(current);
    for (const e of plan.events) this.events.record(ref, e.type, e.reason, e.message);
    if (plan.finalize) {
      await this.keepRenderedInUse(current);
      await patchRollout(plan.finalize);
      klog.info(logs.finalized(name));
    }
  }
}
