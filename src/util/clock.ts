// Time, injected: wall-clock time for the timestamps written to the API, a monotonic clock for rates, timeouts
// and backoff, and cancellable timers. One interface for the client (token bucket, informer) and the agent's
// node loops (status, lease, events), so that a test drives all of them with one fake clock, without sleeping.

export type TimerHandle = unknown;

export interface Clock {
  /** Wall-clock time: what metav1.Time and MicroTime record. Jumps when the system clock is set. */
  now(): Date;
  /** Milliseconds on a monotonic clock: only differences are meaningful, and they never go backwards. */
  monotonicMs(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export const systemClock: Clock = {
  now: () => new Date(),
  monotonicMs: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** A Promise that resolves after `ms` on `clock`, or rejects with `onAbort()` when `signal` fires. */
export function sleep(clock: Clock, ms: number, signal: AbortSignal | undefined, onAbort: () => Error): Promise<void> {
  if (signal?.aborted) return Promise.reject(onAbort());
  return new Promise<void>((resolve, reject) => {
    const abort = (): void => {
      clock.clearTimeout(handle);
      reject(onAbort());
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', abort, { once: true });
  });
}

/** metav1.Time: RFC 3339 with second precision, UTC. */
export function formatTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** metav1.MicroTime: RFC 3339 with six fractional digits, UTC (Go layout 2006-01-02T15:04:05.000000Z07:00). */
export function formatMicroTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
