// Write rate of the SQLite Store against the floor it is built on: a bare better-sqlite3 loop of
// single-row autocommit inserts into a WAL database with synchronous=FULL, measured in the same run on
// the same disk. Every Store write is a durable transaction too, so the ratio is the Store's overhead
// (history row, compare-and-swap read, revision bookkeeping, watch dispatch).
//
// Usage: node dist/bench/storage-sqlite.js [N=5000]

import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../src/storage/sqlite.js';

const N = Number(process.argv[2] ?? 5000);
/** Writes per slice; the three contenders take turns slice by slice, so disk noise hits them alike. */
const SLICE = 250;

/** A value the size of a small serialized Kubernetes object. */
function value(i: number): Buffer {
  const body = JSON.stringify({ kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'default' }, data: { pad: 'x'.repeat(400) } });
  return Buffer.from(body);
}

function openRaw(path: string, lockingMode: 'NORMAL' | 'EXCLUSIVE'): { db: Database.Database; insert: Database.Statement<[string, Buffer]> } {
  const db = new Database(path);
  db.pragma(`locking_mode = ${lockingMode}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID');
  return { db, insert: db.prepare<[string, Buffer]>('INSERT INTO t (k, v) VALUES (?, ?)') };
}

const fmt = (n: number): string => `${Math.round(n).toLocaleString('en-US')}/s`;
const key = (i: number): string => `/registry/configmaps/default/cm-${i}`;

const dir = await mkdtemp(join(tmpdir(), 'dkc-bench-sqlite-'));
try {
  const rawNormal = openRaw(join(dir, 'raw-normal.sqlite'), 'NORMAL');
  const rawExclusive = openRaw(join(dir, 'raw-exclusive.sqlite'), 'EXCLUSIVE');
  const store = await openSqliteStore({ path: join(dir, 'store.sqlite') });
  // A watcher on the prefix, as the server's watch cache always has one.
  let delivered = 0;
  const watch = store.watch('/registry/', 0, { onEvents: (events) => (delivered += events.length), onError: () => undefined });

  const values = Array.from({ length: N }, (_, i) => value(i));
  const revs = new Array<number>(N).fill(0);
  const ms = { rawNormal: 0, rawExclusive: 0, create: 0, update: 0 };
  const total = 2 * N;
  for (let base = 0; base < total; base += SLICE) {
    const end = Math.min(total, base + SLICE);
    let t = performance.now();
    for (let i = base; i < end; i++) rawNormal.insert.run(key(i), values[i % N]!);
    ms.rawNormal += performance.now() - t;
    t = performance.now();
    for (let i = base; i < end; i++) rawExclusive.insert.run(key(i), values[i % N]!);
    ms.rawExclusive += performance.now() - t;
    t = performance.now();
    // The first N writes create the keys, the next N update them with compare-and-swap.
    for (let i = base; i < end; i++) {
      if (i < N) revs[i] = (await store.create(key(i), values[i]!)).modRevision;
      else revs[i - N] = (await store.update(key(i - N), values[i % N]!, revs[i - N])).modRevision;
    }
    if (end <= N) ms.create += performance.now() - t;
    else ms.update += performance.now() - t;
  }
  await new Promise((r) => setImmediate(r));
  if (delivered !== total) throw new Error(`the watcher saw ${delivered} events, expected ${total}`);
  watch.cancel();
  await store.close();
  rawNormal.db.close();
  rawExclusive.db.close();

  const rate = (writes: number, millis: number): number => writes / (millis / 1000);
  const raw = rate(total, ms.rawNormal);
  const rawEx = rate(total, ms.rawExclusive);
  const storeAll = rate(total, ms.create + ms.update);
  const baseline = Math.max(raw, rawEx);
  console.log(`${total} writes each, WAL, synchronous=FULL, interleaved in slices of ${SLICE}`);
  console.log(`raw insert (default locking)   ${fmt(raw)}`);
  console.log(`raw insert (exclusive locking) ${fmt(rawEx)}`);
  console.log(`store create ${fmt(rate(N, ms.create))}, update with CAS ${fmt(rate(N, ms.update))}, overall ${fmt(storeAll)}`);
  console.log(`ratio store/raw ${(storeAll / baseline).toFixed(2)} against the faster raw loop (target >= 0.50)`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
