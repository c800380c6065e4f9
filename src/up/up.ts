// `dkc up`'s front end: start the cluster, wait for the nodes to be Ready, print one status line per node and how
// to use kubectl, then forward Ctrl-C/SIGTERM to everything and exit 0.

import { join, resolve } from 'node:path';
import { RestClient } from '../client/index.js';
import { installSignalForwarding } from '../supervisor/index.js';
import { readySince } from '../api/node.js';
import { startCluster } from './cluster.js';
import { UpError, messages } from './errors.js';
import { lockDataDir } from './lock.js';
import { errorMessage } from '../util/errors.js';
import { systemClock } from '../util/clock.js';

export { UpError };

const NODE_LEASES = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';

export interface LeaseLike {
  metadata?: { name?: string };
  spec?: { renewTime?: string | null };
}

export interface NodeLike {
  metadata?: { name?: string };
  status?: {
    conditions?: { type?: string; status?: string; lastHeartbeatTime?: string | null }[];
    daemonEndpoints?: { kubeletEndpoint?: { Port?: number } };
    config?: Record<string, unknown>;
  };
}

/**
 * Whether the node's agent of this run has reported it Ready. A Ready=True condition left in the store by an earlier
 * run (its agent gone, the node lifecycle controller not yet past its grace period) must not count: the heartbeat
 * must be no older than `sinceMs` — to the second, as metav1.Time is written, so the node's Lease (renewed by its
 * agent, to the microsecond) must also have been renewed since, which a previous run's agent cannot have done.
 */
export function reportedReadySince(node: NodeLike, lease: LeaseLike | undefined, sinceMs: number): boolean {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'True' || !ready.lastHeartbeatTime) return false;
  if (Date.parse(ready.lastHeartbeatTime) < Math.floor(sinceMs / 1000) * 1000) return false;
  const renewed = lease?.spec?.renewTime;
  return typeof renewed === 'string' && Date.parse(renewed) >= sinceMs;
}

function int(flag: string, v: string, min: number, max: number): number {
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max)
    throw new UpError('DKC_UP_INVALID_OPTION', messages.invalidInt(flag, v, min, max));
  return Number(v);
}

export interface UpOptions {
  dataDir: string;
  nodes: string;
  port: string;
  agentArg: string[];
  /** Extra flags for every node daemon (`--node-daemon-arg`). */
  nodeDaemonArg?: string[];
  storage?: string;
  simulatedNodes?: string;
  /** Passed to the server as --emulated-version, checked first. */
  emulatedVersion?: string;
  /** Kubelet versions the agents behave as, cycled over the nodes (`1.30,1.31,1.32`). */
  kubeletVersion?: string;
  /**
   * `dropin` or `replace`: each node is a kubelet (the agent, dynamic config off) managed by `dkc node-daemon` applying
   * assigned configs that way; `off`: the agents' own controller. Default: `dropin` with --emulated-version, else `off`.
   */
  nodeDaemon?: string;
}

/** `1.30,1.31,1.32` → the minors, each checked against the versions the library knows. */
async function kubeletVersions(list: string | undefined): Promise<string[]> {
  if (list === undefined) return [];
  const { parseKubeletVersion } = await import('../kubeletconfig/index.js');
  try {
    return list.split(',').map((v) => parseKubeletVersion(v));
  } catch (err) {
    throw new UpError('DKC_UP_INVALID_OPTION', messages.invalidKubeletVersion(errorMessage(err)), { cause: err });
  }
}

export async function runUp(opts: UpOptions): Promise<void> {
  const nodes = int('--nodes', opts.nodes, 0, 500);
  const simulated = int('--simulated-nodes', opts.simulatedNodes ?? '0', 0, 60_000);
  const port = int('--port', opts.port, 0, 65535);
  const versions = await kubeletVersions(opts.kubeletVersion);
  const started = startClock();
  const storage = opts.storage ?? 'sqlite';
  if (storage !== 'sqlite' && storage !== 'etcd')
    throw new UpError('DKC_UP_INVALID_OPTION', messages.invalidStorage(storage));
  if (opts.emulatedVersion !== undefined) {
    const { parseEmulatedVersion } = await import('../server/emulation/version.js');
    try {
      parseEmulatedVersion(opts.emulatedVersion);
    } catch (err) {
      throw new UpError('DKC_UP_INVALID_OPTION', errorMessage(err), { cause: err });
    }
  }
  const nodeDaemon = opts.nodeDaemon ?? (opts.emulatedVersion !== undefined ? 'dropin' : 'off');
  if (nodeDaemon !== 'dropin' && nodeDaemon !== 'replace' && nodeDaemon !== 'off')
    throw new UpError('DKC_UP_INVALID_OPTION', messages.invalidNodeDaemon(nodeDaemon));
  // A modern cluster's kubelets are as new as its API server, unless told otherwise.
  if (nodeDaemon !== 'off' && versions.length === 0 && opts.emulatedVersion !== undefined)
    versions.push(await kubeletVersions(opts.emulatedVersion).then((v) => v[0]!));
  // Before anything in the data dir is touched: a second dkc up must not disturb a running cluster.
  const lock = lockDataDir(resolve(opts.dataDir));
  process.on('exit', lock.release);
  try {
    await runLocked({ ...opts, versions, nodeDaemon }, nodes, simulated, port, storage, started);
  } finally {
    lock.release();
    process.off('exit', lock.release);
  }
}

type LockedOptions = {
  dataDir: string;
  agentArg: string[];
  nodeDaemonArg?: string[];
  versions: string[];
  emulatedVersion?: string;
  nodeDaemon: 'dropin' | 'replace' | 'off';
};
type LocalEtcd = Awaited<ReturnType<(typeof import('../storage/etcd-member.js'))['startLocalEtcd']>>;
type Cluster = Awaited<ReturnType<typeof startCluster>>;

/** The cluster (and its etcd, with `--storage etcd`); etcd is stopped again when the cluster does not start. */
async function startStack(
  opts: LockedOptions,
  nodes: number,
  simulated: number,
  port: number,
  storage: string,
): Promise<{ cluster: Cluster; etcd: LocalEtcd | undefined }> {
  // etcd is a child of this process too (not supervised): Ctrl-C reaches it through the process group.
  const etcd =
    storage === 'etcd'
      ? await (await import('../storage/etcd-member.js')).startLocalEtcd(join(opts.dataDir, 'etcd'))
      : undefined;
  const serverArgs = [
    ...(etcd ? ['--storage', 'etcd', '--etcd-servers', etcd.endpoints.join(',')] : []),
    ...(opts.emulatedVersion !== undefined ? ['--emulated-version', opts.emulatedVersion] : []),
  ];
  if (etcd) process.stdout.write(`etcd: ${etcd.endpoints.join(',')} (data in ${join(opts.dataDir, 'etcd')})\n`);
  try {
    const cluster = await startCluster({
      dataDir: opts.dataDir,
      nodes,
      port,
      agentArgs: opts.agentArg,
      serverArgs,
      simulatedNodes: simulated,
      kubeletVersions: opts.versions,
      ...(opts.nodeDaemon !== 'off'
        ? { nodeDaemon: { applyAs: opts.nodeDaemon, args: opts.nodeDaemonArg ?? [] } }
        : {}),
    });
    return { cluster, etcd };
  } catch (err) {
    await etcd?.stop();
    throw err;
  }
}

/**
 * When the run started: on the wall clock, to tell this run's reports (API timestamps) from an earlier run's, and on
 * the monotonic clock, for how long it took.
 */
interface Started {
  wallMs: number;
  monotonicMs: number;
}

function startClock(): Started {
  return { wallMs: systemClock.now().getTime(), monotonicMs: systemClock.monotonicMs() };
}

/** Waits (up to 60 s, or until `stopping`) for each agent's node to report Ready this run, printing a line for each. */
async function waitForNodes(
  client: RestClient,
  cluster: Cluster,
  nodes: number,
  started: number,
  stopping: () => boolean,
): Promise<void> {
  const deadline = systemClock.monotonicMs() + 60_000;
  const reported = new Set<string>();
  // Ctrl-C while waiting for the nodes ends the wait too.
  while (reported.size < nodes && systemClock.monotonicMs() < deadline && !stopping()) {
    const list = await client.list<{ items: NodeLike[] }>('/api/v1/nodes').catch(() => ({ items: [] as NodeLike[] }));
    const leases = await client.list<{ items: LeaseLike[] }>(NODE_LEASES).catch(() => ({ items: [] as LeaseLike[] }));
    for (const n of list.items) {
      const name = n.metadata?.name ?? '';
      const ready = reportedReadySince(
        n,
        leases.items.find((l) => l.metadata?.name === name),
        started,
      );
      const node = cluster.nodes.find((x) => x.name === name);
      if (!ready || !node || reported.has(name)) continue;
      reported.add(name);
      process.stdout.write(`${name}: Ready, kubelet endpoint https://127.0.0.1:${node.port}, log ${node.logFile}\n`);
    }
    if (reported.size < nodes) await new Promise((r) => setTimeout(r, 100));
  }
  if (reported.size < nodes && !stopping()) {
    process.stdout.write(
      `warning: ${nodes - reported.size} node(s) not Ready after 60 s; see their agent.log files under ${cluster.dataDir}/nodes\n`,
    );
  }
}

async function runLocked(
  opts: LockedOptions,
  nodes: number,
  simulated: number,
  port: number,
  storage: string,
  started: Started,
): Promise<void> {
  const { cluster, etcd } = await startStack(opts, nodes, simulated, port, storage);
  const forwarding = installSignalForwarding(cluster.supervisor, process);
  let stopping = false;
  void forwarding.stopped.then(() => (stopping = true));
  const client = await RestClient.fromKubeconfig(cluster.kubeconfig);
  try {
    await waitForNodes(client, cluster, nodes, started.wallMs, () => stopping);
    if (simulated > 0 && !stopping)
      await waitForSimulated(client, simulated, started.wallMs, () => stopping, cluster.dataDir);
  } finally {
    client.close();
  }
  if (!stopping) {
    process.stdout.write(
      `dkc cluster is up (${nodes} node${nodes === 1 ? '' : 's'}${simulated > 0 ? ` and ${simulated} simulated` : ''} in ${((systemClock.monotonicMs() - started.monotonicMs) / 1000).toFixed(1)} s). Use it with:\n` +
        `  export KUBECONFIG=${cluster.kubeconfig}\n` +
        `  kubectl get nodes\n` +
        `Press Ctrl-C to stop.\n`,
    );
  }
  await forwarding.stopped;
  await etcd?.stop();
  process.stdout.write('dkc cluster stopped\n');
}

/** Waits for the fleet's sim-1 … sim-N to report Ready (a second per list: there may be thousands), saying how many are. */
async function waitForSimulated(
  client: RestClient,
  total: number,
  started: number,
  stopping: () => boolean,
  dataDir: string,
): Promise<void> {
  const deadline = systemClock.monotonicMs() + 60_000 + total * 20;
  let ready = 0;
  let shown = -1;
  while (!stopping() && systemClock.monotonicMs() < deadline) {
    const list = await client.list<{ items: NodeLike[] }>('/api/v1/nodes').catch(() => ({ items: [] as NodeLike[] }));
    ready = list.items.filter((n) => /^sim-\d+$/.test(n.metadata?.name ?? '') && readySince(n, started)).length;
    if (ready !== shown) process.stdout.write(`simulated nodes: ${ready}/${total} Ready\n`);
    shown = ready;
    if (ready >= total) return;
    await new Promise((r) => setTimeout(r, 1000));
  }
  if (ready < total && !stopping())
    process.stdout.write(`warning: ${total - ready} simulated node(s) not Ready; see ${join(dataDir, 'fleet.log')}\n`);
}
