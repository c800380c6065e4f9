// The server's /metrics: kube-apiserver's label values (verb, scope, dry_run) as pure functions, the inflight
// watermark, and a real `dkc server` whose requests show up under kube-apiserver's names, whose object counts follow
// the store, and whose /metrics only the system:monitoring group (or an admin) may read.

import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApiError, RestClient } from '../../src/client/index.js';
import { dryRunLabel, metricsScope, metricsVerb, Watermark } from '../../src/server/metrics.js';
import { parseRequestInfo } from '../../src/server/requestinfo.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { FakeClock } from '../helpers/fakeclock.js';

function verbOf(method: string, path: string, contentType?: string): string {
  const u = new URL(path, 'https://x');
  const info = parseRequestInfo(method, u.pathname, u.searchParams);
  return metricsVerb(method, info, metricsScope(info), contentType);
}

/** `name{a="b",...} value` lines of a text exposition, by series. */
export function parseExposition(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    out.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return out;
}

/** The series of `name` whose labels include every one of `labels`. */
export function series(exposition: Map<string, number>, name: string, labels: Record<string, string>): number[] {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const found: number[] = [];
  for (const [key, value] of exposition) {
    if (!key.startsWith(`${name}{`)) continue;
    const parts = key.slice(name.length + 1, -1).split(/,(?=[a-z_]+=")/);
    if (want.every((w) => parts.includes(w))) found.push(value);
  }
  return found;
}

describe('kube-apiserver metric labels', () => {
  it('reports verbs as kube-apiserver does', () => {
    assert.equal(verbOf('GET', '/api/v1/nodes'), 'LIST');
    assert.equal(verbOf('GET', '/api/v1/namespaces/default/configmaps'), 'LIST');
    assert.equal(verbOf('GET', '/api/v1/nodes/n1'), 'GET');
    assert.equal(verbOf('GET', '/api/v1/nodes?watch=true'), 'WATCH');
    assert.equal(verbOf('GET', '/api/v1/watch/nodes'), 'WATCH');
    assert.equal(verbOf('GET', '/api/v1/nodes/n1/proxy/configz'), 'CONNECT');
    assert.equal(verbOf('POST', '/api/v1/namespaces/default/configmaps'), 'POST');
    assert.equal(verbOf('PUT', '/api/v1/nodes/n1/status'), 'PUT');
    assert.equal(verbOf('PATCH', '/api/v1/nodes/n1', 'application/merge-patch+json'), 'PATCH');
    assert.equal(verbOf('PATCH', '/api/v1/nodes/n1', 'application/apply-patch+yaml'), 'APPLY');
    assert.equal(verbOf('DELETE', '/api/v1/namespaces/default/configmaps'), 'DELETE');
    assert.equal(verbOf('OPTIONS', '/api/v1/nodes'), 'other');
  });

  it('reports scopes and dry runs as kube-apiserver does', () => {
    const scope = (method: string, path: string) => metricsScope(parseRequestInfo(method, path, new URLSearchParams()));
    assert.equal(scope('GET', '/api/v1/nodes'), 'cluster');
    assert.equal(scope('GET', '/api/v1/namespaces/default/configmaps'), 'namespace');
    assert.equal(scope('GET', '/api/v1/namespaces/default/configmaps/a'), 'resource');
    assert.equal(scope('POST', '/api/v1/namespaces/default/configmaps'), 'resource');
    assert.equal(scope('GET', '/metrics'), '');
    assert.equal(dryRunLabel(new URLSearchParams('')), '');
    assert.equal(dryRunLabel(new URLSearchParams('dryRun=All&dryRun=All')), 'All');
    assert.equal(dryRunLabel(new URLSearchParams('dryRun=Some')), 'invalid');
  });

  it('keeps the highest inflight count of the last second', () => {
    const clock = new FakeClock(10_000);
    const w = new Watermark(clock);
    w.add(1);
    w.add(1);
    w.add(-1);
    assert.equal(w.read(), 2);
    clock.advance(1000);
    assert.equal(w.read(), 2, 'the last whole second still counts');
    clock.advance(1000);
    assert.equal(w.read(), 1, 'then only what is in flight');
    clock.advance(5000);
    w.add(-1);
    assert.equal(w.read(), 1, 'a second after a gap starts from what was current');
  });
});

describe('dkc server /metrics', () => {
  let server: RunningServer;
  let admin: RestClient;
  let monitor: RestClient;
  let stranger: RestClient;

  before(async () => {
    const { mkdtemp } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(join(tmpdir(), 'dkc-metrics-'));
    const tokens = join(dir, 'tokens.csv');
    await writeFile(tokens, 'monitor-token,prometheus,uid-p,"system:monitoring"\nstranger-token,stranger,uid-s\n');
    server = await startServer(['--token-auth-file', tokens, '--controllers='], { dataDir: dir });
    admin = await RestClient.fromKubeconfig(server.kubeconfig);
    const base = { server: server.url, ca: admin.config.ca };
    monitor = new RestClient({ ...base, token: 'monitor-token' });
    stranger = new RestClient({ ...base, token: 'stranger-token' });
  });

  after(async () => {
    for (const c of [admin, monitor, stranger]) c?.close();
    await server?.cleanup();
  });

  it('counts requests and observes their durations under kube-apiserver names and labels', async () => {
    const cms = '/api/v1/namespaces/default/configmaps';
    await admin.create(cms, { metadata: { name: 'm1' }, data: { a: '1' } });
    await admin.create(cms, { metadata: { name: 'm2' }, data: { a: '1' } }, { query: { dryRun: 'All' } });
    await admin.get(`${cms}/m1`);
    await admin.list(cms);
    await admin.get(`${cms}/absent`).catch(() => undefined);
    await admin.patch(`${cms}/m1`, 'merge', { data: { a: '2' } });
    const exp = parseExposition(await monitor.get<string>('/metrics'));
    const base = { group: '', version: 'v1', resource: 'configmaps', subresource: '', component: 'apiserver' };
    assert.deepEqual(
      series(exp, 'apiserver_request_total', { ...base, verb: 'POST', scope: 'resource', dry_run: '', code: '201' }),
      [1],
    );
    assert.deepEqual(
      series(exp, 'apiserver_request_total', { ...base, verb: 'POST', scope: 'resource', dry_run: 'All', code: '201' }),
      [1],
    );
    assert.deepEqual(
      series(exp, 'apiserver_request_total', { ...base, verb: 'GET', scope: 'resource', code: '200' }),
      [1],
    );
    assert.deepEqual(
      series(exp, 'apiserver_request_total', { ...base, verb: 'GET', scope: 'resource', code: '404' }),
      [1],
    );
    assert.deepEqual(
      series(exp, 'apiserver_request_total', { ...base, verb: 'LIST', scope: 'namespace', code: '200' }),
      [1],
    );
    assert.deepEqual(
      series(exp, 'apiserver_request_total', { ...base, verb: 'PATCH', scope: 'resource', code: '200' }),
      [1],
    );
    assert.deepEqual(
      series(exp, 'apiserver_request_duration_seconds_count', { ...base, verb: 'GET', scope: 'resource' }),
      [2],
    );
    assert.deepEqual(
      series(exp, 'apiserver_request_duration_seconds_bucket', { ...base, verb: 'GET', scope: 'resource', le: '60' }),
      [2],
    );
    assert.equal(series(exp, 'apiserver_request_total', { resource: 'nosuchthings' }).length, 0);
  });

  it('counts open watches as long-running and the objects of each resource', async () => {
    const ac = new AbortController();
    const stream = await admin.watch('/api/v1/namespaces', { signal: ac.signal });
    try {
      const exp = parseExposition(await monitor.get<string>('/metrics'));
      assert.deepEqual(
        series(exp, 'apiserver_longrunning_requests', { verb: 'WATCH', resource: 'namespaces', scope: 'cluster' }),
        [1],
      );
      assert.equal(series(exp, 'apiserver_current_inflight_requests', { request_kind: 'readOnly' }).length, 1);
      assert.equal(series(exp, 'apiserver_current_inflight_requests', { request_kind: 'mutating' }).length, 1);
      const namespaces = (await admin.list<{ items: unknown[] }>('/api/v1/namespaces')).items.length;
      assert.deepEqual(series(exp, 'apiserver_storage_objects', { resource: 'namespaces' }), [namespaces]);
      assert.equal(series(exp, 'apiserver_storage_objects', { resource: 'leases.coordination.k8s.io' }).length, 1);
    } finally {
      ac.abort();
      stream.close();
    }
  });

  it('serves /metrics to system:monitoring and refuses others', async () => {
    await assert.rejects(
      stranger.get('/metrics'),
      (err: unknown) => err instanceof ApiError && err.status.code === 403,
    );
    assert.match(await admin.get<string>('/metrics'), /^# HELP apiserver_request_total /m);
  });
});
