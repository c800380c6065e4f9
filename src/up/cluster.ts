// A local cluster under dkc's own supervisor: one `dkc server` and N `dkc agent`s as child processes. It issues each
// agent a node client certificate (CN=system:node:<name>, O=system:nodes), writes each node's kubeconfig and local
// config, and passes per-node values (name, IP, ports) as flags so one ConfigMap can serve every node on the host.
// `dkc up` and the integration tests both use it.

import { renameSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultLocalConfig } from '../agent/clusterconfig.js';
import {
  CONTROL_SOCKET,
  Supervisor,
  serveControl,
  type BackoffOptions,
  type ControlServer,
  type ExitEvent,
} from '../supervisor/index.js';
import { writeFileAtomic } from '../util/atomicfile.js';
import { ensurePrivateDir } from '../util/privatefs.js';
import { UpError, messages } from './errors.js';
import { freePort } from '../util/net.js';
import { systemClock } from '../util/clock.js';

export { freePort };

export const dkcBin = resolve(fileURLToPath(import.meta.url), '../../../../bin/dkc');

export interface ClusterOptions {
  dataDir: string;
  nodes: number;
  /** API server port; 0 picks a free one (kept for the cluster's lifetime, so agents' kubeconfigs stay valid). */
  port: number;
  /** Extra flags for every agent (`--agent-arg`). */
  agentArgs?: string[];
  /** Extra flags for the server. */
  serverArgs?: string[];
  /** Node names; default node-1 … node-N. */
  nodeNames?: string[];
  backoff?: BackoffOptions;
  /**
   * Agents only, pointed at this API server URL (e.g. a load balancer in front of server replicas) instead of a
   * server of the cluster's own; `dataDir/pki` must then hold the servers' CA (with its key, to issue node certs).
   */
  externalServerURL?: string;
  /** Simulated nodes beside the real agents: one supervised `dkc fleet` process running them (sim-1 … sim-N). */
  simulatedNodes?: number;
  /** Kubelet versions the agents behave as (`--kubelet-version`), cycled over the nodes; none: the agent's default. */
  kubeletVersions?: readonly string[];
  /** Local KubeletConfiguration YAML for every node; default: a minimal one trusting the cluster CA. */
  localConfig?: (ctx: { caFile: string }) => string;
  /**
   * The modern topology: each agent runs as a plain kubelet (dynamic config off, --config and --config-dir) and a
   * supervised `dkc node-daemon` beside it applies the node's assignment, restarting the agent through the
   * supervisor's control socket (`dkc restart <node>`).
   */
  nodeDaemon?: NodeDaemonOptions;
}

export interface NodeDaemonOptions {
  applyAs: 'dropin' | 'replace';
  /** --kubelet-start-timeout; the daemon's default when absent. */
  startTimeout?: string;
  /** --dynamic-config-trial-duration. */
  trial?: string;
  /** --health-probe-interval. */
  probeInterval?: string;
  /** Extra flags for every daemon. */
  args?: string[];
}

export interface ClusterNodeDaemon {
  /** The supervised child's name. */
  name: string;
  /** The kubelet's process id as its supervisor last started it (0 while it is down): the daemon's MainPID. */
  pidFile: string;
  args: string[];
  logFile: string;
  configDir: string;
  metricsPort: number;
  healthzURL: string;
}

export interface ClusterNode {
  name: string;
  dir: string;
  kubeconfig: string;
  config: string;
  dynamicConfigDir: string;
  logFile: string;
  port: number;
  healthzPort: number;
  args: string[];
  /** The node's daemon, in the node-daemon topology. */
  daemon?: ClusterNodeDaemon;
}

export interface Cluster {
  dataDir: string;
  kubeconfig: string;
  serverURL: string;
  nodes: ClusterNode[];
  supervisor: Supervisor;
  /** The supervisor's control socket (the node-daemon topology's `systemctl restart`). */
  controlSocket?: string;
  /** Stop every child (SIGTERM, then SIGKILL after the grace period). */
  stop(graceMs?: number): Promise<void>;
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}

/** The file's inode, or undefined when it does not exist. */
async function inodeOf(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).ino;
  } catch {
    return undefined;
  }
}

/**
 * Waits for the server to write `path` anew. The server replaces it atomically (a new inode), so an earlier file
 * — another server's, should this one fail — is neither taken for this one's nor removed.
 */
async function waitForNewFile(
  path: string,
  before: number | undefined,
  timeoutMs: number,
  failed: () => string | undefined,
): Promise<void> {
  const deadline = systemClock.monotonicMs() + timeoutMs;
  while (systemClock.monotonicMs() < deadline) {
    const now = await inodeOf(path);
    if (now !== undefined && now !== before) return;
    const why = failed();
    if (why) throw new UpError('DKC_UP_CLUSTER_FAILED', why);
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new UpError('DKC_UP_CLUSTER_FAILED', messages.serverNoKubeconfig(path, timeoutMs));
}

/** For each version, whether its kubelet registers the DynamicKubeletConfig gate. */
async function gateKnown(versions: readonly string[]): Promise<boolean[]> {
  const { kubeletVersion } = await import('../kubeletconfig/index.js');
  return versions.map((v) => kubeletVersion(v).knownFeatures().has('DynamicKubeletConfig'));
}

/** The supervised `dkc fleet` of `dkc up --simulated-nodes`: its state in <dataDir>/fleet, its log in fleet.log. */
function fleetChild(
  dataDir: string,
  kubeconfig: string,
  nodes: number,
  agentArgs: readonly string[],
): Parameters<Supervisor['add']>[0] {
  return {
    name: 'fleet',
    command: process.execPath,
    args: [
      dkcBin,
      'fleet',
      `--kubeconfig=${kubeconfig}`,
      `--nodes=${nodes}`,
      `--data-dir=${join(dataDir, 'fleet')}`,
      ...agentArgs.map((a) => `--agent-arg=${a}`),
    ],
    logFile: join(dataDir, 'fleet.log'),
    restart: 'always',
    watchParent: true,
    // Thousands of nodes checkpoint (write, fsync, rename) at once; libuv's default four threads would queue them.
    env: { UV_THREADPOOL_SIZE: process.env['UV_THREADPOOL_SIZE'] ?? '64' },
  };
}

/** The cluster's own `dkc server`, supervised; resolves once it has written the admin kubeconfig anew. */
async function startServer(
  supervisor: Supervisor,
  dataDir: string,
  port: number,
  kubeconfig: string,
  serverArgs: readonly string[],
): Promise<void> {
  const serverLog = join(dataDir, 'server.log');
  // Only this run's lines explain this run's failure.
  let serverExit: ExitEvent | undefined;
  supervisor.on('exit', (e) => {
    if (e.name === 'server' && e.outcome === 'crash' && !serverExit) serverExit = e;
  });
  const serverFailure = (): string | undefined => {
    if (!serverExit) return undefined;
    return serverExit.reason !== undefined
      ? messages.serverFailed(serverExit.reason, serverLog)
      : messages.serverExited(serverExit.code, serverExit.signal, serverLog);
  };
  supervisor.add({
    name: 'server',
    command: process.execPath,
    args: [dkcBin, 'server', '--data-dir', dataDir, '--port', String(port), ...serverArgs],
    logFile: serverLog,
    restart: 'always',
    watchParent: true,
  });
  const kubeconfigBefore = await inodeOf(kubeconfig);
  supervisor.start();
  try {
    await waitForNewFile(kubeconfig, kubeconfigBefore, 60_000, serverFailure);
  } catch (err) {
    await supervisor.stop();
    throw err;
  }
}

type ClusterPKI = Awaited<ReturnType<(typeof import('../pki/index.js'))['ensureClusterPKI']>>;
type CA = { certPem: string; keyPem: string };

/** The node's client certificate (issued once, kept across runs) and its kubeconfig for the server at `serverURL`. */
async function writeNodeCredentials(
  dir: string,
  name: string,
  serverURL: string,
  pki: ClusterPKI,
  ca: CA,
): Promise<string> {
  const { issueCert, writeKubeconfig } = await import('../pki/index.js');
  await mkdir(join(dir, 'pki'), { recursive: true });
  const certFile = join(dir, 'pki', 'client.crt');
  const keyFile = join(dir, 'pki', 'client.key');
  if (!(await exists(certFile)) || !(await exists(keyFile))) {
    const c = await issueCert(ca, {
      commonName: `system:node:${name}`,
      organizations: ['system:nodes'],
      usages: ['client'],
    });
    await writeFileAtomic(keyFile, c.keyPem, 0o600);
    await writeFileAtomic(certFile, c.certPem, 0o644);
  }
  const nodeKubeconfig = join(dir, 'kubeconfig');
  await writeKubeconfig(nodeKubeconfig, {
    server: serverURL,
    caPem: pki.ca.certPem,
    certPem: await readFile(certFile, 'utf8'),
    keyPem: await readFile(keyFile, 'utf8'),
    user: `system:node:${name}`,
    format: 'json',
  });
  return nodeKubeconfig;
}

/** The agent's command line: per-node values as flags, so one ConfigMap can serve every node on the host. */
function agentArgs(
  node: ClusterNode,
  nd: NodeDaemonOptions | undefined,
  version: string | undefined,
  gated: boolean,
  extra: readonly string[],
): string[] {
  const configDir = join(node.dir, 'kubelet.conf.d');
  return [
    dkcBin,
    'agent',
    `--kubeconfig=${node.kubeconfig}`,
    `--config=${node.config}`,
    // As a modern kubelet: no dynamic config of its own; drop-ins beside --config.
    // The node's own directory is its kubelet's --root-dir (the Pods it runs are kept there).
    `--root-dir=${node.dir}`,
    ...(nd ? [`--config-dir=${configDir}`] : [`--dynamic-config-dir=${node.dynamicConfigDir}`]),
    `--cert-dir=${join(node.dir, 'pki')}`,
    `--hostname-override=${node.name}`,
    '--node-ip=127.0.0.1',
    '--address=127.0.0.1',
    `--port=${node.port}`,
    `--healthz-port=${node.healthzPort}`,
    // In the node-daemon topology healthzBindAddress stays the config's (127.0.0.1 by default), which a config may change.
    ...(nd ? [] : ['--healthz-bind-address=127.0.0.1']),
    ...(version === undefined ? [] : [`--kubelet-version=${version}`]),
    ...(!nd && gated ? ['--feature-gates=DynamicKubeletConfig=true'] : []),
    // The agent appends its log lines itself (and serves them at /logs/); the supervisor adds to the same file
    // only what is not a log line (a crash's stack), so nothing is written twice.
    `--log-file=${node.logFile}`,
    '--logtostderr=false',
    ...extra,
  ];
}

/** The node's `dkc node-daemon`: applies its assignment and restarts the agent through `dkc restart <node>`. */
async function nodeDaemon(
  node: ClusterNode,
  nd: NodeDaemonOptions,
  dataDir: string,
  version: string | undefined,
): Promise<ClusterNodeDaemon> {
  const configDir = join(node.dir, 'kubelet.conf.d');
  await mkdir(configDir, { recursive: true });
  // What the daemon reads of its kubelet on the host, as it would on a real node: the kubelet's command line (in
  // /proc/<pid>/cmdline's form) and what its binary says of its version.
  const flagsFile = join(node.dir, 'kubelet-cmdline');
  await writeFile(flagsFile, [process.execPath, ...node.args].join('\0') + '\0');
  const metricsPort = await freePort();
  const healthzURL = `http://127.0.0.1:${node.healthzPort}/healthz`;
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const pidFile = join(node.dir, 'kubelet.pid');
  return {
    name: `${node.name}-daemon`,
    pidFile,
    logFile: join(node.dir, 'logs', 'node-daemon.log'),
    configDir,
    metricsPort,
    healthzURL,
    args: [
      dkcBin,
      'node-daemon',
      `--kubeconfig=${node.kubeconfig}`,
      `--node-name=${node.name}`,
      `--kubelet-config=${node.config}`,
      `--kubelet-config-dir=${configDir}`,
      `--apply-as=${nd.applyAs}`,
      `--kubelet-restart-command=${[process.execPath, dkcBin, 'restart', node.name, '--data-dir', dataDir].map(quote).join(' ')}`,
      // systemd's MainPID, as the supervisor records it: read with no process of dkc's started per probe.
      `--kubelet-pid-command=cat ${quote(pidFile)}`,
      `--kubelet-healthz-url=${healthzURL}`,
      `--dynamic-config-dir=${node.dynamicConfigDir}`,
      `--metrics-bind-address=127.0.0.1:${metricsPort}`,
      `--kubelet-flags-file=${flagsFile}`,
      ...(version === undefined ? [] : [`--kubelet-version-command=echo Kubernetes v${version}`]),
      ...(nd.startTimeout ? [`--kubelet-start-timeout=${nd.startTimeout}`] : []),
      ...(nd.trial ? [`--dynamic-config-trial-duration=${nd.trial}`] : []),
      ...(nd.probeInterval ? [`--health-probe-interval=${nd.probeInterval}`] : []),
      ...(nd.args ?? []),
    ],
  };
}

interface NodePlan {
  name: string;
  version: string | undefined;
  /** Whether the agent turns the DynamicKubeletConfig gate on. */
  gated: boolean;
}

/** One node: its credentials, local config and ports, its agent (and daemon) added to the supervisor. */
async function addNode(
  supervisor: Supervisor,
  options: ClusterOptions,
  dataDir: string,
  serverURL: string,
  pki: ClusterPKI,
  ca: CA,
  plan: NodePlan,
): Promise<ClusterNode> {
  const { name } = plan;
  const dir = join(dataDir, 'nodes', name);
  const nodeKubeconfig = await writeNodeCredentials(dir, name, serverURL, pki, ca);
  const config = join(dir, 'config.yaml');
  await writeFile(config, (options.localConfig ?? defaultLocalConfig)({ caFile: pki.paths.caCert }));
  const agentPort = await freePort();
  const healthzPort = await freePort();
  const node: ClusterNode = {
    name,
    dir,
    kubeconfig: nodeKubeconfig,
    config,
    dynamicConfigDir: join(dir, 'dynamic-config'),
    // A directory of its own: the agent serves its log file's directory at /logs/, and the node's directory
    // holds its credentials.
    logFile: join(dir, 'logs', 'agent.log'),
    port: agentPort,
    healthzPort,
    args: [],
  };
  const nd = options.nodeDaemon;
  node.args = agentArgs(node, nd, plan.version, plan.gated, options.agentArgs ?? []);
  supervisor.add({
    name,
    command: process.execPath,
    args: node.args,
    logFile: node.logFile,
    restart: 'always',
    watchParent: true,
  });
  if (nd) {
    const daemon = await nodeDaemon(node, nd, dataDir, plan.version);
    node.daemon = daemon;
    recordPid(supervisor, name, daemon.pidFile);
    supervisor.add({
      name: daemon.name,
      command: process.execPath,
      args: daemon.args,
      logFile: daemon.logFile,
      restart: 'always',
      watchParent: true,
    });
  }
  return node;
}

/**
 * Keeps `file` holding the current pid of child `name` (0 while none runs), as systemd keeps a unit's MainPID, so the
 * node daemon sees every restart of its kubelet, the ones it did not ask for included. Written synchronously as the
 * supervisor reports the start (before it answers a restart request), by rename, so a reader sees one whole pid.
 */
function recordPid(supervisor: Supervisor, name: string, file: string): void {
  const write = (pid: number) => {
    try {
      writeFileSync(`${file}.tmp`, `${pid}\n`);
      renameSync(`${file}.tmp`, file);
    } catch {
      // the data directory is going away: nothing reads the file any more
    }
  };
  write(0);
  supervisor.on('start', (ev) => {
    if (ev.name === name) write(ev.pid);
  });
  supervisor.on('exit', (ev) => {
    if (ev.name === name) write(0);
  });
}

/** Each node's name, kubelet version (cycled over the nodes) and whether its agent turns the gate on. */
async function planNodes(options: ClusterOptions): Promise<NodePlan[]> {
  const names = options.nodeNames ?? Array.from({ length: options.nodes }, (_, i) => `node-${i + 1}`);
  const versions = options.kubeletVersions ?? [];
  // Kubelets from 1.26 on no longer register DynamicKubeletConfig: their agents run dkc's dynamic config ungated.
  const gated = versions.length === 0 ? [] : await gateKnown(versions);
  return names.map((name, index) => ({
    name,
    version: versions.length === 0 ? undefined : versions[index % versions.length]!,
    gated: versions.length === 0 || gated[index % versions.length]!,
  }));
}

/** The supervisor's control socket, in the node-daemon topology; stops the supervisor when it cannot serve. */
async function startControl(supervisor: Supervisor, dataDir: string): Promise<ControlServer> {
  try {
    return await serveControl(supervisor, join(dataDir, CONTROL_SOCKET));
  } catch (err) {
    await supervisor.stop();
    throw err;
  }
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const dataDir = resolve(options.dataDir);
  ensurePrivateDir(dataDir);
  const port = options.port || (await freePort());
  const kubeconfig = join(dataDir, 'kubeconfig');
  const supervisor = new Supervisor(options.backoff ? { backoff: options.backoff } : {});
  if (!options.externalServerURL) await startServer(supervisor, dataDir, port, kubeconfig, options.serverArgs ?? []);
  const serverURL = options.externalServerURL ?? `https://127.0.0.1:${port}`;

  const { ensureClusterPKI } = await import('../pki/index.js');
  const pki = await ensureClusterPKI(join(dataDir, 'pki'));
  if (!pki.ca.keyPem) throw new UpError('DKC_UP_CLUSTER_FAILED', messages.noCAKey(join(dataDir, 'pki')));
  const ca = { certPem: pki.ca.certPem, keyPem: pki.ca.keyPem };
  const nodes: ClusterNode[] = [];
  for (const plan of await planNodes(options))
    nodes.push(await addNode(supervisor, options, dataDir, serverURL, pki, ca, plan));
  if ((options.simulatedNodes ?? 0) > 0)
    supervisor.add(fleetChild(dataDir, kubeconfig, options.simulatedNodes!, options.agentArgs ?? []));
  supervisor.start();
  const control = options.nodeDaemon ? await startControl(supervisor, dataDir) : undefined;
  return {
    dataDir,
    kubeconfig,
    serverURL,
    nodes,
    supervisor,
    ...(control ? { controlSocket: control.path } : {}),
    stop: async (graceMs = 10_000) => {
      await supervisor.stop('SIGTERM', graceMs);
      await control?.close();
    },
  };
}
