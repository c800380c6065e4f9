// Time as the client sees it: a monotonic clock and cancellable timers, injected so that rate limiting
// and the informer's backoff can be tested step by step without sleeping.

export type TimerHandle = unknown;

export interface Timers {
  /** Milliseconds on a monotonic clock (only differences are meaningful). */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export const systemTimers: Timers = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
