// The scheduler's loop (kube-scheduler's, reduced to its filters): informers on Nodes and Pods; each Pod with no
// node that names the default scheduler is placed by ./fit.ts's schedule on a node that fits, and bound through
// pods/binding; one that fits nowhere gets PodScheduled=False (Unschedulable) and a FailedScheduling event, and is
// tried again when a node or a Pod changes, or after a while. A Pod just bound counts on its node until the informer
// shows it there (kube's assumed Pods), so a burst spreads.

import type { Pod } from '../../api/workloads.js';
import { isPodTerminal } from '../../api/pods.js';
import { isApiError } from '../../client/index.js';
import type { EventType } from '../../client/events.js';
import { SharedInformerFactory, type InformerLike } from '../../client/sharedinformers.js';
import { formatTime, type TimerHandle } from '../../util/clock.js';
import { errorMessage } from '../../util/errors.js';
import { klog } from '../../util/klog.js';
import type { RunningController } from '../types.js';
import {
  nodeAndPodInformers,
  podKey,
  podPath,
  recordPodEvent,
  type NodeObject,
  type PodControllerOptions,
  type PodObject,
} from '../podinformers.js';
import { syncedOrAborted } from '../waitsynced.js';
import { schedule, type Candidate } from './fit.js';
import { events, messages } from './messages.js';

export const SCHEDULER_NAME = 'default-scheduler';
/** Unschedulable Pods are tried again at least this often (kube flushes its unschedulable queue after 5 min). */
const RETRY_MS = 10_000;

export type SchedulerOptions = PodControllerOptions;

const keyOf = podKey;

/** A Pod this scheduler is to place: no node yet, ours, not going and not finished. */
export function awaitsScheduling(p: Pod): boolean {
  return (
    !p.spec?.nodeName &&
    (p.spec?.schedulerName ?? SCHEDULER_NAME) === SCHEDULER_NAME &&
    p.metadata.deletionTimestamp == null &&
    !isPodTerminal(p)
  );
}

export class Scheduler implements RunningController {
  private readonly o: SchedulerOptions;
  private readonly nodes: InformerLike<NodeObject>;
  private readonly pods: InformerLike<PodObject>;
  private readonly own: SharedInformerFactory | undefined;
  private readonly queue = new Set<string>();
  /** Pods bound by this scheduler that the informer does not show bound yet: uid → node. */
  private readonly assumed = new Map<string, { pod: Pod; node: string }>();
  /** The message last reported for each unschedulable Pod: the same one is not written again. */
  private readonly reported = new Map<string, string>();
  private running: Promise<void> | undefined;
  private retry: TimerHandle = undefined;
  private stopped = false;

  constructor(o: SchedulerOptions) {
    this.o = o;
    ({ nodes: this.nodes, pods: this.pods, own: this.own } = nodeAndPodInformers(o, SCHEDULER_NAME));
    const everyone = () => this.requeueAll();
    this.nodes.on('add', everyone);
    this.nodes.on('update', everyone);
    this.pods.on('add', (p) => this.podChanged(p));
    this.pods.on('update', (_old, p) => this.podChanged(p));
    this.pods.on('delete', (p) => (this.assumed.delete(p.metadata.uid ?? ''), this.requeueAll()));
    if (o.signal.aborted) this.stopped = true;
    else o.signal.addEventListener('abort', () => void this.stop(), { once: true });
  }

  async start(): Promise<void> {
    if (this.stopped) return;
    this.nodes.start();
    this.pods.start();
    if (!(await syncedOrAborted(this.o.signal, this.nodes, this.pods)) || this.stopped) return;
    this.requeueAll();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.o.clock.clearTimeout(this.retry);
    await this.running;
    await this.own?.stop();
  }

  private podChanged(p: Pod): void {
    if (p.spec?.nodeName) this.assumed.delete(p.metadata.uid ?? '');
    if (awaitsScheduling(p)) this.enqueue(keyOf(p));
  }

  private requeueAll(): void {
    for (const p of this.pods.store.list()) if (awaitsScheduling(p)) this.queue.add(keyOf(p));
    this.kick();
  }

  private enqueue(key: string): void {
    this.queue.add(key);
    this.kick();
  }

  private kick(): void {
    if (this.stopped || this.running || this.queue.size === 0) return;
    this.running = this.drain().finally(() => {
      this.running = undefined;
      this.kick();
    });
  }

  private async drain(): Promise<void> {
    for (let left = 10_000; left > 0 && this.queue.size > 0 && !this.stopped; left--) {
      const key = this.queue.values().next().value as string;
      this.queue.delete(key);
      const pod = this.pods.store.get(key);
      if (!pod || !awaitsScheduling(pod) || this.assumed.has(pod.metadata.uid ?? '')) continue;
      await this.scheduleOne(pod).catch((err: unknown) => klog.warning(`scheduling ${key}: ${errorMessage(err)}`));
    }
  }

  private candidates(): Candidate[] {
    const byNode = new Map<string, Pod[]>();
    for (const p of this.pods.store.list()) {
      const n = p.spec?.nodeName;
      if (n) (byNode.get(n) ?? byNode.set(n, []).get(n)!).push(p);
    }
    for (const { pod, node } of this.assumed.values()) (byNode.get(node) ?? byNode.set(node, []).get(node)!).push(pod);
    return this.nodes.store.list().map((node) => ({ node, pods: byNode.get(node.metadata.name ?? '') ?? [] }));
  }

  private async scheduleOne(pod: Pod): Promise<void> {
    const result = schedule(pod, this.candidates());
    if (result.outcome === 'bind') return this.bind(pod, result.node);
    await this.unschedulable(pod, result.message);
    this.o.clock.clearTimeout(this.retry);
    this.retry = this.o.clock.setTimeout(() => this.requeueAll(), RETRY_MS);
  }

  private async bind(pod: Pod, node: string): Promise<void> {
    const { namespace, name, uid } = pod.metadata;
    const binding = {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { namespace, name, uid },
      target: { apiVersion: 'v1', kind: 'Node', name: node },
    };
    try {
      await this.o.client.create(`${podPath(pod)}/binding`, binding);
    } catch (err) {
      // Bound meanwhile, or gone: the informer tells which.
      if (isApiError(err) && (err.code === 409 || err.code === 404)) return;
      throw err;
    }
    this.assumed.set(uid ?? '', { pod: { ...pod, spec: { ...pod.spec!, nodeName: node } }, node });
    this.reported.delete(keyOf(pod));
    this.event(pod, 'Normal', events.scheduled, messages.scheduled(namespace ?? '', name ?? '', node));
  }

  private async unschedulable(pod: Pod, message: string): Promise<void> {
    const key = keyOf(pod);
    if (this.reported.get(key) === message) return;
    this.reported.set(key, message);
    const condition = {
      type: 'PodScheduled',
      status: 'False',
      reason: events.unschedulable,
      message,
      lastProbeTime: null,
      lastTransitionTime: formatTime(this.o.clock.now()),
    };
    await this.o.client.patch(`${podPath(pod)}/status`, 'strategic', { status: { conditions: [condition] } });
    this.event(pod, 'Warning', events.failedScheduling, message);
  }

  private event(pod: Pod, type: EventType, reason: string, message: string): void {
    recordPodEvent(this.o, pod, { type, reason, message, component: SCHEDULER_NAME });
  }
}
