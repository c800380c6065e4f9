// A fleet: N simulated nodes in this process against any API server, each the agent's own lifecycle on a fleet host
// (its client certificate, a share of the one kubelet listener, the machine's facts read once). Starts are paced by a
// bound on nodes starting at once, a start lasting until the API server shows the node Ready: registration then runs
// as fast as the server takes it, without thousands of requests queued behind each other until they time out and
// are retried. Each node's own kubeAPIQPS applies on top, as on a real node.

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { dirname, join, resolve } from 'node:path';
import { ApiError, loadKubeconfig, sharedConnectionPool, RestClient, type ClientConfig } from '../client/index.js';
import type { AgentHost } from '../agent/host.js';
import { informerPolicyFeed, sharedPolicyFeed } from '../agent/dynamicconfig/policywatch.js';
import { hostCPUAndMemory, readHostSystemInfo, type HostSystemInfo } from '../agent/node/index.js';
import type { BackoffOptions } from '../supervisor/backoff.js';
import { defaultLocalConfig } from '../up/cluster.js';
import { writeFileAtomic } from '../util/atomicfile.js';
import { klog } from '../util/klog.js';
import { forEachBounded } from '../util/bounded.js';
import { fleetMembers, type FleetMember } from './addresses.js';
import { fleetCredentials, type CredentialKind } from './credentials.js';
import { FleetError, messages } from './errors.js';
import { SharedListener } from './listener.js';
import { SimulatedNode, type NodeEvent } from './node.js';
import { ProgressTracker, type FleetProgress } from './progress.js';

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

function nodeArgv(m: FleetMember, o: { dataDir: string; configFile: string; port: number; labels?: Readonly<Record<string, string>>; capacity?: string; agentArgs?: readonly string[] }): string[] {
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
async function checkTokensAccepted(server: ClientConfig, node: string, credentials: Awaited<ReturnType<typeof fleetCredentials>>): Promise<void> {
  const c = await credentials.credential(node, '');
  if (!('token' in c)) return;
  const probe = new RestClient({ ...server, token: c.token }, { timeoutMs: 30_000 });
  try {
    await probe.get(`/api/v1/nodes/${node}`);
  } catch (err) {
    if (err instanceof ApiError && err.status.code === 401) throw new FleetError('fleet-tokens-refused', messages.tokensRefused(server.server));
    // 404 (not registered yet) or 403: the token was accepted; anything else shows up again as the nodes start.
  } finally {
    probe.close();
  }
}

export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const dataDir = resolve(options.dataDir);
  const members = fleetMembers(options.namePrefix ?? 'sim-', options.firstIndex ?? 1, options.nodes);
  const baselineRss = process.memoryUsage().rss;
  const delay: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  await mkdir(join(dataDir, 'pki'), { recursive: true });
  const pkiDir = join(dirname(resolve(options.kubeconfig)), 'pki');
  const caCert = options.caCert ?? join(pkiDir, 'ca.crt');
  const caKey = options.caKey ?? join(pkiDir, 'ca.key');
  // The nodes authenticate with their own certificates only, never with the kubeconfig's credentials.
  const { token: _token, cert: _cert, key: _key, ...server } = await loadKubeconfig(options.kubeconfig);
  const adminConfig: ClientConfig = await loadKubeconfig(options.kubeconfig);
  const kind = options.credentials ?? 'token';
  const credentials = await fleetCredentials(dataDir, caCert, caKey, kind);
  const caPem = await readFile(caCert, 'utf8');
  // Token-authenticated nodes share the fleet's connections; certificates cannot.
  const pool = kind === 'token' ? sharedConnectionPool(server, REQUEST_CONNECTIONS) : undefined;
  if (members.length > 0 && kind === 'token') await checkTokensAccepted(server, members[0]!.name, credentials);

  const configFile = join(dataDir, 'config.yaml');
  await writeFile(configFile, options.localConfig ?? defaultLocalConfig({ caFile: caCert }));
  const { selfSignedServing } = await import('../pki/index.js');
  const serving = await selfSignedServing(['dkc-fleet'], ['127.0.0.1']);
  const servingCert = { certPem: serving.certPem, keyPem: serving.keyPem, certFile: join(dataDir, 'pki', 'serving.crt'), keyFile: join(dataDir, 'pki', 'serving.key') };
  await writeFileAtomic(servingCert.keyFile, servingCert.keyPem, 0o600);
  await writeFileAtomic(servingCert.certFile, servingCert.certPem, 0o644);
  const listener = new SharedListener({ port: options.port ?? 10250, servingCert, clientCA: caPem });
  if (members.length > 0) await listener.bind(members[0]!.address);
  const port = listener.boundPort;

  const machine = hostCPUAndMemory();
  const systemInfo = once<HostSystemInfo>(readHostSystemInfo);
  const nodeClient = async (m: FleetMember): Promise<RestClient> => {
    const c = await credentials.credential(m.name, join(dataDir, m.name));
    return 'token' in c ? new RestClient({ ...server, token: c.token }, pool ? { pool } : {}) : new RestClient({ ...server, cert: c.certPem, key: c.keyPem });
  };
  // The nodes judge configs by the NodeConfigPolicies from one shared watch (read as the first node, which may read
  // them as any node may): thousands of identical watches would cost the server as much as the nodes' own.
  let policyClient: Promise<RestClient> | undefined;
  const policyReader = () => (policyClient ??= nodeClient(members[0]!));
  const policyFeed = sharedPolicyFeed(() =>
    informerPolicyFeed(
      { list: async (path, o) => (await policyReader()).list(path, o), watch: async (path, o) => (await policyReader()).watch(path, o) },
      (err) => klog.error(messages.policiesFailed((err as Error).message)),
    ),
  );
  const nodes = members.map((m) => {
    const dir = join(dataDir, m.name);
    const host: AgentHost = {
      ownsLogging: false,
      connect: () => nodeClient(m),
      policyFeed,
      serve: (o) => listener.serve(m.address, o),
      machine: async () => ({ ...machine }),
      systemInfo,
    };
    return new SimulatedNode({
      name: m.name,
      address: m.address,
      dir,
      argv: nodeArgv(m, { ...options, dataDir, configFile, port }),
      host,
      ...(options.backoff ? { backoff: options.backoff } : {}),
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    });
  });
  const byName = new Map(nodes.map((n) => [n.name, n]));

  const admin = new RestClient(adminConfig, { timeoutMs: 30_000 });
  const tracker = new ProgressTracker(admin, new Set(byName.keys()), Date.now());
  tracker.start();
  let stopping = false;
  const started = forEachBounded(nodes, options.startConcurrency ?? 64, async (n) => {
    if (stopping) return;
    await mkdir(n.dir, { recursive: true });
    await n.start();
    if (n.instance > 0) await tracker.whenReady(n.name, START_SLOT_MS);
  });

  return {
    nodes,
    dataDir,
    port,
    started,
    node(name) {
      const n = byName.get(name);
      if (!n) throw new Error(`no simulated node ${name}`);
      return n;
    },
    ready: (timeoutMs = 120_000) => tracker.allReady(timeoutMs),
    progress: () => tracker.progress(),
    stats(resetDelay = false) {
      const ms = (ns: number): number => Math.round(ns / 1e4) / 100;
      const mem = process.memoryUsage();
      const out = {
        eventLoopDelayP50Ms: ms(delay.percentile(50)),
        eventLoopDelayP99Ms: ms(delay.percentile(99)),
        eventLoopDelayMaxMs: ms(delay.max),
        rssBytes: mem.rss,
        heapUsedBytes: mem.heapUsed,
        rssPerNodeBytes: nodes.length > 0 ? Math.round((mem.rss - baselineRss) / nodes.length) : 0,
      };
      if (resetDelay) delay.reset();
      return out;
    },
    stop: once(async () => {
      stopping = true;
      await started;
      await Promise.all(nodes.map((n) => n.stop()));
      await tracker.stop();
      admin.close();
      void policyClient?.then((c) => c.close());
      pool?.agent.destroy();
      pool?.watchAgent?.destroy();
      await listener.close();
      delay.disable();
    }),
  };
}
