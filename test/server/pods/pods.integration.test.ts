// Pods served writable, as kube-apiserver serves them: create with defaults and a Pending status, updates and all
// patch types (server-side apply too) within the spec's immutability, status only through /status, field
// selectors for list and watch, delete and deletecollection.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessServer, type InProcessServer } from '../../helpers/inprocessserver.js';
import type { PodObject } from '../../../src/server/pods/types.js';

const ns = '/api/v1/namespaces/default/pods';
const podBody = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], ...extra },
});

describe('pods', () => {
  let s: InProcessServer;
  before(async () => (s = await startInProcessServer('pods')));
  after(async () => s.close());

  it('create defaults the spec and starts the status at Pending, whatever the client sent', async () => {
    const created = await s.json<PodObject>('POST', ns, {
      body: { ...podBody('a'), status: { phase: 'Running', podIP: '10.0.0.1' } },
    });
    assert.equal(created.spec?.restartPolicy, 'Always');
    assert.equal(created.spec?.terminationGracePeriodSeconds, 30);
    assert.equal(created.spec?.schedulerName, 'default-scheduler');
    assert.deepEqual(created.status, { phase: 'Pending', qosClass: 'BestEffort' });
  });

  it('an invalid pod is a 422 with kube’s message', async () => {
    const r = await s.call('POST', ns, { body: { metadata: { name: 'bad' }, spec: { containers: [{ name: 'x' }] } } });
    assert.equal(r.status, 422);
    assert.equal(
      (JSON.parse(r.body) as { message: string }).message,
      'Pod "bad" is invalid: spec.containers[0].image: Required value',
    );
  });

  it('the image may be patched (strategic merge, by container name); other spec fields not', async () => {
    const patched = await s.call('PATCH', `${ns}/a`, {
      body: { spec: { containers: [{ name: 'app', image: 'nginx:1.28' }] } },
      contentType: 'application/strategic-merge-patch+json',
    });
    assert.equal(patched.status, 200, patched.body);
    assert.equal((JSON.parse(patched.body) as PodObject).spec?.containers?.[0]?.image, 'nginx:1.28');
    const refused = await s.call('PATCH', `${ns}/a`, {
      body: { spec: { restartPolicy: 'Never' } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(refused.status, 422);
    assert.match(refused.body, /pod updates may not change fields other than/);
  });

  it('server-side apply creates and updates a pod', async () => {
    const path = `${ns}/applied?fieldManager=test&force=true`;
    const first = await s.call('PATCH', path, {
      body: podBody('applied'),
      contentType: 'application/apply-patch+yaml',
    });
    assert.equal(first.status, 201, first.body);
    const body = podBody('applied', {});
    (body.spec.containers[0] as { image: string }).image = 'nginx:1.29';
    const second = await s.call('PATCH', path, { body, contentType: 'application/apply-patch+yaml' });
    assert.equal(second.status, 200, second.body);
    assert.equal((JSON.parse(second.body) as PodObject).spec?.containers?.[0]?.image, 'nginx:1.29');
  });

  it('status is written through /status only', async () => {
    const current = await s.json<PodObject>('GET', `${ns}/a`);
    const main = await s.json<PodObject>('PUT', `${ns}/a`, {
      body: { ...current, status: { phase: 'Failed' } },
    });
    assert.equal(main.status?.phase, 'Pending');
    const status = await s.json<PodObject>('PATCH', `${ns}/a/status`, {
      body: { status: { phase: 'Running', podIP: '10.1.2.3' } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(status.status?.phase, 'Running');
    const list = await s.json<{ items: PodObject[] }>('GET', `/api/v1/pods?fieldSelector=status.phase=Running`);
    assert.deepEqual(
      list.items.map((p) => p.metadata.name),
      ['a'],
    );
  });

  it('field selectors spec.nodeName and status.phase filter a watch', async () => {
    const r = await s.call('GET', `${ns}?watch=true&fieldSelector=status.phase%3DRunning,spec.nodeName%3D`, {
      firstLine: true,
    });
    const event = JSON.parse(r.body) as { type: string; object: PodObject };
    assert.equal(event.type, 'ADDED');
    assert.equal(event.object.metadata.name, 'a');
  });

  it('a Table shows READY, STATUS and the wide columns as kubectl get pods -o wide', async () => {
    const table = await s.json<{ columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] }>(
      'GET',
      `${ns}/a`,
      { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
    );
    assert.equal(table.columnDefinitions.length, 9);
    assert.deepEqual(table.rows[0]?.cells.slice(0, 4), ['a', '0/1', 'Running', '0']);
    assert.deepEqual(table.rows[0]?.cells.slice(6), ['<none>', '<none>', '<none>']);
  });

  it('an unbound pod goes at once; deletecollection takes the rest', async () => {
    const gone = await s.call('DELETE', `${ns}/a`);
    assert.equal(gone.status, 200, gone.body);
    assert.equal((await s.call('GET', `${ns}/a`)).status, 404);
    const all = await s.json<{ items: PodObject[] }>('DELETE', ns);
    assert.deepEqual(
      all.items.map((p) => p.metadata.name),
      ['applied'],
    );
  });
});

describe('graceful deletion of pods', () => {
  let s: InProcessServer;
  before(async () => (s = await startInProcessServer('pods-grace')));
  after(async () => s.close());

  it('a bound pod stays Terminating until a grace-0 delete; a later delete only shortens the grace', async () => {
    await s.json('POST', ns, { body: podBody('b', { nodeName: 'n1' }) });
    const marked = await s.json<PodObject>('DELETE', `${ns}/b`);
    assert.equal(marked.metadata.deletionGracePeriodSeconds, 30);
    const due = Date.parse(marked.metadata.deletionTimestamp!) - Date.now();
    assert.ok(due > 25_000 && due <= 31_000, String(due));
    const kept = await s.json<PodObject>('GET', `${ns}/b`);
    assert.equal(kept.metadata.deletionTimestamp, marked.metadata.deletionTimestamp);
    const longer = await s.json<PodObject>('DELETE', `${ns}/b`, { body: { gracePeriodSeconds: 60 } });
    assert.equal(longer.metadata.deletionGracePeriodSeconds, 30);
    const shorter = await s.json<PodObject>('DELETE', `${ns}/b?gracePeriodSeconds=5`);
    assert.equal(shorter.metadata.deletionGracePeriodSeconds, 5);
    await s.json('DELETE', `${ns}/b`, { body: { gracePeriodSeconds: 0, preconditions: { uid: marked.metadata.uid } } });
    assert.equal((await s.call('GET', `${ns}/b`)).status, 404);
  });

  it('a terminal pod goes at once', async () => {
    await s.json('POST', ns, { body: podBody('c', { nodeName: 'n1' }) });
    await s.json('PATCH', `${ns}/c/status`, {
      body: { status: { phase: 'Succeeded' } },
      contentType: 'application/merge-patch+json',
    });
    await s.json('DELETE', `${ns}/c`);
    assert.equal((await s.call('GET', `${ns}/c`)).status, 404);
  });
});
