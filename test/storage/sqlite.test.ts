// Behaviour of the SQLite Store backend against a real database file: write semantics and revisions,
// group commit, prefix lists and pagination (also at past revisions), watch replay and live delivery,
// compaction, retention and shutdown. Key order is checked against UTF-8 byte order, the order etcd uses.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import {
  MAX_BATCH_BYTES,
  MAX_BATCH_OPERATIONS,
  openSqliteStore,
  SqliteStore,
  type SqliteStoreOptions,
} from '../../src/storage/sqlite.js';
import {
  openStore,
  StoreError,
  type KeyValue,
  type Store,
  type WatchEvent,
  type WatchHandlers,
} from '../../src/storage/index.js';
import { prng } from '../helpers/prng.js';

let dir: string;
let seq = 0;
const open: Store[] = [];

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dkc-sqlite-test-'));
});

after(async () => {
  for (const s of open) await s.close().catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

function dbPath(): string {
  return join(dir, `db-${++seq}.sqlite`);
}

async function newStore(options: Partial<SqliteStoreOptions> = {}): Promise<Store> {
  const store = await openSqliteStore({ path: dbPath(), ...options });
  open.push(store);
  return store;
}

/** The concrete store, for its group-commit counters. */
function newSqliteStore(path = dbPath()): SqliteStore {
  const store = SqliteStore.open({ path });
  open.push(store);
  return store;
}

const enc = (s: string): Uint8Array => Buffer.from(s, 'utf8');
const dec = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');
const byteOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

async function rejectsWith(p: Promise<unknown>, code: string, revision?: number): Promise<StoreError> {
  let caught: unknown;
  try {
    await p;
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof StoreError, `expected a StoreError '${code}', got ${String(caught)}`);
  assert.equal(caught.code, code);
  if (revision !== undefined) assert.equal(caught.revision, revision);
  return caught;
}

/** Records what a watch delivers and lets a test await a condition on it, with a deadline. */
class Collector {
  readonly events: WatchEvent[] = [];
  readonly errors: StoreError[] = [];
  batches = 0;
  private waiters: { pred: () => boolean; resolve: () => void }[] = [];
  readonly handlers: WatchHandlers = {
    onEvents: (events) => {
      this.batches++;
      this.events.push(...events);
      this.check();
    },
    onError: (err) => {
      this.errors.push(err);
      this.check();
    },
  };

  revisions(): number[] {
    return this.events.map((e) => e.kv.modRevision);
  }

  async until(pred: () => boolean, what: string, ms = 10_000): Promise<void> {
    if (pred()) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        this.waiters.push({ pred, resolve });
        timer = setTimeout(
          () =>
            reject(
              new Error(
                `timed out waiting for ${what}; got ${this.events.length} events, ${this.errors.length} errors`,
              ),
            ),
          ms,
        );
      });
    } finally {
      clearTimeout(timer);
    }
  }

  private check(): void {
    this.waiters = this.waiters.filter((w) => {
      if (!w.pred()) return true;
      w.resolve();
      return false;
    });
  }
}

function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i <= to; i++) out.push(i);
  return out;
}

describe('writes and revisions', () => {
  test('create, get, update, delete keep etcd revision semantics', async () => {
    const s = await newStore();
    assert.equal(await s.currentRevision(), 0);
    assert.equal(await s.compactedRevision(), 0);

    const a1 = await s.create('/a', enc('one'));
    assert.deepEqual({ ...a1, value: dec(a1.value) }, { key: '/a', value: 'one', createRevision: 1, modRevision: 1 });
    const b1 = await s.create('/b', enc('bee'));
    assert.equal(b1.modRevision, 2);

    const a2 = await s.update('/a', enc('two'));
    assert.equal(a2.createRevision, 1, 'an update keeps the create revision');
    assert.equal(a2.modRevision, 3);
    const got = await s.get('/a');
    assert.ok(got);
    assert.equal(dec(got.value), 'two');
    assert.equal(got.modRevision, 3);

    const deleted = await s.delete('/a');
    assert.equal(dec(deleted.value), 'two', 'delete returns the deleted value');
    assert.equal(deleted.createRevision, 1);
    assert.equal(deleted.modRevision, 4, "a delete's modRevision is its own revision");
    assert.equal(await s.get('/a'), undefined);

    const a3 = await s.create('/a', enc('again'));
    assert.equal(a3.createRevision, 5, 'recreating resets the create revision');
    assert.equal(a3.modRevision, 5);
    assert.equal(await s.currentRevision(), 5);
  });

  test('failed writes report the right error and consume no revision', async () => {
    const s = await newStore();
    await s.create('/k', enc('v'));
    await rejectsWith(s.create('/k', enc('w')), 'DKC_STORE_KEY_EXISTS');
    await rejectsWith(s.update('/missing', enc('w')), 'DKC_STORE_NOT_FOUND');
    await rejectsWith(s.delete('/missing'), 'DKC_STORE_NOT_FOUND');
    await rejectsWith(s.update('/missing', enc('w'), 1), 'DKC_STORE_NOT_FOUND');
    await s.update('/k', enc('v2'), 1);
    await rejectsWith(s.update('/k', enc('v3'), 1), 'DKC_STORE_CONFLICT', 2);
    await rejectsWith(s.delete('/k', 1), 'DKC_STORE_CONFLICT', 2);
    assert.equal(await s.currentRevision(), 2);
    assert.equal(dec((await s.get('/k'))!.value), 'v2');

    const next = await s.create('/n', enc('x'));
    assert.equal(next.modRevision, 3, 'revisions stay gapless after failures');
    const removed = await s.delete('/k', 2);
    assert.equal(removed.modRevision, 4);
  });

  test('move puts the value under the new key and deletes the old one in one transaction, live and in history', async () => {
    const s = await newStore();
    const live = new Collector();
    s.watch('/', 0, live.handlers);
    const a = await s.create('/old/a', enc('A'));
    await s.update('/old/a', enc('A2'));
    const moved = await s.move('/old/a', '/new/a', 2);
    assert.deepEqual(
      { ...moved, value: dec(moved.value) },
      { key: '/new/a', value: 'A2', createRevision: 3, modRevision: 3 },
    );
    assert.equal(await s.currentRevision(), 4, 'the put and the delete take a revision each');
    assert.equal(await s.get('/old/a'), undefined);
    assert.equal(dec((await s.get('/new/a'))!.value), 'A2');
    await live.until(() => live.events.length === 4, 'the move');
    const [put, del] = live.events.slice(2);
    assert.deepEqual([put!.type, put!.kv.key, put!.kv.modRevision], ['put', '/new/a', 3]);
    assert.deepEqual(
      [del!.type, del!.kv.key, del!.kv.modRevision, del!.kv.createRevision, dec(del!.kv.value)],
      ['delete', '/old/a', 4, a.createRevision, 'A2'],
    );
    const replay = new Collector();
    s.watch('/', 2, replay.handlers);
    await replay.until(() => replay.events.length === 2, 'the replayed move');
    assert.deepEqual(
      replay.events.map((e) => [e.type, e.kv.key, e.kv.modRevision]),
      [
        ['put', '/new/a', 3],
        ['delete', '/old/a', 4],
      ],
    );
    const next = await s.create('/n', enc('x'));
    assert.equal(next.modRevision, 5);
  });

  test('a refused move changes nothing and consumes no revision', async () => {
    const s = await newStore();
    await s.create('/from', enc('f'));
    await s.create('/to', enc('t'));
    await rejectsWith(s.move('/from', '/to'), 'DKC_STORE_KEY_EXISTS');
    await rejectsWith(s.move('/missing', '/elsewhere'), 'DKC_STORE_NOT_FOUND');
    await rejectsWith(s.move('/from', '/elsewhere', 7), 'DKC_STORE_CONFLICT', 1);
    await assert.rejects(s.move('/from', '/from'), RangeError);
    assert.equal(await s.currentRevision(), 2);
    assert.equal(dec((await s.get('/from'))!.value), 'f');
    assert.equal(dec((await s.get('/to'))!.value), 't');
    assert.equal(await s.get('/elsewhere'), undefined);
    // Two moves of one key queued together: the second finds the key gone.
    const [first, second] = await Promise.allSettled([s.move('/from', '/x'), s.move('/from', '/y')]);
    assert.equal(first.status, 'fulfilled');
    assert.equal(second.status === 'rejected' && (second.reason as StoreError).code, 'DKC_STORE_NOT_FOUND');
    assert.equal(await s.get('/y'), undefined);
  });

  test('the stored value is a copy of what the writer passed', async () => {
    const s = await newStore();
    const buf = Buffer.from('original');
    await s.create('/c', buf);
    buf.write('mutated!');
    assert.equal(dec((await s.get('/c'))!.value), 'original');
  });

  test('invalid keys are rejected as programming errors', async () => {
    const s = await newStore();
    await assert.rejects(s.create('', enc('x')), RangeError);
    await assert.rejects(s.create('/bad\uD800', enc('x')), RangeError);
    assert.equal(await s.currentRevision(), 0);
  });

  test('revisions and compaction survive a reopen', async () => {
    const path = dbPath();
    const s1 = await openSqliteStore({ path });
    for (let i = 0; i < 10; i++) await s1.create(`/r/${i}`, enc(String(i)));
    await s1.delete('/r/9');
    await s1.compact(11);
    await s1.close();

    const s2 = await openSqliteStore({ path });
    open.push(s2);
    assert.equal(await s2.currentRevision(), 11, 'revision derives from the compacted revision when history is empty');
    assert.equal(await s2.compactedRevision(), 11);
    const kv = await s2.create('/r/x', enc('x'));
    assert.equal(kv.modRevision, 12);
    assert.equal((await s2.list('/r/')).items.length, 10);
  });

  test('a second open of the same file fails while the first holds it', async () => {
    const path = dbPath();
    const s1 = await openSqliteStore({ path });
    await rejectsWith(openSqliteStore({ path, busyTimeoutMs: 50 }), 'DKC_STORE_UNAVAILABLE');
    await s1.create('/still', enc('works'));
    await s1.close();
    const s2 = await openSqliteStore({ path, busyTimeoutMs: 50 });
    open.push(s2);
    assert.equal((await s2.get('/still'))?.modRevision, 1);
  });

  test('openStore opens the SQLite backend', async () => {
    const s = await openStore({ kind: 'sqlite', path: dbPath() });
    open.push(s);
    await s.create('/via-index', enc('ok'));
    assert.equal(await s.currentRevision(), 1);
  });

  test('close ends the store: later calls fail with unavailable', async () => {
    const s = await newStore();
    await s.create('/x', enc('x'));
    await s.close();
    await s.close();
    await rejectsWith(s.get('/x'), 'DKC_STORE_UNAVAILABLE');
    await rejectsWith(s.create('/y', enc('y')), 'DKC_STORE_UNAVAILABLE');
    await rejectsWith(s.list('/'), 'DKC_STORE_UNAVAILABLE');
    assert.throws(
      () => s.watch('/', 0, new Collector().handlers),
      (err: unknown) => err instanceof StoreError && err.code === 'DKC_STORE_UNAVAILABLE',
    );
  });
});

describe('list', () => {
  // Code points chosen where UTF-8 byte order and UTF-16 order disagree, or where a naive prefix
  // upper bound would go wrong (last code point of a byte length, the surrogate gap, U+10FFFF).
  const alphabet = [
    'a',
    'b',
    '/',
    '-',
    '.',
    '\u007f',
    '\u0080',
    '\u07ff',
    '\u0800',
    '\ud7ff',
    '\ue000',
    '\uffff',
    '\u{10000}',
    '\u{1f600}',
    '\u{10ffff}',
  ];

  test('prefixes match exactly the keys that start with them, in UTF-8 byte order', async () => {
    const s = await newStore();
    const fixed = [
      '/registry/nodes/a',
      '/registry/nodes/b',
      '/registry/nodes-x/a',
      '/registry/nodes',
      '/registry/nodez',
      '/registry/nodes0',
    ];
    const rand = prng(7);
    const keys = new Set(fixed);
    for (let i = 0; keys.size < 150 && i < 10_000; i++) {
      let k = '/p/';
      const len = 1 + Math.floor(rand() * 4);
      for (let j = 0; j < len; j++) k += alphabet[Math.floor(rand() * alphabet.length)];
      keys.add(k);
    }
    for (const k of keys) await s.create(k, enc(k));

    const prefixes = new Set<string>([
      '',
      '/',
      '/registry/nodes/',
      '/registry/nodes',
      '/registry/node',
      '/p/',
      '/q/',
      '/p/\u{10ffff}',
      '/p/\u{10ffff}\u{10ffff}',
    ]);
    for (const k of keys) {
      const cps = Array.from(k);
      for (let n = 0; n <= cps.length; n++) prefixes.add(cps.slice(0, n).join(''));
    }
    const sorted = [...keys].sort(byteOrder);
    for (const prefix of prefixes) {
      const expected = sorted.filter((k) => k.startsWith(prefix));
      const got = await s.list(prefix);
      assert.deepEqual(
        got.items.map((kv) => kv.key),
        expected,
        `prefix ${JSON.stringify(prefix)}`,
      );
      assert.equal(got.more, false);
      assert.equal(got.revision, keys.size);
    }
    const nodes = await s.list('/registry/nodes/');
    assert.deepEqual(
      nodes.items.map((kv) => kv.key),
      ['/registry/nodes/a', '/registry/nodes/b'],
    );
  });

  test('limit and startAfter page through every key exactly once', async () => {
    const s = await newStore();
    const keys: string[] = [];
    for (let i = 0; i < 103; i++) keys.push(`/page/${i}${alphabet[i % alphabet.length]}`);
    await s.create('/pagd', enc('before the prefix'));
    for (const k of keys) await s.create(k, enc(k));
    await s.create('/paqe', enc('after the prefix'));

    for (const limit of [1, 7, 50, 103, 200]) {
      const seen: string[] = [];
      let startAfter: string | undefined;
      for (let page = 0; page < 200; page++) {
        const res = await s.list('/page/', { limit, ...(startAfter !== undefined ? { startAfter } : {}) });
        assert.ok(res.items.length <= limit);
        seen.push(...res.items.map((kv) => kv.key));
        if (!res.more) break;
        assert.equal(res.items.length, limit, 'a page cut off by the limit is full');
        startAfter = res.items[res.items.length - 1]!.key;
      }
      assert.deepEqual(seen, [...keys].sort(byteOrder), `limit ${limit}`);
    }
    // startAfter before the prefix does not leak keys from outside it.
    const all = await s.list('/page/', { startAfter: '/a' });
    assert.equal(all.items.length, keys.length);
  });

  test('a list at a past revision returns the state at that revision', async () => {
    const s = await newStore();
    const rand = prng(42);
    const live = new Map<string, KeyValue>();
    const snapshots: Map<string, KeyValue>[] = [new Map<string, KeyValue>()];
    const space = range(0, 11).map((i) => `/h/${i}`);
    for (let op = 0; op < 300; op++) {
      const key = space[Math.floor(rand() * space.length)]!;
      const cur = live.get(key);
      if (!cur) {
        live.set(key, await s.create(key, enc(`c${op}`)));
      } else if (rand() < 0.3) {
        await s.delete(key);
        live.delete(key);
      } else {
        live.set(key, await s.update(key, enc(`u${op}`)));
      }
      snapshots.push(new Map(live));
    }
    const noise = await s.create('/hz', enc('outside the prefix'));
    assert.equal(noise.modRevision, 301);

    const expectAt = (rev: number): string[] =>
      [...snapshots[rev]!.values()]
        .sort((a, b) => byteOrder(a.key, b.key))
        .map((kv) => `${kv.key}=${dec(kv.value)}@${kv.createRevision}/${kv.modRevision}`);
    const show = (items: KeyValue[]): string[] =>
      items.map((kv) => `${kv.key}=${dec(kv.value)}@${kv.createRevision}/${kv.modRevision}`);

    // Revision 0 means "current" in ListOptions, so the walk through the past starts at 1.
    for (let rev = 1; rev <= 300; rev++) {
      const res = await s.list('/h/', { revision: rev });
      assert.equal(res.revision, rev);
      assert.deepEqual(show(res.items), expectAt(rev), `revision ${rev}`);
    }
    // Paging at a fixed revision while the store moves on, as continue tokens do.
    const at = 150;
    const paged: KeyValue[] = [];
    let startAfter: string | undefined;
    for (let page = 0; page < 50; page++) {
      const res = await s.list('/h/', { revision: at, limit: 2, ...(startAfter !== undefined ? { startAfter } : {}) });
      paged.push(...res.items);
      await s.create(`/h/new-${page}`, enc('later'));
      if (!res.more) break;
      startAfter = res.items[res.items.length - 1]!.key;
    }
    assert.deepEqual(show(paged), expectAt(at));

    await s.compact(200);
    await rejectsWith(s.list('/h/', { revision: 199 }), 'DKC_STORE_COMPACTED', 200);
    assert.deepEqual(show((await s.list('/h/', { revision: 200 })).items), expectAt(200));
    assert.deepEqual(show((await s.list('/h/', { revision: 250 })).items), expectAt(250));
    await assert.rejects(s.list('/h/', { revision: 10_000 }), RangeError);
  });
});

describe('watch', () => {
  test('replays history from a past revision, then continues live without gap or duplicate', async () => {
    const s = await newStore();
    // More history than one catch-up step reads, so the replay spans several steps.
    for (let i = 0; i < 4500; i++) {
      if (i % 3 === 2) await s.update(`/w/${i - 1}`, enc(`u${i}`));
      else await s.create(`/w/${i}`, enc(`c${i}`));
    }
    await s.create('/other', enc('not watched'));
    const from = 100;
    const c = new Collector();
    const w = s.watch('/w/', from, c.handlers);
    // Writes racing with the replay: some before the first step runs, some in between.
    let last = 0;
    for (let i = 0; i < 300; i++) {
      last = (await s.create(`/w/live-${i}`, enc(`l${i}`))).modRevision;
      if (i % 50 === 0) await new Promise((r) => setImmediate(r));
    }
    await c.until(() => c.revisions().at(-1) === last, 'the last live write');
    w.cancel();

    const expected = range(from + 1, last).filter((r) => r !== 4501);
    assert.deepEqual(c.revisions(), expected);
    assert.ok(c.batches > 1 && c.batches < expected.length, 'events arrive in batches');
    const put = c.events.find((e) => e.kv.modRevision === 102)!;
    assert.equal(put.type, 'put');
    assert.equal(dec(put.kv.value), 'u101');
    assert.equal(dec(put.prevKv!.value), 'c100');
    assert.equal(put.prevKv!.modRevision, 101);
    assert.equal(c.errors.length, 0);
  });

  test('delete and update events carry the values they replaced', async () => {
    const s = await newStore();
    await s.create('/e/a', enc('one'));
    const c = new Collector();
    s.watch('/e/', 0, c.handlers);
    await s.update('/e/a', enc('two'));
    await s.delete('/e/a');
    await c.until(() => c.events.length === 3, 'three events');
    const [created, updated, deleted] = c.events as [WatchEvent, WatchEvent, WatchEvent];
    assert.equal(created.type, 'put');
    assert.equal(created.prevKv, undefined);
    assert.equal(updated.type, 'put');
    assert.equal(dec(updated.prevKv!.value), 'one');
    assert.equal(deleted.type, 'delete');
    assert.equal(dec(deleted.kv.value), 'two');
    assert.equal(deleted.kv.modRevision, 3);
    assert.equal(deleted.kv.createRevision, 1);
    assert.equal(deleted.prevKv!.modRevision, 2);

    // The same three events, replayed from history, are identical to the live ones.
    const replay = new Collector();
    s.watch('/e/', 0, replay.handlers);
    await replay.until(() => replay.events.length === 3, 'replayed events');
    assert.deepEqual(
      replay.events.map((e) => ({
        ...e,
        kv: { ...e.kv, value: dec(e.kv.value) },
        prevKv: e.prevKv && { ...e.prevKv, value: dec(e.prevKv.value) },
      })),
      c.events.map((e) => ({
        ...e,
        kv: { ...e.kv, value: dec(e.kv.value) },
        prevKv: e.prevKv && { ...e.prevKv, value: dec(e.prevKv.value) },
      })),
    );
  });

  test('watchers on different prefixes see only their own keys', async () => {
    const s = await newStore();
    const nodes = new Collector();
    const nodesX = new Collector();
    const everything = new Collector();
    s.watch('/registry/nodes/', 0, nodes.handlers);
    s.watch('/registry/nodes-x/', 0, nodesX.handlers);
    s.watch('', 0, everything.handlers);
    await s.create('/registry/nodes/a', enc('a'));
    await s.create('/registry/nodes-x/b', enc('b'));
    await s.create('/registry/nodes', enc('c'));
    await s.update('/registry/nodes/a', enc('a2'));
    await everything.until(() => everything.events.length === 4, 'all four events');
    assert.deepEqual(nodes.revisions(), [1, 4]);
    assert.deepEqual(nodesX.revisions(), [2]);
    assert.deepEqual(everything.revisions(), [1, 2, 3, 4]);
  });

  test('a watch from a future revision starts delivering once the store gets there', async () => {
    const s = await newStore();
    const c = new Collector();
    s.watch('/', 2, c.handlers);
    for (let i = 1; i <= 4; i++) await s.create(`/f${i}`, enc('x'));
    await c.until(() => c.events.length === 2, 'events after revision 2');
    assert.deepEqual(c.revisions(), [3, 4]);
  });

  test('cancel stops delivery, also from inside a handler, and is idempotent', async () => {
    const s = await newStore();
    const witness = new Collector();
    s.watch('/c/', 0, witness.handlers);
    const cancelled = new Collector();
    const w1 = s.watch('/c/', 0, cancelled.handlers);
    const selfCancelling = new Collector();
    const w2 = s.watch('/c/', 0, {
      onEvents: (events) => {
        selfCancelling.handlers.onEvents(events);
        w2.cancel();
      },
      onError: (err) => selfCancelling.handlers.onError(err),
    });
    await s.create('/c/1', enc('1'));
    await witness.until(() => witness.events.length === 1, 'first event');
    w1.cancel();
    w1.cancel();
    await s.create('/c/2', enc('2'));
    await s.create('/c/3', enc('3'));
    await witness.until(() => witness.events.length === 3, 'later events');
    // The witness is flushed together with the others, so anything undelivered now never will be.
    assert.deepEqual(cancelled.revisions(), [1]);
    assert.deepEqual(selfCancelling.revisions(), [1]);
    await s.close();
    assert.equal(cancelled.errors.length, 0, 'a cancelled watch is not told about close');
    assert.equal(witness.errors[0]?.code, 'DKC_STORE_UNAVAILABLE');
  });

  test('a throwing handler affects neither the store nor other watchers', async () => {
    const reported: unknown[] = [];
    const s = await newStore({ onHandlerError: (err) => reported.push(err) });
    let thrown = 0;
    const thrower = new Collector();
    s.watch('/t/', 0, {
      onEvents: (events) => {
        thrower.handlers.onEvents(events);
        thrown++;
        throw new Error('handler bug');
      },
      onError: () => {
        throw new Error('error handler bug');
      },
    });
    const good = new Collector();
    s.watch('/t/', 0, good.handlers);
    for (let i = 0; i < 20; i++) {
      await s.create(`/t/${i}`, enc(String(i)));
      if (i % 5 === 0) await new Promise((r) => setImmediate(r));
    }
    await good.until(() => good.events.length === 20, 'all events for the good watcher');
    assert.deepEqual(good.revisions(), range(1, 20));
    assert.deepEqual(thrower.revisions(), range(1, 20), 'the throwing watcher keeps its own stream intact');
    assert.equal(reported.length, thrown);
    await s.close();
    assert.equal(good.errors[0]?.code, 'DKC_STORE_UNAVAILABLE');
    assert.equal(reported.length, thrown + 1, 'the throwing onError was caught too');
  });

  test('writes from inside a handler are delivered later, in order, never re-entrantly', async () => {
    const s = await newStore();
    let depth = 0;
    let maxDepth = 0;
    const c = new Collector();
    s.watch('/r/', 0, {
      onEvents: (events) => {
        depth++;
        maxDepth = Math.max(maxDepth, depth);
        c.handlers.onEvents(events);
        for (const e of events) {
          const n = Number(e.kv.key.slice(3));
          if (n < 50) void s.create(`/r/${n + 1}`, enc('chain'));
        }
        depth--;
      },
      onError: (err) => c.handlers.onError(err),
    });
    await s.create('/r/0', enc('start'));
    await c.until(() => c.events.length === 51, 'the whole chain');
    assert.equal(maxDepth, 1);
    assert.deepEqual(c.revisions(), range(1, 51));
  });

  test('a watch on a compacted revision fails synchronously', async () => {
    const s = await newStore();
    for (let i = 0; i < 10; i++) await s.create(`/k/${i}`, enc('v'));
    await s.compact(6);
    assert.throws(
      () => s.watch('/k/', 5, new Collector().handlers),
      (err: unknown) => err instanceof StoreError && err.code === 'DKC_STORE_COMPACTED' && err.revision === 6,
    );
    const c = new Collector();
    s.watch('/k/', 6, c.handlers);
    await c.until(() => c.events.length === 4, 'events after the compacted revision');
    assert.deepEqual(c.revisions(), [7, 8, 9, 10]);
  });

  test('compaction ends a watch that is still replaying older history', async () => {
    const s = await newStore();
    for (let i = 0; i < 5000; i++) await s.create(`/lag/${i}`, enc('v'));
    const lagging = new Collector();
    s.watch('/lag/', 10, lagging.handlers);
    const live = new Collector();
    s.watch('/lag/', 5000, live.handlers);
    // The replay reads history in steps on later turns of the event loop; compaction overtakes it now.
    await s.compact(4000);
    await lagging.until(() => lagging.errors.length === 1, 'the compaction error');
    assert.equal(lagging.errors[0]!.code, 'DKC_STORE_COMPACTED');
    assert.equal(lagging.errors[0]!.revision, 4000);
    assert.ok(
      lagging.revisions().every((r, i) => r === 11 + i),
      'whatever arrived before the error is gapless',
    );

    await s.create('/lag/after', enc('v'));
    await live.until(() => live.events.length === 1, 'the live watcher carries on');
    assert.equal(live.errors.length, 0);
    const before = lagging.events.length;
    await s.create('/lag/after2', enc('v'));
    await live.until(() => live.events.length === 2, 'another live event');
    assert.equal(lagging.events.length, before, 'nothing after the error');
  });

  test('history beyond historyLimit is compacted automatically', async () => {
    const s = await newStore({ historyLimit: 50 });
    const watcher = new Collector();
    s.watch('/', 0, watcher.handlers);
    for (let i = 0; i < 300; i++) {
      await s.create(`/auto/${i}`, enc('v'));
      if (i % 10 === 0) await new Promise((r) => setImmediate(r));
    }
    await new Promise((r) => setImmediate(r));
    const current = await s.currentRevision();
    const compacted = await s.compactedRevision();
    assert.ok(compacted >= current - 60 && compacted <= current - 50, `compacted ${compacted} at current ${current}`);
    await rejectsWith(s.list('/auto/', { revision: compacted - 1 }), 'DKC_STORE_COMPACTED', compacted);
    assert.equal((await s.list('/auto/', { revision: compacted })).items.length, compacted);
    await watcher.until(() => watcher.events.length === 300, 'every event');
    assert.deepEqual(watcher.revisions(), range(1, 300), 'a live watcher is not affected by retention');
    assert.equal(watcher.errors.length, 0);
  });

  test('close delivers queued events, then ends every watch with unavailable', async () => {
    const s = await newStore();
    await s.create('/z/0', enc('v'));
    const live = new Collector();
    s.watch('/z/', 1, live.handlers);
    const replaying = new Collector();
    s.watch('/z/', 0, replaying.handlers);
    await s.create('/z/1', enc('v'));
    await s.close();
    assert.deepEqual(live.revisions(), [2], 'the committed write reached the live watcher before close returned');
    assert.equal(live.errors[0]?.code, 'DKC_STORE_UNAVAILABLE');
    assert.equal(replaying.errors[0]?.code, 'DKC_STORE_UNAVAILABLE');
    assert.equal(live.errors.length, 1);
  });
});

describe('group commit', () => {
  test('writes issued in one turn share one transaction, each with its own revision, in arrival order', async () => {
    const s = newSqliteStore();
    await s.create('/g/first', enc('x'));
    const before = s.stats();
    const seenAfterAck: (string | undefined)[] = [];
    const writes = range(0, 99).map((i) => {
      const p = s.create(`/g/${String(i).padStart(3, '0')}`, enc(`v${i}`));
      // A read issued once the write is acknowledged sees it.
      return p.then(async (kv) => {
        const got = await s.get(kv.key);
        seenAfterAck.push(got && dec(got.value));
        assert.ok((await s.currentRevision()) >= kv.modRevision);
        return kv;
      });
    });
    const done = await Promise.all(writes);
    assert.deepEqual(
      done.map((kv) => kv.modRevision),
      range(2, 101),
    );
    assert.deepEqual(
      seenAfterAck,
      range(0, 99).map((i) => `v${i}`),
    );
    const after = s.stats();
    assert.equal(after.batches - before.batches, 1, 'one transaction for the whole turn');
    assert.equal(after.writes - before.writes, 100);
    assert.equal(after.largestBatch, 100);
    assert.equal(await s.currentRevision(), 101);
    assert.equal((await s.list('/g/')).items.length, 101);

    // A lone write afterwards is not held back waiting for company.
    const lone = await s.update('/g/first', enc('y'), 1);
    assert.equal(lone.modRevision, 102);
    assert.equal(s.stats().batches - after.batches, 1);
  });

  test('a batch is bounded in operations and in bytes, and earlier batches are acknowledged first', async () => {
    const s = newSqliteStore();
    const n = 2 * MAX_BATCH_OPERATIONS + 88;
    const batchAtAck: number[] = [];
    const done = await Promise.all(
      range(0, n - 1).map((i) =>
        s.create(`/cap/${i}`, enc('v')).then((kv) => {
          batchAtAck.push(s.stats().batches);
          return kv;
        }),
      ),
    );
    assert.deepEqual(
      done.map((kv) => kv.modRevision),
      range(1, n),
    );
    assert.deepEqual(s.stats(), { batches: 3, writes: n, largestBatch: MAX_BATCH_OPERATIONS });
    // Replies for the first batch go out before the next transaction runs.
    assert.deepEqual(batchAtAck, [
      ...new Array<number>(MAX_BATCH_OPERATIONS).fill(1),
      ...new Array<number>(MAX_BATCH_OPERATIONS).fill(2),
      ...new Array<number>(88).fill(3),
    ]);

    const big = Buffer.alloc(Math.floor(MAX_BATCH_BYTES * 0.375), 0x61);
    const huge = Buffer.alloc(MAX_BATCH_BYTES + 1, 0x62);
    await Promise.all([
      s.create('/big/0', big),
      s.create('/big/1', big),
      s.create('/big/2', big),
      s.create('/big/3', huge),
      s.create('/big/4', big),
    ]);
    // 2 × 1.5 MB fit under 4 MB, a third does not; an oversized value still goes, alone.
    assert.equal(s.stats().batches, 3 + 4);
    assert.equal((await s.get('/big/3'))!.value.length, MAX_BATCH_BYTES + 1);
  });

  test('a refused write fails alone while the rest of its batch commits', async () => {
    const s = newSqliteStore();
    await s.create('/x', enc('x1'));
    await s.create('/y', enc('y1'));
    await s.update('/y', enc('y2'));
    const watcher = new Collector();
    s.watch('/', 3, watcher.handlers);
    const before = s.stats();
    const results = await Promise.allSettled([
      s.create('/a', enc('a')),
      s.create('/x', enc('x2')),
      s.update('/y', enc('y3'), 2),
      s.delete('/y', 2),
      s.delete('/missing'),
      s.update('/missing', enc('m')),
      s.create('/b', enc('b')),
    ]);
    const [a, x, y, yDel, missingDel, missingUpd, b] = results;
    assert.equal(a.status === 'fulfilled' && a.value.modRevision, 4);
    assert.equal(b.status === 'fulfilled' && b.value.modRevision, 5, 'refused writes consume no revision');
    const reason = (r: PromiseSettledResult<KeyValue>): StoreError => {
      assert.equal(r.status, 'rejected');
      assert.ok(r.reason instanceof StoreError);
      return r.reason;
    };
    assert.equal(reason(x).code, 'DKC_STORE_KEY_EXISTS');
    assert.equal(reason(y).code, 'DKC_STORE_CONFLICT');
    assert.equal(reason(y).revision, 3);
    assert.equal(reason(yDel).code, 'DKC_STORE_CONFLICT');
    assert.equal(reason(missingDel).code, 'DKC_STORE_NOT_FOUND');
    assert.equal(reason(missingUpd).code, 'DKC_STORE_NOT_FOUND');
    assert.equal(s.stats().batches - before.batches, 1);

    assert.equal(dec((await s.get('/x'))!.value), 'x1');
    assert.equal((await s.get('/y'))!.modRevision, 3);
    assert.equal(await s.get('/missing'), undefined);
    assert.equal(await s.currentRevision(), 5);
    await watcher.until(() => watcher.events.length === 2, 'the two committed writes');
    assert.deepEqual(watcher.revisions(), [4, 5]);
    // The history holds exactly the committed writes too.
    const replay = new Collector();
    s.watch('/', 0, replay.handlers);
    await replay.until(() => replay.events.length === 5, 'the replayed history');
    assert.deepEqual(
      replay.events.map((e) => `${e.type} ${e.kv.key}@${e.kv.modRevision}`),
      ['put /x@1', 'put /y@2', 'put /y@3', 'put /a@4', 'put /b@5'],
    );
  });

  test('writes issued in bursts have exactly the outcomes they have one at a time', async () => {
    type Op = { kind: 'create' | 'update' | 'delete'; key: string; value: string; expected?: number };
    const rand = prng(2024);
    const keys = range(0, 7).map((i) => `/m/${i}`);
    const ops: Op[] = [];
    for (let i = 0; i < 1500; i++) {
      const kind = (['create', 'update', 'delete'] as const)[Math.floor(rand() * 3)]!;
      const op: Op = { kind, key: keys[Math.floor(rand() * keys.length)]!, value: `v${i}` };
      // Expected revisions near the present, so that some compare-and-swaps hold and some fail.
      if (kind !== 'create' && rand() < 0.6) op.expected = Math.max(1, i - Math.floor(rand() * 6));
      ops.push(op);
    }
    const issue = (s: Store, op: Op): Promise<KeyValue> =>
      op.kind === 'create'
        ? s.create(op.key, enc(op.value))
        : op.kind === 'update'
          ? s.update(op.key, enc(op.value), op.expected)
          : s.delete(op.key, op.expected);
    const show = (r: PromiseSettledResult<KeyValue>): string =>
      r.status === 'fulfilled'
        ? `${dec(r.value.value)} ${r.value.createRevision}/${r.value.modRevision}`
        : `${(r.reason as StoreError).code} ${String((r.reason as StoreError).revision)}`;

    const one = newSqliteStore();
    const oneWatch = new Collector();
    one.watch('/m/', 0, oneWatch.handlers);
    const sequential: string[] = [];
    for (const op of ops) sequential.push(show((await Promise.allSettled([issue(one, op)]))[0]));

    const burst = newSqliteStore();
    const burstWatch = new Collector();
    burst.watch('/m/', 0, burstWatch.handlers);
    const pending: Promise<KeyValue>[] = [];
    for (let i = 0; i < ops.length;) {
      // Bursts from a single write up to more than one batch holds.
      const size = rand() < 0.1 ? MAX_BATCH_OPERATIONS + 10 : 1 + Math.floor(rand() * 40);
      for (const op of ops.slice(i, i + size)) {
        const p = issue(burst, op);
        // Settled only after later bursts are issued; the outcome is checked below.
        p.catch(() => undefined);
        pending.push(p);
      }
      i += size;
      await new Promise((r) => setImmediate(r));
    }
    const batched = (await Promise.allSettled(pending)).map(show);
    const refused = sequential.filter((r) => /^DKC_STORE_(KEY_EXISTS|NOT_FOUND|CONFLICT) /.test(r)).length;
    assert.ok(refused > 300 && refused < 1200, `${refused} of ${ops.length} writes refused`);
    assert.deepEqual(batched, sequential);
    assert.ok(
      burst.stats().batches < one.stats().batches / 4,
      `${burst.stats().batches} batches for ${ops.length} writes`,
    );

    const state = async (s: Store): Promise<string[]> =>
      (await s.list('/m/')).items.map((kv) => `${kv.key}=${dec(kv.value)}@${kv.modRevision}`);
    assert.deepEqual(await state(burst), await state(one));
    assert.equal(await burst.currentRevision(), await one.currentRevision());
    const last = await one.currentRevision();
    await oneWatch.until(() => oneWatch.revisions().at(-1) === last, 'every event, one at a time');
    await burstWatch.until(() => burstWatch.revisions().at(-1) === last, 'every event, in bursts');
    const events = (c: Collector): string[] =>
      c.events.map(
        (e) => `${e.type} ${e.kv.key}=${dec(e.kv.value)}@${e.kv.modRevision}/${String(e.prevKv?.modRevision)}`,
      );
    assert.deepEqual(events(burstWatch), events(oneWatch));
    assert.deepEqual(burstWatch.revisions(), range(1, last));
  });

  test('compare-and-swap inside a batch sees the earlier writes of the same batch', async () => {
    const s = newSqliteStore();
    await s.create('/base', enc('0'));
    const before = s.stats();
    const results = await Promise.allSettled([
      s.create('/k', enc('one')), // 2
      s.update('/k', enc('two'), 2), // 3
      s.update('/k', enc('stale'), 2), // conflict at 3
      s.update('/k', enc('three')), // 4
      s.delete('/k', 4), // 5
      s.update('/k', enc('gone')), // not-found
      s.create('/k', enc('again')), // 6
      s.create('/k', enc('twice')), // key-exists
    ]);
    assert.equal(s.stats().batches - before.batches, 1);
    const outcome = results.map((r) =>
      r.status === 'fulfilled'
        ? `${dec(r.value.value)} ${r.value.createRevision}/${r.value.modRevision}`
        : `${(r.reason as StoreError).code}${(r.reason as StoreError).revision !== undefined ? ` at ${(r.reason as StoreError).revision}` : ''}`,
    );
    assert.deepEqual(outcome, [
      'one 2/2',
      'two 2/3',
      'DKC_STORE_CONFLICT at 3',
      'three 2/4',
      'three 2/5',
      'DKC_STORE_NOT_FOUND',
      'again 6/6',
      'DKC_STORE_KEY_EXISTS',
    ]);
    const k = await s.get('/k');
    assert.deepEqual(k && { value: dec(k.value), createRevision: k.createRevision, modRevision: k.modRevision }, {
      value: 'again',
      createRevision: 6,
      modRevision: 6,
    });
    // Lists at the revisions inside the batch see each intermediate state.
    const at = async (rev: number): Promise<string[]> =>
      (await s.list('/k', { revision: rev })).items.map((kv) => `${dec(kv.value)}@${kv.modRevision}`);
    assert.deepEqual(await at(3), ['two@3']);
    assert.deepEqual(await at(4), ['three@4']);
    assert.deepEqual(await at(5), []);
    assert.deepEqual(await at(6), ['again@6']);
  });

  test("a batch's watch events arrive in revision order, for live and replaying watchers alike", async () => {
    const s = newSqliteStore();
    for (let i = 0; i < 5; i++) await s.create(`/o/${i}`, enc(`c${i}`));
    const start = await s.currentRevision();
    const all = new Collector();
    const onlyO = new Collector();
    s.watch('', start, all.handlers);
    const rand = prng(11);
    const writes: Promise<KeyValue>[] = [];
    for (let i = 0; i < 60; i++) {
      const key = rand() < 0.2 ? `/p/${i}` : `/o/${Math.floor(rand() * 5)}`;
      const r = rand();
      if (key.startsWith('/p/')) writes.push(s.create(key, enc(`p${i}`)));
      else if (r < 0.15) writes.push(s.delete(key));
      else if (r < 0.3) writes.push(s.create(key, enc(`r${i}`)));
      else writes.push(s.update(key, enc(`u${i}`)));
    }
    // Registered after the writes were issued but before they commit: it still sees every one of them.
    s.watch('/o/', start, onlyO.handlers);
    const settled = await Promise.allSettled(writes);
    const committed = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    assert.ok(committed.length > 30 && committed.length < 60, `${committed.length} writes committed`);
    assert.deepEqual(
      committed.map((kv) => kv.modRevision),
      range(start + 1, start + committed.length),
    );
    await all.until(() => all.events.length === committed.length, 'every committed write');
    await onlyO.until(
      () => onlyO.events.length === committed.filter((kv) => kv.key.startsWith('/o/')).length,
      'writes under /o/',
    );
    const show = (e: WatchEvent): string => `${e.type} ${e.kv.key}=${dec(e.kv.value)}@${e.kv.modRevision}`;
    const expected = committed.map((kv) => `${kv.key}@${kv.modRevision}`);
    assert.deepEqual(
      all.events.map((e) => `${e.kv.key}@${e.kv.modRevision}`),
      expected,
    );
    assert.deepEqual(
      onlyO.events.map((e) => `${e.kv.key}@${e.kv.modRevision}`),
      expected.filter((k) => k.startsWith('/o/')),
    );
    assert.ok(all.batches < all.events.length, 'a batch of writes is delivered as a batch of events');
    const replay = new Collector();
    s.watch('', start, replay.handlers);
    await replay.until(() => replay.events.length === committed.length, 'the replay');
    assert.deepEqual(replay.events.map(show), all.events.map(show));
    assert.deepEqual(
      replay.events.map((e) => JSON.stringify(e.prevKv && { ...e.prevKv, value: dec(e.prevKv.value) })),
      all.events.map((e) => JSON.stringify(e.prevKv && { ...e.prevKv, value: dec(e.prevKv.value) })),
    );
  });

  test('close commits the writes still queued, delivers them, then refuses new ones', async () => {
    const path = dbPath();
    const s = SqliteStore.open({ path });
    await s.create('/q/taken', enc('t'));
    const watcher = new Collector();
    s.watch('/q/', 1, watcher.handlers);
    const pending = [...range(0, 9).map((i) => s.create(`/q/${i}`, enc(`v${i}`))), s.create('/q/taken', enc('again'))];
    const settled = Promise.allSettled(pending);
    await s.close();
    const results = await settled;
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value.modRevision : (r.reason as StoreError).code)),
      [...range(2, 11), 'DKC_STORE_KEY_EXISTS'],
    );
    assert.deepEqual(watcher.revisions(), range(2, 11), 'watchers get the flushed writes before the end');
    assert.equal(watcher.errors[0]?.code, 'DKC_STORE_UNAVAILABLE');
    await rejectsWith(s.create('/q/late', enc('x')), 'DKC_STORE_UNAVAILABLE');
    await rejectsWith(s.delete('/q/0'), 'DKC_STORE_UNAVAILABLE');
    // Let the commit scheduled before close run: it must find nothing to do.
    await new Promise((r) => setImmediate(r));

    const reopened = newSqliteStore(path);
    assert.equal(await reopened.currentRevision(), 11);
    assert.equal((await reopened.list('/q/')).items.length, 11);
  });

  test('a failing transaction rejects its whole batch and consumes no revision', async () => {
    const path = dbPath();
    const first = SqliteStore.open({ path });
    await first.create('/before', enc('b'));
    await first.close();
    // A trigger makes SQLite itself fail the write of one key, inside the batch's transaction.
    const db = new Database(path);
    db.exec(
      `CREATE TRIGGER boom BEFORE INSERT ON history WHEN NEW.key = '/boom' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
    );
    db.close();

    const s = newSqliteStore(path);
    const watcher = new Collector();
    s.watch('/', 1, watcher.handlers);
    const before = s.stats();
    const results = await Promise.allSettled([
      s.create('/a', enc('a')),
      s.create('/boom', enc('x')),
      s.update('/before', enc('changed'), 1),
      s.create('/before', enc('refused anyway')),
    ]);
    for (const r of results) {
      assert.equal(r.status, 'rejected');
      assert.ok(r.reason instanceof StoreError);
      assert.equal(r.reason.code, 'DKC_STORE_INTERNAL');
    }
    assert.equal(s.stats().batches, before.batches);
    assert.equal(await s.currentRevision(), 1, 'the revision counter is restored');
    assert.equal(await s.get('/a'), undefined);
    assert.equal(dec((await s.get('/before'))!.value), 'b');

    const next = await s.create('/after', enc('ok'));
    assert.equal(next.modRevision, 2);
    await watcher.until(() => watcher.events.length === 1, 'the next write');
    assert.deepEqual(watcher.revisions(), [2], 'nothing of the failed batch reached a watcher');
  });
});

describe('file modes', () => {
  const mode = (p: string) => statSync(p).mode & 0o777;

  test('a new database, its directory and its write-ahead log are private to their owner', async () => {
    const path = join(dir, 'private', 'nested', 'dkc.db');
    const store = await openSqliteStore({ path });
    open.push(store);
    await store.create('/registry/k', enc('v'));
    assert.equal(mode(join(dir, 'private', 'nested')), 0o700);
    assert.equal(mode(path), 0o600);
    assert.equal(mode(`${path}-wal`), 0o600);
  });

  test('a database an earlier run left readable by others is tightened on open, with its -wal and -shm', async () => {
    const path = dbPath();
    const first = await openSqliteStore({ path });
    await first.create('/registry/k', enc('v'));
    await first.close();
    for (const p of [path, `${path}-wal`, `${path}-shm`]) {
      writeFileSync(p, '', { flag: 'a' });
      chmodSync(p, 0o644);
    }
    const again = await openSqliteStore({ path });
    open.push(again);
    assert.equal(dec((await again.get('/registry/k'))!.value), 'v');
    for (const p of [path, `${path}-wal`, `${path}-shm`]) assert.equal(mode(p), 0o600, p);
  });
});
