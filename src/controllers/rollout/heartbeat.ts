// A node's heartbeat as a rollout judges it: the Lease kube-node-lease/<node> that its agent renews every quarter of
// the Lease's duration (the kubelet's 10 s of 40 s). Pure: the Lease and the controller's clock go in.
//
// Fresh means renewed within half the Lease's duration (20 s by default): two renew intervals, so one late or lost
// renewal is not a lapse, and half the node lifecycle controller's default grace period (40 s), so a rollout stops
// counting a silent node's soak well before its Ready condition turns Unknown. Freshness compares the agent's
// renewTime with the controller's clock, as leader election does with its Leases: clocks must agree to well within
// that bound.

import type { Lease } from '../../api/types.js';

/** The kubelet's default nodeLeaseDurationSeconds, for a Lease that does not say. */
export const DEFAULT_LEASE_DURATION_SECONDS = 40;

/** A renewal keeps the heartbeat fresh for this share of the Lease's duration: two of the kubelet's renew intervals. */
const FRESH_FRACTION = 0.5;

export interface Heartbeat {
  /** The last renewal, in ms since the epoch; undefined when the node has no Lease (or no renewal in it). */
  renewedMs: number | undefined;
  /** How long after a renewal the heartbeat is still fresh. */
  freshForMs: number;
}

export function heartbeatOf(lease: Lease | undefined): Heartbeat {
  const renew = lease?.spec?.renewTime;
  const renewedMs = typeof renew === 'string' ? Date.parse(renew) : NaN;
  const duration = lease?.spec?.leaseDurationSeconds;
  const seconds = typeof duration === 'number' && duration > 0 ? duration : DEFAULT_LEASE_DURATION_SECONDS;
  return { renewedMs: Number.isNaN(renewedMs) ? undefined : renewedMs, freshForMs: seconds * 1000 * FRESH_FRACTION };
}

/** The node has heartbeated recently enough at `nowMs` to be taken for alive. */
export function isFresh(h: Heartbeat, nowMs: number): boolean {
  return h.renewedMs !== undefined && nowMs - h.renewedMs <= h.freshForMs;
}

/** How often the node renews its Lease: a quarter of its duration (the kubelet's 10 s of 40 s), half the freshness. */
export function renewIntervalMs(h: Heartbeat): number {
  return h.freshForMs / 2;
}

/** The first instant at which the heartbeat is stale unless renewed before; undefined for a node that never renewed. */
export function staleAtMs(h: Heartbeat): number | undefined {
  return h.renewedMs === undefined ? undefined : h.renewedMs + h.freshForMs + 1;
}
