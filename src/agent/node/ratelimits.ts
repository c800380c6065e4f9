// The agent's client-side limits, read from the config the way the kubelet applies them: API requests at
// kubeAPIQPS/kubeAPIBurst (client-go substitutes 5/10 for zero), events at eventRecordQPS/eventBurst where 0 QPS
// means unlimited, and heartbeats (node status, Lease) unthrottled but with a timeout.

import { TokenBucket } from '../../client/index.js';
import { systemClock, type Clock } from '../../util/clock.js';
import type { KubeletConfiguration } from '../../kubeletconfig/index.js';

const CLIENT_GO_DEFAULT_QPS = 5;
const CLIENT_GO_DEFAULT_BURST = 10;

/** The limiter for the agent's RestClient (RestClientOptions.rateLimiter). */
export function kubeAPIRateLimiter(
  config: Pick<KubeletConfiguration, 'kubeAPIQPS' | 'kubeAPIBurst'>,
  clock: Clock = systemClock,
): TokenBucket {
  const qps = config.kubeAPIQPS > 0 ? config.kubeAPIQPS : CLIENT_GO_DEFAULT_QPS;
  const burst = config.kubeAPIBurst > 0 ? Math.trunc(config.kubeAPIBurst) : CLIENT_GO_DEFAULT_BURST;
  return new TokenBucket(qps, burst, clock);
}

/**
 * The heartbeat client's per-request timeout: nodeStatusUpdateFrequency, capped at the lease duration (the
 * kubelet's heartbeat client has no rate limit and this timeout).
 */
export function heartbeatTimeoutMs(
  config: Pick<KubeletConfiguration, 'nodeStatusUpdateFrequency' | 'nodeLeaseDurationSeconds'>,
): number {
  return Math.min(config.nodeStatusUpdateFrequency.toMilliseconds(), config.nodeLeaseDurationSeconds * 1000);
}

/** The event recorder's limits, for EventRecorderOptions: qps 0 disables limiting. */
export function eventRateLimits(config: Pick<KubeletConfiguration, 'eventRecordQPS' | 'eventBurst'>): {
  qps: number;
  burst: number;
} {
  return { qps: Math.max(0, config.eventRecordQPS), burst: Math.max(1, Math.trunc(config.eventBurst)) };
}
