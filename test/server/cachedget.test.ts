// A GET with resourceVersion=0 ("any version") is answered from the watch cache, as kube-apiserver answers it: the
// same object a read from storage gives, without reading storage; a name the cache does not hold is kube's 404. A
// kubelet reads its Node so before every status update, every 10 s on every node.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Store } from '../../src/storage/index.js';
import { startInProcessServer, type InProcessServer } from '../helpers/inprocessserver.js';
import { waitFor } from '../helpers/wait.js';
import { crdOf } from '../helpers/crds.js';

let api: InProcessServer;
let storeReads = 0;

/** The store, counting its single-key reads. */
function counting(store: Store): Store {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const v: unknown = Reflect.get(target, prop, receiver);
      if (prop === 'get' && typeof v === 'function')
        return (...args: unknown[]) => {
          storeReads++;
          return Reflect.apply(v, target, args) as unknown;
        };
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

before(async () => {
  api = await startInProcessServer('cachedget', {}, counting);
});

after(async () => {
  await api?.close();
});

interface ConfigMap {
  metadata: { name: string; resourceVersion: string };
  data?: Record<string, string>;
}

describe('GET with resourceVersion=0', () => {
  const path = '/api/v1/namespaces/default/configmaps';

  it("answers from the watch cache what storage holds, and storage's answer without it", async () => {
    const created = await api.json<ConfigMap>('POST', path, { body: { metadata: { name: 'c1' }, data: { a: '1' } } });
    const fromStore = await api.call('GET', `${path}/c1`);
    // The cache has the object once its event arrived.
    const cached = await waitFor(
      'the object in the watch cache',
      async () => {
        const r = await api.call('GET', `${path}/c1?resourceVersion=0`);
        return r.status === 200 ? r : undefined;
      },
      5_000,
    );
    assert.equal(cached.body, fromStore.body);
    const before = storeReads;
    const again = await api.json<ConfigMap>('GET', `${path}/c1?resourceVersion=0`);
    assert.equal(again.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.equal(storeReads, before, 'no read of storage');
    await api.json('GET', `${path}/c1`);
    assert.equal(storeReads, before + 1, 'a GET without resourceVersion reads storage');
  });

  it('follows the object as it changes, also as a Table', async () => {
    await api.json('PUT', `${path}/c1`, { body: { metadata: { name: 'c1' }, data: { a: '2' } } });
    await waitFor(
      'the change in the watch cache',
      async () =>
        (await api.json<ConfigMap>('GET', `${path}/c1?resourceVersion=0`)).data?.['a'] === '2' ? true : undefined,
      5_000,
    );
    const table = await api.json<{ kind: string; rows: { cells: unknown[] }[] }>(
      'GET',
      `${path}/c1?resourceVersion=0`,
      {
        accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
      },
    );
    assert.equal(table.kind, 'Table');
    assert.equal(table.rows[0]?.cells[0], 'c1');
  });

  it("is kube's 404 for a name the cache does not hold", async () => {
    const r = await api.call('GET', `${path}/nope?resourceVersion=0`);
    assert.equal(r.status, 404);
    const status = JSON.parse(r.body) as { reason: string; message: string };
    assert.deepEqual([status.reason, status.message], ['NotFound', 'configmaps "nope" not found']);
  });
});

describe('GET and LIST with resourceVersion=0 of a custom kind', () => {
  const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  const things = '/apis/cache.example.com/v1/things';
  const specSchema = (extra: Record<string, unknown>) =>
    crdOf({
      group: 'cache.example.com',
      kind: 'Thing',
      plural: 'things',
      scope: 'Cluster',
      schema: {
        type: 'object',
        properties: { spec: { type: 'object', properties: { a: { type: 'string' }, ...extra } } },
      },
    });

  it('follow a change of the CRD schema, as reads from storage do (a changed CRD gets a new cache)', async () => {
    await api.json('POST', crds, { body: specSchema({}) });
    await waitFor('things served', async () => (await api.call('GET', things)).status === 200);
    await api.json('POST', things, {
      body: { apiVersion: 'cache.example.com/v1', kind: 'Thing', metadata: { name: 't' }, spec: { a: '1' } },
    });
    const crd = await api.json<{ spec: { versions: { schema: { openAPIV3Schema: Record<string, unknown> } }[] } }>(
      'GET',
      `${crds}/things.cache.example.com`,
    );
    crd.spec.versions[0]!.schema = (
      specSchema({ c: { type: 'string', default: 'dflt' } }) as typeof crd
    ).spec.versions[0]!.schema;
    await api.json('PUT', `${crds}/things.cache.example.com`, { body: crd });
    const spec = { a: '1', c: 'dflt' };
    await waitFor('the default in a cached GET', async () => {
      const r = await api.call('GET', `${things}/t?resourceVersion=0`);
      return r.status === 200 && (JSON.parse(r.body) as { spec: { c?: string } }).spec.c === 'dflt';
    });
    const listed = await api.json<{ items: { spec: unknown }[] }>('GET', `${things}?resourceVersion=0`);
    assert.deepEqual(
      listed.items.map((i) => i.spec),
      [spec],
    );
    assert.deepEqual((await api.json<{ spec: unknown }>('GET', `${things}/t`)).spec, spec);
  });
});
