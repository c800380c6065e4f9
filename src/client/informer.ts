// An informer keeps a local, eventually consistent copy of one collection (optionally narrowed by field
// and label selectors) and tells its owner what changed: list once, then watch from the list's
// resourceVersion, and re-watch from the last seen resourceVersion whenever a watch ends. When the
// server no longer has history that old (410 Gone, as an ERROR event or as the watch's answer) the only
// way to catch up is a fresh list, whose differences from the cache become add/update/delete events.
// Failures are retried forever with capped, jittered exponential backoff: an agent must outlive any API
// server outage. The backoff counts failures in a row: a watch that ran for at least minWatchDurationMs before it
// broke off ends the run (the server was there; the outage that broke it is a new one and starts from the first
// delay), and a 410 on a watch resumed after such a break relists at once (the server answered; the restarted
// server has no history that old), so an informer reconnects within a delay or two of every server restart however
// many restarts came before.

import type { Status } from '../api/errors.js';
import { backoffDelay, type ExponentialBackoff } from '../util/backoff.js';
import { ApiError, isApiError, isResourceExpired } from './errors.js';
import type { ListOptions, WatchOptions } from './rest.js';
import { systemClock, type Clock, type TimerHandle } from '../util/clock.js';
import type { WatchStream } from './watch.js';

/** An informer's retries: 200 ms doubling to 10 s, a fifth of each delay taken off at random (client-go's reflector). */
export const INFORMER_BACKOFF: Readonly<Required<Omit<ExponentialBackoff, 'factor'>>> = {
  initialMs: 200,
  maxMs: 10_000,
  jitter: 0.2,
};

/** The part of an object the informer relies on. */
export interface KubeObject {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string; [k: string]: unknown };
  [k: string]: unknown;
}

export interface KubeList<T> {
  metadata?: { resourceVersion?: string; continue?: string };
  items?: T[];
}

/** What the informer needs from a client; RestClient provides it. */
export interface ListWatcher {
  list<L>(path: string, options?: ListOptions): Promise<L>;
  watch<T>(path: string, options?: WatchOptions): Promise<WatchStream<T>>;
}

export interface BackoffOptions {
  /** First retry delay; 200 ms. */
  initialMs?: number;
  /** Cap on the delay; 10 s. */
  maxMs?: number;
  /** Growth per consecutive failure; 2. */
  factor?: number;
  /** Fraction of the delay that is randomised away, in [0, 1]; 0.2 (delays fall in [0.8d, d]). */
  jitter?: number;
}

export interface InformerOptions {
  fieldSelector?: string;
  labelSelector?: string;
  clock?: Clock;
  /** Source of randomness in [0, 1) for jitter and watch timeouts; Math.random. */
  random?: () => number;
  backoff?: BackoffOptions;
  /** Server-side timeout asked of each watch; 5–10 minutes at random when omitted, as client-go does. */
  watchTimeoutSeconds?: number;
  /**
   * A watch that ends cleanly sooner than this without delivering anything counts as a failure, so a
   * server that closes watches at once is not hammered; 1 s.
   */
  minWatchDurationMs?: number;
}

export interface InformerHandlers<T> {
  add: (obj: T) => void;
  update: (oldObj: T, newObj: T) => void;
  delete: (obj: T) => void;
  /** A failed list or watch (it will be retried), or a handler that threw. Informational only. */
  error: (err: unknown) => void;
}

/** The informer's cache, read-only to its users. */
export interface InformerStore<T> {
  get(key: string): T | undefined;
  has(key: string): boolean;
  list(): T[];
  keys(): string[];
  readonly size: number;
}

/** `namespace/name` for namespaced objects, `name` for cluster-scoped ones (client-go's key format). */
export function objectKey(obj: KubeObject): string {
  const name = obj.metadata?.name ?? '';
  const ns = obj.metadata?.namespace;
  return ns ? `${ns}/${name}` : name;
}

class MapStore<T> implements InformerStore<T> {
  readonly items = new Map<string, T>();
  get(key: string): T | undefined {
    return this.items.get(key);
  }
  has(key: string): boolean {
    return this.items.has(key);
  }
  list(): T[] {
    return [...this.items.values()];
  }
  keys(): string[] {
    return [...this.items.keys()];
  }
  get size(): number {
    return this.items.size;
  }
}

type Listeners<T> = { [E in keyof InformerHandlers<T>]: Set<InformerHandlers<T>[E]> };

export class Informer<T extends KubeObject> {
  readonly path: string;
  private readonly client: ListWatcher;
  private readonly options: InformerOptions;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly cache = new MapStore<T>();
  private readonly listeners: Listeners<T> = { add: new Set(), update: new Set(), delete: new Set(), error: new Set() };
  private resourceVersion = '';
  private synced = false;
  private stopped = false;
  private loop: Promise<void> | undefined;
  private abort = new AbortController();
  private stream: WatchStream<T> | undefined;
  private wake: (() => void) | undefined;
  private sleepTimer: TimerHandle = undefined;
  private readonly syncWaiters: ((synced: boolean) => void)[] = [];

  constructor(client: ListWatcher, path: string, options: InformerOptions = {}) {
    this.client = client;
    this.path = path;
    this.options = options;
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
  }

  get store(): InformerStore<T> {
    return this.cache;
  }

  /** The resourceVersion the next watch would start from. */
  get lastSyncResourceVersion(): string {
    return this.resourceVersion;
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves true once the first list is in the cache, false if the informer is stopped before that. */
  whenSynced(): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    if (this.stopped) return Promise.resolve(false);
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  /** Registers a handler; returns a function that removes it. */
  on<E extends keyof InformerHandlers<T>>(event: E, handler: InformerHandlers<T>[E]): () => void {
    const set = this.listeners[event] as Set<InformerHandlers<T>[E]>;
    set.add(handler);
    return () => set.delete(handler);
  }

  start(): void {
    if (this.loop || this.stopped) return;
    this.loop = this.run();
  }

  /** Stops listing and watching; resolves when no more handlers will be called. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    this.stream?.close();
    if (this.sleepTimer !== undefined) this.clock.clearTimeout(this.sleepTimer);
    this.wake?.();
    for (const w of this.syncWaiters.splice(0)) w(false);
    await this.loop;
  }

  private emit<E extends keyof InformerHandlers<T>>(event: E, ...args: Parameters<InformerHandlers<T>[E]>): void {
    for (const h of this.listeners[event]) {
      try {
        (h as (...a: Parameters<InformerHandlers<T>[E]>) => void)(...args);
      } catch (err) {
        // One faulty handler must neither stop the informer nor starve the other handlers.
        if (event !== 'error') this.emit('error', err);
      }
    }
  }

  /** Delay before retry number `failures` (≥ 1). */
  backoffDelay(failures: number): number {
    const b = this.options.backoff ?? {};
    const d = INFORMER_BACKOFF;
    return backoffDelay(
      {
        initialMs: b.initialMs ?? d.initialMs,
        maxMs: b.maxMs ?? d.maxMs,
        factor: b.factor,
        jitter: b.jitter ?? d.jitter,
      },
      failures,
      this.random,
    );
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.sleepTimer = this.clock.setTimeout(() => {
        this.sleepTimer = undefined;
        resolve();
      }, ms);
    });
  }

  private watchTimeoutSeconds(): number {
    return this.options.watchTimeoutSeconds ?? Math.floor(300 * (1 + this.random()));
  }

  private async relist(): Promise<void> {
    const listOptions: ListOptions = { signal: this.abort.signal };
    if (this.options.fieldSelector !== undefined) listOptions.fieldSelector = this.options.fieldSelector;
    if (this.options.labelSelector !== undefined) listOptions.labelSelector = this.options.labelSelector;
    const list = await this.client.list<KubeList<T>>(this.path, listOptions);
    if (this.stopped) return;
    const items = list.items ?? [];
    const seen = new Set<string>();
    for (const item of items) {
      const key = objectKey(item);
      seen.add(key);
      const old = this.cache.items.get(key);
      this.cache.items.set(key, item);
      if (old === undefined) this.emit('add', item);
      // Unchanged objects are not re-announced: a relist after 410 should look like the changes that
      // were missed, not like every object changing at once.
      else if (old.metadata?.resourceVersion !== item.metadata?.resourceVersion) this.emit('update', old, item);
    }
    for (const [key, old] of [...this.cache.items]) {
      if (seen.has(key)) continue;
      this.cache.items.delete(key);
      this.emit('delete', old);
    }
    this.resourceVersion = list.metadata?.resourceVersion ?? '';
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w(true);
    }
  }

  private apply(type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK', obj: T): void {
    const rv = obj.metadata?.resourceVersion;
    if (rv) this.resourceVersion = rv;
    if (type === 'BOOKMARK') return;
    const key = objectKey(obj);
    const old = this.cache.items.get(key);
    if (type === 'DELETED') {
      // The event's object is the final state (as client-go hands it over), newer than the cached one.
      this.cache.items.delete(key);
      this.emit('delete', obj);
      return;
    }
    this.cache.items.set(key, obj);
    if (old === undefined) this.emit('add', obj);
    else this.emit('update', old, obj);
  }

  private async run(): Promise<void> {
    let needList = true;
    let failures = 0;
    // True from a successful list until the first watch event after it: a 410 in that window means the
    // list itself did not help, so it must back off instead of relisting in a tight loop.
    let freshList = false;
    const minWatchMs = this.options.minWatchDurationMs ?? 1000;
    while (!this.stopped) {
      // When the watch of this round was opened; undefined until it is.
      let opened: number | undefined;
      if (failures > 0) {
        await this.sleep(this.backoffDelay(failures));
        if (this.stopped) break;
      }
      try {
        if (needList) {
          await this.relist();
          needList = false;
          freshList = true;
          if (this.stopped) break;
        }
        const watchOptions: WatchOptions = {
          resourceVersion: this.resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds: this.watchTimeoutSeconds(),
          signal: this.abort.signal,
        };
        if (this.options.fieldSelector !== undefined) watchOptions.fieldSelector = this.options.fieldSelector;
        if (this.options.labelSelector !== undefined) watchOptions.labelSelector = this.options.labelSelector;
        const started = this.clock.monotonicMs();
        const stream = await this.client.watch<T>(this.path, watchOptions);
        this.stream = stream;
        opened = started;
        // Guards against a half-open connection: a server that vanished without a FIN would otherwise
        // keep this watch open forever. The server ends healthy watches at timeoutSeconds itself.
        const watchdog = this.clock.setTimeout(() => stream.close(), (watchOptions.timeoutSeconds! + 30) * 1000);
        let events = 0;
        let expired: Status | undefined;
        try {
          for await (const ev of stream) {
            if (this.stopped) break;
            if (ev.type === 'ERROR') {
              if (isResourceExpired(ev.object)) {
                expired = ev.object;
                break;
              }
              throw new ApiError(ev.object);
            }
            events++;
            failures = 0;
            freshList = false;
            this.apply(ev.type, ev.object);
          }
        } finally {
          this.clock.clearTimeout(watchdog);
          stream.close();
          this.stream = undefined;
        }
        if (this.stopped) break;
        if (expired) {
          needList = true;
          failures = freshList ? failures + 1 : 0;
          continue;
        }
        if (events === 0 && this.clock.monotonicMs() - started < minWatchMs) failures++;
        else if (events === 0) failures = 0;
      } catch (err) {
        if (this.stopped) break;
        if (isApiError(err) && isResourceExpired(err.status)) {
          needList = true;
          failures = freshList ? failures + 1 : 0;
          continue;
        }
        if (opened !== undefined && this.clock.monotonicMs() - opened >= minWatchMs) failures = 0;
        failures++;
        this.emit('error', err);
      }
    }
  }
}
