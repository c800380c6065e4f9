// Config propagation benchmark (not a test): one real agent process under dkc's supervisor, 50 config changes.
// For each, the time from the PATCH of spec.configSource being acknowledged to status.config.active showing the new
// ConfigMap's uid/resourceVersion, split into phases from the agent's log (klog timestamps, same clock):
//   detect (PATCH ack → sync starts) → checkpoint (→ payload and meta/assigned written) → exit (→ event sent, process
//   gone) → process start (→ node running our code) → serving (→ listeners up) → status published (→ visible in the API).
// Also: agent restart-to-serving vs a bare `node -e 0` start measured in the same run (ratio), and the agent's RSS.
// Usage: node dist/bench/propagation.js [--changes N]

import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RestClient } from '../src/client/index.js';
import { startCluster } from '../src/up/cluster.js';
import { pct } from './common.js';

const changesArg = process.argv.indexOf('--changes');
const CHANGES = changesArg > 0 ? Number(process.argv[changesArg + 1]) : 50;
/** Extra agent flags after `--`, e.g. `-- --kube-api-qps=50`. */
const extraAgentArgs = process.argv.includes('--') ? process.argv.slice(process.argv.indexOf('--') + 1) : [];

/** klog `I1121 22:39:40.743000   29935 file.ts:1] msg` → epoch ms (local time, current year). */
function klogTime(line: string): number | undefined {
  const m = /^[IWE](\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2})\.(\d{6})/.exec(line);
  if (!m) return undefined;
  const now = new Date();
  return new Date(
    now.getFullYear(),
    Number(m[1]) - 1,
    Number(m[2]),
    Number(m[3]),
    Number(m[4]),
    Number(m[5]),
    Number(m[6]) / 1000,
  ).getTime();
}

function bareNodeStartMs(runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    times.push(performance.now() - t0);
  }
  return pct(times, 50);
}

interface Phases {
  total: number;
  detect: number;
  checkpoint: number;
  exit: number;
  processStart: number;
  serving: number;
  status: number;
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'dkc-bench-prop-'));
  // Fifty changes in a row are far more clean exits than the supervisor allows by default before spacing them out.
  const cluster = await startCluster({
    dataDir: work,
    nodes: 1,
    port: 0,
    agentArgs: ['--v=2', ...extraAgentArgs],
    backoff: { cleanExitBurst: 1_000 },
  });
  const starts: { pid: number; at: number }[] = [];
  const exits: { pid: number; at: number }[] = [];
  cluster.supervisor.on('start', (e: { name: string; pid: number }) => {
    if (e.name === 'node-1') starts.push({ pid: e.pid, at: Date.now() });
  });
  // The restart is counted from the old process's exit (the supervisor's exit event), as a bare `node -e 0` is.
  cluster.supervisor.on('exit', (e: { name: string; pid: number | null }) => {
    if (e.name === 'node-1') exits.push({ pid: e.pid ?? 0, at: Date.now() });
  });
  const client = await RestClient.fromKubeconfig(cluster.kubeconfig, { timeoutMs: 0 });
  const node = cluster.nodes[0]!;
  const results: Phases[] = [];
  const restartToServing: number[] = [];
  try {
    for (let i = 0; i < 200; i++) {
      const n = await client
        .get<{ status?: { conditions?: { type: string; status: string }[] } }>('/api/v1/nodes/node-1')
        .catch(() => undefined);
      if (n?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const local = await readFile(node.config, 'utf8');
    for (let i = 0; i < CHANGES; i++) {
      const name = `prop-${i}`;
      const cm = await client.create<{ metadata: { uid: string; resourceVersion: string } }>(
        '/api/v1/namespaces/kube-system/configmaps',
        {
          metadata: { name },
          data: { kubelet: `${local}eventRecordQPS: ${i + 1}\n` },
        },
      );
      const listed = await client.list<{ metadata: { resourceVersion: string } }>('/api/v1/nodes', {
        fieldSelector: 'metadata.name=node-1',
      });
      const watch = await client.watch<{
        status?: { config?: { active?: { configMap?: { uid?: string; resourceVersion?: string } } } };
      }>('/api/v1/nodes', {
        fieldSelector: 'metadata.name=node-1',
        resourceVersion: listed.metadata.resourceVersion,
      });
      const startsBefore = starts.length;
      const exitsBefore = exits.length;
      await client.patch('/api/v1/nodes/node-1', 'merge', {
        spec: { configSource: { configMap: { name, namespace: 'kube-system', kubeletConfigKey: 'kubelet' } } },
      });
      const t0 = Date.now();
      let tStatus = 0;
      const timeout = setTimeout(() => watch.close(), 20_000);
      for await (const ev of watch) {
        const a = ev.type === 'MODIFIED' ? ev.object.status?.config?.active?.configMap : undefined;
        if (a?.uid === cm.metadata.uid && a.resourceVersion === cm.metadata.resourceVersion) {
          tStatus = Date.now();
          break;
        }
      }
      clearTimeout(timeout);
      watch.close();
      if (!tStatus) throw new Error(`change ${i} did not become active within 20 s`);
      const log = (await readFile(node.logFile, 'utf8')).split('\n');
      const after = (needle: string, from: number) => {
        for (const line of log) {
          const t = klogTime(line);
          if (t !== undefined && t >= from - 1 && line.includes(needle)) return t;
        }
        return NaN;
      };
      const tSync = after('syncing config source', t0);
      const tCheckpoint = after('checkpointed and assigned', tSync);
      after('exiting to restart with the new config', tCheckpoint);
      const started = starts.slice(startsBefore)[0];
      const tSpawn = started?.at ?? NaN;
      const tRunning = after('dkc agent starting', tSpawn);
      const tServing = after('serving on https://', tRunning);
      restartToServing.push(tServing - (exits.slice(exitsBefore)[0]?.at ?? NaN));
      results.push({
        total: tStatus - t0,
        detect: tSync - t0,
        checkpoint: tCheckpoint - tSync,
        exit: tSpawn - tCheckpoint,
        processStart: tRunning - tSpawn,
        serving: tServing - tRunning,
        status: tStatus - tServing,
      });
    }
    const bare = bareNodeStartMs(10);
    const pid = cluster.supervisor.pidOf('node-1');
    const rss = pid
      ? Number((await readFile(`/proc/${pid}/status`, 'utf8')).match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) / 1024
      : NaN;
    const line = (k: keyof Phases) =>
      `${k.padEnd(13)} p50 ${pct(
        results.map((r) => r[k]),
        50,
      )
        .toFixed(0)
        .padStart(5)} ms   p99 ${pct(
        results.map((r) => r[k]),
        99,
      )
        .toFixed(0)
        .padStart(5)} ms`;
    console.log(
      `config propagation over ${results.length} changes (PATCH acknowledged → status.config.active is the new config):`,
    );
    for (const k of ['total', 'detect', 'checkpoint', 'exit', 'processStart', 'serving', 'status'] as (keyof Phases)[])
      console.log(`  ${line(k)}`);
    const r2s = pct(restartToServing, 50);
    console.log(
      `agent restart (old process exited) → serving: p50 ${r2s.toFixed(0)} ms p99 ${pct(restartToServing, 99).toFixed(0)} ms vs bare \`node -e 0\` ${bare.toFixed(0)} ms in this run → ratio ${(r2s / bare).toFixed(2)} (target ≤ 1.5)`,
    );
    console.log(`agent RSS after start: ${rss.toFixed(1)} MB (target ≤ 80 MB)`);
  } finally {
    client.close();
    await cluster.stop(5_000);
    await rm(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
