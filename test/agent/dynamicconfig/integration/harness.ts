// Shared plumbing for the dynamic config integration tests: a real `dkc server` and real `dkc agent` processes
// under dkc's supervisor (startCluster), an admin client, and the observations the tests assert on —
// status.config (the Node's, or the NodeConfig's on that channel), the kubelet_node_config_* series of /metrics and
// /configz (both through the API server's node proxy), the newest KubeletConfigChanged event, and the supervisor's
// record of the agent's processes.
// Every wait is bounded polling of observable state; a failed wait says what it last saw and shows the tail of
// the node's agent.log, because the agent's log is where the controller explains itself.

import { appendFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { loadKubeconfig, RestClient } from '../../../../src/client/index.js';
import { dkcBin, startCluster, type Cluster, type ClusterNode } from '../../../../src/up/cluster.js';
import { Supervisor, type BackoffOptions, type ExitEvent, type StartEvent } from '../../../../src/supervisor/index.js';
import { startFleet, type Fleet, type NodeEvent } from '../../../../src/fleet/index.js';
import { configureLogging } from '../../../../src/util/klog.js';
import type { ConfigChannel } from '../../../../src/client/channel.js';
import { NODE_CONFIGS_PATH } from '../../../../src/api/dkc/nodeconfig.js';
import { waitFor } from '../../../helpers/wait.js';

export const KEY = 'kubelet';
export const NS = 'default';

export const LoadError = 'failed to load config, see Kubelet log for details';
export const ValidateError = 'failed to validate config, see Kubelet log for details';
export const CrashLoopError = 'failed to start with assigned config, see Kubelet log for details';
export const SyncDownloadError = 'failed to sync: failed to download config, see Kubelet log for details';

export interface Source {
  configMap: { namespace: string; name: string; uid: string; resourceVersion: string; kubeletConfigKey: string };
}

/** Node.status.config with absent and empty fields normalised away. */
export interface ConfigStatus {
  assigned?: Source;
  active?: Source;
  lastKnownGood?: Source;
  error?: string;
}

export interface ConfigMapObject {
  metadata: { name: string; namespace: string; uid: string; resourceVersion: string; labels?: Record<string, string> };
  data?: Record<string, string>;
}

interface EventObject {
  metadata: { name: string; creationTimestamp?: string };
  message?: string;
  reason?: string;
  lastTimestamp?: string;
  involvedObject?: { kind?: string; name?: string };
}

export interface MetricSeries {
  labels: Record<string, string>;
  value: number;
}

function normaliseSource(s: unknown): Source | undefined {
  if (!s || typeof s !== 'object') return undefined;
  const cm = (s as { configMap?: Record<string, unknown> }).configMap;
  if (!cm) return undefined;
  const str = (k: string) => (typeof cm[k] === 'string' ? cm[k] : '');
  return {
    configMap: {
      namespace: str('namespace'),
      name: str('name'),
      uid: str('uid'),
      resourceVersion: str('resourceVersion'),
      kubeletConfigKey: str('kubeletConfigKey'),
    },
  };
}

export function normaliseStatus(config: unknown): ConfigStatus {
  const c = (config ?? {}) as Record<string, unknown>;
  const out: ConfigStatus = {};
  const assigned = normaliseSource(c['assigned']);
  const active = normaliseSource(c['active']);
  const lkg = normaliseSource(c['lastKnownGood']);
  if (assigned) out.assigned = assigned;
  if (active) out.active = active;
  if (lkg) out.lastKnownGood = lkg;
  if (typeof c['error'] === 'string' && c['error']) out.error = c['error'];
  return out;
}

/** The source that names `cm` (as downloaded: uid and resourceVersion filled in). */
export function sourceOf(cm: ConfigMapObject, key = KEY): Source {
  return {
    configMap: {
      namespace: cm.metadata.namespace,
      name: cm.metadata.name,
      uid: cm.metadata.uid,
      resourceVersion: cm.metadata.resourceVersion,
      kubeletConfigKey: key,
    },
  };
}

export function apiPathOf(s: Source): string {
  return `/api/v1/namespaces/${s.configMap.namespace}/configmaps/${s.configMap.name}`;
}

/** The KubeletConfigChanged message upstream's restartForNewConfig writes. */
export function restartMessage(s: Source | undefined): string {
  if (!s) return 'Kubelet restarting to use local config';
  const c = s.configMap;
  return `Kubelet restarting to use ${apiPathOf(s)}, UID: ${c.uid}, ResourceVersion: ${c.resourceVersion}, KubeletConfigKey: ${c.kubeletConfigKey}`;
}

/**
 * The one series each labelled gauge must have for `s`: upstream's configLabels, whose old series
 * SetAssignedConfig, SetActiveConfig and SetLastKnownGoodConfig delete (pkg/kubelet/metrics/metrics.go).
 */
export function metricLabelsOf(s: Source | undefined): Record<string, string> {
  if (!s)
    return {
      node_config_source: 'local',
      node_config_uid: '',
      node_config_resource_version: '',
      node_config_kubelet_key: '',
    };
  return {
    node_config_source: apiPathOf(s),
    node_config_uid: s.configMap.uid,
    node_config_resource_version: s.configMap.resourceVersion,
    node_config_kubelet_key: s.configMap.kubeletConfigKey,
  };
}

export function expectedMetrics(status: ConfigStatus): Record<string, MetricSeries[]> {
  return {
    kubelet_node_config_assigned: [{ labels: metricLabelsOf(status.assigned), value: 1 }],
    kubelet_node_config_active: [{ labels: metricLabelsOf(status.active), value: 1 }],
    kubelet_node_config_last_known_good: [{ labels: metricLabelsOf(status.lastKnownGood), value: 1 }],
    kubelet_node_config_error: [{ labels: {}, value: status.error ? 1 : 0 }],
  };
}

function unescapeLabel(v: string): string {
  return v.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
}

/** The kubelet_node_config_* series of a Prometheus text exposition, by metric name. */
export function parseConfigMetrics(text: string): Record<string, MetricSeries[]> {
  const out: Record<string, MetricSeries[]> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith('kubelet_node_config_')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]!] = unescapeLabel(l[2]!);
    (out[m[1]!] ??= []).push({ labels, value: Number(m[3]) });
  }
  return out;
}

/** A KubeletConfiguration payload: the node's local config (which carries what the cluster needs) plus `extra` lines. */
export async function payloadFor(node: ClusterNode, ...extra: string[]): Promise<string> {
  const local = await readFile(node.config, 'utf8');
  return `${local.replace(/\n*$/, '\n')}${extra.map((l) => `${l}\n`).join('')}`;
}

export interface Harness {
  cluster: Cluster;
  admin: RestClient;
  /** Every supervisor start and exit event, in order. */
  starts: StartEvent[];
  exits: ExitEvent[];
  node(name: string): ClusterNode;
  logTail(node: ClusterNode, lines?: number): Promise<string>;
  createConfigMap(name: string, data: Record<string, string>, namespace?: string): Promise<ConfigMapObject>;
  updateConfigMap(
    cm: ConfigMapObject,
    change: { data?: Record<string, string>; labels?: Record<string, string> },
  ): Promise<ConfigMapObject>;
  deleteConfigMap(name: string, namespace?: string): Promise<void>;
  /** Merge-patches spec.configSource; undefined resets the node to its local config. */
  assign(node: ClusterNode, ref: { name: string; namespace?: string; key?: string } | undefined): Promise<void>;
  configStatus(node: ClusterNode): Promise<ConfigStatus>;
  waitForStatus(node: ClusterNode, expected: ConfigStatus, timeoutMs?: number): Promise<void>;
  configz(node: ClusterNode): Promise<Record<string, unknown>>;
  waitForConfigz(
    node: ClusterNode,
    check: (kc: Record<string, unknown>) => boolean,
    what: string,
  ): Promise<Record<string, unknown>>;
  metrics(node: ClusterNode): Promise<Record<string, MetricSeries[]>>;
  waitForMetrics(node: ClusterNode, status: ConfigStatus): Promise<void>;
  newestConfigChangedEvent(node: ClusterNode): Promise<EventObject | undefined>;
  waitForNewestEvent(node: ClusterNode, message: string): Promise<void>;
  /**
   * The whole observable state for one row of the state table: status.config, exactly one series per gauge
   * agreeing with it, and /configz carrying `maxPods`.
   */
  expectState(node: ClusterNode, expected: ConfigStatus, maxPods: number): Promise<void>;
  pid(node: ClusterNode): number | undefined;
  /**
   * Stops the cluster's supervisor and from then on runs the server and the agents under separate supervisors,
   * so that a test can take the control plane away while agents keep running (and restarting).
   */
  detach(): Promise<Detached>;
  /** GET /configz from the agent's own HTTPS port, not through the API server. */
  directConfigz(node: ClusterNode): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

export interface Detached {
  agents: Supervisor;
  startServer(): Promise<void>;
  stopServer(): Promise<void>;
  startAgent(node: ClusterNode): void;
}

export interface HarnessOptions {
  /**
   * Where the agents run: one process each under dkc's supervisor (`process`, the default), or as simulated nodes of
   * a fleet in this test's process (`fleet`), restarted in-process; the harness observes both the same way.
   */
  host?: 'process' | 'fleet' | undefined;
  /**
   * Where assignments and status.config live: the Node (`node`, the default, on dkc server's default 1.22 behaviour)
   * or the node's NodeConfig (`nodeconfig`, on `dkc server --emulated-version 1.31`, which drops the Node's fields).
   * The agents find the channel themselves; the harness assigns and reads through the same one.
   */
  channel?: ConfigChannel;
  nodes?: number;
  agentArgs?: string[];
  serverArgs?: string[];
  backoff?: BackoffOptions;
}

/** The API server flags that make `channel` the cluster's. */
const CHANNEL_SERVER_ARGS: Readonly<Record<ConfigChannel, readonly string[]>> = {
  node: [],
  nodeconfig: ['--emulated-version', '1.31'],
};

/** The local config's maxPods (the KubeletConfiguration default): payloads use other values to tell configs apart. */
export const LOCAL_MAX_PODS = 110;

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dataDir = await mkdtemp(join(tmpdir(), 'dkc-dynconfig-it-'));
  const channel = options.channel ?? 'node';
  const serverArgs = [...CHANNEL_SERVER_ARGS[channel], ...(options.serverArgs ?? [])];
  /** The object that carries `node`'s assignment and status.config on the harness's channel. */
  const assignmentPath = (node: ClusterNode): string =>
    channel === 'node' ? `/api/v1/nodes/${node.name}` : `${NODE_CONFIGS_PATH}/${node.name}`;
  let cluster: Cluster;
  try {
    cluster = await startCluster({
      dataDir,
      nodes: options.host === 'fleet' ? 0 : (options.nodes ?? 1),
      port: 0,
      agentArgs: options.agentArgs ?? [],
      ...(serverArgs.length > 0 ? { serverArgs } : {}),
      ...(options.backoff ? { backoff: options.backoff } : {}),
    });
  } catch (err) {
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  const starts: StartEvent[] = [];
  const exits: ExitEvent[] = [];
  const record = (sup: Supervisor) => {
    sup.on('start', (e) => starts.push(e));
    sup.on('exit', (e) => exits.push(e));
  };
  record(cluster.supervisor);
  let fleet: Fleet | undefined;
  let nodes: ClusterNode[] = cluster.nodes;
  if (options.host === 'fleet') {
    try {
      ({ fleet, nodes } = await startHarnessFleet(cluster, options, starts, exits));
    } catch (err) {
      await cluster.stop(5_000);
      await rm(dataDir, { recursive: true, force: true });
      throw err;
    }
  }
  let agents: Supervisor = cluster.supervisor;
  const extra: Supervisor[] = [];
  // The admin client must not hang a test on a request to a stopped server: bounded per request.
  const admin = new RestClient(await loadKubeconfig(cluster.kubeconfig), { timeoutMs: 5_000 });

  const logTail = async (node: ClusterNode, lines = 40): Promise<string> => {
    try {
      const text = await readFile(node.logFile, 'utf8');
      return text
        .split('\n')
        .slice(-lines - 1)
        .join('\n');
    } catch (err) {
      return `(no log: ${(err as Error).message})`;
    }
  };
  const context = async (node: ClusterNode, saw: string): Promise<string> => {
    const sup = cluster.supervisor.status().find((s) => s.name === node.name);
    return `${saw}\nsupervisor: ${JSON.stringify(sup)}\n--- ${node.logFile} (tail) ---\n${await logTail(node)}`;
  };

  const configStatus = async (node: ClusterNode): Promise<ConfigStatus> => {
    const n = await admin.get<{ status?: { config?: unknown } }>(assignmentPath(node));
    return normaliseStatus(n.status?.config);
  };
  const configz = async (node: ClusterNode): Promise<Record<string, unknown>> => {
    const body = await admin.get<unknown>(`/api/v1/nodes/${node.name}/proxy/configz`);
    const parsed = (typeof body === 'string' ? JSON.parse(body) : body) as { kubeletconfig?: Record<string, unknown> };
    if (!parsed.kubeletconfig)
      throw new Error(`/configz has no kubeletconfig: ${JSON.stringify(parsed).slice(0, 200)}`);
    return parsed.kubeletconfig;
  };
  const metrics = async (node: ClusterNode): Promise<Record<string, MetricSeries[]>> => {
    const res = await admin.request<string>({
      method: 'GET',
      path: `/api/v1/nodes/${node.name}/proxy/metrics`,
      accept: 'text/plain',
    });
    return parseConfigMetrics(typeof res.body === 'string' ? res.body : String(res.body));
  };
  const newestConfigChangedEvent = async (node: ClusterNode): Promise<EventObject | undefined> => {
    const list = await admin.list<{ items: EventObject[] }>(`/api/v1/namespaces/default/events`, {
      fieldSelector: `involvedObject.name=${node.name},reason=KubeletConfigChanged`,
    });
    const items = [...list.items].sort((a, b) => {
      const ta = a.lastTimestamp ?? '';
      const tb = b.lastTimestamp ?? '';
      return ta === tb ? a.metadata.name.localeCompare(b.metadata.name) : ta.localeCompare(tb);
    });
    return items.at(-1);
  };

  const h: Harness = {
    cluster,
    admin,
    starts,
    exits,
    node(name) {
      const n = nodes.find((x) => x.name === name);
      if (!n) throw new Error(`no node ${name}`);
      return n;
    },
    logTail,
    async createConfigMap(name, data, namespace = NS) {
      return admin.create<ConfigMapObject>(`/api/v1/namespaces/${namespace}/configmaps`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace },
        data,
      });
    },
    async updateConfigMap(cm, change) {
      const patch: Record<string, unknown> = {};
      if (change.data) patch['data'] = change.data;
      if (change.labels) patch['metadata'] = { labels: change.labels };
      return admin.patch<ConfigMapObject>(
        `/api/v1/namespaces/${cm.metadata.namespace}/configmaps/${cm.metadata.name}`,
        'merge',
        patch,
      );
    },
    async deleteConfigMap(name, namespace = NS) {
      await admin.delete(`/api/v1/namespaces/${namespace}/configmaps/${name}`);
    },
    async assign(node, ref) {
      const configSource = ref
        ? { configMap: { namespace: ref.namespace ?? NS, name: ref.name, kubeletConfigKey: ref.key ?? KEY } }
        : null;
      await admin.patch(assignmentPath(node), 'merge', { spec: { configSource } });
    },
    configStatus,
    async waitForStatus(node, expected, timeoutMs = 20_000) {
      let last: ConfigStatus | string = '(never read)';
      await waitFor(
        () =>
          context(
            node,
            `status.config of ${node.name}\n  expected: ${JSON.stringify(expected)}\n  last seen: ${JSON.stringify(last)}`,
          ),
        async () => {
          try {
            last = await configStatus(node);
          } catch (err) {
            last = `(error: ${(err as Error).message})`;
            return undefined;
          }
          return isDeepStrictEqual(last, expected) ? true : undefined;
        },
        { timeoutMs },
      );
    },
    configz,
    async waitForConfigz(node, check, what) {
      let last: unknown = '(never read)';
      return waitFor(
        () =>
          context(node, `/configz of ${node.name}: expected ${what}; last seen: ${JSON.stringify(last).slice(0, 400)}`),
        async () => {
          const kc = await configz(node);
          last = kc;
          return check(kc) ? kc : undefined;
        },
      );
    },
    metrics,
    async waitForMetrics(node, status) {
      const want = expectedMetrics(status);
      let last: unknown = '(never read)';
      await waitFor(
        () =>
          context(
            node,
            `kubelet_node_config_* of ${node.name}\n  expected: ${JSON.stringify(want)}\n  last seen: ${JSON.stringify(last)}`,
          ),
        async () => {
          const got = await metrics(node);
          last = got;
          return isDeepStrictEqual(got, want) ? true : undefined;
        },
      );
    },
    newestConfigChangedEvent,
    async waitForNewestEvent(node, message) {
      let last: string | undefined;
      await waitFor(
        () =>
          context(
            node,
            `newest KubeletConfigChanged event of ${node.name}\n  expected: ${message}\n  last seen: ${last}`,
          ),
        async () => {
          const e = await newestConfigChangedEvent(node);
          last = e?.message;
          return e?.message === message ? true : undefined;
        },
      );
    },
    async expectState(node, expected, maxPods) {
      await h.waitForStatus(node, expected);
      await h.waitForMetrics(node, expected);
      await h.waitForConfigz(node, (kc) => kc['maxPods'] === maxPods, `maxPods ${maxPods}`);
    },
    pid(node) {
      if (fleet) {
        const n = fleet.node(node.name);
        return n.agent ? n.instance : undefined;
      }
      try {
        return agents.pidOf(node.name);
      } catch {
        return undefined;
      }
    },
    async detach() {
      if (fleet) throw new Error('a fleet host has no processes to detach');
      await cluster.stop(5_000);
      agents = new Supervisor(options.backoff ? { backoff: options.backoff } : {});
      record(agents);
      extra.push(agents);
      let server: Supervisor | undefined;
      const port = new URL(cluster.serverURL).port;
      return {
        agents,
        async startServer() {
          if (server) throw new Error('the server is already running');
          await rm(cluster.kubeconfig, { force: true });
          server = new Supervisor();
          extra.push(server);
          server.add({
            name: 'server',
            command: process.execPath,
            args: [dkcBin, 'server', '--data-dir', cluster.dataDir, '--port', port, ...serverArgs],
            logFile: join(cluster.dataDir, 'server.log'),
            restart: 'always',
          });
          server.start();
          // The server writes its kubeconfig once it serves.
          await waitFor(
            () => `the server did not come back; see ${join(cluster.dataDir, 'server.log')}`,
            async () => ((await stat(cluster.kubeconfig).catch(() => undefined)) ? true : undefined),
            { timeoutMs: 30_000 },
          );
        },
        async stopServer() {
          await server?.stop('SIGTERM', 5_000);
          server = undefined;
        },
        startAgent(node) {
          agents.add({
            name: node.name,
            command: process.execPath,
            args: node.args,
            logFile: node.logFile,
            restart: 'always',
          });
          agents.start();
        },
      };
    },
    async directConfigz(node) {
      const cfg = await loadKubeconfig(cluster.kubeconfig).catch(() => admin.config);
      // The agent serves a self-signed certificate; what matters here is what it serves, not who it is.
      const address = fleet ? fleet.node(node.name).address : '127.0.0.1';
      const direct = new RestClient(
        { ...cfg, server: `https://${address}:${node.port}`, insecureSkipTLSVerify: true },
        { timeoutMs: 5_000 },
      );
      try {
        const body = await direct.get<unknown>('/configz');
        const parsed = (typeof body === 'string' ? JSON.parse(body) : body) as {
          kubeletconfig?: Record<string, unknown>;
        };
        if (!parsed.kubeletconfig)
          throw new Error(`/configz has no kubeletconfig: ${JSON.stringify(parsed).slice(0, 200)}`);
        return parsed.kubeletconfig;
      } finally {
        direct.close();
      }
    },
    async stop() {
      admin.close();
      try {
        await fleet?.stop();
        if (fleet) configureLogging({ sink: (line) => void process.stderr.write(line) });
        for (const sup of extra.reverse()) await sup.stop('SIGTERM', 5_000);
        await cluster.stop(5_000);
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  };
  try {
    // Ready = registered, status.config published (non-nil, as upstream's first sync always writes), /configz served.
    for (const node of nodes) {
      await waitFor(
        () => context(node, `${node.name} did not register and publish status.config`),
        async () => {
          const n = await admin.get<{ status?: { config?: unknown } }>(assignmentPath(node));
          if (n.status?.config === undefined || n.status.config === null) return undefined;
          await configz(node);
          return true;
        },
        { timeoutMs: 30_000 },
      );
    }
  } catch (err) {
    await h.stop();
    throw err;
  }
  return h;
}

/**
 * The fleet host: the harness's nodes as simulated nodes of one fleet in this process (named node-1 …, as the process
 * host names its agents), their log lines in <dataDir>/fleet.log, and their instance starts and failed starts recorded
 * as the supervisor records processes (an instance number for a pid, a failed start as an exit 1).
 */
async function startHarnessFleet(
  cluster: Cluster,
  options: HarnessOptions,
  starts: StartEvent[],
  exits: ExitEvent[],
): Promise<{ fleet: Fleet; nodes: ClusterNode[] }> {
  const logFile = join(cluster.dataDir, 'fleet.log');
  configureLogging({ sink: (line) => appendFileSync(logFile, line) });
  let crashes = 0;
  const onEvent = (e: NodeEvent): void => {
    if (e.type === 'start') starts.push({ name: e.node, pid: e.instance, restarts: e.instance - 1 });
    const exit = {
      name: e.node,
      pid: null,
      signal: null,
      uptimeMs: 0,
      restarts: 0,
      consecutiveCrashes: 0,
      crashLooping: false,
      nextDelayMs: null,
    };
    if (e.type === 'failed') exits.push({ ...exit, code: 1, outcome: 'crash', crashes: ++crashes });
    if (e.type === 'exit' && e.why === 'restart') exits.push({ ...exit, code: 0, outcome: 'clean', crashes });
  };
  const fleetDir = join(cluster.dataDir, 'fleet');
  const fleet = await startFleet({
    kubeconfig: cluster.kubeconfig,
    nodes: options.nodes ?? 1,
    namePrefix: 'node-',
    dataDir: fleetDir,
    port: 0,
    agentArgs: options.agentArgs ?? [],
    ...(options.backoff ? { backoff: options.backoff } : {}),
    onEvent,
  });
  const nodes = fleet.nodes.map((n) => ({
    name: n.name,
    dir: n.dir,
    kubeconfig: cluster.kubeconfig,
    config: join(fleetDir, 'config.yaml'),
    dynamicConfigDir: join(n.dir, 'dynamic-config'),
    logFile,
    port: fleet.port,
    healthzPort: 0,
    args: [],
  }));
  return { fleet, nodes };
}

/** Waits until `node`'s agent is running in a process other than `oldPid` (it exited and was restarted). */
export async function waitForNewProcess(
  h: Harness,
  node: ClusterNode,
  oldPid: number | undefined,
  timeoutMs = 20_000,
): Promise<number> {
  return waitFor(
    async () => `${node.name} still runs in pid ${oldPid}\n${await h.logTail(node)}`,
    async () => {
      const pid = h.pid(node);
      return pid !== undefined && pid !== oldPid ? pid : undefined;
    },
    { timeoutMs },
  );
}
