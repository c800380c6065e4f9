// Behaviour of the etcd Store backend against a real etcd: the same contract the SQLite store's tests check
// (write semantics, CAS, prefix lists with pagination and at past revisions, watch replay and live delivery,
// compaction), plus what only etcd has: several stores (replicas) over one etcd, watches that survive the loss
// of a member of a 3-member cluster, and compaction coordinated through the shared marker key.
// Every test uses its own key prefix, so revisions are compared relative to the test's own writes.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openStore, StoreError, type Store, type WatchEvent, type WatchHandlers } from '../../src/storage/index.js';
import { COMPACT_REV_KEY, EtcdStore } from '../../src/storage/etcd.js';
import { startEtcd, type EtcdCluster } from '../helpers/etcd.js';

let etcd: Awaited<ReturnType<typeof startEtcd>>;
let seq = 0;
const open: Store[] = [];

before(async () => {
  etcd = await startEtcd();
});

after(async () => {
  for (const s of open) await s.close().catch(() => undefined);
  await etcd?.cleanup();
});

async function newStore(options: { prefix?: string; endpoints?: string[] } = {}): Promise<Store> {
  const store = await openStore({
    kind: 'etcd',
    endpoints: options.endpoints ?? etcd.endpoints,
    prefix: options.prefix ?? `/t${++seq}`,
    compactionIntervalMs: 0,
  });
  open.push(store);
  return store;
}

const enc = (s: string): Uint8Array => Buffer.from(s, 'utf8');
const dec = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');

async function rejectsWith(p: Promise<unknown>, code: string): Promise<StoreError> {
  let caught: unknown;
  try {
    await p;
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof StoreError, `expected a StoreError '${code}', got ${String(caught)}`);
  assert.equal(caught.code, code);
  return caught;
}

class Collector {
  readonly events: WatchEvent[] = [];
  readonly errors: StoreError[] = [];
  private waiters: { pred: () => boolean; resolve: () => void }[] = [];
  readonly handlers: WatchHandlers = {
    onEvents: (events) => {
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

  async until(pred: () => boolean, what: string, ms = 15_000): Promise<void> {
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

describe('writes and revisions', () => {
  test('create, get, update, delete use etcd revisions; CAS refusals say why', async () => {
    const s = await newStore();
    const c = await s.create('/a', enc('1'));
    assert.equal(c.createRevision, c.modRevision);
    assert.equal(await s.currentRevision(), c.modRevision);
    await rejectsWith(s.create('/a', enc('again')), 'DKC_STORE_KEY_EXISTS');
    const u = await s.update('/a', enc('2'), c.modRevision);
    assert.equal(u.createRevision, c.createRevision);
    assert.ok(u.modRevision > c.modRevision);
    const conflict = await rejectsWith(s.update('/a', enc('3'), c.modRevision), 'DKC_STORE_CONFLICT');
    assert.equal(conflict.revision, u.modRevision);
    await rejectsWith(s.update('/missing', enc('x')), 'DKC_STORE_NOT_FOUND');
    await rejectsWith(s.delete('/missing'), 'DKC_STORE_NOT_FOUND');
    const got = await s.get('/a');
    assert.equal(dec(got!.value), '2');
    assert.equal(got!.modRevision, u.modRevision);
    await rejectsWith(s.delete('/a', c.modRevision), 'DKC_STORE_CONFLICT');
    const d = await s.delete('/a', u.modRevision);
    assert.equal(dec(d.value), '2');
    assert.equal(d.createRevision, c.createRevision);
    assert.ok(d.modRevision > u.modRevision);
    assert.equal(await s.get('/a'), undefined);
    // Recreated: a new create revision.
    const again = await s.create('/a', enc('new'));
    assert.equal(again.createRevision, again.modRevision);
    await assert.rejects(s.get(''), RangeError);
  });

  test('move puts the value under the new key and deletes the old one in one transaction', async () => {
    const s = await newStore();
    const c = await s.create('/old/a', enc('A'));
    const u = await s.update('/old/a', enc('A2'));
    const watch = new Collector();
    s.watch('/', u.modRevision, watch.handlers);
    const moved = await s.move('/old/a', '/new/a', u.modRevision);
    assert.equal(moved.key, '/new/a');
    assert.equal(dec(moved.value), 'A2');
    assert.equal(moved.createRevision, moved.modRevision);
    assert.equal(await s.currentRevision(), moved.modRevision, 'one etcd transaction, one revision');
    assert.equal(await s.get('/old/a'), undefined);
    assert.equal(dec((await s.get('/new/a'))!.value), 'A2');
    await watch.until(() => watch.events.length === 2, 'the move');
    assert.deepEqual(
      watch.events.map((e) => [e.type, e.kv.key, e.kv.modRevision]),
      [
        ['put', '/new/a', moved.modRevision],
        ['delete', '/old/a', moved.modRevision],
      ],
    );
    assert.equal(watch.events[1]!.kv.createRevision, c.createRevision);

    await s.create('/from', enc('f'));
    await s.create('/to', enc('t'));
    const before = await s.currentRevision();
    await rejectsWith(s.move('/from', '/to'), 'DKC_STORE_KEY_EXISTS');
    await rejectsWith(s.move('/missing', '/elsewhere'), 'DKC_STORE_NOT_FOUND');
    await rejectsWith(s.move('/from', '/elsewhere', 1), 'DKC_STORE_CONFLICT');
    await assert.rejects(s.move('/from', '/from'), RangeError);
    assert.equal(await s.currentRevision(), before, 'a refused move changes nothing');
    assert.equal(dec((await s.get('/from'))!.value), 'f');
  });

  test('replicas moving the same keys at once: each key moves once, and none comes back after a delete', async () => {
    const prefix = `/t${++seq}`;
    const [a, b] = [await newStore({ prefix }), await newStore({ prefix })];
    const keys = Array.from({ length: 20 }, (_, i) => `/old/${i}`);
    for (const k of keys) await a.create(k, enc(k));
    const listed = (await a.list('/old/')).items;
    const outcomes = await Promise.allSettled(
      listed.flatMap((kv) => [a, b].map((s) => s.move(kv.key, kv.key.replace('/old/', '/new/'), kv.modRevision))),
    );
    assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, keys.length);
    for (const o of outcomes)
      if (o.status === 'rejected')
        assert.ok(['DKC_STORE_NOT_FOUND', 'DKC_STORE_KEY_EXISTS'].includes((o.reason as StoreError).code));
    assert.equal((await a.list('/old/')).items.length, 0);
    assert.equal((await a.list('/new/')).items.length, keys.length);
    // A replica that listed before the move, after a user deleted the moved object: the stale move is refused.
    await a.delete('/new/0');
    await rejectsWith(b.move(listed[0]!.key, '/new/0', listed[0]!.modRevision), 'DKC_STORE_NOT_FOUND');
    assert.equal(await a.get('/new/0'), undefined);
  });

  test('concurrent CAS updates of one key: exactly one wins per revision', async () => {
    const s = await newStore();
    const base = await s.create('/k', enc('0'));
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => s.update('/k', enc(String(i)), base.modRevision)),
    );
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    for (const r of results)
      if (r.status === 'rejected') assert.equal((r.reason as StoreError).code, 'DKC_STORE_CONFLICT');
  });
});

describe('list', () => {
  test('prefix lists in byte order, pagination with limit/startAfter, and reads at a past revision', async () => {
    const s = await newStore();
    const keys = ['/p/a', '/p/b', '/p/c', '/p/é', '/p/z', '/pz', '/q/a'];
    for (const k of keys) await s.create(k, enc(k));
    const all = await s.list('/p/');
    assert.deepEqual(
      all.items.map((kv) => kv.key),
      ['/p/a', '/p/b', '/p/c', '/p/z', '/p/é'],
    );
    assert.equal(all.more, false);
    const rev = all.revision;

    const pages: string[] = [];
    let after: string | undefined;
    for (let i = 0; i < 10; i++) {
      const page = await s.list('/p/', {
        limit: 2,
        revision: rev,
        ...(after !== undefined ? { startAfter: after } : {}),
      });
      assert.equal(page.revision, rev);
      pages.push(...page.items.map((kv) => kv.key));
      if (!page.more) break;
      after = page.items.at(-1)!.key;
    }
    assert.deepEqual(
      pages,
      all.items.map((kv) => kv.key),
    );

    // Changes after `rev` do not show in a read at `rev`.
    await s.update('/p/a', enc('changed'));
    await s.delete('/p/b');
    await s.create('/p/new', enc('n'));
    const old = await s.list('/p/', { revision: rev });
    assert.deepEqual(
      old.items.map((kv) => kv.key),
      all.items.map((kv) => kv.key),
    );
    assert.equal(dec(old.items[0]!.value), '/p/a');
    const now = await s.list('/p/');
    assert.deepEqual(
      now.items.map((kv) => kv.key),
      ['/p/a', '/p/c', '/p/new', '/p/z', '/p/é'],
    );
    assert.ok(now.revision > rev);
    // A future revision is a programming error, as in the SQLite store.
    await assert.rejects(s.list('/p/', { revision: now.revision + 1000 }), RangeError);
  });

  test('an empty prefix lists the whole store and nothing outside it', async () => {
    const s = await newStore();
    const other = await newStore();
    await s.create('/x', enc('1'));
    await s.create('/y', enc('2'));
    await other.create('/x', enc('not mine'));
    const all = await s.list('');
    assert.deepEqual(
      all.items.map((kv) => kv.key),
      ['/x', '/y'],
    );
  });
});

describe('watch', () => {
  test('replays from a past revision, then continues live, in order, without gap; values and prevKv as the contract says', async () => {
    const s = await newStore();
    const first = await s.create('/w/a', enc('one'));
    await s.update('/w/a', enc('two'));
    await s.create('/other', enc('not watched'));
    const c = new Collector();
    s.watch('/w/', first.modRevision - 1, c.handlers);
    const deleted = await s.delete('/w/a');
    let last = deleted.modRevision;
    for (let i = 0; i < 50; i++) last = (await s.create(`/w/live-${i}`, enc(String(i)))).modRevision;
    await c.until(() => c.revisions().at(-1) === last, 'the last write');
    const revs = c.revisions();
    assert.equal(revs.length, 53);
    for (let i = 1; i < revs.length; i++) assert.ok(revs[i]! > revs[i - 1]!, 'strictly increasing');
    const [created, updated, del] = c.events as [WatchEvent, WatchEvent, WatchEvent];
    assert.equal(created.type, 'put');
    assert.equal(created.prevKv, undefined);
    assert.equal(updated.type, 'put');
    assert.equal(dec(updated.prevKv!.value), 'one');
    assert.equal(del.type, 'delete');
    assert.equal(dec(del.kv.value), 'two');
    assert.equal(del.kv.createRevision, first.createRevision);
    assert.equal(del.kv.modRevision, deleted.modRevision);
    assert.equal(c.errors.length, 0);
  });

  test('a write through one store is seen by a watch on another (two replicas over one etcd)', async () => {
    const prefix = `/shared${++seq}`;
    const a = await newStore({ prefix });
    const b = await newStore({ prefix });
    const c = new Collector();
    b.watch('/r/', await b.currentRevision(), c.handlers);
    const written: number[] = [];
    for (let i = 0; i < 20; i++) written.push((await a.create(`/r/${i}`, enc(String(i)))).modRevision);
    await c.until(() => c.events.length === 20, '20 events');
    assert.deepEqual(c.revisions(), written);
  });

  test('compaction: older reads and watches fail with compacted; a live watch carries on across it', async () => {
    const s = await newStore();
    const c = new Collector();
    const early = await s.create('/c/0', enc('0'));
    s.watch('/c/', early.modRevision, c.handlers);
    let last = 0;
    for (let i = 1; i <= 10; i++) last = (await s.update('/c/0', enc(String(i)))).modRevision;
    await c.until(() => c.revisions().at(-1) === last, 'writes before compaction');
    const compactedAt = last;
    await s.compact(compactedAt);
    assert.ok((await s.compactedRevision()) >= compactedAt);
    await rejectsWith(s.list('/c/', { revision: early.modRevision }), 'DKC_STORE_COMPACTED');
    assert.throws(
      () => s.watch('/c/', early.modRevision, { onEvents() {}, onError() {} }),
      (e: unknown) => e instanceof StoreError && e.code === 'DKC_STORE_COMPACTED',
    );
    for (let i = 11; i <= 20; i++) last = (await s.update('/c/0', enc(String(i)))).modRevision;
    await c.until(() => c.revisions().at(-1) === last, 'writes after compaction');
    assert.equal(c.events.length, 20);
    assert.equal(c.errors.length, 0);
    // The compaction is etcd-wide: another store learns it from the marker.
    const other = await newStore();
    assert.ok((await other.compactedRevision()) >= compactedAt);
    // The marker is not a key of any store.
    const unprefixed = await newStore({ prefix: '' });
    assert.ok(!(await unprefixed.list('')).items.some((kv) => kv.key === COMPACT_REV_KEY));
  });

  test('a watch from before a compaction another replica made ends with onError compacted', async () => {
    const prefix = `/shared${++seq}`;
    const a = await newStore({ prefix });
    const b = await newStore({ prefix });
    const first = await a.create('/k', enc('0'));
    for (let i = 0; i < 5; i++) await a.update('/k', enc(String(i)));
    await a.compact(await a.currentRevision());
    // b has not heard of the compaction, so it can only find out from etcd.
    const c = new Collector();
    b.watch('/', first.modRevision, c.handlers);
    await c.until(() => c.errors.length === 1, 'the compacted error');
    assert.equal(c.errors[0]!.code, 'DKC_STORE_COMPACTED');
    assert.ok(c.errors[0]!.revision! > first.modRevision);
  });

  test('cancel stops delivery; close ends watches with unavailable', async () => {
    const s = await newStore();
    const c1 = new Collector();
    const c2 = new Collector();
    const from = await s.currentRevision();
    const w1 = s.watch('/z/', from, c1.handlers);
    s.watch('/z/', from, c2.handlers);
    await s.create('/z/1', enc('1'));
    await c1.until(() => c1.events.length === 1, 'first event');
    w1.cancel();
    await s.create('/z/2', enc('2'));
    await c2.until(() => c2.events.length === 2, 'second event on the other watch');
    assert.equal(c1.events.length, 1);
    await s.close();
    assert.equal(c2.errors[0]?.code, 'DKC_STORE_UNAVAILABLE');
    await rejectsWith(s.get('/z/1'), 'DKC_STORE_UNAVAILABLE');
  });
});

describe('3-member cluster', () => {
  let cluster: EtcdCluster & { cleanup(): Promise<void> };
  before(async () => {
    cluster = await startEtcd({ members: 3 });
  });
  after(async () => cluster?.cleanup());

  test('writes and a watch carry on when a member is SIGKILLed; the member rejoins', async () => {
    const store = await EtcdStore.open({
      endpoints: cluster.endpoints,
      prefix: '/ha',
      compactionIntervalMs: 0,
      requestTimeoutMs: 5_000,
    });
    open.push(store);
    const c = new Collector();
    store.watch('/k/', await store.currentRevision(), c.handlers);
    const acked: number[] = [];
    const write = async (i: number) => {
      // Retried like a client would: a request caught by the kill may fail, but never half-succeed silently.
      for (let attempt = 0; attempt < 50; attempt++) {
        try {
          acked.push(
            (
              await store.update(`/k/${i}`, enc(String(i)), undefined).catch(async (e) => {
                if (e instanceof StoreError && e.code === 'DKC_STORE_NOT_FOUND')
                  return store.create(`/k/${i}`, enc(String(i)));
                throw e;
              })
            ).modRevision,
          );
          return;
        } catch (err) {
          if (!(err instanceof StoreError && err.code === 'DKC_STORE_UNAVAILABLE')) throw err;
          await new Promise((r) => setTimeout(r, 100)); // a client's pause before its retry, as the test plays a client
        }
      }
      throw new Error(`write ${i} never succeeded`);
    };
    for (let i = 0; i < 20; i++) await write(i);
    await cluster.members[0]!.kill();
    for (let i = 20; i < 60; i++) await write(i);
    await cluster.members[0]!.start();
    for (let i = 60; i < 80; i++) await write(i);
    await c.until(
      () => c.events.length >= acked.length && c.revisions().at(-1) === acked.at(-1),
      'every acknowledged write',
    );
    assert.equal(c.errors.length, 0);
    const revs = c.revisions();
    for (let i = 1; i < revs.length; i++) assert.ok(revs[i]! > revs[i - 1]!);
    for (const r of acked) assert.ok(revs.includes(r), `acknowledged revision ${r} delivered`);
    const listed = await store.list('/k/');
    assert.equal(listed.items.length, 80);
  });
});
