// What the controllers that sync objects by key share (the disruption, ReplicaSet and Deployment controllers, as
// kube-controller-manager's are built): informers from the host's factory (or one of their own, stopped with them),
// one SyncWorker over the keys, an event recorder with the controller's component, a start that waits for the
// informers' first lists but never past the stop, and a stop that leaves no write in flight. A subclass opens its
// informers and handlers in its constructor and says what a sync is.

import type { ObjectReference } from '../api/types.js';
import { isApiError, type KubeObject } from '../client/index.js';
import { controllerEventRecorder, type EventRecorder, type EventType } from '../client/events.js';
import { SharedInformerFactory, type InformerLike } from '../client/sharedinformers.js';
import { errorMessage } from '../util/errors.js';
import { klog } from '../util/klog.js';
import type { PodControllerOptions } from './podinformers.js';
import { SyncWorker } from './syncworker.js';
import type { RunningController } from './types.js';
import { syncedOrAborted } from './waitsynced.js';

export interface QueuedControllerTexts {
  /** The events' source component (`replicaset-controller`). */
  component: string;
  syncFailed(key: string, why: string): string;
}

export abstract class QueuedController implements RunningController {
  protected readonly o: PodControllerOptions;
  protected readonly queue: SyncWorker;
  private readonly recorder: EventRecorder;
  private readonly own: SharedInformerFactory | undefined;
  private readonly factory: SharedInformerFactory;
  private readonly watched: InformerLike<KubeObject>[] = [];
  private stopped = false;

  constructor(o: PodControllerOptions, texts: QueuedControllerTexts) {
    this.o = o;
    this.own = o.informers ? undefined : new SharedInformerFactory(o.client, { clock: o.clock });
    this.factory = o.informers ?? this.own!;
    this.queue = new SyncWorker(
      o.clock,
      (key) => this.sync(key),
      (key, err) => klog.error(texts.syncFailed(key, errorMessage(err))),
    );
    this.recorder = controllerEventRecorder(o.client, texts.component, o.clock);
    if (o.signal.aborted) this.stopped = true;
    else o.signal.addEventListener('abort', () => void this.stop(), { once: true });
  }

  /** Syncs the object of `key` with what the informers hold; a throw is retried with backoff. */
  protected abstract sync(key: string): Promise<void>;

  /** The informer on `path`, started and awaited with the others. */
  protected informer<T extends KubeObject>(path: string): InformerLike<T> {
    const i = this.factory.informer<T>(path);
    this.watched.push(i);
    return i;
  }

  async start(): Promise<void> {
    if (this.stopped) return;
    for (const i of this.watched) i.start();
    if (!(await syncedOrAborted(this.o.signal, ...this.watched)) || this.stopped) return;
    this.queue.start();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const i of this.watched) await i.stop();
    await this.queue.stop();
    await this.recorder.stop();
    await this.own?.stop();
  }

  protected event(on: ObjectReference, type: EventType, reason: string, message: string): void {
    this.recorder.record(on, type, reason, message);
  }

  /** An update of the status subresource at `path`; an object gone meanwhile is not an error. */
  protected async updateStatus(path: string, body: unknown): Promise<void> {
    try {
      await this.o.client.update(`${path}/status`, body);
    } catch (err) {
      if (!isApiError(err, 404)) throw err;
    }
  }
}

/** The reference an event on a namespaced object names. */
export function referenceTo(
  apiVersion: string,
  kind: string,
  o: { metadata?: { namespace?: string; name?: string; uid?: string } },
): ObjectReference {
  const { namespace = '', name = '', uid = '' } = o.metadata ?? {};
  return { apiVersion, kind, namespace, name, uid };
}
