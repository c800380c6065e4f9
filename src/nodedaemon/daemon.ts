// `dkc node-daemon`: upstream's dynamic config controller pointed at a real kubelet. It follows the node's assignment
// (its NodeConfig, or its Node where the server keeps spec.configSource) with the agent's sync loop, checkpoint store
// and status manager; where the agent would restart itself, the daemon writes the kubelet's file and runs the
// kubelet's restart command, then holds the config to a health gate (healthz within the start timeout, healthy for
// the trial, the Node not NotReady) and puts back last-known-good, or the node's original files, when it fails.
// It knows the kubelet only by its public contract: its files, its restart command, its healthz, its Node.
//
// A config is judged as the agent judges its own: for the kubelet's minor, then by the NodeConfigPolicies that govern
// the node (kept current by the agent's policy watch, and written down for the next start); a refused config is
// reported as the agent reports it (status.config.error, a KubeletConfigRejected event) and the kubelet is not touched.
//
// Crash safety: the node's original file is kept (once) before the first change; a journal written before and after
// each change says whether the kubelet was restarted with what is on disk; every write is atomic. A daemon killed at
// any instant starts again, decides again from its records, and restarts the kubelet only when the journal does not
// show that the kubelet already runs what the file holds.

import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { dirname, resolve } from 'node:path';
import { CrashLoopError, InternalError, LoadError, syncError } from '../api/configstatus.js';
import type { Node, NodeConfigSource } from '../api/types.js';
import { createEventDirectly, nodeReference } from '../client/events.js';
import { isApiError } from '../client/errors.js';
import { Informer, RestClient, type KubeObject } from '../client/index.js';
import { kubeletVersion, type KubeletVersion, type Layer } from '../kubeletconfig/index.js';
import { systemClock, type Clock } from '../util/clock.js';
import { configureLogging } from '../util/klog.js';
import { CheckpointStore } from '../agent/dynamicconfig/checkpoint.js';
import type { AssignmentChannel, AssignmentObject, AssignmentWatch } from '../agent/dynamicconfig/assignment.js';
import { discoveryThrough, findAssignmentChannel, prepareChannel } from '../agent/dynamicconfig/findchannel.js';
import { log, logError, logWarning } from '../agent/dynamicconfig/log.js';
import { PolicySnapshot } from '../agent/dynamicconfig/policy.js';
import { informerPolicyFeed, PolicyWatch } from '../agent/dynamicconfig/policywatch.js';
import { REJECTED_REASON, rejectionMessage } from '../agent/dynamicconfig/rejection.js';
import {
  configMapsPath,
  describeSource,
  fieldSelectorValue,
  requestPath,
  restartMessage,
  sourcesEqual,
  type ConfigMapNodeConfigSource,
} from '../agent/dynamicconfig/source.js';
import { ConfigStatusManager, configGauges } from '../agent/dynamicconfig/status.js';
import { ConfigSync, type DownloadedConfigMap } from '../agent/dynamicconfig/sync.js';
import { createMetricsRegistry, renderMetrics } from '../agent/node/metrics.js';
import { readDropIns } from '../agent/configdir.js';
import type { NodeConfigFlags } from '../nodepolicy/flags.js';
import { kubeletVersionOnHost, readKubeletFlags } from './kubelethost.js';
import {
  decideAction,
  decideTarget,
  healthy,
  judgeHealth,
  runningFromJournal,
  type Journal,
  type Target,
  type Validation,
} from './decide.js';
import { DaemonFiles, digestOf, originalContent, removeStaleTemps, setKubeletFile } from './files.js';
import { superseded } from './coalesce.js';
import { DROPS_FIELDS_ANNOTATION } from './dropped.js';
import {
  countFor,
  observePid,
  readKubeletPid,
  reportOf,
  RestartRecord,
  type PidTrack,
  type RestartCount,
} from './kubeletpid.js';
import { nodeFilesDigest } from './nodefiles.js';
import { DropOptIns } from './optins.js';
import { KubeletReportPublisher } from './report.js';
import { parseNodeDaemonFlags, type NodeDaemonFlags } from './flags.js';
import { messages } from './messages.js';
import { judgeCandidate } from './validate.js';
import { planLeftover, readHeader, withHeader } from './ownership.js';
import { Recreation } from './recreated.js';
import { FileWatch, isDrift } from './drift.js';
import { FileChecks } from './filechecks.js';

/** How the log names a target. */
function describeTarget(t: Target): string {
  if (!t.source) return messages.what.original;
  if (t.use === 'assigned') return messages.what.assigned(t.source);
  return t.use === 'running' ? messages.what.running(t.source) : messages.what.lastKnownGood(t.source);
}

export const CONFIG_CHANGED_REASON = 'KubeletConfigChanged';
/** The events' source component. */
export const COMPONENT = 'dkc-node-daemon';

interface ConfigMapObject extends KubeObject {
  data?: Record<string, string>;
}

/**
 * The health gate of the config the kubelet was last restarted with. Its times are wall-clock epoch milliseconds:
 * restartedAt comes from the journal, which outlives the daemon's process.
 */
interface Gate {
  target: Target;
  digest: string;
  restartedAt: number;
  /** Found at the daemon's start, not restarted by this process: the start timeout counts from downSince. */
  resumed: boolean;
  downSince: number | undefined;
  becameHealthy: boolean;
  healthySince: number | undefined;
  unhealthySince: number | undefined;
  lastProblem: string;
  done: boolean;
}

export interface RunningDaemon {
  nodeName: string;
  /** The address of /metrics and /healthz, when served. */
  metricsAddress?: string;
  stop(): Promise<void>;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((r) => {
    const t = setTimeout(r, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), r()), { once: true });
  });

/** Runs the restart command through a shell; rejects with its exit status and last line of output. */
export function runRestartCommand(command: string, timeoutMs: number): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('/bin/sh', ['-c', command], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out = (out + b.toString('utf8')).slice(-2000)));
    child.stderr.on('data', (b: Buffer) => (out = (out + b.toString('utf8')).slice(-2000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolvePromise();
      const last = out.trim().split('\n').at(-1) ?? '';
      reject(
        new Error(
          `${JSON.stringify(command)} exited with ${code === null ? `signal ${signal ?? ''}` : `status ${code}`}${last ? `: ${last}` : ''}`,
        ),
      );
    });
  });
}

/** GETs the kubelet's healthz; resolves with undefined when healthy, else with what was wrong. */
async function probeHealthz(url: string, timeoutMs: number): Promise<string | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    const body = (await res.text()).trim();
    return res.status === 200 ? undefined : `HTTP ${res.status}${body ? `: ${body.slice(0, 200)}` : ''}`;
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? messageOf(err);
  }
}

export class NodeDaemon {
  private readonly store: CheckpointStore;
  private readonly files: DaemonFiles;
  private readonly registry = createMetricsRegistry();
  readonly status: ConfigStatusManager;
  private readonly abort = new AbortController();
  private queue: Promise<void> = Promise.resolve();
  private gate: Gate | undefined;
  private channel: AssignmentChannel | undefined;
  private assignment: AssignmentWatch | undefined;
  private nodeInformer: Informer<AssignmentObject> | undefined;
  private cmInformer: Informer<ConfigMapObject> | undefined;
  private cmRef: ConfigMapNodeConfigSource | undefined;
  private sync: ConfigSync | undefined;
  private kubelet: KubeletVersion | undefined;
  private policies: PolicySnapshot | undefined;
  private policyWatch: PolicyWatch | undefined;
  private healthTimer: NodeJS.Timeout | undefined;
  private filesTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private metricsServer: Server | undefined;
  private lastRejection = '';
  private probing = false;
  private flagsProblems = '';
  private fileWatch: FileWatch | undefined;
  private readonly fileChecks: FileChecks;
  private recreation: Recreation | undefined;
  /** The kubelet's pid as last read, and the restarts of it the daemon did not cause, for the content it runs. */
  private pidTrack: PidTrack = { known: undefined };
  private pidRunning: boolean | undefined;
  private pidReadAt = -Infinity;
  private pidEpoch = 0;
  private restarts: RestartCount | undefined;
  private readonly restartRecord: RestartRecord;
  private report: KubeletReportPublisher | undefined;
  private readonly optIns: DropOptIns;
  /** The digest of the node's own files when the assignment was last judged. */
  private nodeFiles: string | undefined;
  /** A config the kubelet ran, kept on through a refused assignment, that then failed its own gate. */
  private runningFailed: NodeConfigSource | undefined;
  /** Whether the kubelet was healthy at the last probe (after it first was), for the log. */
  private wasHealthy: boolean | undefined;
  private reconciled = false;

  constructor(
    readonly flags: NodeDaemonFlags,
    private readonly client: RestClient,
    /** Wall time for the records, the journal and the health gate; the status manager and sync loop run on it too. */
    private readonly clock: Clock = systemClock,
  ) {
    const dir = resolve(flags.dynamicConfigDir);
    this.store = new CheckpointStore(dir);
    this.files = new DaemonFiles(dir);
    this.restartRecord = new RestartRecord(this.files.dir);
    this.optIns = new DropOptIns(this.files.dir);
    this.status = new ConfigStatusManager(configGauges(this.registry), undefined, clock);
    this.fileChecks = new FileChecks({
      flags,
      files: this.files,
      kubelet: () => this.kubelet!,
      registry: this.registry,
      clock,
      event: (reason, message) => this.warn(reason, message),
    });
  }

  private get probeTimeoutMs(): number {
    return Math.min(5_000, this.flags.startTimeoutMs);
  }

  /** The kubelet's file the daemon sets: its drop-in, or the --config file. */
  get managedPath(): string {
    return this.flags.applyAs === 'dropin'
      ? resolve(this.flags.kubeletConfigDir, this.flags.dropInName)
      : resolve(this.flags.kubeletConfig);
  }

  /** Serialises every change of the kubelet's file and of the gate. */
  private enqueue(step: () => Promise<void>): Promise<void> {
    const run = this.queue.then(() => (this.abort.signal.aborted ? undefined : step()));
    this.queue = run.catch((err: unknown) => logError(`${InternalError}, error: ${messageOf(err)}`));
    return this.queue;
  }

  async start(): Promise<void> {
    const { flags, client } = this;
    const signal = this.abort.signal;
    await this.files.initialize();
    await this.store.initialize();
    // A daemon killed during a write leaves the write's temp file beside the kubelet's file: never read, removed now.
    for (const name of await removeStaleTemps(this.managedPath)) log(messages.removedTemp(name));
    for (const name of await this.files.removeStaleTemps()) log(messages.removedTemp(name));
    if (flags.metricsBindAddress) await this.serveMetrics(flags.metricsBindAddress);
    const node = await this.waitForNode();
    const version = await kubeletVersionOnHost({
      flag: flags.kubeletVersion,
      command: flags.kubeletVersionCommand,
      reported: node.status?.nodeInfo?.kubeletVersion ?? '',
      warn: logWarning,
      unusable: (reported, why) => new Error(messages.badNodeVersion(flags.nodeName, reported, why)),
    });
    this.kubelet = kubeletVersion(version);
    // The policies as the last run saw them, until the watch lists them: a start asks the server nothing for them.
    this.policies = await PolicySnapshot.load(resolve(flags.dynamicConfigDir));
    log(messages.starting(flags.nodeName, flags.applyAs));
    this.channel = await findAssignmentChannel({
      client,
      nodeName: flags.nodeName,
      choice: flags.configChannel,
      discover: discoveryThrough(client),
      signal,
    });
    await prepareChannel({ channel: Promise.resolve(this.channel), client, nodeName: flags.nodeName, node, signal });
    const channel = this.channel;
    if (channel.kind === 'nodeconfig') {
      this.fileChecks.publishThrough(client, flags.nodeName);
      this.report = new KubeletReportPublisher(client, flags.nodeName);
    }
    this.restarts = await this.restartRecord.read();

    const recreation = new Recreation({
      dir: this.files.dir,
      client,
      channel,
      nodeUid: node.metadata.uid,
      signal,
      onRecreated: () => {
        this.status.republish();
        this.fileChecks.republish();
        this.report?.republish();
      },
    });
    await recreation.load();
    this.recreation = recreation;
    // What the records say now is applied (or found applied) before the assignment is followed, and published once
    // decided: a status half-known (no active, no assigned) is never written.
    await this.enqueue(async () => {
      await this.adoptOwnFile();
      await this.reconcile();
    });
    this.status.start({ publish: (c) => channel.publish(client, flags.nodeName, c) });

    const nodeInformer = new Informer<AssignmentObject>(client, '/api/v1/nodes', {
      fieldSelector: `metadata.name=${fieldSelectorValue(flags.nodeName)}`,
    });
    this.nodeInformer = nodeInformer;
    nodeInformer.on('error', (err) =>
      logWarning(`failed to list or watch Node ${JSON.stringify(flags.nodeName)}, error: ${messageOf(err)}`),
    );
    this.watchPolicies(nodeInformer);
    this.assignment = channel.watch(client, flags.nodeName, nodeInformer, {
      added: (src) => this.assignmentSeen(src ?? undefined),
      updated: (_, src) => this.assignmentSeen(src ?? undefined),
      deleted: () => {
        log(`${this.assignment?.what ?? 'the assignment'} was deleted`);
        recreation.objectDeleted();
      },
      failed: (err) =>
        logWarning(`failed to list or watch ${this.assignment?.what ?? 'the assignment'}, error: ${messageOf(err)}`),
    });
    recreation.watching(this.assignment);
    nodeInformer.start();
    const tick = () => 10_000 + Math.random() * 2_000;
    this.sync = new ConfigSync({
      store: this.store,
      status: this.status,
      nodeConfigSource: () => recreation.follow(this.assignment),
      download: async (ref) => {
        const kept = recreation.keptFor(ref);
        if (kept) return this.fromCheckpoint(kept);
        const cached =
          this.cmRef?.namespace === ref.namespace && this.cmRef.name === ref.name
            ? this.cmInformer?.store.get(`${ref.namespace}/${ref.name}`)
            : undefined;
        const cm = cached ?? (await client.get<ConfigMapObject>(requestPath(ref)));
        const meta = cm.metadata ?? {};
        const annotations = meta['annotations'] as Record<string, string> | undefined;
        if (typeof meta.uid === 'string' && meta.resourceVersion)
          await this.optIns.record(meta.uid, meta.resourceVersion, annotations?.[DROPS_FIELDS_ANNOTATION]);
        return {
          ...(typeof meta.uid === 'string' && meta.uid ? { uid: meta.uid } : {}),
          ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
          data: cm.data ?? {},
        };
      },
      // Where the agent exits to run a new config, the daemon applies it to the kubelet.
      restart: () =>
        this.enqueue(async () => {
          this.status.setErrorOverride('');
          await this.reconcile();
        }),
      retryDelayMs: tick,
      // A new assignment waits for the object that carries it and for the policies that govern the node now.
      ready: async () =>
        ((await this.assignment?.whenSynced()) ?? false) && ((await this.policyWatch?.ready()) ?? false),
      loopPeriodMs: tick,
      clock: this.clock,
    });
    this.sync.startLoop();
    this.sync.poke();
    this.healthTimer = setInterval(() => void this.checkHealth(), flags.probeIntervalMs);
    this.fileWatch = new FileWatch(() => this.enqueue(() => this.fileChecks.check()), {
      dirs: [dirname(this.managedPath), resolve(flags.kubeletConfigDir)],
      periodMs: flags.driftCheckIntervalMs,
    });
    this.fileWatch.start();
    this.fileWatch.poke();
    this.filesTimer = setInterval(() => void this.checkNodeFiles(), Math.max(1_000, flags.probeIntervalMs));
  }

  /** The node's own files changed since the assignment was judged: judge it again. */
  private async checkNodeFiles(): Promise<void> {
    const digest = await this.nodeFilesDigest();
    if (this.nodeFiles === undefined || digest === this.nodeFiles) return;
    this.nodeFiles = digest; // one reconcile per change, however long the queue
    log(messages.nodeFilesChanged);
    await this.enqueue(() => this.reconcile());
  }

  private nodeFilesDigest(): Promise<string> {
    const { flags } = this;
    return nodeFilesDigest(
      flags.applyAs === 'dropin' ? resolve(flags.kubeletConfig) : undefined,
      resolve(flags.kubeletConfigDir),
      this.managedPath,
    );
  }

  /** A checkpointed source as the sync's download gives it. */
  private async fromCheckpoint(src: NodeConfigSource): Promise<DownloadedConfigMap> {
    const cm = src.configMap!;
    const { bytes } = await this.store.load(src);
    return {
      ...(cm.uid ? { uid: cm.uid } : {}),
      ...(cm.resourceVersion ? { resourceVersion: cm.resourceVersion } : {}),
      data: { [cm.kubeletConfigKey]: Buffer.from(bytes).toString('utf8') },
    };
  }

  /** Keeps the governing policies current from the server and the Node's labels; a change is decided again. */
  private watchPolicies(nodeInformer: Informer<AssignmentObject>): void {
    const feed = informerPolicyFeed(this.client, (err) =>
      logWarning(`failed to list or watch NodeConfigPolicies, error: ${messageOf(err)}`),
    );
    const watch = new PolicyWatch(this.policies!, feed, () => void this.enqueue(() => this.reconcile()));
    this.policyWatch = watch;
    const seen = (node: AssignmentObject) => {
      this.recreation?.nodeSeen(node);
      watch.setLabels((node.metadata?.['labels'] as Record<string, string> | undefined) ?? {});
    };
    nodeInformer.on('add', seen);
    nodeInformer.on('update', (_, node) => seen(node));
    watch.start();
  }

  private assignmentSeen(src: NodeConfigSource | undefined): void {
    this.followConfigMap(src?.configMap ?? undefined);
    this.sync?.poke();
  }

  /** Watches the assigned ConfigMap, so that an edit of it is synced at once. */
  private followConfigMap(ref: ConfigMapNodeConfigSource | undefined): void {
    if (ref && this.cmRef && ref.namespace === this.cmRef.namespace && ref.name === this.cmRef.name) return;
    void this.cmInformer?.stop();
    this.cmInformer = undefined;
    this.cmRef = ref;
    if (!ref) return;
    let path: string;
    try {
      path = configMapsPath(ref.namespace);
    } catch {
      return; // the sync's download refuses the same reference and reports it
    }
    const informer = new Informer<ConfigMapObject>(this.client, path, {
      fieldSelector: `metadata.name=${fieldSelectorValue(ref.name)}`,
    });
    informer.on('add', () => this.sync?.poke());
    informer.on('update', (a, b) => {
      if (a.metadata?.resourceVersion !== b.metadata?.resourceVersion) this.sync?.poke();
    });
    informer.on('delete', () => this.sync?.poke());
    informer.on('error', () => undefined); // the sync reports what it cannot download
    this.cmInformer = informer;
    informer.start();
  }

  private async waitForNode(): Promise<Node> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.client.get<Node>(`/api/v1/nodes/${encodeURIComponent(this.flags.nodeName)}`, {
          signal: this.abort.signal,
        });
      } catch (err) {
        if (this.abort.signal.aborted) throw err;
        if (attempt === 1 || attempt % 20 === 0)
          log(messages.waitingForNode(this.flags.nodeName, isApiError(err, 404) ? 'not found' : messageOf(err)));
      }
      await sleep(Math.min(5_000, 100 * 2 ** Math.min(attempt, 6)), this.abort.signal);
    }
  }

  /**
   * The candidate config as the kubelet would read it, validated for its version, then judged by the policies that
   * govern the node against the node's own files.
   */
  private async judge(payload: { bytes: Uint8Array; path: string }, source?: NodeConfigSource): Promise<Validation> {
    const { flags } = this;
    const kubelet = this.kubelet!;
    const configPath = resolve(flags.kubeletConfig);
    const others = await readDropIns(resolve(flags.kubeletConfigDir), new Set([this.managedPath]));
    const dropIns = others.map((d) => ({ fileName: d.relative, layer: { bytes: d.bytes, name: d.path } }));
    const current = await this.files.current(configPath);
    const fileLayer = (bytes: Uint8Array | undefined): Layer | undefined =>
      bytes ? { bytes, name: configPath, dir: dirname(configPath) } : undefined;
    const base = flags.applyAs === 'dropin' ? fileLayer(current) : undefined;
    // The node's own --config file: as it is (dropin mode never changes it), or as it was before dkc replaced it.
    const kept = flags.applyAs === 'replace' ? await this.files.original(configPath) : undefined;
    return judgeCandidate(
      kubelet,
      {
        mode: flags.applyAs,
        payload: { bytes: payload.bytes, name: payload.path },
        ...(base ? { base } : {}),
        configDir: dirname(configPath),
        dropIns,
        dropInName: flags.dropInName,
        dropsAccepted: await this.optIns.of(source),
      },
      {
        governing: this.policies?.governing ?? [],
        ownBase: fileLayer(kept ? originalContent(kept).bytes : current),
        flags: await this.hostFlags(),
      },
    );
  }

  /** The kubelet's config flags as its host files hold them (never the Node's annotation, which others may write). */
  private async hostFlags(): Promise<NodeConfigFlags> {
    const read = await readKubeletFlags(this.flags.kubeletFlagsFiles, this.kubelet!.minor);
    const said = read.problems.join('\n');
    if (said !== this.flagsProblems) for (const p of read.problems) logWarning(messages.flagsFileProblem(p));
    this.flagsProblems = said;
    return read.flags;
  }

  /** Whether a policy that governs the node denies `source` (a config that does not load is not denied: broken). */
  private async deniedByPolicies(source: NodeConfigSource): Promise<boolean> {
    if ((this.policies?.governing.length ?? 0) === 0) return false;
    try {
      const v = await this.judge(await this.store.load(source), source);
      return !v.ok && v.stage === 'policy';
    } catch {
      return false;
    }
  }

  /**
   * Records gone (a wiped --dynamic-config-dir) under a kubelet file of the daemon's own: the file is never taken for
   * the node's original, and when it is whole the records are rebuilt from it (checkpoint, assigned, journal), so the
   * kubelet, which runs it, is not restarted and the status names what it runs.
   */
  private async adoptOwnFile(): Promise<void> {
    const path = this.managedPath;
    const current = await this.files.current(path);
    const plan = planLeftover({
      mode: this.flags.applyAs,
      hasAssigned: (await this.store.assigned()) !== undefined,
      hasOriginal: (await this.files.original(path)) !== undefined,
      current,
    });
    if (plan.kind === 'none') return;
    if (plan.originalAbsent) await this.files.keepOriginal(path, this.flags.applyAs);
    const cm = plan.own.source.configMap!;
    if (plan.kind === 'edited') {
      logWarning(messages.ownFileEdited(path, describeSource(plan.own.source)));
      return;
    }
    await this.store.save({
      uid: cm.uid!,
      resourceVersion: cm.resourceVersion!,
      files: { [cm.kubeletConfigKey]: Buffer.from(plan.own.payload).toString('utf8') },
    });
    await this.store.setAssigned(plan.own.source);
    // The kubelet runs the file: when it answers healthy now, the first status names it active, never nothing.
    const now = this.clock.now().getTime();
    const healthyNow = (await probeHealthz(this.flags.kubeletHealthzURL, this.probeTimeoutMs)) === undefined;
    await this.files.setJournal({
      digest: digestOf(current),
      source: plan.own.source,
      restarted: true,
      restartedAt: now,
      ...(healthyNow ? { healthyAt: now } : {}),
    });
    log(messages.rebuiltRecords(path, describeSource(plan.own.source)));
  }

  /** Decides what the kubelet should run, and brings the kubelet's file and process there. */
  private async reconcile(): Promise<void> {
    const assigned = (await this.store.readRecordOrQuarantine('assigned', this.clock.now())).source;
    const lastKnownGood = (await this.store.readRecordOrQuarantine('last-known-good', this.clock.now())).source;
    this.recreation?.setAssigned(assigned);
    let failed = await this.files.failed();
    if (failed && !sourcesEqual(failed.source, assigned)) {
      await this.files.setFailed(undefined);
      failed = undefined;
    }
    const path = this.managedPath;
    const journal = await this.files.journal();
    const onDisk = digestOf(await this.files.current(path));
    const running = runningFromJournal(journal, onDisk);
    const first = !this.reconciled;
    this.reconciled = true;
    if (this.runningFailed && !sourcesEqual(running?.source, this.runningFailed)) this.runningFailed = undefined;
    this.nodeFiles = await this.nodeFilesDigest();
    let assignedPayload: { bytes: Uint8Array; path: string } | undefined;
    let assignedValidation: Validation | undefined;
    if (assigned) {
      try {
        assignedPayload = await this.store.load(assigned);
        assignedValidation = await this.judge(assignedPayload, assigned);
      } catch (err) {
        assignedValidation = { ok: false, reason: LoadError, detail: messageOf(err) };
      }
    }
    const lastKnownGoodDenied =
      assigned && lastKnownGood && !sourcesEqual(assigned, lastKnownGood)
        ? await this.deniedByPolicies(lastKnownGood)
        : false;
    const runningUnfit =
      running?.source !== undefined &&
      (sourcesEqual(running.source, this.runningFailed) || (await this.deniedByPolicies(running.source)));
    const target = decideTarget({
      assigned,
      lastKnownGood,
      assignedValidation,
      failed,
      lastKnownGoodDenied,
      running,
      runningUnfit,
    });
    this.status.setAssigned(target.status.assigned);
    this.status.setLastKnownGood(target.status.lastKnownGood);
    this.status.setError(target.status.error);
    if (target.rejected) this.reportRejection(assigned!, target);
    else this.lastRejection = '';

    // The content the kubelet's file must hold.
    let bytes: Uint8Array | undefined;
    let payload: Uint8Array | undefined;
    let mode = 0o644;
    let what: string;
    if (target.use === 'original') {
      what = messages.what.original;
      const original = await this.files.original(path);
      if (!original) {
        // Never changed by dkc: the kubelet runs the node's own files already. Or the file is the daemon's own and
        // the node's --config it replaced was lost with the records: it stays, and the status says what it is.
        const own = readHeader(await this.files.current(path));
        if (own) logError(messages.originalLost(path, describeSource(own.source)));
        this.status.setActive(own?.source);
        this.gate = undefined;
        this.fileChecks.written = undefined;
        return;
      }
      ({ bytes, mode } = originalContent(original));
    } else {
      const src = target.source!;
      what = describeTarget(target);
      payload =
        target.use === 'assigned' && assignedPayload ? assignedPayload.bytes : (await this.store.load(src)).bytes;
      bytes = withHeader(src, payload);
    }
    const digest = digestOf(bytes);
    const action = decideAction({ desired: digest, onDisk, journal });
    if (isDrift({ written: digest, onDisk, journal })) this.fileChecks.reportDrift(path, false);
    this.fileChecks.written = payload && bytes ? { path, digest, bytes, mode, payload } : undefined;
    // Active names what the kubelet runs: a config under trial once the kubelet is healthy on it (until then, what it
    // ran before), last-known-good and the node's files as soon as the kubelet's file holds them.
    const trusted = target.use !== 'assigned';
    const record = { digest, ...(target.source ? { source: target.source } : { original: true }) };

    if (action === 'none') {
      if (trusted || journal?.healthyAt !== undefined) this.status.setActive(target.source);
      if (this.gate?.digest !== digest) {
        log(messages.resumed(what));
        this.gate = this.newGate(target, digest, journal?.restartedAt ?? this.clock.now().getTime(), true);
        this.restarts = countFor(this.restarts, digest);
        this.publishRestarts();
      } else {
        // Kept on through a refused assignment, a config under trial stays under trial.
        this.gate.target = target.use === 'running' ? { ...target, trial: this.gate.target.trial } : target;
      }
      return;
    }
    // A newer assignment is on its way through the sync: it is applied instead, with one restart.
    if (target.use === 'assigned' && this.superseded(assigned)) return log(messages.superseded(what));
    if (first && journal && !journal.restarted)
      log(messages.recovering(journal.digest === digest ? what : messages.what.unfinished));
    if (target.use !== 'assigned' && target.rejected) log(messages.rollingBack(what));
    if (action === 'write-and-restart') {
      if (await this.files.keepOriginal(path, this.flags.applyAs)) log(messages.keptOriginal(path));
      await this.files.setJournal({ ...record, restarted: false });
      await setKubeletFile(path, bytes, mode);
      log(bytes === undefined ? messages.removed(path) : messages.wrote(path, what));
    } else {
      log(messages.resumedRestart(what));
      if (journal?.digest !== digest || journal.restarted) await this.files.setJournal({ ...record, restarted: false });
    }
    if (trusted) this.status.setActive(target.source);
    this.gate = undefined;
    await this.restartKubelet(target, record);
  }

  /** Runs the restart command onto `record`'s content, journals it, and opens its health gate. */
  private async restartKubelet(target: Target, record: Omit<Journal, 'restarted'>): Promise<void> {
    const event = restartMessage(target.source);
    await createEventDirectly(this.client, {
      involvedObject: nodeReference(this.flags.nodeName),
      type: 'Normal',
      reason: CONFIG_CHANGED_REASON,
      message: event,
      host: this.flags.nodeName,
      component: COMPONENT,
      now: this.clock.now(),
    }).catch((err: unknown) => logError(`failed to send event, error: ${messageOf(err)}`));
    if (target.use === 'assigned' && this.superseded(target.source))
      return log(messages.superseded(describeTarget(target)));
    log(messages.restarting(this.flags.kubeletRestartCommand));
    this.wasHealthy = undefined; // down because the daemon restarts it: not logged as going unhealthy
    this.pidEpoch++; // a pid read while the restart runs is the daemon's own doing
    try {
      await runRestartCommand(this.flags.kubeletRestartCommand, this.flags.startTimeoutMs);
    } catch (err) {
      logError(messages.restartFailed(messageOf(err)));
      this.status.setErrorOverride(syncError(InternalError));
      this.retryLater();
      return;
    }
    const restartedAt = this.clock.now().getTime();
    await this.files.setJournal({ ...record, restarted: true, restartedAt });
    // The daemon's own restart: the pid read now is the new baseline, and the count starts again for this content.
    await this.readPid(true);
    this.restarts = { digest: record.digest, count: 0 };
    await this.restartRecord.write(this.restarts).catch((err: unknown) => logError(messageOf(err)));
    this.publishRestarts();
    this.gate = this.newGate(target, record.digest, restartedAt, false);
  }

  /** The assignment has moved on from `recorded` (only once it is followed: at start nothing is known yet). */
  private superseded(recorded: NodeConfigSource | undefined): boolean {
    let live: NodeConfigSource | undefined;
    try {
      if (!this.assignment) return false;
      live = this.assignment.source();
    } catch {
      return false;
    }
    return superseded(recorded, live);
  }

  private newGate(target: Target, digest: string, restartedAt: number, resumed: boolean): Gate {
    return {
      target,
      digest,
      restartedAt,
      resumed,
      downSince: undefined,
      becameHealthy: false,
      healthySince: undefined,
      unhealthySince: undefined,
      lastProblem: '',
      done: false,
    };
  }

  /** Reads the kubelet's pid; with `baseline`, a change is the daemon's own restart, otherwise one it did not cause. */
  private async readPid(baseline = false): Promise<void> {
    if (this.flags.kubeletPidCommand === '') return;
    // At most every half second however often healthz is probed: a restart changes the pid until the next one.
    const now = this.clock.monotonicMs();
    if (!baseline && now - this.pidReadAt < 500) return;
    this.pidReadAt = now;
    const epoch = baseline ? ++this.pidEpoch : this.pidEpoch;
    const r = await readKubeletPid(this.flags.kubeletPidCommand, Math.min(5_000, this.flags.startTimeoutMs));
    // A reading that started before the daemon's own restart re-baselined the track says nothing of it.
    if (epoch !== this.pidEpoch) return;
    if ('error' in r) {
      this.pidRunning = undefined;
      return;
    }
    this.pidRunning = r.pid !== 0;
    if (baseline) {
      this.pidTrack = { known: r.pid === 0 ? undefined : r.pid };
      return;
    }
    const seen = observePid(this.pidTrack, r.pid);
    this.pidTrack = seen.track;
    if (!seen.restarted || !this.gate) return;
    const at = this.clock.now().toISOString();
    const c = countFor(this.restarts, this.gate.digest);
    this.restarts = { digest: c.digest, count: c.count + 1, last: at };
    logWarning(messages.unexpectedRestart(r.pid, this.restarts.count));
    await this.restartRecord.write(this.restarts).catch((err: unknown) => logError(messageOf(err)));
    this.publishRestarts();
  }

  private publishRestarts(): void {
    this.report?.set(reportOf(this.restarts));
  }

  private retryLater(): void {
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.enqueue(() => this.reconcile());
    }, 5_000);
  }

  private reportRejection(assigned: NodeConfigSource, target: Target): void {
    const r = target.rejected!;
    const key = `${JSON.stringify(assigned)}|${r.reason}|${r.detail}`;
    if (key === this.lastRejection) return;
    this.lastRejection = key;
    logError(messages.rejected(r.reason, r.detail));
    const stage = r.stage ?? (r.reason === CrashLoopError ? 'crashloop' : r.reason === LoadError ? 'load' : 'validate');
    const message = rejectionMessage({
      assigned,
      stage,
      detail: r.detail,
      runs: target.use === 'last-known-good' ? 'last-known-good' : target.use === 'running' ? 'current' : 'local',
    });
    void createEventDirectly(this.client, {
      involvedObject: nodeReference(this.flags.nodeName),
      type: 'Warning',
      reason: REJECTED_REASON,
      message,
      host: this.flags.nodeName,
      component: COMPONENT,
      now: this.clock.now(),
    }).catch((err: unknown) => logError(`failed to send event, error: ${messageOf(err)}`));
  }

  /** A Warning event on the node from the daemon (failures to send are logged, never waited for). */
  private warn(reason: string, message: string): void {
    void createEventDirectly(this.client, {
      involvedObject: nodeReference(this.flags.nodeName),
      type: 'Warning',
      reason,
      message,
      host: this.flags.nodeName,
      component: COMPONENT,
      now: this.clock.now(),
    }).catch((err: unknown) => logError(`failed to send event, error: ${messageOf(err)}`));
  }

  private nodeReady(): string | undefined {
    const node = this.nodeInformer?.store.get(this.flags.nodeName) as Node | undefined;
    return node?.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  }

  /** One probe of the kubelet (its pid and its healthz), and what the gate makes of it. */
  private async checkHealth(): Promise<void> {
    const gate = this.gate;
    if (!gate || this.probing) return;
    this.probing = true;
    try {
      await this.readPid();
      const problem = await probeHealthz(this.flags.kubeletHealthzURL, this.probeTimeoutMs);
      const ready = this.nodeReady();
      if (this.gate !== gate) return;
      const now = this.clock.now().getTime();
      const ok = healthy({ healthz: problem === undefined, ready });
      this.logHealthChange(ok, problem ?? messages.notReady(ready ?? ''));
      if (gate.done) return;
      if (ok) {
        gate.unhealthySince = undefined;
        gate.healthySince ??= now;
        if (!gate.becameHealthy) this.becameHealthy(gate, now);
      } else {
        gate.lastProblem = problem ?? messages.notReady(ready ?? '');
        gate.healthySince = undefined;
        if (gate.becameHealthy) gate.unhealthySince ??= now;
        else gate.downSince ??= now;
      }
      const verdict = judgeHealth({
        now,
        ...gate,
        kubeletRunning: this.pidRunning,
        unexpectedRestarts: countFor(this.restarts, gate.digest).count,
        crashLoopThreshold: this.flags.kubeletPidCommand === '' ? undefined : this.flags.crashLoopThreshold,
        startTimeoutMs: this.flags.startTimeoutMs,
        trialMs: this.flags.trialMs,
        trial: gate.target.trial,
      });
      if (verdict.kind === 'passed') {
        gate.done = true;
        if (gate.target.trial) await this.enqueue(() => this.promote(gate));
      } else if (verdict.kind === 'failed') {
        gate.done = true;
        await this.gateFailed(gate, verdict.cause);
      }
    } finally {
      this.probing = false;
    }
  }

  /** The kubelet answers on the gate's config: active names it, and the journal says so for the next start. */
  private becameHealthy(gate: Gate, now: number): void {
    gate.becameHealthy = true;
    const t = gate.target;
    log(messages.healthy(t.source ? describeSource(t.source) : messages.what.original));
    if (t.use === 'assigned') this.status.setActive(t.source);
    // In the queue, as every write of the journal: never over a newer apply's record.
    void this.enqueue(async () => {
      const journal = await this.files.journal();
      if (this.gate !== gate || journal?.digest !== gate.digest || !journal.restarted || journal.healthyAt) return;
      await this.files.setJournal({ ...journal, healthyAt: now });
    });
  }

  /** The kubelet going unhealthy, and coming back, is logged once each way. */
  private logHealthChange(ok: boolean, problem: string): void {
    if (this.wasHealthy === undefined) {
      if (ok) this.wasHealthy = true;
      return;
    }
    if (ok === this.wasHealthy) return;
    this.wasHealthy = ok;
    if (ok) log(messages.healthyAgain);
    else logWarning(messages.wentUnhealthy(this.flags.kubeletHealthzURL, problem));
  }

  /** The gate failed: an assigned config (or one kept on through a refused assignment) is rolled back. */
  private async gateFailed(gate: Gate, cause: 'start-timeout' | 'unhealthy' | 'crash-loop'): Promise<void> {
    const seconds = Math.round(this.flags.startTimeoutMs / 1000);
    const url = this.flags.kubeletHealthzURL;
    const why =
      cause === 'crash-loop'
        ? messages.crashLoop(countFor(this.restarts, gate.digest).count, this.flags.crashLoopThreshold)
        : cause === 'unhealthy'
          ? messages.unhealthy(url, seconds, gate.lastProblem)
          : gate.resumed
            ? messages.startTimeoutResumed(url, seconds, gate.lastProblem)
            : messages.startTimeout(url, seconds, gate.lastProblem);
    if (gate.target.use === 'running') {
      logError(why);
      this.runningFailed = gate.target.source;
      await this.enqueue(() => (this.gate === gate ? this.reconcile() : Promise.resolve()));
      return;
    }
    if (gate.target.use !== 'assigned') return logError(why);
    await this.enqueue(async () => {
      if (this.gate !== gate) return;
      await this.files.setFailed({ source: gate.target.source!, cause: why });
      await this.reconcile();
    });
  }

  private async promote(gate: Gate): Promise<void> {
    if (this.gate !== gate) return;
    const src = gate.target.source!;
    const promoted = await this.store.exclusive(async (records) => {
      const assigned = await records.assigned();
      if (!sourcesEqual(assigned, src)) return false;
      if (sourcesEqual(await records.lastKnownGood(), src)) return false;
      await records.setLastKnownGood(src);
      return true;
    });
    if (!promoted) return;
    this.status.setLastKnownGood(src);
    log(messages.promoted(src));
    await this.pruneCheckpoints();
  }

  /**
   * Removes the checkpoints that neither record names and the kubelet does not run (the journal's source), so that
   * replacing an assigned ConfigMap again and again cannot fill the node's disk. After each promotion, when both
   * records have just been written.
   */
  private async pruneCheckpoints(): Promise<void> {
    const running = (await this.files.journal())?.source;
    const removed = await this.store.prune([running]).catch((err: unknown) => {
      logWarning(messages.pruneFailed(messageOf(err)));
      return [];
    });
    for (const dir of removed) log(messages.pruned(dir));
  }

  private async serveMetrics(address: string): Promise<void> {
    const i = address.lastIndexOf(':');
    const host = address.slice(0, i);
    const port = Number(address.slice(i + 1));
    const server = createServer((req, res) => {
      if (req.url === '/metrics') {
        void renderMetrics(this.registry).then(({ contentType, body }) => {
          res.writeHead(200, { 'Content-Type': contentType });
          res.end(body);
        });
        return;
      }
      if (req.url === '/healthz') {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end('ok');
        return;
      }
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('404 page not found\n');
    });
    await new Promise<void>((r, reject) => {
      server.once('error', reject);
      server.listen(port, host.replace(/^\[|\]$/g, ''), () => r());
    });
    this.metricsServer = server;
  }

  metricsAddress(): string | undefined {
    const a = this.metricsServer?.address();
    return a && typeof a === 'object' ? `${a.address}:${a.port}` : undefined;
  }

  async stop(): Promise<void> {
    this.abort.abort();
    this.sync?.stop();
    this.policyWatch?.stop();
    if (this.healthTimer) clearInterval(this.healthTimer);
    this.fileWatch?.stop();
    if (this.filesTimer) clearInterval(this.filesTimer);
    this.report?.stop();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.recreation?.stop();
    await this.assignment?.stop();
    await this.nodeInformer?.stop();
    await this.cmInformer?.stop();
    this.status.stop();
    await new Promise<void>((r) => (this.metricsServer ? this.metricsServer.close(() => r()) : r()));
    this.client.close();
  }
}

export async function runNodeDaemon(argv: readonly string[]): Promise<RunningDaemon> {
  const flags = parseNodeDaemonFlags(argv);
  configureLogging({ verbosity: flags.verbosity });
  const client = await RestClient.fromKubeconfig(flags.kubeconfig);
  const daemon = new NodeDaemon(flags, client);
  try {
    await daemon.start();
  } catch (err) {
    await daemon.stop();
    throw err;
  }
  const address = daemon.metricsAddress();
  return { nodeName: flags.nodeName, ...(address ? { metricsAddress: address } : {}), stop: () => daemon.stop() };
}

/** `dkc node-daemon`: runs until SIGTERM or SIGINT; a failed start prints one line and exits 1. */
export async function runNodeDaemonCommand(argv: readonly string[]): Promise<void> {
  let daemon: RunningDaemon;
  try {
    daemon = await runNodeDaemon(argv);
  } catch (err) {
    const message = messageOf(err).split('\n')[0]!;
    logError(message);
    process.stderr.write(`dkc node-daemon: ${message}\n`);
    process.exit(1);
  }
  await new Promise<void>((r) => {
    process.once('SIGINT', () => r());
    process.once('SIGTERM', () => r());
  });
  await daemon.stop();
  process.exit(0);
}
