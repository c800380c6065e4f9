// What a node may write of its own Node and NodeConfig through every write path of an in-process dkc server (Node,RBAC
// and its admission chain): not the rollout controller's dkc.io/rollout annotation; a NodeConfig only as its agent
// creates it (no dkc.io/ labels or annotations, no finalizer, its own Node's uid as owner); no Apply ownership of
// what the controller applies; no managedFields entries a write of its own would not record. What it may write
// (other annotations, labels, its own apply, its object sent back as read) stays allowed.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../../src/api/types.js';
import { ADMIN, nodeIdentity, startAuthzServer, type Answer, type AuthzServer } from '../../helpers/authzserver.js';

const NODE = 'node-1';
const ME = nodeIdentity(NODE);
const NODE_PATH = `/api/v1/nodes/${NODE}`;
const NC_PATH = '/apis/dkc.io/v1alpha1/nodeconfigs';
const SOURCE = { configMap: { namespace: 'kube-system', name: 'cfg', kubeletConfigKey: 'kubelet' } };
const MERGE = 'application/merge-patch+json';
const APPLY = 'application/apply-patch+yaml';
const JSON_PATCH = 'application/json-patch+json';
const ROLLOUT = 'dkc.io/rollout';

let api: AuthzServer;
before(async () => {
  api = await startAuthzServer('noderestriction-writes');
  const created = await api.as(ME, 'POST', '/api/v1/nodes', {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: NODE },
  });
  assert.equal(created.status, 201, created.body);
  // What a rollout leaves: the controller's mark, and an assignment.
  ok(
    await api.as(
      ADMIN,
      'PATCH',
      NODE_PATH,
      { metadata: { annotations: { [ROLLOUT]: 'r1' } }, spec: { configSource: SOURCE } },
      MERGE,
    ),
  );
});
after(() => api?.close());

const refused = (r: Answer, message: string) => {
  assert.equal(r.status, 403, r.body);
  assert.equal((JSON.parse(r.body) as { message: string }).message, message);
};
const ok = (r: Answer) => assert.ok(r.status >= 200 && r.status < 300, `${r.status} ${r.body}`);
const stored = (path = NODE_PATH) => api.json<KubeObject>('GET', path);

describe('a node and the dkc.io/rollout annotation on its own Node', () => {
  const modify = `nodes "${NODE}" is forbidden: is not allowed to modify annotations: ${ROLLOUT}`;

  it('may not change or remove it by merge patch, JSON patch, PUT or apply with force', async () => {
    refused(
      await api.as(ME, 'PATCH', NODE_PATH, { metadata: { annotations: { [ROLLOUT]: 'r-hold' } } }, MERGE),
      modify,
    );
    refused(await api.as(ME, 'PATCH', NODE_PATH, { metadata: { annotations: { [ROLLOUT]: null } } }, MERGE), modify);
    const op = [{ op: 'remove', path: '/metadata/annotations/dkc.io~1rollout' }];
    refused(await api.as(ME, 'PATCH', NODE_PATH, op, JSON_PATCH), modify);
    const node = await stored();
    const { [ROLLOUT]: _r, ...rest } = node.metadata.annotations ?? {};
    refused(await api.as(ME, 'PUT', NODE_PATH, { ...node, metadata: { ...node.metadata, annotations: rest } }), modify);
    const applied = { apiVersion: 'v1', kind: 'Node', metadata: { name: NODE, annotations: { [ROLLOUT]: 'r-hold' } } };
    refused(await api.as(ME, 'PATCH', `${NODE_PATH}?fieldManager=evil&force=true`, applied, APPLY), modify);
    assert.equal((await stored()).metadata.annotations?.[ROLLOUT], 'r1');
  });

  it('may not create its Node with it, and may write its other annotations', async () => {
    refused(
      await api.as(nodeIdentity('node-2'), 'POST', '/api/v1/nodes', {
        metadata: { name: 'node-2', annotations: { [ROLLOUT]: 'r-hold' } },
      }),
      `nodes "node-2" is forbidden: node "node-2" is not allowed to set the following annotations: ${ROLLOUT}`,
    );
    ok(await api.as(ME, 'PATCH', NODE_PATH, { metadata: { annotations: { 'example.com/x': '1' } } }, MERGE));
  });
});

describe('a node and the managedFields of its own Node', () => {
  it('may not own its unchanged spec.configSource by server-side apply with force', async () => {
    const applied = { apiVersion: 'v1', kind: 'Node', metadata: { name: NODE }, spec: { configSource: SOURCE } };
    refused(
      await api.as(ME, 'PATCH', `${NODE_PATH}?fieldManager=squatter&force=true`, applied, APPLY),
      `nodes "${NODE}" is forbidden: node "${NODE}" is not allowed to own spec.configSource by server-side apply (manager "squatter"): the rollout controller applies it`,
    );
    const managers = (await stored()).metadata.managedFields ?? [];
    assert.deepEqual(
      managers.filter((e) => e.operation === 'Apply'),
      [],
    );
  });

  it('may not send forged entries by PUT or merge patch: they are not stored', async () => {
    const node = await stored();
    const forged = {
      manager: 'squatter',
      operation: 'Apply',
      apiVersion: 'v1',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:spec': { 'f:configSource': { 'f:configMap': { 'f:name': {} } } } },
    };
    const managedFields = [...(node.metadata.managedFields ?? []), forged];
    const put = await api.as(ME, 'PUT', NODE_PATH, { ...node, metadata: { ...node.metadata, managedFields } });
    refused(
      put,
      `nodes "${NODE}" is forbidden: node "${NODE}" is not allowed to own spec.configSource by server-side apply (manager "squatter"): the rollout controller applies it`,
    );
    // An Update entry on another field, slipped in beside a change of the node's own.
    const other = { ...forged, operation: 'Update', fieldsV1: { 'f:spec': { 'f:podCIDR': {} } } };
    const patch = await api.as(
      ME,
      'PATCH',
      NODE_PATH,
      { metadata: { labels: { team: 'b' }, managedFields: [...(node.metadata.managedFields ?? []), other] } },
      MERGE,
    );
    assert.equal(patch.status, 403, patch.body);
    assert.match(patch.body, /is not allowed to set managedFields/);
    // An Update entry alone, on a field the write does not change.
    const alone = await api.as(ME, 'PUT', NODE_PATH, {
      ...node,
      metadata: { ...node.metadata, managedFields: [...(node.metadata.managedFields ?? []), other] },
    });
    refused(
      alone,
      `nodes "${NODE}" is forbidden: node "${NODE}" is not allowed to set managedFields: the update manager "squatter" would own fields this write does not change`,
    );
    const after = await stored();
    assert.deepEqual(
      (after.metadata.managedFields ?? []).filter((e) => e.manager === 'squatter'),
      [],
    );
    assert.equal(after.metadata.labels?.['team'], undefined);
  });

  it('may apply its own fields with force, and send its Node back as it read it', async () => {
    const applied = { apiVersion: 'v1', kind: 'Node', metadata: { name: NODE, labels: { team: 'a' } } };
    ok(await api.as(ME, 'PATCH', `${NODE_PATH}?fieldManager=kubelet&force=true`, applied, APPLY));
    const node = await stored();
    ok(await api.as(ME, 'PUT', NODE_PATH, { ...node, metadata: { ...node.metadata, labels: { team: 'c' } } }));
    assert.equal((await stored()).metadata.labels?.['team'], 'c');
  });
});

describe('a node creating its NodeConfig', () => {
  const owner = async () => {
    const uid = (await stored()).metadata.uid!;
    return { apiVersion: 'v1', kind: 'Node', name: NODE, uid };
  };
  const nc = (metadata: Record<string, unknown>) => ({
    apiVersion: 'dkc.io/v1alpha1',
    kind: 'NodeConfig',
    metadata: { name: NODE, ...metadata },
    spec: {},
  });

  it('may not give it dkc.io/ annotations or labels, finalizers, or an owner uid other than its Node’s', async () => {
    const refs = [await owner()];
    const why = (w: string) => `nodeconfigs.dkc.io "${NODE}" is forbidden: node "${NODE}" ${w}`;
    refused(
      await api.as(ME, 'POST', NC_PATH, nc({ ownerReferences: refs, annotations: { [ROLLOUT]: 'r-hold' } })),
      why(`is not allowed to set the following annotations: ${ROLLOUT}`),
    );
    refused(
      await api.as(ME, 'POST', NC_PATH, nc({ ownerReferences: refs, labels: { 'x.dkc.io/pool': 'a' } })),
      why('is not allowed to set the following labels: x.dkc.io/pool'),
    );
    refused(
      await api.as(ME, 'POST', NC_PATH, nc({ ownerReferences: refs, finalizers: ['example.com/keep'] })),
      why('is not allowed to set finalizers on a nodeconfig'),
    );
    refused(
      await api.as(ME, 'POST', NC_PATH, nc({ ownerReferences: [{ ...refs[0]!, uid: 'bogus' }] })),
      why(`can only create a nodeconfig owned by its own Node, whose uid is "${refs[0]!.uid}"`),
    );
    refused(
      await api.as(nodeIdentity('node-9'), 'POST', NC_PATH, {
        ...nc({ name: 'node-9', ownerReferences: [{ ...refs[0]!, name: 'node-9' }] }),
      }),
      `nodeconfigs.dkc.io "node-9" is forbidden: node "node-9" can only create a nodeconfig owned by its own Node, which was not found`,
    );
  });

  it('creates the one its agent creates; may not take the controller’s fields by apply with force', async () => {
    ok(await api.as(ME, 'POST', NC_PATH, nc({ ownerReferences: [await owner()], labels: { team: 'a' } })));
    ok(await api.as(ADMIN, 'PATCH', `${NC_PATH}/${NODE}`, { spec: { configSource: SOURCE } }, MERGE));
    const applied = {
      apiVersion: 'dkc.io/v1alpha1',
      kind: 'NodeConfig',
      metadata: { name: NODE },
      spec: { configSource: SOURCE },
    };
    const r = await api.as(ME, 'PATCH', `${NC_PATH}/${NODE}?fieldManager=squatter&force=true`, applied, APPLY);
    assert.equal(r.status, 403, r.body);
    const managers = (await stored(`${NC_PATH}/${NODE}`)).metadata.managedFields ?? [];
    assert.deepEqual(
      managers.filter((e) => e.operation === 'Apply'),
      [],
    );
  });
});
