// The node agent's lifecycle, the kubelet's in small: build the local config (defaults ← --config ← flags), let the
// dynamic config controller choose the config to run, start the node's listeners, register the Node and keep its
// status and Lease current, and hand the controller its API client and the channel its assignment comes through (the
// node's Node or its NodeConfig, found once at start). The agent never changes config in place: to run a new one it
// stops. `runAgent` is that lifecycle (start → stop) on a host (host.ts): `dkc agent` exits 0 so that its supervisor
// starts it again; a fleet starts the node's next instance in the same process.

import type { Node, NodeCondition } from '../api/types.js';
import { admitPod } from './pods/admission.js';
import { PodRunner } from './pods/manager.js';
import { startContainerManager } from './pods/checkpointfiles.js';
import { podLogs } from './pods/messages.js';
import { connect } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { configureLogging, klog } from '../util/klog.js';
import { systemClock } from '../util/clock.js';
import type { EffectiveConfigSuccess, KubeletConfiguration, KubeletVersion } from '../kubeletconfig/index.js';
import { AgentStartError } from './starterror.js';
import { loadLocalConfig, type LocalConfig } from './localconfig.js';
import { CONFIG_FLAGS_ANNOTATION, configFlagsAnnotation } from '../nodepolicy/flags.js';
import { parseAgentFlags, type AgentFlags } from './flags.js';
import { processHost, type AgentHost } from './host.js';
import {
  computeAllocatable,
  computeCapacity,
  createMetricsRegistry,
  defaultNodeIP,
  eventRateLimits,
  heartbeatTimeoutMs,
  hostname,
  kubeAPIRateLimiter,
  KUBELET_VERSION,
  kubeletUserAgent,
  LeaseRenewer,
  mergeCapacity,
  NodeStatusReporter,
  parseCapacityFlag,
  registerNode,
  statusSource,
  type AgentServers,
  type MetricsRegistry,
} from './node/index.js';
import { createEventDirectly, EventRecorder, nodeReference } from '../client/events.js';
import { DynamicConfigController, type CheckpointPayload, type ConfigMapPayload } from './dynamicconfig/controller.js';
import { requestPath } from './dynamicconfig/source.js';
import { PolicyGate } from './dynamicconfig/policy.js';
import { clip } from '../util/clip.js';
import { InternalError, LoadError, ValidateError } from '../api/configstatus.js';
import type { LoadOutcome } from './dynamicconfig/bootstrap.js';
import { configGauges } from './dynamicconfig/status.js';
import { discoveryThrough, findAssignmentChannel, prepareChannel } from './dynamicconfig/findchannel.js';
import { WebhookAuthorizer } from './node/webhookauthz.js';
import { openLogFile } from './logfile.js';
import { errorMessage } from '../util/errors.js';
import type { RestClient } from '../client/index.js';

/** Why an agent stopped: to run a new config, on request, or because it cannot go on (`RunningAgent.failure` says why). */
export type AgentExit = 'restart' | 'stopped' | 'failed';

export interface RunningAgent {
  nodeName: string;
  config: KubeletConfiguration;
  servers: AgentServers;
  /** Resolves when the agent has stopped: 'restart' when it stopped to run a new config. */
  done: Promise<AgentExit>;
  /** Why the agent stopped with 'failed' (one line). */
  readonly failure: string | undefined;
  stop(): Promise<void>;
}

/** How the controller judges a checkpoint: it must load, validate, pass start-up checks and the node's policies. */
function checkpointEvaluator(
  flags: AgentFlags,
  { kubelet, file }: LocalConfig,
  policyGate: PolicyGate,
): (payload: CheckpointPayload) => LoadOutcome<EffectiveConfigSuccess> {
  return (payload) => {
    const r = kubelet.effectiveConfig({
      ...(file ? { file } : {}),
      dynamic: { bytes: payload.bytes, dir: payload.dir, name: payload.path },
      flags: flags.kubelet,
    });
    if (!r.ok) {
      const reason =
        r.layer !== 'dynamic'
          ? InternalError
          : r.stage === 'decode'
            ? LoadError
            : r.stage === 'validation'
              ? ValidateError
              : InternalError;
      return { ok: false, reason, detail: r.errors.join('; '), stage: r.stage === 'decode' ? 'parse' : 'validate' };
    }
    const startup = kubelet.validateStartup(r.config, { featureGates: r.featureGates });
    if (startup.errors.length)
      return { ok: false, reason: ValidateError, detail: startup.errors.join('; '), stage: 'validate' };
    // What decoding left out (unknown fields, kubeletconfig/v1alpha1 fields v1beta1 no longer has) is worth a line.
    for (const w of r.warnings)
      if (w.layer === 'dynamic' && w.detail) klog.warning(`kubelet config controller: ${payload.path}: ${w.message}`);
    const denied = policyGate.judge(r.config);
    if (denied) return { ok: false, reason: denied.reason, detail: denied.detail, stage: 'policy' };
    return { ok: true, config: r };
  };
}

/**
 * With --dynamic-config-dir: the dynamic config controller, booted (it chooses the config this run uses). Closes the
 * API client when the boot fails.
 */
async function bootDynamicConfig(
  flags: AgentFlags & { dynamicConfigDir: string },
  localConfig: LocalConfig,
  nodeName: string,
  registry: MetricsRegistry,
  apiServer: RestClient | undefined,
): Promise<{ controller: DynamicConfigController<EffectiveConfigSuccess>; chosen: EffectiveConfigSuccess }> {
  const { kubelet, file, local } = localConfig;
  // Kubelets from 1.26 on no longer register the gate; dkc's dynamic config then needs none.
  if (local.featureGates.knows('DynamicKubeletConfig') && !local.featureGates.enabled('DynamicKubeletConfig')) {
    throw new AgentStartError(
      'the DynamicKubeletConfig feature gate must be enabled in order to use the --dynamic-config-dir flag',
    );
  }
  // The NodeConfigPolicies that govern the node, as the last run saw them: boot asks the server nothing.
  const policyGate = await PolicyGate.load(
    resolve(flags.dynamicConfigDir),
    local.config,
    flags.kubelet,
    kubelet.schema(),
  );
  const controller = new DynamicConfigController<EffectiveConfigSuccess>({
    dynamicConfigDir: resolve(flags.dynamicConfigDir),
    nodeName,
    trialMs: flags.trialMs,
    crashLoopThreshold: flags.crashLoopThreshold,
    evaluate: checkpointEvaluator(flags, localConfig, policyGate),
    gauges: configGauges(registry),
    initConfig: file !== undefined,
    policyGate,
  });
  // A checkpoint missing from disk is downloaded again at boot when the API server answers quickly.
  const fetchClient = apiServer?.withOptions({ timeoutMs: BOOT_FETCH_TIMEOUT_MS });
  try {
    const boot = await controller.bootstrap(
      fetchClient
        ? { fetchConfigMap: async (ref) => configMapPayload(await fetchClient.get<ConfigMapObject>(requestPath(ref))) }
        : {},
    );
    return { controller, chosen: boot.config ?? local };
  } catch (err) {
    apiServer?.close();
    throw new AgentStartError(errorMessage(err), { cause: err });
  }
}

/** What the node's listeners need from the start: the config, its node, its controller's health and its authorizer. */
interface ServeContext {
  flags: AgentFlags;
  host: AgentHost;
  config: KubeletConfiguration;
  nodeName: string;
  nodeIP: string;
  registry: MetricsRegistry;
  controller: DynamicConfigController<EffectiveConfigSuccess> | undefined;
  apiServer: RestClient | undefined;
  logFile: ReturnType<typeof openLogFile> | undefined;
  configz: string;
  pods: PodView;
}

/** What /pods lists: nothing until the Pod runner is up, then the Pods bound to the node as the API has them. */
interface PodView {
  list: () => readonly object[];
}

/** The kubelet endpoints; closes the API client when they cannot start. */
async function serveEndpoints(ctx: ServeContext): Promise<AgentServers> {
  const { flags, config, apiServer, controller, logFile } = ctx;
  // Webhook authorization needs the API server; a standalone agent keeps authentication alone.
  const sarClient =
    apiServer && config.authorization.mode === 'Webhook' ? apiServer.withOptions({ timeoutMs: 10_000 }) : undefined;
  const webhook = sarClient
    ? new WebhookAuthorizer({
        client: sarClient,
        authorizedTTLMs: Number(config.authorization.webhook.cacheAuthorizedTTL.nanoseconds / 1_000_000n),
        unauthorizedTTLMs: Number(config.authorization.webhook.cacheUnauthorizedTTL.nanoseconds / 1_000_000n),
      })
    : undefined;
  try {
    return await ctx.host.serve({
      config,
      certDir:
        flags.certDir ?? join(flags.dynamicConfigDir ? resolve(flags.dynamicConfigDir, '..') : process.cwd(), 'pki'),
      nodeName: ctx.nodeName,
      nodeIPs: [ctx.nodeIP],
      configz: () => ctx.configz,
      healthz: () => controller?.healthz() ?? { ok: true },
      pods: () => ctx.pods.list(),
      metrics: ctx.registry,
      ...(webhook ? { authorize: (user, attrs) => webhook.authorize(user, attrs) } : {}),
      ...(logFile ? { logDir: dirname(logFile.path) } : {}),
    });
  } catch (err) {
    apiServer?.close();
    throw new AgentStartError(`failed to start the kubelet endpoints: ${errorMessage(err)}`, { cause: err });
  }
}

/**
 * One run of the agent from the moment it serves: its health probes, the cleanups the later phases register, and
 * stopping (once, whatever asks first), after which `done` resolves with why.
 */
class AgentLifecycle {
  private stopping = false;
  private failureLine: string | undefined;
  private readonly cleanups: ShutdownStep[] = [];
  private readonly healthTimer: NodeJS.Timeout | undefined;
  private readonly probeHost: string;
  private resolveDone: (e: AgentExit) => void = () => {};
  readonly done: Promise<AgentExit>;
  readonly abort = new AbortController();

  constructor(
    private readonly controller: DynamicConfigController<EffectiveConfigSuccess> | undefined,
    private readonly servers: AgentServers,
    private readonly apiServer: RestClient | undefined,
    trialMs: number,
  ) {
    this.done = new Promise<AgentExit>((r) => (this.resolveDone = r));
    // The trial is health-gated: the agent probes its own listener and its /healthz checks for as long as it runs,
    // and any failed probe restarts the trial clock. Probes count only once the whole start-up is done (startUpDone).
    this.probeHost = servers.address === '0.0.0.0' || servers.address === '::' ? '127.0.0.1' : servers.address;
    this.healthTimer = controller
      ? setInterval(() => void this.probe(), Math.min(10_000, Math.max(200, trialMs / 8)))
      : undefined;
    this.healthTimer?.unref();
  }

  get stopped(): boolean {
    return this.stopping;
  }

  get failure(): string | undefined {
    return this.failureLine;
  }

  /** Runs `step` when the agent stops, before the steps registered earlier. */
  onStop(step: ShutdownStep): void {
    this.cleanups.push(step);
  }

  private async probe(): Promise<void> {
    const { controller, servers } = this;
    if (!controller) return;
    try {
      await (servers.probe ? servers.probe() : probeListener(this.probeHost, servers.ports.https));
    } catch (err) {
      klog.warning(`health probe of ${this.probeHost}:${servers.ports.https} failed: ${errorMessage(err)}`);
      controller.markUnhealthy();
      return;
    }
    const h = controller.healthz();
    if (!h.ok) {
      klog.warning(`health probe: /healthz fails: ${h.reason ?? 'unknown reason'}`);
      controller.markUnhealthy();
      return;
    }
    await controller.markHealthy();
  }

  /** Healthy means the whole start-up is done (capacity, registration and status, sync started) and a probe passes. */
  async startUpDone(): Promise<void> {
    if (!this.controller || this.stopping) return;
    await this.probe();
    await this.controller.startupComplete();
    klog.v(2, `start-up complete, ${Math.round(process.uptime() * 1000)} ms after process start`);
  }

  /** The agent cannot go on: it says why in one line and stops, as a start that failed. */
  readonly fail = (err: unknown): void => {
    if (this.stopping) return;
    this.failureLine = clip(errorMessage(err));
    klog.error(this.failureLine);
    void this.stop('failed');
  };

  async stop(why: AgentExit): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.abort.abort();
    if (this.healthTimer) clearInterval(this.healthTimer);
    this.controller?.stop();
    await runShutdown(
      [
        { name: 'recording the stop', run: () => this.controller?.stoppedCleanly() },
        ...this.cleanups.reverse(),
        { name: 'stopping the listeners', run: () => this.servers.stop() },
      ],
      SHUTDOWN_STEP_MS,
    ).finally(() => {
      this.apiServer?.close();
      this.resolveDone(why);
    });
  }
}

/** Everything the connected phases share. */
interface ClusterContext {
  flags: AgentFlags;
  host: AgentHost;
  kubelet: KubeletVersion;
  config: KubeletConfiguration;
  nodeName: string;
  nodeIP: string;
  servers: AgentServers;
  controller: DynamicConfigController<EffectiveConfigSuccess> | undefined;
  capacityFlag: ReturnType<typeof parseCapacityFlag> | undefined;
  apiServer: RestClient;
  lifecycle: AgentLifecycle;
  pods: PodView;
}

/** The kubelet version the node states (nodeInfo, User-Agent): without --kubelet-version, what it always has. */
function reportedVersion(flags: AgentFlags, kubelet: KubeletVersion): string {
  return flags.kubeletVersion ? kubelet.gitVersion : KUBELET_VERSION;
}

/** What the node reports in its status: the machine's capacity under the config, its system, ConfigOK. */
async function nodeStatus(ctx: ClusterContext): Promise<ReturnType<typeof statusSource>> {
  const { flags, config, controller } = ctx;
  const machine = mergeCapacity(await ctx.host.machine(), ctx.capacityFlag);
  const capacity = computeCapacity(machine, config);
  const allocatable = computeAllocatable(capacity, config);
  const system = await ctx.host.systemInfo();
  return statusSource({
    config: { port: ctx.servers.ports.https },
    capacity,
    allocatable,
    nodeIP: ctx.nodeIP,
    hostname: ctx.nodeName,
    system,
    kubeletVersion: reportedVersion(flags, ctx.kubelet),
    ...(controller
      ? { extraConditions: (previous: readonly NodeCondition[] | undefined) => controller.configOKConditions(previous) }
      : {}),
  });
}

/**
 * The channel the assignment comes through is found once, while the agent boots and serves (it needs no server for
 * that); the controller's sync waits for it. One that cannot be used stops the agent.
 */
function findChannel(ctx: ClusterContext, client: RestClient): ReturnType<typeof findAssignmentChannel> | undefined {
  if (!ctx.controller) return undefined;
  const hostDiscovery = ctx.host.discoverChannel?.bind(ctx.host);
  const channel = findAssignmentChannel({
    client,
    nodeName: ctx.nodeName,
    choice: ctx.flags.configChannel,
    discover: hostDiscovery ? (choice) => hostDiscovery(client, choice) : discoveryThrough(client),
    signal: ctx.lifecycle.abort.signal,
  });
  channel.catch(ctx.lifecycle.fail);
  return channel;
}

/**
 * The controller starts at once, alongside registration: on a restart the Node already exists, and publishing
 * status.config early is what makes a config change visible quickly. On a first boot its status write waits for the
 * Node (it retries).
 */
function startConfigSync(
  ctx: ClusterContext,
  client: RestClient,
  eventClient: RestClient,
  channel: ReturnType<typeof findChannel>,
): void {
  const { nodeName } = ctx;
  const emit = async (type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> => {
    await createEventDirectly(eventClient, {
      involvedObject: nodeReference(nodeName),
      type,
      reason,
      message,
      host: nodeName,
    });
  };
  ctx.controller?.startSync({
    client,
    emitEvent: (message) => emit('Normal', 'KubeletConfigChanged', message),
    exit: () => ctx.lifecycle.stop('restart'),
    emitWarning: (reason, message) => emit('Warning', reason, message),
    ...(ctx.host.policyFeed ? { policyFeed: ctx.host.policyFeed() } : {}),
    ...(channel ? { channel } : {}),
  });
}

/** Registers the Node (with --register-node), then reports its status and renews its Lease until the agent stops. */
async function registerAndHeartbeat(
  ctx: ClusterContext,
  client: RestClient,
  heartbeatClient: RestClient,
  source: ReturnType<typeof statusSource>,
  reporter: NodeStatusReporter,
  channel: ReturnType<typeof findChannel>,
): Promise<void> {
  const { flags, nodeName, controller, lifecycle } = ctx;
  const node = flags.registerNode
    ? await registerNode(client, {
        nodeName,
        labels: flags.nodeLabels,
        // The config flags, so that whoever compares this node's config with a target sees what it would run.
        annotations: { [CONFIG_FLAGS_ANNOTATION]: configFlagsAnnotation(flags.kubelet) },
        signal: lifecycle.abort.signal,
        status: source(systemClock.now(), undefined),
      })
    : undefined;
  if (lifecycle.stopped) return;
  // The NodeConfig channel's status goes to the NodeConfig it creates now: published as soon as it exists.
  if (channel) {
    void prepareChannel({ channel, client, nodeName, ...(node ? { node } : {}), signal: lifecycle.abort.signal }).then(
      () => controller?.status.retryNow(),
      () => {},
    );
  }
  controller?.status.retryNow();
  reporter.start();
  const lease = new LeaseRenewer({
    client: heartbeatClient,
    nodeName,
    leaseDurationSeconds: ctx.config.nodeLeaseDurationSeconds,
    ...(node?.metadata?.uid ? { nodeUID: node.metadata.uid } : {}),
  });
  lease.start();
  lifecycle.onStop({ name: 'stopping the Lease', run: () => lease.stop() });
}

/** With an API server: events, node status and Lease, the controller's sync, and registration (in the background). */
async function joinCluster(ctx: ClusterContext): Promise<void> {
  const { apiServer, config, nodeName, lifecycle } = ctx;
  const client = apiServer.withOptions({ rateLimiter: kubeAPIRateLimiter(config) });
  // Events go through their own client, limited by eventRecordQPS/eventBurst rather than kubeAPIQPS, as the
  // kubelet's event client is.
  const eventClient = apiServer.withOptions({ timeoutMs: EVENT_TIMEOUT_MS });
  const recorder = new EventRecorder({ client: eventClient, host: nodeName, ...eventRateLimits(config) });
  lifecycle.onStop({ name: 'flushing events', run: () => recorder.stop() });
  // Node status and the Lease use a heartbeat client that is not throttled, with a timeout of the smaller of the
  // status update frequency and the lease duration, as the kubelet's is: heartbeats must not wait behind other
  // traffic, nor drain the kubeAPIQPS bucket that the config download then waits on.
  const heartbeatClient = apiServer.withOptions({ timeoutMs: heartbeatTimeoutMs(config) });
  const source = await nodeStatus(ctx);
  const reporter = new NodeStatusReporter({ client: heartbeatClient, nodeName, config, status: source, recorder });
  const channel = findChannel(ctx, client);
  // ConfigOK is written with the node's other conditions, as soon as it changes rather than at the next tick.
  let reporting = false;
  ctx.controller?.status.onConditionChange(() => {
    // A sync already in flight may have read the condition before this change: the second one sees it.
    if (reporting) void reporter.syncNow().then(() => reporter.syncNow());
  });
  lifecycle.onStop({ name: 'stopping node status', run: () => reporter.stop() });
  startConfigSync(ctx, client, eventClient, channel);
  void (async () => {
    try {
      await registerAndHeartbeat(ctx, client, heartbeatClient, source, reporter, channel);
      if (lifecycle.stopped) return;
      reporting = true;
    } catch (err) {
      if (!lifecycle.stopped) klog.error(`node registration failed: ${errorMessage(err)}`);
      return;
    }
    await lifecycle.startUpDone();
    // Pods are no part of the config's health: they start once the node is up, and a failure is logged, not fatal.
    if (ctx.host.runsPods) await startPods(ctx, client);
  })();
}

/** The Pods bound to the node, run by the simulated runtime and admitted as the kubelet admits them. */
async function startPods(ctx: ClusterContext, client: RestClient): Promise<void> {
  const { flags, nodeName, lifecycle } = ctx;
  const nodePath = `/api/v1/nodes/${nodeName}`;
  const runner = new PodRunner({
    ...ctx.host.sharedPods?.(nodeName),
    client,
    nodeName,
    rootDir: resolve(flags.rootDir),
    hostIP: ctx.nodeIP,
    clock: systemClock,
    admit: async (pod, running) =>
      admitPod({ pod, node: await client.get<Node>(nodePath), maxPods: ctx.config.maxPods ?? 110, running }),
  });
  lifecycle.onStop({ name: 'stopping the pod runner', run: () => runner.stop() });
  ctx.pods.list = () => runner.pods();
  try {
    await runner.start();
  } catch (err) {
    if (!lifecycle.stopped) klog.error(podLogs.startFailed(errorMessage(err)));
  }
}

/**
 * What the kubelet checks before it serves: the chosen config against the node's startup rules, then — on a node
 * that runs Pods — the CPU and memory managers' state, kept as the kubelet keeps it.
 */
async function checkStartup(
  o: Pick<ClusterContext, 'flags' | 'host' | 'kubelet' | 'capacityFlag'> & { apiServer: RestClient | undefined },
  chosen: Pick<EffectiveConfigSuccess, 'config' | 'featureGates'>,
): Promise<void> {
  const startup = o.kubelet.validateStartup(chosen.config, { featureGates: chosen.featureGates });
  if (startup.errors.length) throw new AgentStartError(`invalid configuration: ${startup.errors.join('; ')}`);
  if (!o.host.runsPods || o.host.sharedPods) return;
  const machine = mergeCapacity(await o.host.machine(), o.capacityFlag);
  await startContainerManager(resolve(o.flags.rootDir), chosen.config, machine);
}

/** The process host logs to stderr and, with --log-file, to that file; a fleet keeps its process-wide logging. */
function setUpLogging(flags: AgentFlags, host: AgentHost): ReturnType<typeof openLogFile> | undefined {
  const logFile =
    host.ownsLogging && flags.logFile !== undefined ? openLogFile(flags.logFile, flags.logToStderr) : undefined;
  if (host.ownsLogging) configureLogging({ verbosity: flags.verbosity, ...(logFile ? { sink: logFile.sink } : {}) });
  klog.v(2, `dkc agent starting, pid ${process.pid}, ${Math.round(process.uptime() * 1000)} ms after process start`);
  return logFile;
}

export async function runAgent(argv: readonly string[], host: AgentHost = processHost): Promise<RunningAgent> {
  const flags = parseAgentFlags(argv);
  const logFile = setUpLogging(flags, host);
  const nodeName = (flags.hostnameOverride ?? hostname()).toLowerCase();
  const localConfig = await loadLocalConfig(flags);
  const { kubelet, capacityFlag } = localConfig;
  const registry = createMetricsRegistry();
  // One connection pool to the API server; each use below derives a client with its own limits, as the kubelet's
  // API, event and heartbeat clients differ only in those. Closed last, when everything else has stopped.
  const apiServer = await host.connect(flags, kubeletUserAgent(reportedVersion(flags, kubelet)));
  const dynamicConfigDir = flags.dynamicConfigDir;
  const { controller, chosen } = dynamicConfigDir
    ? await bootDynamicConfig({ ...flags, dynamicConfigDir }, localConfig, nodeName, registry, apiServer)
    : { controller: undefined, chosen: localConfig.local };

  const config = chosen.config;
  if (host.ownsLogging) configureLogging({ format: config.logging?.format === 'json' ? 'json' : 'text' });
  await checkStartup({ flags, host, kubelet, capacityFlag, apiServer }, chosen).catch((err: unknown) => {
    apiServer?.close();
    throw err;
  });
  const nodeIP = flags.nodeIP ?? defaultNodeIP(config.address);
  const node = { flags, host, config, nodeName, nodeIP, controller, pods: { list: () => [] } as PodView };
  // The running config never changes in place, so its /configz body is rendered once.
  const configz = kubelet.toConfigzJSON(config);
  const servers = await serveEndpoints({ ...node, registry, apiServer, logFile, configz });
  klog.info(`serving on https://${servers.address}:${servers.ports.https}`, { node: nodeName });
  const lifecycle = new AgentLifecycle(controller, servers, apiServer, flags.trialMs);
  if (apiServer) {
    await joinCluster({ ...node, kubelet, servers, capacityFlag, apiServer, lifecycle });
  } else {
    klog.warning('no --kubeconfig: running standalone, without the API server');
    await lifecycle.startUpDone();
  }

  return runningAgent(nodeName, config, servers, lifecycle);
}

/** What the caller holds of a started agent: its identity, its config and servers, and its lifecycle's ends. */
function runningAgent(
  nodeName: string,
  config: RunningAgent['config'],
  servers: RunningAgent['servers'],
  lifecycle: AgentLifecycle,
): RunningAgent {
  return {
    nodeName,
    config,
    servers,
    done: lifecycle.done,
    get failure() {
      return lifecycle.failure;
    },
    stop: () => lifecycle.stop('stopped'),
  };
}

/** How long a shutdown step may take before the agent exits without it. */
const SHUTDOWN_STEP_MS = 2_000;
/** The KubeletConfigChanged event (and other events flushed at exit) must not hold up a restart for long. */
const EVENT_TIMEOUT_MS = 5_000;
/** A boot-time download of a missing checkpoint waits this long for the API server. */
const BOOT_FETCH_TIMEOUT_MS = 5_000;

interface ConfigMapObject {
  metadata?: { uid?: string; resourceVersion?: string };
  data?: Record<string, string>;
}

function configMapPayload(o: ConfigMapObject): ConfigMapPayload {
  return {
    ...(o.metadata?.uid ? { uid: o.metadata.uid } : {}),
    ...(o.metadata?.resourceVersion ? { resourceVersion: o.metadata.resourceVersion } : {}),
    data: o.data ?? {},
  };
}

export interface ShutdownStep {
  name: string;
  run(): Promise<void> | void;
}

/**
 * Runs the steps in order, each for at most `stepMs`: a step that fails or hangs (a request in flight to a server that
 * does not answer) is logged and left behind, so stopping always finishes in bounded time. Never rejects.
 */
export async function runShutdown(steps: readonly ShutdownStep[], stepMs: number): Promise<void> {
  for (const step of steps) {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), stepMs)));
    try {
      const r = await Promise.race([
        Promise.resolve()
          .then(() => step.run())
          .then(() => 'done' as const),
        late,
      ]);
      if (r === 'late') klog.warning(`shutdown: ${step.name} did not finish within ${stepMs} ms; going on without it`);
    } catch (err) {
      klog.warning(`shutdown: ${step.name}: ${errorMessage(err)}`);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Resolves when a TCP connection to the listener succeeds within 2 s. */
function probeListener(host: string, port: number): Promise<void> {
  return new Promise((resolveProbe, reject) => {
    const socket = connect({ host, port, timeout: 2_000 }, () => {
      socket.destroy();
      resolveProbe();
    });
    socket.once('timeout', () => {
      socket.destroy();
      reject(new Error('timed out'));
    });
    socket.once('error', reject);
  });
}

/** `dkc agent`: run until stopped; exit 0 to restart for a new config, 1 when the agent cannot start. */
export async function runAgentCommand(argv: readonly string[]): Promise<void> {
  let agent: RunningAgent;
  try {
    agent = await runAgent(argv);
  } catch (err) {
    // The message may quote a config file or record: a log line carries its first few hundred characters only.
    const message = clip(errorMessage(err));
    klog.error(message);
    process.stderr.write(`dkc agent: ${message}\n`);
    process.exit(1);
  }
  const onSignal = (sig: string) => {
    klog.info(`received ${sig}, shutting down`);
    void agent.stop();
  };
  process.once('SIGINT', () => onSignal('SIGINT'));
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  const why = await agent.done;
  if (why === 'failed') {
    process.stderr.write(`dkc agent: ${agent.failure ?? 'failed'}\n`);
    process.exit(1);
  }
  klog.info(why === 'restart' ? 'exiting to restart with the new config' : 'stopped');
  process.exit(0);
}
