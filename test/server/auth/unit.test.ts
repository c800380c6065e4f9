// Pure logic of the server's authorization: the node graph, the Node authorizer's answers and reasons, RBAC rule
// matching, NodeRestriction's refusals, impersonation checks, access reviews and the agent's webhook decision cache.

import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { StatusError } from '../../../src/api/errors.js';
import type { KubeObject } from '../../../src/api/types.js';
import { validateCreate, validateUpdate } from '../../../src/api/validation/index.js';
import { WebhookAuthorizer } from '../../../src/agent/node/webhookauthz.js';
import { requestAttributes } from '../../../src/agent/node/httpserver.js';
import {
  authorizerChain,
  type AdmissionAttributes,
  type AuthorizationAttributes,
  type UserInfo,
} from '../../../src/server/authz.js';
import { Authenticator } from '../../../src/server/authn.js';
import { answerAccessReview, accessReviewResources } from '../../../src/server/auth/accessreview.js';
import { auditEvent } from '../../../src/server/auth/audit.js';
import { impersonate } from '../../../src/server/auth/impersonation.js';
import { mastersAuthorizer, parseAuthorizationModes } from '../../../src/server/auth/index.js';
import { NodeAuthorizer, nodeIdentity } from '../../../src/server/auth/nodeauthorizer.js';
import { NodeGraph, PodGraph } from '../../../src/server/auth/nodegraph.js';
import { parseFieldSelector } from '../../../src/api/selectors.js';
import { nodeRestriction } from '../../../src/server/auth/noderestriction.js';
import { RbacAuthorizer, ruleAllows, staticRbacSource } from '../../../src/server/auth/rbac.js';
import {
  defaultClusterRoleBindings,
  defaultClusterRoles,
  defaultRoleBindings,
  defaultRoles,
  CONTROLLER_USER,
  GARBAGE_COLLECTOR_USER,
  NAMESPACE_CONTROLLER_USER,
  NODE_CONFIG_OPERATOR,
} from '../../../src/server/auth/rbacresources.js';
import { leases, nodes } from '../../../src/server/builtins.js';
import { parseRequestInfo } from '../../../src/server/requestinfo.js';
import { FakeClock } from '../../helpers/fakeclock.js';

const node1: UserInfo = { name: 'system:node:node-1', groups: ['system:nodes', 'system:authenticated'] };

function node(name: string, rv: number, cm?: { namespace: string; name: string }): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, resourceVersion: String(rv) },
    spec: cm ? { configSource: { configMap: { ...cm, kubeletConfigKey: 'kubelet' } } } : {},
  };
}

function attrs(
  user: UserInfo,
  verb: string,
  resource: string,
  extra: Partial<AuthorizationAttributes> = {},
): AuthorizationAttributes {
  return {
    user,
    verb,
    isResourceRequest: true,
    path: '',
    apiGroup: '',
    apiVersion: 'v1',
    resource,
    subresource: '',
    namespace: '',
    name: '',
    ...extra,
  };
}

describe('NodeGraph', () => {
  it('follows the cache and never goes back to an older resourceVersion than a synchronous write', () => {
    let cached: KubeObject[] = [node('node-1', 5, { namespace: 'kube-system', name: 'a' })];
    let revision = 5;
    const g = new NodeGraph({ revision: () => revision, objects: () => cached });
    assert.ok(g.hasConfigMapPath('node-1', 'kube-system', 'a'));
    g.observe(node('node-1', 7, { namespace: 'kube-system', name: 'b' }));
    assert.ok(g.hasConfigMapPath('node-1', 'kube-system', 'b'), 'the synchronous write is in force at once');
    revision = 6; // the cache moved, but only to an older state of node-1
    assert.ok(g.hasConfigMapPath('node-1', 'kube-system', 'b'));
    cached = [node('node-1', 8)];
    revision = 8;
    assert.equal(g.configMapOf('node-1'), undefined, 'clearing configSource removes the edge');
    cached = [];
    revision = 9;
    assert.equal(g.configMapOf('node-1'), undefined);
  });

  it("catches up from the cache's changes since its last look, and reads every node only when they are gone", () => {
    let revision = 5;
    let reads = 0;
    let changes: { type: string; object: KubeObject }[] | undefined = [];
    let cached = [node('node-1', 5, { namespace: 'kube-system', name: 'a' }), node('node-2', 4)];
    const g = new NodeGraph({
      revision: () => revision,
      objects: () => (reads++, cached),
      changesSince: () => changes,
    });
    assert.ok(g.hasConfigMapPath('node-1', 'kube-system', 'a'));
    assert.equal(reads, 1, 'the first look reads every node');
    changes = [
      { type: 'MODIFIED', object: node('node-2', 6, { namespace: 'kube-system', name: 'b' }) },
      { type: 'DELETED', object: node('node-1', 7) },
    ];
    revision = 7;
    assert.ok(g.hasConfigMapPath('node-2', 'kube-system', 'b'));
    assert.equal(g.configMapOf('node-1'), undefined);
    assert.equal(reads, 1, 'the changes were enough');
    changes = undefined;
    cached = [node('node-1', 8, { namespace: 'kube-system', name: 'c' })];
    revision = 9;
    assert.ok(g.hasConfigMapPath('node-1', 'kube-system', 'c'), 'past the window: the cache as it is');
    assert.equal(g.configMapOf('node-2'), undefined, 'gone from the cache');
    assert.equal(reads, 2);
  });

  it('a deleted node loses its edge; an incomplete reference makes none', () => {
    const g = new NodeGraph();
    g.observe(node('n', 1, { namespace: 'kube-system', name: 'a' }));
    g.observe(node('n', 2, { namespace: 'kube-system', name: 'a' }), true);
    assert.equal(g.configMapOf('n'), undefined);
    g.observe(node('m', 1, { namespace: '', name: 'a' }));
    assert.equal(g.configMapOf('m'), undefined);
  });
});

describe('Node authorizer', () => {
  const g = new NodeGraph();
  g.observe(node('node-1', 1, { namespace: 'kube-system', name: 'mine' }));
  const pods = new PodGraph();
  pods.observe({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace: 'default', name: 'p', resourceVersion: '1' },
    spec: { nodeName: 'node-1' },
  });
  pods.observe({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace: 'default', name: 'q', resourceVersion: '1' },
    spec: { nodeName: 'node-2' },
  });
  const na = new NodeAuthorizer({ configMaps: [g], pods });
  const cm = (verb: string, extra: Partial<AuthorizationAttributes> = {}) =>
    na.authorize(attrs(node1, verb, 'configmaps', { namespace: 'kube-system', ...extra }));

  it('identifies nodes by group and prefix together', () => {
    assert.deepEqual(nodeIdentity(node1), { isNode: true, nodeName: 'node-1' });
    assert.deepEqual(nodeIdentity({ name: 'system:node:x', groups: [] }), { isNode: false, nodeName: '' });
    assert.deepEqual(nodeIdentity({ name: 'x', groups: ['system:nodes'] }), { isNode: false, nodeName: '' });
    assert.deepEqual(nodeIdentity({ name: 'system:node:', groups: ['system:nodes'] }), { isNode: true, nodeName: '' });
  });

  it('answers ConfigMap reads as upstream, with its reasons', () => {
    assert.equal(cm('get', { name: 'mine' }).decision, 'allow');
    assert.deepEqual(cm('get', { name: 'other' }), {
      decision: 'no-opinion',
      reason: "no relationship found between node 'node-1' and this object",
    });
    assert.deepEqual(cm('list'), { decision: 'no-opinion', reason: 'No Object name found' });
    const named = (name: string) => ({ fieldSelector: parseFieldSelector(`metadata.name=${name}`) });
    assert.equal(cm('list', named('mine')).decision, 'allow');
    assert.equal(cm('watch', named('mine')).decision, 'allow');
    assert.equal(cm('list', named('other')).decision, 'no-opinion');
    assert.deepEqual(cm('update', { name: 'mine' }), {
      decision: 'no-opinion',
      reason: 'can only read resources of this type',
    });
    assert.deepEqual(cm('get', { name: 'mine', subresource: 'x' }), {
      decision: 'no-opinion',
      reason: 'cannot read subresource',
    });
    assert.deepEqual(cm('get', { name: 'mine', namespace: '' }), {
      decision: 'no-opinion',
      reason: 'can only read namespaced object of this type',
    });
    assert.equal(cm('get', { name: 'mine', namespace: 'default' }).decision, 'no-opinion');
  });

  it('grants the kubelet rules and its own lease; nothing else', () => {
    assert.equal(na.authorize(attrs(node1, 'list', 'nodes')).decision, 'allow');
    assert.equal(
      na.authorize(attrs(node1, 'patch', 'nodes', { name: 'node-2' })).decision,
      'allow',
      'NodeRestriction refuses it, not the authorizer',
    );
    assert.equal(
      na.authorize(attrs(node1, 'patch', 'nodes', { name: 'node-1', subresource: 'status' })).decision,
      'allow',
    );
    assert.equal(na.authorize(attrs(node1, 'delete', 'nodes', { name: 'node-1' })).decision, 'no-opinion');
    assert.equal(na.authorize(attrs(node1, 'create', 'events', { namespace: 'default' })).decision, 'allow');
    assert.equal(
      na.authorize(attrs(node1, 'delete', 'events', { namespace: 'default', name: 'e' })).decision,
      'no-opinion',
    );
    const lease = (verb: string, name: string, namespace = 'kube-node-lease') =>
      na.authorize(attrs(node1, verb, 'leases', { apiGroup: 'coordination.k8s.io', namespace, name }));
    assert.equal(lease('get', 'node-1').decision, 'allow');
    assert.equal(lease('update', 'node-1').decision, 'allow');
    assert.equal(lease('create', '').decision, 'allow');
    assert.deepEqual(lease('get', 'node-2'), {
      decision: 'no-opinion',
      reason: 'can only access node lease with the same name as the requesting node',
    });
    assert.deepEqual(lease('get', 'node-1', 'default'), {
      decision: 'no-opinion',
      reason: 'can only access leases in the kube-node-lease namespace',
    });
    assert.equal(
      na.authorize(attrs(node1, 'get', 'secrets', { namespace: 'default', name: 's' })).decision,
      'no-opinion',
    );
    // The Pods a kubelet runs: read, mirror Pods created and deleted, status written, evictions (NodeRestriction
    // keeps each write to Pods bound to the node); never a Pod's spec, its binding, or a deletecollection.
    const pod = (verb: string, subresource = '') =>
      na.authorize(attrs(node1, verb, 'pods', { namespace: 'default', name: 'p', subresource })).decision;
    for (const verb of ['get', 'list', 'watch', 'create', 'delete']) assert.equal(pod(verb), 'allow', verb);
    // Reads only of its own Pods (AuthorizeNodeWithSelectors): one bound to it, or a list scoped to it.
    const read = (verb: string, extra: Partial<AuthorizationAttributes>) =>
      na.authorize(attrs(node1, verb, 'pods', { namespace: 'default', ...extra }));
    assert.deepEqual(read('get', { name: 'q' }), {
      decision: 'no-opinion',
      reason: "no relationship found between node 'node-1' and this object",
    });
    for (const verb of ['list', 'watch']) {
      assert.deepEqual(read(verb, { namespace: '' }), {
        decision: 'no-opinion',
        reason: 'can only list/watch pods with spec.nodeName field selector',
      });
      const on = (node: string) => ({ namespace: '', fieldSelector: parseFieldSelector(`spec.nodeName=${node}`) });
      assert.equal(read(verb, on('node-1')).decision, 'allow', verb);
      assert.equal(read(verb, on('node-2')).decision, 'no-opinion', verb);
      assert.equal(read(verb, { fieldSelector: parseFieldSelector('spec.nodeName!=node-2') }).decision, 'no-opinion');
    }
    for (const verb of ['update', 'patch', 'deletecollection']) assert.equal(pod(verb), 'no-opinion', verb);
    assert.equal(pod('patch', 'status'), 'allow');
    assert.equal(pod('update', 'status'), 'allow');
    assert.equal(pod('create', 'eviction'), 'allow');
    assert.equal(pod('create', 'binding'), 'no-opinion');
    assert.deepEqual(na.authorize(attrs({ name: 'system:node:', groups: ['system:nodes'] }, 'get', 'nodes')), {
      decision: 'no-opinion',
      reason: 'unknown node for user "system:node:"',
    });
    assert.equal(na.authorize(attrs({ name: 'alice', groups: [] }, 'get', 'nodes')).decision, 'no-opinion');
  });
});

describe('RBAC', () => {
  const defaults = [...defaultClusterRoles, ...defaultClusterRoleBindings, ...defaultRoles, ...defaultRoleBindings];

  it('matches verbs, groups, resources, subresources, names and URLs as upstream', () => {
    const a = attrs(node1, 'get', 'nodes', { name: 'n1', subresource: 'proxy' });
    assert.ok(ruleAllows(a, { verbs: ['get'], apiGroups: [''], resources: ['nodes/proxy'] }));
    assert.ok(ruleAllows(a, { verbs: ['*'], apiGroups: ['*'], resources: ['*/proxy'] }));
    assert.ok(
      !ruleAllows(a, { verbs: ['get'], apiGroups: [''], resources: ['nodes'] }),
      'a resource rule does not cover its subresources',
    );
    assert.ok(ruleAllows(a, { verbs: ['get'], apiGroups: [''], resources: ['nodes/proxy'], resourceNames: ['n1'] }));
    assert.ok(!ruleAllows(a, { verbs: ['get'], apiGroups: [''], resources: ['nodes/proxy'], resourceNames: ['n2'] }));
    assert.ok(!ruleAllows(a, { verbs: ['list'], apiGroups: [''], resources: ['nodes/proxy'] }));
    assert.ok(!ruleAllows(a, { verbs: ['get'], apiGroups: ['apps'], resources: ['nodes/proxy'] }));
    const url = { ...attrs(node1, 'get', ''), isResourceRequest: false, path: '/apis/x/v1' };
    assert.ok(ruleAllows(url, { verbs: ['get'], nonResourceURLs: ['/apis/*'] }));
    assert.ok(!ruleAllows(url, { verbs: ['get'], nonResourceURLs: ['/api'] }));
  });

  it('RoleBindings grant in their namespace only; ClusterRoleBindings everywhere; subjects by user, group, service account', () => {
    const rb = (ns: string, subject: object, roleRef: object): KubeObject => ({
      kind: 'RoleBinding',
      metadata: { name: 'b', namespace: ns },
      roleRef,
      subjects: [subject],
    });
    const rbac = new RbacAuthorizer(
      staticRbacSource([
        ...defaults,
        rb(
          'team',
          { kind: 'User', name: 'alice' },
          { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        ),
        rb(
          'team',
          { kind: 'ServiceAccount', name: 'bot' },
          { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
        ),
      ]),
    );
    const alice: UserInfo = { name: 'alice', groups: ['system:authenticated'] };
    const bot: UserInfo = { name: 'system:serviceaccount:team:bot', groups: ['system:authenticated'] };
    assert.equal(rbac.authorize(attrs(alice, 'get', 'configmaps', { namespace: 'team', name: 'x' })).decision, 'allow');
    assert.equal(
      rbac.authorize(attrs(alice, 'get', 'configmaps', { namespace: 'other', name: 'x' })).decision,
      'no-opinion',
    );
    assert.equal(
      rbac.authorize(attrs(alice, 'delete', 'configmaps', { namespace: 'team', name: 'x' })).decision,
      'no-opinion',
    );
    assert.equal(
      rbac.authorize(attrs(bot, 'delete', 'configmaps', { namespace: 'team', name: 'x' })).decision,
      'allow',
    );
    assert.equal(
      rbac.authorize(attrs(alice, 'create', 'selfsubjectaccessreviews', { apiGroup: 'authorization.k8s.io' })).decision,
      'allow',
    );
    assert.equal(
      rbac.authorize(attrs(node1, 'create', 'subjectaccessreviews', { apiGroup: 'authorization.k8s.io' })).decision,
      'allow',
    );
    assert.equal(
      rbac.authorize(attrs(alice, 'create', 'subjectaccessreviews', { apiGroup: 'authorization.k8s.io' })).decision,
      'no-opinion',
    );
  });

  it('the node-config operator may do the workflow and nothing beyond it', () => {
    const op: UserInfo = { name: 'olivia', groups: ['dkc:node-config-operators', 'system:authenticated'] };
    const rbac = new RbacAuthorizer(staticRbacSource(defaults));
    const can = (verb: string, resource: string, extra: Partial<AuthorizationAttributes> = {}) =>
      rbac.authorize(attrs(op, verb, resource, extra)).decision === 'allow';
    assert.ok(can('get', 'configmaps', { namespace: 'kube-system', name: 'c' }));
    assert.ok(can('list', 'configmaps', { namespace: 'kube-system' }));
    assert.ok(can('create', 'configmaps', { namespace: 'kube-system' }));
    assert.ok(can('patch', 'nodes', { name: 'node-1' }));
    assert.ok(can('get', 'nodes', { name: 'node-1', subresource: 'proxy' }));
    assert.ok(!can('get', 'configmaps', { namespace: 'default', name: 'c' }));
    assert.ok(!can('delete', 'configmaps', { namespace: 'kube-system', name: 'c' }));
    assert.ok(!can('delete', 'nodes', { name: 'node-1' }));
    assert.ok(!can('patch', 'nodes', { name: 'node-1', subresource: 'status' }));
    assert.ok(can('update', 'nodes', { name: 'node-1', subresource: 'configsource' }));
    const dkc = { apiGroup: 'dkc.io', apiVersion: 'v1alpha1' };
    for (const verb of ['get', 'list', 'create', 'patch', 'delete'])
      assert.ok(can(verb, 'nodeconfigrollouts', dkc), `nodeconfigrollouts ${verb}`);
    assert.ok(can('list', 'nodeconfigpolicies', dkc));
    assert.ok(!can('create', 'nodeconfigpolicies', dkc), "policies are an administrator's");
    assert.ok(defaultClusterRoles.some((r) => r.metadata.name === NODE_CONFIG_OPERATOR));
  });

  it('only the operator role, the controllers and system:masters may assign config (nodes/configsource)', async () => {
    const rbac = new RbacAuthorizer(
      staticRbacSource([
        ...defaults,
        ...['edit', 'admin'].map((role) => ({
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: `${role}-binding` },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
          subjects: [{ kind: 'User', name: `${role}-user` }],
        })),
      ]),
    );
    const chain = authorizerChain(mastersAuthorizer, rbac);
    const assign = async (user: UserInfo) =>
      (await chain.authorize(attrs(user, 'update', 'nodes', { name: 'n', subresource: 'configsource' }))).decision;
    assert.equal(await assign({ name: CONTROLLER_USER, groups: ['system:authenticated'] }), 'allow');
    assert.equal(await assign({ name: 'root', groups: ['system:masters'] }), 'allow');
    assert.equal(await assign({ name: 'o', groups: ['dkc:node-config-operators'] }), 'allow');
    assert.equal(await assign({ name: 'edit-user', groups: ['system:authenticated'] }), 'deny');
    assert.equal(await assign({ name: 'admin-user', groups: ['system:authenticated'] }), 'deny');
    // The same users keep their other rights: edit still writes ConfigMaps.
    assert.equal(
      (
        await chain.authorize(
          attrs({ name: 'edit-user', groups: [] }, 'create', 'configmaps', { namespace: 'default' }),
        )
      ).decision,
      'allow',
    );
  });

  it('the controllers (system:dkc:controller, no groups) hold what they use and nothing more', () => {
    const ctl: UserInfo = { name: CONTROLLER_USER, groups: ['system:authenticated'] };
    const rbac = new RbacAuthorizer(staticRbacSource(defaults));
    const can = (verb: string, resource: string, extra: Partial<AuthorizationAttributes> = {}) =>
      rbac.authorize(attrs(ctl, verb, resource, extra)).decision === 'allow';
    for (const verb of ['get', 'list', 'watch', 'patch', 'update']) assert.ok(can(verb, 'nodes'), `nodes ${verb}`);
    for (const verb of ['get', 'patch', 'update'])
      assert.ok(can(verb, 'nodes', { name: 'n', subresource: 'status' }), `nodes/status ${verb}`);
    for (const verb of ['get', 'list', 'watch', 'create'])
      assert.ok(can(verb, 'configmaps', { namespace: 'dkc-configs' }), `configmaps ${verb}`);
    const dkc = { apiGroup: 'dkc.io', apiVersion: 'v1alpha1' };
    for (const verb of ['get', 'list', 'watch', 'update', 'patch'])
      assert.ok(can(verb, 'nodeconfigrollouts', dkc), `nodeconfigrollouts ${verb}`);
    for (const verb of ['get', 'update', 'patch'])
      assert.ok(can(verb, 'nodeconfigrollouts', { ...dkc, subresource: 'status' }), `status ${verb}`);
    for (const verb of ['get', 'list', 'watch'])
      assert.ok(can(verb, 'nodeconfigpolicies', dkc), `nodeconfigpolicies ${verb}`);
    for (const verb of ['create', 'patch', 'update'])
      assert.ok(can(verb, 'events', { namespace: 'default' }), `events ${verb}`);
    const coordination = { apiGroup: 'coordination.k8s.io' };
    // Its leader Lease by name in kube-system (and a create, which names nothing); the nodes' Leases read only.
    const leader = { ...coordination, namespace: 'kube-system', name: 'dkc-controller' };
    for (const verb of ['get', 'update']) assert.ok(can(verb, 'leases', leader), `leader lease ${verb}`);
    assert.ok(can('create', 'leases', { ...coordination, namespace: 'kube-system' }));
    assert.ok(!can('update', 'leases', { ...leader, name: 'other' }), 'another lease in kube-system');
    for (const verb of ['get', 'list', 'watch'])
      assert.ok(can(verb, 'leases', { ...coordination, namespace: 'kube-node-lease' }), `node leases ${verb}`);
    for (const verb of ['create', 'update'])
      assert.ok(
        !can(verb, 'leases', { ...coordination, namespace: 'kube-node-lease', name: 'n' }),
        `node leases ${verb}`,
      );
    assert.ok(!can('get', 'leases', { ...coordination, namespace: 'default' }), 'leases elsewhere');
    assert.ok(!can('patch', 'leases', leader));
    assert.ok(!can('update', 'nodes', { name: 'n', subresource: 'proxy' }));
    assert.ok(!can('create', 'nodes'));
    assert.ok(!can('create', 'nodeconfigrollouts', dkc));
    // Rendered layers are created in dkc's config namespace only (not kube-system: coredns, kube-proxy); layers are
    // read anywhere.
    assert.ok(can('get', 'configmaps', { namespace: 'pools' }));
    assert.ok(can('create', 'configmaps', { namespace: 'dkc-configs' }));
    for (const ns of ['default', 'kube-node-lease', 'kube-system'])
      assert.ok(!can('create', 'configmaps', { namespace: ns }), `configmaps create in ${ns}`);
    // A rendered ConfigMap found already made is taken over by a patch of its owner reference.
    assert.ok(can('patch', 'configmaps', { namespace: 'dkc-configs', name: 'c' }));
    for (const ns of ['default', 'kube-system'])
      assert.ok(!can('patch', 'configmaps', { namespace: ns, name: 'coredns' }), `configmaps patch in ${ns}`);
    assert.ok(!can('update', 'configmaps', { namespace: 'kube-system', name: 'c' }));
    assert.ok(!can('get', 'secrets', { namespace: 'kube-system' }));
    assert.ok(!can('get', 'nodes', { name: 'n', subresource: 'proxy' }));
    // The garbage collector's and the namespace controller's rights are their own users': this identity deletes
    // nothing of anyone's, lists nothing it does not use, and leaves namespaces alone.
    const rbacGroup = { apiGroup: 'rbac.authorization.k8s.io' };
    assert.ok(!can('delete', 'configmaps', { namespace: 'kube-system', name: 'c' }));
    assert.ok(!can('delete', 'secrets', { namespace: 'kube-system', name: 's' }), 'delete a Secret');
    assert.ok(!can('delete', 'clusterroles', { ...rbacGroup, name: 'cluster-admin' }), 'delete a ClusterRole');
    assert.ok(!can('delete', 'nodeconfigrollouts', { ...dkc, name: 'r' }), 'delete a rollout');
    assert.ok(!can('deletecollection', 'configmaps', { namespace: 'default' }), 'deletecollection');
    assert.ok(!can('list', 'secrets'), 'list Secrets');
    assert.ok(!can('list', 'widgets', { apiGroup: 'example.com', namespace: 'x' }), 'list a custom resource');
    for (const verb of ['get', 'list', 'watch']) assert.ok(!can(verb, 'namespaces'), `namespaces ${verb}`);
    for (const sub of ['status', 'finalize'])
      assert.ok(!can('update', 'namespaces', { name: 'n', subresource: sub }), `namespaces/${sub}`);
  });

  it('the namespace controller (its own user) follows namespaces and lists and deletes what they hold, and nothing more', () => {
    const nsc: UserInfo = { name: NAMESPACE_CONTROLLER_USER, groups: ['system:authenticated'] };
    const rbac = new RbacAuthorizer(staticRbacSource(defaults));
    const can = (verb: string, resource: string, extra: Partial<AuthorizationAttributes> = {}) =>
      rbac.authorize(attrs(nsc, verb, resource, extra)).decision === 'allow';
    // Follows namespaces, writes their status and /finalize, and lists and deletes what a terminating namespace holds,
    // of any kind (custom ones too), as kube's namespace controller may; it reads no object by name and changes none
    // otherwise.
    for (const verb of ['get', 'list', 'watch']) assert.ok(can(verb, 'namespaces'), `namespaces ${verb}`);
    for (const sub of ['status', 'finalize'])
      assert.ok(can('update', 'namespaces', { name: 'n', subresource: sub }), `namespaces/${sub}`);
    assert.ok(!can('update', 'namespaces', { name: 'n' }));
    const widgets = { apiGroup: 'example.com', namespace: 'x' };
    for (const verb of ['list', 'delete', 'deletecollection'])
      assert.ok(can(verb, 'widgets', widgets), `widgets ${verb}`);
    for (const verb of ['get', 'create', 'update', 'patch'])
      assert.ok(!can(verb, 'widgets', { ...widgets, name: 'w' }), `widgets ${verb}`);
    // Not the other controllers' identity: no leader Lease, no node, no rollout.
    assert.ok(!can('create', 'leases', { apiGroup: 'coordination.k8s.io', namespace: 'kube-system' }));
    assert.ok(!can('patch', 'nodes', { name: 'n' }));
    assert.ok(!can('update', 'nodeconfigrollouts', { apiGroup: 'dkc.io', apiVersion: 'v1alpha1', name: 'r' }));
  });

  it('the garbage collector (its own user) reads, patches and deletes any object, and creates only events', () => {
    const gc: UserInfo = { name: GARBAGE_COLLECTOR_USER, groups: ['system:authenticated'] };
    const rbac = new RbacAuthorizer(staticRbacSource(defaults));
    const can = (verb: string, resource: string, extra: Partial<AuthorizationAttributes> = {}) =>
      rbac.authorize(attrs(gc, verb, resource, extra)).decision === 'allow';
    const targets: [string, Partial<AuthorizationAttributes>][] = [
      ['secrets', { namespace: 'kube-system', name: 's' }],
      ['clusterroles', { apiGroup: 'rbac.authorization.k8s.io', name: 'r' }],
      ['nodeconfigrollouts', { apiGroup: 'dkc.io', apiVersion: 'v1alpha1', name: 'r' }],
      ['widgets', { apiGroup: 'example.com', namespace: 'default', name: 'w' }],
    ];
    for (const [resource, extra] of targets) {
      for (const verb of ['get', 'list', 'watch', 'patch', 'update', 'delete'])
        assert.ok(can(verb, resource, extra), `${resource} ${verb}`);
      for (const verb of ['create', 'deletecollection', 'escalate', 'bind'])
        assert.ok(!can(verb, resource, extra), `${resource} ${verb}`);
    }
    for (const apiGroup of ['', 'events.k8s.io'])
      assert.ok(can('create', 'events', { apiGroup, namespace: 'default' }), `events in "${apiGroup}"`);
    // Not the other controllers' identity: no leader Lease to create.
    assert.ok(!can('create', 'leases', { apiGroup: 'coordination.k8s.io', namespace: 'kube-system' }));
  });

  it('validates RBAC objects and keeps roleRef immutable', () => {
    assert.deepEqual(
      validateCreate('ClusterRole', {
        kind: 'ClusterRole',
        metadata: { name: 'system:x' },
        rules: [{ verbs: ['get'], apiGroups: [''], resources: ['nodes'] }],
      }),
      [],
    );
    const bad = validateCreate('Role', {
      kind: 'Role',
      metadata: { name: 'r', namespace: 'd' },
      rules: [{ verbs: [], nonResourceURLs: ['/x'] }],
    });
    assert.deepEqual(bad.map(String), [
      'rules[0].verbs: Required value: verbs must contain at least one value',
      'rules[0].nonResourceURLs: Invalid value: ["/x"]: namespaced rules cannot apply to non-resource URLs',
    ]);
    const binding: KubeObject = {
      kind: 'ClusterRoleBinding',
      metadata: { name: 'b' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'x' },
      subjects: [{ kind: 'Robot', name: 'r' }],
    };
    assert.deepEqual(validateCreate('ClusterRoleBinding', binding).map(String), [
      'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
      'subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
    ]);
    const ok: KubeObject = {
      kind: 'RoleBinding',
      metadata: { name: 'b', namespace: 'd', uid: 'u', creationTimestamp: 't', resourceVersion: '1' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'x' },
    };
    const changed = { ...ok, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'y' } };
    assert.ok(
      validateUpdate('RoleBinding', changed, ok)
        .map(String)
        .some((e) => e.includes('cannot change roleRef')),
    );
  });
});

describe('NodeRestriction', () => {
  const adm = (over: Partial<AdmissionAttributes>): AdmissionAttributes => ({
    user: node1,
    operation: 'UPDATE',
    resource: nodes,
    subresource: '',
    namespace: '',
    name: 'node-1',
    dryRun: false,
    ...over,
  });
  const refuse = (a: AdmissionAttributes): string => {
    try {
      assert.equal(nodeRestriction(() => undefined).validate!(a), undefined, 'NodeRestriction decides synchronously');
    } catch (err) {
      assert.ok(err instanceof StatusError);
      assert.equal(err.code, 403);
      return err.message;
    }
    return '';
  };
  const withSource = (name?: string) => node('node-1', 1, name ? { namespace: 'kube-system', name } : undefined);

  it("refuses other nodes, a create with a source and a new source, with upstream's messages", () => {
    assert.equal(
      refuse(adm({ name: 'node-2' })),
      'nodes "node-2" is forbidden: node "node-1" is not allowed to modify node "node-2"',
    );
    assert.equal(
      refuse(adm({ operation: 'CREATE', object: withSource('a') })),
      'nodes "node-1" is forbidden: node "node-1" is not allowed to create pods with a non-nil configSource',
    );
    assert.equal(
      refuse(adm({ object: withSource('b'), oldObject: withSource('a') })),
      'nodes "node-1" is forbidden: node "node-1" is not allowed to update configSource to a new non-nil configSource',
    );
    assert.equal(refuse(adm({ object: withSource('b'), oldObject: withSource() })).length > 0, true);
    assert.equal(
      refuse(adm({ user: { name: 'system:node:', groups: ['system:nodes'] } })),
      'nodes "node-1" is forbidden: could not determine node from user "system:node:"',
    );
  });

  it('allows clearing or keeping the source, creating without one, and non-node users', () => {
    assert.equal(refuse(adm({ object: withSource(), oldObject: withSource('a') })), '');
    assert.equal(refuse(adm({ object: withSource('a'), oldObject: withSource('a') })), '');
    assert.equal(refuse(adm({ operation: 'CREATE', object: withSource() })), '');
    assert.equal(
      refuse(adm({ user: { name: 'admin', groups: ['system:masters'] }, name: 'node-2', object: withSource('b') })),
      '',
    );
  });

  it('limits lease creation in kube-node-lease to the node’s own name', () => {
    assert.match(
      refuse(adm({ resource: leases, operation: 'CREATE', namespace: 'kube-node-lease', name: 'node-2' })),
      /can only access node lease with the same name as node-1/,
    );
    assert.equal(
      refuse(adm({ resource: leases, operation: 'CREATE', namespace: 'kube-node-lease', name: 'node-1' })),
      '',
    );
  });
});

describe('impersonation', () => {
  const req = (headers: Record<string, string | string[]>) => ({ headers }) as unknown as IncomingMessage;
  const admin: UserInfo = { name: 'admin', groups: ['system:masters', 'system:authenticated'] };
  const alice: UserInfo = { name: 'alice', groups: ['system:authenticated'] };
  const chain = authorizerChain(mastersAuthorizer);

  it('lets system:masters act as a node, adding system:authenticated', async () => {
    const r = await impersonate(
      req({ 'impersonate-user': 'system:node:node-1', 'impersonate-group': 'system:nodes' }),
      admin,
      chain,
    );
    assert.deepEqual(r?.user, { name: 'system:node:node-1', groups: ['system:nodes', 'system:authenticated'] });
    assert.equal(r?.impersonator, admin);
    assert.equal(await impersonate(req({}), admin, chain), undefined);
  });

  it('refuses without permission (403) and malformed requests (400)', async () => {
    await assert.rejects(impersonate(req({ 'impersonate-user': 'system:node:node-1' }), alice, chain), (e: unknown) => {
      assert.ok(e instanceof StatusError);
      assert.equal(e.code, 403);
      assert.equal(
        e.message,
        'users "system:node:node-1" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope',
      );
      return true;
    });
    await assert.rejects(impersonate(req({ 'impersonate-group': 'system:masters' }), alice, chain), { code: 400 });
    await assert.rejects(impersonate(req({ 'impersonate-user': '' }), admin, chain), { code: 400 });
  });
});

describe('access reviews', () => {
  const ssar = accessReviewResources.find((d) => d.kind === 'SelfSubjectAccessReview')!;
  const sar = accessReviewResources.find((d) => d.kind === 'SubjectAccessReview')!;
  const g = new NodeGraph();
  g.observe(node('node-1', 1, { namespace: 'kube-system', name: 'mine' }));
  const chain = authorizerChain(mastersAuthorizer, new NodeAuthorizer({ configMaps: [g] }));

  it('answers for the requester, or for the named subject', async () => {
    const spec = {
      resourceAttributes: { verb: 'get', resource: 'configmaps', namespace: 'kube-system', name: 'mine' },
    };
    const mine = await answerAccessReview(ssar, '', { spec }, node1, chain);
    assert.deepEqual(mine['status'], { allowed: true });
    const other = await answerAccessReview(
      ssar,
      '',
      { spec: { resourceAttributes: { ...spec.resourceAttributes, name: 'x' } } },
      node1,
      chain,
    );
    assert.deepEqual(other['status'], {
      allowed: false,
      reason: "no relationship found between node 'node-1' and this object",
    });
    const review = await answerAccessReview(
      sar,
      '',
      { spec: { ...spec, user: node1.name, groups: node1.groups } },
      { name: 'admin', groups: [] },
      chain,
    );
    assert.equal((review['status'] as { allowed: boolean }).allowed, true);
    const listed = await answerAccessReview(
      ssar,
      '',
      {
        spec: {
          resourceAttributes: {
            verb: 'list',
            resource: 'configmaps',
            namespace: 'kube-system',
            fieldSelector: { rawSelector: 'metadata.name=mine' },
          },
        },
      },
      node1,
      chain,
    );
    assert.equal((listed['status'] as { allowed: boolean }).allowed, true);
  });

  it('refuses malformed reviews with 422', async () => {
    await assert.rejects(answerAccessReview(ssar, '', { spec: {} }, node1, chain), { code: 422 });
    await assert.rejects(answerAccessReview(sar, '', { spec: { resourceAttributes: { verb: 'get' } } }, node1, chain), {
      code: 422,
    });
  });
});

describe('audit events', () => {
  it('records who did what to which object', () => {
    const info = parseRequestInfo('PATCH', '/api/v1/nodes/node-7', new URLSearchParams());
    const ev = auditEvent({
      user: { name: 'admin', groups: ['system:masters'] },
      impersonatedUser: { name: 'olivia', groups: ['system:authenticated'] },
      info,
      method: 'PATCH',
      requestURI: '/api/v1/nodes/node-7',
      sourceIP: '127.0.0.1',
      code: 200,
      received: new Date(0),
    });
    assert.equal(ev['verb'], 'patch');
    assert.deepEqual(ev['user'], { username: 'admin', groups: ['system:masters'] });
    assert.deepEqual(ev['impersonatedUser'], { username: 'olivia', groups: ['system:authenticated'] });
    assert.deepEqual(ev['objectRef'], { resource: 'nodes', name: 'node-7', apiGroup: '', apiVersion: 'v1' });
    assert.deepEqual(ev['responseStatus'], { metadata: {}, code: 200 });
  });
});

describe('authorization modes', () => {
  it('parses the flag strictly', () => {
    assert.deepEqual(parseAuthorizationModes('Node,RBAC'), ['Node', 'RBAC']);
    assert.throws(() => parseAuthorizationModes('ABAC'), /unknown authorization mode "ABAC"/);
    assert.throws(() => parseAuthorizationModes(''), /at least one/);
  });
});

describe('agent webhook authorization', () => {
  it('maps paths as the kubelet does', () => {
    assert.deepEqual(requestAttributes('GET', '/metrics', 'n'), {
      verb: 'get',
      resource: 'nodes',
      subresource: 'metrics',
      name: 'n',
    });
    assert.equal(requestAttributes('GET', '/metrics/cadvisor', 'n').subresource, 'metrics');
    assert.equal(requestAttributes('GET', '/configz', 'n').subresource, 'proxy');
    assert.equal(requestAttributes('GET', '/healthz', 'n').subresource, 'proxy');
    assert.equal(requestAttributes('GET', '/stats/summary', 'n').subresource, 'stats');
    assert.equal(requestAttributes('POST', '/pods', 'n').verb, 'create');
  });

  it('caches allowed answers for the authorized TTL and refusals for the unauthorized TTL', async () => {
    const clock = new FakeClock(0);
    /** Moves the clock to `ms`. */
    const at = (ms: number): void => clock.advance(ms - clock.monotonicMs());
    let calls = 0;
    let answer = true;
    const w = new WebhookAuthorizer({
      client: {
        create: async <T>(): Promise<T> => {
          calls++;
          return { status: { allowed: answer } } as T;
        },
      },
      authorizedTTLMs: 300_000,
      unauthorizedTTLMs: 30_000,
      clock,
    });
    const u = { name: 'system:node:node-2', groups: ['system:nodes'] };
    const a = requestAttributes('GET', '/configz', 'n');
    assert.equal(await w.authorize({ name: 'admin', groups: ['system:masters'] }, a), true);
    assert.equal(calls, 0, 'system:masters is known to be allowed without a review');
    assert.equal(await w.authorize(u, a), true);
    at(299_000);
    assert.equal(await w.authorize(u, a), true);
    assert.equal(calls, 1);
    answer = false;
    at(300_001);
    assert.equal(await w.authorize(u, a), false);
    at(329_000);
    assert.equal(await w.authorize(u, a), false);
    assert.equal(calls, 2);
    answer = true;
    at(330_002);
    assert.equal(await w.authorize(u, a), true);
    assert.equal(calls, 3);
  });
});

describe('client certificate authentication', () => {
  /** A TLS connection whose peer certificate reads are counted. */
  function connection(
    subject: Record<string, string | string[]>,
    authorized = true,
  ): { socket: object; reads: () => number } {
    let reads = 0;
    const socket = {
      authorized,
      getPeerCertificate: () => {
        reads++;
        return { subject };
      },
    };
    return { socket, reads: () => reads };
  }
  const request = (socket: object, headers: Record<string, string> = {}): IncomingMessage =>
    ({ socket, headers }) as unknown as IncomingMessage;

  it('reads a connection’s certificate once and gives each request its own copy of the identity', () => {
    const authn = new Authenticator();
    const a = connection({ CN: 'system:node:n1', O: 'system:nodes' });
    const first = authn.authenticate(request(a.socket));
    assert.deepEqual(first, { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] });
    first.groups.push('system:masters');
    assert.deepEqual(authn.authenticate(request(a.socket)), {
      name: 'system:node:n1',
      groups: ['system:nodes', 'system:authenticated'],
    });
    assert.equal(a.reads(), 1);
    const b = connection({ CN: 'alice', O: ['dev', 'ops'] });
    assert.deepEqual(authn.authenticate(request(b.socket)), {
      name: 'alice',
      groups: ['dev', 'ops', 'system:authenticated'],
    });
  });

  it('falls back to a bearer token when the connection has no verified certificate naming a user', () => {
    const authn = new Authenticator(new Map([['tok', { name: 'bob', uid: '1', groups: [] }]]));
    const unverified = connection({ CN: 'mallory' }, false);
    const bearer = { authorization: 'Bearer tok' };
    assert.deepEqual(authn.authenticate(request(unverified.socket, bearer)), {
      name: 'bob',
      uid: '1',
      groups: ['system:authenticated'],
    });
    assert.equal(authn.authenticate(request(unverified.socket)), undefined);
    assert.equal(unverified.reads(), 0);
    const nameless = connection({ O: 'x' });
    assert.deepEqual(authn.authenticate(request(nameless.socket, bearer))?.name, 'bob');
    assert.deepEqual(authn.authenticate(request(nameless.socket, bearer))?.name, 'bob');
    assert.equal(nameless.reads(), 1);
  });
});
