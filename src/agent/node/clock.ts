// Wall-clock time and timers for the node lifecycle loops, injected so that tests can drive heartbeat and
// lease cadences without sleeping. Wall time (not a monotonic clock) because every timestamp these loops
// compute is written to the API as metav1.Time / MicroTime.

export type TimerHandle = unknown;

export interface Clock {
  now(): Date;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export const systemClock: Clock = {
  now: () => new Date(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** metav1.Time: RFC 3339 with second precision, UTC. */
export function formatTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** metav1.MicroTime: RFC 3339 with six fractional digits, UTC (Go layout 2006-01-02T15:04:05.000000Z07:00). */
export function formatMicroTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

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
