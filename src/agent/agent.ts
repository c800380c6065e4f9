// The node agent's lifecycle, the kubelet's in small: build the local config (defaults ← --config ← flags), let the
// dynamic config controller choose the config to run, start the node's listeners, register the Node and keep its
// status and Lease current, and hand the controller its API client. The agent never changes config in place: to run
// a new one it stops. `runAgent` is that lifecycle (start → stop) on a host (host.ts): `dkc agent` exits 0 so that
// its supervisor starts it again; a fleet starts the node's next instance in the same process.

import type { NodeCondition } from '../api/types.js';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { configureLogging, klog } from '../util/klog.js';
import {
  BASE_KUBELET_VERSION,
  kubeletVersion,
  type ConfigSource,
  type EffectiveConfigSuccess,
  type KubeletConfiguration,
} from '../kubeletconfig/index.js';
import { CONFIG_FLAGS_ANNOTATION, configFlagsAnnotation } from '../nodepolicy/flags.js';
import { parseAgentFlags, type AgentFlags } from './flags.js';
import { processHost, type AgentHost } from './host.js';
import {
  computeAllocatable,
  computeCapacity,
  createEventDirectly,
  createMetricsRegistry,
  defaultNodeIP,
  EventRecorder,
  eventRateLimits,
  heartbeatTimeoutMs,
  gauge,
  hostname,
  kubeAPIRateLimiter,
  LeaseRenewer,
  mergeCapacity,
  nodeReference,
  NodeStatusReporter,
  parseCapacityFlag,
  registerNode,
  statusSource,
  type AgentServers,
  type MetricsRegistry,
} from './node/index.js';
import { DynamicConfigController, type CheckpointPayload, type ConfigMapPayload } from './dynamicconfig/controller.js';
import { requestPath } from './dynamicconfig/source.js';
import { PolicyGate } from './dynamicconfig/policy.js';
import { clip } from './dynamicconfig/log.js';
import { InternalError, LoadError, ValidateError } from './dynamicconfig/errors.js';
import type { LoadOutcome } from './dynamicconfig/bootstrap.js';
import type { ConfigGauges } from './dynamicconfig/status.js';
import { WebhookAuthorizer } from './node/webhookauthz.js';
import { openLogFile } from './logfile.js';

export class AgentStartError extends Error {
  readonly code = 'agent-start-failed';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AgentStartError';
  }
}

export type AgentExit = 'restart' | 'stopped';

export interface RunningAgent {
  nodeName: string;
  config: KubeletConfiguration;
  servers: AgentServers;
  /** Resolves when the agent has stopped: 'restart' when it stopped to run a new config. */
  done: Promise<AgentExit>;
  stop(): Promise<void>;
}

function configGauges(registry: MetricsRegistry): ConfigGauges {
  const labels = ['node_config_source', 'node_config_uid', 'node_config_resource_version', 'node_config_kubelet_key'];
  const vec = (name: string, help: string) => {
    const g = gauge(registry, name, help, labels);
    return { set: (l: Record<string, string>, v: number) => g.set(l, v), reset: () => g.reset() };
  };
  const err = gauge(registry, 'kubelet_node_config_error', 'This metric is true (1) if the node is experiencing a configuration-related error, false (0) otherwise.');
  return {
    assigned: vec('kubelet_node_config_assigned', "The node's understanding of intended config. The count is always 1."),
    active: vec('kubelet_node_config_active', 'The config source the node is actively using. The count is always 1.'),
    lastKnownGood: vec('kubelet_node_config_last_known_good', 'The config source the node will fall back to when it encounters certain errors. The count is always 1.'),
    error: { set: (v: number) => err.set(v) },
  };
}

async function readLocalConfig(flags: AgentFlags): Promise<ConfigSource | undefined> {
  if (!flags.config) return undefined;
  const path = resolve(flags.config);
  try {
    return { bytes: await readFile(path), dir: dirname(path), name: flags.config };
  } catch (err) {
    throw new AgentStartError(`failed to load Kubelet config file ${flags.config}, error: ${(err as Error).message}`, { cause: err });
  }
}

export async function runAgent(argv: readonly string[], host: AgentHost = processHost): Promise<RunningAgent> {
  const flags = parseAgentFlags(argv);
  // The process host logs to stderr and, with --log-file, to that file; a fleet keeps its process-wide logging.
  const logFile = host.ownsLogging && flags.logFile !== undefined ? openLogFile(flags.logFile, flags.logToStderr) : undefined;
  if (host.ownsLogging) configureLogging({ verbosity: flags.verbosity, ...(logFile ? { sink: logFile.sink } : {}) });
  klog.v(2, `dkc agent starting, pid ${process.pid}, ${Math.round(process.uptime() * 1000)} ms after process start`);
  const nodeName = (flags.hostnameOverride ?? hostname()).toLowerCase();
  const file = await readLocalConfig(flags);

  // The kubelet this node behaves as: its fields, defaults, validation and gates (1.22, the library's own, by default).
  const kubelet = kubeletVersion(flags.kubeletVersion ?? BASE_KUBELET_VERSION);
  const local = kubelet.effectiveConfig({ ...(file ? { file } : {}), flags: flags.kubelet });
  // The kubelet decodes leniently after its strict pass fails, and says so: a typo must not go unnoticed.
  for (const w of local.warnings) if (w.layer === 'file' && w.detail) klog.warning(`${file?.name ?? ''}: ${w.message}`);
  if (!local.ok) {
    throw new AgentStartError(`failed to validate the local kubelet configuration (${local.layer}): ${local.errors.join('; ')}`);
  }
  let chosen: EffectiveConfigSuccess = local;
  const registry = createMetricsRegistry();
  // Flags are checked before anything starts: a bad one must fail the start, not a config's trial.
  let capacityFlag: ReturnType<typeof parseCapacityFlag> | undefined;
  try {
    capacityFlag = flags.capacity ? parseCapacityFlag(flags.capacity) : undefined;
  } catch (err) {
    throw new AgentStartError((err as Error).message, { cause: err });
  }
  // One connection pool to the API server; each use below derives a client with its own limits, as the kubelet's
  // API, event and heartbeat clients differ only in those. Closed last, when everything else has stopped.
  const apiServer = await host.connect(flags);

  let controller: DynamicConfigController<EffectiveConfigSuccess> | undefined;
  if (flags.dynamicConfigDir) {
    // Kubelets from 1.26 on no longer register the gate; dkc's dynamic config then needs none.
    if (local.featureGates.knows('DynamicKubeletConfig') && !local.featureGates.enabled('DynamicKubeletConfig')) {
      throw new AgentStartError('the DynamicKubeletConfig feature gate must be enabled in order to use the --dynamic-config-dir flag');
    }
    // The NodeConfigPolicies that govern the node, as the last run saw them: boot asks the server nothing.
    const policyGate = await PolicyGate.load(resolve(flags.dynamicConfigDir), local.config, flags.kubelet, kubelet.schema());
    const evaluate = (payload: CheckpointPayload): LoadOutcome<EffectiveConfigSuccess> => {
      const r = kubelet.effectiveConfig({ ...(file ? { file } : {}), dynamic: { bytes: payload.bytes, dir: payload.dir, name: payload.path }, flags: flags.kubelet });
      if (!r.ok) {
        const reason = r.layer !== 'dynamic' ? InternalError : r.stage === 'decode' ? LoadError : r.stage === 'validation' ? ValidateError : InternalError;
        return { ok: false, reason, detail: r.errors.join('; '), stage: r.stage === 'decode' ? 'parse' : 'validate' };
      }
      const startup = kubelet.validateStartup(r.config, { featureGates: r.featureGates });
      if (startup.errors.length) return { ok: false, reason: ValidateError, detail: startup.errors.join('; '), stage: 'validate' };
      // What decoding left out (unknown fields, kubeletconfig/v1alpha1 fields v1beta1 no longer has) is worth a line.
      for (const w of r.warnings) if (w.layer === 'dynamic' && w.detail) klog.warning(`kubelet config controller: ${payload.path}: ${w.message}`);
      const denied = policyGate.judge(r.config);
      if (denied) return { ok: false, reason: denied.reason, detail: denied.detail, stage: 'policy' };
      return { ok: true, config: r };
    };
    controller = new DynamicConfigController<EffectiveConfigSuccess>({
      dynamicConfigDir: resolve(flags.dynamicConfigDir),
      nodeName,
      trialMs: flags.trialMs,
      crashLoopThreshold: flags.crashLoopThreshold,
      evaluate,
      gauges: configGauges(registry),
      initConfig: file !== undefined,
      policyGate,
    });
    // A checkpoint missing from disk is downloaded again at boot when the API server answers quickly.
    const fetchClient = apiServer?.withOptions({ timeoutMs: BOOT_FETCH_TIMEOUT_MS });
    try {
      const boot = await controller.bootstrap(
        fetchClient ? { fetchConfigMap: async (ref) => configMapPayload(await fetchClient.get<ConfigMapObject>(requestPath(ref))) } : {},
      );
      if (boot.config) chosen = boot.config;
    } catch (err) {
      apiServer?.close();
      throw new AgentStartError((err as Error).message, { cause: err });
    }
  }

  const config = chosen.config;
  if (host.ownsLogging) configureLogging({ format: config.logging?.format === 'json' ? 'json' : 'text' });
  const startup = kubelet.validateStartup(config, { featureGates: chosen.featureGates });
  if (startup.errors.length) {
    apiServer?.close();
    throw new AgentStartError(`invalid configuration: ${startup.errors.join('; ')}`);
  }

  const nodeIP = flags.nodeIP ?? defaultNodeIP(config.address);
  // The running config never changes in place, so its /configz body is rendered once.
  const configz = kubelet.toConfigzJSON(config);
  // Webhook authorization needs the API server; a standalone agent keeps authentication alone.
  const sarClient = apiServer && config.authorization.mode === 'Webhook' ? apiServer.withOptions({ timeoutMs: 10_000 }) : undefined;
  const webhook = sarClient
    ? new WebhookAuthorizer({
        client: sarClient,
        authorizedTTLMs: Number(config.authorization.webhook.cacheAuthorizedTTL.nanoseconds / 1_000_000n),
        unauthorizedTTLMs: Number(config.authorization.webhook.cacheUnauthorizedTTL.nanoseconds / 1_000_000n),
      })
    : undefined;
  let servers: AgentServers;
  try {
    servers = await host.serve({
      config,
      certDir: flags.certDir ?? join(flags.dynamicConfigDir ? resolve(flags.dynamicConfigDir, '..') : process.cwd(), 'pki'),
      nodeName,
      nodeIPs: [nodeIP],
      configz: () => configz,
      healthz: () => controller?.healthz() ?? { ok: true },
      metrics: registry,
      ...(webhook ? { authorize: (user, attrs) => webhook.authorize(user, attrs) } : {}),
      ...(logFile ? { logDir: dirname(logFile.path) } : {}),
    });
  } catch (err) {
    apiServer?.close();
    throw new AgentStartError(`failed to start the kubelet endpoints: ${(err as Error).message}`, { cause: err });
  }
  klog.info(`serving on https://${servers.address}:${servers.ports.https}`, { node: nodeName });
  // The trial is health-gated: the agent probes its own listener and its /healthz checks for as long as it runs, and
  // any failed probe restarts the trial clock. Probes count only once the whole start-up is done (startUpDone).
  const probeHost = servers.address === '0.0.0.0' || servers.address === '::' ? '127.0.0.1' : servers.address;
  const probe = async (): Promise<void> => {
    if (!controller) return;
    try {
      await (servers.probe ? servers.probe() : probeListener(probeHost, servers.ports.https));
    } catch (err) {
      klog.warning(`health probe of ${probeHost}:${servers.ports.https} failed: ${(err as Error).message}`);
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
  };
  const healthTimer = controller ? setInterval(() => void probe(), Math.min(10_000, Math.max(200, flags.trialMs / 8))) : undefined;
  healthTimer?.unref();
  /** Healthy means the whole start-up is done (capacity, registration and status, sync started) and a probe passes. */
  const startUpDone = async (): Promise<void> => {
    if (!controller || stopping) return;
    await probe();
    await controller.startupComplete();
    klog.v(2, `start-up complete, ${Math.round(process.uptime() * 1000)} ms after process start`);
  };

  let resolveDone!: (e: AgentExit) => void;
  const done = new Promise<AgentExit>((r) => (resolveDone = r));
  const abort = new AbortController();
  const cleanups: ShutdownStep[] = [];
  let stopping = false;
  const stopAll = async (why: AgentExit) => {
    if (stopping) return;
    stopping = true;
    abort.abort();
    if (healthTimer) clearInterval(healthTimer);
    controller?.stop();
    await runShutdown(
      [
        { name: 'recording the stop', run: () => controller?.stoppedCleanly() },
        ...cleanups.reverse(),
        { name: 'stopping the listeners', run: () => servers.stop() },
      ],
      SHUTDOWN_STEP_MS,
    ).finally(() => {
      apiServer?.close();
      resolveDone(why);
    });
  };

  if (apiServer) {
    const client = apiServer.withOptions({ rateLimiter: kubeAPIRateLimiter(config) });
    // Events go through their own client, limited by eventRecordQPS/eventBurst rather than kubeAPIQPS, as the
    // kubelet's event client is.
    const eventClient = apiServer.withOptions({ timeoutMs: EVENT_TIMEOUT_MS });
    const recorder = new EventRecorder({ client: eventClient, host: nodeName, ...eventRateLimits(config) });
    cleanups.push({ name: 'flushing events', run: () => recorder.stop() });
    // Node status and the Lease use a heartbeat client that is not throttled, with a timeout of the smaller of the
    // status update frequency and the lease duration, as the kubelet's is: heartbeats must not wait behind other
    // traffic, nor drain the kubeAPIQPS bucket that the config download then waits on.
    const heartbeatClient = apiServer.withOptions({ timeoutMs: heartbeatTimeoutMs(config) });
    const machine = mergeCapacity(await host.machine(), capacityFlag);
    const capacity = computeCapacity(machine, config);
    const allocatable = computeAllocatable(capacity, config);
    const system = await host.systemInfo();
    const configOK = controller;
    const source = statusSource({
      config: { port: servers.ports.https },
      capacity,
      allocatable,
      nodeIP,
      hostname: nodeName,
      system,
      // Without --kubelet-version the node reports what it always has.
      ...(flags.kubeletVersion ? { kubeletVersion: kubelet.gitVersion } : {}),
      ...(configOK ? { extraConditions: (previous: readonly NodeCondition[] | undefined) => configOK.configOKConditions(previous) } : {}),
    });
    const reporter = new NodeStatusReporter({ client: heartbeatClient, nodeName, config, status: source, recorder });
    // ConfigOK is written with the node's other conditions, as soon as it changes rather than at the next tick.
    let reporting = false;
    configOK?.status.onConditionChange(() => {
      // A sync already in flight may have read the condition before this change: the second one sees it.
      if (reporting) void reporter.syncNow().then(() => reporter.syncNow());
    });
    cleanups.push({ name: 'stopping node status', run: () => reporter.stop() });
    // The controller starts at once, alongside registration: on a restart the Node already exists, and publishing
    // status.config early is what makes a config change visible quickly. On a first boot its status write waits for
    // the Node (it retries).
    controller?.startSync({
      client,
      emitEvent: async (message) => {
        await createEventDirectly(eventClient, { involvedObject: nodeReference(nodeName), type: 'Normal', reason: 'KubeletConfigChanged', message, host: nodeName });
      },
      exit: () => stopAll('restart'),
      emitWarning: async (reason, message) => {
        await createEventDirectly(eventClient, { involvedObject: nodeReference(nodeName), type: 'Warning', reason, message, host: nodeName });
      },
      ...(host.policyFeed ? { policyFeed: host.policyFeed() } : {}),
    });
    void (async () => {
      try {
        const node = flags.registerNode
          ? await registerNode(client, {
              nodeName,
              labels: flags.nodeLabels,
              // The config flags, so that whoever compares this node's config with a target sees what it would run.
              annotations: { [CONFIG_FLAGS_ANNOTATION]: configFlagsAnnotation(flags.kubelet) },
              signal: abort.signal,
              status: source(new Date(), undefined),
            })
          : undefined;
        if (stopping) return;
        controller?.status.retryNow();
        reporter.start();
        reporting = true;
        const lease = new LeaseRenewer({ client: heartbeatClient, nodeName, leaseDurationSeconds: config.nodeLeaseDurationSeconds, ...(node?.metadata?.uid ? { nodeUID: node.metadata.uid } : {}) });
        lease.start();
        cleanups.push({ name: 'stopping the Lease', run: () => lease.stop() });
      } catch (err) {
        if (!stopping) klog.error(`node registration failed: ${(err as Error).message}`);
        return;
      }
      await startUpDone();
    })();
  } else {
    klog.warning('no --kubeconfig: running standalone, without the API server');
    await startUpDone();
  }

  return { nodeName, config, servers, done, stop: () => stopAll('stopped') };
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
      const r = await Promise.race([Promise.resolve().then(() => step.run()).then(() => 'done' as const), late]);
      if (r === 'late') klog.warning(`shutdown: ${step.name} did not finish within ${stepMs} ms; going on without it`);
    } catch (err) {
      klog.warning(`shutdown: ${step.name}: ${(err as Error).message}`);
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
    const message = clip((err as Error).message);
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
  klog.info(why === 'restart' ? 'exiting to restart with the new config' : 'stopped');
  process.exit(0);
}
