// A fleet: N simulated nodes in this process against any API server, each the agent's own lifecycle on a fleet host
// (its client certificate, a share of the one kubelet listener, the machine's facts read once). Starts are paced by a
// bound on nodes starting at once, a start lasting until the API server shows the node Ready: registration then runs
// as fast as the server takes it, without thousands of requests queued behind each other until they time out and
// are retried. Each node's own kubeAPIQPS applies on top, as on a real node.

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { dirname, join, resolve } from 'node:path';
import {
  ApiError,
  Informer,
  loadKubeconfig,
  sharedConnectionPool,
  RestClient,
  type ClientConfig,
} from '../client/index.js';
import { NodePodFeeds } from '../agent/pods/nodefeeds.js';
import { MemoryRuntime } from '../agent/pods/runtime.js';
import type { WatchedPod } from '../agent/pods/manager.js';
import type { AgentHost } from '../agent/host.js';
import { informerPolicyFeed, sharedPolicyFeed } from '../agent/dynamicconfig/policywatch.js';
import { sharedDiscovery } from '../agent/dynamicconfig/findchannel.js';
import {
  hostCPUAndMemory,
  KUBELET_VERSION,
  kubeletUserAgent,
  readHostSystemInfo,
  type HostSystemInfo,
} from '../agent/node/index.js';
import type { BackoffOptions } from '../supervisor/backoff.js';
import { defaultLocalConfig } from '../agent/clusterconfig.js';
import { writeFileAtomic } from '../util/atomicfile.js';
import { klog } from '../util/klog.js';
import { forEachBounded } from '../util/bounded.js';
import { fleetMembers, type FleetMember } from './addresses.js';
import { fleetCredentials, type CredentialKind, type CredentialSource } from './credentials.js';
import { FleetError, messages } from './errors.js';
import { SharedListener } from './listener.js';
import { SimulatedNode, type NodeEvent } from './node.js';
import { ProgressTracker, type FleetProgress } from './progress.js';
import { errorMessage } from '../util/errors.js';
import { systemClock, type Clock } from '../util/clock.js';

export interface FleetOptions {
  /** A kubeconfig for the API server (its URL and CA); its user watches the Nodes for progress. */
  kubeconfig: string;
  nodes: number;
  /** Node names are <prefix><n>; default `sim-`. */
  namePrefix?: string;
  /** The first node's number; default 1 (two fleets can split a range). */
  firstIndex?: number;
  /** <dataDir>/<node>/dynamic-config holds each node's checkpoints. */
  dataDir: string;
  labels?: Readonly<Record<string, string>>;
  /** `--capacity` of every node, e.g. cpu=4,memory=8Gi,pods=110. */
  capacity?: string;
  /** Further `dkc agent` flags for every node. */
  agentArgs?: readonly string[];
  /** How the nodes authenticate: node tokens (default; a dkc server) or client certificates (any API server). */
  credentials?: CredentialKind;
  /** The cluster CA that issues node credentials; default <kubeconfig's dir>/pki/ca.crt and ca.key (dkc up's layout). */
  caCert?: string;
  caKey?: string;
  /** The kubelet port every node's address listens on; default 10250, 0 picks a free one. */
  port?: number;
  /** The nodes' local KubeletConfiguration (YAML); default: client certificates from the cluster CA, Webhook authorization. */
  localConfig?: string;
  /** Nodes starting at once (until the API server shows them Ready); default 64. */
  startConcurrency?: number;
  /** Restart pacing, as the supervisor's for `dkc up`'s agents. */
  backoff?: BackoffOptions;
  onEvent?: (e: NodeEvent) => void;
  /** Wall time, for the node credentials and the progress tracker's start; the system clock by default. */
  clock?: Clock;
}

export interface FleetStats {
  /** Event-loop delay since the fleet started (or the last reset), in ms. */
  eventLoopDelayP50Ms: number;
  eventLoopDelayP99Ms: number;
  eventLoopDelayMaxMs: number;
  rssBytes: number;
  heapUsedBytes: number;
  /** (rss − rss before the first node started) / nodes: what one node costs the process. */
  rssPerNodeBytes: number;
}

export interface Fleet {
  readonly nodes: readonly SimulatedNode[];
  readonly dataDir: string;
  /** The shared kubelet port. */
  readonly port: number;
  node(name: string): SimulatedNode;
  /** Resolves once every node has been started once (or failed its first start). */
  readonly started: Promise<void>;
  /** Resolves true once the API server shows every node Ready, false after `timeoutMs`. */
  ready(timeoutMs?: number): Promise<boolean>;
  progress(): FleetProgress;
  stats(resetDelay?: boolean): FleetStats;
  stop(): Promise<void>;
}

function nodeArgv(
  m: FleetMember,
  o: {
    dataDir: string;
    configFile: string;
    port: number;
    labels?: Readonly<Record<string, string>>;
    capacity?: string;
    agentArgs?: readonly string[];
  },
): string[] {
  const dir = join(o.dataDir, m.name);
  const labels = Object.entries(o.labels ?? {}).map(([k, v]) => `${k}=${v}`);
  return [
    `--config=${o.configFile}`,
    `--dynamic-config-dir=${join(dir, 'dynamic-config')}`,
    `--root-dir=${dir}`,
    `--hostname-override=${m.name}`,
    `--node-ip=${m.address}`,
    `--address=${m.address}`,
    `--port=${o.port}`,
    // The fleet serves the HTTPS endpoints only: a healthz port per node would be thousands more listeners.
    '--healthz-port=0',
    '--feature-gates=DynamicKubeletConfig=true',
    ...(labels.length > 0 ? [`--node-labels=${labels.join(',')}`] : []),
    ...(o.capacity !== undefined ? [`--capacity=${o.capacity}`] : []),
    ...(o.agentArgs ?? []),
  ];
}

/**
 * Connections the token-authenticated nodes' requests share (each watch has its own). Enough for the start-up bursts
 * of the nodes starting at once; a request finding them all busy waits for one, as behind an HTTP/2 connection's
 * stream limit.
 */
const REQUEST_CONNECTIONS = 64;

/** The longest a starting node holds its start slot waiting to show Ready (the server may be slow, or down). */
const START_SLOT_MS = 10_000;

function once<T>(f: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= f());
}

/** Fails at once, with what to do, when the API server refuses node tokens (a kube-apiserver does). */
async function checkTokensAccepted(server: ClientConfig, node: string, credentials: CredentialSource): Promise<void> {
  const c = await credentials.credential(node, '');
  if (!('token' in c)) return;
  const probe = new RestClient({ ...server, token: c.token }, { timeoutMs: 30_000 });
  try {
    await probe.get(`/api/v1/nodes/${node}`);
  } catch (err) {
    if (err instanceof ApiError && err.status.code === 401)
      throw new FleetError('DKC_FLEET_TOKENS_REFUSED', messages.tokensRefused(server.server));
    // 404 (not registered yet) or 403: the token was accepted; anything else shows up again as the nodes start.
  } finally {
    probe.close();
  }
}

/** What the process costs while the fleet runs: event-loop delay from start to stop, memory against the baseline. */
class FleetMeter {
  private readonly baselineRss = process.memoryUsage().rss;
  private readonly delay: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });

  constructor() {
    this.delay.enable();
  }

  stats(nodes: number, resetDelay: boolean): FleetStats {
    const ms = (ns: number): number => Math.round(ns / 1e4) / 100;
    const mem = process.memoryUsage();
    const out = {
      eventLoopDelayP50Ms: ms(this.delay.percentile(50)),
      eventLoopDelayP99Ms: ms(this.delay.percentile(99)),
      eventLoopDelayMaxMs: ms(this.delay.max),
      rssBytes: mem.rss,
      heapUsedBytes: mem.heapUsed,
      rssPerNodeBytes: nodes > 0 ? Math.round((mem.rss - this.baselineRss) / nodes) : 0,
    };
    if (resetDelay) this.delay.reset();
    return out;
  }

  stop(): void {
    this.delay.disable();
  }
}

/** How the nodes reach the API server: its address without the kubeconfig's user, their credentials, shared connections. */
interface ServerAccess {
  server: ClientConfig;
  adminConfig: ClientConfig;
  caCert: string;
  caPem: string;
  credentials: CredentialSource;
  pool: ReturnType<typeof sharedConnectionPool> | undefined;
}

async function serverAccess(
  options: FleetOptions,
  dataDir: string,
  members: readonly FleetMember[],
): Promise<ServerAccess> {
  const pkiDir = join(dirname(resolve(options.kubeconfig)), 'pki');
  const caCert = options.caCert ?? join(pkiDir, 'ca.crt');
  const caKey = options.caKey ?? join(pkiDir, 'ca.key');
  // The nodes authenticate with their own certificates only, never with the kubeconfig's credentials.
  const { token: _token, cert: _cert, key: _key, ...server } = await loadKubeconfig(options.kubeconfig);
  const adminConfig: ClientConfig = await loadKubeconfig(options.kubeconfig);
  const kind = options.credentials ?? 'token';
  const credentials = await fleetCredentials(dataDir, caCert, caKey, kind, options.clock ?? systemClock);
  const caPem = await readFile(caCert, 'utf8');
  // Token-authenticated nodes share the fleet's connections; certificates cannot.
  const pool = kind === 'token' ? sharedConnectionPool(server, REQUEST_CONNECTIONS) : undefined;
  if (members.length > 0 && kind === 'token') await checkTokensAccepted(server, members[0]!.name, credentials);
  return { server, adminConfig, caCert, caPem, credentials, pool };
}

/** The nodes' local config file and the one kubelet listener they share (bound on the first node's address). */
async function startServing(
  options: FleetOptions,
  dataDir: string,
  members: readonly FleetMember[],
  access: ServerAccess,
): Promise<{ configFile: string; listener: SharedListener }> {
  const configFile = join(dataDir, 'config.yaml');
  await writeFile(configFile, options.localConfig ?? defaultLocalConfig({ caFile: access.caCert }));
  const { selfSignedServing } = await import('../pki/index.js');
  const serving = await selfSignedServing(['dkc-fleet'], ['127.0.0.1']);
  const servingCert = {
    certPem: serving.certPem,
    keyPem: serving.keyPem,
    certFile: join(dataDir, 'pki', 'serving.crt'),
    keyFile: join(dataDir, 'pki', 'serving.key'),
  };
  await writeFileAtomic(servingCert.keyFile, servingCert.keyPem, 0o600);
  await writeFileAtomic(servingCert.certFile, servingCert.certPem, 0o644);
  const listener = new SharedListener({ port: options.port ?? 10250, servingCert, clientCA: access.caPem });
  if (members.length > 0) await listener.bind(members[0]!.address);
  return { configFile, listener };
}

/** What every node of the fleet shares: its host's facts, the API server's clients, the policy watch, the listener. */
class FleetHost {
  private readonly machine = hostCPUAndMemory();
  private readonly systemInfo = once<HostSystemInfo>(readHostSystemInfo);
  private policyClient: Promise<RestClient> | undefined;
  // The config channel is the API server's, the same for every node: found once, and said in one log line.
  private readonly discoverChannel = sharedDiscovery();
  private readonly policyFeed;
  /** The nodes' Pods: one watch of every Pod, read as the fleet's own user (the nodes may each see only theirs). */
  private podFeeds: { feeds: NodePodFeeds; client: RestClient } | undefined;
  /** Each node's simulated runtime, which outlives the node's agent as containerd outlives the kubelet. */
  private readonly runtimes = new Map<string, MemoryRuntime>();

  constructor(
    private readonly dataDir: string,
    private readonly access: ServerAccess,
    private readonly listener: SharedListener,
    members: readonly FleetMember[],
  ) {
    // The nodes judge configs by the NodeConfigPolicies from one shared watch (read as the first node, which may read
    // them as any node may): thousands of identical watches would cost the server as much as the nodes' own.
    const policyReader = () => (this.policyClient ??= this.nodeClient(members[0]!, kubeletUserAgent(KUBELET_VERSION)));
    this.policyFeed = sharedPolicyFeed(() =>
      informerPolicyFeed(
        {
          list: async (path, o) => (await policyReader()).list(path, o),
          watch: async (path, o) => (await policyReader()).watch(path, o),
        },
        (err) => klog.error(messages.policiesFailed(errorMessage(err))),
      ),
    );
  }

  private async nodeClient(m: FleetMember, userAgent: string): Promise<RestClient> {
    const { server, pool } = this.access;
    const c = await this.access.credentials.credential(m.name, join(this.dataDir, m.name));
    return 'token' in c
      ? new RestClient({ ...server, token: c.token }, pool ? { pool, userAgent } : { userAgent })
      : new RestClient({ ...server, cert: c.certPem, key: c.keyPem }, { userAgent });
  }

  forNode(m: FleetMember): AgentHost {
    return {
      ownsLogging: false,
      connect: (_flags, userAgent) => this.nodeClient(m, userAgent),
      policyFeed: this.policyFeed,
      discoverChannel: this.discoverChannel,
      serve: (o) => this.listener.serve(m.address, o),
      machine: async () => ({ ...this.machine }),
      systemInfo: this.systemInfo,
      runsPods: true,
      sharedPods: (nodeName) => ({ feed: this.feeds().feedFor(nodeName), runtime: this.runtimeOf(nodeName) }),
    };
  }

  private feeds(): NodePodFeeds {
    if (!this.podFeeds) {
      const client = new RestClient(this.access.adminConfig, { userAgent: 'dkc-fleet' });
      this.podFeeds = { feeds: new NodePodFeeds(new Informer<WatchedPod>(client, '/api/v1/pods')), client };
    }
    return this.podFeeds.feeds;
  }

  private runtimeOf(nodeName: string): MemoryRuntime {
    let r = this.runtimes.get(nodeName);
    if (!r) this.runtimes.set(nodeName, (r = new MemoryRuntime()));
    return r;
  }

  /** Closes what the nodes shared, once they have stopped. */
  async close(): Promise<void> {
    void this.policyClient?.then((c) => c.close());
    if (this.podFeeds) {
      await this.podFeeds.feeds.stop();
      this.podFeeds.client.close();
    }
    this.access.pool?.agent.destroy();
    this.access.pool?.watchAgent?.destroy();
    await this.listener.close();
  }
}

/** Starts the nodes, a bounded number at once, each holding its slot until it shows Ready; `stop` ends the starting. */
class NodeStarter {
  private stopping = false;
  readonly started: Promise<void>;

  constructor(nodes: readonly SimulatedNode[], concurrency: number, tracker: ProgressTracker) {
    this.started = forEachBounded(nodes, concurrency, async (n) => {
      if (this.stopping) return;
      await mkdir(n.dir, { recursive: true });
      await n.start();
      if (n.instance > 0) await tracker.whenReady(n.name, START_SLOT_MS);
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.started;
  }
}

export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const dataDir = resolve(options.dataDir);
  const members = fleetMembers(options.namePrefix ?? 'sim-', options.firstIndex ?? 1, options.nodes);
  const meter = new FleetMeter();
  await mkdir(join(dataDir, 'pki'), { recursive: true });
  const access = await serverAccess(options, dataDir, members);
  const { configFile, listener } = await startServing(options, dataDir, members, access);
  const port = listener.boundPort;
  const host = new FleetHost(dataDir, access, listener, members);
  const nodes = members.map(
    (m) =>
      new SimulatedNode({
        name: m.name,
        address: m.address,
        dir: join(dataDir, m.name),
        argv: nodeArgv(m, { ...options, dataDir, configFile, port }),
        host: host.forNode(m),
        ...(options.backoff ? { backoff: options.backoff } : {}),
        ...(options.onEvent ? { onEvent: options.onEvent } : {}),
      }),
  );
  const byName = new Map(nodes.map((n) => [n.name, n]));

  const admin = new RestClient(access.adminConfig, { timeoutMs: 30_000 });
  const tracker = new ProgressTracker(admin, new Set(byName.keys()), (options.clock ?? systemClock).now().getTime());
  tracker.start();
  const starter = new NodeStarter(nodes, options.startConcurrency ?? 64, tracker);

  return {
    nodes,
    dataDir,
    port,
    started: starter.started,
    node(name) {
      const n = byName.get(name);
      if (!n) throw new Error(`no simulated node ${name}`);
      return n;
    },
    ready: (timeoutMs = 120_000) => tracker.allReady(timeoutMs),
    progress: () => tracker.progress(),
    stats: (resetDelay = false) => meter.stats(nodes.length, resetDelay),
    stop: once(async () => {
      await starter.stop();
      await Promise.all(nodes.map((n) => n.stop()));
      await tracker.stop();
      admin.close();
      await host.close();
      meter.stop();
    }),
  };
}
