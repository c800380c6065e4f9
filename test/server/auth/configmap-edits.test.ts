// What an editor of a ConfigMap that nodes run is told by an in-process dkc server (Node,RBAC and its admission
// chain): an edit of the key nodes read directly is answered with a Warning counting the kubelets that restart onto
// it at once and naming the safe way; edits no node reads are not.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../../src/api/types.js';
import type { AdmissionAttributes } from '../../../src/server/authz.js';
import { inPlaceConfigEdit } from '../../../src/server/nodeconfig/inplaceedit.js';
import { configmaps } from '../../../src/server/registry.js';
import { ADMIN, startAuthzServer, type Answer, type AuthzServer } from '../../helpers/authzserver.js';

const HEAD = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
const CM_PATH = '/api/v1/namespaces/kube-system/configmaps';
const MERGE = 'application/merge-patch+json';
const source = (name: string, key = 'kubelet') => ({
  configMap: { namespace: 'kube-system', name, kubeletConfigKey: key },
});

let api: AuthzServer;
const ok = (r: Answer): Answer => {
  assert.ok(r.status >= 200 && r.status < 300, `${r.status} ${r.body}`);
  return r;
};
const patchCm = (name: string, body: unknown) => api.as(ADMIN, 'PATCH', `${CM_PATH}/${name}`, body, MERGE);

before(async () => {
  api = await startAuthzServer('configmap-edits');
  for (const name of ['cfg', 'other'])
    ok(
      await api.as(ADMIN, 'POST', CM_PATH, {
        metadata: { name },
        data: { kubelet: `${HEAD}maxPods: 110\n`, spare: `${HEAD}maxPods: 100\n` },
      }),
    );
  const nodes: [string, ReturnType<typeof source>][] = [
    ['node-1', source('cfg')],
    ['node-2', source('cfg')],
    ['node-3', source('cfg', 'spare')],
    ['node-4', source('other')],
  ];
  for (const [name, configSource] of nodes)
    ok(await api.as(ADMIN, 'POST', '/api/v1/nodes', { metadata: { name }, spec: { configSource } }));
});
after(() => api?.close());

const restartWarning = (n: string, name: string) =>
  `299 - ${JSON.stringify(
    `${n} ConfigMap kube-system/${name} directly and will restart ${n.startsWith('1 ') ? 'its kubelet' : 'their kubelets'} onto this edit at once, with no canary, batches or maxUnavailable; to change their config safely, create a new ConfigMap (kubectl create configmap --append-hash) and roll it out with a NodeConfigRollout`,
  )}`;

describe('an edit of a ConfigMap nodes run directly', () => {
  it('warns how many nodes restart at once onto a change of the key they read (patch and PUT)', async () => {
    const r = ok(await patchCm('cfg', { data: { kubelet: `${HEAD}maxPods: 120\n` } }));
    assert.deepEqual(r.warnings, [restartWarning('2 nodes run', 'cfg')]);
    const cm = await api.json<KubeObject>('GET', `${CM_PATH}/cfg`);
    const put = ok(
      await api.as(ADMIN, 'PUT', `${CM_PATH}/cfg`, {
        ...cm,
        data: { ...(cm['data'] as object), spare: `${HEAD}maxPods: 90\n` },
      }),
    );
    assert.deepEqual(put.warnings, [restartWarning('1 node runs', 'cfg')]);
  });

  it('says nothing of a label, a key no node reads, or a ConfigMap no node runs', async () => {
    assert.deepEqual(ok(await patchCm('cfg', { metadata: { labels: { team: 'a' } } })).warnings, []);
    assert.deepEqual(ok(await patchCm('cfg', { data: { unread: 'x' } })).warnings, []);
    assert.deepEqual(ok(await patchCm('other', { data: { spare: `${HEAD}maxPods: 95\n` } })).warnings, []);
  });

  it('counts the NodeConfigs that name it where the server assigns through them', async () => {
    for (const name of ['node-1', 'node-4'])
      ok(
        await api.as(ADMIN, 'POST', '/apis/dkc.io/v1alpha1/nodeconfigs', {
          apiVersion: 'dkc.io/v1alpha1',
          kind: 'NodeConfig',
          metadata: { name },
          spec: { configSource: source('other') },
        }),
      );
    const old = await api.json<KubeObject>('GET', `${CM_PATH}/other`);
    const attrs: AdmissionAttributes = {
      user: { name: 'admin', groups: ['system:masters'] },
      operation: 'UPDATE',
      resource: configmaps,
      subresource: '',
      namespace: 'kube-system',
      name: 'other',
      object: { ...old, data: { kubelet: `${HEAD}maxPods: 130\n` } },
      oldObject: old,
      dryRun: false,
      warnings: [],
    };
    await inPlaceConfigEdit(() => api.server.reads, 'nodeconfig').validate!(attrs);
    assert.deepEqual(
      attrs.warnings?.map((w) => `299 - ${JSON.stringify(w)}`),
      [restartWarning('2 nodes run', 'other')],
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
