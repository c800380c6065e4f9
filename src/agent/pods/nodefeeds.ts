// One watch of every Pod, shared by the many nodes of one process (a fleet), each seeing through it what an informer
// on `spec.nodeName=<node>` would show it: the Pods bound to it, a Pod bound to it arriving as an add and one leaving
// it as a delete. Thousands of nodes with a watch each would cost the server as much as their heartbeats; one watch
// costs it one. Each event goes to the one node it concerns (a map lookup), so the cost per event does not grow with
// the fleet.

import type { KubeObject } from '../../client/informer.js';
import type { InformerHandlers, InformerStore } from '../../client/informer.js';
import type { InformerLike } from '../../client/sharedinformers.js';
import type { Pod } from '../../api/workloads.js';

type WatchedPod = Pod & KubeObject;
type Handlers = { [E in keyof InformerHandlers<WatchedPod>]: Set<InformerHandlers<WatchedPod>[E]> };

const nodeOf = (p: Pod): string => p.spec?.nodeName ?? '';
const keyOf = (p: Pod): string => `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`;

/** A node's view: its Pods, and the handlers its runner registered. */
class NodeView implements InformerLike<WatchedPod> {
  readonly path = '/api/v1/pods';
  readonly pods = new Map<string, WatchedPod>();
  readonly handlers: Handlers = { add: new Set(), update: new Set(), delete: new Set(), error: new Set() };
  readonly store: InformerStore<WatchedPod>;

  constructor(
    private readonly all: InformerLike<WatchedPod>,
    private readonly release: () => void,
  ) {
    const pods = this.pods;
    this.store = {
      get: (k) => pods.get(k),
      has: (k) => pods.has(k),
      list: () => [...pods.values()],
      keys: () => [...pods.keys()],
      get size() {
        return pods.size;
      },
    };
  }

  hasSynced(): boolean {
    return this.all.hasSynced();
  }
  whenSynced(): Promise<boolean> {
    return this.all.whenSynced();
  }
  on<E extends keyof InformerHandlers<WatchedPod>>(event: E, handler: InformerHandlers<WatchedPod>[E]): () => void {
    const set = this.handlers[event] as Set<InformerHandlers<WatchedPod>[E]>;
    set.add(handler);
    return () => set.delete(handler);
  }
  start(): void {}
  async stop(): Promise<void> {
    for (const set of Object.values(this.handlers)) set.clear();
    this.release();
  }
}

export class NodePodFeeds {
  private readonly views = new Map<string, NodeView>();
  private started = false;

  /** `all`: an informer on every Pod, read with rights to see every node's (the fleet's own identity). */
  constructor(private readonly all: InformerLike<WatchedPod>) {
    all.on('add', (p) => this.added(p));
    all.on('update', (old, p) => this.updated(old, p));
    all.on('delete', (p) => this.deleted(p));
    all.on('error', (err) => {
      for (const v of this.views.values()) for (const h of v.handlers.error) h(err);
    });
  }

  /** The view of `nodeName`'s Pods; the shared watch starts with the first. Stopping the view leaves it running. */
  feedFor(nodeName: string): InformerLike<WatchedPod> {
    const view = new NodeView(this.all, () => {
      if (this.views.get(nodeName) === view) this.views.delete(nodeName);
    });
    for (const p of this.all.store.list()) if (nodeOf(p) === nodeName) view.pods.set(keyOf(p), p);
    this.views.set(nodeName, view);
    if (!this.started) {
      this.started = true;
      this.all.start();
    }
    return view;
  }

  async stop(): Promise<void> {
    await this.all.stop();
  }

  private added(p: WatchedPod): void {
    const v = this.views.get(nodeOf(p));
    if (!v) return;
    v.pods.set(keyOf(p), p);
    for (const h of v.handlers.add) h(p);
  }

  private deleted(p: WatchedPod): void {
    const v = this.views.get(nodeOf(p));
    if (!v || !v.pods.delete(keyOf(p))) return;
    for (const h of v.handlers.delete) h(p);
  }

  private updated(old: WatchedPod, p: WatchedPod): void {
    if (nodeOf(old) !== nodeOf(p)) {
      this.deleted(old);
      return this.added(p);
    }
    const v = this.views.get(nodeOf(p));
    if (!v) return;
    v.pods.set(keyOf(p), p);
    for (const h of v.handlers.update) h(old, p);
  }
}
