// Scale benchmark (not a test): a `dkc server` (its controllers inside, as `dkc up` runs it) and a fleet of N simulated
// nodes (src/fleet: the agent's own code, in forked processes of up to --nodes-per-process nodes each, node tokens as
// `dkc fleet`'s default) in one run, for each N asked for:
//   registration   fleet start → the API server shows N nodes Ready (nodes/s), with each side's CPU meanwhile;
//   steady state   server CPU (% of one core, /proc/<pid>/stat) and RSS with N nodes heartbeating at the default
//                  cadence; the fleet's RSS per node (median of 10 readings over the window) and event-loop delay;
//   rollout        one NodeConfigRollout over all N with maxUnavailable 10 %: wall time to Succeeded, CPU of the
//                  server, the fleet and this process (its watches of every Node and of the rollout), per-node
//                  propagation (the controller records the node InFlight → its status.config.active is the new
//                  config) p50/p99, API request latency p99 by verb from the server's apiserver_request_duration_seconds
//                  (between scrapes before and after the rollout), and a chart of nodes succeeded over time with server
//                  CPU on a second axis (bench/out/scale-<N>.svg and .png);
//   node size      after the rollout, a Node's bytes in the store (the server's SQLite file) and what its managedFields
//                  add to it, against the same Node stored without them (median over nodes).
// Prints a summary table and writes the figures to bench/out/scale.json (after each N, before its chart). The fleet
// processes' logs go to bench/out/scale-<N>-fleet-<i>.log.
//   pods           with --pods-per-node K > 0, after registration K Pods per node, each naming its node (as a
//                  DaemonSet's do; the scheduler is bench:pods'), created by 16 clients: time until every one is
//                  Running; the steady state is then measured with them, and the fleet's RSS per Pod is the difference
//                  from the run of the same N without Pods (list 0 first: --pods-per-node 0,30).
// Usage: npm run bench:scale [-- --nodes 1000,5000] [--pods-per-node 0,30] [--steady-seconds 30]
//        [--nodes-per-process 5000] [--no-png]

import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Node } from '../src/api/types.js';
import type { Pod } from '../src/api/workloads.js';
import { Informer, RestClient } from '../src/client/index.js';
import { ROLLOUTS_PATH, newRollout, type NodeConfigRollout } from '../src/api/dkc/rollout.js';
import { startCluster } from '../src/up/cluster.js';
import { builtinKeyPrefix } from '../src/server/crd/keys.js';
import Database from 'better-sqlite3';
import { writeChart, type RolloutSeries } from './chart.js';
import { forkFleet } from './fleet-procs.js';
import { pct } from './common.js';
import { parseBuckets, quantilesBetween } from './promhist.js';

const arg = (flag: string, fallback: string): string => {
  const i = process.argv.indexOf(flag);
  return i > 0 ? process.argv[i + 1]! : fallback;
};
const SIZES = arg('--nodes', '1000,5000').split(',').map(Number);
const PODS_PER_NODE = arg('--pods-per-node', '0').split(',').map(Number);
const POD_CLIENTS = 16;
const STEADY_MS = Number(arg('--steady-seconds', '30')) * 1000;
const PER_PROCESS = Number(arg('--nodes-per-process', '5000'));
const PNG = !process.argv.includes('--no-png');
const OUT = new URL('../../bench/out/', import.meta.url).pathname;
const CPU_SAMPLE_MS = 500;
const RSS_SAMPLES = 10;
const CLOCK_TICKS = 100; // USER_HZ on Linux
const DURATIONS = 'apiserver_request_duration_seconds';

interface NodeSize {
  bytes: number;
  managedFieldsPercent: number;
  byManager: Record<string, number>;
}

interface Figures {
  nodes: number;
  /** Pods per node (0: none), created after registration, before the steady state. */
  pods: { perNode: number; createdPerSecond: number; allRunningSeconds: number; serverCpuPercent: number };
  /** With the CPU each side used meanwhile (% of one core): what bounds the rate. */
  registration: {
    seconds: number;
    nodesPerSecond: number;
    ready: boolean;
    serverCpuPercent: number;
    fleetCpuPercent: number;
  };
  steady: {
    serverCpuPercent: number;
    serverRssMB: number;
    fleetCpuPercent: number;
    fleetRssPerNodeKB: number;
    fleetEventLoopP99Ms: number;
    seconds: number;
  };
  fleetProcesses: number;
  rollout: {
    phase: string;
    wallSeconds: number;
    succeeded: number;
    propagationP50Ms: number;
    propagationP99Ms: number;
    serverCpuPercent: number;
    fleetCpuPercent: number;
    /** This process: its watches of every Node and of the rollout, which the figures are taken from. */
    benchCpuPercent: number;
    fleetEventLoopP99Ms: number;
    /** verb → requests and p99 in ms, from the server's histogram; empty when the server exposes none. */
    apiP99MsByVerb: Record<string, { requests: number; p99Ms: number }>;
    /** The most frequent requests (`VERB resource[ subresource]`): their count and p99 in ms. */
    apiTopRequests: Record<string, { requests: number; p99Ms: number }>;
  };
  /**
   * After the rollout: a Node's stored bytes, the share managedFields add to it, and their bytes by manager and
   * operation (`manager/Operation[/subresource]`) (medians over the nodes).
   */
  nodeSize: NodeSize;
  /** What the chart shows, to redraw it. */
  chart?: RolloutSeries;
}

/**
 * CPU seconds (user + system) the process has used. Read synchronously, so the figure and the time it is paired with
 * are taken together even when this process's event loop is busy with the fleet (an asynchronous read can resolve
 * long after the kernel produced it, and two can finish out of order).
 */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / CLOCK_TICKS;
}

async function rssMB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** Samples processes' CPU (summed) every CPU_SAMPLE_MS: [ms since `origin`, % of one core over the sample]. */
function cpuSampler(pids: readonly number[]): {
  series: [number, number][];
  between(from: number, to: number): number;
  stop(): void;
  origin: number;
} {
  const series: [number, number][] = [];
  const origin = performance.now();
  const total = (): number => pids.reduce((a, pid) => a + cpuSeconds(pid), 0);
  let last = { at: origin, cpu: total() };
  const timer = setInterval(() => {
    try {
      const cpu = total();
      const at = performance.now();
      series.push([at - origin, (100 * (cpu - last.cpu)) / ((at - last.at) / 1000)]);
      last = { at, cpu };
    } catch {
      // the server has exited: the run is ending
    }
  }, CPU_SAMPLE_MS);
  return {
    series,
    origin,
    /** Mean CPU % over the samples that ended within [from, to] (performance.now() times). */
    between(from, to) {
      const inside = series.filter(([t]) => t + origin >= from && t + origin <= to).map(([, c]) => c);
      return inside.length ? inside.reduce((a, b) => a + b, 0) / inside.length : NaN;
    },
    stop: () => clearInterval(timer),
  };
}

async function scrape(client: RestClient): Promise<string> {
  try {
    const r = await client.request<string>({ method: 'GET', path: '/metrics', accept: 'text/plain' });
    return typeof r.body === 'string' ? r.body : '';
  } catch {
    return ''; // a server without /metrics: no per-verb figures
  }
}

async function waitUntil(
  cond: () => boolean,
  timeoutMs: number,
  onChange: (wake: () => void) => void,
): Promise<boolean> {
  if (cond()) return true;
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(cond()), timeoutMs);
    onChange(() => {
      if (cond()) {
        clearTimeout(timer);
        resolve(true);
      }
    });
  });
}

/** Progress on stderr, so a run of several minutes says where it is. */
const progress = (n: number, what: string): void => void process.stderr.write(`N=${n}: ${what}\n`);

/** How many of the most frequent requests during the rollout scale.json lists. */
const TOP_REQUESTS = 10;

/** `perNode` Pods on each of the `n` sim nodes, created by POD_CLIENTS clients; resolves when every one is Running. */
async function startPods(client: RestClient, kubeconfig: string, n: number, perNode: number) {
  const total = n * perNode;
  const running = new Set<string>();
  let wake: () => void = () => undefined;
  const pods = new Informer<Pod & { metadata: { [k: string]: unknown } }>(client, '/api/v1/namespaces/default/pods');
  const seen = (p: Pod): void => {
    if (p.status?.phase === 'Running') running.add(p.metadata.name ?? '');
    wake();
  };
  pods.on('add', seen);
  pods.on('update', (_o, p) => seen(p));
  pods.start();
  await pods.whenSynced();
  const clients = await Promise.all(Array.from({ length: POD_CLIENTS }, () => RestClient.fromKubeconfig(kubeconfig)));
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    clients.map(async (c) => {
      for (let i = next++; i < total; i = next++) {
        await c.create('/api/v1/namespaces/default/pods', {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: `p-${i}` },
          spec: { nodeName: `sim-${(i % n) + 1}`, containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.9' }] },
        });
      }
    }),
  ).finally(() => clients.forEach((c) => c.close()));
  const created = performance.now();
  progress(n, `${total} Pods created in ${((created - t0) / 1000).toFixed(1)} s; waiting for them to run`);
  await waitUntil(
    () => running.size >= total,
    900_000,
    (w) => (wake = w),
  ).finally(() => pods.stop());
  return { t0, createdPerSecond: total / ((created - t0) / 1000), allRunningSeconds: (performance.now() - t0) / 1000 };
}

async function runOne(n: number, podsPerNode: number): Promise<Figures> {
  progress(n, 'starting the server');
  const work = await mkdtemp(join(tmpdir(), `dkc-bench-scale-${n}-`));
  const cluster = await startCluster({ dataDir: join(work, 'up'), nodes: 0, port: 0 });
  const serverPid = cluster.supervisor.pidOf('server');
  if (!serverPid) throw new Error('dkc server is not running');
  const cpu = cpuSampler([serverPid]);
  let result: Figures | undefined;
  const client = await RestClient.fromKubeconfig(cluster.kubeconfig, { timeoutMs: 60_000 });
  const processes = Math.max(1, Math.ceil(n / PER_PROCESS));
  progress(n, `server pid ${serverPid}; starting ${n} simulated nodes in ${processes} process(es)`);
  const fleetStart = performance.now();
  const fleet = await forkFleet(
    { kubeconfig: cluster.kubeconfig, nodes: n, dataDir: join(work, 'fleet'), port: 0 },
    processes,
    join(OUT, `scale-${n}-fleet`),
    900_000,
  );
  const fleetCpu = cpuSampler(fleet.pids);
  const benchCpu = cpuSampler([process.pid]);
  progress(n, `fleet pid(s) ${fleet.pids.join(', ')}`);
  try {
    // Registration.
    const ready = await fleet.ready;
    const regSeconds = (performance.now() - fleetStart) / 1000;
    await fleet.stats(true);
    progress(n, `${ready ? 'all' : 'not all'} Ready after ${regSeconds.toFixed(1)} s`);
    let podFigures: Figures['pods'] = { perNode: 0, createdPerSecond: 0, allRunningSeconds: 0, serverCpuPercent: 0 };
    if (podsPerNode > 0) {
      const p = await startPods(client, cluster.kubeconfig, n, podsPerNode);
      const cpuPods = cpu.between(p.t0, p.t0 + p.allRunningSeconds * 1000);
      podFigures = { perNode: podsPerNode, ...p, serverCpuPercent: cpuPods };
      progress(n, `every Pod Running after ${p.allRunningSeconds.toFixed(1)} s`);
    }
    progress(n, `steady state for ${STEADY_MS / 1000} s`);

    // Steady state: every node heartbeating (status and Lease) at the default cadence.
    // The fleet's RSS is sampled through the window and its median taken: one reading depends on where the garbage
    // collector happens to be (at 1,000 nodes single readings differed by 90 KB per node from run to run).
    const steadyFrom = performance.now();
    const rssSamples: number[] = [];
    for (let i = 0; i < RSS_SAMPLES; i++) {
      await new Promise((r) => setTimeout(r, STEADY_MS / RSS_SAMPLES));
      rssSamples.push((await fleet.stats(false)).rssPerNodeBytes);
    }
    const steadyTo = performance.now();
    const fleetSteady = { ...(await fleet.stats(true)), rssPerNodeBytes: pct(rssSamples, 50) };
    const steady = {
      seconds: (steadyTo - steadyFrom) / 1000,
      serverCpuPercent: cpu.between(steadyFrom, steadyTo),
      serverRssMB: await rssMB(serverPid),
      fleetCpuPercent: fleetCpu.between(steadyFrom, steadyTo),
      fleetRssPerNodeKB: fleetSteady.rssPerNodeBytes / 1024,
      fleetEventLoopP99Ms: fleetSteady.eventLoopDelayP99Ms,
    };

    // The rollout.
    const local = await readFile(join(fleet.dataDir, 'config.yaml'), 'utf8');
    await client.create('/api/v1/namespaces/kube-system/configmaps', {
      metadata: { name: 'scale-target', namespace: 'kube-system' },
      data: { kubelet: `${local.trimEnd()}\neventRecordQPS: 42\n` },
    });
    const inFlightAt = new Map<string, number>();
    const activeAt = new Map<string, number>();
    const succeededAt = new Map<string, number>();
    let phase = '';
    let wake: () => void = () => undefined;
    const nodes = new Informer<Node & { metadata: { [k: string]: unknown } }>(client, '/api/v1/nodes');
    const onNode = (node: Node): void => {
      if (node.status?.config?.active?.configMap?.name === 'scale-target' && !activeAt.has(node.metadata.name!))
        activeAt.set(node.metadata.name!, performance.now());
    };
    nodes.on('add', onNode);
    nodes.on('update', (_o, node) => onNode(node));
    const rollouts = new Informer<NodeConfigRollout & { metadata: { [k: string]: unknown } }>(client, ROLLOUTS_PATH);
    const onRollout = (r: NodeConfigRollout): void => {
      const now = performance.now();
      for (const [name, p] of Object.entries(r.status?.nodes ?? {})) {
        if (p.state === 'InFlight' && !inFlightAt.has(name)) inFlightAt.set(name, now);
        if (p.state === 'Succeeded' && !succeededAt.has(name)) succeededAt.set(name, now);
      }
      phase = r.status?.phase ?? '';
      wake();
    };
    rollouts.on('add', onRollout);
    rollouts.on('update', (_o, r) => onRollout(r));
    nodes.start();
    rollouts.start();
    await Promise.all([nodes.whenSynced(), rollouts.whenSynced()]);
    const metricsBefore = await scrape(client);
    const t0 = performance.now();
    progress(n, 'rollout started');
    await client.create(
      ROLLOUTS_PATH,
      newRollout('scale', {
        configSource: { configMap: { namespace: 'kube-system', name: 'scale-target', kubeletConfigKey: 'kubelet' } },
        nodeSelector: {},
        strategy: { maxUnavailable: '10%' },
      }),
    );
    const ticker = setInterval(
      () =>
        progress(
          n,
          `rollout ${phase || 'Pending'}: ${succeededAt.size}/${n} succeeded after ${((performance.now() - t0) / 1000).toFixed(0)} s`,
        ),
      10_000,
    );
    await waitUntil(
      () => ['Succeeded', 'Halted', 'Reverted'].includes(phase),
      900_000,
      (w) => (wake = w),
    ).finally(() => clearInterval(ticker));
    const wall = performance.now() - t0;
    progress(n, `rollout ${phase} after ${(wall / 1000).toFixed(1)} s`);
    const metricsAfter = await scrape(client);
    const fleetRollout = await fleet.stats(true);
    await Promise.all([nodes.stop(), rollouts.stop()]);

    const propagation = [...inFlightAt.keys()]
      .filter((k) => activeAt.has(k))
      .map((k) => Math.max(0, activeAt.get(k)! - inFlightAt.get(k)!));
    // Long-running requests (WATCH, CONNECT) last as long as the client keeps them; kube's latency SLO leaves them out too.
    const byVerb = quantilesBetween(
      parseBuckets(metricsBefore, DURATIONS, 'verb'),
      parseBuckets(metricsAfter, DURATIONS, 'verb'),
      0.99,
    );
    for (const longRunning of ['WATCH', 'WATCHLIST', 'CONNECT']) byVerb.delete(longRunning);
    const byRequest = quantilesBetween(
      parseBuckets(metricsBefore, DURATIONS, ['verb', 'resource', 'subresource']),
      parseBuckets(metricsAfter, DURATIONS, ['verb', 'resource', 'subresource']),
      0.99,
    );
    const topRequests = [...byRequest]
      .filter(([key]) => !/^(WATCH|WATCHLIST|CONNECT) /.test(key))
      .sort((a, b) => b[1].count - a[1].count)
      .slice(0, TOP_REQUESTS);
    const successes = [...succeededAt.values()].sort((a, b) => a - b);
    const figures: Figures = {
      nodes: n,
      pods: podFigures,
      registration: {
        seconds: regSeconds,
        nodesPerSecond: n / regSeconds,
        ready,
        serverCpuPercent: cpu.between(fleetStart, fleetStart + regSeconds * 1000),
        fleetCpuPercent: fleetCpu.between(fleetStart, fleetStart + regSeconds * 1000),
      },
      steady,
      fleetProcesses: processes,
      nodeSize: { bytes: 0, managedFieldsPercent: 0, byManager: {} },
      rollout: {
        phase,
        wallSeconds: wall / 1000,
        succeeded: succeededAt.size,
        propagationP50Ms: pct(propagation, 50),
        propagationP99Ms: pct(propagation, 99),
        serverCpuPercent: cpu.between(t0, t0 + wall),
        fleetCpuPercent: fleetCpu.between(t0, t0 + wall),
        benchCpuPercent: benchCpu.between(t0, t0 + wall),
        fleetEventLoopP99Ms: fleetRollout.eventLoopDelayP99Ms,
        apiP99MsByVerb: Object.fromEntries(
          [...byVerb].map(([verb, v]) => [verb, { requests: v.count, p99Ms: v.quantile * 1000 }]),
        ),
        apiTopRequests: Object.fromEntries(
          topRequests.map(([key, v]) => [key.trim(), { requests: v.count, p99Ms: v.quantile * 1000 }]),
        ),
      },
    };
    const sec = (t: number): number => Math.round((t - t0) / 10) / 100;
    figures.chart = {
      title: `NodeConfigRollout over ${n} simulated nodes, maxUnavailable 10 %`,
      nodes: n,
      succeeded: [[0, 0], ...successes.map((t, i): [number, number] => [sec(t), i + 1])],
      serverCpu: cpu.series
        .filter(([t]) => t + cpu.origin >= t0 && t + cpu.origin <= t0 + wall + 2_000)
        .map(([t, c]): [number, number] => [sec(t + cpu.origin), Math.round(c)]),
    };
    result = figures;
  } finally {
    cpu.stop();
    fleetCpu.stop();
    benchCpu.stop();
    client.close();
    await fleet.stop();
    await cluster.stop(10_000);
    // The Nodes as the store holds them, read once the server has let go of its database.
    if (result) result.nodeSize = storedNodeSize(join(work, 'up', 'dkc.db'));
    await rm(work, { recursive: true, force: true });
  }
  return result;
}

/**
 * Each Node's bytes in the store (the SQLite file the server wrote), against the same object stored without its
 * managedFields, and each stored entry's bytes by manager: the medians.
 */
function storedNodeSize(dbPath: string): NodeSize {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  const prefix = builtinKeyPrefix('', 'nodes');
  const rows = db
    .prepare<[string, string], { value: Buffer }>('SELECT value FROM kv WHERE key >= ? AND key < ?')
    .all(prefix, `${prefix}\uffff`);
  db.close();
  const entries = new Map<string, number[]>();
  const sizes = rows.map(({ value }) => {
    const stored = JSON.parse(value.toString('utf8')) as { metadata: Record<string, unknown> };
    const { managedFields, ...bare } = stored.metadata;
    for (const e of (managedFields ?? []) as unknown[]) {
      const key = storedEntryKey(e);
      entries.set(key, [...(entries.get(key) ?? []), Buffer.byteLength(JSON.stringify(e))]);
    }
    const without = Buffer.byteLength(JSON.stringify({ ...stored, metadata: bare }));
    return { full: value.length, added: ((value.length - without) / without) * 100 };
  });
  return {
    bytes: pct(
      sizes.map((s) => s.full),
      50,
    ),
    managedFieldsPercent: pct(
      sizes.map((s) => s.added),
      50,
    ),
    byManager: Object.fromEntries([...entries].map(([k, v]) => [k, pct(v, 50)])),
  };
}

/** manager/operation[/subresource] of a stored entry, in either of its stored forms (ADR 32). */
function storedEntryKey(e: unknown): string {
  const parts = Array.isArray(e)
    ? [e[0], e[1], e[5]]
    : [
        (e as Record<string, unknown>)['manager'],
        (e as Record<string, unknown>)['operation'],
        (e as Record<string, unknown>)['subresource'],
      ];
  return parts.filter((x) => x !== undefined && x !== '').join('/');
}

async function writeChartOrSay(series: Parameters<typeof writeChart>[0], base: string): Promise<string> {
  if (!PNG) {
    const { renderSvg, rolloutChartSpec } = await import('./chart.js');
    await writeFile(`${base}.svg`, await renderSvg(rolloutChartSpec(series)));
    return `chart ${base}.svg`;
  }
  const out = await writeChart(series, base);
  return `chart ${out.svg}, ${out.png}`;
}

/** The fleet's RSS per Pod: against the run of the same N without Pods, when there was one. */
function rssPerPodKB(f: Figures, all: readonly Figures[]): number {
  const base = all.find((b) => b.nodes === f.nodes && b.pods.perNode === 0);
  return base && f.pods.perNode > 0
    ? (f.steady.fleetRssPerNodeKB - base.steady.fleetRssPerNodeKB) / f.pods.perNode
    : NaN;
}

function table(all: Figures[]): string {
  const f0 = (x: number): string => (Number.isFinite(x) ? x.toFixed(0) : 'n/a');
  const f1 = (x: number): string => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');
  const podRows: [string, (f: Figures) => string][] = [
    ['pods: per node', (f) => f0(f.pods.perNode)],
    ['pods: created/s', (f) => (f.pods.perNode ? f0(f.pods.createdPerSecond) : '-')],
    ['pods: all Running, s', (f) => (f.pods.perNode ? f1(f.pods.allRunningSeconds) : '-')],
    ['pods: server CPU meanwhile, %', (f) => (f.pods.perNode ? f0(f.pods.serverCpuPercent) : '-')],
    ['steady: fleet RSS per Pod, KB', (f) => f1(rssPerPodKB(f, all))],
  ];
  const verbs = [...new Set(all.flatMap((f) => Object.keys(f.rollout.apiP99MsByVerb)))].sort();
  const rows: [string, (f: Figures) => string][] = [
    ['registration: N Ready, s', (f) => `${f1(f.registration.seconds)}${f.registration.ready ? '' : ' (not all)'}`],
    ['registration: nodes/s (goal ≥ 500)', (f) => f0(f.registration.nodesPerSecond)],
    [
      'registration: server / fleet CPU, %',
      (f) => `${f0(f.registration.serverCpuPercent)} / ${f0(f.registration.fleetCpuPercent)}`,
    ],
    ['steady: server CPU, % of one core', (f) => f0(f.steady.serverCpuPercent)],
    ['steady: server RSS, MB', (f) => f0(f.steady.serverRssMB)],
    ['steady: fleet CPU, % of one core', (f) => f0(f.steady.fleetCpuPercent)],
    ['steady: fleet RSS per node, KB (≤ 256)', (f) => f0(f.steady.fleetRssPerNodeKB)],
    ['steady: fleet event-loop p99, ms (≤ 50)', (f) => f1(f.steady.fleetEventLoopP99Ms)],
    ...podRows,
    ['rollout: phase', (f) => `${f.rollout.phase} ${f.rollout.succeeded}/${f.nodes}`],
    ['rollout: wall, s (goal ≤ 60 at 5,000)', (f) => f1(f.rollout.wallSeconds)],
    [
      'rollout: propagation p50 / p99, ms',
      (f) => `${f0(f.rollout.propagationP50Ms)} / ${f0(f.rollout.propagationP99Ms)}`,
    ],
    ['rollout: server CPU, % of one core', (f) => f0(f.rollout.serverCpuPercent)],
    ['rollout: fleet CPU, % of one core', (f) => f0(f.rollout.fleetCpuPercent)],
    ['rollout: bench (its watches) CPU, %', (f) => f0(f.rollout.benchCpuPercent)],
    ['rollout: fleet event-loop p99, ms', (f) => f1(f.rollout.fleetEventLoopP99Ms)],
    ['node: stored bytes (median)', (f) => f0(f.nodeSize.bytes)],
    ['node: managedFields add, % (goal ≤ 30)', (f) => f0(f.nodeSize.managedFieldsPercent)],
    ...[...new Set(all.flatMap((f) => Object.keys(f.nodeSize.byManager ?? {})))].map(
      (m): [string, (f: Figures) => string] => [
        `node: managedFields bytes, ${m}`,
        (f) => (f.nodeSize.byManager?.[m] !== undefined ? f0(f.nodeSize.byManager[m]) : '-'),
      ],
    ),
    ...verbs.map((v): [string, (f: Figures) => string] => [
      `rollout: API ${v} p99, ms (n)`,
      (f) => {
        const x = f.rollout.apiP99MsByVerb[v];
        return x ? `${f0(x.p99Ms)} (${x.requests})` : '-';
      },
    ]),
  ];
  if (verbs.length === 0) rows.push(['rollout: API p99 by verb', () => 'n/a (no /metrics)']);
  const w0 = Math.max(...rows.map(([k]) => k.length));
  const head = `${''.padEnd(w0)}  ${all.map((f) => `N=${f.nodes}, ${f.pods.perNode} Pods/node`.padStart(22)).join('')}`;
  return [head, ...rows.map(([k, get]) => `${k.padEnd(w0)}  ${all.map((f) => get(f).padStart(22)).join('')}`)].join(
    '\n',
  );
}

async function main(): Promise<void> {
  await mkdir(OUT, { recursive: true });
  const all: Figures[] = [];
  for (const n of SIZES)
    for (const pods of PODS_PER_NODE) {
      const figures = await runOne(n, pods);
      all.push(figures);
      await writeFile(
        join(OUT, 'scale.json'),
        JSON.stringify(
          { machine: { cpus: (await import('node:os')).cpus().length, node: process.version }, runs: all },
          null,
          2,
        ),
      );
      const base = pods ? `scale-${n}-pods-${pods}` : `scale-${n}`;
      console.log(`N=${n}: ${await writeChartOrSay(figures.chart!, join(OUT, base))}`);
    }
  console.log(table(all));
  console.log(`figures: ${join(OUT, 'scale.json')}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
