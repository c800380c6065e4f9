// The disruption controller's loop (kube-controller-manager's disruption controller): informers on
// PodDisruptionBudgets and Pods; a PDB is queued when it changes and when a Pod it selects comes, changes or goes;
// a worker syncs one PDB at a time through ./compute.ts's syncDisruption — the controllers of its Pods and their
// scale looked up by ./owners.ts when the budget counts by scale — records the events it says and writes the status
// through the status subresource (an update, so an eviction's write in between is a conflict, not lost). A PDB is
// synced again when its oldest disruptedPods entry ages out; a failed write is retried with backoff.

import { controllerOf } from '../../api/pods.js';
import type { PodDisruptionBudget } from '../../api/workloads.js';
import { isApiError, type KubeObject } from '../../client/index.js';
import { objectKey } from '../../client/informer.js';
import type { InformerLike } from '../../client/sharedinformers.js';
import { podPath, type PodControllerOptions, type PodObject } from '../podinformers.js';
import { SyncWorker } from '../syncworker.js';
import { errorMessage } from '../../util/errors.js';
import { klog } from '../../util/klog.js';
import { QueuedController, referenceTo } from '../queuedcontroller.js';
import { syncDisruption, selectPods, type ControllerLookup, type DisruptionEvent } from './compute.js';
import { events as texts, logs } from './messages.js';
import { findController } from './owners.js';
import { STALE_FIELD_MANAGER, staleDisruptionIn, staleDisruptionReset } from './stale.js';

type PdbObject = PodDisruptionBudget & KubeObject;

export const PDBS_PATH = '/apis/policy/v1/poddisruptionbudgets';

export type DisruptionControllerOptions = PodControllerOptions;

const pdbPath = (ns: string, name: string): string => `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/${name}`;

/** Whether the budget counts by its Pods' controllers' scale (maxUnavailable, or minAvailable as a percentage). */
const countsByScale = (pdb: PodDisruptionBudget): boolean =>
  (pdb.spec?.maxUnavailable !== undefined && pdb.spec.maxUnavailable !== null) ||
  typeof pdb.spec?.minAvailable === 'string';

export class DisruptionController extends QueuedController {
  private readonly pdbs: InformerLike<PdbObject>;
  private readonly pods: InformerLike<PodObject>;
  /** Pods whose DisruptionTarget condition is to be reset when it goes stale (kube's second queue). */
  private readonly stale: SyncWorker;

  constructor(o: DisruptionControllerOptions) {
    super(o, logs);
    this.stale = new SyncWorker(
      o.clock,
      (key) => this.syncStale(key),
      (key, err) => klog.error(logs.staleFailed(key, errorMessage(err))),
    );
    this.pdbs = this.informer<PdbObject>(PDBS_PATH);
    this.pods = this.informer<PodObject>('/api/v1/pods');
    this.pdbs.on('add', (p) => this.queue.add(objectKey(p)));
    this.pdbs.on('update', (_old, p) => this.queue.add(objectKey(p)));
    this.pods.on('add', (p) => (this.podChanged(p), this.checkStale(p)));
    this.pods.on('update', (old, p) => (this.podChanged(old, false), this.podChanged(p), this.checkStale(p)));
    this.pods.on('delete', (p) => this.podChanged(p));
  }

  override async start(): Promise<void> {
    await super.start();
    this.stale.start();
  }

  override async stop(): Promise<void> {
    await this.stale.stop();
    await super.stop();
  }

  private checkStale(pod: PodObject): void {
    const inMs = staleDisruptionIn(pod, this.o.clock.now().getTime());
    if (inMs !== undefined) this.stale.addAfter(objectKey(pod), inMs);
  }

  /** syncStalePodDisruption: the condition reset to False by a forced apply of the Pod's status. */
  private async syncStale(key: string): Promise<void> {
    const pod = this.pods.store.get(key);
    const nowMs = this.o.clock.now().getTime();
    const inMs = pod && staleDisruptionIn(pod, nowMs);
    if (!pod || inMs === undefined) return;
    if (inMs > 0) return this.stale.addAfter(key, inMs);
    const query = { fieldManager: STALE_FIELD_MANAGER, force: 'true' };
    try {
      await this.o.client.patch(`${podPath(pod)}/status`, 'apply', staleDisruptionReset(pod, nowMs), { query });
    } catch (err) {
      if (!isApiError(err, 404)) throw err;
      return;
    }
    klog.v(2, logs.staleReset(key));
  }

  /**
   * The PDBs of the Pod's namespace that select it are synced again. Selected by several, the Pod gets kube's
   * MultiplePodDisruptionBudgets warning (`warn`: the Pod as it is now, not as it was).
   */
  private podChanged(pod: PodObject, warn = true): void {
    const ns = pod.metadata.namespace;
    const selecting = this.pdbs.store.list().filter((pdb) => {
      if (pdb.metadata.namespace !== ns) return false;
      try {
        return selectPods(pdb, [pod]).length > 0;
      } catch {
        return false; // a selector that does not parse: the PDB's own sync reports it
      }
    });
    for (const pdb of selecting) this.queue.add(objectKey(pdb));
    if (warn && selecting.length > 1) {
      const { namespace = '', name = '' } = pod.metadata;
      const message = texts.multiple(namespace, name, selecting[0]!.metadata.name ?? '');
      this.event(referenceTo('v1', 'Pod', pod), 'Warning', texts.multipleReason, message);
    }
  }

  protected async sync(key: string): Promise<void> {
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
      await this.updateStatus(pdbPath(ns, pdb.metadata.name ?? ''), body);
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
    const pod = e.on.kind === 'Pod' ? this.pods.store.get(`${pdb.metadata.namespace ?? ''}/${e.on.name}`) : undefined;
    const on =
      e.on.kind === 'Pod'
        ? referenceTo('v1', 'Pod', pod ?? { metadata: { namespace: pdb.metadata.namespace ?? '', name: e.on.name } })
        : referenceTo('policy/v1', 'PodDisruptionBudget', pdb);
    this.event(on, e.type, e.reason, e.message);
  }
}
