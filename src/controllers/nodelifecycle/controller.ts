// The node lifecycle controller's loop: informers on Nodes and on the node Leases (kube-node-lease), and a pass over
// every node each node monitor period that marks silent nodes Unknown and keeps the readiness taints in line with the
// Ready condition; a Node that changes is looked at again soon, alone (thousands of heartbeating nodes change all the
// time, and a pass over all of them after each change made the controller O(nodes) per status update). Writes carry the resourceVersion they were computed from, so a concurrent report
// from the agent wins and the next pass decides again on fresh data.

import type { Lease, Node } from '../../api/types.js';
import { ApiError, type KubeObject, type RestClient } from '../../client/index.js';
import { SharedInformerFactory, type InformerLike } from '../../client/sharedinformers.js';
import type { Clock, TimerHandle } from '../../util/clock.js';
import { klog } from '../../util/klog.js';
import type { Registry } from '../../util/prom.js';
import type { RunningController } from '../types.js';
import { conditionsForSilentNode, observeHealth, silentTooLong, taintsFor, type NodeHealth } from './health.js';
import { logs } from './messages.js';
import { registerNodeMetrics } from './metrics.js';
import { errorMessage } from '../../util/errors.js';

/** kube-controller-manager's --node-monitor-period. */
const MAX_MONITOR_PERIOD_MS = 5_000;
/** After a Node changes, its taints are reconsidered this soon (events come in bursts). */
const EVENT_DEBOUNCE_MS = 50;

export interface NodeLifecycleOptions {
  client: RestClient;
  clock: Clock;
  signal: AbortSignal;
  gracePeriodMs: number;
  /** kube_node_status_condition goes here until the controller stops. */
  metrics?: Registry;
  /** The process's shared informers (the host's); the controller makes and stops its own when none are given. */
  informers?: SharedInformerFactory;
}

// The API types, as the informer holds them.
type NodeObject = Node & KubeObject;
type LeaseObject = Lease & KubeObject;

function nodePath(name: string): string {
  return `/api/v1/nodes/${encodeURIComponent(name)}`;
}

export class NodeLifecycle implements RunningController {
  private readonly o: NodeLifecycleOptions;
  private readonly nodes: InformerLike<NodeObject>;
  private readonly leases: InformerLike<LeaseObject>;
  /** The informers this controller made because its host shared none; stopped with it. */
  private readonly ownInformers: SharedInformerFactory | undefined;
  private readonly health = new Map<string, NodeHealth>();
  private readonly periodMs: number;
  private timer: TimerHandle = undefined;
  private dueMs = 0;
  /** Nodes changed since the last pass; the next pass looks at these only, unless the full pass is due. */
  private readonly dirty = new Set<string>();
  private nextFullMs = 0;
  private pass: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private readonly removeMetrics: () => void;

  constructor(options: NodeLifecycleOptions) {
    this.o = options;
    this.periodMs = Math.max(100, Math.min(MAX_MONITOR_PERIOD_MS, Math.floor(options.gracePeriodMs / 4)));
    if (!options.informers) this.ownInformers = new SharedInformerFactory(options.client, { clock: options.clock });
    const informers = options.informers ?? this.ownInformers!;
    this.nodes = informers.informer<NodeObject>('/api/v1/nodes');
    this.leases = informers.informer<LeaseObject>('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases');
    const changed = (n: NodeObject): void => {
      this.dirty.add(n.metadata.name ?? '');
      this.schedule(EVENT_DEBOUNCE_MS);
    };
    this.nodes.on('update', (_old, n) => changed(n));
    this.nodes.on('add', changed);
    this.nodes.on('delete', (n) => this.health.delete(n.metadata.name ?? ''));
    const metrics = options.metrics;
    this.removeMetrics = metrics ? registerNodeMetrics(metrics, () => this.nodes.store.list()) : () => undefined;
    if (options.signal.aborted) this.stopped = true;
    else options.signal.addEventListener('abort', () => void this.stop(), { once: true });
  }

  async start(): Promise<void> {
    if (this.stopped) return;
    this.nodes.start();
    this.leases.start();
    await Promise.all([this.nodes.whenSynced(), this.leases.whenSynced()]);
    this.schedule(0);
  }

  /** Runs a pass in `delayMs`, or sooner if one is already due sooner: a stream of Node events never postpones it. */
  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.pass !== undefined) {
      this.again = true;
      return;
    }
    const dueMs = this.o.clock.monotonicMs() + delayMs;
    if (this.timer !== undefined) {
      if (this.dueMs <= dueMs) return;
      this.o.clock.clearTimeout(this.timer);
    }
    this.dueMs = dueMs;
    this.timer = this.o.clock.setTimeout(() => {
      this.timer = undefined;
      this.pass = this.monitor().finally(() => {
        this.pass = undefined;
        const soon = this.again || this.dirty.size > 0;
        this.again = false;
        this.schedule(soon ? EVENT_DEBOUNCE_MS : Math.max(0, this.nextFullMs - this.o.clock.monotonicMs()));
      });
    }, delayMs);
  }

  /** monitorNodeHealth: one look at every node when the period is over, else at the nodes that changed. */
  private async monitor(): Promise<void> {
    if (!this.nodes.hasSynced() || !this.leases.hasSynced()) return;
    const nowMs = this.o.clock.monotonicMs();
    const full = nowMs >= this.nextFullMs;
    if (full) this.nextFullMs = nowMs + this.periodMs;
    const nodes = full ? this.nodes.store.list() : [...this.dirty].flatMap((name) => this.nodes.store.get(name) ?? []);
    this.dirty.clear();
    for (const node of nodes) {
      if (this.stopped) return;
      try {
        await this.reconcile(node);
      } catch (err) {
        if (this.stopped) return;
        if (err instanceof ApiError && (err.code === 409 || err.code === 404)) continue; // the next pass decides again
        klog.error(logs.updateFailed(node.metadata.name ?? '', errorMessage(err)));
      }
    }
  }

  private async reconcile(observed: Node): Promise<void> {
    const name = observed.metadata.name ?? '';
    const lease = this.leases.store.get(`kube-node-lease/${name}`);
    const nowMs = this.o.clock.monotonicMs();
    const health = observeHealth(this.health.get(name), observed, lease, nowMs);
    this.health.set(name, health);
    let node = observed;
    if (silentTooLong(health, nowMs, this.o.gracePeriodMs)) {
      const conditions = conditionsForSilentNode(node, this.o.clock.now());
      if (conditions !== undefined) {
        klog.info(logs.markedUnknown(name, nowMs - health.probeMs));
        node = await this.o.client.update<Node>(
          `${nodePath(name)}/status`,
          { ...node, status: { ...node.status, conditions } },
          { signal: this.o.signal },
        );
      }
    }
    const taints = taintsFor(node, this.o.clock.now());
    if (taints === undefined || this.stopped) return;
    klog.info(
      logs.taintsChanged(
        name,
        taints.map((t) => `${t.key}:${t.effect}`),
      ),
    );
    const patch = { metadata: { resourceVersion: node.metadata.resourceVersion }, spec: { taints } };
    await this.o.client.patch(nodePath(name), 'merge', patch, { signal: this.o.signal });
  }

  /** Stops informers and timers; resolves when no write is in flight any more. */
  async stop(): Promise<void> {
    this.removeMetrics();
    this.stopped = true;
    if (this.timer !== undefined) this.o.clock.clearTimeout(this.timer);
    this.timer = undefined;
    await Promise.all([this.nodes.stop(), this.leases.stop()]);
    await this.ownInformers?.stop();
    await this.pass?.catch(() => undefined);
  }
}
