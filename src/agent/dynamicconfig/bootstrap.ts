// The boot decision (upstream's Controller.Bootstrap), as one pure function: from the checkpointed records, the
// outcome of loading each candidate config, and the crash-loop count, decide which configuration the agent runs,
// what Node.status.config starts as, and whether the trial period runs. The caller does the I/O (reading the
// store, decoding and validating payloads) and passes the results in.

import type { NodeConfigSource } from './source.js';
import { CrashLoopError } from '../../api/configstatus.js';
import type { BootErrorReason } from './errors.js';
import type { FailureStage } from './configok.js';

/** The outcome of loading one checkpointed config: decode + flags + validation. */
export type LoadOutcome<C> =
  { ok: true; config: C } | { ok: false; reason: BootErrorReason; detail: string; stage?: FailureStage };

export interface BootInput<C> {
  assigned?: NodeConfigSource;
  lastKnownGood?: NodeConfigSource;
  /** Present when `assigned` is set. */
  assignedOutcome?: LoadOutcome<C>;
  /** Present when `lastKnownGood` is set and may be needed. */
  lastKnownGoodOutcome?: LoadOutcome<C>;
  /** Consecutive starts of `assigned` that never became healthy (dkc's crash-loop accounting). */
  startsWithoutHealthy: number;
  /** At or above this many, the assigned config is treated as failed. 0 disables the check. */
  crashLoopThreshold: number;
}

export interface BootStatus {
  assigned?: NodeConfigSource;
  active?: NodeConfigSource;
  lastKnownGood?: NodeConfigSource;
  /** The base error (sync-time errors override it later). */
  error: string;
}

export type BootDecision<C> =
  | {
      kind: 'run';
      /** 'local' = the --config file and flags; otherwise the checkpoint to run. */
      use: 'local' | 'assigned' | 'last-known-good';
      config?: C;
      status: BootStatus;
      /** Only a successfully loaded assigned config is trialled (and may be promoted). */
      startTrial: boolean;
      /** Why the assigned config was rejected, for the log (`<reason>, error: <detail>`). */
      rejected?: { reason: BootErrorReason; detail: string; stage?: FailureStage };
    }
  | { kind: 'fatal'; message: string; status: BootStatus };

export function decideBoot<C>(input: BootInput<C>): BootDecision<C> {
  const { assigned, lastKnownGood } = input;
  const status: BootStatus = { error: '' };
  if (assigned) status.assigned = assigned;
  if (lastKnownGood) status.lastKnownGood = lastKnownGood;
  if (!assigned) return { kind: 'run', use: 'local', status, startTrial: false };

  let outcome = input.assignedOutcome ?? {
    ok: false as const,
    reason: CrashLoopError,
    detail: 'assigned config was not loaded',
  };
  if (outcome.ok && input.crashLoopThreshold > 0 && input.startsWithoutHealthy >= input.crashLoopThreshold) {
    outcome = {
      ok: false,
      reason: CrashLoopError,
      stage: 'crashloop',
      detail: `the assigned config started ${input.startsWithoutHealthy} times without becoming healthy`,
    };
  }
  if (outcome.ok) {
    status.active = assigned;
    return { kind: 'run', use: 'assigned', config: outcome.config, status, startTrial: true };
  }

  const rejected = {
    reason: outcome.reason,
    detail: outcome.detail,
    ...(outcome.stage ? { stage: outcome.stage } : {}),
  };
  status.error = outcome.reason;
  if (!lastKnownGood) return { kind: 'run', use: 'local', status, startTrial: false, rejected };
  const lkg = input.lastKnownGoodOutcome;
  // A last-known-good that a NodeConfigPolicy now denies is not broken: the node falls back to its local config.
  if (lkg && !lkg.ok && lkg.stage === 'policy')
    return { kind: 'run', use: 'local', status, startTrial: false, rejected };
  if (!lkg || !lkg.ok) {
    return {
      kind: 'fatal',
      message: lkg && !lkg.ok ? `${lkg.reason}, error: ${lkg.detail}` : 'last-known-good config was not loaded',
      status,
    };
  }
  status.active = lastKnownGood;
  return { kind: 'run', use: 'last-known-good', config: lkg.config, status, startTrial: false, rejected };
}

/**
 * Trial and promotion (upstream's checkTrial, health-gated by dkc): the assigned config graduates to
 * last-known-good once the trial has passed since the assigned record was last written AND the agent has been
 * healthy without interruption for that long.
 */
export function shouldPromote(input: {
  now: number;
  assignedModified: number;
  /** When the agent last became healthy (undefined = not healthy now). */
  healthySince: number | undefined;
  trialMs: number;
}): boolean {
  if (input.healthySince === undefined) return false;
  const trialStart = Math.max(input.assignedModified, input.healthySince);
  return input.now - trialStart > input.trialMs;
}
