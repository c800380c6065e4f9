// The API server reads the time only from the clock it is given: objects' creation and deletion timestamps,
// managedFields' times, a CustomResourceDefinition's condition times and the AGE of table rows, in lists as in
// watches, all follow a fake clock that moves only when the test says so.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureClusterPKI, type ClusterPKI } from '../../src/pki/index.js';
import { ApiServer } from '../../src/server/apiserver.js';
import { openStore, type Store } from '../../src/storage/index.js';
import { FakeClock } from '../helpers/fakeclock.js';
import { widgetCrd } from '../helpers/crds.js';

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const clock = new FakeClock(Date.UTC(2024, 0, 15, 10, 0, 0));
let dir: string;
let store: Store;
let server: ApiServer;
let pki: ClusterPKI;
let base: string;

interface Obj {
  metadata: {
    name: string;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    managedFields?: { time?: string }[];
  };
  status?: { conditions?: { type: string; lastTransitionTime: string }[] };
}
interface Table {
  rows: { cells: unknown[]; object: { metadata: { name: string } } }[];
}

/** One request as the cluster admin; with `firstLine`, resolves with a stream's first line and ends it. */
function call(
  method: string,
  path: string,
  options: { body?: unknown; accept?: string; firstLine?: boolean } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(path, base);
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method,
        ca: pki.ca.certPem,
        cert: pki.admin.certPem,
        key: pki.admin.keyPem,
        headers: { 'content-type': 'application/json', ...(options.accept ? { accept: options.accept } : {}) },
        timeout: 20_000,
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => {
          text += d.toString();
          const nl = text.indexOf('\n');
          if (options.firstLine && nl >= 0) {
            resolve({ status: res.statusCode ?? 0, body: text.slice(0, nl) });
            req.destroy();
          }
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', () => undefined);
      },
    );
    req.on('error', (err) => (options.firstLine && req.destroyed ? undefined : reject(err)));
    req.end(options.body === undefined ? undefined : JSON.stringify(options.body));
  });
}

async function json<T>(method: string, path: string, options: Parameters<typeof call>[2] = {}): Promise<T> {
  const r = await call(method, path, options);
  assert.ok(r.status >= 200 && r.status < 300, `${method} ${path}: ${r.status} ${r.body}`);
  return JSON.parse(r.body) as T;
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dkc-serverclock-'));
  pki = await ensureClusterPKI(join(dir, 'pki'));
  store = await openStore({ kind: 'sqlite', path: join(dir, 'dkc.db') });
  server = new ApiServer({
    store,
    tls: { caPem: pki.ca.certPem, certPem: pki.apiserver.certPem, keyPem: pki.apiserver.keyPem },
    kubeletClient: pki.apiserverKubeletClient,
    clock,
  });
  await server.start();
  const addr = await server.listen(0, '127.0.0.1');
  base = `https://127.0.0.1:${addr.port}`;
});

after(async () => {
  await server?.close();
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the API server on its clock', () => {
  const configMaps = '/api/v1/namespaces/default/configmaps';

  it('stamps creation, managedFields and deletion with its time', async () => {
    const body = { metadata: { name: 'held', finalizers: ['example.com/hold'] } };
    const created = await json<Obj>('POST', configMaps, { body });
    assert.equal(created.metadata.creationTimestamp, '2024-01-15T10:00:00Z');
    assert.equal(created.metadata.managedFields?.[0]?.time, '2024-01-15T10:00:00Z');
    clock.advance(90_000);
    const deleting = await json<Obj>('DELETE', `${configMaps}/held`);
    assert.equal(deleting.metadata.deletionTimestamp, '2024-01-15T10:01:30Z');
  });

  it('ages table rows by its time, in a list and in a watch', async () => {
    await json('POST', configMaps, { body: { metadata: { name: 'aged' } } });
    clock.advance(5 * 60_000);
    const ageOf = (t: Table) => t.rows.find((r) => r.object.metadata.name === 'aged')?.cells[2];
    assert.equal(ageOf(await json<Table>('GET', configMaps, { accept: TABLE })), '5m');
    const watch = `${configMaps}?watch=true&fieldSelector=metadata.name%3Daged`;
    const event = await json<{ object: Table }>('GET', watch, { accept: TABLE, firstLine: true });
    assert.equal(ageOf(event.object), '5m');
  });

  it("times a CustomResourceDefinition's conditions by its time", async () => {
    const created = await json<Obj>('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: widgetCrd,
    });
    const conditions = created.status?.conditions ?? [];
    assert.ok(
      conditions.some((c) => c.type === 'Established'),
      JSON.stringify(conditions),
    );
    for (const c of conditions) assert.equal(c.lastTransitionTime, '2024-01-15T10:06:30Z', c.type);
  });
});
