// One watch cache per resource: it follows the store's watch for the resource's key prefix, keeps the current
// objects and a bounded window of recent events, and fans every change out to all HTTP watchers. Each event is
// encoded once per output format, however many watchers receive it. Watchers that ask for a resourceVersion
// older than the window get 410 Expired, as from kube-apiserver's watch cache.

import type { KubeObject } from '../api/types.js';
import { errors, type StatusError } from '../api/errors.js';
import type { Store, Watch, WatchEvent as StoreWatchEvent } from '../storage/store.js';
import { klog } from '../util/klog.js';
import { backoffDelay, type ExponentialBackoff } from '../util/backoff.js';
import { errorMessage } from '../util/errors.js';
import { systemClock } from '../util/clock.js';
import { expandStoredManagedFields } from './fieldmanager/storedform.js';

const RELIST_BACKOFF: ExponentialBackoff = { initialMs: 100, maxMs: 5_000, jitter: 0.2 };
/** How often a reader waiting for a revision asks the store how far it is. */
const REVISION_POLL_MS = 100;

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface CacheEvent {
  type: EventType;
  object: KubeObject;
  /** The object before this change (MODIFIED/DELETED). */
  prev?: KubeObject;
  rv: number;
}

export interface WatcherSink {
  /** Which objects this watcher sees (label/field selectors, namespace, name). */
  matches(obj: KubeObject): boolean;
  /**
   * The one object name `matches` can accept, when it has one (a `metadata.name=` field selector): the cache then
   * offers the watcher that object's events only. Every node agent watches its own Node this way, so without the
   * index each Node change was matched against thousands of watchers.
   */
  readonly name?: string;
  /** Deliver events, already filtered and translated (ADDED/DELETED for objects entering/leaving the filter). */
  deliver(events: { type: EventType; object: KubeObject; rv: number }[]): void;
  /** The cache stopped (server shutdown, store failure): end the stream. */
  terminate(err?: StatusError): void;
}

export interface WatcherHandle {
  cancel(): void;
}

export function decodeObject(value: Uint8Array, rv: number, writtenManagedFields?: readonly unknown[]): KubeObject {
  const obj = JSON.parse(Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8')) as KubeObject;
  expandStoredManagedFields(obj, writtenManagedFields);
  obj.metadata.resourceVersion = String(rv);
  return obj;
}

export class WatchCache {
  private objects = new Map<string, KubeObject>();
  private readonly history: CacheEvent[] = [];
  /** Every change after this revision is in `history`. */
  private historyStart = 0;
  private revision = 0;
  /** Each watcher with the revision it started after: it never receives an event at or below it. */
  private readonly watchers = new Map<WatcherSink, number>();
  /** The watchers with a `name`, by that name; the others see every event. */
  private readonly byName = new Map<string, Set<WatcherSink>>();
  private readonly unnamed = new Set<WatcherSink>();
  /** Readers waiting for the cache to reach a revision (a client that failed over from a fresher replica). */
  private readonly revisionWaiters = new Set<{ rv: number; resolve: () => void }>();
  private storeWatch?: Watch;
  private ready = false;
  private stopped = false;

  constructor(
    private readonly store: Store,
    readonly prefix: string,
    private readonly capacity: number,
    /** Applied once to each decoded object (custom resources: the served apiVersion and schema defaults). */
    private readonly transform: (obj: KubeObject) => KubeObject = (o) => o,
  ) {}

  private decode(value: Uint8Array, rv: number): KubeObject {
    return this.transform(decodeObject(value, rv));
  }

  async start(): Promise<void> {
    const listed = await this.store.list(this.prefix);
    // Built aside and swapped in whole: while a relist runs, readers (the authorizers among them) keep the last
    // complete state rather than an empty or half-filled one.
    const objects = new Map<string, KubeObject>();
    for (const kv of listed.items) {
      try {
        objects.set(kv.key, this.decode(kv.value, kv.modRevision));
      } catch (err) {
        klog.error(`undecodable value at ${kv.key}, left out of the watch cache: ${errorMessage(err)}`);
      }
    }
    this.objects = objects;
    this.history.length = 0;
    this.revision = listed.revision;
    this.historyStart = listed.revision;
    this.storeWatch = this.store.watch(this.prefix, listed.revision, {
      onEvents: (events) => this.apply(events),
      onError: (err) => {
        if (this.stopped) return;
        klog.error(`watch of ${this.prefix} ended: ${err.message}; restarting the watch cache`);
        void this.restart();
      },
    });
    this.ready = true;
    this.wakeRevisionWaiters();
  }

  /**
   * The store's watch failed: end every watcher (their clients re-watch, and get 410 if too old), report not ready,
   * and relist until it works — forever, with capped backoff and a log line per failure. An API server whose
   * watch cache gave up would otherwise serve stale reads and authorize from stale roles indefinitely.
   */
  private async restart(): Promise<void> {
    this.ready = false;
    this.storeWatch?.cancel();
    this.terminateAll();
    for (let failures = 0; !this.stopped;) {
      try {
        await this.start();
        if (failures > 0) klog.info(`watch cache of ${this.prefix} relisted after ${failures} failed attempts`);
        return;
      } catch (err) {
        failures++;
        const delay = backoffDelay(RELIST_BACKOFF, failures);
        klog.error(
          `relisting ${this.prefix} failed (attempt ${failures}): ${errorMessage(err)}; retrying in ${Math.round(delay)} ms`,
        );
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  stop(): void {
    this.stopped = true;
    this.storeWatch?.cancel();
    this.terminateAll();
  }

  /**
   * Resolves once `rv` is a revision the store has reached — a client that saw it on a fresher replica may then
   * watch here: each watcher only receives events after its own starting revision, so nothing it has seen comes
   * again. (The cache's own revision is that of the last change under its prefix, which trails the store's when
   * other resources change, so it cannot answer this alone.) After `timeoutMs`, kube-apiserver's 504 "Too large
   * resource version" (retry after 1 s).
   */
  async waitForRevision(rv: number, timeoutMs = 3000): Promise<void> {
    const deadline = systemClock.monotonicMs() + timeoutMs;
    let current = this.revision;
    while (rv > this.revision) {
      current = Math.max(this.revision, await this.store.currentRevision());
      if (rv <= current) return;
      const left = deadline - systemClock.monotonicMs();
      if (left <= 0) throw errors.tooLargeResourceVersion(rv, current);
      await this.revisionOrTimeout(rv, Math.min(left, REVISION_POLL_MS));
    }
  }

  /** Resolves when the cache reaches `rv` or after `ms`, whichever comes first. */
  private revisionOrTimeout(rv: number, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const waiter = {
        rv,
        resolve: () => {
          clearTimeout(timer);
          this.revisionWaiters.delete(waiter);
          resolve();
        },
      };
      const timer = setTimeout(waiter.resolve, ms);
      this.revisionWaiters.add(waiter);
    });
  }

  private wakeRevisionWaiters(): void {
    for (const w of [...this.revisionWaiters]) if (w.rv <= this.revision) w.resolve();
  }

  get currentRevision(): number {
    return this.revision;
  }

  get isReady(): boolean {
    return this.ready;
  }

  /** The current object under a key (for resourceVersion=0 reads); the cache's own, not to be changed. */
  get(key: string): KubeObject | undefined {
    return this.objects.get(key);
  }

  /** A snapshot of current objects (for resourceVersion=0 lists and synthetic ADDED events). */
  snapshot(): KubeObject[] {
    return [...this.objects.values()];
  }

  /**
   * The changes after revision `rv` up to currentRevision, oldest first, or undefined when the window of recent
   * events no longer reaches back that far (a reader then takes a snapshot instead).
   */
  changesSince(rv: number): { type: EventType; object: KubeObject }[] | undefined {
    if (rv < this.historyStart) return undefined;
    let lo = 0;
    let hi = this.history.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.history[mid]!.rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    return this.history.slice(lo).map((e) => ({ type: e.type, object: e.object }));
  }

  get size(): number {
    return this.objects.size;
  }

  watcherCount(): number {
    return this.watchers.size;
  }

  private apply(events: StoreWatchEvent[]): void {
    const out: CacheEvent[] = [];
    for (const ev of events) {
      const rv = ev.kv.modRevision;
      if (rv <= this.revision) continue;
      const prev = this.objects.get(ev.kv.key);
      if (ev.type === 'put') {
        let obj: KubeObject;
        try {
          obj = this.decode(ev.kv.value, rv);
        } catch (err) {
          // The object as it was is no longer what the store holds: it leaves the cache (and its watchers) rather
          // than stay there while the revision moves past it.
          klog.error(`undecodable value at ${ev.kv.key}, removed from the watch cache: ${errorMessage(err)}`);
          this.objects.delete(ev.kv.key);
          if (prev)
            out.push({
              type: 'DELETED',
              object: { ...prev, metadata: { ...prev.metadata, resourceVersion: String(rv) } },
              prev,
              rv,
            });
          this.revision = rv;
          continue;
        }
        this.objects.set(ev.kv.key, obj);
        out.push(prev ? { type: 'MODIFIED', object: obj, prev, rv } : { type: 'ADDED', object: obj, rv });
      } else {
        this.objects.delete(ev.kv.key);
        let obj: KubeObject | undefined = prev;
        if (!obj) {
          try {
            obj = this.decode(ev.kv.value, rv);
          } catch {
            obj = undefined;
          }
        }
        if (obj) {
          const deleted: KubeObject = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(rv) } };
          out.push({ type: 'DELETED', object: deleted, prev: obj, rv });
        }
      }
      this.revision = rv;
    }
    this.wakeRevisionWaiters();
    if (out.length === 0) return;
    for (const e of out) this.history.push(e);
    if (this.history.length > this.capacity) {
      const drop = this.history.length - this.capacity;
      this.historyStart = this.history[drop - 1]!.rv;
      this.history.splice(0, drop);
    }
    for (const w of this.unnamed) this.deliver(w, out);
    if (this.byName.size === 0) return;
    const perName = new Map<string, CacheEvent[]>();
    for (const e of out) {
      const name = e.object.metadata.name ?? '';
      const list = perName.get(name);
      if (list) list.push(e);
      else perName.set(name, [e]);
    }
    for (const [name, events] of perName) for (const w of this.byName.get(name) ?? []) this.deliver(w, events);
  }

  private addWatcher(w: WatcherSink, floor: number): void {
    this.watchers.set(w, floor);
    if (w.name === undefined) this.unnamed.add(w);
    else {
      const set = this.byName.get(w.name);
      if (set) set.add(w);
      else this.byName.set(w.name, new Set([w]));
    }
  }

  private removeWatcher(w: WatcherSink): void {
    this.watchers.delete(w);
    this.unnamed.delete(w);
    if (w.name === undefined) return;
    const set = this.byName.get(w.name);
    set?.delete(w);
    if (set?.size === 0) this.byName.delete(w.name);
  }

  private terminateAll(): void {
    const all = [...this.watchers.keys()];
    this.watchers.clear();
    this.unnamed.clear();
    this.byName.clear();
    for (const w of all) w.terminate();
  }

  private deliver(w: WatcherSink, events: CacheEvent[]): void {
    const batch: { type: EventType; object: KubeObject; rv: number }[] = [];
    const floor = this.watchers.get(w) ?? 0;
    for (const e of events) {
      if (e.rv <= floor) continue;
      const now = w.matches(e.object);
      const before = e.prev !== undefined && w.matches(e.prev);
      if (e.type === 'ADDED') {
        if (now) batch.push(e);
      } else if (e.type === 'DELETED') {
        if (before) batch.push(e);
      } else if (now && before) {
        batch.push(e);
      } else if (now) {
        batch.push({ type: 'ADDED', object: e.object, rv: e.rv });
      } else if (before) {
        batch.push({
          type: 'DELETED',
          object: { ...e.prev!, metadata: { ...e.prev!.metadata, resourceVersion: String(e.rv) } },
          rv: e.rv,
        });
      }
    }
    if (batch.length === 0) return;
    try {
      w.deliver(batch);
    } catch (err) {
      klog.error(`watcher failed: ${errorMessage(err)}`);
      this.removeWatcher(w);
      w.terminate();
    }
  }

  /**
   * Start a watcher. `fromRevision` undefined means "current state first" (synthetic ADDED for every matching object),
   * otherwise every change after it. Throws a 410 Expired StatusError when the window no longer reaches back that far.
   */
  watch(fromRevision: number | undefined, sink: WatcherSink): WatcherHandle {
    if (fromRevision === undefined) {
      const initial = [...this.objects.values()].filter((o) => sink.matches(o));
      this.addWatcher(sink, this.revision);
      if (initial.length)
        sink.deliver(
          initial.map((o) => ({ type: 'ADDED' as const, object: o, rv: Number(o.metadata.resourceVersion) })),
        );
    } else {
      if (fromRevision < this.historyStart) {
        throw errors.expired(`too old resource version: ${fromRevision} (${this.historyStart})`);
      }
      const backlog = this.history.filter((e) => e.rv > fromRevision);
      this.addWatcher(sink, fromRevision);
      if (backlog.length) this.deliver(sink, backlog);
    }
    return {
      cancel: () => this.removeWatcher(sink),
    };
  }
}
