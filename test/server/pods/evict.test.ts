// pods/eviction served as kube-apiserver's EvictionREST: admitted as a CREATE of pods/eviction, the budget's status
// written (disruptedPods, one disruption fewer), the Pod marked DisruptionTarget and deleted gracefully, 201 Success;
// kube's 400, 429 (with and without Retry-After) and 500, dry run, and the discovery entry kubectl drain looks for.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CREATED_SUCCESS, startInProcessServer, type InProcessServer } from '../../helpers/inprocessserver.js';
import { ADMIN, nodeIdentity, startAuthzServer, type AuthzServer } from '../../helpers/authzserver.js';
import type { AdmissionAttributes } from '../../../src/server/authz.js';
import type { PodObject } from '../../../src/server/pods/types.js';
import type { PodDisruptionBudget } from '../../../src/api/workloads.js';

const pods = '/api/v1/namespaces/default/pods';
const pdbs = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';
const eviction = (name: string, apiVersion = 'policy/v1', deleteOptions?: object) => ({
  apiVersion,
  kind: 'Eviction',
  metadata: { name, namespace: 'default' },
  ...(deleteOptions ? { deleteOptions } : {}),
});
type StatusBody = { message: string; details?: { causes?: { reason: string; message: string }[] } };
const parse = (body: string) => JSON.parse(body) as StatusBody;

describe('pods/eviction', () => {
  let s: InProcessServer;
  const admitted: AdmissionAttributes[] = [];
  const plugin = { name: 'Recorder', validate: (a: AdmissionAttributes) => void admitted.push(a) };
  before(async () => (s = await startInProcessServer('evict', { admission: [plugin] })));
  after(async () => s.close());

  /** A Pod bound to n1, Running and Ready. */
  async function runningPod(name: string, labels: Record<string, string>): Promise<void> {
    const spec = { containers: [{ name: 'app', image: 'nginx:1.27' }] };
    await s.json('POST', pods, { body: { metadata: { name, labels }, spec } });
    await s.json('POST', `${pods}/${name}/binding`, { body: { metadata: { name }, target: { name: 'n1' } } });
    const pod = await s.json<PodObject>('GET', `${pods}/${name}`);
    const conditions = [{ type: 'Ready', status: 'True' }];
    await s.json('PUT', `${pods}/${name}/status`, { body: { ...pod, status: { phase: 'Running', conditions } } });
  }

  async function budget(name: string, app: string, status: Record<string, number>): Promise<void> {
    const spec = { minAvailable: 1, selector: { matchLabels: { app } } };
    const created = await s.json<PodDisruptionBudget>('POST', pdbs, { body: { metadata: { name }, spec } });
    const full = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0, ...status };
    await s.json('PUT', `${pdbs}/${name}/status`, { body: { ...created, status: full } });
  }

  before(async () => {
    await runningPod('p', { app: 'web' });
    await runningPod('q', { app: 'web' });
    await budget('web', 'web', { observedGeneration: 1, disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1 });
  });

  it('a name mismatch is a 400', async () => {
    const r = await s.call('POST', `${pods}/p/eviction`, { body: eviction('q') });
    assert.equal(r.status, 400);
    assert.equal(parse(r.body).message, 'name in URL does not match name in Eviction object');
  });

  it('a dry run changes nothing', async () => {
    const r = await s.call('POST', `${pods}/p/eviction`, { body: eviction('p', 'policy/v1', { dryRun: ['All'] }) });
    assert.equal(r.status, 201, r.body);
    const pdb = await s.json<PodDisruptionBudget>('GET', `${pdbs}/web`);
    assert.equal(pdb.status?.disruptionsAllowed, 1);
    assert.equal((await s.json<PodObject>('GET', `${pods}/p`)).metadata.deletionTimestamp, undefined);
  });

  it('evicts within the budget: status written, DisruptionTarget, graceful delete, 201 Success', async () => {
    admitted.length = 0;
    const r = await s.call('POST', `${pods}/p/eviction`, {
      body: eviction('p', 'policy/v1', { gracePeriodSeconds: 7 }),
    });
    assert.equal(r.status, 201, r.body);
    assert.deepEqual(JSON.parse(r.body), CREATED_SUCCESS);
    const seen = admitted.find((a) => a.subresource === 'eviction');
    assert.deepEqual([seen?.operation, seen?.name, seen?.resource.plural], ['CREATE', 'p', 'pods']);
    const pdb = await s.json<PodDisruptionBudget>('GET', `${pdbs}/web`);
    assert.equal(pdb.status?.disruptionsAllowed, 0);
    assert.deepEqual(Object.keys(pdb.status?.disruptedPods ?? {}), ['p']);
    const pod = await s.json<PodObject>('GET', `${pods}/p`);
    assert.equal(pod.metadata.deletionGracePeriodSeconds, 7);
    const target = pod.status?.conditions?.find((c) => c.type === 'DisruptionTarget');
    assert.deepEqual(
      [target?.status, target?.reason, target?.message],
      ['True', 'EvictionByEvictionAPI', 'Eviction API: evicting'],
    );
  });

  it('no disruption left: 429 with the budget named, no Retry-After (v1beta1 body too)', async () => {
    const r = await s.call('POST', `${pods}/q/eviction`, { body: eviction('q', 'policy/v1beta1') });
    assert.equal(r.status, 429);
    const st = parse(r.body);
    assert.equal(st.message, "Cannot evict pod as it would violate the pod's disruption budget.");
    assert.deepEqual(st.details?.causes, [
      { reason: 'DisruptionBudget', message: 'The disruption budget web needs 1 healthy pods and has 2 currently' },
    ]);
    assert.equal((await s.json<PodObject>('GET', `${pods}/q`)).metadata.deletionTimestamp, undefined);
  });

  it('a budget not yet observed: 429 still being processed', async () => {
    await runningPod('r', { app: 'db' });
    await budget('db', 'db', { disruptionsAllowed: 1, currentHealthy: 1 });
    const r = await s.call('POST', `${pods}/r/eviction`, { body: eviction('r') });
    assert.equal(r.status, 429);
    assert.equal(
      parse(r.body).details?.causes?.[0]?.message,
      'The disruption budget db is still being processed by the server.',
    );
  });

  it('two budgets for one pod: 500', async () => {
    await budget('db2', 'db', { observedGeneration: 1, disruptionsAllowed: 1 });
    const r = await s.call('POST', `${pods}/r/eviction`, { body: eviction('r') });
    assert.equal(r.status, 500);
    assert.equal(
      parse(r.body).message,
      'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
    );
  });

  it('a pending pod goes without a budget check; a missing one is a 404', async () => {
    await s.json('POST', pods, {
      body: {
        metadata: { name: 'pending', labels: { app: 'web' } },
        spec: { containers: [{ name: 'a', image: 'x' }] },
      },
    });
    assert.equal((await s.call('POST', `${pods}/pending/eviction`, { body: eviction('pending') })).status, 201);
    assert.equal((await s.call('GET', `${pods}/pending`)).status, 404);
    assert.equal((await s.call('POST', `${pods}/pending/eviction`, { body: eviction('pending') })).status, 404);
  });

  it('discovery: pods/eviction as policy/v1 Eviction, create', async () => {
    const list = await s.json<{ resources: Record<string, unknown>[] }>('GET', '/api/v1');
    const entry = list.resources.find((r) => r['name'] === 'pods/eviction');
    assert.deepEqual(
      [entry?.['group'], entry?.['version'], entry?.['kind'], entry?.['verbs']],
      ['policy', 'v1', 'Eviction', ['create']],
    );
  });
});

describe('pods/eviction by a node (Node authorizer, NodeRestriction)', () => {
  let api: AuthzServer;
  before(async () => {
    api = await startAuthzServer('evict-node');
    for (const [name, node] of [
      ['mine', 'node-1'],
      ['theirs', 'node-2'],
    ] as const) {
      const spec = { containers: [{ name: 'a', image: 'x' }] };
      assert.equal((await api.as(ADMIN, 'POST', pods, { metadata: { name }, spec })).status, 201);
      const bound = await api.as(ADMIN, 'POST', `${pods}/${name}/binding`, {
        metadata: { name },
        target: { name: node },
      });
      assert.equal(bound.status, 201, bound.body);
    }
  });
  after(() => api?.close());

  it('evicts a pod bound to it, and no other', async () => {
    const me = nodeIdentity('node-1');
    const theirs = await api.as(me, 'POST', `${pods}/theirs/eviction`, eviction('theirs'));
    assert.equal(theirs.status, 403, theirs.body);
    assert.equal(
      parse(theirs.body).message,
      'pods "theirs" is forbidden: node "node-1" can only evict pods with spec.nodeName set to itself',
    );
    const mine = await api.as(me, 'POST', `${pods}/mine/eviction`, eviction('mine'));
    assert.equal(mine.status, 201, mine.body);
  });
});
