// The taint eviction controller's loop (kube-controller-manager's taint-eviction-controller): informers on Nodes and
// Pods; each Pod bound to a node with NoExecute taints is judged by decideEviction, and one to go is deleted when its
// time comes — first marked with the DisruptionTarget condition, then deleted with its own grace period — with the
// TaintManagerEviction events kube records. A taint removed in time cancels the deletion.

import type { Pod } from '../../api/workloads.js';
import { isApiError } from '../../client/index.js';
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
import { decideEviction } from './decide.js';
import { evictionTexts as texts } from './messages.js';

export type TaintEvictionOptions = PodControllerOptions;

const keyOf = podKey;

export class TaintEviction implements RunningController {
  private readonly o: TaintEvictionOptions;
  private readonly nodes: InformerLike<NodeObject>;
  private readonly pods: InformerLike<PodObject>;
  private readonly own: SharedInformerFactory | undefined;
  /** The deletions planned, by Pod key: when, on the controller's wall clock. */
  private readonly planned = new Map<string, { atMs: number; timer: TimerHandle }>();
  private stopped = false;

  constructor(o: TaintEvictionOptions) {
    this.o = o;
    ({ nodes: this.nodes, pods: this.pods, own: this.own } = nodeAndPodInformers(o, texts.component));
    const nodeChanged = (n: NodeObject) => {
      for (const p of this.pods.store.list()) if (p.spec?.nodeName === n.metadata.name) this.judge(p);
    };
    this.nodes.on('add', nodeChanged);
    this.nodes.on('update', (_old, n) => nodeChanged(n));
    this.pods.on('add', (p) => this.judge(p));
    this.pods.on('update', (_old, p) => this.judge(p));
    this.pods.on('delete', (p) => this.cancel(keyOf(p), false));
    if (o.signal.aborted) this.stopped = true;
    else o.signal.addEventListener('abort', () => void this.stop(), { once: true });
  }

  async start(): Promise<void> {
    if (this.stopped) return;
    this.nodes.start();
    this.pods.start();
    if (!(await syncedOrAborted(this.o.signal, this.nodes, this.pods)) || this.stopped) return;
    for (const p of this.pods.store.list()) this.judge(p);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const key of [...this.planned.keys()]) this.cancel(key, false);
    await this.own?.stop();
  }

  private decide(p: Pod) {
    const node = this.nodes.store.get(p.spec?.nodeName ?? '');
    return decideEviction({
      pod: {
        deleting: p.metadata.deletionTimestamp != null,
        nodeName: p.spec?.nodeName ?? '',
        tolerations: p.spec?.tolerations ?? [],
      },
      taints: node?.spec?.taints ?? [],
      nowMs: this.o.clock.now().getTime(),
    });
  }

  private judge(p: Pod): void {
    if (this.stopped) return;
    const d = this.decide(p);
    const key = keyOf(p);
    if (d.kind === 'keep') return this.cancel(key, true);
    const planned = this.planned.get(key);
    if (planned && planned.atMs <= d.atMs) return;
    if (planned) this.o.clock.clearTimeout(planned.timer);
    const delay = Math.max(0, d.atMs - this.o.clock.now().getTime());
    const timer = this.o.clock.setTimeout(() => void this.due(key), delay);
    this.planned.set(key, { atMs: d.atMs, timer });
  }

  private cancel(key: string, say: boolean): void {
    const planned = this.planned.get(key);
    if (!planned) return;
    this.o.clock.clearTimeout(planned.timer);
    this.planned.delete(key);
    const pod = this.pods.store.get(key);
    if (say && pod) this.event(pod, texts.cancelling(key));
  }

  private async due(key: string): Promise<void> {
    this.planned.delete(key);
    const pod = this.pods.store.get(key);
    if (!pod || this.stopped) return;
    // Still to go: at the time planned (kube keeps a deletion's first trigger time, as taints without timeAdded give
    // no other), whatever a fresh look would say of when.
    if (this.decide(pod).kind === 'keep') return;
    this.event(pod, texts.marking(key));
    try {
      await this.evict(pod);
    } catch (err) {
      if (!isApiError(err) || err.code !== 404) klog.warning(texts.failed(key, errorMessage(err)));
    }
  }

  private async evict(pod: Pod): Promise<void> {
    const condition = {
      type: 'DisruptionTarget',
      status: 'True',
      reason: texts.reason,
      message: texts.conditionMessage,
      lastTransitionTime: formatTime(this.o.clock.now()),
    };
    await this.o.client.patch(`${podPath(pod)}/status`, 'strategic', { status: { conditions: [condition] } });
    await this.o.client.delete(podPath(pod));
  }

  private event(pod: Pod, message: string): void {
    recordPodEvent(this.o, pod, { type: 'Normal', reason: texts.eventReason, message, component: texts.component });
  }
}
