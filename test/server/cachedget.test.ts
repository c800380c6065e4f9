// A GET with resourceVersion=0 ("any version") is answered from the watch cache, as kube-apiserver answers it: the
// same object a read from storage gives, without reading storage; a name the cache does not hold is kube's 404. A
// kubelet reads its Node so before every status update, every 10 s on every node.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Store } from '../../src/storage/index.js';
import { startInProcessServer, type InProcessServer } from '../helpers/inprocessserver.js';
import { waitFor } from '../helpers/wait.js';

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
