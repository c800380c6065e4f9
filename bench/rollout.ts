// Rollout benchmark (not a test): one NodeConfigRollout over N real agents (`dkc up --nodes N`, default 30), canary 1
// and maxUnavailable 5, driven by the controller inside `dkc server`. Baseline measured in the same run: single-node
// config propagation (PATCH of spec.configSource acknowledged → status.config.active is the new config), p50 over a
// few changes of one node. The controller's own overhead is the rollout's wall time minus batches × that p50, where
// batches = 1 (the canary) + ceil((N - 1) / maxUnavailable). Watches split each node's time: switched (status shows it
// InFlight) → active (the agent reports the new config) → succeeded (the controller has recorded it).
// Usage: node dist/bench/rollout.js [--nodes N] [--max-unavailable M]

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Node } from '../src/api/types.js';
import { Informer, RestClient } from '../src/client/index.js';
import { ROLLOUTS_PATH, newRollout, type NodeConfigRollout } from '../src/api/dkc/rollout.js';
import { startCluster } from '../src/up/cluster.js';
import { pct } from './common.js';

const arg = (flag: string, fallback: number): number => {
  const i = process.argv.indexOf(flag);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const NODES = arg('--nodes', 30);
const MAX_UNAVAILABLE = arg('--max-unavailable', 5);
const PROPAGATION_SAMPLES = 8;

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'dkc-bench-rollout-'));
  const cluster = await startCluster({ dataDir: work, nodes: NODES, port: 0 });
  const client = await RestClient.fromKubeconfig(cluster.kubeconfig);
  try {
    const local = await readFile(cluster.nodes[0]!.config, 'utf8');
    const cmPath = '/api/v1/namespaces/kube-system/configmaps';
    const createConfig = async (name: string, qps: number): Promise<void> => {
      await client.create(cmPath, {
        metadata: { name, namespace: 'kube-system' },
        data: { kubelet: `${local.trimEnd()}\neventRecordQPS: ${qps}\n` },
      });
    };
    await until(
      async () => {
        const list = await client.list<{ items: Node[] }>('/api/v1/nodes');
        return list.items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
          .length === NODES
          ? true
          : undefined;
      },
      120_000,
      `${NODES} nodes Ready`,
    );

    const samples: number[] = [];
    for (let i = 0; i < PROPAGATION_SAMPLES; i++) {
      const name = `prop-${i}`;
      await createConfig(name, 10 + i);
      await client.patch('/api/v1/nodes/node-1', 'merge', {
        spec: { configSource: { configMap: { namespace: 'kube-system', name, kubeletConfigKey: 'kubelet' } } },
      });
      const acked = performance.now();
      await until(
        async () =>
          (await client.get<Node>('/api/v1/nodes/node-1')).status?.config?.active?.configMap?.name === name
            ? true
            : undefined,
        30_000,
        name,
      );
      samples.push(performance.now() - acked);
    }
    const p50 = pct(samples, 50);

    await createConfig('rollout-target', 42);
    const inFlightAt = new Map<string, number>();
    const activeAt = new Map<string, number>();
    const succeededAt = new Map<string, number>();
    const nodes = new Informer<Node & { metadata: { [k: string]: unknown } }>(client, '/api/v1/nodes');
    const onNode = (n: Node): void => {
      if (n.status?.config?.active?.configMap?.name === 'rollout-target' && !activeAt.has(n.metadata.name!))
        activeAt.set(n.metadata.name!, performance.now());
    };
    nodes.on('add', onNode);
    nodes.on('update', (_o, n) => onNode(n));
    const rollouts = new Informer<NodeConfigRollout & { metadata: { [k: string]: unknown } }>(client, ROLLOUTS_PATH);
    rollouts.on('update', (_o, r) => {
      for (const [name, p] of Object.entries(r.status?.nodes ?? {})) {
        if (p.state === 'InFlight' && !inFlightAt.has(name)) inFlightAt.set(name, performance.now());
        if (p.state === 'Succeeded' && !succeededAt.has(name)) succeededAt.set(name, performance.now());
      }
    });
    nodes.start();
    rollouts.start();
    await Promise.all([nodes.whenSynced(), rollouts.whenSynced()]);
    const t0 = performance.now();
    await client.create(
      ROLLOUTS_PATH,
      newRollout('bench', {
        configSource: { configMap: { namespace: 'kube-system', name: 'rollout-target', kubeletConfigKey: 'kubelet' } },
        nodeSelector: {},
        strategy: { canary: 1, maxUnavailable: MAX_UNAVAILABLE },
      }),
    );
    let maxInFlight = 0;
    const done = await until(
      async () => {
        const r = await client.get<NodeConfigRollout>(`${ROLLOUTS_PATH}/bench`);
        maxInFlight = Math.max(
          maxInFlight,
          Object.values(r.status?.nodes ?? {}).filter((p) => p.state === 'InFlight').length,
        );
        return r.status?.phase === 'Succeeded' || r.status?.phase === 'Halted' || r.status?.phase === 'Reverted'
          ? r
          : undefined;
      },
      600_000,
      'the rollout to finish',
    );
    const wall = performance.now() - t0;
    await until(async () => (succeededAt.size >= NODES ? true : undefined), 5_000, 'the last status event');
    await Promise.all([nodes.stop(), rollouts.stop()]);
    const names = [...succeededAt.keys()].filter((n) => inFlightAt.has(n) && activeAt.has(n));
    const switchToActive = names.map((n) => activeAt.get(n)! - inFlightAt.get(n)!);
    const activeToRecorded = names.map((n) => succeededAt.get(n)! - activeAt.get(n)!);
    const starts = [...inFlightAt.values()].sort((a, b) => a - b);
    const successes = [...succeededAt.values()].sort((a, b) => a - b);
    // The controller's reaction: from a recorded success to the next node recorded in flight.
    const reactions = starts.slice(1).map((s) => s - Math.max(...successes.filter((x) => x <= s), t0));
    const batches = 1 + Math.ceil((NODES - 1) / MAX_UNAVAILABLE);
    console.log(
      `single-node propagation (node-1, ${samples.length} changes): p50 ${p50.toFixed(0)} ms, p99 ${pct(samples, 99).toFixed(0)} ms`,
    );
    console.log(
      `rollout over ${NODES} agents, canary 1, maxUnavailable ${MAX_UNAVAILABLE}: ${done.status?.phase} in ${wall.toFixed(0)} ms, ${done.status?.succeededNodes}/${NODES} succeeded, at most ${maxInFlight} in flight`,
    );
    console.log(
      `per node: switched → active p50 ${pct(switchToActive, 50).toFixed(0)} ms (p99 ${pct(switchToActive, 99).toFixed(0)}); active → recorded succeeded p50 ${pct(activeToRecorded, 50).toFixed(0)} ms (p99 ${pct(activeToRecorded, 99).toFixed(0)}); success → next start p50 ${pct(reactions, 50).toFixed(0)} ms`,
    );
    console.log(
      `batches × propagation p50 = ${batches} × ${p50.toFixed(0)} = ${(batches * p50).toFixed(0)} ms; controller overhead ${(wall - batches * p50).toFixed(0)} ms (${(wall / (batches * p50)).toFixed(2)}×)`,
    );
  } finally {
    client.close();
    await cluster.stop(10_000);
    await rm(work, { recursive: true, force: true });
  }
}

await main();
