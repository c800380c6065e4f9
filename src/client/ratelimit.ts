// Client-side request throttling, so that one agent (or a thousand simulated ones) cannot flood the API
// server: the agent applies its kubeAPIQPS/kubeAPIBurst here, as the kubelet does with client-go's
// token bucket.

import { ClientError } from './errors.js';
import { systemClock, type Clock } from '../util/clock.js';

/** What RestClient calls before every request; resolve to proceed, reject to fail the request. */
export interface RateLimiter {
  acquire(signal?: AbortSignal): Promise<void>;
}

function aborted(signal: AbortSignal): ClientError {
  return new ClientError('DKC_CLIENT_ABORTED', 'the request was aborted while waiting for the client rate limiter', {
    cause: signal.reason,
  });
}

/**
 * A token bucket holding up to `burst` tokens, refilled at `qps` per second. Waiters reserve their
 * token when they arrive (the balance may go negative), so they are served in arrival order and each
 * knows its wait at once — the semantics of golang.org/x/time/rate that client-go relies on.
 */
export class TokenBucket implements RateLimiter {
  readonly qps: number;
  readonly burst: number;
  private tokens: number;
  private last: number;
  private readonly clock: Clock;

  constructor(qps: number, burst: number, clock: Clock = systemClock) {
    if (!(Number.isFinite(qps) && qps > 0))
      throw new ClientError('DKC_CLIENT_INVALID_ARGUMENT', `qps must be a positive number, got ${qps}`);
    if (!(Number.isInteger(burst) && burst >= 1))
      throw new ClientError('DKC_CLIENT_INVALID_ARGUMENT', `burst must be an integer ≥ 1, got ${burst}`);
    this.qps = qps;
    this.burst = burst;
    this.tokens = burst;
    this.clock = clock;
    this.last = clock.monotonicMs();
  }

  private refill(): void {
    const now = this.clock.monotonicMs();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.qps) / 1000);
    this.last = now;
  }

  /** Takes a token if one is available now; never waits. */
  tryAcquire(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Waits for a token. An aborted wait gives its reservation back. */
  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(aborted(signal));
    this.refill();
    this.tokens -= 1;
    if (this.tokens >= 0) return Promise.resolve();
    const waitMs = (-this.tokens * 1000) / this.qps;
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        this.clock.clearTimeout(handle);
        this.tokens = Math.min(this.burst, this.tokens + 1);
        reject(aborted(signal!));
      };
      const handle = this.clock.setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, waitMs);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
