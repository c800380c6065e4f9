// Restart pacing for supervised children: how long to wait before starting a child again after it ended.
// Crashes back off exponentially up to a cap, and the series starts over once a run lasted long enough to
// call the child healthy — the shape of the kubelet's own CrashLoopBackOff, with smaller numbers because
// the children here are our own fast-starting processes. Clean exits (exit 0 is how the agent applies a new
// config) restart at once, unless they come so fast that restarting at once would become a tight loop.
// Pure: callers pass uptimes and timestamps in, and randomness is injected.

import { backoffDelay } from '../util/backoff.js';
import { SupervisorError } from './errors.js';

export interface BackoffOptions {
  /** Delay after the first crash of a series. Default 200 ms. */
  initialMs?: number;
  /** Growth of the delay per further consecutive crash. Default 2. */
  factor?: number;
  /** No delay exceeds this. Default 10 s. */
  maxMs?: number;
  /** A run at least this long ends a crash series: the next crash waits `initialMs` again. Default 30 s. */
  resetAfterMs?: number;
  /**
   * Fraction of each delay that may be taken off at random, in [0, 1]. Children that crashed together (every
   * agent of `dkc up` losing the server at once) then do not restart in lock-step. Taken off rather than added
   * so that no delay ever exceeds `maxMs`. Default 0.1.
   */
  jitter?: number;
  /** Uniform in [0, 1). Default `Math.random`. */
  random?: () => number;
  /**
   * After this many consecutive crashes the child counts as crash-looping and every further delay is the cap,
   * however small the exponential step would still be. Default unbounded: the exponential alone decides.
   */
  crashLoopThreshold?: number;
  /** Clean exits allowed within `cleanExitWindowMs` before further ones are paced like crashes. Default 10. */
  cleanExitBurst?: number;
  /** The window over which clean exits are counted. Default 10 s. */
  cleanExitWindowMs?: number;
}

export type ResolvedBackoffOptions = Required<BackoffOptions>;

export const DEFAULT_BACKOFF: Readonly<ResolvedBackoffOptions> = Object.freeze({
  initialMs: 200,
  factor: 2,
  maxMs: 10_000,
  resetAfterMs: 30_000,
  jitter: 0.1,
  random: Math.random,
  crashLoopThreshold: Number.POSITIVE_INFINITY,
  cleanExitBurst: 10,
  cleanExitWindowMs: 10_000,
});

function invalid(message: string): SupervisorError {
  return new SupervisorError('DKC_SUPERVISOR_INVALID_ARGUMENT', message);
}

function isCount(n: number): boolean {
  return n === Number.POSITIVE_INFINITY || (Number.isInteger(n) && n >= 0);
}

/** Fills in defaults and rejects values that would make the pacing meaningless (negative, NaN, cap below start). */
export function resolveBackoffOptions(options: BackoffOptions = {}): ResolvedBackoffOptions {
  const o: ResolvedBackoffOptions = { ...DEFAULT_BACKOFF };
  for (const [k, v] of Object.entries(options) as [keyof BackoffOptions, unknown][]) {
    if (v !== undefined) (o as Record<string, unknown>)[k] = v;
  }
  const finiteNonNeg = (name: keyof BackoffOptions, v: number) => {
    if (!Number.isFinite(v) || v < 0) throw invalid(`backoff ${name} must be a finite number >= 0, got ${v}`);
  };
  finiteNonNeg('initialMs', o.initialMs);
  finiteNonNeg('maxMs', o.maxMs);
  finiteNonNeg('resetAfterMs', o.resetAfterMs);
  if (!Number.isFinite(o.factor) || o.factor < 1)
    throw invalid(`backoff factor must be a finite number >= 1, got ${o.factor}`);
  if (o.maxMs < o.initialMs) throw invalid(`backoff maxMs (${o.maxMs}) must not be below initialMs (${o.initialMs})`);
  if (!(o.jitter >= 0 && o.jitter <= 1)) throw invalid(`backoff jitter must be within [0, 1], got ${o.jitter}`);
  if (typeof o.random !== 'function') throw invalid('backoff random must be a function');
  if (!isCount(o.crashLoopThreshold) || o.crashLoopThreshold < 1) {
    throw invalid(`backoff crashLoopThreshold must be an integer >= 1 or Infinity, got ${o.crashLoopThreshold}`);
  }
  if (!isCount(o.cleanExitBurst))
    throw invalid(`backoff cleanExitBurst must be an integer >= 0 or Infinity, got ${o.cleanExitBurst}`);
  if (!Number.isFinite(o.cleanExitWindowMs) || o.cleanExitWindowMs <= 0) {
    throw invalid(`backoff cleanExitWindowMs must be a finite number > 0, got ${o.cleanExitWindowMs}`);
  }
  return o;
}

/**
 * The un-jittered delay before the `attempt`-th consecutive restart (1-based): `initialMs × factor^(attempt−1)`,
 * capped at `maxMs`. Large attempts saturate at the cap instead of overflowing.
 */
export function exponentialDelay(
  attempt: number,
  options: Pick<ResolvedBackoffOptions, 'initialMs' | 'factor' | 'maxMs'>,
): number {
  if (attempt < 1 || options.initialMs === 0) return 0;
  // The project's one backoff rule; jitter is applied by RestartBackoff, with its own random source.
  return backoffDelay({ initialMs: options.initialMs, maxMs: options.maxMs, factor: options.factor }, attempt);
}

export type ExitKind = 'clean' | 'crash';

export interface RestartDecision {
  /** Milliseconds to wait before starting the child again. */
  delayMs: number;
  /** Crashes since the last run that lasted `resetAfterMs` (this one included, if it was a crash). */
  consecutiveCrashes: number;
  /** True once `consecutiveCrashes` reached `crashLoopThreshold`. */
  crashLooping: boolean;
  /** True when a clean exit is delayed because clean exits came faster than the burst allows. */
  throttled: boolean;
}

/** The pacing state of one child across its runs. */
export class RestartBackoff {
  readonly options: Readonly<ResolvedBackoffOptions>;
  #consecutiveCrashes = 0;
  #cleanExits: number[] = [];

  constructor(options: BackoffOptions = {}) {
    this.options = Object.freeze(resolveBackoffOptions(options));
  }

  get consecutiveCrashes(): number {
    return this.#consecutiveCrashes;
  }

  get crashLooping(): boolean {
    return this.#consecutiveCrashes >= this.options.crashLoopThreshold;
  }

  /**
   * Records the end of a run that lasted `uptimeMs` and ended at `nowMs` (any monotonic clock; only differences
   * matter), and says how long to wait before the next run.
   */
  afterExit(kind: ExitKind, uptimeMs: number, nowMs: number): RestartDecision {
    const o = this.options;
    // A long enough run proves the child can start; whatever ended it begins a new series.
    if (uptimeMs >= o.resetAfterMs) this.#consecutiveCrashes = 0;
    let base = 0;
    let throttled = false;
    if (kind === 'crash') {
      this.#consecutiveCrashes++;
      base = this.crashLooping ? o.maxMs : exponentialDelay(this.#consecutiveCrashes, o);
    } else {
      const since = nowMs - o.cleanExitWindowMs;
      this.#cleanExits = this.#cleanExits.filter((t) => t > since);
      this.#cleanExits.push(nowMs);
      const excess = this.#cleanExits.length - o.cleanExitBurst;
      if (excess > 0) {
        throttled = true;
        base = exponentialDelay(excess, o);
      }
    }
    return {
      delayMs: this.#jitter(base),
      consecutiveCrashes: this.#consecutiveCrashes,
      crashLooping: this.crashLooping,
      throttled,
    };
  }

  /** Forgets all history, as if the child had never run. */
  reset(): void {
    this.#consecutiveCrashes = 0;
    this.#cleanExits = [];
  }

  #jitter(delayMs: number): number {
    if (delayMs === 0 || this.options.jitter === 0) return Math.round(delayMs);
    const r = Math.min(Math.max(this.options.random(), 0), 1);
    return Math.round(delayMs * (1 - this.options.jitter * r));
  }
}
