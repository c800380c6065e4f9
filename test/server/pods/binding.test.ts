// pods/binding and the legacy bindings, as kube-apiserver's BindingREST answers them: the checks and their 409s, the
// Pod bound (nodeName, annotations, PodScheduled), 201 Success, and the discovery entries.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CREATED_SUCCESS, startInProcessServer, type InProcessServer } from '../../helpers/inprocessserver.js';
import { bindPod, validateBinding } from '../../../src/server/pods/binding.js';
import { withCondition } from '../../../src/server/pods/conditions.js';
import type { PodObject } from '../../../src/server/pods/types.js';

const ns = '/api/v1/namespaces/default';
const podBody = (name: string, spec: Record<string, unknown> = {}) => ({
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], ...spec },
});
const binding = (name: string, node: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Binding',
  metadata: { name, ...extra },
  target: { kind: 'Node', name: node },
});
const NOW = '2026-01-01T00:00:00Z';

describe('binding decisions', () => {
  it('validateBinding: a kind other than Node, and a missing name', () => {
    assert.deepEqual(validateBinding({ metadata: {}, target: { kind: 'Pod' } }).map(String), [
      'target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"',
      'target.name: Required value',
    ]);
    assert.deepEqual(validateBinding({ metadata: {}, target: { name: 'n1' } }), []);
  });

  const rows: { name: string; pod: PodObject; error: string }[] = [
    {
      name: 'deleting',
      pod: { metadata: { name: 'p', deletionTimestamp: NOW } },
      error: 'pod p is being deleted, cannot be assigned to a host',
    },
    {
      name: 'assigned',
      pod: { metadata: { name: 'p' }, spec: { nodeName: 'n0' } },
      error: 'pod p is already assigned to node "n0"',
    },
    {
      name: 'gated',
      pod: { metadata: { name: 'p' }, spec: { schedulingGates: [{ name: 'g' }] } },
      error: 'pod p has non-empty .spec.schedulingGates',
    },
  ];
  for (const r of rows)
    it(`bindPod refuses a pod ${r.name}`, () =>
      assert.throws(() => bindPod(r.pod, binding('p', 'n1'), NOW), { message: r.error }));

  it('withCondition keeps the transition time when the status stays, and replaces the condition', () => {
    const old = [{ type: 'PodScheduled', status: 'True', reason: 'x', lastTransitionTime: 'then' }];
    assert.deepEqual(withCondition(old, { type: 'PodScheduled', status: 'True' }, NOW), [
      { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: 'then' },
    ]);
    assert.equal(withCondition([], { type: 'PodScheduled', status: 'True' }, NOW)[0]?.lastTransitionTime, NOW);
  });
});

describe('pods/binding', () => {
  let s: InProcessServer;
  before(async () => (s = await startInProcessServer('binding')));
  after(async () => s.close());

  it('binds the pod: nodeName, merged annotations, PodScheduled True; 201 Success', async () => {
    await s.json('POST', `${ns}/pods`, { body: { ...podBody('a'), metadata: { name: 'a', annotations: { k: '1' } } } });
    const r = await s.call('POST', `${ns}/pods/a/binding`, { body: binding('a', 'n1', { annotations: { b: '2' } }) });
    assert.equal(r.status, 201, r.body);
    assert.deepEqual(JSON.parse(r.body), CREATED_SUCCESS);
    const pod = await s.json<PodObject>('GET', `${ns}/pods/a`);
    assert.equal(pod.spec?.nodeName, 'n1');
    assert.deepEqual(pod.metadata.annotations, { k: '1', b: '2' });
    const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
    assert.equal(scheduled?.status, 'True');
  });

  it('a second binding is a 409 in kube’s words', async () => {
    const r = await s.call('POST', `${ns}/pods/a/binding`, { body: binding('a', 'n2') });
    assert.equal(r.status, 409);
    assert.equal(
      (JSON.parse(r.body) as { message: string }).message,
      'Operation cannot be fulfilled on pods/binding "a": pod a is already assigned to node "n1"',
    );
  });

  it('a name mismatch is a 400; a bad target a 500 with the field errors', async () => {
    const mismatch = await s.call('POST', `${ns}/pods/a/binding`, { body: binding('b', 'n1') });
    assert.equal(mismatch.status, 400);
    assert.match(mismatch.body, /name in URL does not match name in Binding object/);
    await s.json('POST', `${ns}/pods`, { body: podBody('c') });
    const bad = await s.call('POST', `${ns}/pods/c/binding`, { body: { metadata: { name: 'c' }, target: {} } });
    assert.equal(bad.status, 500);
    assert.equal((JSON.parse(bad.body) as { message: string }).message, 'target.name: Required value');
  });

  it('a uid precondition that fails is a 409 on pods', async () => {
    const r = await s.call('POST', `${ns}/pods/c/binding`, { body: binding('c', 'n1', { uid: 'other' }) });
    assert.equal(r.status, 409);
    assert.match(
      r.body,
      /Operation cannot be fulfilled on pods \\"c\\": Precondition failed: UID in precondition: other/,
    );
  });

  it('the legacy bindings names the pod in metadata.name; a missing pod is a 404', async () => {
    const r = await s.call('POST', `${ns}/bindings`, { body: binding('c', 'n3') });
    assert.equal(r.status, 201, r.body);
    assert.equal((await s.json<PodObject>('GET', `${ns}/pods/c`)).spec?.nodeName, 'n3');
    const missing = await s.call('POST', `${ns}/pods/zz/binding`, { body: binding('zz', 'n3') });
    assert.equal(missing.status, 404);
  });

  it('discovery lists pods/binding and bindings, create only', async () => {
    const list = await s.json<{ resources: { name: string; kind: string; verbs: string[] }[] }>('GET', '/api/v1');
    for (const name of ['pods/binding', 'bindings']) {
      const entry = list.resources.find((r) => r.name === name);
      assert.deepEqual([entry?.kind, entry?.verbs], ['Binding', ['create']], name);
    }
  });
});
