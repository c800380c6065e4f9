// Pure logic of RBAC policy: whether held rules cover a grant and how the gap is printed, the escalation check's
// decisions (bind, escalate, aggregationRule, system:masters, garbage-collection-only updates), ClusterRole
// aggregation, the default roles' reconciliation on upgrade, and the rules and self reviews.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../../src/api/errors.js';
import type { KubeObject } from '../../../src/api/types.js';
import {
  authorizerChain,
  type AdmissionAttributes,
  type ServerReads,
  type UserInfo,
} from '../../../src/server/authz.js';
import { aggregatedRules, withAggregatedRules } from '../../../src/server/auth/aggregation.js';
import { reconcileRole } from '../../../src/server/auth/bootstrap.js';
import { rbacEscalation } from '../../../src/server/auth/escalation.js';
import { isPrivileged, mastersAuthorizer } from '../../../src/server/auth/index.js';
import { NodeAuthorizer } from '../../../src/server/auth/nodeauthorizer.js';
import { NodeGraph } from '../../../src/server/auth/nodegraph.js';
import { RbacAuthorizer, RbacRules, staticRbacSource, type PolicyRule } from '../../../src/server/auth/rbac.js';
import {
  clusterrolebindings,
  clusterroles,
  defaultClusterRoles,
  rolebindings,
  roles,
} from '../../../src/server/auth/rbacresources.js';
import { answerReview } from '../../../src/server/auth/reviews.js';
import { selfSubjectRulesReviews } from '../../../src/server/auth/rulesreview.js';
import { selfSubjectReviews } from '../../../src/server/auth/selfsubjectreview.js';
import { compactString, describeMissing, uncovered } from '../../../src/server/auth/rulecover.js';
import type { ResourceDef } from '../../../src/server/resourcedef.js';

const RBAC = 'rbac.authorization.k8s.io';
const r = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule =>
  resourceNames ? { verbs, apiGroups, resources, resourceNames } : { verbs, apiGroups, resources };

describe('rule coverage', () => {
  it('covers as upstream: wildcards, */subresource, resource names, URL prefixes', () => {
    assert.deepEqual(uncovered([r(['*'], ['*'], ['*'])], [r(['get'], [''], ['pods'], ['a'])]), []);
    assert.deepEqual(uncovered([r(['get'], [''], ['*/status'])], [r(['get'], [''], ['nodes/status'])]), []);
    assert.deepEqual(uncovered([r(['get'], [''], ['*/status'])], [r(['get'], [''], ['nodes'])]), [
      r(['get'], [''], ['nodes']),
    ]);
    // A rule scoped to names covers those names only, never the whole resource.
    assert.deepEqual(uncovered([r(['get'], [''], ['pods'], ['a'])], [r(['get'], [''], ['pods'])]), [
      r(['get'], [''], ['pods']),
    ]);
    assert.deepEqual(uncovered([r(['get'], [''], ['pods'], ['a', 'b'])], [r(['get'], [''], ['pods'], ['b'])]), []);
    assert.deepEqual(
      uncovered(
        [{ verbs: ['get'], nonResourceURLs: ['/apis/*'] }],
        [{ verbs: ['get'], nonResourceURLs: ['/apis/dkc.io'] }],
      ),
      [],
    );
    assert.deepEqual(
      uncovered([{ verbs: ['get'], nonResourceURLs: ['/apis'] }], [{ verbs: ['get'], nonResourceURLs: ['/apis/x'] }])
        .length,
      1,
    );
    // One held rule must cover each atom whole: two partial rules do not add up across verbs of one atom.
    assert.deepEqual(
      uncovered([r(['get'], [''], ['pods']), r(['list'], [''], ['pods'])], [r(['get', 'list'], [''], ['pods'])]),
      [],
    );
  });

  it('prints the gap as kube-apiserver: compacted by group and resource, sorted, Go-quoted', () => {
    const gap = uncovered(
      [],
      [
        r(['get', 'list'], [''], ['pods']),
        r(['update'], ['apps'], ['deployments'], ['web']),
        { verbs: ['get'], nonResourceURLs: ['/metrics'] },
      ],
    );
    assert.equal(
      describeMissing(gap),
      [
        '{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}',
        '{APIGroups:["apps"], Resources:["deployments"], ResourceNames:["web"], Verbs:["update"]}',
        '{NonResourceURLs:["/metrics"], Verbs:["get"]}',
      ].join('\n'),
    );
    assert.equal(
      compactString(r(['get'], [''], ['a"b\\c\n'])),
      '{APIGroups:[""], Resources:["a\\"b\\\\c\\n"], Verbs:["get"]}',
    );
  });
});

// --- the escalation check -----------------------------------------------------------------------------------------

const alice: UserInfo = { name: 'alice', groups: ['g', 'system:authenticated'] };

function binding(
  kind: 'RoleBinding' | 'ClusterRoleBinding',
  name: string,
  roleKind: string,
  role: string,
  user: string,
  namespace?: string,
): KubeObject {
  return {
    apiVersion: `${RBAC}/v1`,
    kind,
    metadata: namespace ? { name, namespace } : { name },
    roleRef: { apiGroup: RBAC, kind: roleKind, name: role },
    subjects: [{ kind: 'User', apiGroup: RBAC, name: user }],
  };
}

function roleObj(
  kind: 'Role' | 'ClusterRole',
  name: string,
  rules: PolicyRule[],
  namespace?: string,
  extra: Record<string, unknown> = {},
): KubeObject {
  return { apiVersion: `${RBAC}/v1`, kind, metadata: namespace ? { name, namespace } : { name }, rules, ...extra };
}

/** An escalation check over fixed RBAC objects, with the store read from the same objects. */
function checker(objects: KubeObject[]) {
  const rules = new RbacRules(staticRbacSource(objects));
  const reads: ServerReads = {
    get: async (_g, plural, namespace, name) =>
      objects.find(
        (o) =>
          `${(o.kind ?? '').toLowerCase()}s` === plural &&
          (o.metadata.namespace ?? '') === namespace &&
          o.metadata.name === name,
      ),
    list: async () => [],
    nodeGet: async () => '',
  };
  const plugin = rbacEscalation({
    authorizer: authorizerChain(mastersAuthorizer, new RbacAuthorizer(rules)),
    rules,
    reads: () => reads,
    exempt: isPrivileged,
  });
  return async (def: ResourceDef, object: KubeObject, opts: Partial<AdmissionAttributes> = {}): Promise<string> => {
    try {
      await plugin.validate!({
        user: alice,
        operation: 'CREATE',
        resource: def,
        subresource: '',
        namespace: object.metadata.namespace ?? '',
        name: object.metadata.name ?? '',
        object,
        dryRun: false,
        ...opts,
      });
      return 'allowed';
    } catch (err) {
      if (err instanceof StatusError) return `${err.code} ${err.message}`;
      throw err;
    }
  };
}

describe('RBAC escalation check', () => {
  const podReader = roleObj('ClusterRole', 'pod-reader', [r(['get', 'list'], [''], ['pods'])]);
  const writer = roleObj('Role', 'rbac-writer', [r(['create', 'update'], [RBAC], ['roles', 'rolebindings'])], 'team');

  it('a role with rules she holds is allowed; one beyond them is refused with the missing rules', async () => {
    const check = checker([
      writer,
      binding('RoleBinding', 'w', 'Role', 'rbac-writer', 'alice', 'team'),
      podReader,
      binding('RoleBinding', 'p', 'ClusterRole', 'pod-reader', 'alice', 'team'),
    ]);
    assert.equal(await check(roles, roleObj('Role', 'mine', [r(['get'], [''], ['pods'])], 'team')), 'allowed');
    assert.equal(
      await check(roles, roleObj('Role', 'mine', [r(['get', 'delete'], [''], ['pods', 'secrets'])], 'team')),
      '403 roles.rbac.authorization.k8s.io "mine" is forbidden: user "alice" (groups=["g" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}',
    );
    // Rights held in one namespace are not held in another.
    assert.match(
      await check(roles, roleObj('Role', 'mine', [r(['get'], [''], ['pods'])], 'other')),
      /^403 .*not currently held/,
    );
  });

  it('escalate on the kind lets her write any role; on create it is asked without a name, as upstream asks it', async () => {
    const escalator = (names?: string[]) =>
      checker([
        roleObj('Role', 'esc', [r(['create', 'update', 'escalate'], [RBAC], ['roles'], names)], 'team'),
        binding('RoleBinding', 'e', 'Role', 'esc', 'alice', 'team'),
      ]);
    const wide = roleObj('Role', 'wide', [r(['*'], ['*'], ['*'])], 'team');
    assert.equal(await escalator()(roles, wide), 'allowed');
    assert.match(await escalator(['wide'])(roles, wide), /^403 /, 'a create names no object');
    assert.equal(
      await escalator(['wide'])(roles, wide, { operation: 'UPDATE', oldObject: roleObj('Role', 'wide', [], 'team') }),
      'allowed',
    );
  });

  it('a binding needs the role’s rules or bind on that role; a missing role is a 404', async () => {
    const binder = roleObj(
      'Role',
      'binder',
      [r(['create'], [RBAC], ['rolebindings']), r(['bind'], [RBAC], ['clusterroles'], ['cluster-admin'])],
      'team',
    );
    const admin = roleObj('ClusterRole', 'cluster-admin', [
      r(['*'], ['*'], ['*']),
      { verbs: ['*'], nonResourceURLs: ['*'] },
    ]);
    const check = checker([binder, admin, podReader, binding('RoleBinding', 'b', 'Role', 'binder', 'alice', 'team')]);
    assert.equal(
      await check(rolebindings, binding('RoleBinding', 'x', 'ClusterRole', 'cluster-admin', 'alice', 'team')),
      'allowed',
    );
    assert.match(
      await check(rolebindings, binding('RoleBinding', 'x', 'ClusterRole', 'pod-reader', 'alice', 'team')),
      /^403 rolebindings\.rbac\.authorization\.k8s\.io "x" is forbidden: .*\n\{APIGroups:\[""\], Resources:\["pods"\], Verbs:\["get" "list"\]\}$/,
    );
    // bind is granted in team only: a ClusterRoleBinding of the same role is refused.
    assert.match(
      await check(clusterrolebindings, binding('ClusterRoleBinding', 'x', 'ClusterRole', 'cluster-admin', 'alice')),
      /^403 clusterrolebindings\.rbac\.authorization\.k8s\.io "x" is forbidden/,
    );
    assert.equal(
      await check(rolebindings, binding('RoleBinding', 'x', 'ClusterRole', 'nope', 'alice', 'team')),
      '404 clusterroles.rbac.authorization.k8s.io "nope" not found',
    );
  });

  it('an aggregationRule takes cluster-admin’s rights; her own missing roles are reported as resolution errors', async () => {
    // `*` verbs would include escalate, which lifts the check altogether (as upstream): create only.
    const almost = roleObj('ClusterRole', 'almost', [r(['create'], [RBAC], ['clusterroles'])]);
    const check = checker([
      almost,
      binding('ClusterRoleBinding', 'a', 'ClusterRole', 'almost', 'alice'),
      binding('ClusterRoleBinding', 'gone', 'ClusterRole', 'gone', 'alice'),
    ]);
    const aggregating = roleObj('ClusterRole', 'agg', [], undefined, {
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'y' } }] },
    });
    assert.equal(
      await check(clusterroles, aggregating),
      '403 clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule',
    );
    assert.equal(
      await check(clusterroles, roleObj('ClusterRole', 'urls', [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }])),
      '403 clusterroles.rbac.authorization.k8s.io "urls" is forbidden: user "alice" (groups=["g" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{NonResourceURLs:["/metrics"], Verbs:["get"]}; resolution errors: [clusterroles.rbac.authorization.k8s.io "gone" not found]',
    );
  });

  it('system:masters is exempt; an update of owners or finalizers only is not a grant', async () => {
    const check = checker([]);
    const wide = roleObj('Role', 'wide', [r(['*'], ['*'], ['*'])], 'team');
    assert.equal(await check(roles, wide, { user: { name: 'root', groups: ['system:masters'] } }), 'allowed');
    assert.match(await check(roles, wide), /^403 /);
    const finalized = {
      ...wide,
      metadata: { ...wide.metadata, finalizers: ['example.com/keep'], resourceVersion: '9' },
    };
    assert.equal(
      await check(roles, finalized, {
        operation: 'UPDATE',
        oldObject: { ...wide, metadata: { ...wide.metadata, resourceVersion: '8' } },
      }),
      'allowed',
    );
    const relabelled = { ...wide, metadata: { ...wide.metadata, labels: { a: 'b' } } };
    assert.match(await check(roles, relabelled, { operation: 'UPDATE', oldObject: wide }), /^403 /);
  });
});

// --- aggregation and the default roles ----------------------------------------------------------------------------

describe('ClusterRole aggregation', () => {
  const labelled = (name: string, labels: Record<string, string>, rules: PolicyRule[]) => ({
    ...roleObj('ClusterRole', name, rules),
    metadata: { name, labels },
  });

  it('gathers the selected roles’ rules by name, each once, never its own', () => {
    const agg = {
      ...labelled('agg', { pick: 'yes' }, [r(['*'], ['*'], ['*'])]),
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { pick: 'yes' } }] },
    };
    const b = labelled('b', { pick: 'yes' }, [r(['get'], [''], ['pods']), r(['list'], [''], ['pods'])]);
    const a = labelled('a', { pick: 'yes' }, [r(['list'], [''], ['pods'])]);
    const other = labelled('c', { pick: 'no' }, [r(['get'], [''], ['secrets'])]);
    assert.deepEqual(aggregatedRules(agg, [agg, b, a, other]), [
      r(['list'], [''], ['pods']),
      r(['get'], [''], ['pods']),
    ]);
    assert.equal(aggregatedRules(b, [agg, b]), undefined, 'a role without aggregationRule aggregates nothing');
    const exprs = {
      ...agg,
      aggregationRule: {
        clusterRoleSelectors: [{ matchExpressions: [{ key: 'pick', operator: 'In', values: ['no'] }] }],
      },
    };
    assert.deepEqual(aggregatedRules(exprs, [exprs, b, other]), [r(['get'], [''], ['secrets'])]);
  });

  it('the default view feeds edit and edit feeds admin; dkc.io kinds are read, never written, through them', () => {
    const rulesOf = (name: string) =>
      defaultClusterRoles.find((x) => x.metadata.name === name)!['rules'] as PolicyRule[];
    const readRollouts = [r(['get', 'list', 'watch'], ['dkc.io'], ['nodeconfigrollouts', 'nodeconfigpolicies'])];
    for (const role of ['view', 'edit', 'admin']) {
      assert.deepEqual(uncovered(rulesOf(role), readRollouts), [], `${role} reads rollouts`);
      assert.equal(
        uncovered(rulesOf(role), [r(['create'], ['dkc.io'], ['nodeconfigrollouts'])]).length,
        1,
        `${role} creates no rollout`,
      );
      assert.equal(
        uncovered(rulesOf(role), [r(['update'], [''], ['nodes/configsource'])]).length,
        1,
        `${role} assigns no config`,
      );
      assert.equal(
        uncovered(rulesOf(role), [r(['update'], ['coordination.k8s.io'], ['leases'])]).length,
        1,
        `${role} writes no Lease`,
      );
    }
    assert.deepEqual(uncovered(rulesOf('admin'), rulesOf('edit')), []);
    assert.deepEqual(uncovered(rulesOf('edit'), rulesOf('view')), []);
    assert.deepEqual(uncovered(rulesOf('admin'), [r(['create'], [RBAC], ['rolebindings'])]), []);
    assert.deepEqual(
      withAggregatedRules(defaultClusterRoles),
      defaultClusterRoles,
      'the defaults are already aggregated',
    );
  });

  it('an existing default role gains this version’s labels, rules and selectors, keeps its own, and one marked autoupdate=false is left alone', () => {
    const expectedView = defaultClusterRoles.find((x) => x.metadata.name === 'view')!;
    const oldView: KubeObject = {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRole',
      metadata: {
        name: 'view',
        labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults', mine: 'x' },
        annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
      },
      rules: [r(['get'], ['coordination.k8s.io'], ['leases'])],
    };
    const next = reconcileRole(oldView, expectedView)!;
    assert.deepEqual(next['aggregationRule'], expectedView['aggregationRule']);
    assert.deepEqual(next.metadata.labels, { ...expectedView.metadata.labels, mine: 'x' });
    assert.deepEqual(next['rules'], oldView['rules'], 'an aggregating role’s rules are the aggregation’s to write');
    assert.equal(reconcileRole(next, expectedView), undefined);
    const basic = defaultClusterRoles.find((x) => x.metadata.name === 'system:basic-user')!;
    const oldBasic = {
      ...basic,
      rules: [r(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'])],
    };
    assert.deepEqual(
      uncovered(reconcileRole(oldBasic, basic)!['rules'] as PolicyRule[], [
        r(['create'], ['authentication.k8s.io'], ['selfsubjectreviews']),
      ]),
      [],
    );
    const pinned = {
      ...oldBasic,
      metadata: { ...oldBasic.metadata, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } },
    };
    assert.equal(reconcileRole(pinned, basic), undefined);
  });
});

// --- rules and self reviews ---------------------------------------------------------------------------------------

describe('self reviews', () => {
  const objects = [
    roleObj('ClusterRole', 'reader', [r(['get'], [''], ['pods']), { verbs: ['get'], nonResourceURLs: ['/healthz'] }]),
    binding('ClusterRoleBinding', 'r', 'ClusterRole', 'reader', 'alice'),
    binding('RoleBinding', 'gone', 'Role', 'gone', 'alice', 'team'),
  ];
  const chain = authorizerChain(
    mastersAuthorizer,
    new NodeAuthorizer({ configMaps: [new NodeGraph({ revision: () => 0, objects: () => [] })] }),
    new RbacAuthorizer(staticRbacSource(objects)),
  );
  const review = (body: Record<string, unknown>, user: UserInfo) =>
    answerReview(selfSubjectRulesReviews, '', body, user, chain);

  it('lists RBAC’s rules, resources and URLs apart, empty lists left out; a missing role is an evaluation error', async () => {
    const out = await review({ spec: { namespace: 'team' } }, alice);
    assert.deepEqual(out['status'], {
      resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
      incomplete: false,
      evaluationError: 'role.rbac.authorization.k8s.io "gone" not found',
    });
    assert.deepEqual(out['spec'], {});
  });

  it('a node’s list is incomplete, as the Node authorizer cannot list the graph; a namespace is required', async () => {
    const node: UserInfo = { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
    const out = await review({ spec: { namespace: 'default' } }, node);
    assert.deepEqual(out['status'], {
      resourceRules: [],
      nonResourceRules: [],
      incomplete: true,
      evaluationError: 'node authorizer does not support user rule resolution',
    });
    await assert.rejects(review({ spec: {} }, alice), { code: 400, message: 'no namespace on request' });
  });

  it('a self review answers with the user as authenticated, extras included', async () => {
    const who: UserInfo = { name: 'alice', uid: 'u1', groups: ['g'], extra: { scopes: ['a', 'b'] } };
    const out = await answerReview(selfSubjectReviews, '', {}, who, chain, new Date('2026-01-02T03:04:05.678Z'));
    assert.deepEqual(out, {
      kind: 'SelfSubjectReview',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { creationTimestamp: '2026-01-02T03:04:05Z' },
      status: { userInfo: { username: 'alice', uid: 'u1', groups: ['g'], extra: { scopes: ['a', 'b'] } } },
    });
    await assert.rejects(answerReview(selfSubjectReviews, '', { kind: 'SelfSubjectAccessReview' }, who, chain), {
      code: 400,
    });
  });
});
