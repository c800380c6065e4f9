import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { ApiError, Informer, objectKey, RestClient, type KubeObject } from '../../src/client/index.js';
import { cm, FakeTimers, json, makeTestPKI, ScriptedServer, startWatch, status, type Recorded } from './harness.js';

const PATH = '/api/v1/namespaces/ns/configmaps';
const WATCH_TIMEOUT = 60;
/** Backoff timers are short; the per-watch watchdog is (timeout + 30) s. */
const isBackoff = (t: { ms: number }): boolean => t.ms < WATCH_TIMEOUT * 1000;
const isWatch = (r: Recorded): boolean => r.url.searchParams.get('watch') === 'true';
const isList = (r: Recorded): boolean => r.method === 'GET' && !isWatch(r);

type Step = (req: Recorded, res: ServerResponse) => void | Promise<void>;

let server: ScriptedServer;
let client: RestClient;
let lists: Step[];
let watches: Step[];

function listOf(rv: string, items: Record<string, unknown>[]): Step {
  return (_req, res) =>
    json(res, 200, { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: rv }, items });
}

/** A watch that stays open (after sending `events`) until the informer stops or the server closes. */
function holdOpen(...events: [string, unknown][]): Step {
  return async (_req, res) => {
    const w = startWatch(res);
    for (const [type, obj] of events) await w.send(type, obj);
  };
}

before(async () => {
  const pki = await makeTestPKI();
  server = new ScriptedServer(pki);
  const url = await server.start();
  client = new RestClient({ server: url, ca: pki.ca.certPem, cert: pki.client.certPem, key: pki.client.keyPem });
  server.handler = async (req, res) => {
    const next = isWatch(req) ? watches.shift() : lists.shift();
    if (next) await next(req, res);
    else if (isWatch(req)) await holdOpen()(req, res);
    else json(res, 500, status(500, 'InternalError', 'no scripted list left'));
  };
});
after(async () => {
  client.close();
  await server.close();
});
beforeEach(() => {
  lists = [];
  watches = [];
  server.requests.length = 0;
});

/** Records handler calls as short strings, and lets a test await the n-th one. */
class Recorder {
  readonly log: string[] = [];
  readonly errors: unknown[] = [];
  private waiters: { n: number; resolve: () => void }[] = [];
  constructor(informer: Informer<KubeObject>) {
    const rv = (o: KubeObject): string => o.metadata?.resourceVersion ?? '?';
    informer.on('add', (o) => this.push(`add ${objectKey(o)} ${rv(o)}`));
    informer.on('update', (a, b) => this.push(`update ${objectKey(b)} ${rv(a)}->${rv(b)}`));
    informer.on('delete', (o) => this.push(`delete ${objectKey(o)} ${rv(o)}`));
    informer.on('error', (e) => this.errors.push(e));
  }
  private push(s: string): void {
    this.log.push(s);
    this.waiters = this.waiters.filter((w) => {
      if (this.log.length < w.n) return true;
      w.resolve();
      return false;
    });
  }
  count(n: number): Promise<void> {
    if (this.log.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ n, resolve }));
  }
}

function newInformer(timers: FakeTimers, random = () => 0): Informer<KubeObject> {
  return new Informer<KubeObject>(client, PATH, { clock: timers, random, watchTimeoutSeconds: WATCH_TIMEOUT });
}

describe('Informer', () => {
  it('lists, watches, and relists after an ERROR 410 event followed by the stream closing', async () => {
    const timers = new FakeTimers();
    lists = [listOf('10', [cm('a', '1'), cm('b', '2')]), listOf('20', [cm('a', '11'), cm('c', '12')])];
    watches = [
      async (_req, res) => {
        const w = startWatch(res);
        await w.send('MODIFIED', cm('a', '11'));
        await w.send('ERROR', status(410, 'Expired', 'too old resource version: 11 (19)'));
        w.end();
      },
    ];
    const inf = newInformer(timers);
    const rec = new Recorder(inf);
    assert.equal(inf.hasSynced(), false);
    inf.start();
    try {
      const secondWatch = await server.waitForRequest(isWatch, 2);
      assert.equal(inf.hasSynced(), true);
      assert.deepEqual(rec.log, ['add ns/a 1', 'add ns/b 2', 'update ns/a 1->11', 'add ns/c 12', 'delete ns/b 2']);
      assert.equal(server.requests.filter(isList).length, 2);
      assert.equal(server.requests.filter(isWatch)[0]!.url.searchParams.get('resourceVersion'), '10');
      assert.equal(secondWatch.url.searchParams.get('resourceVersion'), '20');
      assert.equal(secondWatch.url.searchParams.get('allowWatchBookmarks'), 'true');
      assert.equal(secondWatch.url.searchParams.get('timeoutSeconds'), String(WATCH_TIMEOUT));
      assert.deepEqual(inf.store.keys().sort(), ['ns/a', 'ns/c']);
      assert.equal(inf.store.get('ns/a')?.metadata?.resourceVersion, '11');
      assert.equal(inf.lastSyncResourceVersion, '20');
      assert.deepEqual(timers.pending(isBackoff), [], 'a relist after progress needs no backoff');
      assert.deepEqual(rec.errors, []);
    } finally {
      await inf.stop();
    }
  });

  it('re-watches from the last resourceVersion (bookmarks included) after a clean close, without relisting', async () => {
    const timers = new FakeTimers();
    lists = [listOf('5', [])];
    watches = [
      async (_req, res) => {
        const w = startWatch(res);
        await w.send('ADDED', cm('x', '6'));
        await w.send('BOOKMARK', { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '8' } });
        w.end();
      },
      holdOpen(['ADDED', cm('y', '9')], ['DELETED', cm('x', '10')]),
    ];
    const inf = newInformer(timers);
    const rec = new Recorder(inf);
    inf.start();
    try {
      await rec.count(3);
      assert.deepEqual(rec.log, ['add ns/x 6', 'add ns/y 9', 'delete ns/x 10']);
      const w = server.requests.filter(isWatch);
      assert.deepEqual(
        w.map((r) => r.url.searchParams.get('resourceVersion')),
        ['5', '8'],
      );
      assert.equal(server.requests.filter(isList).length, 1);
      assert.deepEqual(inf.store.keys(), ['ns/y']);
      assert.equal(inf.lastSyncResourceVersion, '10');
      assert.deepEqual(timers.pending(isBackoff), []);
    } finally {
      await inf.stop();
    }
  });

  it('relists when the watch itself is refused with 410, backing off since the list was just made', async () => {
    const timers = new FakeTimers();
    lists = [listOf('30', [cm('a', '30')]), listOf('40', [cm('a', '35')])];
    watches = [(_req, res) => json(res, 410, status(410, 'Expired', 'too old resource version: 30 (39)'))];
    const inf = newInformer(timers);
    const rec = new Recorder(inf);
    inf.start();
    try {
      const t = await timers.next(isBackoff);
      assert.equal(t.ms, 200);
      assert.equal(server.requests.filter(isList).length, 1);
      timers.fire(t);
      const w2 = await server.waitForRequest(isWatch, 2);
      assert.equal(w2.url.searchParams.get('resourceVersion'), '40');
      assert.deepEqual(rec.log, ['add ns/a 30', 'update ns/a 30->35']);
      assert.deepEqual(rec.errors, [], '410 is routine, not an error');
    } finally {
      await inf.stop();
    }
  });

  it('backs off exponentially after 500s, then syncs', async () => {
    const timers = new FakeTimers();
    const boom = (): Step => (_req, res) => json(res, 500, status(500, 'InternalError', 'etcdserver: leader changed'));
    lists = [boom(), boom(), listOf('7', [cm('a', '1')])];
    const inf = newInformer(timers);
    const rec = new Recorder(inf);
    const synced = inf.whenSynced();
    inf.start();
    try {
      const t1 = await timers.next(isBackoff);
      assert.equal(t1.ms, 200);
      assert.equal(rec.errors.length, 1);
      assert.ok(rec.errors[0] instanceof ApiError);
      assert.equal(rec.errors[0].code, 500);
      assert.equal(server.requests.length, 1, 'nothing is retried before the timer fires');
      timers.fire(t1);
      const t2 = await timers.next(isBackoff);
      assert.equal(t2.ms, 400);
      timers.fire(t2);
      assert.equal(await synced, true);
      const w = await server.waitForRequest(isWatch);
      assert.equal(w.url.searchParams.get('resourceVersion'), '7');
      assert.deepEqual(rec.log, ['add ns/a 1']);
      assert.equal(server.requests.filter(isList).length, 3);
    } finally {
      await inf.stop();
    }
  });

  it('backs off before re-watching when a watch ends at once without events, and after a non-410 ERROR event', async () => {
    const timers = new FakeTimers();
    lists = [listOf('3', [])];
    watches = [
      (_req, res) => {
        startWatch(res).end();
      },
      async (_req, res) => {
        const w = startWatch(res);
        await w.send('ERROR', status(500, 'InternalError', 'watch cache broke'));
        w.end();
      },
    ];
    const inf = newInformer(timers);
    const rec = new Recorder(inf);
    inf.start();
    try {
      const t1 = await timers.next(isBackoff);
      assert.equal(t1.ms, 200);
      timers.fire(t1);
      const t2 = await timers.next(isBackoff);
      assert.equal(t2.ms, 400);
      assert.equal(rec.errors.length, 1);
      assert.equal((rec.errors[0] as ApiError).message, 'watch cache broke');
      timers.fire(t2);
      const w3 = await server.waitForRequest(isWatch, 3);
      assert.equal(w3.url.searchParams.get('resourceVersion'), '3');
      assert.equal(server.requests.filter(isList).length, 1, 'no relist for a non-410 error');
    } finally {
      await inf.stop();
    }
  });

  it('a watch that ran healthy before it broke off starts the backoff again from 200 ms, whatever failed before it', async () => {
    const timers = new FakeTimers();
    const boom = (): Step => (_req, res) => json(res, 500, status(500, 'InternalError', 'etcdserver: leader changed'));
    let breakOff: () => void = () => undefined;
    lists = [listOf('5', [])];
    watches = [
      boom(),
      boom(),
      (_req, res) => {
        startWatch(res);
        breakOff = () => void res.socket?.destroy(); // the server killed mid-watch: no clean end
      },
    ];
    const inf = newInformer(timers);
    inf.start();
    try {
      for (const ms of [200, 400]) {
        const t = await timers.next(isBackoff);
        assert.equal(t.ms, ms);
        timers.fire(t);
      }
      await server.waitForRequest(isWatch, 3);
      timers.advance(1000); // the watch stays open (quiet) for minWatchDurationMs
      breakOff();
      const t3 = await timers.next(isBackoff);
      assert.equal(t3.ms, 200, 'a new outage: not the 800 ms of a third failure in a row');
    } finally {
      await inf.stop();
    }
  });

  it('a resumed watch refused with 410 (a restarted server) relists at once, without the backoff of the failures before', async () => {
    const timers = new FakeTimers();
    const refused = (): Step => (_req, res) => void res.socket?.destroy();
    lists = [listOf('50', [cm('a', '50')]), listOf('60', [cm('a', '55')])];
    watches = [
      async (_req, res) => {
        const w = startWatch(res);
        await w.send('MODIFIED', cm('a', '51'));
        res.socket?.destroy(); // the server killed: it is down for three tries, then back without that history
      },
      refused(),
      refused(),
      (_req, res) => json(res, 410, status(410, 'Expired', 'too old resource version: 51 (58)')),
    ];
    const inf = newInformer(timers);
    const rec = new Recorder(inf);
    inf.start();
    try {
      for (const ms of [200, 400, 800]) {
        const t = await timers.next(isBackoff);
        assert.equal(t.ms, ms);
        timers.fire(t);
      }
      const next = await Promise.race([
        server.waitForRequest(isList, 2).then(() => 'relist'),
        timers.next(isBackoff).then((t) => `backoff ${t.ms} ms`),
      ]);
      assert.equal(next, 'relist');
      const w = await server.waitForRequest(isWatch, 5);
      assert.equal(w.url.searchParams.get('resourceVersion'), '60');
      assert.deepEqual(rec.log, ['add ns/a 50', 'update ns/a 50->51', 'update ns/a 51->55']);
    } finally {
      await inf.stop();
    }
  });

  it('computes capped, jittered delays', () => {
    const timers = new FakeTimers();
    const inf = newInformer(timers);
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7, 8, 50, 5000].map((n) => inf.backoffDelay(n)),
      [200, 400, 800, 1600, 3200, 6400, 10000, 10000, 10000, 10000],
    );
    const jittered = newInformer(timers, () => 0.5);
    assert.equal(jittered.backoffDelay(1), 180);
    assert.equal(jittered.backoffDelay(10), 9000);
    const custom = new Informer<KubeObject>(client, PATH, {
      clock: timers,
      random: () => 0.999,
      backoff: { initialMs: 100, maxMs: 1000, jitter: 1 },
    });
    assert.ok(custom.backoffDelay(3) > 0 && custom.backoffDelay(3) < 1);
  });

  it('stops promptly while backing off, and whenSynced then reports false', async () => {
    const timers = new FakeTimers();
    lists = [(_req, res) => json(res, 503, status(503, 'ServiceUnavailable', 'not ready'))];
    const inf = newInformer(timers);
    const synced = inf.whenSynced();
    inf.start();
    const t = await timers.next(isBackoff);
    await inf.stop();
    assert.equal(t.cleared, true);
    assert.equal(await synced, false);
    assert.equal(server.requests.length, 1);
  });

  it('stops an open watch and calls no handler afterwards; a throwing handler does not stop it', async () => {
    const timers = new FakeTimers();
    lists = [listOf('1', [cm('a', '1'), cm('b', '1')])];
    const inf = newInformer(timers);
    const rec = new Recorder(inf);
    inf.on('add', (o) => {
      if (o.metadata?.name === 'a') throw new Error('handler bug');
    });
    inf.start();
    await server.waitForRequest(isWatch);
    assert.deepEqual(rec.log, ['add ns/a 1', 'add ns/b 1']);
    assert.equal((rec.errors[0] as Error).message, 'handler bug');
    await inf.stop();
    assert.equal(inf.hasSynced(), true);
    assert.deepEqual(timers.pending(isBackoff), []);
  });
});
