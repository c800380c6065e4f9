// The dynamic config controller (upstream's kubeletconfig.Controller): Bootstrap decides, before the agent starts,
// which configuration it runs; StartSync then follows the node's assignment and its ConfigMap with informers
// (field-selected, so the Node authorizer can scope them), publishes status.config, promotes the assigned config to
// last-known-good after a health-gated trial, and restarts the agent when the assigned config changes. The assignment
// and status.config live on the node's Node or on its NodeConfig (assignment.ts): the channel, found once at start,
// is the only part that knows which.
//
// Beyond upstream: the store heals itself (an unreadable record counts as absent, a missing checkpoint is downloaded
// again), the start ledger is best-effort, "healthy" means the agent finished its whole start-up and its /healthz
// passes, informer failures are logged and reported instead of stalling in silence, and the NodeConfigPolicies that
// govern the node are watched: when they change, the boot decision is made again and the agent restarts if what it
// should run is not what it runs (policy.ts, policywatch.ts).

import { CheckpointStore, kubeletFiles } from './checkpoint.js';
import { decideBoot, type BootDecision, type LoadOutcome } from './bootstrap.js';
import { LoadError } from '../../api/configstatus.js';
import { BootstrapError } from './errors.js';
import { CONFIG_OK, conditionAt, configOK } from './configok.js';
import { formatTime, systemClock, type Clock } from '../../util/clock.js';
import type { NodeCondition } from '../../api/types.js';
import { clip } from '../../util/clip.js';
import { log, logError, logWarning } from './log.js';
import { describeSource, type ConfigMapNodeConfigSource, type NodeConfigSource } from './source.js';
import { ConfigStatusManager, type NodeConfigStatus } from './status.js';
import { REJECTED_REASON, rejectionMessage, type Rejection } from './rejection.js';
import { errorMessage } from '../../util/errors.js';
import { BootState, type BootRecords } from './bootstate.js';
import type { ConfigMapPayload } from './configmapwatch.js';
import { HealthTrial, ledgerFailed } from './trial.js';
import { SyncSession } from './session.js';

/** Upstream's syncLoop health check text. */
export const SYNC_LOOP_UNHEALTHY = 'sync Loop took longer than expected';

import type { CheckpointPayload, ControllerClient, ControllerOptions, SyncOptions } from './options.js';

export type { CheckpointPayload, ControllerClient, ControllerOptions, SyncOptions };
export type { ConfigMapPayload } from './configmapwatch.js';

export interface BootstrapOptions {
  /**
   * GETs a ConfigMap, to download again a checkpoint that has gone missing from disk. Without it (or when it
   * fails) a missing checkpoint is a load failure, as upstream's.
   */
  fetchConfigMap?(ref: ConfigMapNodeConfigSource): Promise<ConfigMapPayload>;
}

export interface HealthzResult {
  ok: boolean;
  reason?: string;
}

/**
 * The controller's state is three groups, each with one owner: what this boot decided and from what (`boot`, written
 * by bootstrap, its decision again by the policy recheck), the health-gated trial of the config it runs (`trial`,
 * fed by the agent's health signals), and the sync with its watches (`session`, from startSync to stop).
 */
export class DynamicConfigController<C> {
  readonly store: CheckpointStore;
  readonly status: ConfigStatusManager;
  private readonly clock: Clock;
  private readonly boot = new BootState<C>();
  private readonly trial: HealthTrial;
  private session: SyncSession | undefined;

  constructor(private readonly options: ControllerOptions<C>) {
    this.store = options.store ?? new CheckpointStore(options.dynamicConfigDir);
    this.status = new ConfigStatusManager(options.gauges, undefined, options.clock);
    this.clock = options.clock ?? systemClock;
    this.trial = new HealthTrial({
      store: this.store,
      status: this.status,
      boot: this.boot,
      clock: this.clock,
      trialMs: options.trialMs,
      trialCheckMs: options.trialCheckMs,
      healthy: () => this.healthz().ok,
    });
  }

  private async loadOutcome(src: NodeConfigSource): Promise<LoadOutcome<C>> {
    let payload: CheckpointPayload;
    try {
      payload = await this.store.load(src);
    } catch (err) {
      return { ok: false, reason: LoadError, detail: errorMessage(err), stage: 'load' };
    }
    return this.options.evaluate(payload);
  }

  /** A record, or undefined when it is absent or unreadable (an unreadable one is set aside and logged loudly). */
  private async readRecord(which: 'assigned' | 'last-known-good'): Promise<NodeConfigSource | undefined> {
    const r = await this.store.readRecordOrQuarantine(which, this.clock.now());
    if (r.error) {
      const kept = r.keptAs ? `kept a copy as ${r.keptAs}` : `could not set it aside: ${errorMessage(r.clearError)}`;
      logError(`the ${which} record is unreadable and is treated as absent (${kept}), error: ${errorMessage(r.error)}`);
    }
    return r.source;
  }

  /**
   * Whether `src`'s checkpoint is on disk, downloading it again when it is missing and the ConfigMap still has the
   * same UID and ResourceVersion.
   */
  private async ensureCheckpoint(src: NodeConfigSource, opts: BootstrapOptions): Promise<boolean> {
    try {
      if (await this.store.exists(src)) return true;
    } catch (err) {
      logError(`cannot check the checkpoint of ${describeSource(src)}, error: ${errorMessage(err)}`);
      return false;
    }
    const cm = src.configMap!;
    if (!opts.fetchConfigMap) return false;
    try {
      const got = await opts.fetchConfigMap(cm);
      if (got.uid !== cm.uid || got.resourceVersion !== cm.resourceVersion) {
        logWarning(
          `the checkpoint of ${describeSource(src)} is missing and the ConfigMap has changed (UID: ${got.uid ?? ''}, ResourceVersion: ${got.resourceVersion ?? ''})`,
        );
        return false;
      }
      await this.store.save({
        uid: cm.uid!,
        resourceVersion: cm.resourceVersion!,
        files: kubeletFiles(got.data, cm.kubeletConfigKey),
      });
      log(`the checkpoint of ${describeSource(src)} was missing; downloaded it again`);
      return true;
    } catch (err) {
      logWarning(
        `the checkpoint of ${describeSource(src)} is missing and could not be downloaded again, error: ${errorMessage(err)}`,
      );
      return false;
    }
  }

  /**
   * At start, when what the kubelet runs is one of the two records (or the local config): every other checkpoint
   * goes. A failure only leaves them for the next start.
   */
  private async pruneCheckpoints(): Promise<void> {
    try {
      const removed = await this.store.prune();
      if (removed.length > 0) log(`removed ${removed.length} checkpoints no record names: ${removed.join(', ')}`);
    } catch (err) {
      logError(`failed to remove unused checkpoints, error: ${errorMessage(err)}`);
    }
  }

  /** Decides what to run. Returns undefined for the local config; throws BootstrapError when nothing valid exists. */
  async bootstrap(opts: BootstrapOptions = {}): Promise<{ use: 'local' | 'assigned' | 'last-known-good'; config?: C }> {
    await this.store.initialize();
    const assigned = await this.readRecord('assigned');
    let lastKnownGood = await this.readRecord('last-known-good');
    this.boot.assignedAtBoot = assigned;
    if (assigned) this.boot.assignedCheckpointMissing = !(await this.ensureCheckpoint(assigned, opts));
    if (lastKnownGood && !(await this.ensureCheckpoint(lastKnownGood, opts))) {
      logError(
        `the last-known-good checkpoint of ${describeSource(lastKnownGood)} is missing; falling back to the local config instead`,
      );
      lastKnownGood = undefined;
      await this.store
        .setLastKnownGood(undefined)
        .catch((err: unknown) => logError(`failed to clear the last-known-good record, error: ${errorMessage(err)}`));
    }
    if (!assigned) {
      this.boot.decision = decideBoot<C>({
        startsWithoutHealthy: 0,
        crashLoopThreshold: this.options.crashLoopThreshold,
        ...(lastKnownGood ? { lastKnownGood } : {}),
      });
      this.applyStatus(this.boot.decision.status);
      return { use: 'local' };
    }
    const records: BootRecords = {
      assigned,
      lastKnownGood,
      startsWithoutHealthy: await this.store.startsWithoutHealthy(assigned),
    };
    this.boot.records = records;
    const d = await this.decide(records);
    this.boot.decision = d;
    this.applyStatus(d.status);
    if (d.kind === 'fatal')
      throw new BootstrapError(`failed to determine a valid configuration, error: ${clip(d.message)}`);
    if (d.rejected) logError(`${d.rejected.reason}, error: ${d.rejected.detail}`);
    await this.pruneCheckpoints();
    if (d.use === 'assigned') {
      try {
        await this.store.recordStart(assigned);
      } catch (err) {
        ledgerFailed(this.status, 'the start of the assigned config', err);
      }
      log(`using assigned config ${describeSource(assigned)}`);
    } else if (d.use === 'last-known-good' && lastKnownGood) {
      log(`using last-known-good config ${describeSource(lastKnownGood)}`);
    } else {
      log('using local config');
    }
    return d.use === 'local' ? { use: 'local' } : { use: d.use, config: d.config as C };
  }

  /** The boot decision over the records: load the assigned config, and last-known-good only when it is needed. */
  private async decide(r: BootRecords): Promise<BootDecision<C>> {
    const input = {
      ...(r.assigned ? { assigned: r.assigned, assignedOutcome: await this.loadOutcome(r.assigned) } : {}),
      startsWithoutHealthy: r.startsWithoutHealthy,
      crashLoopThreshold: this.options.crashLoopThreshold,
      ...(r.lastKnownGood ? { lastKnownGood: r.lastKnownGood } : {}),
    };
    const d = decideBoot<C>(input);
    if (d.kind !== 'fatal' || !r.lastKnownGood) return d;
    return decideBoot<C>({ ...input, lastKnownGoodOutcome: await this.loadOutcome(r.lastKnownGood) });
  }

  /**
   * The Deny policies that govern the node changed: decide again from the same records, as the next boot will.
   * When the answer is another config than the one running — the running one is now denied, or one denied before no
   * longer is — restart to run it; otherwise only the reason shown may change.
   */
  private async recheckPolicies(): Promise<void> {
    const r = this.boot.records;
    const now = this.boot.decision;
    const session = this.session;
    if (!r?.assigned || now?.kind !== 'run' || !session) return;
    const d = await this.decide(r);
    if (d.kind !== 'run') return;
    if (d.use === now.use) {
      if (d.status.error !== now.status.error) {
        this.boot.decision = d;
        this.applyStatus(d.status);
      }
      return;
    }
    if (d.rejected) logError(`${d.rejected.reason}, error: ${d.rejected.detail}`);
    log(
      `the NodeConfigPolicies that govern the node changed: restarting to use the ${d.use === 'assigned' ? 'assigned' : d.use === 'local' ? 'local' : 'last-known-good'} config`,
    );
    await session.restart(
      d.use === 'assigned' ? r.assigned : d.use === 'last-known-good' ? r.lastKnownGood : undefined,
    );
  }

  private applyStatus(s: NodeConfigStatus): void {
    this.status.setAssigned(s.assigned);
    this.status.setActive(s.active);
    this.status.setLastKnownGood(s.lastKnownGood);
    this.status.setError(s.error ?? '');
    const d = this.boot.decision;
    if (d?.kind !== 'run') return;
    this.status.setConfigOK(
      configOK({
        use: d.use,
        assigned: s.assigned,
        lastKnownGood: s.lastKnownGood,
        rejected: d.rejected
          ? (d.rejected.stage ?? (d.rejected.reason === LoadError ? 'load' : 'validate'))
          : undefined,
        initConfig: this.options.initConfig ?? false,
      }),
    );
  }

  /** The controller's part of /healthz: the sync loop has run within its threshold (once it has started). */
  healthz(): HealthzResult {
    const last = this.session?.sync.lastLoopAt();
    const threshold = this.options.syncLoopThresholdMs ?? 5 * 60_000;
    if (last !== undefined && this.clock.monotonicMs() - last > threshold)
      return { ok: false, reason: SYNC_LOOP_UNHEALTHY };
    return { ok: true };
  }

  /**
   * The agent has finished its whole start-up (capacity, registration and status, sync started). From now on a
   * passing health check counts: the first one resets the crash-loop count of the config this boot runs.
   */
  startupComplete(): Promise<void> {
    return this.trial.startupComplete();
  }

  /** A health probe passed (the listener answers). Counts only after start-up and while /healthz passes. */
  markHealthy(): Promise<void> {
    return this.trial.markHealthy();
  }

  markUnhealthy(): void {
    this.trial.markUnhealthy();
  }

  /** Whether the config this boot runs has been recorded healthy. */
  get reachedHealth(): boolean {
    return this.trial.reachedHealth;
  }

  /**
   * The agent stops on purpose (a signal, or to switch config). A start that had not yet reached health did not
   * crash either, so it no longer counts against the assigned config.
   */
  stoppedCleanly(): Promise<void> {
    return this.trial.stoppedCleanly();
  }

  /** Promotes the assigned config to last-known-good once its health-gated trial has passed. */
  checkTrial(): Promise<void> {
    return this.trial.check();
  }

  /** Why this boot rejected the assigned config (load, validation or crash loop), or undefined when it did not. */
  rejection(): Rejection | undefined {
    return this.boot.rejection();
  }

  startSync(opts: SyncOptions): void {
    const rejected = this.rejection();
    if (rejected && opts.emitWarning) {
      opts
        .emitWarning(REJECTED_REASON, rejectionMessage(rejected))
        .catch((err: unknown) => logError(`failed to send event, error: ${errorMessage(err)}`));
    }
    const deps = {
      options: this.options,
      store: this.store,
      status: this.status,
      boot: this.boot,
      clock: this.clock,
      recheckPolicies: () => void this.recheckPolicies(),
    };
    this.session = new SyncSession(deps, opts);
    this.trial.start();
  }

  /**
   * The ConfigOK condition for the Node's status, given the conditions it carries: the heartbeat is when the condition
   * last changed, the transition time is kept unless its status or message changed. Empty before the boot decision.
   */
  configOKConditions(previous: readonly NodeCondition[] | undefined): NodeCondition[] {
    const c = this.status.condition();
    if (!c) return [];
    const onNode = previous?.find((x) => x.type === CONFIG_OK);
    return [conditionAt(c.condition, onNode, formatTime(new Date(c.changedAt)))];
  }

  stop(): void {
    this.session?.stop();
    this.status.stop();
    this.trial.stop();
  }
}
