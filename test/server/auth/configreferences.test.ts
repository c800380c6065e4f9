// Which requests name ConfigMaps as config (each needs get on them, as the requesting user) and which rollout writes
// assign config (they need update on nodes/configsource): the pure halves of the two admission checks. The end to
// end behaviour through kubectl is in test/security/rollout-references.e2e.test.ts.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../../src/api/errors.js';
import type { KubeObject } from '../../../src/api/types.js';
import type { AdmissionAttributes, AuthorizationAttributes, Authorizer, UserInfo } from '../../../src/server/authz.js';
import { configMapReferences, namedConfigMaps } from '../../../src/server/auth/configreferences.js';
import { configSourcePermission, rolloutAssignment } from '../../../src/server/auth/configsource.js';
import { nodes } from '../../../src/server/builtins.js';
import type { ResourceDef } from '../../../src/server/resourcedef.js';

const rollouts = { group: 'dkc.io', plural: 'nodeconfigrollouts' } as ResourceDef;
const user: UserInfo = { name: 'mallory', groups: ['system:authenticated'] };
const cm = (namespace: string, name: string) => ({ configMap: { namespace, name, kubeletConfigKey: 'kubelet' } });
const obj = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'r1' }, spec });

function request(
  resource: ResourceDef,
  operation: 'CREATE' | 'UPDATE' | 'DELETE',
  object: KubeObject,
  oldObject?: KubeObject,
  subresource = '',
): AdmissionAttributes {
  return {
    user,
    operation,
    resource,
    subresource,
    namespace: '',
    name: object.metadata.name ?? '',
    object,
    ...(oldObject ? { oldObject } : {}),
    dryRun: false,
  };
}

describe('namedConfigMaps', () => {
  const layered = obj({ layers: [cm('kube-system', 'base'), cm('victim', 'app-secrets')], nodeSelector: {} });

  it('a rollout created names its configSource or every layer, each with its field', () => {
    assert.deepEqual(namedConfigMaps(request(rollouts, 'CREATE', layered)), [
      { field: 'spec.layers[0]', namespace: 'kube-system', name: 'base' },
      { field: 'spec.layers[1]', namespace: 'victim', name: 'app-secrets' },
    ]);
    assert.deepEqual(namedConfigMaps(request(rollouts, 'CREATE', obj({ configSource: cm('victim', 'team-b') }))), [
      { field: 'spec.configSource', namespace: 'victim', name: 'team-b' },
    ]);
  });

  it('an update names them again only when configSource or layers change', () => {
    const paused = obj({ ...(layered.spec as object), paused: true });
    assert.deepEqual(namedConfigMaps(request(rollouts, 'UPDATE', paused, layered)), []);
    const rekeyed = obj({
      layers: [
        cm('kube-system', 'base'),
        { configMap: { namespace: 'victim', name: 'app-secrets', kubeletConfigKey: 'other' } },
      ],
    });
    assert.equal(namedConfigMaps(request(rollouts, 'UPDATE', rekeyed, layered)).length, 2);
    assert.deepEqual(namedConfigMaps(request(rollouts, 'DELETE', layered)), []);
    assert.deepEqual(namedConfigMaps(request(rollouts, 'UPDATE', layered, layered, 'status')), []);
  });

  it("a Node's configSource when it changes, in either form; clearing it names none", () => {
    const node = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'node-1' }, spec });
    assert.deepEqual(namedConfigMaps(request(nodes, 'UPDATE', node({ configSource: cm('victim', 'x') }), node({}))), [
      { field: 'spec.configSource', namespace: 'victim', name: 'x' },
    ]);
    assert.deepEqual(
      namedConfigMaps(
        request(
          nodes,
          'UPDATE',
          node({ configSource: { configMapRef: { namespace: 'victim', name: 'old' } } }),
          node({}),
        ),
      ),
      [{ field: 'spec.configSource', namespace: 'victim', name: 'old' }],
    );
    assert.deepEqual(
      namedConfigMaps(
        request(
          nodes,
          'UPDATE',
          node({ configSource: cm('victim', 'x'), unschedulable: true }),
          node({ configSource: cm('victim', 'x') }),
        ),
      ),
      [],
    );
    assert.deepEqual(
      namedConfigMaps(
        request(nodes, 'UPDATE', node({ configSource: null }), node({ configSource: cm('victim', 'x') })),
      ),
      [],
    );
  });

  it('the plugin asks get on each as the requesting user and refuses naming the field and the ConfigMap', async () => {
    const asked: AuthorizationAttributes[] = [];
    const onlyKubeSystem: Authorizer = {
      authorize: (a) => (
        asked.push(a),
        a.namespace === 'kube-system' ? { decision: 'allow', reason: '' } : { decision: 'no-opinion', reason: '' }
      ),
    };
    await assert.rejects(
      Promise.resolve(configMapReferences(onlyKubeSystem).validate!(request(rollouts, 'CREATE', layered))),
      (err: unknown) => {
        assert.ok(err instanceof StatusError);
        assert.equal(err.code, 403);
        assert.equal(
          err.message,
          'nodeconfigrollouts.dkc.io "r1" is forbidden: User "mallory" cannot get resource "configmaps" in API group "" in the namespace "victim": spec.layers[1] names ConfigMap victim/app-secrets, and naming a ConfigMap as config requires get on it',
        );
        return true;
      },
    );
    assert.deepEqual(
      asked.map((a) => [a.user.name, a.verb, a.resource, a.namespace, a.name]),
      [
        ['mallory', 'get', 'configmaps', 'kube-system', 'base'],
        ['mallory', 'get', 'configmaps', 'victim', 'app-secrets'],
      ],
    );
  });
});

describe('rolloutAssignment', () => {
  const before = obj({
    configSource: cm('kube-system', 'a'),
    nodeSelector: { matchLabels: { pool: 'blue' } },
    strategy: { canary: 1 },
  });
  const change = (spec: Record<string, unknown>) =>
    rolloutAssignment(request(rollouts, 'UPDATE', obj({ ...(before.spec as object), ...spec }), before));

  it('creating a rollout assigns; so does changing its target, its selector or revert', () => {
    assert.deepEqual(rolloutAssignment(request(rollouts, 'CREATE', before)), { create: true });
    assert.deepEqual(change({ configSource: cm('kube-system', 'b') }), { fields: ['configSource'] });
    assert.deepEqual(change({ layers: [cm('kube-system', 'b')] }), { fields: ['layers'] });
    assert.deepEqual(change({ nodeSelector: {} }), { fields: ['nodeSelector'] });
    assert.deepEqual(change({ revert: true }), { fields: ['revert'] });
  });

  it('pausing, resuming, the strategy and an explicit revert: false do not', () => {
    assert.equal(change({ paused: true }), undefined);
    assert.equal(change({ strategy: { canary: 2, maxUnavailable: '50%' } }), undefined);
    assert.equal(change({ revert: false }), undefined);
    assert.equal(rolloutAssignment(request(rollouts, 'UPDATE', before, before, 'status')), undefined);
    assert.equal(rolloutAssignment(request(rollouts, 'DELETE', before)), undefined);
  });

  it('the plugin refuses without update on nodes/configsource for every node, naming what the request changes', async () => {
    const asked: AuthorizationAttributes[] = [];
    const none: Authorizer = { authorize: (a) => (asked.push(a), { decision: 'no-opinion', reason: '' }) };
    const plugin = configSourcePermission(none);
    await assert.rejects(Promise.resolve(plugin.validate!(request(rollouts, 'CREATE', before))), {
      message:
        'nodeconfigrollouts.dkc.io "r1" is forbidden: User "mallory" cannot update resource "nodes/configsource" in API group "" at the cluster scope: a NodeConfigRollout assigns config to the nodes it selects, which requires update on nodes/configsource',
    });
    assert.deepEqual(
      [asked[0]!.verb, asked[0]!.resource, asked[0]!.subresource, asked[0]!.name],
      ['update', 'nodes', 'configsource', ''],
    );
    const undo = obj({ ...(before.spec as object), revert: true });
    await assert.rejects(
      Promise.resolve(plugin.validate!(request(rollouts, 'UPDATE', undo, before))),
      /: changing spec\.revert of a NodeConfigRollout assigns config to nodes, which requires update on nodes\/configsource$/,
    );
    await plugin.validate!(request(rollouts, 'UPDATE', obj({ ...(before.spec as object), paused: true }), before));
  });
});
