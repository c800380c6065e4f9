// Write rate of the SQLite Store against the floor it is built on: a bare better-sqlite3 loop of
// single-row autocommit inserts into a WAL database with synchronous=FULL, measured in the same run on
// the same disk. Every Store write is durable before it is acknowledged too, so with one writer the ratio
// is the Store's overhead (history row, compare-and-swap read, revision bookkeeping, watch dispatch, the
// event-loop turn a queued write waits for its commit). With several concurrent writers, as behind the
// API server, writes queued in the same turn share one transaction and one fsync (group commit), which is
// what lets the Store keep up with, or overtake, the one-fsync-per-row raw loop.
//
// Usage: node dist/bench/storage-sqlite.js [N=5000] [CLIENTS=8]

import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../src/storage/sqlite.js';
import type { Watch } from '../src/storage/store.js';

const N = Number(process.argv[2] ?? 5000);
const CLIENTS = Number(process.argv[3] ?? 8);
/** Writes per slice; the contenders take turns slice by slice, so disk noise hits them alike. */
const SLICE = 250;

/** A value the size of a small serialized Kubernetes object. */
function value(i: number): Buffer {
  const body = JSON.stringify({
    kind: 'ConfigMap',
    metadata: { name: `cm-${i}`, namespace: 'default' },
    data: { pad: 'x'.repeat(400) },
  });
  return Buffer.from(body);
}

function openRaw(
  path: string,
  lockingMode: 'NORMAL' | 'EXCLUSIVE',
): { db: Database.Database; insert: Database.Statement<[string, Buffer]> } {
  const db = new Database(path);
  db.pragma(`locking_mode = ${lockingMode}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID');
  return { db, insert: db.prepare<[string, Buffer]>('INSERT INTO t (k, v) VALUES (?, ?)') };
}

const fmt = (n: number): string => `${Math.round(n).toLocaleString('en-US')}/s`;
const key = (i: number): string => `/registry/configmaps/default/cm-${i}`;
/** One turn of the event loop, as between two HTTP requests arriving on different connections. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A store as the server has it: a watcher on the prefix, as its watch cache always has one. */
function openStore(path: string): { store: SqliteStore; watch: Watch; delivered: () => number } {
  const store = SqliteStore.open({ path });
  let delivered = 0;
  const watch = store.watch('/registry/', 0, {
    onEvents: (events) => (delivered += events.length),
    onError: () => undefined,
  });
  return { store, watch, delivered: () => delivered };
}

/** Write `i` of 2N: the first N create the keys, the next N update them with compare-and-swap. */
async function write(store: SqliteStore, revs: number[], values: Buffer[], i: number): Promise<void> {
  if (i < N) revs[i] = (await store.create(key(i), values[i]!)).modRevision;
  else revs[i - N] = (await store.update(key(i - N), values[i % N]!, revs[i - N])).modRevision;
}

const dir = await mkdtemp(join(tmpdir(), 'dkc-bench-sqlite-'));
try {
  const rawNormal = openRaw(join(dir, 'raw-normal.sqlite'), 'NORMAL');
  const rawExclusive = openRaw(join(dir, 'raw-exclusive.sqlite'), 'EXCLUSIVE');
  const single = openStore(join(dir, 'store-single.sqlite'));
  const concurrent = openStore(join(dir, 'store-concurrent.sqlite'));

  const values = Array.from({ length: N }, (_, i) => value(i));
  const singleRevs = new Array<number>(N).fill(0);
  const concurrentRevs = new Array<number>(N).fill(0);
  const ms = { rawNormal: 0, rawExclusive: 0, create: 0, update: 0, concurrentCreate: 0, concurrentUpdate: 0 };
  const total = 2 * N;
  for (let base = 0; base < total; base += SLICE) {
    const end = Math.min(total, base + SLICE);
    const creating = end <= N;
    let t = performance.now();
    for (let i = base; i < end; i++) rawNormal.insert.run(key(i), values[i % N]!);
    ms.rawNormal += performance.now() - t;
    t = performance.now();
    for (let i = base; i < end; i++) rawExclusive.insert.run(key(i), values[i % N]!);
    ms.rawExclusive += performance.now() - t;

    t = performance.now();
    for (let i = base; i < end; i++) await write(single.store, singleRevs, values, i);
    if (creating) ms.create += performance.now() - t;
    else ms.update += performance.now() - t;

    // Each client awaits its own writes one after the other, and comes back on a later turn of the event
    // loop, as a keep-alive HTTP client's next request would.
    t = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        for (let i = base + c; i < end; i += CLIENTS) {
          await nextTurn();
          await write(concurrent.store, concurrentRevs, values, i);
        }
      }),
    );
    if (creating) ms.concurrentCreate += performance.now() - t;
    else ms.concurrentUpdate += performance.now() - t;
  }
  await nextTurn();
  for (const s of [single, concurrent]) {
    if (s.delivered() !== total) throw new Error(`a watcher saw ${s.delivered()} events, expected ${total}`);
    s.watch.cancel();
  }
  const stats = concurrent.store.stats();
  const singleStats = single.store.stats();
  await single.store.close();
  await concurrent.store.close();
  rawNormal.db.close();
  rawExclusive.db.close();

  const rate = (writes: number, millis: number): number => writes / (millis / 1000);
  const raw = rate(total, ms.rawNormal);
  const rawEx = rate(total, ms.rawExclusive);
  const singleAll = rate(total, ms.create + ms.update);
  const concurrentAll = rate(total, ms.concurrentCreate + ms.concurrentUpdate);
  const baseline = Math.max(raw, rawEx);
  console.log(`${total} writes each, WAL, synchronous=FULL, interleaved in slices of ${SLICE}`);
  console.log(`raw insert (default locking)   ${fmt(raw)}`);
  console.log(`raw insert (exclusive locking) ${fmt(rawEx)}`);
  console.log(
    `store, 1 writer:   create ${fmt(rate(N, ms.create))}, update with CAS ${fmt(rate(N, ms.update))}, overall ${fmt(singleAll)}` +
      ` (${(singleStats.writes / singleStats.batches).toFixed(1)} writes/transaction)`,
  );
  console.log(
    `store, ${CLIENTS} writers: create ${fmt(rate(N, ms.concurrentCreate))}, update with CAS ${fmt(rate(N, ms.concurrentUpdate))}, overall ${fmt(concurrentAll)}` +
      ` (${(stats.writes / stats.batches).toFixed(1)} writes/transaction, largest ${stats.largestBatch})`,
  );
  console.log(
    `ratio store/raw, 1 writer:   ${(singleAll / baseline).toFixed(2)} against the faster raw loop (target >= 0.50)`,
  );
  console.log(
    `ratio store/raw, ${CLIENTS} writers: ${(concurrentAll / baseline).toFixed(2)} against the faster raw loop (target >= 0.50)`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
