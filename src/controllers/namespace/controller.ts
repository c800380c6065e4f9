// The namespace controller's loop, as kube-controller-manager runs it: an informer on Namespaces queues every
// namespace that has a deletionTimestamp (when it changes, and again each sync period, as the informer's resync
// does), and a worker makes one deleter pass per namespace taken from the queue. A namespace whose content is still
// going (objects held by finalizers) is looked at again after the deleter's estimate; a failed pass is retried with
// the capped backoff, per namespace, and a pass that succeeds resets it.

import type { Namespace } from '../../api/types.js';
import type { KubeObject, RestClient } from '../../client/index.js';
import { SharedInformerFactory, type InformerLike } from '../../client/sharedinformers.js';
import { backoffDelay } from '../../util/backoff.js';
import type { Clock, TimerHandle } from '../../util/clock.js';
import { errorMessage } from '../../util/errors.js';
import { klog } from '../../util/klog.js';
import { WorkQueue } from '../rollout/queue.js';
import type { RunningController } from '../types.js';
import { requeueAfterMs } from './content.js';
import { ContentRemainingError, NamespacedResourcesDeleter } from './deleter.js';
import { logs } from './messages.js';

type NamespaceObject = Namespace & KubeObject;

/** kube's namespace rate limiter: a failing namespace is retried from 5 ms on, at least once a minute. */
const RETRY = { initialMs: 5, maxMs: 60_000 };

export interface NamespaceControllerOptions {
  client: RestClient;
  clock: Clock;
  signal: AbortSignal;
  /** Every terminating namespace is looked at again at least this often (--namespace-sync-period). */
  syncPeriodMs: number;
  /** The process's shared informers (the host's); the controller makes and stops its own when none are given. */
  informers?: SharedInformerFactory;
}

const deleting = (ns: NamespaceObject): boolean =>
  typeof ns.metadata.deletionTimestamp === 'string' && ns.metadata.deletionTimestamp !== '';

export class NamespaceController implements RunningController {
  private readonly o: NamespaceControllerOptions;
  private readonly namespaces: InformerLike<NamespaceObject>;
  private readonly ownInformers: SharedInformerFactory | undefined;
  private readonly queue: WorkQueue;
  private readonly deleter: NamespacedResourcesDeleter;
  /** Consecutive failed passes per namespace, for the backoff. */
  private readonly failures = new Map<string, number>();
  private worker: Promise<void> | undefined;
  private resync: TimerHandle = undefined;
  private stopped = false;

  constructor(options: NamespaceControllerOptions) {
    this.o = options;
    if (!options.informers) this.ownInformers = new SharedInformerFactory(options.client, { clock: options.clock });
    this.namespaces = (options.informers ?? this.ownInformers!).informer<NamespaceObject>('/api/v1/namespaces');
    this.queue = new WorkQueue(options.clock);
    this.deleter = new NamespacedResourcesDeleter(options.client, options.clock, options.signal);
    this.namespaces.on('add', (ns) => this.enqueue(ns));
    this.namespaces.on('update', (_old, ns) => this.enqueue(ns));
    if (options.signal.aborted) this.stopped = true;
    else options.signal.addEventListener('abort', () => void this.stop(), { once: true });
  }

  async start(): Promise<void> {
    if (this.stopped) return;
    this.namespaces.start();
    await this.namespaces.whenSynced();
    if (this.stopped) return;
    this.worker = this.work();
    this.scheduleResync();
  }

  private enqueue(ns: NamespaceObject): void {
    if (deleting(ns)) this.queue.add(ns.metadata.name ?? '');
  }

  /** The informer's resync: every namespace it holds is handed to the handlers again, each period. */
  private scheduleResync(): void {
    if (this.stopped) return;
    this.resync = this.o.clock.setTimeout(() => {
      for (const ns of this.namespaces.store.list()) this.enqueue(ns);
      this.scheduleResync();
    }, this.o.syncPeriodMs);
  }

  private async work(): Promise<void> {
    for (;;) {
      const name = await this.queue.next();
      if (name === undefined || this.stopped) return;
      try {
        await this.deleter.delete(name);
        this.failures.delete(name);
      } catch (err) {
        if (this.stopped) return;
        this.retry(name, err);
      } finally {
        this.queue.done(name);
      }
    }
  }

  private retry(name: string, err: unknown): void {
    if (err instanceof ContentRemainingError) {
      const ms = requeueAfterMs(err.estimateSeconds);
      klog.info(logs.contentRemaining(name, ms / 1000));
      this.queue.addAfter(name, ms);
      return;
    }
    const failures = (this.failures.get(name) ?? 0) + 1;
    this.failures.set(name, failures);
    klog.error(logs.deletionFailed(name, errorMessage(err)));
    this.queue.addAfter(name, backoffDelay(RETRY, failures));
  }

  /** Stops the informer, the resync and the worker; resolves when no write is in flight any more. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.resync !== undefined) this.o.clock.clearTimeout(this.resync);
    this.resync = undefined;
    this.queue.shutDown();
    await this.namespaces.stop();
    await this.ownInformers?.stop();
    await this.worker?.catch(() => undefined);
  }
}
