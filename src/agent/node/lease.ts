// The node's heartbeat Lease (KEP-589): coordination.k8s.io/v1 Lease kube-node-lease/<node>, held by the
// node, renewed every leaseDurationSeconds/4 as the kubelet's lease controller does, owned by the Node so
// that deleting the Node deletes it. A conflicting write means someone else touched the Lease: re-read it
// and try again on top of the fresh copy. A server that is down costs a log line and a quicker retry.

import { NODE_LEASE_NAMESPACE, type Lease, type Node, type OwnerReference } from '../../api/types.js';
import { ApiError, type RestClient } from '../../client/index.js';
import { backoffDelay } from '../../util/backoff.js';
import { klog } from '../../util/klog.js';
import { formatMicroTime, systemClock, type Clock, type TimerHandle } from '../../util/clock.js';
import { errorMessage } from '../../util/errors.js';

export type LeaseClient = Pick<RestClient, 'get' | 'create' | 'update'>;

/** nodeLeaseRenewIntervalFraction of the kubelet. */
export const RENEW_INTERVAL_FRACTION = 0.25;
const MAX_UPDATE_RETRIES = 5;
const MIN_RETRY_MS = 200;

export interface LeaseRenewerOptions {
  client: LeaseClient;
  nodeName: string;
  /** nodeLeaseDurationSeconds. */
  leaseDurationSeconds: number;
  /** The Node's uid for the ownerReference; looked up when omitted. */
  nodeUID?: string;
  clock?: Clock;
  /** Overrides leaseDurationSeconds × 1/4 (tests, fleets spreading load). */
  renewIntervalMs?: number;
}

export function leasePath(nodeName: string): string {
  return `/apis/coordination.k8s.io/v1/namespaces/${NODE_LEASE_NAMESPACE}/leases/${encodeURIComponent(nodeName)}`;
}

function nodeOwner(nodeName: string, uid: string): OwnerReference {
  return { apiVersion: 'v1', kind: 'Node', name: nodeName, uid };
}

/**
 * The Lease to write at `now`: `base` (the stored copy) with holder, duration and renewTime set, and the
 * Node as owner when no owner is recorded yet and the Node's uid is known. Pure.
 */
export function renewedLease(
  base: Lease | undefined,
  nodeName: string,
  leaseDurationSeconds: number,
  now: Date,
  nodeUID: string | undefined,
): Lease {
  const lease: Lease = base
    ? { ...base, metadata: { ...base.metadata }, spec: { ...(base.spec ?? {}) } }
    : {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: nodeName, namespace: NODE_LEASE_NAMESPACE },
        spec: {},
      };
  lease.spec = { ...lease.spec, holderIdentity: nodeName, leaseDurationSeconds, renewTime: formatMicroTime(now) };
  if ((lease.metadata.ownerReferences ?? []).length === 0 && nodeUID !== undefined && nodeUID !== '') {
    lease.metadata.ownerReferences = [nodeOwner(nodeName, nodeUID)];
  }
  return lease;
}

export type RenewOutcome = 'renewed' | 'failed' | 'stopped';

export class LeaseRenewer {
  private readonly client: LeaseClient;
  private readonly nodeName: string;
  private readonly durationSeconds: number;
  private readonly clock: Clock;
  private readonly intervalMs: number;
  private readonly abort = new AbortController();
  private nodeUID: string | undefined;
  private latest: Lease | undefined;
  private timer: TimerHandle = undefined;
  private running: Promise<RenewOutcome> | undefined;
  private failures = 0;
  private started = false;
  private stopped = false;

  constructor(options: LeaseRenewerOptions) {
    this.client = options.client;
    this.nodeName = options.nodeName;
    this.durationSeconds = options.leaseDurationSeconds;
    this.nodeUID = options.nodeUID;
    this.clock = options.clock ?? systemClock;
    this.intervalMs = Math.max(
      1,
      options.renewIntervalMs ?? options.leaseDurationSeconds * 1000 * RENEW_INTERVAL_FRACTION,
    );
  }

  /** The Lease as last written or read. */
  get lease(): Lease | undefined {
    return this.latest;
  }

  get renewIntervalMs(): number {
    return this.intervalMs;
  }

  /** Renews at once, then every renew interval (sooner after a failure, with doubling backoff). */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    void this.tick();
  }

  private async tick(): Promise<void> {
    const outcome = await this.renewNow();
    if (this.stopped) return;
    const delay =
      outcome === 'failed'
        ? backoffDelay({ initialMs: MIN_RETRY_MS, maxMs: this.intervalMs }, this.failures)
        : this.intervalMs;
    this.timer = this.clock.setTimeout(() => void this.tick(), delay);
  }

  /** One renewal; concurrent calls share the one in progress. */
  renewNow(): Promise<RenewOutcome> {
    if (this.stopped) return Promise.resolve('stopped');
    this.running ??= this.renew().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async ensureNodeUID(signal: AbortSignal): Promise<void> {
    if (this.nodeUID !== undefined) return;
    try {
      const node = await this.client.get<Node>(`/api/v1/nodes/${encodeURIComponent(this.nodeName)}`, { signal });
      this.nodeUID = node.metadata.uid;
    } catch (err) {
      // The Lease is still worth renewing without an owner; the owner is added on a later renewal.
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
  }

  /** GET the Lease, creating it (already renewed) when absent: ensureLease. */
  private async ensure(signal: AbortSignal): Promise<{ lease: Lease; created: boolean }> {
    const path = leasePath(this.nodeName);
    try {
      return { lease: await this.client.get<Lease>(path, { signal }), created: false };
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
    const fresh = renewedLease(undefined, this.nodeName, this.durationSeconds, this.clock.now(), this.nodeUID);
    try {
      const lease = await this.client.create<Lease>(
        `/apis/coordination.k8s.io/v1/namespaces/${NODE_LEASE_NAMESPACE}/leases`,
        fresh,
        { signal },
      );
      return { lease, created: true };
    } catch (err) {
      // Created by someone else in between: renew theirs.
      if (err instanceof ApiError && err.code === 409)
        return { lease: await this.client.get<Lease>(path, { signal }), created: false };
      throw err;
    }
  }

  private renewed(lease: Lease): RenewOutcome {
    this.latest = lease;
    this.failures = 0;
    return 'renewed';
  }

  private async renew(): Promise<RenewOutcome> {
    const signal = this.abort.signal;
    try {
      await this.ensureNodeUID(signal);
      let base = this.latest;
      if (base === undefined) {
        const ensured = await this.ensure(signal);
        if (ensured.created) return this.renewed(ensured.lease);
        base = ensured.lease;
      }
      for (let attempt = 1; ; attempt++) {
        const desired = renewedLease(base, this.nodeName, this.durationSeconds, this.clock.now(), this.nodeUID);
        try {
          return this.renewed(await this.client.update<Lease>(leasePath(this.nodeName), desired, { signal }));
        } catch (err) {
          const conflict = err instanceof ApiError && (err.code === 409 || err.code === 404);
          if (!conflict || attempt >= MAX_UPDATE_RETRIES) throw err;
          klog.v(2, `Lease update conflict, re-reading the lease: ${errorMessage(err)}`, { node: this.nodeName });
          const ensured = await this.ensure(signal);
          if (ensured.created) return this.renewed(ensured.lease);
          base = ensured.lease;
        }
      }
    } catch (err) {
      if (this.stopped) return 'stopped';
      this.latest = undefined;
      this.failures++;
      klog.error(`Failed to update lease: ${errorMessage(err)}`, { node: this.nodeName });
      return 'failed';
    }
  }

  /** Stops renewing, cancels a request in flight and waits for the renewal in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.abort.abort();
    await this.running?.catch(() => undefined);
  }
}
