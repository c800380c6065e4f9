// Capped, jittered exponential backoff: the one delay rule for every retry loop (informers, registration, the
// Lease, the watch cache's relist, the supervisor's restarts). Pure; randomness is passed in.

export interface ExponentialBackoff {
  /** Delay before the first retry. */
  initialMs: number;
  /** No delay exceeds this. */
  maxMs: number;
  /** Growth per further consecutive failure. Default 2. */
  factor?: number | undefined;
  /** Fraction of each delay taken off at random, in [0, 1]. Taken off, never added, so `maxMs` holds. Default 0. */
  jitter?: number;
}

/** The delay before retry number `failures` (1 = the first retry). `random` is uniform in [0, 1). */
export function backoffDelay(b: ExponentialBackoff, failures: number, random: () => number = Math.random): number {
  const factor = b.factor ?? 2;
  const jitter = Math.min(1, Math.max(0, b.jitter ?? 0));
  const exp = Math.min(Math.max(failures - 1, 0), 64); // past the cap the exponent no longer matters
  const d = Math.min(b.maxMs, b.initialMs * factor ** exp);
  return jitter === 0 ? d : d * (1 - jitter * random());
}
