// The controller's sync, from startSync to stop: the watches it starts (the node's own Node, the assignment on its
// channel, the assigned ConfigMap, the NodeConfigPolicies), the sync loop they poke, the watchdog that reports an
// assignment that cannot be listed, and the one restart a change of config leads to. Everything here is created when
// the sync starts and torn down by stop(); the boot's decision and the trial live outside it (bootstate.ts, trial.ts).

import { Informer } from '../../client/index.js';
import { syncError, InternalError } from '../../api/configstatus.js';
import type { Clock } from '../../util/clock.js';
import { errorMessage } from '../../util/errors.js';
import type { CheckpointStore } from './checkpoint.js';
import type { BootState } from './bootstate.js';
import { FailSyncReasonInformer } from './configok.js';
import { ConfigMapWatch, payloadOf, type ConfigMapObject } from './configmapwatch.js';
import type { ControllerClient, ControllerOptions, SyncOptions } from './options.js';
import { FailureLog } from './failurelog.js';
import { log, logError } from './log.js';
import type { PolicyGate } from './policy.js';
import { informerPolicyFeed, PolicyWatch } from './policywatch.js';
import { fieldSelectorValue, requestPath, restartMessage, sourcesEqual, type NodeConfigSource } from './source.js';
import type { ConfigStatusManager } from './status.js';
import { ConfigSync } from './sync.js';
import {
  nodeChannel,
  type AssignmentChannel,
  type AssignmentHandlers,
  type AssignmentObject,
  type AssignmentWatch,
} from './assignment.js';

const messages = {
  channelNotFound: 'the config channel has not been found yet',
  noChannelYet: "the node's assignment (its config channel not found yet)",
};

export interface SessionDeps {
  options: ControllerOptions<unknown>;
  store: CheckpointStore;
  status: ConfigStatusManager;
  boot: BootState<unknown>;
  clock: Clock;
  /** The governing NodeConfigPolicies changed. */
  recheckPolicies(): void;
}

export class SyncSession {
  readonly sync: ConfigSync;
  private readonly nodeInformer: Informer<AssignmentObject>;
  private readonly configMaps: ConfigMapWatch;
  private policyWatch: PolicyWatch | undefined;
  /** The node's assignment, once its channel is found. */
  private assignment: AssignmentWatch | undefined;
  /** Settles with the assignment watch once the channel is found (undefined when it is not, or the sync stopped). */
  private readonly following: Promise<AssignmentWatch | undefined>;
  private watchdog: NodeJS.Timeout | undefined;
  /** The watchdog reported the assignment as not listable; the first successful list clears it. */
  private informerErrorReported = false;
  private restarting: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly deps: SessionDeps,
    private readonly opts: SyncOptions,
  ) {
    const { client } = opts;
    const nodeName = deps.options.nodeName;
    const channel = opts.channel ?? Promise.resolve(nodeChannel);
    deps.status.start({ publish: async (config) => (await channel).publish(client, nodeName, config) });
    this.sync = this.newConfigSync();
    if (deps.options.policyGate) this.startPolicyWatch(deps.options.policyGate);
    this.nodeInformer = this.newNodeInformer(client, nodeName);
    this.following = this.followAssignment(channel, client, nodeName);
    this.watchInitialSync();
    this.configMaps = new ConfigMapWatch({
      client,
      assigned: deps.boot.assignedAtBoot?.configMap ?? undefined,
      poke: () => this.sync.poke(),
      assignmentSynced: () => this.assignmentSynced(),
      clock: deps.clock,
      logIntervalMs: this.informerLogIntervalMs,
    });
    this.configMaps.start();
    this.sync.startLoop();
  }

  private get informerLogIntervalMs(): number {
    return this.deps.options.informerLogIntervalMs ?? 30_000;
  }

  /** The sync loop: the assignment from the channel's watch, the ConfigMap from its informer's cache when it holds it. */
  private newConfigSync(): ConfigSync {
    const { client } = this.opts;
    const { options, boot } = this.deps;
    const random = options.random ?? Math.random;
    const tick = () => 10_000 + random() * 2_000;
    return new ConfigSync({
      store: this.deps.store,
      status: this.deps.status,
      nodeConfigSource: () => {
        if (!this.assignment) throw new Error(messages.channelNotFound);
        return this.assignment.source();
      },
      download: async (ref) =>
        this.configMaps.cached(ref) ?? payloadOf(await client.get<ConfigMapObject>(requestPath(ref))),
      restart: (source) => this.restart(source),
      retryDelayMs: options.syncRetryMs ?? tick,
      // A new assignment waits for the object that carries it and, with a policy gate, for the policies that govern
      // the node.
      ready: async () =>
        (await this.assignmentSynced()) && (await (this.policyWatch?.ready() ?? Promise.resolve(true))),
      restoredNeedsRestart: (resolved) => boot.assignedCheckpointMissing && sourcesEqual(resolved, boot.assignedAtBoot),
      clock: this.deps.clock,
      loopPeriodMs: options.syncLoopPeriodMs ?? tick,
    });
  }

  private startPolicyWatch(gate: PolicyGate): void {
    const policyFailures = new FailureLog('NodeConfigPolicies', this.informerLogIntervalMs, this.deps.clock);
    const feed = this.opts.policyFeed ?? informerPolicyFeed(this.opts.client, (err) => policyFailures.failed(err));
    this.policyWatch = new PolicyWatch(gate, feed, () => this.deps.recheckPolicies());
    this.policyWatch.start();
  }

  /** The node's own Node, on either channel (started once the channel is known): its labels decide which policies govern it. */
  private newNodeInformer(client: ControllerClient, nodeName: string): Informer<AssignmentObject> {
    const nodeInformer = new Informer<AssignmentObject>(client, '/api/v1/nodes', {
      fieldSelector: `metadata.name=${fieldSelectorValue(nodeName)}`,
    });
    const what = `Node ${JSON.stringify(nodeName)}`;
    const nodeFailures = new FailureLog(what, this.informerLogIntervalMs, this.deps.clock);
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
  ): Promise<AssignmentWatch | undefined> {
    let assignmentFailures: FailureLog | undefined;
    const handlers: AssignmentHandlers = {
      added: (source) => {
        this.configMaps.follow(source);
        if (this.informerErrorReported) {
          // The assignment could be listed after all: what the watchdog reported no longer holds (the sync reports anew).
          this.informerErrorReported = false;
          this.deps.status.setErrorOverride('');
        }
        this.sync.poke();
      },
      updated: (before, after) => {
        this.configMaps.follow(after);
        if (!sourcesEqual(before, after)) this.sync.poke();
      },
      deleted: () => log(`${this.assignment?.what ?? 'the assignment'} was deleted`),
      failed: (err) => assignmentFailures?.failed(err),
    };
    return channel.then(
      (ch) => {
        if (this.stopped) return undefined;
        const watch = ch.watch(client, nodeName, this.nodeInformer, handlers);
        assignmentFailures = new FailureLog(watch.what, this.informerLogIntervalMs, this.deps.clock);
        this.assignment = watch;
        this.nodeInformer.start();
        return watch;
      },
      () => undefined,
    );
  }

  /** Resolves true once the object that carries the assignment has been listed; false if it never will be. */
  private async assignmentSynced(): Promise<boolean> {
    const watch = await this.following;
    return watch ? watch.whenSynced() : false;
  }

  /**
   * An assignment that cannot be listed (403, TLS, a server that is gone) would leave the agent on its boot config
   * with nothing to show for it: after a bounded wait, status.config reports the internal sync error, as upstream's
   * sync does when the Node is not in its cache. The next successful sync clears it.
   */
  private watchInitialSync(): void {
    const timeout = this.deps.options.informerSyncTimeoutMs ?? 30_000;
    this.watchdog = setTimeout(() => {
      this.watchdog = undefined;
      if (this.assignment?.hasSynced()) return;
      const what = this.assignment ? `the ${this.assignment.what}` : messages.noChannelYet;
      logError(`${InternalError}, error: ${what} could not be listed within ${Math.round(timeout / 1000)} s`);
      this.informerErrorReported = true;
      this.deps.status.setErrorOverride(syncError(InternalError), FailSyncReasonInformer);
    }, timeout);
    this.watchdog.unref?.();
  }

  /** Emits KubeletConfigChanged (bounded wait) and exits; a second request joins the first. */
  restart(source: NodeConfigSource | undefined): Promise<void> {
    this.restarting ??= (async () => {
      const message = restartMessage(source);
      const timeoutMs = this.deps.options.restartEventTimeoutMs ?? 5_000;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          logError(`failed to send event, error: no answer within ${timeoutMs} ms`);
          resolve();
        }, timeoutMs);
      });
      try {
        await Promise.race([
          this.opts
            .emitEvent(message)
            .catch((err: unknown) => logError(`failed to send event, error: ${errorMessage(err)}`)),
          timedOut,
        ]);
      } finally {
        clearTimeout(timer);
      }
      log(message);
      await this.opts.exit();
    })();
    return this.restarting;
  }

  stop(): void {
    this.stopped = true;
    this.sync.stop();
    this.policyWatch?.stop();
    void this.assignment?.stop(); // the informer loops catch their own errors: stop() never rejects
    void this.nodeInformer.stop();
    this.configMaps.stop();
    if (this.watchdog) clearTimeout(this.watchdog);
  }
}
