// etcd backend benchmark (not a test): prints figures, each with its baseline measured in the same run.
//  1. ConfigMap create+update rate through a real `dkc server` process on a single-member etcd vs raw etcd puts
//     with the same client library (etcd3) and the same concurrency, against the same etcd — the ratio is the
//     server's overhead (HTTP, TLS, auth, admission, JSON, the compare-and-swap transaction).
//  2. Watch delivery latency across replicas: a change written through replica A (one at a time), seen by watchers
//     on replica B; p50/p99 over watchers and changes, from sending the write to receiving the event.
// Usage: node dist/bench/etcd.js [--quick]

import { Etcd3 } from 'etcd3';
import { RestClient } from '../src/client/index.js';
import { ms, pct, serverWriteRate as writeRate } from './common.js';
import { startEtcd } from '../test/helpers/etcd.js';
import { startReplicas } from '../test/helpers/replicas.js';

const quick = process.argv.includes('--quick');
const CONCURRENCY = 16;
const serverWriteRate = (kubeconfig: string, n: number, run: string) => writeRate(kubeconfig, n, CONCURRENCY, run);

async function rawPutRate(endpoints: string[], n: number): Promise<number> {
  const client = new Etcd3({ hosts: endpoints });
  const value = Buffer.from(
    JSON.stringify({ metadata: { name: 'x', namespace: 'default' }, data: { k: 'v'.repeat(64) } }),
  );
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (;;) {
        const i = next++;
        if (i >= n) return;
        await client.put(`/raw/${i}`).value(value);
        await client.put(`/raw/${i}`).value(value);
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  client.close();
  return (2 * n) / secs;
}

async function crossReplicaLatency(
  writerKubeconfig: string,
  watcherKubeconfig: string,
  watchers: number,
  changes: number,
): Promise<number[]> {
  const path = '/api/v1/namespaces/default/configmaps';
  const writer = await RestClient.fromKubeconfig(writerKubeconfig);
  await writer.create(path, { metadata: { name: 'latency' }, data: { n: '0' } });
  const sentAt = new Map<string, number>();
  const samples: number[] = [];
  const client = await RestClient.fromKubeconfig(watcherKubeconfig);
  const streams = await Promise.all(
    Array.from({ length: watchers }, () =>
      client.watch<{ data?: Record<string, string> }>(path, { fieldSelector: 'metadata.name=latency' }),
    ),
  );
  let seen = 0;
  let done: () => void = () => undefined;
  const allSeen = new Promise<void>((r) => (done = r));
  for (const w of streams) {
    void (async () => {
      for await (const ev of w) {
        const n = (ev.object as { data?: Record<string, string> }).data?.['n'];
        const t = n === undefined ? undefined : sentAt.get(n);
        if (t === undefined) continue;
        samples.push(performance.now() - t);
        if (++seen === watchers * changes) done();
      }
    })();
  }
  // Past the synthetic ADDED of the initial state.
  await new Promise((r) => setTimeout(r, 500));
  for (let i = 1; i <= changes; i++) {
    sentAt.set(String(i), performance.now());
    await writer.patch(`${path}/latency`, 'merge', { data: { n: String(i) } });
    // Spaced out, so each figure is a change's own latency rather than queueing behind the previous one.
    await new Promise((r) => setTimeout(r, 5));
  }
  await Promise.race([allSeen, new Promise((r) => setTimeout(r, 30_000))]);
  for (const w of streams) w.close();
  client.close();
  writer.close();
  return samples;
}

async function main(): Promise<void> {
  const n = quick ? 300 : 2_000;
  const etcd = await startEtcd();
  const servers = await startReplicas(2, etcd, ['--etcd-compaction-interval', '0']);
  try {
    // Warm-up for both paths (connections, JIT), then the measured runs, baseline first.
    await rawPutRate(etcd.endpoints, 100);
    await serverWriteRate(servers[0]!.kubeconfig, 50, 'warm');
    const raw = await rawPutRate(etcd.endpoints, n);
    const server = await serverWriteRate(servers[0]!.kubeconfig, n, 'bench');
    console.log(`raw etcd puts (etcd3, ${CONCURRENCY} concurrent):        ${raw.toFixed(0)} writes/s`);
    console.log(`server create+update on etcd (${CONCURRENCY} concurrent): ${server.toFixed(0)} writes/s`);
    console.log(`ratio server/raw:                               ${(server / raw).toFixed(2)}`);

    const watchers = quick ? 10 : 50;
    const changes = quick ? 50 : 200;
    const samples = await crossReplicaLatency(servers[0]!.kubeconfig, servers[1]!.kubeconfig, watchers, changes);
    console.log(
      `watch delivery A→B (${watchers} watchers on B, ${changes} changes through A): p50 ${ms(pct(samples, 50))}, p99 ${ms(pct(samples, 99))} (${samples.length} samples)`,
    );
  } finally {
    for (const s of servers) await s.cleanup();
    await etcd.cleanup();
  }
}

await main();
