// What the dynamic-config controller is given: its options at boot, the API client it asks, and what the sync needs
// (events, the exit that restarts the agent, the policy feed, the assignment channel). Apart from controller.ts so
// that the sync session reads them without importing the controller.

import type { ListWatcher } from '../../client/informer.js';
import type { CallOptions, PatchType } from '../../client/rest.js';
import type { Clock } from '../../util/clock.js';
import type { AssignmentChannel } from './assignment.js';
import type { LoadOutcome } from './bootstrap.js';
import type { CheckpointStore } from './checkpoint.js';
import type { PolicyGate } from './policy.js';
import type { PolicyFeed } from './policywatch.js';
import type { ConfigGauges } from './status.js';

export interface CheckpointPayload {
  bytes: Uint8Array;
  dir: string;
  path: string;
}

export interface ControllerOptions<C> {
  /** The absolute --dynamic-config-dir; the store lives in <dir>/store. */
  dynamicConfigDir: string;
  nodeName: string;
  trialMs: number;
  crashLoopThreshold: number;
  /** Decode, apply flags and validate a checkpointed payload (the kubelet's loadConfig). */
  evaluate(payload: CheckpointPayload): LoadOutcome<C>;
  gauges: ConfigGauges;
  /** Wall time for the trial and the records, monotonic time for the sync loop's health; the system clock. */
  clock?: Clock;
  random?: () => number;
  /** A store to use instead of one over dynamicConfigDir (tests wrap it). */
  store?: CheckpointStore;
  /** /healthz fails once the sync loop has not run for this long; 5 minutes (the kubelet's minimum). */
  syncLoopThresholdMs?: number;
  /** Delay between the sync loop's ticks; 10–12 s as upstream's. */
  syncLoopPeriodMs?: () => number;
  /** Retry delay after a failed sync; the next tick, 10–12 s, as upstream's. */
  syncRetryMs?: () => number;
  /** How long the Node informer may fail to list before status.config reports it; 30 s. */
  informerSyncTimeoutMs?: number;
  /** At most one log line per informer per this long about its failures; 30 s. */
  informerLogIntervalMs?: number;
  /** How long a restart waits for its KubeletConfigChanged event before exiting anyway; 5 s. */
  restartEventTimeoutMs?: number;
  /** Interval of the trial check; min(10 s, trial / 4). */
  trialCheckMs?: number;
  /** The agent was started with a --config file: the local config is "init" rather than "default" in ConfigOK. */
  initConfig?: boolean;
  /** The NodeConfigPolicy check `evaluate` applies; kept current from the server once syncing starts. */
  policyGate?: PolicyGate;
}

/** What the controller asks of the API server: the informers' list/watch, a GET and a status PATCH. */
export interface ControllerClient extends ListWatcher {
  get<T = unknown>(path: string, options?: CallOptions): Promise<T>;
  patch<T = unknown>(path: string, type: PatchType, patch: unknown, options?: CallOptions): Promise<T>;
}

export interface SyncOptions {
  client: ControllerClient;
  /** Create the KubeletConfigChanged event directly (not through the rate-limited recorder). */
  emitEvent(message: string): Promise<void>;
  /** Stop the agent so that its supervisor starts it again with the new config. */
  exit(): Promise<void> | void;
  /** Record a Warning event on the node (KubeletConfigRejected, when this boot rejected the assigned config). */
  emitWarning?(reason: string, message: string): Promise<void>;
  /** Where the NodeConfigPolicies come from (a fleet shares one feed); an informer on `client` by default. */
  policyFeed?: PolicyFeed;
  /**
   * Where the node's assignment and status.config live, once found (the Node channel when omitted). Until it settles
   * the controller runs on what it booted and publishes nothing; when it rejects, the sync never starts (the agent
   * stops).
   */
  channel?: Promise<AssignmentChannel>;
}
