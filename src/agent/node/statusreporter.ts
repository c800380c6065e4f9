// Keeps the agent's part of Node.status current, on the kubelet's cadence: every nodeStatusUpdateFrequency the
// status is computed and compared with the server's copy of the Node (read afresh each time, as the kubelet's
// tryUpdateNodeStatus does, so a change someone else made — the node lifecycle controller setting the conditions
// to Unknown — is undone by the next report), and patched when they differ (heartbeat times aside) or when
// nodeStatusReportFrequency has passed since the last report. The merge patch names only the fields this
// module owns, so status.config — written by the dynamic config controller — is never touched. A server
// that is down costs a log line; the next tick tries again.

import type { Node, NodeCondition } from '../../api/types.js';
import { ApiError, type RestClient } from '../../client/index.js';
import type { KubeletConfiguration } from '../../kubeletconfig/index.js';
import { klog } from '../../util/klog.js';
import { systemClock, type Clock, type TimerHandle } from '../../util/clock.js';
import { nodeReference, type EventRecorder } from '../../client/events.js';
import {
  buildNodeStatus,
  conditionEvents,
  nodeStatusChanged,
  pickOwnStatus,
  type NodeStatusInput,
  type OwnNodeStatus,
} from './status.js';
import { errorMessage } from '../../util/errors.js';

export type StatusClient = Pick<RestClient, 'get' | 'patch'>;

/** Computes the owned status at `now`, given the conditions the Node has (for their transition times). */
export type StatusSource = (now: Date, previousConditions: readonly NodeCondition[] | undefined) => OwnNodeStatus;

/**
 * A StatusSource from fixed inputs and a readiness probe (typically the agent's healthz), so callers need
 * not rebuild the status themselves.
 */
export function statusSource(
  inputs: Omit<NodeStatusInput, 'now' | 'ready' | 'reason' | 'previousConditions'>,
  readiness: () => { ok: boolean; reason?: string } = () => ({ ok: true }),
): StatusSource {
  return (now, previousConditions) => {
    const r = readiness();
    const input: NodeStatusInput = { ...inputs, now, ready: r.ok };
    if (r.reason !== undefined) input.reason = r.reason;
    if (previousConditions !== undefined) input.previousConditions = previousConditions;
    return buildNodeStatus(input);
  };
}

export interface NodeStatusReporterOptions {
  client: StatusClient;
  nodeName: string;
  config: Pick<KubeletConfiguration, 'nodeStatusUpdateFrequency' | 'nodeStatusReportFrequency'>;
  status: StatusSource;
  clock?: Clock;
  /** Receives NodeReady, NodeHasSufficientMemory, … when conditions appear or flip. */
  recorder?: EventRecorder;
}

export type SyncOutcome = 'patched' | 'unchanged' | 'failed' | 'stopped';

/** The merge patch for `next`: its own fields only, with resources that disappeared set to null. */
export function statusPatch(
  previous: Partial<OwnNodeStatus> | undefined,
  next: OwnNodeStatus,
): { status: Record<string, unknown> } {
  const withRemovals = (
    before: Record<string, string> | undefined,
    after: Record<string, string>,
  ): Record<string, string | null> => {
    const out: Record<string, string | null> = { ...after };
    for (const k of Object.keys(before ?? {})) if (!(k in after)) out[k] = null;
    return out;
  };
  return {
    status: {
      conditions: next.conditions,
      addresses: next.addresses,
      capacity: withRemovals(previous?.capacity, next.capacity),
      allocatable: withRemovals(previous?.allocatable, next.allocatable),
      daemonEndpoints: next.daemonEndpoints,
      nodeInfo: next.nodeInfo,
    },
  };
}

export class NodeStatusReporter {
  private readonly client: StatusClient;
  private readonly nodeName: string;
  private readonly source: StatusSource;
  private readonly clock: Clock;
  private readonly recorder: EventRecorder | undefined;
  private readonly updateMs: number;
  private readonly reportMs: number;
  private readonly abort = new AbortController();
  private lastReport: number | undefined;
  private timer: TimerHandle = undefined;
  private running: Promise<SyncOutcome> | undefined;
  private started = false;
  private stopped = false;

  constructor(options: NodeStatusReporterOptions) {
    this.client = options.client;
    this.nodeName = options.nodeName;
    this.source = options.status;
    this.clock = options.clock ?? systemClock;
    this.recorder = options.recorder;
    this.updateMs = Math.max(1, options.config.nodeStatusUpdateFrequency.toMilliseconds());
    this.reportMs = Math.max(1, options.config.nodeStatusReportFrequency.toMilliseconds());
  }

  /** When the status was last written (heartbeat or change). */
  get lastReportTime(): Date | undefined {
    return this.lastReport === undefined ? undefined : new Date(this.lastReport);
  }

  /** Syncs at once, then every nodeStatusUpdateFrequency. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    void this.tick();
  }

  private async tick(): Promise<void> {
    await this.syncNow();
    if (!this.stopped) this.timer = this.clock.setTimeout(() => void this.tick(), this.updateMs);
  }

  /**
   * One sync: compute, compare, patch if changed or a heartbeat is due. Concurrent calls share the sync
   * in progress. Also what the agent calls after a readiness change, rather than wait for the next tick.
   */
  syncNow(): Promise<SyncOutcome> {
    if (this.stopped) return Promise.resolve('stopped');
    this.running ??= this.sync().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async sync(): Promise<SyncOutcome> {
    const signal = this.abort.signal;
    const path = `/api/v1/nodes/${encodeURIComponent(this.nodeName)}`;
    try {
      const previous = pickOwnStatus((await this.currentNode(path, signal)).status);
      const now = this.clock.now();
      const next = this.source(now, previous.conditions);
      const heartbeatDue = this.lastReport === undefined || now.getTime() - this.lastReport >= this.reportMs;
      if (!heartbeatDue && !nodeStatusChanged(previous, next)) return 'unchanged';
      await this.client.patch(`${path}/status`, 'merge', statusPatch(previous, next), { signal });
      this.lastReport = now.getTime();
      this.recordConditionEvents(previous.conditions, next.conditions);
      return 'patched';
    } catch (err) {
      if (this.stopped) return 'stopped';
      const notFound = err instanceof ApiError && err.code === 404;
      klog.error(
        `Error updating node status, will retry: ${notFound ? `node "${this.nodeName}" not found` : errorMessage(err)}`,
      );
      return 'failed';
    }
  }

  /**
   * The Node as the server's cache has it (resourceVersion "0"), and from storage when that fails, as the kubelet
   * reads it before each status update (tryUpdateNodeStatus: the first try from the apiserver's cache).
   */
  private async currentNode(path: string, signal: AbortSignal): Promise<Node> {
    try {
      return await this.client.get<Node>(path, { signal, query: { resourceVersion: '0' } });
    } catch (err) {
      if (this.stopped) throw err;
      return await this.client.get<Node>(path, { signal });
    }
  }

  private recordConditionEvents(previous: readonly NodeCondition[] | undefined, next: readonly NodeCondition[]): void {
    if (this.recorder === undefined) return;
    for (const reason of conditionEvents(previous, next)) {
      this.recorder.record(
        nodeReference(this.nodeName),
        'Normal',
        reason,
        `Node ${this.nodeName} status is now: ${reason}`,
      );
    }
  }

  /** Stops the loop, cancels a request in flight and waits for the sync in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.abort.abort();
    await this.running?.catch(() => undefined);
  }
}
