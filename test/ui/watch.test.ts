// The page's list-then-watch (src/ui/live/watch.ts), run by node against a scripted API on loopback: a watch the
// server ends is resumed from the last resourceVersion without a list; a 410 Gone, as an ERROR event or as the
// watch's answer, and a connection cut mid-stream, both start again with a fresh list, and what the page holds is
// exactly the new list.

import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { listWatch, type Meta } from '../../src/ui/live/watch.js';

type Step = (req: http.IncomingMessage, res: http.ServerResponse) => void;

const node = (name: string, rv: string): Meta => ({ metadata: { name, resourceVersion: rv } });
const list =
  (rv: string, ...items: Meta[]): Step =>
  (_req, res) =>
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ metadata: { resourceVersion: rv }, items }));
const event = (type: string, object: unknown): string => JSON.stringify({ type, object }) + '\n';
/** A watch answering `lines`, then ending (`end`), cutting the connection (`cut`) or staying open (`hold`). */
const watch =
  (lines: string[], then: 'end' | 'cut' | 'hold'): Step =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    for (const l of lines) res.write(l);
    if (then === 'end') res.end();
    else if (then === 'cut') setTimeout(() => res.destroy(), 20);
  };

let stops: (() => void)[] = [];
let servers: http.Server[] = [];

afterEach(async () => {
  for (const s of stops) s();
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  stops = [];
  servers = [];
});

/** Serves `steps` in order and records each request's query; resolves `done` when the last step has been served. */
async function scripted(steps: Step[]): Promise<{ base: string; queries: URLSearchParams[]; done: Promise<void> }> {
  const queries: URLSearchParams[] = [];
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  const server = http.createServer((req, res) => {
    queries.push(new URL(req.url ?? '/', 'http://x').searchParams);
    const step = steps[queries.length - 1];
    if (!step) return void res.writeHead(500).end();
    step(req, res);
    if (queries.length === steps.length) finish();
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, queries, done };
}

/** Runs a list-watch against `base`; `until` resolves when the held items' names are `want`. */
function run(base: string): { until(want: string[]): Promise<void> } {
  let names: string[] = [];
  const waiting: { want: string; resolve: () => void }[] = [];
  const fetchAt: typeof fetch = (input, init) =>
    fetch(new URL(input instanceof Request ? input.url : input, base), init);
  stops.push(
    listWatch<Meta>(
      '/api/v1/nodes',
      { labelSelector: 'pool=a' },
      {
        items: (m) => {
          names = [...m.values()].map((o) => o.metadata.name!).sort();
          for (const w of waiting.splice(0))
            if (w.want === names.join()) w.resolve();
            else waiting.push(w);
        },
        connection: () => undefined,
      },
      fetchAt,
    ),
  );
  return {
    until: (want) =>
      names.join() === want.join()
        ? Promise.resolve()
        : new Promise((resolve) => waiting.push({ want: want.join(), resolve })),
  };
}

const shape = (q: URLSearchParams): string => (q.get('watch') ? `watch@${q.get('resourceVersion')}` : 'list');

describe('the page list-watch', () => {
  it('resumes a watch the server ended from the last resourceVersion, without listing again', async () => {
    const api = await scripted([
      list('10', node('a', '5')),
      watch([event('ADDED', node('b', '11'))], 'end'),
      watch([event('DELETED', node('a', '12'))], 'hold'),
    ]);
    const lw = run(api.base);
    await api.done;
    await lw.until(['b']);
    assert.deepEqual(api.queries.map(shape), ['list', 'watch@10', 'watch@11']);
    assert.ok(api.queries.every((q) => q.get('labelSelector') === 'pool=a'));
  });

  it('lists again on 410 Gone, as an ERROR event and as the answer, and holds exactly the new list', async () => {
    const gone = (_req: http.IncomingMessage, res: http.ServerResponse): void =>
      void res.writeHead(410, { 'content-type': 'application/json' }).end('{"kind":"Status","code":410}');
    const api = await scripted([
      list('10', node('a', '5')),
      watch(
        [event('ADDED', node('b', '11')), event('ERROR', { kind: 'Status', code: 410, reason: 'Expired' })],
        'hold',
      ),
      list('20', node('a', '5'), node('c', '19')),
      gone,
      list('30', node('d', '29')),
      watch([], 'hold'),
    ]);
    const lw = run(api.base);
    await api.done;
    await lw.until(['d']);
    assert.deepEqual(api.queries.map(shape), ['list', 'watch@10', 'list', 'watch@20', 'list', 'watch@30']);
  });

  it('lists again after the connection is cut mid-watch (a server restart)', async () => {
    const api = await scripted([
      list('10', node('a', '5')),
      watch([event('ADDED', node('b', '11'))], 'cut'),
      list('40', node('e', '39')),
      watch([], 'hold'),
    ]);
    const lw = run(api.base);
    await api.done;
    await lw.until(['e']);
    assert.deepEqual(api.queries.map(shape), ['list', 'watch@10', 'list', 'watch@40']);
  });
});
