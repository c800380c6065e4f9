// What dkc server's admission lets through and says, on one in-process server (Node,RBAC and its admission chain):
// - what a node may write of its own Node and NodeConfig through every write path: not the rollout controller's
//   dkc.io/rollout annotation; a NodeConfig only as its agent creates it (no dkc.io/ labels or annotations, no
//   finalizer, its own Node's uid as owner); no Apply ownership of what the controller applies; no managedFields
//   entries a write of its own would not record. What it may write (other annotations, labels, its own apply, its
//   object sent back as read) stays allowed;
// - what an editor of a ConfigMap that nodes run is told: an edit of the key nodes read directly is answered with a
//   Warning counting the kubelets that restart onto it at once and naming the safe way (edits no node reads are not),
//   and a refusal names nodes and kubelet versions only to an editor who may list nodes.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../../src/api/types.js';
import type { AdmissionAttributes } from '../../../src/server/authz.js';
import { inPlaceConfigEdit } from '../../../src/server/nodeconfig/inplaceedit.js';
import { configmaps } from '../../../src/server/builtins.js';
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
  api = await startAuthzServer('admission-writes');
  await setUpEdits();
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
const ok = (r: Answer): Answer => {
  assert.ok(r.status >= 200 && r.status < 300, `${r.status} ${r.body}`);
  return r;
};
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

const HEAD = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
const CM_PATH = '/api/v1/namespaces/kube-system/configmaps';
const source = (name: string, key = 'kubelet') => ({
  configMap: { namespace: 'kube-system', name, kubeletConfigKey: key },
});

const patchCm = (name: string, body: unknown) => api.as(ADMIN, 'PATCH', `${CM_PATH}/${name}`, body, MERGE);

/** ConfigMaps edit-cfg and edit-other, run directly by nodes cm-1 to cm-4. */
async function setUpEdits(): Promise<void> {
  for (const name of ['edit-cfg', 'edit-other'])
    ok(
      await api.as(ADMIN, 'POST', CM_PATH, {
        metadata: { name },
        data: { kubelet: `${HEAD}maxPods: 110\n`, spare: `${HEAD}maxPods: 100\n` },
      }),
    );
  const nodes: [string, ReturnType<typeof source>][] = [
    ['cm-1', source('edit-cfg')],
    ['cm-2', source('edit-cfg')],
    ['cm-3', source('edit-cfg', 'spare')],
    ['cm-4', source('edit-other')],
  ];
  for (const [name, configSource] of nodes)
    ok(await api.as(ADMIN, 'POST', '/api/v1/nodes', { metadata: { name }, spec: { configSource } }));
}

const restartWarning = (n: string, name: string) =>
  `299 - ${JSON.stringify(
    `${n} ConfigMap kube-system/${name} directly and will restart ${n.startsWith('1 ') ? 'its kubelet' : 'their kubelets'} onto this edit at once, with no canary, batches or maxUnavailable; to change their config safely, create a new ConfigMap (kubectl create configmap --append-hash) and roll it out with a NodeConfigRollout`,
  )}`;

describe('an edit of a ConfigMap nodes run directly', () => {
  it('warns how many nodes restart at once onto a change of the key they read (patch and PUT)', async () => {
    const r = ok(await patchCm('edit-cfg', { data: { kubelet: `${HEAD}maxPods: 120\n` } }));
    assert.deepEqual(r.warnings, [restartWarning('2 nodes run', 'edit-cfg')]);
    const cm = await api.json<KubeObject>('GET', `${CM_PATH}/edit-cfg`);
    const put = ok(
      await api.as(ADMIN, 'PUT', `${CM_PATH}/edit-cfg`, {
        ...cm,
        data: { ...(cm['data'] as object), spare: `${HEAD}maxPods: 90\n` },
      }),
    );
    assert.deepEqual(put.warnings, [restartWarning('1 node runs', 'edit-cfg')]);
  });

  it('says nothing of a label, a key no node reads, or a ConfigMap no node runs', async () => {
    assert.deepEqual(ok(await patchCm('edit-cfg', { metadata: { labels: { team: 'a' } } })).warnings, []);
    assert.deepEqual(ok(await patchCm('edit-cfg', { data: { unread: 'x' } })).warnings, []);
    assert.deepEqual(ok(await patchCm('edit-other', { data: { spare: `${HEAD}maxPods: 95\n` } })).warnings, []);
  });

  it('counts the NodeConfigs that name it where the server assigns through them', async () => {
    for (const name of ['cm-1', 'cm-4'])
      ok(
        await api.as(ADMIN, 'POST', '/apis/dkc.io/v1alpha1/nodeconfigs', {
          apiVersion: 'dkc.io/v1alpha1',
          kind: 'NodeConfig',
          metadata: { name },
          spec: { configSource: source('edit-other') },
        }),
      );
    const old = await api.json<KubeObject>('GET', `${CM_PATH}/edit-other`);
    const attrs: AdmissionAttributes = {
      user: { name: 'admin', groups: ['system:masters'] },
      operation: 'UPDATE',
      resource: configmaps,
      subresource: '',
      namespace: 'kube-system',
      name: 'edit-other',
      object: { ...old, data: { kubelet: `${HEAD}maxPods: 130\n` } },
      oldObject: old,
      dryRun: false,
      warnings: [],
    };
    await inPlaceConfigEdit(() => api.server.reads, 'nodeconfig').validate!(attrs);
    assert.deepEqual(
      attrs.warnings?.map((w) => `299 - ${JSON.stringify(w)}`),
      [restartWarning('2 nodes run', 'edit-other')],
    );
  });
});

describe('a refused edit of a ConfigMap nodes run', () => {
  const RBAC = '/apis/rbac.authorization.k8s.io/v1';
  const binding = (kind: string, name: string, user: string, namespace?: string) => ({
    metadata: { name, ...(namespace ? { namespace } : {}) },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: kind.replace('Binding', ''), name },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
  });

  it('names the nodes and their kubelet versions only to an editor who may list nodes', async () => {
    const rule = { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'patch', 'update'] };
    ok(
      await api.as(ADMIN, 'POST', `${RBAC}/namespaces/kube-system/roles`, {
        metadata: { name: 'cm-editor' },
        rules: [rule],
      }),
    );
    for (const user of ['eve', 'lister']) {
      const b = binding('RoleBinding', 'cm-editor', user, 'kube-system');
      ok(
        await api.as(ADMIN, 'POST', `${RBAC}/namespaces/kube-system/rolebindings`, {
          ...b,
          metadata: { name: `cm-editor-${user}` },
        }),
      );
    }
    const lister = { apiGroups: [''], resources: ['nodes'], verbs: ['list'] };
    ok(await api.as(ADMIN, 'POST', `${RBAC}/clusterroles`, { metadata: { name: 'node-lister' }, rules: [lister] }));
    ok(
      await api.as(
        ADMIN,
        'POST',
        `${RBAC}/clusterrolebindings`,
        binding('ClusterRoleBinding', 'node-lister', 'lister'),
      ),
    );
    ok(
      await api.as(ADMIN, 'POST', CM_PATH, { metadata: { name: 'fleet' }, data: { kubelet: `${HEAD}maxPods: 110\n` } }),
    );
    ok(
      await api.as(ADMIN, 'POST', '/api/v1/nodes', {
        metadata: { name: 'old-1' },
        spec: { configSource: source('fleet') },
      }),
    );
    const status = { status: { nodeInfo: { kubeletVersion: 'v1.22.17' } } };
    ok(await api.as(ADMIN, 'PATCH', '/api/v1/nodes/old-1/status', status, MERGE));
    // singleProcessOOMKill arrived in 1.32: a 1.22 kubelet does not know it.
    const edit = { data: { kubelet: `${HEAD}singleProcessOOMKill: true\n` } };
    const told = async (user: string) => {
      const r = await api.as({ user }, 'PATCH', `${CM_PATH}/fleet`, edit, MERGE);
      assert.equal(r.status, 403, r.body);
      return (JSON.parse(r.body) as { message: string }).message;
    };
    const head = 'configmaps "fleet" is forbidden: the new content does not suit the kubelet of nodes assigned it: ';
    assert.equal(await told('lister'), `${head}kubelet 1.22 (old-1): unknown field singleProcessOOMKill`);
    assert.equal(await told('eve'), `${head}unknown field singleProcessOOMKill (1 node)`);
  });
});
