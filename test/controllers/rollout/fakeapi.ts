// An in-memory API for the controller tests: nodes, ConfigMaps, node Leases, NodeConfigRollouts (with /status),
// NodeConfigs (with /status; created as the controller creates them), /version and the dkc.io group's discovery, and
// events, with resourceVersions, 409 on a stale resourceVersion, JSON merge patch, server-side apply as one field
// manager's (what it applied before and omits now goes; a /status apply replaces the status), deletion with finalizers, and
// list+watch through the client's real WatchStream. Every write is recorded, and a test awaits the write that makes a
// condition true instead of sleeping.

import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import {
  ApiError,
  WatchStream,
  type CallOptions,
  type ListOptions,
  type WatchOptions,
} from '../../../src/client/index.js';
import type { RolloutClient } from '../../../src/controllers/rollout/controller.js';

type Obj = {
  metadata: { name?: string; namespace?: string; resourceVersion?: string; [k: string]: unknown };
  [k: string]: unknown;
};

export interface Write {
  method: 'PATCH' | 'PUT' | 'POST';
  path: string;
  body: unknown;
  /** A PATCH's type ('merge', 'apply'). */
  type?: string;
}

/** What `prev` (the last applied config) had and `next` omits, removed from `target`. */
function pruneOmitted(target: unknown, prev: unknown, next: unknown): unknown {
  const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!isMap(target) || !isMap(prev)) return target;
  const out = { ...target };
  for (const [k, v] of Object.entries(prev)) {
    if (!isMap(next) || next[k] === undefined) delete out[k];
    else out[k] = pruneOmitted(out[k], v, next[k]);
  }
  return out;
}

const COLLECTIONS: Record<string, string> = {
  '/api/v1/nodes': 'nodes',
  '/api/v1/configmaps': 'configmaps',
  '/apis/dkc.io/v1alpha1/nodeconfigrollouts': 'rollouts',
  '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases': 'leases',
  '/apis/dkc.io/v1alpha1/nodeconfigs': 'nodeconfigs',
};

type Kind = 'nodes' | 'configmaps' | 'rollouts' | 'leases' | 'nodeconfigs';

function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

const clone = <T>(v: T): T => structuredClone(v);

function conflict(name: string): ApiError {
  return new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `Operation cannot be fulfilled on ${name}: the object has been modified; please apply your changes to the latest version and try again`,
    reason: 'Conflict',
    code: 409,
  });
}

function notFound(name: string): ApiError {
  return new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${name} not found`,
    reason: 'NotFound',
    code: 404,
  });
}

function alreadyExists(name: string): ApiError {
  return new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${name} already exists`,
    reason: 'AlreadyExists',
    code: 409,
  });
}

const CONFIGMAP_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/configmaps\/([^/]+)$/;

export class FakeApi implements RolloutClient {
  private rv = 1;
  private readonly stores: Record<string, Map<string, Obj>> = {
    nodes: new Map(),
    configmaps: new Map(),
    rollouts: new Map(),
    leases: new Map(),
    nodeconfigs: new Map(),
  };
  private readonly history: { rv: number; kind: string; type: 'ADDED' | 'MODIFIED' | 'DELETED'; obj: Obj }[] = [];
  private readonly watchers = new Set<{ kind: string; out: PassThrough }>();
  private readonly waiters: { pred: () => boolean; resolve: () => void }[] = [];
  readonly writes: Write[] = [];
  /** The last config applied to each object (by path), what the next apply's omissions are measured against. */
  private readonly applied = new Map<string, unknown>();
  readonly events: Obj[] = [];
  /** Called before a write is applied; throw to refuse it, or return a promise to hold it. */
  beforeWrite: (w: Write) => void | Promise<void> = () => undefined;
  /** Called after a node changed (the simulated agents react here). */
  onNodeChange: (node: Obj) => void = () => undefined;
  /** Called after a NodeConfig changed or was created (the simulated agents of the NodeConfig channel react here). */
  onNodeConfigChange: (nc: Obj) => void = () => undefined;
  /** What /version answers: dkc server's default release unless a test emulates another. */
  version = { major: '1', minor: '22', gitVersion: 'v1.22.17-dkc.0' };
  /** Whether the dkc.io group lists nodeconfigs. */
  servesNodeConfigs = true;

  // ---- test side ----------------------------------------------------------------------------------------------

  put(kind: Kind, obj: Obj): Obj {
    const key = this.keyOf(kind, obj);
    const type = this.stores[kind]!.has(key) ? 'MODIFIED' : 'ADDED';
    const stored = clone(obj);
    stored.metadata.resourceVersion = String(++this.rv);
    if (kind === 'rollouts' && stored.metadata['generation'] === undefined) stored.metadata['generation'] = 1;
    this.stores[kind]!.set(key, stored);
    this.emit(kind, type, stored);
    return clone(stored);
  }

  read(kind: Kind, key: string): Obj | undefined {
    const o = this.stores[kind]!.get(key);
    return o ? clone(o) : undefined;
  }

  remove(kind: Kind, key: string): void {
    const o = this.stores[kind]!.get(key);
    if (!o) return;
    this.stores[kind]!.delete(key);
    o.metadata.resourceVersion = String(++this.rv);
    this.emit(kind, 'DELETED', o);
  }

  /** A delete as the server does it: an object with finalizers is only marked (and its generation bumped). */
  delete(kind: 'nodes' | 'configmaps' | 'rollouts', key: string, at: string): void {
    const o = this.stores[kind]!.get(key);
    if (!o) return;
    if (((o.metadata['finalizers'] as string[] | undefined) ?? []).length === 0) return this.remove(kind, key);
    const generation = Number(o.metadata['generation'] ?? 0);
    this.put(kind, {
      ...o,
      metadata: {
        ...o.metadata,
        deletionTimestamp: at,
        deletionGracePeriodSeconds: 0,
        ...(generation > 0 ? { generation: generation + 1 } : {}),
      },
    });
  }

  /** Resolves once `pred` holds (checked now and after every change); rejects after `ms` of real time. */
  waitFor(pred: () => boolean, what: string, ms = 10_000): Promise<void> {
    if (pred()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
      this.waiters.push({ pred, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  nodePatches(name: string): Write[] {
    return this.writes.filter((w) => w.method === 'PATCH' && w.path === `/api/v1/nodes/${name}`);
  }

  // ---- client side --------------------------------------------------------------------------------------------

  list<T>(path: string, _options?: ListOptions): Promise<T> {
    const kind = COLLECTIONS[path];
    if (!kind || (kind === 'nodeconfigs' && !this.servesNodeConfigs)) return Promise.reject(notFound(path));
    return Promise.resolve({
      metadata: { resourceVersion: String(this.rv) },
      items: [...this.stores[kind]!.values()].map(clone),
    } as T);
  }

  watch<T>(path: string, options: WatchOptions = {}): Promise<WatchStream<T>> {
    const kind = COLLECTIONS[path];
    if (!kind) return Promise.reject(notFound(path));
    const out = new PassThrough();
    const from = Number(options.resourceVersion ?? '0');
    for (const h of this.history)
      if (h.kind === kind && h.rv > from) out.write(JSON.stringify({ type: h.type, object: h.obj }) + '\n');
    const w = { kind, out };
    this.watchers.add(w);
    out.on('close', () => this.watchers.delete(w));
    return Promise.resolve(new WatchStream<T>(out as unknown as IncomingMessage, options.signal));
  }

  get<T>(path: string, _options: CallOptions = {}): Promise<T> {
    if (path === '/version') return Promise.resolve(clone(this.version) as T);
    if (path === '/apis/dkc.io/v1alpha1') {
      const names = [
        'nodeconfigrollouts',
        'nodeconfigpolicies',
        ...(this.servesNodeConfigs ? ['nodeconfigs', 'nodeconfigs/status'] : []),
      ];
      return Promise.resolve({
        kind: 'APIResourceList',
        groupVersion: 'dkc.io/v1alpha1',
        resources: names.map((name) => ({ name })),
      } as T);
    }
    if (path === '/apis/dkc.io/v1alpha1/nodeconfigs' && !this.servesNodeConfigs) return Promise.reject(notFound(path));
    const m = CONFIGMAP_PATH.exec(path);
    const o = m
      ? this.stores['configmaps']!.get(`${decodeURIComponent(m[1]!)}/${decodeURIComponent(m[2]!)}`)
      : undefined;
    return o ? Promise.resolve(clone(o) as T) : Promise.reject(notFound(path));
  }

  async patch<T>(path: string, type: string, patch: unknown, options: CallOptions = {}): Promise<T> {
    return this.write<T>({ method: 'PATCH', path, body: patch, type }, options, (current) => {
      const want = (patch as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
      if (want !== undefined && want !== current.metadata.resourceVersion) throw conflict(path);
      if (type === 'apply' && path.endsWith('/status')) return { ...current, status: clone((patch as Obj)['status']) };
      const base = type === 'apply' ? (pruneOmitted(current, this.applied.get(path), patch) as Obj) : current;
      if (type === 'apply') this.applied.set(path, clone(patch));
      const next = mergePatch(base, patch) as Obj;
      // A patch of the main resource leaves status alone, as the status subresource splits them.
      if (path.includes('/nodeconfigs/') && !path.endsWith('/status')) next['status'] = current['status'];
      // A patch of the status subresource changes only the status.
      if (path.endsWith('/status')) return { ...current, status: next['status'] };
      if (path.includes('nodeconfigrollouts')) {
        next['status'] = current['status'];
        const specChanged = JSON.stringify(next['spec']) !== JSON.stringify(current['spec']);
        if (specChanged) next.metadata['generation'] = Number(current.metadata['generation'] ?? 1) + 1;
      }
      return next;
    });
  }

  async update<T>(path: string, body: unknown, options: CallOptions = {}): Promise<T> {
    return this.write<T>({ method: 'PUT', path, body }, options, (current) => {
      const b = body as Obj;
      if (b.metadata.resourceVersion !== current.metadata.resourceVersion) throw conflict(path);
      if (!path.endsWith('/status')) throw notFound(path);
      return { ...current, status: clone(b['status']) };
    });
  }

  async create<T>(path: string, body: unknown, options: CallOptions = {}): Promise<T> {
    const w: Write = { method: 'POST', path, body };
    await this.beforeWrite(w);
    if (options.signal?.aborted) throw new Error('aborted');
    this.writes.push(w);
    const cm = /^\/api\/v1\/namespaces\/([^/]+)\/configmaps$/.exec(path);
    if (cm) return this.createConfigMap<T>(body as Obj);
    if (path === '/apis/dkc.io/v1alpha1/nodeconfigs') return this.createNodeConfig<T>(body as Obj);
    this.events.push(clone(body as Obj));
    this.settle();
    return clone(body) as T;
  }

  // ---- internals ----------------------------------------------------------------------------------------------

  private createConfigMap<T>(body: Obj): T {
    const key = this.keyOf('configmaps', body);
    if (this.stores['configmaps']!.has(key)) throw alreadyExists(key);
    return this.put('configmaps', { ...body, metadata: { ...body.metadata, uid: `uid-${key}` } }) as T;
  }

  private createNodeConfig<T>(body: Obj): T {
    const key = this.keyOf('nodeconfigs', body);
    if (this.stores['nodeconfigs']!.has(key)) throw alreadyExists(key);
    const created = this.put('nodeconfigs', { ...body, metadata: { ...body.metadata, uid: `uid-nc-${key}` } });
    this.onNodeConfigChange(clone(created));
    return created as T;
  }

  private keyOf(kind: string, obj: Obj): string {
    return kind === 'configmaps' || kind === 'leases'
      ? `${obj.metadata.namespace}/${obj.metadata.name}`
      : (obj.metadata.name ?? '');
  }

  private locate(path: string): { kind: string; name: string } {
    const m =
      /^(\/api\/v1\/nodes|\/apis\/dkc\.io\/v1alpha1\/nodeconfigrollouts|\/apis\/dkc\.io\/v1alpha1\/nodeconfigs)\/([^/]+)(\/status)?$/.exec(
        path,
      );
    const cm = CONFIGMAP_PATH.exec(path);
    if (cm) return { kind: 'configmaps', name: `${decodeURIComponent(cm[1]!)}/${decodeURIComponent(cm[2]!)}` };
    if (!m) throw notFound(path);
    return { kind: COLLECTIONS[m[1]!]!, name: decodeURIComponent(m[2]!) };
  }

  private async write<T>(w: Write, options: CallOptions, change: (current: Obj) => Obj): Promise<T> {
    await this.beforeWrite(w);
    if (options.signal?.aborted) throw new Error('aborted');
    const { kind, name } = this.locate(w.path);
    const current = this.stores[kind]!.get(name);
    if (!current) throw notFound(w.path);
    const next = change(clone(current));
    this.writes.push(w);
    if (
      next.metadata['deletionTimestamp'] !== undefined &&
      ((next.metadata['finalizers'] as string[] | undefined) ?? []).length === 0
    ) {
      // The last finalizer removed from an object being deleted: it goes.
      this.remove(kind as 'rollouts', name);
      return clone(current) as T;
    }
    next.metadata.resourceVersion = String(++this.rv);
    this.stores[kind]!.set(name, next);
    this.emit(kind, 'MODIFIED', next);
    if (kind === 'nodes') this.onNodeChange(clone(next));
    if (kind === 'nodeconfigs') this.onNodeConfigChange(clone(next));
    return clone(next) as T;
  }

  private emit(kind: string, type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: Obj): void {
    const snapshot = clone(obj);
    this.history.push({ rv: Number(obj.metadata.resourceVersion), kind, type, obj: snapshot });
    for (const w of this.watchers) if (w.kind === kind) w.out.write(JSON.stringify({ type, object: snapshot }) + '\n');
    this.settle();
  }

  private settle(): void {
    for (const w of this.waiters.splice(0)) {
      if (w.pred()) w.resolve();
      else this.waiters.push(w);
    }
  }
}
