// The health-gated trial of the config this boot runs (upstream's trial period, gated on health here): once the agent
// has finished its start-up, passing health checks count; the first one records the assigned config healthy in the
// start ledger (resetting its crash-loop count), and once it has been healthy for a whole trial it is promoted to
// last-known-good. The trial's state lives from the boot to the agent's stop; the controller forwards the agent's
// health signals to it.

import type { CheckpointStore } from './checkpoint.js';
import { shouldPromote } from './bootstrap.js';
import type { BootState } from './bootstate.js';
import { InternalError } from '../../api/configstatus.js';
import type { Clock } from '../../util/clock.js';
import { errorMessage } from '../../util/errors.js';
import { log, logError } from './log.js';
import { describeSource, sourcesEqual } from './source.js';
import type { ConfigStatusManager } from './status.js';

/** The start ledger is best-effort: a meta/ that cannot be written must not keep a valid config from running. */
export function ledgerFailed(status: ConfigStatusManager, what: string, err: unknown): void {
  logError(`${what} could not be recorded, crash-loop accounting is suspended, error: ${errorMessage(err)}`);
  if (!status.current().error) status.setError(InternalError);
}

export interface TrialDeps {
  store: CheckpointStore;
  status: ConfigStatusManager;
  boot: BootState<unknown>;
  /** Wall time: the trial starts at the later of the assigned record's mtime and the first healthy probe. */
  clock: Clock;
  trialMs: number;
  /** Interval of the trial check; min(10 s, trial / 4). */
  trialCheckMs: number | undefined;
  /** Whether the agent's /healthz passes now (the controller's part of it). */
  healthy(): boolean;
}

export class HealthTrial {
  /** When the agent last became healthy (wall ms); undefined while it is not. */
  private healthySince: number | undefined;
  /** The agent has finished its whole start-up: from now on health checks count. */
  private startedUp = false;
  private recordedHealthy = false;
  /** The ledger's healthy record being written: a stop waits for it. */
  private healthyWrite: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: TrialDeps) {}

  /** Whether the config this boot runs has been recorded healthy. */
  get reachedHealth(): boolean {
    return this.recordedHealthy;
  }

  async startupComplete(): Promise<void> {
    this.startedUp = true;
    await this.markHealthy();
  }

  /** A health probe passed (the listener answers). Counts only after start-up and while /healthz passes. */
  async markHealthy(): Promise<void> {
    if (!this.startedUp) return;
    if (!this.deps.healthy()) {
      this.markUnhealthy();
      return;
    }
    if (this.healthySince === undefined) this.healthySince = this.deps.clock.now().getTime();
    const assigned = this.deps.boot.runsAssigned();
    if (!this.recordedHealthy && assigned) {
      this.recordedHealthy = true;
      this.healthyWrite = this.deps.store
        .recordHealthy(assigned)
        .catch((err: unknown) => ledgerFailed(this.deps.status, 'the health of the assigned config', err));
    }
    await this.healthyWrite;
  }

  markUnhealthy(): void {
    this.healthySince = undefined;
  }

  /**
   * The agent stops on purpose (a signal, or to switch config). A start that had not yet reached health did not
   * crash either, so it no longer counts against the assigned config.
   */
  async stoppedCleanly(): Promise<void> {
    // A healthy record still being written must reach the disk before the process exits.
    if (this.healthyWrite) return this.healthyWrite;
    const assigned = this.deps.boot.runsAssigned();
    if (this.recordedHealthy || !assigned) return;
    try {
      await this.deps.store.recordCleanStop(assigned);
    } catch (err) {
      logError(`failed to record a clean stop, error: ${errorMessage(err)}`);
    }
  }

  /** A boot that started a trial checks it periodically until it ends. */
  start(): void {
    const d = this.deps.boot.decision;
    if (d?.kind !== 'run' || !d.startTrial) return;
    const every = this.deps.trialCheckMs ?? Math.min(10_000, Math.max(100, this.deps.trialMs / 4));
    const check = () => void this.check();
    this.timer = setInterval(check, every);
    check();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Promotes the assigned config to last-known-good once its health-gated trial has passed. */
  async check(): Promise<void> {
    try {
      const modified = (await this.deps.store.assignedModified()).getTime();
      const input = {
        now: this.deps.clock.now().getTime(),
        assignedModified: modified,
        healthySince: this.healthySince,
        trialMs: this.deps.trialMs,
      };
      if (!shouldPromote(input)) return;
    } catch (err) {
      logError(`failed to check trial period for assigned config, error: ${errorMessage(err)}`);
      return;
    }
    try {
      const promoted = await this.promote();
      if (!promoted) return;
      this.deps.status.setLastKnownGood(promoted);
      log(`updated last-known-good config to ${describeSource(promoted)}`);
      // The last-known-good it replaced is needed no more (the promoted one is the one running).
      const removed = await this.deps.store.prune([promoted]).catch((err: unknown) => {
        logError(`failed to remove unused checkpoints, error: ${errorMessage(err)}`);
        return [];
      });
      if (removed.length > 0) log(`removed ${removed.length} checkpoints no record names: ${removed.join(', ')}`);
    } catch (err) {
      logError(`failed to set last-known-good to assigned config, error: ${errorMessage(err)}`);
    }
  }

  /** Read, decide and write under the store's lock: a reset must not land in between. */
  private promote() {
    return this.deps.store.exclusive(async (records) => {
      const assigned = await records.assigned();
      const lkg = await records.lastKnownGood();
      if (!assigned || (lkg && sourcesEqual(assigned, lkg))) return undefined;
      // Only the config this boot loaded and trialled may graduate.
      if (!sourcesEqual(assigned, this.deps.boot.assignedAtBoot)) return undefined;
      await records.setLastKnownGood(assigned);
      return assigned;
    });
  }
}
