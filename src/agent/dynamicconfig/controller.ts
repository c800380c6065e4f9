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

import type { ListWatcher } from '../../client/informer.js';
import { Informer, type KubeObject as ClientObject } from '../../client/index.js';
import type { CallOptions, PatchType } from '../../client/rest.js';
import { CheckpointStore } from './checkpoint.js';
import { decideBoot, shouldPromote, type BootDecision, type LoadOutcome } from './bootstrap.js';
import { InternalError, LoadError, syncError } from '../../api/configstatus.js';
import { BootstrapError } from './errors.js';
import { CONFIG_OK, conditionAt, configOK, FailSyncReasonInformer } from './configok.js';
import { formatTime } from '../node/clock.js';
import type { NodeCondition } from '../../api/types.js';
import { clip } from '../../util/clip.js';
import { log, logError, logWarning } from './log.js';
import {
  describeSource,
  fieldSelectorValue,
  requestPath,
  restartMessage,
  sourcesEqual,
  type ConfigMapNodeConfigSource,
  type NodeConfigSource,
} from './source.js';
import { ConfigStatusManager, type ConfigGauges, type NodeConfigStatus } from './status.js';
import { ConfigSync } from './sync.js';
import { REJECTED_REASON, rejectionMessage, type Rejection } from './rejection.js';
import type { PolicyGate } from './policy.js';
import { informerPolicyFeed, PolicyWatch, type PolicyFeed } from './policywatch.js';
import {
  nodeChannel,
  type AssignmentChannel,
  type AssignmentHandlers,
  type AssignmentObject,
  type AssignmentWatch,
} from './assignment.js';
import { errorMessage } from '../../util/errors.js';

export interface CheckpointPayload {
  bytes: Uint8Array;
  dir: string;
  path: string;
}

const messages = {
  channelNotFound: 'the config channel has not been found yet',
  noChannelYet: "the node's assignment (its config channel not found yet)",
};

/** Upstream's syncLoop health check text. */
export const SYNC_LOOP_UNHEALTHY = 'sync Loop took longer than expected';

export interface ControllerOptions<C> {
  /** The absolute --dynamic-config-dir; the store lives in <dir>/store. */
  dynamicConfigDir: string;
  nodeName: string;
  trialMs: number;
  crashLoopThreshold: number;
  /** Decode, apply flags and validate a checkpointed payload (the kubelet's loadConfig). */
  evaluate(payload: CheckpointPayload): LoadOutcome<C>;
  gauges: ConfigGauges;
  clock?: () => number;
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

/** The parts of a ConfigMap a checkpoint needs. */
export interface ConfigMapPayload {
  uid?: string;
  resourceVersion?: string;
  data?: Record<string, string>;
}

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

type NodeObject = AssignmentObject;

interface ConfigMapObject extends ClientObject {
  data?: Record<string, string>;
}

function payloadOf(o: ConfigMapObject): ConfigMapPayload {
  const meta = o.metadata ?? {};
  return {
    ...(typeof meta.uid === 'string' && meta.uid ? { uid: meta.uid } : {}),
    ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
    data: o.data ?? {},
  };
}

/** Logs an informer's failures: the first at once, then at most one line per interval counting the rest. */
class FailureLog {
  private lastLogged: number | undefined;
  private suppressed = 0;
  constructor(
    private readonly what: string,
    private readonly intervalMs: number,
    private readonly clock: () => number,
  ) {}

  failed(err: unknown): void {
    const now = this.clock();
    if (this.lastLogged !== undefined && now - this.lastLogged < this.intervalMs) {
      this.suppressed++;
      return;
    }
    const more = this.suppressed > 0 ? ` (${this.suppressed} more failures since the last report)` : '';
    this.suppressed = 0;
    this.lastLogged = now;
    logError(`failed to list or watch ${this.what}${more}, error: ${errorMessage(err)}`);
  }
}

/** What bootstrap decided from, to decide again when the governing policies change. */
interface BootRecords {
  assigned: NodeConfigSource | undefined;
  lastKnownGood: NodeConfigSource | undefined;
  startsWithoutHealthy: number;
}

export class DynamicConfigController<C> {
  readonly store: CheckpointStore;
  readonly status: ConfigStatusManager;
  private readonly clock: () => number;
  private decision: BootDecision<C> | undefined;
  private assignedAtBoot: NodeConfigSource | undefined;
  /** The assigned config was rejected at boot because its checkpoint was missing (a re-download restarts). */
  private assignedCheckpointMissing = false;
  private healthySince: number | undefined;
  private startedUp = false;
  private recordedHealthy = false;
  private trialTimer: NodeJS.Timeout | undefined;
  private informerWatchdog: NodeJS.Timeout | undefined;
  private nodeInformer: Informer<NodeObject> | undefined;
  /** The node's assignment, once its channel is found. */
  private assignment: AssignmentWatch | undefined;
  /** Settles with the assignment watch once the channel is found (undefined when it is not, or the sync stopped). */
  private following: Promise<AssignmentWatch | undefined> = Promise.resolve(undefined);
  private stopped = false;
  private configMapInformer: Informer<ConfigMapObject> | undefined;
  private configMapRef: ConfigMapNodeConfigSource | undefined;
  private sync: ConfigSync | undefined;
  private restarting: Promise<void> | undefined;
  private informerErrorReported = false;
  private healthyWrite: Promise<void> | undefined;
  private syncOptions: SyncOptions | undefined;
  private bootRecords: BootRecords | undefined;
  private policyWatch: PolicyWatch | undefined;

  constructor(private readonly options: ControllerOptions<C>) {
    this.store = options.store ?? new CheckpointStore(options.dynamicConfigDir);
    this.status = new ConfigStatusManager(options.gauges, undefined, options.clock);
    this.clock = options.clock ?? Date.now;
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
    const r = await this.store.readRecordOrQuarantine(which, new Date(this.clock()));
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
      await this.store.save({ uid: cm.uid!, resourceVersion: cm.resourceVersion!, files: got.data ?? {} });
      log(`the checkpoint of ${describeSource(src)} was missing; downloaded it again`);
      return true;
    } catch (err) {
      logWarning(
        `the checkpoint of ${describeSource(src)} is missing and could not be downloaded again, error: ${errorMessage(err)}`,
      );
      return false;
    }
  }

  /** The start ledger is best-effort: a meta/ that cannot be written must not keep a valid config from running. */
  private ledgerFailed(what: string, err: unknown): void {
    logError(`${what} could not be recorded, crash-loop accounting is suspended, error: ${errorMessage(err)}`);
    if (!this.status.current().error) this.status.setError(InternalError);
  }

  /** Decides what to run. Returns undefined for the local config; throws BootstrapError when nothing valid exists. */
  async bootstrap(opts: BootstrapOptions = {}): Promise<{ use: 'local' | 'assigned' | 'last-known-good'; config?: C }> {
    await this.store.initialize();
    const assigned = await this.readRecord('assigned');
    let lastKnownGood = await this.readRecord('last-known-good');
    this.assignedAtBoot = assigned;
    if (assigned) this.assignedCheckpointMissing = !(await this.ensureCheckpoint(assigned, opts));
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
      this.decision = decideBoot<C>({
        startsWithoutHealthy: 0,
        crashLoopThreshold: this.options.crashLoopThreshold,
        ...(lastKnownGood ? { lastKnownGood } : {}),
      });
      this.applyStatus(this.decision.status);
      return { use: 'local' };
    }
    const records: BootRecords = {
      assigned,
      lastKnownGood,
      startsWithoutHealthy: await this.store.startsWithoutHealthy(assigned),
    };
    this.bootRecords = records;
    const d = await this.decide(records);
    this.decision = d;
    this.applyStatus(d.status);
    if (d.kind === 'fatal')
      throw new BootstrapError(`failed to determine a valid configuration, error: ${clip(d.message)}`);
    if (d.rejected) logError(`${d.rejected.reason}, error: ${d.rejected.detail}`);
    if (d.use === 'assigned') {
      try {
        await this.store.recordStart(assigned);
      } catch (err) {
        this.ledgerFailed('the start of the assigned config', err);
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
    const r = this.bootRecords;
    const now = this.decision;
    const opts = this.syncOptions;
    if (!r?.assigned || now?.kind !== 'run' || !opts) return;
    const d = await this.decide(r);
    if (d.kind !== 'run') return;
    if (d.use === now.use) {
      if (d.status.error !== now.status.error) {
        this.decision = d;
        this.applyStatus(d.status);
      }
      return;
    }
    if (d.rejected) logError(`${d.rejected.reason}, error: ${d.rejected.detail}`);
    log(
      `the NodeConfigPolicies that govern the node changed: restarting to use the ${d.use === 'assigned' ? 'assigned' : d.use === 'local' ? 'local' : 'last-known-good'} config`,
    );
    await this.restart(
      d.use === 'assigned' ? r.assigned : d.use === 'last-known-good' ? r.lastKnownGood : undefined,
      opts,
    );
  }

  private applyStatus(s: NodeConfigStatus): void {
    this.status.setAssigned(s.assigned);
    this.status.setActive(s.active);
    this.status.setLastKnownGood(s.lastKnownGood);
    this.status.setError(s.error ?? '');
    const d = this.decision;
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

  private runsAssigned(): boolean {
    return this.decision?.kind === 'run' && this.decision.use === 'assigned' && this.assignedAtBoot !== undefined;
  }

  /** The controller's part of /healthz: the sync loop has run within its threshold (once it has started). */
  healthz(): HealthzResult {
    const last = this.sync?.lastLoopAt();
    const threshold = this.options.syncLoopThresholdMs ?? 5 * 60_000;
    if (last !== undefined && this.clock() - last > threshold) return { ok: false, reason: SYNC_LOOP_UNHEALTHY };
    return { ok: true };
  }

  /**
   * The agent has finished its whole start-up (capacity, registration and status, sync started). From now on a
   * passing health check counts: the first one resets the crash-loop count of the config this boot runs.
   */
  async startupComplete(): Promise<void> {
    this.startedUp = true;
    await this.markHealthy();
  }

  /** A health probe passed (the listener answers). Counts only after start-up and while /healthz passes. */
  async markHealthy(): Promise<void> {
    if (!this.startedUp) return;
    if (!this.healthz().ok) {
      this.markUnhealthy();
      return;
    }
    if (this.healthySince === undefined) this.healthySince = this.clock();
    if (!this.recordedHealthy && this.runsAssigned()) {
      this.recordedHealthy = true;
      this.healthyWrite = this.store
        .recordHealthy(this.assignedAtBoot)
        .catch((err: unknown) => this.ledgerFailed('the health of the assigned config', err));
    }
    await this.healthyWrite;
  }

  markUnhealthy(): void {
    this.healthySince = undefined;
  }

  /** Whether the config this boot runs has been recorded healthy. */
  get reachedHealth(): boolean {
    return this.recordedHealthy;
  }

  /**
   * The agent stops on purpose (a signal, or to switch config). A start that had not yet reached health did not
   * crash either, so it no longer counts against the assigned config.
   */
  async stoppedCleanly(): Promise<void> {
    // A healthy record still being written must reach the disk before the process exits.
    if (this.healthyWrite) return this.healthyWrite;
    if (this.recordedHealthy || !this.runsAssigned()) return;
    try {
      await this.store.recordCleanStop(this.assignedAtBoot);
    } catch (err) {
      logError(`failed to record a clean stop, error: ${errorMessage(err)}`);
    }
  }

  /** Why this boot rejected the assigned config (load, validation or crash loop), or undefined when it did not. */
  rejection(): Rejection | undefined {
    const d = this.decision;
    if (d?.kind !== 'run' || !d.rejected || !this.assignedAtBoot || d.use === 'assigned') return undefined;
    return { assigned: this.assignedAtBoot, stage: d.rejected.stage, detail: d.rejected.detail, runs: d.use };
  }

  startSync(opts: SyncOptions): void {
    const { client } = opts;
    const nodeName = this.options.nodeName;
    const channel = opts.channel ?? Promise.resolve(nodeChannel);
    const rejected = this.rejection();
    if (rejected && opts.emitWarning) {
      opts
        .emitWarning(REJECTED_REASON, rejectionMessage(rejected))
        .catch((err: unknown) => logError(`failed to send event, error: ${errorMessage(err)}`));
    }
    this.status.start({ publish: async (config) => (await channel).publish(client, nodeName, config) });
    this.sync = this.newConfigSync(opts);
    if (this.options.policyGate) this.startPolicyWatch(this.options.policyGate, opts);
    const nodeInformer = this.newNodeInformer(client, nodeName);
    this.following = this.followAssignment(channel, client, nodeName, nodeInformer);
    this.watchInitialSync();

    this.syncOptions = opts;
    if (this.assignedAtBoot?.configMap) this.startConfigMapInformer(this.assignedAtBoot.configMap);
    else log('local source is assigned, will not start remote config source informer');
    this.sync.startLoop();
    this.startTrialTimer();
  }

  private get informerLogIntervalMs(): number {
    return this.options.informerLogIntervalMs ?? 30_000;
  }

  /** The sync loop: the assignment from the channel's watch, the ConfigMap from its informer's cache when it holds it. */
  private newConfigSync(opts: SyncOptions): ConfigSync {
    const { client } = opts;
    const random = this.options.random ?? Math.random;
    const tick = () => 10_000 + random() * 2_000;
    return new ConfigSync({
      store: this.store,
      status: this.status,
      nodeConfigSource: () => {
        if (!this.assignment) throw new Error(messages.channelNotFound);
        return this.assignment.source();
      },
      download: async (ref) => {
        if (
          this.configMapInformer &&
          this.configMapRef &&
          this.configMapRef.namespace === ref.namespace &&
          this.configMapRef.name === ref.name
        ) {
          const cached = this.configMapInformer.store.get(`${ref.namespace}/${ref.name}`);
          if (cached) return payloadOf(cached);
        }
        return payloadOf(await client.get<ConfigMapObject>(requestPath(ref)));
      },
      restart: (source) => this.restart(source, opts),
      retryDelayMs: this.options.syncRetryMs ?? tick,
      // A new assignment waits for the object that carries it and, with a policy gate, for the policies that govern
      // the node.
      ready: async () =>
        (await this.assignmentSynced()) && (await (this.policyWatch?.ready() ?? Promise.resolve(true))),
      restoredNeedsRestart: (resolved) => this.assignedCheckpointMissing && sourcesEqual(resolved, this.assignedAtBoot),
      clock: this.clock,
      loopPeriodMs: this.options.syncLoopPeriodMs ?? tick,
    });
  }

  private startPolicyWatch(gate: PolicyGate, opts: SyncOptions): void {
    const policyFailures = new FailureLog('NodeConfigPolicies', this.informerLogIntervalMs, this.clock);
    const feed = opts.policyFeed ?? informerPolicyFeed(opts.client, (err) => policyFailures.failed(err));
    this.policyWatch = new PolicyWatch(gate, feed, () => void this.recheckPolicies());
    this.policyWatch.start();
  }

  /** The node's own Node, on either channel (started once the channel is known): its labels decide which policies govern it. */
  private newNodeInformer(client: ControllerClient, nodeName: string): Informer<NodeObject> {
    const nodeInformer = new Informer<NodeObject>(client, '/api/v1/nodes', {
      fieldSelector: `metadata.name=${fieldSelectorValue(nodeName)}`,
    });
    this.nodeInformer = nodeInformer;
    const nodeFailures = new FailureLog(`Node ${JSON.stringify(nodeName)}`, this.informerLogIntervalMs, this.clock);
    nodeInformer.on('error', (err) => nodeFailures.failed(err));
    nodeInformer.on('add', (node) =>
      this.policyWatch?.setLabels(node.metadata?.['labels'] as Record<string, string> | undefined),
    );
    nodeInformer.on('update', (_, node) =>
      this.policyWatch?.setLabels(node.metadata?.['labels'] as Record<string, string> | undefined),
    );
    nodeInformer.on('delete', () => log('Node was deleted'));
    return nodeInformer;
  }

  /** Once the channel settles: watches the assignment on it (poking the sync on a change) and starts the node informer. */
  private followAssignment(
    channel: Promise<AssignmentChannel>,
    client: ControllerClient,
    nodeName: string,
    nodeInformer: Informer<NodeObject>,
  ): Promise<AssignmentWatch | undefined> {
    let assignmentFailures: FailureLog | undefined;
    const handlers: AssignmentHandlers = {
      added: (source) => {
        this.followConfigMap(source);
        if (this.informerErrorReported) {
          // The assignment could be listed after all: what the watchdog reported no longer holds (the sync reports anew).
          this.informerErrorReported = false;
          this.status.setErrorOverride('');
        }
        this.sync?.poke();
      },
      updated: (before, after) => {
        this.followConfigMap(after);
        if (!sourcesEqual(before, after)) this.sync?.poke();
      },
      deleted: () => log(`${this.assignment?.what ?? 'the assignment'} was deleted`),
      failed: (err) => assignmentFailures?.failed(err),
    };
    return channel.then(
      (ch) => {
        if (this.stopped) return undefined;
        const watch = ch.watch(client, nodeName, nodeInformer, handlers);
        assignmentFailures = new FailureLog(watch.what, this.informerLogIntervalMs, this.clock);
        this.assignment = watch;
        nodeInformer.start();
        return watch;
      },
      () => undefined,
    );
  }

  /** A boot that started a trial checks it periodically until it ends. */
  private startTrialTimer(): void {
    if (this.decision?.kind !== 'run' || !this.decision.startTrial) return;
    const every = this.options.trialCheckMs ?? Math.min(10_000, Math.max(100, this.options.trialMs / 4));
    const check = () => void this.checkTrial();
    this.trialTimer = setInterval(check, every);
    check();
  }

  /** Resolves true once the object that carries the assignment has been listed; false if it never will be. */
  private async assignmentSynced(): Promise<boolean> {
    const watch = await this.following;
    return watch ? watch.whenSynced() : false;
  }

  private startConfigMapInformer(assigned: ConfigMapNodeConfigSource): void {
    const client = this.syncOptions!.client;
    this.configMapRef = assigned;
    const cmInformer = new Informer<ConfigMapObject>(
      client,
      `/api/v1/namespaces/${encodeURIComponent(assigned.namespace)}/configmaps`,
      {
        fieldSelector: `metadata.name=${fieldSelectorValue(assigned.name)}`,
      },
    );
    this.configMapInformer = cmInformer;
    const cmFailures = new FailureLog(
      `assigned ConfigMap ${assigned.namespace}/${assigned.name}`,
      this.options.informerLogIntervalMs ?? 30_000,
      this.clock,
    );
    cmInformer.on('error', (err) => void this.configMapInformerFailed(cmInformer, cmFailures, err));
    cmInformer.on('add', () => this.sync?.poke());
    cmInformer.on('update', (oldObj, newObj) => {
      if (oldObj.metadata?.resourceVersion !== newObj.metadata?.resourceVersion) this.sync?.poke();
    });
    cmInformer.on('delete', () => {
      log('assigned ConfigMap was deleted');
      this.sync?.poke();
    });
    cmInformer.start();
  }

  /**
   * A 1.8-alpha configMapRef is followed with GETs only: its reader may hold nothing but `get` on that one ConfigMap
   * (the role the 1.8 task grants by hand), so a list or watch would be refused again and again. The ConfigMap
   * informer (started at once, as the 1.22 form needs it) stops when the Node shows a configMapRef, and starts again
   * when it shows the 1.22 form.
   */
  private followConfigMap(source: NodeConfigSource | null | undefined): void {
    const assigned = this.assignedAtBoot?.configMap;
    if (!assigned || !this.syncOptions) return;
    if (source?.configMapRef) {
      void this.configMapInformer?.stop(); // the informer loop catches its own errors: stop() never rejects
      this.configMapInformer = undefined;
    } else if (!this.configMapInformer) {
      this.startConfigMapInformer(assigned);
    }
  }

  /** An informer failure is reported unless the assignment turned out to name its ConfigMap with a configMapRef. */
  private async configMapInformerFailed(
    informer: Informer<ConfigMapObject>,
    failures: FailureLog,
    err: unknown,
  ): Promise<void> {
    if (!(await this.assignmentSynced())) return;
    if (this.configMapInformer !== informer) return;
    failures.failed(err);
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

  /**
   * An assignment that cannot be listed (403, TLS, a server that is gone) would leave the agent on its boot config
   * with nothing to show for it: after a bounded wait, status.config reports the internal sync error, as upstream's
   * sync does when the Node is not in its cache. The next successful sync clears it.
   */
  private watchInitialSync(): void {
    const timeout = this.options.informerSyncTimeoutMs ?? 30_000;
    this.informerWatchdog = setTimeout(() => {
      this.informerWatchdog = undefined;
      if (this.assignment?.hasSynced()) return;
      const what = this.assignment ? `the ${this.assignment.what}` : messages.noChannelYet;
      logError(`${InternalError}, error: ${what} could not be listed within ${Math.round(timeout / 1000)} s`);
      this.informerErrorReported = true;
      this.status.setErrorOverride(syncError(InternalError), FailSyncReasonInformer);
    }, timeout);
    this.informerWatchdog.unref?.();
  }

  /** Promotes the assigned config to last-known-good once its health-gated trial has passed. */
  async checkTrial(): Promise<void> {
    try {
      const modified = (await this.store.assignedModified()).getTime();
      if (
        !shouldPromote({
          now: this.clock(),
          assignedModified: modified,
          healthySince: this.healthySince,
          trialMs: this.options.trialMs,
        })
      )
        return;
    } catch (err) {
      logError(`failed to check trial period for assigned config, error: ${errorMessage(err)}`);
      return;
    }
    try {
      // Read, decide and write under the store's lock: a reset must not land in between.
      const promoted = await this.store.exclusive(async (records) => {
        const assigned = await records.assigned();
        const lkg = await records.lastKnownGood();
        if (!assigned || (lkg && sourcesEqual(assigned, lkg))) return undefined;
        // Only the config this boot loaded and trialled may graduate.
        if (!sourcesEqual(assigned, this.assignedAtBoot)) return undefined;
        await records.setLastKnownGood(assigned);
        return assigned;
      });
      if (!promoted) return;
      this.status.setLastKnownGood(promoted);
      log(`updated last-known-good config to ${describeSource(promoted)}`);
    } catch (err) {
      logError(`failed to set last-known-good to assigned config, error: ${errorMessage(err)}`);
    }
  }

  /** Emits KubeletConfigChanged (bounded wait) and exits; a second request joins the first. */
  private restart(source: NodeConfigSource | undefined, opts: SyncOptions): Promise<void> {
    this.restarting ??= (async () => {
      const message = restartMessage(source);
      const timeoutMs = this.options.restartEventTimeoutMs ?? 5_000;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          logError(`failed to send event, error: no answer within ${timeoutMs} ms`);
          resolve();
        }, timeoutMs);
      });
      try {
        await Promise.race([
          opts
            .emitEvent(message)
            .catch((err: unknown) => logError(`failed to send event, error: ${errorMessage(err)}`)),
          timedOut,
        ]);
      } finally {
        clearTimeout(timer);
      }
      log(message);
      await opts.exit();
    })();
    return this.restarting;
  }

  stop(): void {
    this.stopped = true;
    this.sync?.stop();
    this.policyWatch?.stop();
    void this.assignment?.stop(); // the informer loops catch their own errors: stop() never rejects
    void this.nodeInformer?.stop();
    void this.configMapInformer?.stop();
    this.status.stop();
    if (this.trialTimer) clearInterval(this.trialTimer);
    if (this.informerWatchdog) clearTimeout(this.informerWatchdog);
  }
}
