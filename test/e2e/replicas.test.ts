// Two `dkc server` replicas over one etcd: a watcher on replica B sees every change written through replica A, in
// order and without a gap, while etcd's history is compacted under it; a watcher that resumes on B from a
// resourceVersion older than the compaction is still served from B's watch cache; a list paginated on A can be
// continued on B; and B refuses with 410 a continue token older than the compaction, as kube-apiserver does.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, RestClient, type WatchEvent } from '../../src/client/index.js';
import { openStore, type Store } from '../../src/storage/index.js';
import { startEtcd } from '../helpers/etcd.js';
import { startReplicas } from '../helpers/replicas.js';
import type { RunningServer } from '../helpers/server.js';

interface Cm {
  metadata: { name: string; resourceVersion: string };
  data?: Record<string, string>;
}

let etcd: Awaited<ReturnType<typeof startEtcd>>;
let servers: RunningServer[] = [];
let a: RestClient;
let b: RestClient;
let store: Store;
const path = '/api/v1/namespaces/default/configmaps';

before(async () => {
  etcd = await startEtcd();
  servers = await startReplicas(2, etcd, ['--etcd-compaction-interval', '0']);
  a = await RestClient.fromKubeconfig(servers[0]!.kubeconfig);
  b = await RestClient.fromKubeconfig(servers[1]!.kubeconfig);
  store = await openStore({ kind: 'etcd', endpoints: etcd.endpoints, compactionIntervalMs: 0 });
});

after(async () => {
  a?.close();
  b?.close();
  await store?.close();
  for (const s of servers) await s.cleanup();
  await etcd?.cleanup();
});

/** Collects events of a watch until `pred` holds on them, or fails after `ms`. */
async function collectUntil(
  w: AsyncIterable<WatchEvent<Cm>> & { close(): void },
  pred: (evs: WatchEvent<Cm>[]) => boolean,
  ms: number,
): Promise<WatchEvent<Cm>[]> {
  const got: WatchEvent<Cm>[] = [];
  const timer = setTimeout(() => w.close(), ms);
  try {
    for await (const ev of w) {
      got.push(ev);
      if (pred(got)) break;
    }
  } finally {
    clearTimeout(timer);
  }
  return got;
}

describe('replicas over one etcd', () => {
  it('a watch resumed on B from a revision seen on A never repeats what the client already saw', async () => {
    let last: Cm | undefined;
    for (let i = 0; i < 30; i++) last = await a.create<Cm>(path, { metadata: { name: `fo-${i}` }, data: {} });
    // At once, before B's cache has necessarily applied A's burst (a client failing over from A to B).
    const w = await b.watch<Cm>(path, { resourceVersion: last!.metadata.resourceVersion });
    await a.create(path, { metadata: { name: 'fo-next' }, data: {} });
    const got = await collectUntil(w, (evs) => evs.some((e) => (e.object as Cm).metadata?.name === 'fo-next'), 10_000);
    w.close();
    assert.deepEqual(
      got.map((e) => [e.type, (e.object as Cm).metadata.name]),
      [['ADDED', 'fo-next']],
    );
  });

  it('a watch on B from a resourceVersion no replica has reached is 504 Too large resource version', async () => {
    const listed = await a.list<Cm>(path);
    await assert.rejects(
      b.watch<Cm>(path, { resourceVersion: String(Number(listed.metadata.resourceVersion) + 10_000) }),
      (err: unknown) => {
        assert.ok(err instanceof ApiError);
        assert.equal(err.code, 504);
        assert.equal(err.status.details?.causes?.[0]?.reason, 'ResourceVersionTooLarge');
        return true;
      },
    );
  });

  it('patches without a resourceVersion through both replicas at once all land (re-applied on conflict)', async () => {
    await a.create(path, { metadata: { name: 'both-patch' }, data: {} });
    const results = await Promise.allSettled(
      Array.from({ length: 120 }, (_, i) =>
        (i % 2 ? a : b).patch(`${path}/both-patch`, 'merge', { data: { [`k${i}`]: String(i) } }),
      ),
    );
    assert.deepEqual(
      results.filter((r) => r.status === 'rejected').map((r) => String(r.reason)),
      [],
    );
    const cm = await a.get<Cm>(`${path}/both-patch`);
    assert.equal(Object.keys(cm.data ?? {}).length, 120);
  });

  it('a watcher on B sees every write through A, in order, without gap, across a compaction', async () => {
    const first = await a.create<Cm>(path, { metadata: { name: 'cont' }, data: { n: '0' } });
    const w = await b.watch<Cm>(path, {
      resourceVersion: first.metadata.resourceVersion,
      fieldSelector: 'metadata.name=cont',
    });
    const acked: string[] = [];
    const writes = (async () => {
      for (let i = 1; i <= 200; i++) {
        const cm = await a.patch<Cm>(`${path}/cont`, 'merge', { data: { n: String(i) } });
        acked.push(cm.metadata.resourceVersion);
        // Compact etcd's history up to the newest write, twice, while the watch is running.
        if (i === 70 || i === 140) await store.compact(await store.currentRevision());
      }
    })();
    const events = await collectUntil(w, (evs) => evs.length >= 200, 60_000);
    await writes;
    w.close();
    assert.equal(events.length, 200, `got ${events.length} of 200 events`);
    assert.deepEqual(
      events.map((e) => e.type),
      Array(200).fill('MODIFIED'),
    );
    assert.deepEqual(
      events.map((e) => (e.object as Cm).metadata.resourceVersion),
      acked,
    );
    assert.deepEqual(
      events.map((e) => (e.object as Cm).data?.['n']),
      Array.from({ length: 200 }, (_, i) => String(i + 1)),
    );
    assert.ok((await store.compactedRevision()) > Number(first.metadata.resourceVersion));

    // Resuming on B from before the compactions: served from B's watch cache, still complete.
    const again = await b.watch<Cm>(path, {
      resourceVersion: first.metadata.resourceVersion,
      fieldSelector: 'metadata.name=cont',
    });
    const replay = await collectUntil(again, (evs) => evs.length >= 200, 20_000);
    again.close();
    assert.deepEqual(
      replay.map((e) => (e.object as Cm).metadata.resourceVersion),
      acked,
    );
  });

  it('a paginated list started on A continues on B; a token older than a compaction gets 410', async () => {
    for (let i = 0; i < 6; i++) await a.create(path, { metadata: { name: `page-${i}` }, data: {} });
    const p1 = await a.list<{ items: Cm[]; metadata: { continue?: string; resourceVersion: string } }>(path, {
      limit: 3,
    });
    assert.ok(p1.metadata.continue);
    await a.create(path, { metadata: { name: 'page-late' }, data: {} });
    const p2 = await b.list<{ items: Cm[]; metadata: { continue?: string; resourceVersion: string } }>(path, {
      limit: 100,
      continue: p1.metadata.continue,
    });
    assert.equal(
      p2.metadata.resourceVersion,
      p1.metadata.resourceVersion,
      'the same consistent revision on both replicas',
    );
    const names = [...p1.items, ...p2.items].map((o) => o.metadata.name);
    assert.ok(!names.includes('page-late'));
    for (let i = 0; i < 6; i++) assert.ok(names.includes(`page-${i}`));

    const p3 = await a.list<{ metadata: { continue?: string } }>(path, { limit: 2 });
    await a.create(path, { metadata: { name: 'after-token' }, data: {} });
    await store.compact(await store.currentRevision());
    try {
      await b.list(path, { limit: 2, continue: p3.metadata.continue });
      assert.fail('expected 410');
    } catch (err) {
      assert.ok(err instanceof ApiError, String(err));
      assert.equal(err.code, 410);
    }
  });
});
