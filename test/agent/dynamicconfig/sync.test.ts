// The sync algorithm's decisions (upstream's configsync cases) over a real checkpoint store in a temp dir:
// when it restarts, what it checkpoints and records, and the sync-error overrides it reports.

import { after, afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointStore } from '../../../src/agent/dynamicconfig/checkpoint.js';
import { ConfigStatusManager } from '../../../src/agent/dynamicconfig/status.js';
import { ConfigSync } from '../../../src/agent/dynamicconfig/sync.js';
import type { NodeConfigSource } from '../../../src/agent/dynamicconfig/source.js';
import { noGauges } from './fixtures/gauges.js';
import { ApiError, ClientError, statusFromResponse } from '../../../src/client/errors.js';

const dirs: string[] = [];
// A failed assertion must not leave a sync retrying (its timer would keep the test process alive).
const syncs: ConfigSync[] = [];
afterEach(() => {
  for (const s of syncs.splice(0)) s.stop();
});
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const ref = { name: 'cm', namespace: 'kube-system', kubeletConfigKey: 'kubelet' };

interface SetupOptions {
  source: NodeConfigSource | undefined;
  assigned?: NodeConfigSource;
  download?: () => Promise<{ uid?: string; resourceVersion?: string; data?: Record<string, string> }>;
  /** Replaces the fixed `source` (e.g. a Node cache that is not filled yet). */
  nodeConfigSource?: () => NodeConfigSource | undefined;
  ready?: () => Promise<boolean>;
}

async function setup(opts: SetupOptions) {
  const dir = await mkdtemp(join(tmpdir(), 'dkc-sync-'));
  dirs.push(dir);
  const store = new CheckpointStore(dir);
  await store.initialize();
  if (opts.assigned) await store.setAssigned(opts.assigned);
  const status = new ConfigStatusManager(noGauges);
  const restarts: (NodeConfigSource | undefined)[] = [];
  const sync = new ConfigSync({
    store,
    status,
    nodeConfigSource: opts.nodeConfigSource ?? (() => opts.source),
    ...(opts.ready ? { ready: opts.ready } : {}),
    download: opts.download ?? (async () => ({ uid: 'u1', resourceVersion: '7', data: { kubelet: 'payload' } })),
    restart: async (s) => {
      restarts.push(s);
    },
    retryDelayMs: () => 60_000,
  });
  syncs.push(sync);
  return { store, status, restarts, sync };
}

/** Runs one sync and waits until it has finished (the loop is asynchronous). */
async function syncOnce(ctx: Awaited<ReturnType<typeof setup>>): Promise<void> {
  ctx.sync.poke();
  await ctx.sync.idle();
  ctx.sync.stop();
}

/** A promise and the function that resolves it. */
function signal<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve: (v: T) => void = () => undefined;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const resolved = { configMap: { ...ref, uid: 'u1', resourceVersion: '7' } };

describe('ConfigSync', () => {
  it('source nil, assigned nil: no restart', async () => {
    const ctx = await setup({ source: undefined });
    await syncOnce(ctx);
    assert.deepEqual(ctx.restarts, []);
  });
  it('source nil, assigned non-nil: records cleared, restart to local', async () => {
    const ctx = await setup({ source: undefined, assigned: resolved });
    await ctx.store.setLastKnownGood(resolved);
    await syncOnce(ctx);
    assert.deepEqual(ctx.restarts, [undefined]);
    assert.equal(await ctx.store.assigned(), undefined);
    assert.equal(await ctx.store.lastKnownGood(), undefined);
  });
  it('source non-nil, assigned nil: checkpoint, record, restart with the downloaded uid and resourceVersion', async () => {
    const ctx = await setup({ source: { configMap: ref } });
    await syncOnce(ctx);
    assert.deepEqual(ctx.restarts, [resolved]);
    assert.deepEqual(await ctx.store.assigned(), resolved);
    assert.equal(Buffer.from((await ctx.store.load(resolved)).bytes).toString(), 'payload');
  });
  it('source equal to assigned: no restart, sync error cleared', async () => {
    const ctx = await setup({ source: { configMap: ref }, assigned: resolved });
    ctx.status.setErrorOverride('failed to sync: stale');
    await syncOnce(ctx);
    assert.deepEqual(ctx.restarts, []);
    assert.equal(ctx.status.current().error, undefined);
  });
  it('a new resourceVersion of the same ConfigMap: restart', async () => {
    const ctx = await setup({
      source: { configMap: ref },
      assigned: { configMap: { ...ref, uid: 'u1', resourceVersion: '6' } },
    });
    await syncOnce(ctx);
    assert.deepEqual(ctx.restarts, [resolved]);
  });
  it('download failure: the download sync error, no restart, records untouched', async () => {
    const ctx = await setup({
      source: { configMap: ref },
      assigned: resolved,
      download: async () => Promise.reject(new Error('configmaps "cm" not found')),
    });
    await syncOnce(ctx);
    assert.deepEqual(ctx.restarts, []);
    assert.equal(ctx.status.current().error, 'failed to sync: failed to download config, see Kubelet log for details');
    assert.deepEqual(await ctx.store.assigned(), resolved);
  });
  it('a ConfigMap without a UID: the internal sync error', async () => {
    const ctx = await setup({ source: { configMap: ref }, download: async () => ({ resourceVersion: '1', data: {} }) });
    await syncOnce(ctx);
    assert.deepEqual(ctx.restarts, []);
    assert.equal(ctx.status.current().error, 'failed to sync: internal failure, see Kubelet log for details');
  });
  it('a source that changes while a download fails is synced at once, not after the retry delay (60 s here)', async () => {
    // The bench's race: the agent downloads the ConfigMap its Node named, the Node is re-pointed meanwhile, the node
    // authorizer denies the old ConfigMap, and the informer's poke for the new source arrives during that download.
    const downloading = signal<(err: Error) => void>();
    const opts: SetupOptions = {
      source: { configMap: ref },
      assigned: resolved,
      download: async () => {
        if (opts.source?.configMap?.name === 'cm') return new Promise((_, reject) => downloading.resolve(reject));
        return { uid: 'u2', resourceVersion: '9', data: { kubelet: 'payload' } };
      },
    };
    const ctx = await setup(opts);
    ctx.sync.poke();
    const denyOld = await downloading.promise;
    opts.source = { configMap: { ...ref, name: 'cm2' } };
    ctx.sync.poke();
    denyOld(new Error('configmaps "cm" is forbidden: User "system:node:n" cannot get resource "configmaps"'));
    await ctx.sync.idle();
    ctx.sync.stop();
    assert.deepEqual(ctx.restarts, [{ configMap: { ...ref, name: 'cm2', uid: 'u2', resourceVersion: '9' } }]);
  });
  it('a download the API server did not answer (it is restarting) is retried after 200 ms, not the retry delay (60 s here)', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let downloads = 0;
    const ctx = await setup({
      source: { configMap: ref },
      download: async () => {
        if (++downloads > 2) return { uid: 'u1', resourceVersion: '7', data: { kubelet: 'payload' } };
        throw new ClientError('DKC_CLIENT_CONNECTION', 'GET https://127.0.0.1:6443/api: connect ECONNREFUSED');
      },
    });
    ctx.sync.poke();
    await ctx.sync.idle();
    assert.equal(downloads, 1);
    assert.equal(ctx.status.current().error, 'failed to sync: failed to download config, see Kubelet log for details');
    t.mock.timers.tick(200); // the first retry: 200 ms less up to a fifth at random
    await ctx.sync.idle();
    assert.equal(downloads, 2, 'retried after at most 200 ms');
    t.mock.timers.tick(400); // the second: doubled
    await ctx.sync.idle();
    assert.equal(downloads, 3, 'retried again after at most 400 ms');
    assert.deepEqual(ctx.restarts, [resolved]);
  });
  it('a download the API server refused waits for the retry delay (60 s here): only an unanswered one backs off', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let downloads = 0;
    const ctx = await setup({
      source: { configMap: ref },
      download: async () => {
        if (++downloads > 1) return { uid: 'u1', resourceVersion: '7', data: { kubelet: 'payload' } };
        throw new ApiError(statusFromResponse(404, { message: 'configmaps "cm" not found' }));
      },
    });
    ctx.sync.poke();
    await ctx.sync.idle();
    t.mock.timers.tick(59_999);
    await ctx.sync.idle();
    assert.equal(downloads, 1, 'no retry before the retry delay');
    t.mock.timers.tick(1);
    await ctx.sync.idle();
    assert.equal(downloads, 2);
    assert.deepEqual(ctx.restarts, [resolved]);
  });
  it('a poke before the Node is cached (the ConfigMap informer listed first) waits for it: no internal failure', async () => {
    let cached = false;
    const synced = signal<boolean>();
    const asked = signal();
    const ctx = await setup({
      source: undefined,
      assigned: resolved,
      nodeConfigSource: () => {
        if (!cached) throw new Error('could not find Node "n" in the informer\'s cache');
        return { configMap: ref };
      },
      ready: () => {
        asked.resolve();
        return synced.promise;
      },
    });
    ctx.sync.poke();
    // The sync now waits for the cache (asked); without that wait it would have run and failed (idle).
    await Promise.race([asked.promise, ctx.sync.idle()]);
    assert.equal(ctx.status.current().error, undefined, 'nothing reported while the Node is not cached');
    cached = true;
    synced.resolve(true);
    await syncOnce(ctx);
    assert.equal(ctx.status.current().error, undefined);
    assert.deepEqual(ctx.restarts, [], 'the Node names the assigned config: nothing to do');
    assert.equal(Buffer.from((await ctx.store.load(resolved)).bytes).toString(), 'payload', 'the sync ran once ready');
  });
  it('a Node cache that never fills (the agent stops first): no sync, no error', async () => {
    const ctx = await setup({
      source: { configMap: ref },
      nodeConfigSource: () => {
        throw new Error('could not find Node "n" in the informer\'s cache');
      },
      ready: async () => false,
    });
    await syncOnce(ctx);
    assert.equal(ctx.status.current().error, undefined);
    assert.deepEqual(ctx.restarts, []);
  });
  it('a source with no subfield: the all-nil sync error', async () => {
    const ctx = await setup({ source: {} });
    await syncOnce(ctx);
    assert.equal(
      ctx.status.current().error,
      'failed to sync: invalid NodeConfigSource, exactly one subfield must be non-nil, but all were nil',
    );
  });
});

describe('what the store keeps', () => {
  it('five replaces of an assigned ConfigMap with a big extra key leave only the kubelet key of assigned and last-known-good', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dkc-sync-prune-'));
    dirs.push(dir);
    const store = new CheckpointStore(dir);
    await store.initialize();
    const big = 'x'.repeat(900_000);
    for (let rv = 1; rv <= 5; rv++) {
      const sync = new ConfigSync({
        store,
        status: new ConfigStatusManager(noGauges),
        nodeConfigSource: () => ({ configMap: ref }),
        download: async () => ({ uid: 'u1', resourceVersion: String(rv), data: { kubelet: `v${rv}`, big } }),
        restart: async () => undefined,
        retryDelayMs: () => 60_000,
      });
      syncs.push(sync);
      sync.poke();
      await sync.idle();
      sync.stop();
      // The second version passes its trial: last-known-good from then on.
      if (rv === 2) await store.setLastKnownGood(await store.assigned());
      // What the restart after each new assignment does before it starts the kubelet (controller.bootstrap).
      await store.prune();
    }
    const files: string[] = [];
    for (const uid of await readdir(join(dir, 'store', 'checkpoints'))) {
      for (const rv of await readdir(join(dir, 'store', 'checkpoints', uid))) {
        for (const f of await readdir(join(dir, 'store', 'checkpoints', uid, rv))) files.push(`${uid}/${rv}/${f}`);
      }
    }
    assert.deepEqual(files.sort(), ['u1/2/kubelet', 'u1/5/kubelet']);
    assert.equal(await readFile(join(dir, 'store', 'checkpoints', 'u1', '5', 'kubelet'), 'utf8'), 'v5');
  });

  it('a checkpoint in use that no record names yet stays; one assigned again under another key gains that key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dkc-sync-prune-'));
    dirs.push(dir);
    const store = new CheckpointStore(dir);
    await store.initialize();
    const src = (rv: string, key = 'kubelet') => ({
      configMap: { ...ref, kubeletConfigKey: key, uid: 'u1', resourceVersion: rv },
    });
    await store.save({ uid: 'u1', resourceVersion: '1', files: { kubelet: 'a' } });
    await store.save({ uid: 'u1', resourceVersion: '2', files: { kubelet: 'b' } });
    await store.setAssigned(src('2'));
    assert.deepEqual(await store.prune([src('1')]), []);
    assert.deepEqual(await store.prune(), [join('u1', '1')]);
    assert.equal(await store.save({ uid: 'u1', resourceVersion: '2', files: { other: 'c' } }), true);
    await store.setAssigned(src('2', 'other'));
    assert.equal(Buffer.from((await store.load(src('2', 'other'))).bytes).toString(), 'c');
    assert.equal(Buffer.from((await store.load(src('2'))).bytes).toString(), 'b');
  });
});
