// The disruption controller's loop (kube-controller-manager's disruption controller): informers on
// PodDisruptionBudgets and Pods; a PDB is queued when it changes and when a Pod it selects comes, changes or goes;
// a worker syncs one PDB at a time through ./compute.ts's syncDisruption — the controllers of its Pods and their
// scale looked up by ./owners.ts when the budget counts by scale — records the events it says and writes the status
// through the status subresource (an update, so an eviction's write in between is a conflict, not lost). A PDB is
// synced again when its oldest disruptedPods entry ages out; a failed write is retried with backoff.

import type { ObjectReference } from '../../api/types.js';
import { controllerOf } from '../../api/pods.js';
import type { PodDisruptionBudget } from '../../api/workloads.js';
import { isApiError, type KubeObject } from '../../client/index.js';
import { controllerEventRecorder, type EventRecorder } from '../../client/events.js';
import { objectKey } from '../../client/informer.js';
import { SharedInformerFactory, type InformerLike } from '../../client/sharedinformers.js';
import { backoffDelay } from '../../util/backoff.js';
import { errorMessage } from '../../util/errors.js';
import { klog } from '../../util/klog.js';
import type { PodControllerOptions, PodObject } from '../podinformers.js';
import { syncedOrAborted } from '../waitsynced.js';
import { WorkQueue } from '../rollout/queue.js';
import type { RunningController } from '../types.js';
import { syncDisruption, selectPods, type ControllerLookup, type DisruptionEvent } from './compute.js';
import { logs } from './messages.js';
import { findController } from './owners.js';

type PdbObject = PodDisruptionBudget & KubeObject;

export const PDBS_PATH = '/apis/policy/v1/poddisruptionbudgets';
/** kube's default controller rate limiter, its per-item part: 5 ms doubling, at most 1000 s. */
const RETRY = { initialMs: 5, maxMs: 1_000_000 };

export type DisruptionControllerOptions = PodControllerOptions;

const pdbPath = (ns: string, name: string): string => `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/${name}`;

/** Whether the budget counts by its Pods' controllers' scale (maxUnavailable, or minAvailable as a percentage). */
const countsByScale = (pdb: PodDisruptionBudget): boolean =>
  (pdb.spec?.maxUnavailable !== undefined && pdb.spec.maxUnavailable !== null) ||
  typeof pdb.spec?.minAvailable === 'string';

export class DisruptionController implements RunningController {
  private readonly o: DisruptionControllerOptions;
  private readonly pdbs: InformerLike<PdbObject>;
  private readonly pods: InformerLike<PodObject>;
  private readonly own: SharedInformerFactory | undefined;
  private readonly queue: WorkQueue;
  private readonly recorder: EventRecorder;
  private readonly failures = new Map<string, number>();
  private worker: Promise<void> | undefined;
  private stopped = false;

  constructor(o: DisruptionControllerOptions) {
    this.o = o;
    this.own = o.informers ? undefined : new SharedInformerFactory(o.client, { clock: o.clock });
    const informers = o.informers ?? this.own!;
    this.pdbs = informers.informer<PdbObject>(PDBS_PATH);
    this.pods = informers.informer<PodObject>('/api/v1/pods');
    this.queue = new WorkQueue(o.clock);
    this.recorder = controllerEventRecorder(o.client, logs.component, o.clock);
    this.pdbs.on('add', (p) => this.queue.add(objectKey(p)));
    this.pdbs.on('update', (_old, p) => this.queue.add(objectKey(p)));
    this.pods.on('add', (p) => this.podChanged(p));
    this.pods.on('update', (old, p) => (this.podChanged(old), this.podChanged(p)));
    this.pods.on('delete', (p) => this.podChanged(p));
    if (o.signal.aborted) this.stopped = true;
    else o.signal.addEventListener('abort', () => void this.stop(), { once: true });
  }

  async start(): Promise<void> {
    if (this.stopped) return;
    this.pdbs.start();
    this.pods.start();
    if (!(await syncedOrAborted(this.o.signal, this.pdbs, this.pods)) || this.stopped) return;
    this.worker = this.work();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.queue.shutDown();
    await this.pdbs.stop();
    await this.pods.stop();
    await this.worker?.catch(() => undefined);
    await this.recorder.stop();
    await this.own?.stop();
  }

  /** The PDBs of the Pod's namespace that select it are synced again. */
  private podChanged(pod: PodObject): void {
    const ns = pod.metadata.namespace;
    for (const pdb of this.pdbs.store.list()) {
      if (pdb.metadata.namespace !== ns) continue;
      let selects = false;
      try {
        selects = selectPods(pdb, [pod]).length > 0;
      } catch {
        // A selector that does not parse: the PDB's own sync reports it.
      }
      if (selects) this.queue.add(objectKey(pdb));
    }
  }

  private async work(): Promise<void> {
    for (;;) {
      const key = await this.queue.next();
      if (key === undefined || this.stopped) return;
      try {
        await this.sync(key);
        this.failures.delete(key);
      } catch (err) {
        if (this.stopped) return;
        const failures = (this.failures.get(key) ?? 0) + 1;
        this.failures.set(key, failures);
        klog.error(logs.syncFailed(key, errorMessage(err)));
        this.queue.addAfter(key, backoffDelay(RETRY, failures));
      } finally {
        this.queue.done(key);
      }
    }
  }

  private async sync(key: string): Promise<void> {
    const pdb = this.pdbs.store.get(key);
    if (!pdb) return;
    const ns = pdb.metadata.namespace ?? '';
    const pods = this.pods.store.list().filter((p) => p.metadata.namespace === ns);
    const controllers = countsByScale(pdb) ? await this.lookUp(pdb, pods) : new Map<string, ControllerLookup>();
    const now = this.o.clock.now().getTime();
    const result = syncDisruption({ pdb, pods, controllers, now });
    for (const e of result.events) this.record(pdb, e);
    if (result.write) {
      const body = { ...pdb, apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', status: result.status };
      try {
        await this.o.client.update(`${pdbPath(ns, pdb.metadata.name ?? '')}/status`, body);
      } catch (err) {
        if (isApiError(err, 404)) return;
        throw err;
      }
    }
    if (result.recheckAt !== undefined) this.queue.addAfter(key, Math.max(0, result.recheckAt - now));
  }

  /** The controllers of the selected Pods, by controllerRef uid, each looked up once per sync. */
  private async lookUp(pdb: PodDisruptionBudget, pods: readonly PodObject[]): Promise<Map<string, ControllerLookup>> {
    const found = new Map<string, ControllerLookup>();
    let selected: PodObject[];
    try {
      selected = selectPods(pdb, pods) as PodObject[];
    } catch {
      return found;
    }
    const get = (path: string) =>
      this.o.client.get(path).catch((err: unknown) => {
        if (isApiError(err, 404)) return undefined;
        throw err;
      });
    for (const pod of selected) {
      const ref = controllerOf(pod);
      if (!ref || found.has(ref.uid)) continue;
      const lookup = await findController(get, pod.metadata.namespace ?? '', ref);
      if (lookup) found.set(ref.uid, lookup);
    }
    return found;
  }

  private record(pdb: PdbObject, e: DisruptionEvent): void {
    const { namespace, name, uid } = pdb.metadata;
    let ref: ObjectReference;
    if (e.on.kind === 'Pod') {
      const pod = this.pods.store.get(`${namespace ?? ''}/${e.on.name}`);
      ref = {
        apiVersion: 'v1',
        kind: 'Pod',
        namespace: namespace ?? '',
        name: e.on.name,
        uid: pod?.metadata.uid ?? '',
      };
    } else {
      ref = {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        namespace: namespace ?? '',
        name: name ?? '',
        uid: uid ?? '',
      };
    }
    this.recorder.record(ref, e.type, e.reason, e.message);
  }
}
