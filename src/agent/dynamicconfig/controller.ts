// The dynamic config controller (upstream's kubeletconfig.Controller): Bootstrap decides, before the agent starts,
// which configuration it runs; StartSync then follows the Node and its ConfigMap with informers (field-selected, so
// the Node authorizer can scope them), publishes Node.status.config, promotes the assigned config to last-known-good
// after a health-gated trial, and restarts the agent when the assigned config changes.

import { klog } from '../../util/klog.js';
import type { RestClient } from '../../client/index.js';
import { Informer, type KubeObject as ClientObject } from '../../client/index.js';
import { CheckpointStore } from './checkpoint.js';
import { decideBoot, shouldPromote, type BootDecision, type LoadOutcome } from './bootstrap.js';
import { BootstrapError, LoadError } from './errors.js';
import { apiPath, describeSource, restartMessage, sourcesEqual, type ConfigMapNodeConfigSource, type NodeConfigSource } from './source.js';
import { ConfigStatusManager, type ConfigGauges, type NodeConfigStatus } from './status.js';
import { ConfigSync } from './sync.js';

const log = (msg: string) => klog.depth(1, 'info', `kubelet config controller: ${msg}`);
const logError = (msg: string) => klog.depth(1, 'error', `kubelet config controller: ${msg}`);

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
  clock?: () => number;
  random?: () => number;
}

export interface SyncOptions {
  client: RestClient;
  /** Create the KubeletConfigChanged event directly (not through the rate-limited recorder). */
  emitEvent(message: string): Promise<void>;
  /** Stop the agent so that its supervisor starts it again with the new config. */
  exit(): Promise<void> | void;
}

interface NodeObject extends ClientObject {
  spec?: { configSource?: NodeConfigSource };
}

interface ConfigMapObject extends ClientObject {
  data?: Record<string, string>;
}

export class DynamicConfigController<C> {
  readonly store: CheckpointStore;
  readonly status: ConfigStatusManager;
  private readonly clock: () => number;
  private decision: BootDecision<C> | undefined;
  private assignedAtBoot: NodeConfigSource | undefined;
  private healthySince: number | undefined;
  private recordedHealthy = false;
  private trialTimer: NodeJS.Timeout | undefined;
  private nodeInformer: Informer<NodeObject> | undefined;
  private configMapInformer: Informer<ConfigMapObject> | undefined;
  private configMapRef: ConfigMapNodeConfigSource | undefined;
  private sync: ConfigSync | undefined;
  private restarting = false;

  constructor(private readonly options: ControllerOptions<C>) {
    this.store = new CheckpointStore(options.dynamicConfigDir);
    this.status = new ConfigStatusManager(options.gauges);
    this.clock = options.clock ?? Date.now;
  }

  private async loadOutcome(src: NodeConfigSource): Promise<LoadOutcome<C>> {
    let payload: CheckpointPayload;
    try {
      payload = await this.store.load(src);
    } catch (err) {
      return { ok: false, reason: LoadError, detail: (err as Error).message };
    }
    return this.options.evaluate(payload);
  }

  /** Decides what to run. Returns undefined for the local config; throws BootstrapError when nothing valid exists. */
  async bootstrap(): Promise<{ use: 'local' | 'assigned' | 'last-known-good'; config?: C }> {
    await this.store.initialize();
    const assigned = await this.store.assigned();
    const lastKnownGood = await this.store.lastKnownGood();
    this.assignedAtBoot = assigned;
    if (!assigned) {
      this.decision = decideBoot<C>({ startsWithoutHealthy: 0, crashLoopThreshold: this.options.crashLoopThreshold, ...(lastKnownGood ? { lastKnownGood } : {}) });
      this.applyStatus(this.decision.status);
      return { use: 'local' };
    }
    const assignedOutcome = await this.loadOutcome(assigned);
    const startsWithoutHealthy = await this.store.startsWithoutHealthy(assigned);
    const input = {
      assigned,
      assignedOutcome,
      startsWithoutHealthy,
      crashLoopThreshold: this.options.crashLoopThreshold,
      ...(lastKnownGood ? { lastKnownGood } : {}),
    };
    let d = decideBoot<C>(input);
    if (d.kind === 'fatal' && lastKnownGood) d = decideBoot<C>({ ...input, lastKnownGoodOutcome: await this.loadOutcome(lastKnownGood) });
    this.decision = d;
    this.applyStatus(d.status);
    if (d.kind === 'fatal') throw new BootstrapError(`failed to determine a valid configuration, error: ${d.message}`);
    if (d.rejected) logError(`${d.rejected.reason}, error: ${d.rejected.detail}`);
    if (d.use === 'assigned') {
      await this.store.recordStart(assigned);
      log(`using assigned config ${describeSource(assigned)}`);
    } else if (d.use === 'last-known-good' && lastKnownGood) {
      log(`using last-known-good config ${describeSource(lastKnownGood)}`);
    } else {
      log('using local config');
    }
    return d.use === 'local' ? { use: 'local' } : { use: d.use, config: d.config as C };
  }

  private applyStatus(s: NodeConfigStatus): void {
    this.status.setAssigned(s.assigned);
    this.status.setActive(s.active);
    this.status.setLastKnownGood(s.lastKnownGood);
    this.status.setError(s.error ?? '');
  }

  /** The agent became healthy (listeners bound): resets crash-loop accounting and starts the health clock. */
  async markHealthy(): Promise<void> {
    if (this.healthySince === undefined) this.healthySince = this.clock();
    if (!this.recordedHealthy && this.decision?.kind === 'run' && this.decision.use === 'assigned' && this.assignedAtBoot) {
      this.recordedHealthy = true;
      await this.store.recordHealthy(this.assignedAtBoot);
    }
  }

  markUnhealthy(): void {
    this.healthySince = undefined;
  }

  startSync(opts: SyncOptions): void {
    const { client } = opts;
    const nodeName = this.options.nodeName;
    this.status.start({
      publish: async (config) => {
        const body = {
          status: {
            config: {
              assigned: config.assigned ?? null,
              active: config.active ?? null,
              lastKnownGood: config.lastKnownGood ?? null,
              error: config.error ?? null,
            },
          },
        };
        await client.patch(`/api/v1/nodes/${encodeURIComponent(nodeName)}/status`, 'merge', body);
      },
    });

    const random = this.options.random ?? Math.random;
    this.sync = new ConfigSync({
      store: this.store,
      status: this.status,
      nodeConfigSource: () => {
        const node = this.nodeInformer?.store.get(nodeName);
        if (!node) throw new Error(`could not find Node ${JSON.stringify(nodeName)} in the informer's cache`);
        return node.spec?.configSource ? structuredClone(node.spec.configSource) : undefined;
      },
      download: async (ref) => {
        const payload = (o: ConfigMapObject) => {
          const meta = o.metadata ?? {};
          return {
            ...(typeof meta.uid === 'string' && meta.uid ? { uid: meta.uid } : {}),
            ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
            data: o.data ?? {},
          };
        };
        if (this.configMapInformer && this.configMapRef && this.configMapRef.namespace === ref.namespace && this.configMapRef.name === ref.name) {
          const cached = this.configMapInformer.store.get(`${ref.namespace}/${ref.name}`);
          if (cached) return payload(cached);
        }
        return payload(await client.get<ConfigMapObject>(apiPath({ configMap: ref })));
      },
      restart: (source) => this.restart(source, opts),
      retryDelayMs: () => 10_000 + random() * 2_000,
      ready: () => this.nodeInformer?.whenSynced() ?? Promise.resolve(false),
    });

    const nodeInformer = new Informer<NodeObject>(client, '/api/v1/nodes', { fieldSelector: `metadata.name=${nodeName}` });
    this.nodeInformer = nodeInformer;
    nodeInformer.on('add', () => this.sync?.poke());
    nodeInformer.on('update', (oldObj, newObj) => {
      if (!sourcesEqual(oldObj.spec?.configSource, newObj.spec?.configSource)) this.sync?.poke();
    });
    nodeInformer.on('delete', () => log('Node was deleted'));
    nodeInformer.start();

    const assigned = this.assignedAtBoot;
    if (assigned?.configMap) {
      this.configMapRef = assigned.configMap;
      const cmInformer = new Informer<ConfigMapObject>(client, `/api/v1/namespaces/${encodeURIComponent(assigned.configMap.namespace)}/configmaps`, {
        fieldSelector: `metadata.name=${assigned.configMap.name}`,
      });
      this.configMapInformer = cmInformer;
      cmInformer.on('add', () => this.sync?.poke());
      cmInformer.on('update', (oldObj, newObj) => {
        if (oldObj.metadata?.resourceVersion !== newObj.metadata?.resourceVersion) this.sync?.poke();
      });
      cmInformer.on('delete', () => {
        log('assigned ConfigMap was deleted');
        this.sync?.poke();
      });
      cmInformer.start();
    } else {
      log('local source is assigned, will not start remote config source informer');
    }

    if (this.decision?.kind === 'run' && this.decision.startTrial) {
      const every = Math.min(10_000, Math.max(100, this.options.trialMs / 4));
      const tick = () => void this.checkTrial();
      this.trialTimer = setInterval(tick, every);
      tick();
    }
  }

  private async checkTrial(): Promise<void> {
    try {
      const modified = (await this.store.assignedModified()).getTime();
      if (!shouldPromote({ now: this.clock(), assignedModified: modified, healthySince: this.healthySince, trialMs: this.options.trialMs })) return;
    } catch (err) {
      logError(`failed to check trial period for assigned config, error: ${(err as Error).message}`);
      return;
    }
    try {
      const assigned = await this.store.assigned();
      const lkg = await this.store.lastKnownGood();
      if ((!assigned && !lkg) || (assigned && lkg && sourcesEqual(assigned, lkg))) return;
      // Only the config this boot loaded and trialled may graduate.
      if (!sourcesEqual(assigned, this.assignedAtBoot)) return;
      if (!assigned) return;
      await this.store.setLastKnownGood(assigned);
      this.status.setLastKnownGood(assigned);
      log(`updated last-known-good config to ${describeSource(assigned)}`);
    } catch (err) {
      logError(`failed to set last-known-good to assigned config, error: ${(err as Error).message}`);
    }
  }

  private async restart(source: NodeConfigSource | undefined, opts: SyncOptions): Promise<void> {
    if (this.restarting) return;
    this.restarting = true;
    const message = restartMessage(source);
    try {
      await opts.emitEvent(message);
    } catch (err) {
      logError(`failed to send event, error: ${(err as Error).message}`);
    }
    log(message);
    await opts.exit();
  }

  stop(): void {
    this.sync?.stop();
    void this.nodeInformer?.stop(); // the informer loop catches its own errors: stop() never rejects
    void this.configMapInformer?.stop();
    this.status.stop();
    if (this.trialTimer) clearInterval(this.trialTimer);
  }
}
