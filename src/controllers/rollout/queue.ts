// A work queue of keys (client-go's workqueue, cut to what one worker needs): a key added several times before it
// is taken is processed once; a key added while it is being processed is processed again afterwards; delayed adds
// run on the injected clock and keep only the earliest due time per key.

import type { Clock, TimerHandle } from '../../util/clock.js';

export class WorkQueue {
  private readonly clock: Clock;
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly timers = new Map<string, { due: number; handle: TimerHandle }>();
  private waiter: ((key: string | undefined) => void) | undefined;
  private shutdown = false;

  constructor(clock: Clock) {
    this.clock = clock;
  }

  add(key: string): void {
    if (this.shutdown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.wakeWith();
  }

  /** Adds `key` after `ms`, unless an earlier delayed add of it is already due. */
  addAfter(key: string, ms: number): void {
    if (this.shutdown) return;
    if (ms <= 0) return this.add(key);
    const due = this.clock.monotonicMs() + ms;
    const existing = this.timers.get(key);
    if (existing && existing.due <= due) return;
    if (existing) this.clock.clearTimeout(existing.handle);
    const handle = this.clock.setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, ms);
    this.timers.set(key, { due, handle });
  }

  /** The next key to process (mark it done afterwards); undefined once the queue is shut down. */
  next(): Promise<string | undefined> {
    const key = this.take();
    if (key !== undefined || this.shutdown) return Promise.resolve(key);
    return new Promise((resolve) => (this.waiter = resolve));
  }

  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) this.wakeWith();
  }

  shutDown(): void {
    this.shutdown = true;
    for (const t of this.timers.values()) this.clock.clearTimeout(t.handle);
    this.timers.clear();
    const w = this.waiter;
    this.waiter = undefined;
    w?.(undefined);
  }

  get length(): number {
    return [...this.dirty].filter((k) => !this.processing.has(k)).length;
  }

  private take(): string | undefined {
    for (const key of this.dirty) {
      if (this.processing.has(key)) continue;
      this.dirty.delete(key);
      this.processing.add(key);
      return key;
    }
    return undefined;
  }

  private wakeWith(): void {
    if (!this.waiter) return;
    const key = this.take();
    if (key === undefined) return;
    const w = this.waiter;
    this.waiter = undefined;
    w(key);
  }
}
