// Pods benchmark (not a test): `dkc up --nodes N` (real agent processes, the in-process scheduler), P Pods created
// by C clients. After a warm-up round, two rounds like for like (same cluster, same clients, same Pods but for spec.nodeName):
//   baseline  — each Pod names its node (round robin): create → Running is the API and the nodes alone;
//   scheduled — no Pod names a node: the scheduler binds each (pods/binding), then the node runs it.
// For each: create rate, Pods bound per second (scheduled round: first create → last bound), and the time until
// every Pod is Running. Usage: node dist/bench/pods.js [--nodes 20] [--pods 200] [--concurrency 8]

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RestClient } from '../src/client/index.js';
import type { Pod } from '../src/api/workloads.js';
import { startCluster } from '../src/up/cluster.js';
import { defaultLocalConfig } from '../src/agent/clusterconfig.js';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const NODES = arg('nodes', 20);
const PODS = arg('pods', 200);
const CONCURRENCY = arg('concurrency', 8);
const LIMIT_MS = 600_000;

interface Round {
  name: string;
  createPerSec: number;
  boundPerSec: number;
  allRunningMs: number;
}

async function nodesReady(client: RestClient): Promise<void> {
  const deadline = Date.now() + LIMIT_MS;
  while (Date.now() < deadline) {
    const list = await client.list<{ items: { status?: { conditions?: { type: string; status: string }[] } }[] }>(
      '/api/v1/nodes',
    );
    const ready = list.items.filter((n) =>
      n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
    );
    if (ready.length >= NODES) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`fewer than ${NODES} nodes Ready after ${LIMIT_MS} ms`);
}

const pod = (name: string, nodeName: string | undefined) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: {
    ...(nodeName ? { nodeName } : {}),
    containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.9', resources: { requests: { cpu: '10m' } } }],
  },
});

/** Watches the namespace's Pods from `rv` and resolves the times every Pod was first seen bound and Running. */
async function follow(client: RestClient, ns: string, rv: string): Promise<{ bound: number; running: number }> {
  const bound = new Set<string>();
  const running = new Set<string>();
  let tBound = 0;
  const watch = await client.watch<Pod>(`/api/v1/namespaces/${ns}/pods`, { resourceVersion: rv });
  const timer = setTimeout(() => watch.close(), LIMIT_MS);
  try {
    for await (const ev of watch) {
      if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED') continue;
      const p = ev.object;
      const name = p.metadata.name ?? '';
      if (p.spec?.nodeName) bound.add(name);
      if (p.status?.phase === 'Running') running.add(name);
      if (!tBound && bound.size >= PODS) tBound = performance.now();
      if (running.size >= PODS) return { bound: tBound, running: performance.now() };
    }
  } finally {
    clearTimeout(timer);
    watch.close();
  }
  throw new Error(`only ${running.size}/${PODS} Pods Running in ${ns} after ${LIMIT_MS} ms`);
}

async function round(clients: RestClient[], name: string, placed: boolean): Promise<Round> {
  const ns = `bench-${name}`;
  const admin = clients[0]!;
  await admin.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const listed = await admin.list<{ metadata: { resourceVersion?: string } }>(`/api/v1/namespaces/${ns}/pods`);
  const rv = listed.metadata.resourceVersion ?? '0';
  const followed = follow(admin, ns, rv);
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    clients.map(async (c) => {
      for (let i = next++; i < PODS; i = next++) {
        await c.create(`/api/v1/namespaces/${ns}/pods`, pod(`p-${i}`, placed ? `node-${(i % NODES) + 1}` : undefined));
      }
    }),
  );
  const created = performance.now();
  const { bound, running } = await followed;
  return {
    name,
    createPerSec: PODS / ((created - t0) / 1000),
    boundPerSec: PODS / ((bound - t0) / 1000),
    allRunningMs: running - t0,
  };
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'dkc-bench-pods-'));
  const cluster = await startCluster({
    dataDir: work,
    nodes: NODES,
    port: 0,
    // Room for every Pod on any node, so placement is the scheduler's spreading, not a node's limit.
    localConfig: (ctx) => `${defaultLocalConfig(ctx)}maxPods: ${PODS}\n`,
  });
  const clients = await Promise.all(
    Array.from({ length: CONCURRENCY }, () => RestClient.fromKubeconfig(cluster.kubeconfig, { timeoutMs: 30_000 })),
  );
  try {
    await nodesReady(clients[0]!);
    // A first round warms the server, the clients and the nodes; it is not reported.
    await round(clients, 'warmup', false);
    const rounds = [await round(clients, 'baseline', true), await round(clients, 'scheduled', false)];
    console.log(`dkc up --nodes ${NODES}, ${PODS} Pods by ${CONCURRENCY} clients`);
    console.log('round      creates/s  bound/s  all Running');
    for (const r of rounds) {
      console.log(
        `${r.name.padEnd(10)} ${r.createPerSec.toFixed(0).padStart(9)} ${r.boundPerSec.toFixed(0).padStart(8)} ${(r.allRunningMs / 1000).toFixed(1).padStart(10)} s`,
      );
    }
  } finally {
    for (const c of clients) c.close();
    await cluster.stop(10_000);
    await rm(work, { recursive: true, force: true });
  }
}

await main();
