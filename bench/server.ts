// Server benchmark (not a test): prints figures, each with a baseline measured in the same run where one exists.
//  1. ConfigMap create+update rate through a real `dkc server` process vs a raw better-sqlite3 insert loop
//     (WAL, synchronous=FULL, one row per transaction) — the ratio is what DESIGN.md §6 targets (≥ 0.5).
//  2. Delivery latency of one change to 1,000 and to 5,000 concurrent watchers (p50/p99 over watchers and changes).
//  3. List latency for 5,000 nodes (JSON and Table).
// Usage: node dist/bench/server.js [--quick]

import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RestClient } from '../src/client/index.js';
import { startServer } from '../test/helpers/server.js';
import { ms, pct, serverWriteRate } from './common.js';

const quick = process.argv.includes('--quick');


async function rawSqliteRate(n: number): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'dkc-bench-raw-'));
  try {
    const db = new Database(join(dir, 'raw.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE kv (key TEXT PRIMARY KEY, value BLOB, rev INTEGER)');
    const ins = db.prepare('INSERT INTO kv (key, value, rev) VALUES (?, ?, ?)');
    const value = Buffer.from(JSON.stringify({ metadata: { name: 'x', namespace: 'default' }, data: { k: 'v'.repeat(64) } }));
    const t0 = performance.now();
    for (let i = 0; i < n; i++) ins.run(`/registry/core/configmaps/default/raw-${i}`, value, i + 1);
    const secs = (performance.now() - t0) / 1000;
    db.close();
    return n / secs;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}


async function watchLatency(kubeconfig: string, watchers: number, changes: number): Promise<{ p50: number; p99: number; max: number }> {
  const client = await RestClient.fromKubeconfig(kubeconfig, { timeoutMs: 0 });
  const target = `fanout-${watchers}`;
  await client.create('/api/v1/namespaces/default/configmaps', { metadata: { name: target }, data: { v: '0' } });
  const listed = await client.list<{ metadata: { resourceVersion: string } }>('/api/v1/namespaces/default/configmaps', { fieldSelector: `metadata.name=${target}` });
  const latencies: number[] = [];
  let sentAt = 0;
  let pending = 0;
  let onAllReceived: () => void = () => undefined;
  const streams = [];
  for (let i = 0; i < watchers; i++) {
    const s = await client.watch('/api/v1/namespaces/default/configmaps', { resourceVersion: listed.metadata.resourceVersion, fieldSelector: `metadata.name=${target}` });
    streams.push(s);
    void (async () => {
      for await (const ev of s) {
        if (ev.type !== 'MODIFIED') continue;
        latencies.push(performance.now() - sentAt);
        if (--pending === 0) onAllReceived();
      }
    })().catch(() => undefined);
  }
  await new Promise((r) => setTimeout(r, 500));
  for (let c = 1; c <= changes; c++) {
    pending = watchers;
    const done = new Promise<void>((r) => (onAllReceived = r));
    sentAt = performance.now();
    await client.patch(`/api/v1/namespaces/default/configmaps/${target}`, 'merge', { data: { v: String(c) } });
    await Promise.race([done, new Promise((r) => setTimeout(r, 30_000))]);
  }
  for (const s of streams) s.close();
  client.close();
  return { p50: pct(latencies, 50), p99: pct(latencies, 99), max: Math.max(...latencies) };
}

async function listLatency(kubeconfig: string, nodes: number, rounds: number): Promise<{ json: number[]; table: number[] }> {
  const clients = await Promise.all(Array.from({ length: 8 }, () => RestClient.fromKubeconfig(kubeconfig)));
  let next = 0;
  await Promise.all(
    clients.map(async (c) => {
      for (;;) {
        const i = next++;
        if (i >= nodes) return;
        await c.create('/api/v1/nodes', {
          metadata: { name: `bench-node-${i}`, labels: { 'kubernetes.io/hostname': `bench-node-${i}` } },
          status: { conditions: [{ type: 'Ready', status: 'True' }], addresses: [{ type: 'InternalIP', address: '127.0.0.1' }] },
        });
      }
    }),
  );
  const c = clients[0]!;
  const json: number[] = [];
  const table: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let t0 = performance.now();
    await c.request({ method: 'GET', path: '/api/v1/nodes' });
    json.push(performance.now() - t0);
    t0 = performance.now();
    await c.request({ method: 'GET', path: '/api/v1/nodes', accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' });
    table.push(performance.now() - t0);
  }
  for (const cl of clients) cl.close();
  return { json, table };
}

async function main(): Promise<void> {
  const server = await startServer(['--watch-cache-size', '1000']);
  try {
    const n = quick ? 500 : 3000;
    const raw = await rawSqliteRate(2 * n);
    const through = await serverWriteRate(server.kubeconfig, n, 8);
    console.log(`writes: server ${through.toFixed(0)}/s (ConfigMap create+update, 8 clients) vs raw better-sqlite3 ${raw.toFixed(0)}/s → ratio ${(through / raw).toFixed(2)}`);
    for (const w of quick ? [200] : [1000, 5000]) {
      const r = await watchLatency(server.kubeconfig, w, quick ? 3 : 5);
      console.log(`watch fan-out to ${w} watchers: p50 ${ms(r.p50)}, p99 ${ms(r.p99)}, max ${ms(r.max)}`);
    }
    const nodes = quick ? 500 : 5000;
    const l = await listLatency(server.kubeconfig, nodes, 10);
    console.log(`list ${nodes} nodes: JSON p50 ${ms(pct(l.json, 50))} p99 ${ms(pct(l.json, 99))}; Table p50 ${ms(pct(l.table, 50))} p99 ${ms(pct(l.table, 99))}`);
    const rss = Number((await import('node:fs')).readFileSync(`/proc/${server.proc.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1] ?? 0);
    console.log(`server RSS after the run: ${(rss / 1024).toFixed(0)} MB`);
  } finally {
    await server.cleanup();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
