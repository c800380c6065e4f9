import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, ClientError, RestClient, WatchDecoder, type WatchEvent } from '../../src/client/index.js';
import { cm, json, makeTestPKI, ScriptedServer, startWatch, status } from './harness.js';

describe('WatchDecoder', () => {
  const a = JSON.stringify({ type: 'ADDED', object: cm('a', '1', { k: 'héllo ✓' }) });
  const b = JSON.stringify({ type: 'MODIFIED', object: cm('a', '2') });
  const c = JSON.stringify({ type: 'DELETED', object: cm('a', '3') });

  it('joins an event split across chunks, at every possible byte boundary', () => {
    const bytes = Buffer.from(a + '\n', 'utf8');
    for (let cut = 1; cut < bytes.length; cut++) {
      const d = new WatchDecoder();
      const first = d.push(bytes.subarray(0, cut));
      const second = d.push(bytes.subarray(cut));
      assert.equal(first.length, 0, `cut ${cut}`);
      assert.equal(second.length, 1, `cut ${cut}`);
      assert.deepEqual(second[0], JSON.parse(a));
      assert.deepEqual(d.end(), []);
    }
  });

  it('splits several events in one chunk, and events over three chunks', () => {
    const d = new WatchDecoder();
    const text = `${a}\n${b}\n${c}\n`;
    const out: WatchEvent<unknown>[] = [];
    out.push(...d.push(Buffer.from(text.slice(0, a.length + 5))));
    assert.equal(out.length, 1);
    out.push(...d.push(Buffer.from(text.slice(a.length + 5, a.length + 10))));
    out.push(...d.push(Buffer.from(text.slice(a.length + 10))));
    assert.deepEqual(
      out.map((e) => e.type),
      ['ADDED', 'MODIFIED', 'DELETED'],
    );
  });

  it('accepts a final event without a newline, blank lines and CRLF', () => {
    const d = new WatchDecoder();
    assert.equal(d.push(`\n${a}\r\n\n`).length, 1);
    assert.deepEqual(d.push(b), []);
    assert.deepEqual(
      d.end().map((e) => e.type),
      ['MODIFIED'],
    );
  });

  it('rejects lines that are not watch events', () => {
    assert.throws(
      () => new WatchDecoder().push('nope\n'),
      (e: unknown) => e instanceof ClientError && e.code === 'DKC_CLIENT_WATCH_DECODE',
    );
    assert.throws(() => new WatchDecoder().push('{"type":"WHATEVER","object":{}}\n'), {
      code: 'DKC_CLIENT_WATCH_DECODE',
    });
    assert.throws(() => new WatchDecoder().push('{"type":"ADDED"}\n'), { code: 'DKC_CLIENT_WATCH_DECODE' });
  });
});

describe('RestClient.watch', () => {
  let server: ScriptedServer;
  let client: RestClient;
  before(async () => {
    const pki = await makeTestPKI();
    server = new ScriptedServer(pki);
    const url = await server.start();
    client = new RestClient({ server: url, ca: pki.ca.certPem, cert: pki.client.certPem, key: pki.client.keyPem });
  });
  after(async () => {
    client.close();
    await server.close();
  });

  it('sends the watch parameters and yields events written in odd pieces, ERROR included, until the server ends', async () => {
    const e1 = JSON.stringify({ type: 'ADDED', object: cm('a', '11') }) + '\n';
    const e2 =
      JSON.stringify({ type: 'BOOKMARK', object: { kind: 'ConfigMap', metadata: { resourceVersion: '12' } } }) + '\n';
    const e3 =
      JSON.stringify({ type: 'ERROR', object: status(410, 'Expired', 'too old resource version: 5 (12)') }) + '\n';
    server.handler = async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const pieces = [e1.slice(0, 7), e1.slice(7) + e2.slice(0, 3), e2.slice(3) + e3];
      for (const p of pieces) await new Promise<void>((r) => res.write(p, () => r()));
      res.end();
    };
    const stream = await client.watch<Record<string, unknown>>('/api/v1/namespaces/ns/configmaps', {
      resourceVersion: '10',
      fieldSelector: 'metadata.name=a',
      labelSelector: 'x=y',
      allowWatchBookmarks: true,
      timeoutSeconds: 30,
    });
    const events: WatchEvent<Record<string, unknown>>[] = [];
    for await (const ev of stream) events.push(ev);
    assert.deepEqual(
      events.map((e) => e.type),
      ['ADDED', 'BOOKMARK', 'ERROR'],
    );
    const err = events[2]!;
    assert.equal(err.type, 'ERROR');
    if (err.type === 'ERROR') assert.equal(err.object.code, 410);
    const q = Object.fromEntries(server.requests.at(-1)!.url.searchParams);
    assert.deepEqual(q, {
      watch: 'true',
      resourceVersion: '10',
      fieldSelector: 'metadata.name=a',
      labelSelector: 'x=y',
      allowWatchBookmarks: 'true',
      timeoutSeconds: '30',
    });
  });

  it('rejects with ApiError when the server refuses the watch', async () => {
    server.handler = (_req, res) => json(res, 410, status(410, 'Expired', 'too old resource version: 1 (50)'));
    await assert.rejects(client.watch('/api/v1/nodes', { resourceVersion: '1' }), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.code, 410);
      assert.equal(e.reason, 'Expired');
      return true;
    });
  });

  it('ends the iteration quietly on close() and on abort', async () => {
    server.handler = async (_req, res) => {
      const w = startWatch(res);
      await w.send('ADDED', cm('a', '1'));
    };
    const stream = await client.watch('/api/v1/x');
    let n = 0;
    for await (const _ of stream) {
      n++;
      stream.close();
    }
    assert.equal(n, 1);

    const ac = new AbortController();
    const aborted = await client.watch('/api/v1/x', { signal: ac.signal });
    let m = 0;
    for await (const _ of aborted) {
      m++;
      ac.abort();
    }
    assert.equal(m, 1);
  });

  it('throws WATCH_STREAM when the connection breaks off mid-stream', async () => {
    server.handler = async (_req, res) => {
      const w = startWatch(res);
      await w.send('ADDED', cm('a', '1'));
      res.socket?.destroy();
    };
    const stream = await client.watch('/api/v1/x');
    const seen: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const ev of stream) seen.push(ev.type);
      })(),
      (e: unknown) => e instanceof ClientError && e.code === 'DKC_CLIENT_WATCH_STREAM',
    );
    assert.deepEqual(seen, ['ADDED']);
  });
});
