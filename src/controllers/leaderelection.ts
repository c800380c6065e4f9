// Leader election on a coordination.k8s.io/v1 Lease, as client-go's tools/leaderelection does it, so that of several
// controller hosts (server replicas over one etcd, or `dkc controller` processes) exactly one acts at a time.
//
// A candidate reads the Lease every retryPeriod and writes itself in as holder when the Lease is free: absent, with
// no holder (released), or not seen to change for its leaseDurationSeconds. Expiry is measured on this process's
// monotonic clock from the moment it last saw the record change, never by comparing renewTime with our wall clock,
// so skew between hosts cannot make a live leader look dead. The leader renews every retryPeriod and gives up when
// no renewal succeeded for renewDeadline (less than leaseDuration, so it stops before anyone may take over), or at
// once when it sees another holder. A clean stop releases the Lease (holder cleared, duration 1 s) after the
// controllers have stopped, as ReleaseOnCancel does, so the next leader need not wait out the lease.

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Lease, LeaseSpec } from '../api/types.js';
import { ApiError, type RestClient } from '../client/index.js';
import { formatMicroTime, systemClock, type Clock, type TimerHandle } from '../util/clock.js';
import { klog } from '../util/klog.js';
import { logs } from './errors.js';
import { errorMessage } from '../util/errors.js';

export type LeaseClient = Pick<RestClient, 'get' | 'create' | 'update'>;

/** client-go's defaults, which kube-controller-manager uses. */
export const DEFAULT_LEASE_DURATION_MS = 15_000;
export const DEFAULT_RENEW_DEADLINE_MS = 10_000;
export const DEFAULT_RETRY_PERIOD_MS = 2_000;
/** wait.JitterUntil's factor for the acquire loop: each wait is retryPeriod × [1, 1.2). */
const JITTER_FACTOR = 0.2;

export interface LeaderElectionOptions {
  client: LeaseClient;
  namespace: string;
  name: string;
  /** This candidate's holderIdentity; unique per process (see leaderIdentity). */
  identity: string;
  /**
   * Identities known to belong to processes that are gone (this host's previous run, when only one process can run
   * with its data): their claim is void at once rather than after the lease duration.
   */
  deadIdentities?: readonly string[];
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  clock?: Clock;
  random?: () => number;
  /** Leadership begins; `signal` is aborted the instant it ends. */
  onStartedLeading(signal: AbortSignal): void;
  /** Leadership ended (lost or stopping); the Lease is released only after this resolves. */
  onStoppedLeading(): Promise<void>;
  /** The holder changed, as observed (this candidate included). */
  onNewLeader?(identity: string): void;
}

/** kube-controller-manager's identity: the host name and a random suffix, so two processes on a host differ. */
export function leaderIdentity(random: () => Buffer = () => randomBytes(8)): string {
  return `${hostname()}_${random().toString('hex')}`;
}

export function leasePath(namespace: string, name: string): string {
  return `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases/${encodeURIComponent(name)}`;
}

function collectionPath(namespace: string): string {
  return `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
}

/** The record a successful acquire or renew writes: transitions and acquireTime kept only while we hold it. */
export function acquiredSpec(
  current: LeaseSpec | undefined,
  identity: string,
  leaseDurationMs: number,
  now: Date,
): LeaseSpec {
  const stamp = formatMicroTime(now);
  const ours = current?.holderIdentity === identity;
  return {
    holderIdentity: identity,
    leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000),
    acquireTime: ours ? (current?.acquireTime ?? stamp) : stamp,
    renewTime: stamp,
    leaseTransitions:
      current === undefined ? 0 : ours ? (current.leaseTransitions ?? 0) : (current.leaseTransitions ?? 0) + 1,
  };
}

/** What release writes: no holder, a one-second duration, transitions kept (client-go's release()). */
export function releasedSpec(current: LeaseSpec | undefined, now: Date): LeaseSpec {
  const stamp = formatMicroTime(now);
  return {
    holderIdentity: '',
    leaseDurationSeconds: 1,
    acquireTime: stamp,
    renewTime: stamp,
    leaseTransitions: current?.leaseTransitions ?? 0,
  };
}

/**
 * Whether another holder's claim still stands: it names a holder other than us, and we saw the record change less
 * than its leaseDurationSeconds ago (on our own monotonic clock).
 */
export function heldByOther(
  spec: LeaseSpec | undefined,
  identity: string,
  observedAtMs: number,
  nowMs: number,
  deadIdentities: readonly string[] = [],
): boolean {
  const holder = spec?.holderIdentity ?? '';
  if (holder === '' || holder === identity || deadIdentities.includes(holder)) return false;
  const durationMs = (spec?.leaseDurationSeconds ?? 0) * 1000;
  return observedAtMs + durationMs > nowMs;
}

type Attempt = 'acquired' | 'held' | 'failed';

export class LeaderElector {
  private readonly o: Required<Omit<LeaderElectionOptions, 'onNewLeader' | 'deadIdentities'>> &
    Pick<LeaderElectionOptions, 'onNewLeader' | 'deadIdentities'>;
  private observedRaw: string | undefined;
  private observedAtMs = 0;
  private observed: Lease | undefined;
  private leading: AbortController | undefined;
  private lastHolder: string | undefined;

  constructor(options: LeaderElectionOptions) {
    this.o = {
      leaseDurationMs: DEFAULT_LEASE_DURATION_MS,
      renewDeadlineMs: DEFAULT_RENEW_DEADLINE_MS,
      retryPeriodMs: DEFAULT_RETRY_PERIOD_MS,
      clock: systemClock,
      random: Math.random,
      ...options,
    };
  }

  get isLeader(): boolean {
    return this.leading !== undefined;
  }

  /** The holder last observed ('' when released or unknown). */
  get leader(): string {
    return this.observed?.spec?.holderIdentity ?? '';
  }

  /**
   * Campaigns until `signal` aborts: acquire, lead until leadership is lost, campaign again. Resolves after a clean
   * stop, with the controllers stopped and the Lease released when we held it.
   */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      if (!(await this.acquire(signal))) break;
      await this.renewUntilLost(signal);
      await this.stopLeading();
      if (signal.aborted) await this.release();
    }
  }

  private async acquire(signal: AbortSignal): Promise<boolean> {
    klog.info(logs.attemptingAcquire(this.describe()));
    for (;;) {
      if (signal.aborted) return false;
      const attempt = await this.tryAcquireOrRenew(signal, this.o.retryPeriodMs);
      if (attempt === 'acquired') {
        klog.info(logs.acquired(this.describe()));
        this.leading = new AbortController();
        this.o.onStartedLeading(this.leading.signal);
        return true;
      }
      if (attempt === 'held') klog.v(4, logs.heldByOther(this.leader));
      const jittered = this.o.retryPeriodMs * (1 + JITTER_FACTOR * this.o.random());
      await this.wait(jittered, signal);
    }
  }

  private async renewUntilLost(signal: AbortSignal): Promise<void> {
    let lastRenewMs = this.o.clock.monotonicMs();
    for (;;) {
      await this.wait(this.o.retryPeriodMs, signal);
      if (signal.aborted) return;
      const remaining = this.o.renewDeadlineMs - (this.o.clock.monotonicMs() - lastRenewMs);
      const attempt = remaining > 0 ? await this.tryAcquireOrRenew(signal, remaining) : 'failed';
      if (signal.aborted) return;
      if (attempt === 'acquired') {
        lastRenewMs = this.o.clock.monotonicMs();
        continue;
      }
      // Someone else holds it now: stop at once rather than keep acting beside them.
      const lost = attempt === 'held' || this.o.clock.monotonicMs() - lastRenewMs >= this.o.renewDeadlineMs;
      if (lost) {
        klog.info(logs.lost(this.describe()));
        return;
      }
    }
  }

  private async stopLeading(): Promise<void> {
    const leading = this.leading;
    if (leading === undefined) return;
    leading.abort(new Error(logs.leadershipEnded(this.describe())));
    this.leading = undefined;
    try {
      await this.o.onStoppedLeading();
    } catch (err) {
      klog.error(logs.stopFailed(errorMessage(err)));
    }
  }

  /** One get-then-write, bounded by `budgetMs` on the injected clock. */
  private async tryAcquireOrRenew(outer: AbortSignal, budgetMs: number): Promise<Attempt> {
    const budget = this.budget(budgetMs, outer);
    try {
      return await this.attempt(budget.signal);
    } catch (err) {
      if (!outer.aborted) klog.error(logs.attemptFailed(this.describe(), errorMessage(err)));
      return 'failed';
    } finally {
      budget.done();
    }
  }

  private async attempt(signal: AbortSignal): Promise<Attempt> {
    const path = leasePath(this.o.namespace, this.o.name);
    let current: Lease | undefined;
    try {
      current = await this.o.client.get<Lease>(path, { signal });
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
    const now = this.o.clock.now();
    if (current === undefined) {
      const fresh: Lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.o.name, namespace: this.o.namespace },
        spec: acquiredSpec(undefined, this.o.identity, this.o.leaseDurationMs, now),
      };
      return this.wrote(await this.createOrHeld(fresh, signal));
    }
    this.observe(current);
    if (
      heldByOther(current.spec, this.o.identity, this.observedAtMs, this.o.clock.monotonicMs(), this.o.deadIdentities)
    )
      return 'held';
    const next: Lease = {
      ...current,
      spec: { ...current.spec, ...acquiredSpec(current.spec, this.o.identity, this.o.leaseDurationMs, now) },
    };
    try {
      return this.wrote(await this.o.client.update<Lease>(path, next, { signal }));
    } catch (err) {
      // Someone wrote in between (409): they may have taken it; the next attempt reads again.
      if (err instanceof ApiError && err.code === 409) return 'failed';
      throw err;
    }
  }

  private async createOrHeld(fresh: Lease, signal: AbortSignal): Promise<Lease | undefined> {
    try {
      return await this.o.client.create<Lease>(collectionPath(this.o.namespace), fresh, { signal });
    } catch (err) {
      if (err instanceof ApiError && err.code === 409) return undefined; // created by another candidate first
      throw err;
    }
  }

  private wrote(lease: Lease | undefined): Attempt {
    if (lease === undefined) return 'failed';
    this.observe(lease);
    return 'acquired';
  }

  private observe(lease: Lease): void {
    const raw = JSON.stringify(lease.spec ?? {});
    if (raw !== this.observedRaw) {
      this.observedRaw = raw;
      this.observedAtMs = this.o.clock.monotonicMs();
    }
    this.observed = lease;
    const holder = lease.spec?.holderIdentity ?? '';
    if (holder !== '' && holder !== this.lastHolder) {
      this.lastHolder = holder;
      if (holder !== this.o.identity) klog.info(logs.newLeader(holder));
      this.o.onNewLeader?.(holder);
    }
  }

  /** ReleaseOnCancel: clear the holder so the next candidate takes over without waiting out the lease. */
  private async release(): Promise<void> {
    const current = this.observed;
    if (current?.spec?.holderIdentity !== this.o.identity) return;
    const next: Lease = { ...current, spec: { ...current.spec, ...releasedSpec(current.spec, this.o.clock.now()) } };
    const budget = this.budget(this.o.renewDeadlineMs);
    try {
      this.observe(
        await this.o.client.update<Lease>(leasePath(this.o.namespace, this.o.name), next, { signal: budget.signal }),
      );
    } catch (err) {
      klog.error(logs.releaseFailed(errorMessage(err)));
    } finally {
      budget.done();
    }
  }

  /** A signal that fires after `ms` on the injected clock, or with `outer`. */
  private budget(ms: number, outer?: AbortSignal): { signal: AbortSignal; done(): void } {
    const ac = new AbortController();
    const onAbort = (): void => ac.abort();
    outer?.addEventListener('abort', onAbort, { once: true });
    const timer = this.o.clock.setTimeout(() => ac.abort(), ms);
    return {
      signal: ac.signal,
      done: () => {
        this.o.clock.clearTimeout(timer);
        outer?.removeEventListener('abort', onAbort);
      },
    };
  }

  private wait(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      let handle: TimerHandle = undefined;
      const done = (): void => {
        this.o.clock.clearTimeout(handle);
        signal.removeEventListener('abort', done);
        resolve();
      };
      handle = this.o.clock.setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  private describe(): string {
    return `${this.o.namespace}/${this.o.name}`;
  }
}
