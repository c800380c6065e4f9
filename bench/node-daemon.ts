// Node-daemon benchmark (not a test): the topology of `dkc up --emulated-version 1.31` — each node an agent acting as a
// plain kubelet and a `dkc node-daemon` beside it, restarting it through the supervisor's control socket.
//   1. assignment → kubelet restarted with the new config: on node-1, N changes alternating two drop-ins; each timed
//      from the NodeConfig PATCH to the kubelet's /configz (through the API server's node proxy) showing the value,
//      the kubelet's process having changed. p50/p99.
//   2. a rollout of a third config over every node of the cluster (--nodes; canary 1, then batches of
//      --max-unavailable, no soak), from the NodeConfigRollout's creation to Succeeded. A Reverted or Halted rollout
//      stops the bench with its failures.
// Usage: node dist/bench/node-daemon.js [--nodes 20] [--changes 30] [--max-unavailable 5] [--start-timeout 60s]
// A cluster of --nodes starts 2 × --nodes + 2 processes at once: on a small machine, give it room (nothing else
// running); the waits scale with --nodes.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE_CONFIGS_PATH } from '../src/api/dkc/nodeconfig.js';
import { ROLLOUTS_PATH, type NodeConfigRollout } from '../src/api/dkc/rollout.js';
import type { Node } from '../src/api/types.js';
import { RestClient } from '../src/client/index.js';
import { startCluster } from '../src/up/cluster.js';
import { pct } from './common.js';

const argValue = (name: string): string | undefined =>
  process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined;
function intArg(name: string, d: number): number {
  const v = argValue(name);
  const n = v === undefined ? d : Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} wants a positive integer, not ${JSON.stringify(v)}`);
  return n;
}
const NODES = intArg('--nodes', 20);
const CHANGES = intArg('--changes', 30);
const MAX_UNAVAILABLE = intArg('--max-unavailable', 5);
const START_TIMEOUT = argValue('--start-timeout') ?? '60s';
const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';

/** Thrown from a poll to stop waiting at once (a poll's other errors are retried: a kubelet restarting, a timeout). */
class Stop extends Error {}

async function until<T>(what: string, f: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await f().catch((err: unknown) => {
      if (err instanceof Stop) throw err;
      return undefined;
    });
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s: ${what}`);
}

const ready = (n: Node) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

const work = await mkdtemp(join(tmpdir(), 'dkc-bench-nd-'));
const cluster = await startCluster({
  dataDir: join(work, 'c'),
  nodes: NODES,
  port: 0,
  serverArgs: ['--emulated-version', '1.31'],
  kubeletVersions: ['1.31'],
  nodeDaemon: { applyAs: 'dropin', trial: '5s', probeInterval: '100ms', startTimeout: START_TIMEOUT },
});
const admin = await RestClient.fromKubeconfig(cluster.kubeconfig, { timeoutMs: 30_000 });
try {
  const t0 = performance.now();
  // Every node Ready with its NodeConfig: the rollout selects them all, and a node not Ready would be held.
  await until(
    `${NODES} nodes Ready with their NodeConfigs`,
    async () => {
      const ncs = (await admin.list<{ items: unknown[] }>(NODE_CONFIGS_PATH)).items.length;
      const nodes = (await admin.list<{ items: Node[] }>('/api/v1/nodes')).items.filter(ready).length;
      return ncs === NODES && nodes === NODES ? true : undefined;
    },
    60_000 + NODES * 10_000,
  );
  process.stdout.write(`${NODES} nodes Ready in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  for (const [name, qps] of [
    ['a', 11],
    ['b', 12],
    ['c', 13],
  ] as const) {
    await admin.create('/api/v1/namespaces/kube-system/configmaps', {
      metadata: { name, namespace: 'kube-system' },
      data: { kubelet: `${HEADER}eventRecordQPS: ${qps}\n` },
    });
  }
  const configz = async (node: string) =>
    (await admin.get<{ kubeletconfig: { eventRecordQPS?: number } }>(`/api/v1/nodes/${node}/proxy/configz`))
      .kubeletconfig.eventRecordQPS;
  const times: number[] = [];
  for (let i = 0; i < CHANGES; i++) {
    const [name, qps] = i % 2 === 0 ? (['a', 11] as const) : (['b', 12] as const);
    const before = cluster.supervisor.pidOf('node-1');
    const t = performance.now();
    await admin.patch(`${NODE_CONFIGS_PATH}/node-1`, 'merge', {
      spec: { configSource: { configMap: { namespace: 'kube-system', name, kubeletConfigKey: 'kubelet' } } },
    });
    await until(
      `change ${i}`,
      async () =>
        cluster.supervisor.pidOf('node-1') !== before && (await configz('node-1')) === qps ? true : undefined,
      60_000,
    );
    times.push(performance.now() - t);
  }
  process.stdout.write(
    `assignment → kubelet restarted with the new config (${CHANGES} changes, 1 node of ${NODES}): p50 ${pct(times, 50).toFixed(0)} ms, p99 ${pct(times, 99).toFixed(0)} ms\n`,
  );

  const r0 = performance.now();
  await admin.create(ROLLOUTS_PATH, {
    apiVersion: 'dkc.io/v1alpha1',
    kind: 'NodeConfigRollout',
    metadata: { name: 'c' },
    spec: {
      configSource: { configMap: { namespace: 'kube-system', name: 'c', kubeletConfigKey: 'kubelet' } },
      nodeSelector: { matchLabels: {} },
      strategy: { canary: 1, maxUnavailable: MAX_UNAVAILABLE, soakSeconds: 0 },
    },
  });
  const r = await until(
    `rollout c over ${NODES} nodes`,
    async () => {
      const ro = await admin.get<NodeConfigRollout>(`${ROLLOUTS_PATH}/c`);
      const phase = ro.status?.phase;
      if (phase === 'Reverted' || phase === 'Halted')
        throw new Stop(`rollout c ${phase}: ${JSON.stringify(ro.status?.failures ?? [])}`);
      return phase === 'Succeeded' ? ro : undefined;
    },
    120_000 + NODES * 15_000,
  );
  const seconds = ((performance.now() - r0) / 1000).toFixed(1);
  process.stdout.write(
    `rollout over ${NODES} nodes (canary 1, max-unavailable ${MAX_UNAVAILABLE}, soak 0): ${seconds} s, ${r.status?.succeededNodes ?? 0} succeeded\n`,
  );
} finally {
  admin.close();
  await cluster.stop(5_000);
  await rm(work, { recursive: true, force: true });
}
