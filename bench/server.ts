// Server benchmark (not a test): prints figures, each with a baseline measured in the same run where one exists.
//  1. ConfigMap create+update rate through a real `dkc server` process (8 clients) vs raw better-sqlite3 doing the
//     same writes with the same concurrency and durability: 8 writer threads, the store's kv and history rows, one
//     transaction per write, WAL, synchronous=FULL — dkc's target for the ratio is ≥ 0.5, which the store's
//     group commit reaches (docs/adr/0001-sqlite-group-commit.md).
//  2. Delivery latency of one change to 1,000 and to 5,000 concurrent watchers (p50/p99 over watchers and changes).
//  3. List latency for 5,000 nodes (JSON and Table).
// Usage: node dist/bench/server.js [--quick]

import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { RestClient } from '../src/client/index.js';
import { startServer } from '../test/helpers/server.js';
import { ms, pct, serverWriteRate } from './common.js';

const quick = process.argv.includes('--quick');
/** How long a watcher has to deliver one change before it counts as missed. */
const DELIVERY_TIMEOUT_MS = 30_000;


/**
 * The stored form of one benchmark ConfigMap as the server writes it (metadata the server adds, managedFields of a
 * create or an update), so the baseline writes rows of the same size.
 */
function storedConfigMap(i: number, data: string): Uint8Array {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return Buffer.from(
    JSON.stringify({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: {
        name: `bench-${i}`,
        namespace: 'default',
        uid: '3f0c8c1e-5a43-4d5c-9a4e-2b7f6f0e9d1a',
        creationTimestamp: now,
        managedFields: [{ manager: 'dkc', operation: 'Update', apiVersion: 'v1', time: now, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:k': {} } } }],
      },
      data: { k: data },
    }),
  );
}

/**
 * Raw better-sqlite3 with the server's workload and durability: `writers` threads (the server bench's concurrent
 * clients), each with its own connection, create then update `n` keys between them in the store's schema (kv and
 * history rows), one IMMEDIATE transaction per write, WAL and synchronous=FULL as src/storage/sqlite.ts opens its
 * file. (The store also holds locking_mode=EXCLUSIVE, which would forbid the writers' separate connections.)
 * Returns writes per second.
 */
async function rawSqliteRate(n: number, writers: number): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'dkc-bench-raw-'));
  try {
    const path = join(dir, 'raw.db');
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.exec(`
      CREATE TABLE kv (key TEXT PRIMARY KEY, value BLOB NOT NULL, create_revision INTEGER NOT NULL, mod_revision INTEGER NOT NULL) WITHOUT ROWID;
      CREATE TABLE history (revision INTEGER PRIMARY KEY, key TEXT NOT NULL, type INTEGER NOT NULL, value BLOB,
        create_revision INTEGER NOT NULL, prev_value BLOB, prev_mod_revision INTEGER);
    `);
    db.close();
    const counter = new SharedArrayBuffer(4);
    const job = { path, counter, keys: n, created: storedConfigMap(0, 'v'.repeat(64)), updated: storedConfigMap(0, 'w'.repeat(64)) };
    const threads = Array.from({ length: writers }, () => new Worker(new URL('./sqlite-writer.js', import.meta.url), { workerData: job }));
    await Promise.all(threads.map((w) => new Promise((r) => w.once('message', r))));
    const t0 = performance.now();
    const counts = await Promise.all(
      threads.map((w) => {
        const done = new Promise<number>((resolve, reject) => {
          w.once('message', resolve);
          w.once('error', reject);
        });
        w.postMessage('go');
        return done;
      }),
    );
    const secs = (performance.now() - t0) / 1000;
    await Promise.all(threads.map((w) => w.terminate()));
    return counts.reduce((a, b) => a + b, 0) / secs;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Delivery latency of `changes` changes of one ConfigMap to `watchers` concurrent watches. A watcher that has not
 * delivered a change within DELIVERY_TIMEOUT_MS of it (or whose stream ended) counts as a missed delivery: a failure,
 * not a dropped sample. Percentiles are over every expected delivery, a missed one counting as infinitely late.
 */
async function watchLatency(kubeconfig: string, watchers: number, changes: number): Promise<{ p50: number; p99: number; max: number; missed: number; expected: number }> {
  const client = await RestClient.fromKubeconfig(kubeconfig, { timeoutMs: 0 });
  const target = `fanout-${watchers}`;
  await client.create('/api/v1/namespaces/default/configmaps', { metadata: { name: target }, data: { v: '0' } });
  const listed = await client.list<{ metadata: { resourceVersion: string } }>('/api/v1/namespaces/default/configmaps', { fieldSelector: `metadata.name=${target}` });
  const latencies: number[] = [];
  let current = 0;
  let sentAt = 0;
  let arrived = 0;
  let onAllReceived: () => void = () => undefined;
  const streams = [];
  for (let i = 0; i < watchers; i++) {
    const s = await client.watch<{ data?: { v?: string } }>('/api/v1/namespaces/default/configmaps', { resourceVersion: listed.metadata.resourceVersion, fieldSelector: `metadata.name=${target}` });
    streams.push(s);
    void (async () => {
      for await (const ev of s) {
        // Only the change being measured counts; one arriving after its deadline was already counted as missed.
        if (ev.type !== 'MODIFIED' || ev.object.data?.v !== String(current)) continue;
        latencies.push(performance.now() - sentAt);
        if (++arrived === watchers) onAllReceived();
      }
    })().catch(() => undefined);
  }
  await new Promise((r) => setTimeout(r, 500));
  let missed = 0;
  for (let c = 1; c <= changes; c++) {
    arrived = 0;
    current = c;
    const done = new Promise<void>((r) => (onAllReceived = r));
    sentAt = performance.now();
    await client.patch(`/api/v1/namespaces/default/configmaps/${target}`, 'merge', { data: { v: String(c) } });
    await Promise.race([done, new Promise((r) => setTimeout(r, DELIVERY_TIMEOUT_MS))]);
    missed += watchers - arrived;
    current = -1;
  }
  for (const s of streams) s.close();
  client.close();
  const all = [...latencies, ...Array.from({ length: missed }, () => Infinity)];
  return { p50: pct(all, 50), p99: pct(all, 99), max: Math.max(...all), missed, expected: watchers * changes };
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
    const writers = 8;
    const raw = await rawSqliteRate(n, writers);
    const through = await serverWriteRate(server.kubeconfig, n, writers);
    console.log(
      `writes: server ${through.toFixed(0)}/s (ConfigMap create+update, ${writers} clients) vs raw better-sqlite3 ${raw.toFixed(0)}/s ` +
        `(${writers} writer threads, the store's schema, one transaction per write, WAL, synchronous=FULL) → ratio ${(through / raw).toFixed(2)}`,
    );
    for (const w of quick ? [200] : [1000, 5000]) {
      const r = await watchLatency(server.kubeconfig, w, quick ? 3 : 5);
      const verdict = r.missed > 0 ? ` — FAILED: ${r.missed} of ${r.expected} deliveries never arrived within ${DELIVERY_TIMEOUT_MS / 1000} s` : `, none of ${r.expected} missed`;
      console.log(`watch fan-out to ${w} watchers: p50 ${ms(r.p50)}, p99 ${ms(r.p99)}, max ${ms(r.max)}${verdict}`);
      if (r.missed > 0) process.exitCode = 1;
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
