// The node's Pod runner: watches the Pods bound to this node (an informer on spec.nodeName, or a view of a watch its
// host shares among its nodes), and for each one does
// what decidePod says, one Pod at a time: starts it in the simulated runtime and reports it Running, refuses it at
// admission, stops it on a graceful delete and confirms the delete with grace 0, or ends what runs for a Pod the API
// no longer has. Stopping the runner stops nothing that runs: the runtime's file keeps the Pods for the next agent.

import type { RestClient } from '../../client/index.js';
import { isApiError } from '../../client/index.js';
import { Informer, type KubeObject as InformerObject } from '../../client/informer.js';
import type { InformerLike } from '../../client/sharedinformers.js';
import { deepEqual } from '../../api/equal.js';
import { formatTime, type Clock } from '../../util/clock.js';
import { errorMessage } from '../../util/errors.js';
import { klog } from '../../util/klog.js';
import type { Pod } from '../../api/workloads.js';
import { rejectedStatus, type Admission } from './admission.js';
import { decidePod, type PodAction } from './decide.js';
import { runtimeStatus } from './podstatus.js';
import { freeIP, podRangeOf, RuntimeStore, startedPod, type PodRuntime } from './runtime.js';
import { podLogs as logs } from './messages.js';
import type { RunningPod, RuntimeState } from './types.js';

/** A Pod as the informer holds it. */
export type WatchedPod = Pod & InformerObject;

export interface PodRunnerOptions {
  client: RestClient;
  nodeName: string;
  rootDir: string;
  hostIP: string;
  clock: Clock;
  /** The node's spec.podCIDR, when it has one. */
  podCIDR?: string;
  /** Whether the node admits `pod` beside the Pods it runs (the kubelet's admission, ./admission.ts). */
  admit: (pod: Pod, running: readonly Pod[]) => Promise<Admission>;
  /** The Pods bound to the node, when the host shares one watch among its nodes; else an informer of its own. */
  feed?: InformerLike<WatchedPod>;
  /** Where the runtime keeps its Pods; else `<rootDir>/pods/runtime.json`. */
  runtime?: PodRuntime;
}

const podPath = (p: { namespace: string; name: string }) => `/api/v1/namespaces/${p.namespace}/pods/${p.name}`;
const uidOf = (p: Pod) => p.metadata?.uid ?? '';
/** The status as compared: a null field (lastProbeTime) is the same as an absent one. */
const withoutNulls = (v: unknown): unknown => JSON.parse(JSON.stringify(v ?? {}, (_k, x: unknown) => x ?? undefined));
const nameOf = (p: Pod) => ({ namespace: p.metadata?.namespace ?? '', name: p.metadata?.name ?? '' });

export class PodRunner {
  private readonly o: PodRunnerOptions;
  private readonly informer: InformerLike<WatchedPod>;
  private readonly store: PodRuntime;
  private readonly range: string;
  private readonly pending = new Set<string>();
  /** The status last written for each Pod: the same status is not written twice, whatever the server echoes. */
  private readonly written = new Map<string, unknown>();
  private draining: Promise<void> | undefined;
  private stopped = false;

  constructor(o: PodRunnerOptions) {
    this.o = o;
    this.store = o.runtime ?? new RuntimeStore(o.rootDir);
    this.range = podRangeOf(o.nodeName, o.podCIDR);
    this.informer =
      o.feed ??
      new Informer<WatchedPod>(o.client, '/api/v1/pods', {
        fieldSelector: `spec.nodeName=${o.nodeName}`,
        clock: o.clock,
      });
  }

  /** Reads the runtime's file and starts watching; resolves once the Pods bound here have been listed. */
  async start(): Promise<void> {
    await this.store.load();
    for (const e of ['add', 'delete'] as const) this.informer.on(e, (p: Pod) => this.enqueue(uidOf(p)));
    this.informer.on('update', (_old, p) => this.enqueue(uidOf(p)));
    this.informer.on('error', (err) => klog.v(2, logs.watchFailed(errorMessage(err))));
    this.informer.start();
    await this.informer.whenSynced();
    klog.info(logs.synced(this.informer.store.size, Object.keys(this.store.state.pods).length));
    // Pods the runtime runs that the API no longer has are looked at too.
    for (const uid of Object.keys(this.store.state.pods)) this.enqueue(uid);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.informer.stop();
    await this.draining;
  }

  /** The Pods bound to the node, as the API last showed them (the kubelet's /pods). */
  pods(): Pod[] {
    return this.informer.store.list();
  }

  /** The Pods the runtime runs (for the node's status and tests). */
  running(): RunningPod[] {
    return Object.values(this.store.state.pods);
  }

  /** Resolves once every Pod queued so far has been looked at. */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private enqueue(uid: string): void {
    if (uid === '' || this.stopped) return;
    this.pending.add(uid);
    this.draining ??= this.drain().finally(() => (this.draining = undefined));
  }

  private async drain(): Promise<void> {
    for (let left = 10_000; left > 0 && this.pending.size > 0 && !this.stopped; left--) {
      const uid = this.pending.values().next().value as string;
      this.pending.delete(uid);
      await this.sync(uid).catch((err: unknown) => klog.warning(logs.syncFailed(uid, errorMessage(err))));
    }
  }

  private podOf(uid: string): WatchedPod | undefined {
    return this.informer.store.list().find((p) => uidOf(p) === uid);
  }

  private async sync(uid: string): Promise<void> {
    const pod = this.podOf(uid);
    const running = this.store.state.pods[uid];
    const now = formatTime(this.o.clock.now());
    const reported = pod !== undefined && running !== undefined && this.isReported(pod, running, now);
    await this.act(decidePod({ pod, running, reported }), uid, pod, running, now);
  }

  private isReported(pod: Pod, running: RunningPod, now: string): boolean {
    const desired = withoutNulls(runtimeStatus(pod, running, this.o.hostIP, now));
    return deepEqual(this.written.get(uidOf(pod)), desired) || deepEqual(withoutNulls(pod.status), desired);
  }

  private async act(a: PodAction, uid: string, pod: Pod | undefined, running: RunningPod | undefined, now: string) {
    switch (a.kind) {
      case 'none':
        return;
      case 'admit':
        return this.admit(pod!, uid, now);
      case 'report':
        return this.writeStatus(pod!, runtimeStatus(pod!, running!, this.o.hostIP, now));
      case 'stop':
        await this.save({ ...running!, stoppedAt: now });
        klog.info(logs.stopped(nameOf(pod!)));
        return this.enqueue(uid);
      case 'confirm':
        return this.confirm(pod!, uid);
      case 'forget':
        klog.info(logs.forgotten(running!));
        return this.remove(uid);
    }
  }

  private async admit(pod: Pod, uid: string, now: string): Promise<void> {
    const others = this.running()
      .filter((r) => r.uid !== uid && r.stoppedAt === undefined)
      .map((r) => this.podOf(r.uid))
      .filter((p): p is WatchedPod => p !== undefined);
    const admission = await this.o.admit(pod, others);
    if (admission.admit) return this.startPod(pod, now);
    klog.info(logs.rejected(nameOf(pod), admission.reason, admission.message));
    await this.writeStatus(pod, rejectedStatus(admission));
  }

  private async startPod(pod: Pod, now: string): Promise<void> {
    const ip = freeIP(this.range, this.store.state);
    if (ip === undefined) throw new Error(logs.noAddress(this.range));
    const running = startedPod(pod, ip, now);
    await this.save(running);
    klog.info(logs.started(nameOf(pod), ip));
    await this.writeStatus(pod, runtimeStatus(pod, running, this.o.hostIP, now));
  }

  private async writeStatus(pod: Pod, status: Pod['status']): Promise<void> {
    const body = { metadata: { uid: uidOf(pod) }, status };
    await this.o.client.patch(`${podPath(nameOf(pod))}/status`, 'merge', body).catch((err: unknown) => {
      if (!isApiError(err) || (err.code !== 404 && err.code !== 409)) throw err;
    });
    this.written.set(uidOf(pod), withoutNulls(status));
  }

  private async confirm(pod: Pod, uid: string): Promise<void> {
    // The node holds nothing of the Pod once the API no longer has it: its record goes first (a delete that then
    // fails is asked again, and confirmed again, on the Pod's next change).
    await this.remove(uid);
    const body = { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, preconditions: { uid } };
    await this.o.client.delete(podPath(nameOf(pod)), { body }).catch((err: unknown) => {
      if (!isApiError(err) || (err.code !== 404 && err.code !== 409)) throw err;
    });
    klog.info(logs.removed(nameOf(pod)));
  }

  private async save(p: RunningPod): Promise<void> {
    const state: RuntimeState = { pods: { ...this.store.state.pods, [p.uid]: p } };
    await this.store.save(state);
  }

  private async remove(uid: string): Promise<void> {
    if (!this.store.state.pods[uid]) return;
    this.written.delete(uid);
    const { [uid]: _gone, ...rest } = this.store.state.pods;
    await this.store.save({ pods: rest });
  }
}
