// One worker over a work queue of object keys, as each of kube-controller-manager's workload controllers runs it:
// a key is synced by one call at a time; a sync that throws is retried after kube's per-item backoff (5 ms doubling,
// capped), and one that succeeds resets it. The controller says what a sync is and how a failure is logged.

import { backoffDelay } from '../util/backoff.js';
import type { Clock } from '../util/clock.js';
import { WorkQueue } from './rollout/queue.js';

/** workqueue.DefaultControllerRateLimiter's per-item part: 5 ms doubling, at most 1000 s. */
const RETRY = { initialMs: 5, maxMs: 1_000_000 };

export class SyncWorker {
  private readonly queue: WorkQueue;
  private readonly failures = new Map<string, number>();
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    clock: Clock,
    private readonly sync: (key: string) => Promise<void>,
    private readonly failed: (key: string, err: unknown) => void,
  ) {
    this.queue = new WorkQueue(clock);
  }

  add(key: string): void {
    this.queue.add(key);
  }

  addAfter(key: string, ms: number): void {
    this.queue.addAfter(key, ms);
  }

  start(): void {
    if (!this.running && !this.stopped) this.running = this.work();
  }

  /** Resolves once the sync in flight, if any, has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.shutDown();
    await this.running?.catch(() => undefined);
  }

  private async work(): Promise<void> {
    for (;;) {
      const key = await this.queue.next();
      if (key === undefined || this.stopped) return;
      try {
        await this.sync(key);
        this.failures.delete(key);
      } catch (err) {
        if (this.stopped) return;
        const failures = (this.failures.get(key) ?? 0) + 1;
        this.failures.set(key, failures);
        this.failed(key, err);
        this.queue.addAfter(key, backoffDelay(RETRY, failures));
      } finally {
        this.queue.done(key);
      }
    }
  }
}
