// One stored object is at most etcd's 1.5 MiB on either backend (a 413 in kube-apiserver's words, and nothing
// stored), and a request brings at most 100 managedFields entries: a node cannot make its own Node megabytes that
// every heartbeat and watch would carry.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_MANAGED_FIELDS_ENTRIES, MAX_STORED_OBJECT_BYTES } from '../../src/server/objectlimits.js';
import { startInProcessServer, type InProcessServer } from '../helpers/inprocessserver.js';

let api: InProcessServer;
const CMS = '/api/v1/namespaces/default/configmaps';

before(async () => {
  api = await startInProcessServer('objectlimits');
});

after(async () => {
  await api?.close();
});

const cm = (name: string, data: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...extra },
  data,
});

/** Forged Apply entries, each owning one field of its own. */
function entries(n: number): unknown[] {
  return Array.from({ length: n }, (_, i) => ({
    manager: `forged-${i}`,
    operation: 'Apply',
    apiVersion: 'v1',
    time: '2030-01-01T00:00:00Z',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:data': { 'f:a': {} } },
  }));
}

describe('a stored object is at most 1.5 MiB', () => {
  const node = (images: string[]) => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'big' },
    status: { images: images.map((name) => ({ names: [name], sizeBytes: 1 })) },
  });
  const image = (i: number) => `registry.example.com/image-${i}:${'x'.repeat(1000)}`;
  const images = (bytes: number) => Array.from({ length: Math.ceil(bytes / 1000) }, (_, i) => image(i));

  it('a PUT that makes an object larger is a 413 and leaves the stored one as it was', async () => {
    const created = await api.json<{ metadata: { resourceVersion: string } }>('POST', '/api/v1/nodes', {
      body: node([image(0)]),
    });
    // Under the request limit (3 MiB), over the stored-object limit.
    const big = node(images(MAX_STORED_OBJECT_BYTES));
    const r = await api.call('PUT', '/api/v1/nodes/big/status', { body: big });
    assert.equal(r.status, 413, r.body.slice(0, 300));
    const st = JSON.parse(r.body) as { kind: string; reason: string; message: string; code: number };
    assert.deepEqual(
      [st.kind, st.reason, st.code, st.message],
      ['Status', 'RequestEntityTooLarge', 413, 'Request entity too large: etcdserver: request is too large'],
    );
    const stored = await api.json<{ metadata: { resourceVersion: string }; status: { images: unknown[] } }>(
      'GET',
      '/api/v1/nodes/big',
    );
    assert.deepEqual(
      [stored.metadata.resourceVersion, stored.status.images.length],
      [created.metadata.resourceVersion, 1],
    );
    // Just under the limit is stored.
    const fits = node(images(MAX_STORED_OBJECT_BYTES - 100_000));
    assert.equal((await api.call('PUT', '/api/v1/nodes/big/status', { body: fits })).status, 200);
  });
});

describe('managedFields a request brings', () => {
  it(`more than ${MAX_MANAGED_FIELDS_ENTRIES} entries are a 422, on create and update; the stored ones stay`, async () => {
    await api.json('POST', CMS, { body: cm('mf', { a: '1' }) });
    const forged = entries(MAX_MANAGED_FIELDS_ENTRIES + 1);
    const r = await api.call('PUT', `${CMS}/mf`, { body: cm('mf', { a: '2' }, { managedFields: forged }) });
    assert.equal(r.status, 422, r.body);
    assert.equal(
      (JSON.parse(r.body) as { message: string }).message,
      `ConfigMap "mf" is invalid: metadata.managedFields: Too many: ${MAX_MANAGED_FIELDS_ENTRIES + 1}: must have at most ${MAX_MANAGED_FIELDS_ENTRIES} items`,
    );
    const created = await api.call('POST', CMS, { body: cm('mf2', { a: '1' }, { managedFields: forged }) });
    assert.equal(created.status, 422, created.body);
    const stored = await api.json<{ metadata: { managedFields: unknown[] }; data: { a: string } }>('GET', `${CMS}/mf`);
    assert.deepEqual([stored.data.a, stored.metadata.managedFields.length], ['1', 1]);
    // A list within the limit is taken as kube-apiserver takes it.
    const kept = await api.call('PUT', `${CMS}/mf`, {
      body: cm('mf', { a: '3' }, { managedFields: entries(MAX_MANAGED_FIELDS_ENTRIES) }),
    });
    assert.equal(kept.status, 200, kept.body);
  });
});
