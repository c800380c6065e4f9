// The watch cache's edges, on an in-process server over SQLite: watchers leave the cache on every exit path (a watch
// dropped with 410 because its initial state alone is more than --watch-buffer-limit used to stay registered forever,
// 10 → 20 → 30), and a client that already saw a newer revision (failover from a fresher replica) never receives
// older events again: it waits for the cache, or gets kube-apiserver's 504 "Too large resource version".

import assert from 'node:assert/strict';
import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import type { ClusterPKI } from '../../src/pki/index.js';
import type { ApiServer } from '../../src/server/apiserver.js';
import { WatchCache, type EventType } from '../../src/server/watchcache.js';
import { chooseVictims, watchEncodeCount, WatchLimits } from '../../src/server/watchlimits.js';
import { issueCert } from '../../src/pki/index.js';
import { StatusError } from '../../src/api/errors.js';
import { StoreError, type Store, type WatchHandlers } from '../../src/storage/index.js';
import { waitFor } from '../helpers/wait.js';
import { requestOptions, startInProcessServer, type InProcessServer } from '../helpers/inprocessserver.js';

let api: InProcessServer;
let store: Store;
let server: ApiServer;
let pki: ClusterPKI;
let base: string;

const call = (method: string, path: string, body?: unknown): Promise<{ status: number; body: string }> =>
  api.call(method, path, { body });

before(async () => {
  api = await startInProcessServer('watchleak', { watchBufferLimit: 64 * 1024, maxWatchesPerUser: 25 });
  ({ store, server, pki, base } = api);
});

after(async () => {
  await api?.close();
});

describe('watchers of one name', () => {
  const enc = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));

  it("are offered only their object's events: others' changes are never matched against them", async () => {
    const cache = new WatchCache(store, '/test/named/', 100);
    await cache.start();
    const from = cache.currentRevision;
    const offered: string[] = [];
    const got: string[] = [];
    const sink = (name: string | undefined, into: string[]) => ({
      ...(name !== undefined ? { name } : {}),
      matches: (o: { metadata: { name?: string } }) => {
        if (name !== undefined) offered.push(o.metadata.name ?? '');
        return name === undefined || o.metadata.name === name;
      },
      deliver: (evs: { type: EventType; object: { metadata: { name?: string } } }[]) =>
        into.push(...evs.map((e) => `${e.type} ${e.object.metadata.name}`)),
      terminate: () => undefined,
    });
    const all: string[] = [];
    const handles = [cache.watch(from, sink('n-7', got)), cache.watch(from, sink(undefined, all))];
    try {
      for (let i = 0; i < 10; i++) await store.create(`/test/named/n-${i}`, enc({ metadata: { name: `n-${i}` } }));
      await store.update(`/test/named/n-7`, enc({ metadata: { name: 'n-7', labels: { a: 'b' } } }));
      await store.delete(`/test/named/n-7`);
      await waitFor('the cache applied the writes', async () => (all.length === 12 ? true : undefined), 5_000);
      assert.deepEqual(got, ['ADDED n-7', 'MODIFIED n-7', 'DELETED n-7']);
      assert.ok(
        offered.every((n) => n === 'n-7'),
        `matched against ${[...new Set(offered)].join(', ')}`,
      );
      handles[0]!.cancel();
      await store.create('/test/named/n-7', enc({ metadata: { name: 'n-7' } }));
      await waitFor('the cache applied the write', async () => (all.length === 13 ? true : undefined), 5_000);
      assert.equal(got.length, 3, 'a cancelled watcher gets nothing more');
    } finally {
      handles.forEach((h) => h.cancel());
      cache.stop();
    }
  });
});

describe('changes since a revision', () => {
  const enc = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));

  it('are the events after it while the window holds them, and unknown once it has moved past', async () => {
    const cache = new WatchCache(store, '/test/since/', 3);
    await cache.start();
    try {
      const start = cache.currentRevision;
      for (const n of ['a', 'b']) await store.create(`/test/since/${n}`, enc({ metadata: { name: n } }));
      await waitFor(
        'the cache applied the writes',
        async () => (cache.currentRevision >= start + 2 ? true : undefined),
        5_000,
      );
      assert.deepEqual(
        cache.changesSince(start)?.map((c) => `${c.type} ${c.object.metadata.name}`),
        ['ADDED a', 'ADDED b'],
      );
      assert.deepEqual(
        cache.changesSince(start + 1)?.map((c) => c.object.metadata.name),
        ['b'],
      );
      assert.deepEqual(cache.changesSince(start + 2), []);
      for (const n of ['c', 'd', 'e']) await store.create(`/test/since/${n}`, enc({ metadata: { name: n } }));
      await waitFor(
        'the cache applied the writes',
        async () => (cache.currentRevision >= start + 5 ? true : undefined),
        5_000,
      );
      assert.equal(cache.changesSince(start), undefined);
    } finally {
      cache.stop();
    }
  });
});

describe('watcher bookkeeping', () => {
  it('a watch dropped for an initial state beyond the buffer limit leaves no watcher behind', async () => {
    const big = 'x'.repeat(200 * 1024);
    assert.equal(
      (await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'big' }, data: { big } }))
        .status,
      201,
    );
    const baseline = server.watcherCount();
    for (let round = 1; round <= 3; round++) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => call('GET', '/api/v1/namespaces/default/configmaps?watch=true')),
      );
      for (const a of answers) assert.match(a.body, /"type":"ERROR".*"code":410/);
      await waitFor(
        `no watcher left after round ${round}`,
        async () => (server.watcherCount() === baseline ? true : undefined),
        5_000,
      );
    }
    assert.equal(server.watcherCount(), baseline);
  });
});

describe('resourceVersions newer than the cache', () => {
  const enc = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));

  it('a watcher starting after a future revision never sees events at or below it', async () => {
    const cache = new WatchCache(store, '/test/floor/', 100);
    await cache.start();
    try {
      const start = cache.currentRevision;
      const got: { type: EventType; rv: number }[] = [];
      const handle = cache.watch(start + 2, {
        matches: () => true,
        deliver: (evs) => got.push(...evs.map((e) => ({ type: e.type, rv: e.rv }))),
        terminate: () => undefined,
      });
      for (const n of ['a', 'b', 'c']) await store.create(`/test/floor/${n}`, enc({ metadata: { name: n } }));
      await waitFor(
        'the cache applied the writes',
        async () => (cache.currentRevision >= start + 3 ? true : undefined),
        5_000,
      );
      handle.cancel();
      assert.deepEqual(got, [{ type: 'ADDED', rv: start + 3 }]);
    } finally {
      cache.stop();
    }
  });

  it('waitForRevision resolves when the cache catches up, and answers 504 Too large resource version otherwise', async () => {
    const cache = new WatchCache(store, '/test/wait/', 100);
    await cache.start();
    try {
      const rv = cache.currentRevision;
      const caughtUp = cache.waitForRevision(rv + 1, 5_000);
      await store.create('/test/wait/x', enc({ metadata: { name: 'x' } }));
      await caughtUp;
      await assert.rejects(cache.waitForRevision((await store.currentRevision()) + 50, 100), (err: unknown) => {
        assert.ok(err instanceof StatusError);
        assert.equal(err.code, 504);
        assert.equal(err.status.reason, 'Timeout');
        assert.match(err.status.message ?? '', /^Timeout: Too large resource version: \d+, current: \d+$/);
        assert.deepEqual(err.status.details?.causes, [
          { reason: 'ResourceVersionTooLarge', message: 'Too large resource version' },
        ]);
        assert.equal(err.status.details?.retryAfterSeconds, 1);
        return true;
      });
    } finally {
      cache.stop();
    }
  });

  it('a watch from a future resourceVersion gets 504 instead of hanging', async () => {
    const list = JSON.parse((await call('GET', '/api/v1/namespaces/default/configmaps')).body) as {
      metadata: { resourceVersion: string };
    };
    const future = Number(list.metadata.resourceVersion) + 1000;
    const t0 = Date.now();
    const r = await call('GET', `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${future}`);
    assert.equal(r.status, 504, r.body);
    assert.equal((JSON.parse(r.body) as { reason: string }).reason, 'Timeout');
    assert.ok(Date.now() - t0 >= 2_500, 'waits for the cache first');
  });
});

describe('watch cache restart', () => {
  const enc = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));

  it('is not ready while it relists, keeps its last state for readers meanwhile, and retries until the store answers', async () => {
    let failLists = 0;
    let handlers: WatchHandlers | undefined;
    const flaky: Store = Object.create(store) as Store;
    flaky.list = async (prefix, opts) => {
      if (failLists > 0) {
        failLists--;
        throw new Error('store unavailable');
      }
      return store.list(prefix, opts);
    };
    flaky.watch = (prefix, from, h) => {
      handlers = h;
      return store.watch(prefix, from, h);
    };
    await store.create('/test/restart/a', enc({ metadata: { name: 'a' } }));
    const cache = new WatchCache(flaky, '/test/restart/', 100);
    await cache.start();
    try {
      assert.equal(cache.isReady, true);
      failLists = 3;
      handlers!.onError(new StoreError('DKC_STORE_UNAVAILABLE', 'watch stream broke'));
      assert.equal(cache.isReady, false, 'not ready while relisting');
      assert.deepEqual(
        cache.snapshot().map((o) => o.metadata.name),
        ['a'],
        'readers keep the last complete state',
      );
      await store.create('/test/restart/b', enc({ metadata: { name: 'b' } }));
      await waitFor('relisted', async () => (cache.isReady ? true : undefined), 10_000);
      assert.equal(failLists, 0, 'every failed relist was retried');
      assert.deepEqual(
        cache
          .snapshot()
          .map((o) => o.metadata.name)
          .sort(),
        ['a', 'b'],
      );
    } finally {
      cache.stop();
    }
  });

  it('an undecodable stored value removes the old object instead of leaving it behind a newer revision', async () => {
    const cache = new WatchCache(store, '/test/garbage/', 100);
    await store.create('/test/garbage/g', enc({ metadata: { name: 'g' } }));
    await cache.start();
    try {
      const kv = await store.update('/test/garbage/g', new TextEncoder().encode('{not json'));
      await waitFor(
        'the cache applied the write',
        async () => (cache.currentRevision >= kv.modRevision ? true : undefined),
        5_000,
      );
      assert.deepEqual(cache.snapshot(), []);
    } finally {
      cache.stop();
    }
  });
});

/** Opens a watch as `cert` and keeps its response unread (paused) until closed. */
function openWatch(
  path: string,
  cert: { certPem: string; keyPem: string },
): Promise<{ status: number; headers: Record<string, unknown>; close(): void; firstLine(): Promise<string> }> {
  return new Promise((resolve, reject) => {
    const req = request(requestOptions(new URL(path, base), 'GET', pki, cert), (res) => {
      res.pause();
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        close: () => req.destroy(),
        firstLine: () =>
          new Promise((r) => {
            let text = '';
            res.on('data', (d: Buffer) => {
              text += d.toString();
              const i = text.indexOf('\n');
              if (i >= 0) r(text.slice(0, i));
            });
            res.resume();
          }),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('what watches may cost', () => {
  it('each event is encoded once, however many watchers receive it', async () => {
    const before = server.watcherCount();
    const watches = await Promise.all(
      Array.from({ length: 20 }, () =>
        openWatch('/api/v1/namespaces/default/configmaps?watch=true&labelSelector=shared%3Dyes', pki.admin),
      ),
    );
    try {
      await waitFor('20 watchers', async () => (server.watcherCount() === before + 20 ? true : undefined), 5_000);
      const c0 = watchEncodeCount();
      assert.equal(
        (
          await call('POST', '/api/v1/namespaces/default/configmaps', {
            metadata: { name: 'shared', labels: { shared: 'yes' } },
            data: { v: 'x'.repeat(10_000) },
          })
        ).status,
        201,
      );
      const lines = await Promise.all(watches.map((w) => w.firstLine()));
      for (const l of lines) assert.match(l, /^\{"type":"ADDED","object":\{.*"name":"shared"/);
      assert.equal(watchEncodeCount() - c0, 1);
    } finally {
      for (const w of watches) w.close();
    }
  });

  it('a user holding the most watches allowed gets 429 with Retry-After, until one ends', async () => {
    const walter = await issueCert(
      { certPem: pki.ca.certPem, keyPem: pki.ca.keyPem! },
      { commonName: 'walter', organizations: ['system:masters'], usages: ['client'] },
    );
    const held = await Promise.all(Array.from({ length: 25 }, () => openWatch('/api/v1/nodes?watch=true', walter)));
    try {
      for (const w of held) assert.equal(w.status, 200);
      const refused = await openWatch('/api/v1/nodes?watch=true', walter);
      assert.equal(refused.status, 429);
      assert.equal(refused.headers['retry-after'], '1');
      assert.equal(server.watchLimits.watchesOf('walter'), 25);
      const other = await openWatch('/api/v1/nodes?watch=true', pki.admin);
      assert.equal(other.status, 200, 'the limit is per user');
      other.close();
      held.pop()!.close();
      await waitFor(
        'a slot freed',
        async () => (server.watchLimits.watchesOf('walter') === 24 ? true : undefined),
        5_000,
      );
      const again = await openWatch('/api/v1/nodes?watch=true', walter);
      assert.equal(again.status, 200);
      held.push(again);
    } finally {
      for (const w of held) w.close();
    }
  });

  it('over the buffer budget, the watchers furthest behind are dropped first', () => {
    const dropped: string[] = [];
    const limits = new WatchLimits({ maxWatchesPerUser: 10, bufferBudget: 100 });
    const a = limits.admit('u', () => dropped.push('a'));
    const b = limits.admit('u', () => dropped.push('b'));
    const c = limits.admit('u', () => dropped.push('c'));
    limits.update(a, 10);
    limits.update(b, 80);
    assert.deepEqual(dropped, []);
    limits.update(c, 30);
    assert.deepEqual(dropped, ['b']);
    assert.equal(limits.bufferedBytes, 40);
    assert.equal(limits.watchesOf('u'), 2);
    assert.deepEqual(
      chooseVictims([{ buffered: 5 }, { buffered: 50 }, { buffered: 40 }], 95, 10).map((e) => e.buffered),
      [50, 40],
    );
  });
});
