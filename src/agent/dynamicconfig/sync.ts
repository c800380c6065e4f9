// The sync loop (upstream's configsync.go): when poked by the Node or ConfigMap informer, it reads the Node's
// spec.configSource, downloads the referenced ConfigMap, checkpoints its payload, records it as assigned and, when
// what should run differs from what runs, asks the agent to restart. Failures set a `failed to sync: …` override on
// the status and retry on the next tick; a reset to local clears both records. Beyond upstream: a download the API
// server did not answer at all (it is down or restarting) is retried with the informers' backoff, 200 ms doubling up
// to the tick, so a node assigned a config just before the server went away picks it up as soon as the server is back
// rather than up to a tick later (the informers, which reconnect by then, bring no change that would poke it).

import { klog } from '../../util/klog.js';
import { log, logError } from './log.js';
import { kubeletFiles, type CheckpointStore } from './checkpoint.js';
import { AllNilSubfieldsError, DownloadError, InternalError, syncError } from '../../api/configstatus.js';
import {
  FailSyncReasonAllNilSubfields,
  FailSyncReasonInformer,
  FailSyncReasonReset,
  failSyncReasonCheckpoint,
  failSyncReasonDownload,
  failSyncReasonSetCurrent,
} from './configok.js';
import {
  describeSource,
  refAsConfigMap,
  sourcesEqual,
  uidMismatch,
  type ConfigMapNodeConfigSource,
  type NodeConfigSource,
} from './source.js';
import type { ConfigStatusManager } from './status.js';
import { systemClock, type Clock } from '../../util/clock.js';
import { errorMessage } from '../../util/errors.js';
import { backoffDelay } from '../../util/backoff.js';
import { isUnanswered } from '../../client/errors.js';
import { INFORMER_BACKOFF } from '../../client/informer.js';

/** A ConfigMap as the sync reads it. */
export interface DownloadedConfigMap {
  uid?: string;
  resourceVersion?: string;
  data?: Record<string, string>;
}

export interface DownloadedPayload {
  uid: string;
  resourceVersion: string;
  files: Record<string, string>;
}

export interface SyncDeps {
  store: CheckpointStore;
  status: ConfigStatusManager;
  /** The Node's spec.configSource from the node informer; throws when the Node is not (yet) known. */
  nodeConfigSource(): NodeConfigSource | undefined;
  /** The ConfigMap (from the informer cache when it holds it, else a GET); throws on failure. */
  download(ref: ConfigMapNodeConfigSource): Promise<DownloadedConfigMap>;
  /** Emit KubeletConfigChanged and exit; `source` undefined means local. */
  restart(source: NodeConfigSource | undefined): Promise<void>;
  /** Retry delay after a failure (upstream: the next 10–12 s tick). */
  retryDelayMs(): number;
  /**
   * Resolves true once nodeConfigSource() can answer (the node informer has listed once), false if it never will
   * (stopped). Upstream's loop first runs 10–12 s after the informers start; a sync that runs on a poke must wait for
   * the Node's cache itself, or a ConfigMap informer that lists first reports a missing Node as an internal failure.
   */
  ready?(): Promise<boolean>;
  /**
   * Whether a checkpoint this sync had to write again for the already-assigned source should restart the agent:
   * true when the boot fell back because that checkpoint was missing (self-healing, beyond upstream).
   */
  restoredNeedsRestart?(resolved: NodeConfigSource): boolean;
  /** Times the loop's liveness on its monotonic side; the system clock by default. */
  clock?: Clock;
  /** Delay until the loop's next tick (upstream: 10 s, jitter 0.2). */
  loopPeriodMs?(): number;
}

export class ConfigSync {
  private poked = false;
  private running = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly idleWaiters: (() => void)[] = [];
  private loopTimer: NodeJS.Timeout | undefined;
  private lastLoop: number | undefined;
  /** Downloads in a row that the API server did not answer: the backoff's count. */
  private unanswered = 0;

  constructor(private readonly deps: SyncDeps) {}

  /**
   * Coalescing: many pokes before a sync runs make one sync. A poke is new information (the Node or the ConfigMap
   * changed), so it does not wait for the retry of an earlier failure: e.g. a download the node authorizer denied
   * because the Node was re-pointed meanwhile must not hold up syncing the new source for the retry delay.
   */
  poke(): void {
    this.poked = true;
    this.cancelRetry();
    if (this.stopped || this.running) return;
    setImmediate(() => void this.run());
  }

  private cancelRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  stop(): void {
    this.stopped = true;
    this.cancelRetry();
    if (this.loopTimer) clearTimeout(this.loopTimer);
    this.loopTimer = undefined;
  }

  /**
   * Starts the periodic loop (upstream's wait.JitterUntil over syncConfigSource): each tick runs a sync that a poke
   * left pending and records that the loop is alive. A sync stuck in I/O (or waiting for a Node cache that never
   * fills) keeps the loop from ticking, which is what /healthz reports.
   */
  startLoop(): void {
    if (this.stopped || this.loopTimer) return;
    this.lastLoop = this.now();
    const tick = (): void => {
      this.loopTimer = undefined;
      if (this.stopped) return;
      if (!this.running) {
        this.lastLoop = this.now();
        if (this.poked) void this.run();
      }
      this.loopTimer = setTimeout(tick, this.deps.loopPeriodMs?.() ?? 10_000);
      this.loopTimer.unref?.();
    };
    this.loopTimer = setTimeout(tick, this.deps.loopPeriodMs?.() ?? 10_000);
    this.loopTimer.unref?.();
  }

  /** When the loop last ran free (a tick with no sync in flight, or a finished sync), on the clock's monotonic side; undefined before startLoop(). */
  lastLoopAt(): number | undefined {
    return this.lastLoop;
  }

  private now(): number {
    return (this.deps.clock ?? systemClock).monotonicMs();
  }

  /** Resolves once no sync is running or queued (a retry waiting for its timer does not count). */
  idle(): Promise<void> {
    if (!this.busy()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private busy(): boolean {
    return this.running || (this.poked && !this.stopped);
  }

  private settle(): void {
    if (this.busy()) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private async run(): Promise<void> {
    if (this.running) return;
    if (!this.poked || this.stopped) return this.settle();
    this.running = true;
    this.poked = false;
    try {
      if (!this.deps.ready || (await this.deps.ready())) await this.syncConfigSource();
    } catch (err) {
      this.fail(InternalError, err);
    } finally {
      this.running = false;
      if (this.lastLoop !== undefined) this.lastLoop = this.now();
    }
    if (this.poked && !this.stopped) {
      this.cancelRetry();
      void this.run();
      return;
    }
    this.settle();
  }

  /**
   * `conditionReason`: how the ConfigOK condition words the failure (1.8's reasons); the error's text otherwise.
   * `unanswered`: the API server gave no answer, so the retry backs off from 200 ms instead of waiting a whole tick.
   */
  private fail(reason: string, err: unknown, conditionReason?: string, unanswered = false): void {
    const msg = errorMessage(err);
    logError(`${reason}, error: ${msg}`);
    this.deps.status.setErrorOverride(syncError(reason), conditionReason ?? msg);
    this.unanswered = unanswered ? this.unanswered + 1 : 0;
    if (this.stopped || this.retryTimer) return;
    const tick = this.deps.retryDelayMs();
    const delay = unanswered ? Math.min(tick, backoffDelay(INFORMER_BACKOFF, this.unanswered)) : tick;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.poke();
    }, delay);
  }

  private async syncConfigSource(): Promise<void> {
    klog.v(2, 'kubelet config controller: syncing config source');
    let source: NodeConfigSource | undefined;
    try {
      source = this.deps.nodeConfigSource();
    } catch (err) {
      return this.fail(InternalError, err, FailSyncReasonInformer);
    }
    if (!source) return this.resetToLocal();
    const downloaded = await this.downloadSource(source);
    if (!downloaded) return;
    const { cm, resolved } = downloaded;
    const saved = await this.checkpoint(cm, resolved);
    if (saved === undefined) return;
    let updated = await this.assign(resolved, cm.uid);
    if (updated === undefined) return;
    if (!updated && saved && this.deps.restoredNeedsRestart?.(resolved)) {
      log(`restored the missing checkpoint for ${describeSource(resolved)}`);
      updated = true;
    }
    if (updated) {
      klog.v(2, `kubelet config controller: checkpointed and assigned ${describeSource(resolved)}`);
      await this.deps.restart(resolved);
      return;
    }
    this.deps.status.setErrorOverride('');
  }

  /** No source assigned: back to the local config, restarting when a remote one was in use. */
  private async resetToLocal(): Promise<void> {
    let wasRemote: boolean;
    try {
      wasRemote = await this.deps.store.reset();
    } catch (err) {
      return this.fail(InternalError, err, FailSyncReasonReset);
    }
    if (wasRemote) await this.deps.restart(undefined);
  }

  /** The ConfigMap the source names and the source resolved to its UID and resourceVersion; undefined after a failure. */
  private async downloadSource(
    source: NodeConfigSource,
  ): Promise<
    { cm: DownloadedConfigMap & { uid: string; resourceVersion: string }; resolved: NodeConfigSource } | undefined
  > {
    let ref: ConfigMapNodeConfigSource;
    try {
      ref = referenceOf(source);
    } catch (err) {
      this.fail(AllNilSubfieldsError, err);
      return undefined;
    }
    let cm: DownloadedConfigMap;
    const described = describeSource({ configMap: ref });
    try {
      cm = await this.deps.download(ref);
    } catch (err) {
      this.fail(
        DownloadError,
        new Error(`failed to download ${described}: ${errorMessage(err)}`),
        failSyncReasonDownload(ref.name, ref.namespace),
        isUnanswered(err),
      );
      return undefined;
    }
    this.unanswered = 0;
    // A configMapRef pins the object: the ConfigMap now under its name may be another one (1.8's UID check).
    if (source.configMapRef && cm.uid !== ref.uid) {
      const mismatch = uidMismatch(ref.uid ?? '', cm.uid ?? '');
      this.fail(DownloadError, new Error(`failed to download ${described}: ${mismatch}`), mismatch);
      return undefined;
    }
    const { uid, resourceVersion } = cm;
    if (!uid) return void this.fail(InternalError, new Error('ConfigMap must have a non-empty UID'));
    if (!resourceVersion)
      return void this.fail(InternalError, new Error('ConfigMap must have a non-empty ResourceVersion'));
    return { cm: { ...cm, uid, resourceVersion }, resolved: { configMap: { ...ref, uid, resourceVersion } } };
  }

  /** Whether a new checkpoint was written; undefined after a failure. */
  private async checkpoint(
    cm: DownloadedConfigMap & { uid: string; resourceVersion: string },
    resolved: NodeConfigSource,
  ): Promise<boolean | undefined> {
    try {
      const saved = await this.deps.store.save({
        uid: cm.uid,
        resourceVersion: cm.resourceVersion,
        files: kubeletFiles(cm.data, resolved.configMap!.kubeletConfigKey),
      });
      if (!saved) log(`checkpoint already exists for ${describeSource(resolved)}`);
      return saved;
    } catch (err) {
      this.fail(InternalError, err, failSyncReasonCheckpoint(cm.uid));
      return undefined;
    }
  }

  /** Records `resolved` as assigned; whether that changed the assignment, undefined after a failure. */
  private async assign(resolved: NodeConfigSource, uid: string): Promise<boolean | undefined> {
    try {
      // Read and write under the store's lock, so no reset or promotion lands between them.
      return await this.deps.store.exclusive(async (records) => {
        const previous = await records.assigned();
        await records.setAssigned(resolved);
        return !sourcesEqual(previous, resolved);
      });
    } catch (err) {
      this.fail(InternalError, err, failSyncReasonSetCurrent(uid));
      return undefined;
    }
  }
}

/**
 * The ConfigMap a spec source names, as a configMap reference: the 1.22 form as it is, the 1.8-alpha configMapRef
 * with its pinned UID and the key `kubelet`. Throws (with upstream's reason as the message) for neither or a partial
 * reference.
 */
function referenceOf(source: NodeConfigSource): ConfigMapNodeConfigSource {
  if (source.configMapRef) return refAsConfigMap(source.configMapRef);
  if (source.configMap) return source.configMap;
  throw new Error(FailSyncReasonAllNilSubfields);
}
