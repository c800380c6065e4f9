// The node daemon's decisions, as pure functions over what it read: which config the kubelet should run (the boot
// decision of upstream's controller, with the kubelet's own files in place of its local config), what to do to the
// kubelet's file to get there after any crash of the daemon, and whether a kubelet under trial has passed or failed.
// The caller does the I/O (records, checkpoints, validation, the file on disk, healthz, the Node) and passes results in.

import { CrashLoopError } from '../api/configstatus.js';
import type { NodeConfigSource } from '../api/types.js';
import { sourcesEqual } from '../agent/dynamicconfig/source.js';
import type { FailureStage } from '../agent/dynamicconfig/configok.js';

/** A reason not to run a config: status.config.error, the cause, and the stage that refused it (for the event). */
export interface Refusal {
  reason: string;
  detail: string;
  stage?: FailureStage;
  /** The node's own files (its --config file, the other drop-ins) are what does not load or validate. */
  nodeFiles?: boolean;
}

/** The outcome of judging a checkpoint for the node's kubelet: validation, then the NodeConfigPolicies. */
export type Validation = { ok: true } | ({ ok: false } & Refusal);

export interface TargetInput {
  assigned?: NodeConfigSource | undefined;
  lastKnownGood?: NodeConfigSource | undefined;
  /** Present when `assigned` is set. */
  assignedValidation?: Validation | undefined;
  /** The source that failed its health gate on this node, and why (kept across restarts of the daemon). */
  failed?: { source: NodeConfigSource; cause: string } | undefined;
  /** A NodeConfigPolicy that governs the node now denies `lastKnownGood` (it is not broken: no refuge either). */
  lastKnownGoodDenied?: boolean | undefined;
  /**
   * What the kubelet runs now, as the journal and the file on disk show it (source undefined: the node's own files);
   * undefined when that is not known. A config refused before anything is written leaves the kubelet on it.
   */
  running?: { source: NodeConfigSource | undefined } | undefined;
  /** The running config cannot stay: a policy denies it, or it failed its own health gate. */
  runningUnfit?: boolean | undefined;
}

/** `running`: a checkpoint the kubelet already runs (not the assigned one), kept because the assignment was refused. */
export type TargetUse = 'assigned' | 'last-known-good' | 'running' | 'original';

export interface TargetStatus {
  assigned?: NodeConfigSource;
  lastKnownGood?: NodeConfigSource;
  error: string;
}

export interface Target {
  use: TargetUse;
  /** The checkpoint to write; absent for the node's original files. */
  source?: NodeConfigSource;
  status: TargetStatus;
  /** The assigned config must pass the health-gated trial before it becomes last-known-good. */
  trial: boolean;
  /** Why the assigned config is not run, for the log and the Warning event. */
  rejected?: Refusal;
}

/** Which config the kubelet should run. */
export function decideTarget(input: TargetInput): Target {
  const { assigned, lastKnownGood } = input;
  const status: TargetStatus = { error: '' };
  if (assigned) status.assigned = assigned;
  if (lastKnownGood) status.lastKnownGood = lastKnownGood;
  if (!assigned) return { use: 'original', status, trial: false };
  let rejected: Refusal | undefined;
  const v = input.assignedValidation;
  if (!v) rejected = { reason: CrashLoopError, detail: 'the assigned config was not validated' };
  else if (!v.ok)
    rejected = {
      reason: v.reason,
      detail: v.detail,
      ...(v.stage ? { stage: v.stage } : {}),
      ...(v.nodeFiles ? { nodeFiles: true } : {}),
    };
  else if (input.failed && sourcesEqual(input.failed.source, assigned))
    rejected = { reason: CrashLoopError, detail: input.failed.cause, stage: 'crashloop' };
  if (!rejected) {
    const trial = !(lastKnownGood && sourcesEqual(lastKnownGood, assigned));
    return { use: 'assigned', source: assigned, status, trial };
  }
  status.error = rejected.reason;
  // Refused before anything was written (it does not load, validate or pass the policies, or the node's own files are
  // broken): the kubelet keeps what it runs, whose own trial goes on. Only a config that failed on the kubelet rolls back.
  const running = input.running;
  // With the node's own files broken, no restart would bring the kubelet up: it stays on whatever it runs.
  const keep =
    rejected.stage !== 'crashloop' &&
    running !== undefined &&
    (rejected.nodeFiles === true ||
      (!input.runningUnfit && !sourcesEqual(running.source, assigned) && !sourcesEqual(running.source, lastKnownGood)));
  if (keep && !running.source) return { use: 'original', status, trial: false, rejected };
  if (keep) return { use: 'running', source: running.source!, status, trial: false, rejected };
  // A last-known-good equal to the rejected assignment is no refuge, nor one a policy denies: the node's own files are.
  if (lastKnownGood && !sourcesEqual(lastKnownGood, assigned) && !input.lastKnownGoodDenied)
    return { use: 'last-known-good', source: lastKnownGood, status, trial: false, rejected };
  return { use: 'original', status, trial: false, rejected };
}

/** What the daemon last did to the kubelet, as its journal records it (written before and after each step). */
export interface Journal {
  /** Digest of the content the kubelet's file was set to ('absent' when removed). */
  digest: string;
  /** The restart command finished after that content was written. */
  restarted: boolean;
  /** When the restart finished (ms since the epoch). */
  restartedAt?: number;
  /** The checkpoint the content came from; absent for the node's own files (and in journals of earlier releases). */
  source?: NodeConfigSource;
  /** The content is the node's own files (so an absent source is known to mean them). */
  original?: boolean;
  /** When the kubelet was first healthy on it after that restart. */
  healthyAt?: number;
}

/**
 * What the kubelet runs, from the journal and the digest of the file on disk: known only when the restart with that
 * content finished and the journal names where the content came from.
 */
export function runningFromJournal(
  journal: Journal | undefined,
  onDisk: string,
): { source: NodeConfigSource | undefined } | undefined {
  if (!journal?.restarted || journal.digest !== onDisk) return undefined;
  if (journal.source) return { source: journal.source };
  return journal.original ? { source: undefined } : undefined;
}

export type Action = 'none' | 'restart' | 'write-and-restart';

/**
 * What to do so that the kubelet runs `desired` (a digest), from what is on disk and what the journal says. A file
 * that already holds the desired content was written by an earlier run: the kubelet needs a restart only when that
 * run did not finish its restart command (it may still run the previous content).
 */
export function decideAction(input: { desired: string; onDisk: string; journal: Journal | undefined }): Action {
  if (input.onDisk !== input.desired) return 'write-and-restart';
  const j = input.journal;
  if (!j || j.digest !== input.desired || !j.restarted) return 'restart';
  return 'none';
}

export interface GateInput {
  now: number;
  /** When the kubelet was last restarted with this config. */
  restartedAt: number;
  /**
   * The gate was resumed by a daemon that did not restart the kubelet itself (it found the kubelet on this config at
   * its start): the start timeout counts from when this process first found the kubelet down, never from the journal.
   */
  resumed?: boolean | undefined;
  /** When this process first found the kubelet down, not yet healthy (resumed gates). */
  downSince?: number | undefined;
  /** Whether a kubelet process runs, from its pid (false: none; undefined: not known). */
  kubeletRunning?: boolean | undefined;
  /** Restarts of the kubelet the daemon did not cause, since it last restarted it onto this config. */
  unexpectedRestarts?: number | undefined;
  /** The count of those that fails a config on trial. */
  crashLoopThreshold?: number | undefined;
  /** Since when the kubelet has been healthy without interruption (undefined: not healthy now). */
  healthySince: number | undefined;
  /** Since when it has been unhealthy without interruption, after having been healthy (undefined: healthy, or never was). */
  unhealthySince: number | undefined;
  /** It has been healthy at least once since the restart. */
  becameHealthy: boolean;
  startTimeoutMs: number;
  trialMs: number;
  /** Only an assigned config is trialled; other targets pass once healthy. */
  trial: boolean;
}

export type GateVerdict =
  | { kind: 'starting' }
  | { kind: 'trial' }
  | { kind: 'passed' }
  | { kind: 'failed'; cause: 'start-timeout' | 'unhealthy' | 'crash-loop' };

/**
 * The health gate: the kubelet must become healthy within the start timeout; under trial it must then stay healthy
 * until the trial has run since it became healthy. A kubelet that goes unhealthy during the trial gets the start
 * timeout to come back (systemd restarting it) before the trial fails.
 */
export function judgeHealth(g: GateInput): GateVerdict {
  // A kubelet that keeps restarting on a config under trial is a crash loop, however briefly each restart leaves it down.
  if (g.trial && g.crashLoopThreshold !== undefined && (g.unexpectedRestarts ?? 0) >= g.crashLoopThreshold)
    return { kind: 'failed', cause: 'crash-loop' };
  if (!g.becameHealthy) {
    const from = g.resumed ? (g.downSince ?? g.now) : g.restartedAt;
    if (g.now - from <= g.startTimeoutMs) return { kind: 'starting' };
    // After a restart of the daemon, a kubelet with no process (a boot where the daemon came first) is waited for.
    return g.resumed && g.kubeletRunning === false ? { kind: 'starting' } : { kind: 'failed', cause: 'start-timeout' };
  }
  if (!g.trial) return { kind: 'passed' };
  if (g.unhealthySince !== undefined)
    return g.now - g.unhealthySince > g.startTimeoutMs ? { kind: 'failed', cause: 'unhealthy' } : { kind: 'trial' };
  if (g.healthySince !== undefined && g.now - Math.max(g.restartedAt, g.healthySince) >= g.trialMs)
    return { kind: 'passed' };
  return { kind: 'trial' };
}

/** Health as the daemon sees it: healthz answers, and the Node, when it has a Ready condition, is not NotReady. */
export function healthy(h: { healthz: boolean; ready: string | undefined }): boolean {
  return h.healthz && (h.ready === undefined || h.ready === 'True');
}
