// Crash durability of the SQLite backend: a child process writes in a loop and reports each write only
// after the store acknowledged it; the test kills it with SIGKILL mid-loop, twice, and checks that every
// acknowledged write is in the reopened database and that revisions carry on from where they were.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite.js';

const storeModule = new URL('../../src/storage/sqlite.js', import.meta.url).href;

// Creates /dur/<n> and then moves /dur/counter to n, printing each acknowledged write. Bounded, in case the
// kill never comes.
const writer = `
const { openSqliteStore } = await import(process.env.STORE_MODULE);
const store = await openSqliteStore({ path: process.env.DB_PATH });
process.stdout.write('durability ' + JSON.stringify(store.durability()) + '\\n');
const start = Number(process.env.START);
for (let n = start; n < start + 100000; n++) {
  const key = '/dur/' + String(n).padStart(8, '0');
  const created = await store.create(key, Buffer.from('value-' + n));
  process.stdout.write('create ' + n + ' ' + created.modRevision + '\\n');
  const counter = n === 0
    ? await store.create('/dur/counter', Buffer.from(String(n)))
    : await store.update('/dur/counter', Buffer.from(String(n)));
  process.stdout.write('counter ' + n + ' ' + counter.modRevision + '\\n');
}
`;

const DURABLE = { journalMode: 'wal', synchronous: 'FULL', lockingMode: 'exclusive' };

let dir: string;
const children = new Set<ChildProcess>();

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dkc-sqlite-durability-'));
});

after(async () => {
  for (const child of children) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

interface Acks {
  /** The writer's live connection settings, as SQLite reported them. */
  durability?: unknown;
  created: Map<number, number>;
  counter: number;
  maxRevision: number;
}

/** Runs the writer until it has acknowledged at least `atLeast` writes, then SIGKILLs it. */
async function writeAndKill(path: string, start: number, atLeast: number): Promise<Acks> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', writer], {
    env: { ...process.env, STORE_MODULE: storeModule, DB_PATH: path, START: String(start) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const acks: Acks = { created: new Map(), counter: -1, maxRevision: 0 };
  let lines = 0;
  let buffered = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => {
    buffered += d.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    for (const line of parts) {
      const [what, n, rev] = line.split(' ');
      if (what === 'durability') {
        acks.durability = JSON.parse(line.slice(what.length + 1));
        continue;
      }
      if (what === 'create') acks.created.set(Number(n), Number(rev));
      else if (what === 'counter') acks.counter = Number(n);
      acks.maxRevision = Math.max(acks.maxRevision, Number(rev));
      if (++lines === atLeast) child.kill('SIGKILL');
    }
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('close', (c, s) => resolve([c, s])),
  );
  clearTimeout(timer);
  children.delete(child);
  assert.equal(signal, 'SIGKILL', `the writer should have been killed, it exited with ${code}: ${stderr}`);
  assert.ok(lines >= atLeast, `only ${lines} acknowledged writes before the kill: ${stderr}`);
  // An acknowledged write survives a power loss only if each commit is fsynced (synchronous=FULL in WAL mode);
  // a SIGKILL alone would not show the difference, so the writer's own connection is asked.
  assert.deepEqual(acks.durability, DURABLE);
  return acks;
}

test('every acknowledged write survives SIGKILL of the writing process', async () => {
  const path = join(dir, 'crash.sqlite');
  const first = await writeAndKill(path, 0, 400);
  const second = await writeAndKill(path, first.created.size + 1_000_000, 400);
  assert.ok(second.created.size > 0);

  const store = await openSqliteStore({ path });
  try {
    assert.deepEqual((store as SqliteStore).durability(), DURABLE);
    for (const acks of [first, second]) {
      for (const [n, rev] of acks.created) {
        const kv = await store.get('/dur/' + String(n).padStart(8, '0'));
        assert.ok(kv, `acknowledged key ${n} is missing`);
        assert.equal(Buffer.from(kv.value).toString(), `value-${n}`);
        assert.equal(kv.modRevision, rev);
      }
    }
    // At most the one write in flight at the kill may have landed beyond the acknowledged ones.
    const counter = await store.get('/dur/counter');
    assert.ok(counter);
    const value = Number(Buffer.from(counter.value).toString());
    assert.ok(
      value >= second.counter && value <= second.counter + 1,
      `counter ${value}, acknowledged ${second.counter}`,
    );

    const listed = await store.list('/dur/');
    const current = await store.currentRevision();
    assert.ok(current >= second.maxRevision && current <= second.maxRevision + 1);
    assert.ok(listed.items.length >= first.created.size + second.created.size + 1);
    const next = await store.create('/dur/after-crash', Buffer.from('x'));
    assert.equal(next.modRevision, current + 1, 'revisions carry on after the crash');
    // Every revision kept in the history is replayed, in order and without gaps.
    const from = await store.compactedRevision();
    const seen: number[] = [];
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`replay stalled at ${seen.length}`)), 10_000);
      store.watch('/dur/', from, {
        onEvents: (events) => {
          for (const e of events) seen.push(e.kv.modRevision);
          if (seen.at(-1) === next.modRevision) {
            clearTimeout(timer);
            resolve();
          }
        },
        onError: (err) => reject(err),
      });
    });
    assert.deepEqual(
      seen,
      Array.from({ length: next.modRevision - from }, (_, i) => from + i + 1),
    );
  } finally {
    await store.close();
  }
});
