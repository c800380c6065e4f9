// One writer of bench/server.ts's raw SQLite baseline, in its own thread with its own connection: it takes key numbers
// from a shared counter and, for each, creates then updates the key as the server's store does (the kv row and a
// history row with the replaced value), each write its own IMMEDIATE transaction, so the baseline commits (and
// fsyncs) once per write with the store's durability settings. Reports how many writes it made.

import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

interface Job {
  path: string;
  /** Int32Array over a SharedArrayBuffer: [next key number]. */
  counter: SharedArrayBuffer;
  keys: number;
  created: Uint8Array;
  updated: Uint8Array;
}

const job = workerData as Job;
const next = new Int32Array(job.counter);
const db = new Database(job.path, { timeout: 60_000 });
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
const rev = db.prepare('SELECT coalesce(max(revision), 0) + 1 FROM history').pluck();
const insertKv = db.prepare('INSERT INTO kv (key, value, create_revision, mod_revision) VALUES (?, ?, ?, ?)');
const updateKv = db.prepare('UPDATE kv SET value = ?, mod_revision = ? WHERE key = ?');
const current = db.prepare('SELECT value, create_revision, mod_revision FROM kv WHERE key = ?');
const insertHistory = db.prepare(
  'INSERT INTO history (revision, key, type, value, create_revision, prev_value, prev_mod_revision) VALUES (?, ?, 0, ?, ?, ?, ?)',
);
const create = db.transaction((key: string) => {
  const r = rev.get() as number;
  insertKv.run(key, job.created, r, r);
  insertHistory.run(r, key, job.created, r, null, null);
});
const update = db.transaction((key: string) => {
  const r = rev.get() as number;
  const cur = current.get(key) as { value: Buffer; create_revision: number; mod_revision: number };
  updateKv.run(job.updated, r, key);
  insertHistory.run(r, key, job.updated, cur.create_revision, cur.value, cur.mod_revision);
});

parentPort!.once('message', () => {
  let writes = 0;
  for (;;) {
    const i = Atomics.add(next, 0, 1);
    if (i >= job.keys) break;
    const key = `/registry/configmaps/default/raw-${i}`;
    create.immediate(key);
    update.immediate(key);
    writes += 2;
  }
  db.close();
  parentPort!.postMessage(writes);
});
parentPort!.postMessage('ready');
