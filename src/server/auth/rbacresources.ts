// The four RBAC resources as the registry serves them, and the roles and bindings every cluster starts with. The
// defaults mirror upstream's bootstrap policy where dkc serves the same resources (cluster-admin, admin, edit, view,
// system:basic-user, system:discovery, system:auth-delegator) and add `dkc:node-config-operator`: the least privilege
// for the dynamic-config workflow — read the running config through the node proxy, publish a ConfigMap in
// dkc-configs (or kube-system), point nodes at it (nodes/configsource), run NodeConfigRollouts and watch their status, read the
// NodeConfigPolicies that bound it. Nothing else (no node deletes, no other namespaces, no policy writes).
//
// As upstream's, `admin`, `edit` and `view` aggregate (`aggregate-to-admin/edit/view` labels; view feeds edit, edit
// feeds admin), so a kind joins them by a labelled ClusterRole: `dkc:aggregate-to-view` lets viewers read rollouts
// and policies. Nothing is aggregated to edit or admin for the dkc.io kinds: creating a rollout assigns config, which
// is `dkc:node-config-operator`'s. Neither do they write Leases, as upstream's do not: the controllers' leader Lease
// `kube-system/dkc-controller` is written by the controllers' own Role only, scoped to that name.

import type { KubeObject } from '../../api/types.js';
import {
  CONFIG_NAMESPACE,
  CONTROLLER_USER,
  DAEMON_SET_CONTROLLER_USER,
  DEPLOYMENT_CONTROLLER_USER,
  DISRUPTION_CONTROLLER_USER,
  GARBAGE_COLLECTOR_USER,
  LEADER_LEASE_NAME,
  LEADER_LEASE_NAMESPACE,
  NAMESPACE_CONTROLLER_USER,
  REPLICASET_CONTROLLER_USER,
  SCHEDULER_USER,
  STATEFUL_SET_CONTROLLER_USER,
  TAINT_EVICTION_USER,
} from '../../api/dkc/identity.js';
import { age } from '../../api/humanize.js';
import type { ResourceDef, TableColumn } from '../resourcedef.js';
import { withAggregatedRules } from './aggregation.js';
import { CONFIGSOURCE_SUBRESOURCE } from './configsource.js';
import type { PolicyRule, Subject } from './rbac.js';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';
const RBAC_API_VERSION = `${RBAC_GROUP}/v1`;
const ALL_VERBS: ResourceDef['verbs'] = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];
const BOOTSTRAP_LABELS = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
const AUTOUPDATE = { 'rbac.authorization.kubernetes.io/autoupdate': 'true' };

export const NODE_CONFIG_OPERATOR = 'dkc:node-config-operator';
/** The controllers' identity (the CN of the certificate the server issues them) and the name of its roles. */
export { CONTROLLER_USER, GARBAGE_COLLECTOR_USER, NAMESPACE_CONTROLLER_USER };
/** Members of this group get the operator's rights through the default bindings. */
export const NODE_CONFIG_OPERATORS_GROUP = 'dkc:node-config-operators';

const column = (name: string, description: string, format = ''): TableColumn => ({
  name,
  type: 'string',
  format,
  description,
  priority: 0,
});
const nameCol = column('Name', 'Name must be unique within a namespace.', 'name');
const createdAt = column(
  'Created At',
  'CreationTimestamp is a timestamp representing the server time when this object was created.',
);
const roleCol = column('Role', 'Role');
const ageCol = column(
  'Age',
  'CreationTimestamp is a timestamp representing the server time when this object was created.',
);
const usersCol = { ...column('Users', 'Users in the roleBinding'), priority: 1 };
const groupsCol = { ...column('Groups', 'Groups in the roleBinding'), priority: 1 };
const saCol = { ...column('ServiceAccounts', 'ServiceAccounts in the roleBinding'), priority: 1 };

function subjects(o: KubeObject, kind: string): string {
  const list = Array.isArray(o['subjects']) ? (o['subjects'] as Subject[]) : [];
  return list
    .filter((s) => s && s.kind === kind)
    .map((s) => (kind === 'ServiceAccount' ? `${s.namespace ?? ''}:${s.name}` : s.name))
    .join(', ');
}

function roleRef(o: KubeObject): string {
  const r = (o['roleRef'] ?? {}) as { kind?: string; name?: string };
  return `${r.kind ?? ''}/${r.name ?? ''}`;
}

/** What the four RBAC kinds share: rbac.authorization.k8s.io/v1, every verb, no subresources or field selectors. */
function rbacDef(kind: string, plural: string, namespaced: boolean) {
  return {
    group: RBAC_GROUP,
    version: 'v1',
    plural,
    singular: kind.toLowerCase(),
    kind,
    namespaced,
    shortNames: [],
    verbs: ALL_VERBS,
    statusSubresource: false,
    proxySubresource: false,
    fields: {},
  };
}

function roleDef(kind: 'Role' | 'ClusterRole', plural: string, namespaced: boolean): ResourceDef {
  return {
    ...rbacDef(kind, plural, namespaced),
    columns: [nameCol, createdAt],
    row: (o) => [o.metadata.name, o.metadata.creationTimestamp ?? ''],
  };
}

function bindingDef(kind: 'RoleBinding' | 'ClusterRoleBinding', plural: string, namespaced: boolean): ResourceDef {
  return {
    ...rbacDef(kind, plural, namespaced),
    columns: [nameCol, roleCol, ageCol, usersCol, groupsCol, saCol],
    row: (o, now) => [
      o.metadata.name,
      roleRef(o),
      age(o.metadata.creationTimestamp, now),
      subjects(o, 'User'),
      subjects(o, 'Group'),
      subjects(o, 'ServiceAccount'),
    ],
    prepareForCreate(o) {
      // Upstream defaults the subject's apiGroup for users and groups; evaluation does not depend on it.
      if (!Array.isArray(o['subjects'])) return;
      for (const s of o['subjects'] as Subject[]) {
        if (s && (s.kind === 'User' || s.kind === 'Group') && !s.apiGroup) s.apiGroup = RBAC_GROUP;
      }
    },
  };
}

const rule = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule =>
  resourceNames ? { verbs, apiGroups, resources, resourceNames } : { verbs, apiGroups, resources };
const READ = ['get', 'list', 'watch'];
/** The CN of the API server's node-proxy client certificate (src/pki). */
export const KUBELET_API_CLIENT_USER = 'kube-apiserver-kubelet-client';
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];

/** The label a ClusterRole carries to have its rules aggregated into `view`, `edit` or `admin`. */
export const aggregateTo = (role: 'admin' | 'edit' | 'view'): string =>
  `rbac.authorization.k8s.io/aggregate-to-${role}`;

function clusterRole(
  name: string,
  rules: PolicyRule[],
  extra: { labels?: Record<string, string>; aggregates?: 'admin' | 'edit' | 'view' } = {},
): KubeObject {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: 'ClusterRole',
    metadata: { name, labels: { ...BOOTSTRAP_LABELS, ...extra.labels }, annotations: { ...AUTOUPDATE } },
    ...(extra.aggregates
      ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [aggregateTo(extra.aggregates)]: 'true' } }] } }
      : {}),
    rules,
  };
}

function group(name: string): Subject {
  return { kind: 'Group', apiGroup: RBAC_GROUP, name };
}

const aggregated = (role: 'admin' | 'edit' | 'view') => ({ [aggregateTo(role)]: 'true' });

/** The replicated apps kinds and their scale subresources, which edit writes and view reads. */
const APPS_SCALED = [
  'statefulsets',
  'statefulsets/scale',
  'deployments',
  'deployments/scale',
  'replicasets',
  'replicasets/scale',
];

export const defaultClusterRoles: KubeObject[] = withAggregatedRules([
  clusterRole('cluster-admin', [rule(['*'], ['*'], ['*']), { verbs: ['*'], nonResourceURLs: ['*'] }]),
  // Their rules are those of the ClusterRoles labelled for them (filled in here, kept up to date by the server).
  clusterRole('admin', [], { aggregates: 'admin' }),
  clusterRole('edit', [], { aggregates: 'edit', labels: aggregated('admin') }),
  clusterRole('view', [], { aggregates: 'view', labels: aggregated('edit') }),
  clusterRole(
    'system:aggregate-to-admin',
    [
      rule([...READ, ...WRITE], [RBAC_GROUP], ['roles', 'rolebindings']),
      rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']),
    ],
    { labels: aggregated('admin') },
  ),
  clusterRole(
    'system:aggregate-to-edit',
    [
      rule([...READ, ...WRITE], [''], ['configmaps', 'events', 'pods']),
      // As kube's aggregated roles: whoever may delete Pods may evict them.
      rule(['create'], [''], ['pods/eviction']),
      rule([...READ, ...WRITE], ['policy'], ['poddisruptionbudgets']),
      // Upstream's: writers of the apps kinds; reading them comes through view.
      rule(WRITE, ['apps'], [...APPS_SCALED, 'daemonsets', 'deployments/rollback']),
    ],
    { labels: aggregated('edit') },
  ),
  clusterRole(
    'system:aggregate-to-view',
    [
      rule(READ, [''], ['configmaps', 'events', 'pods', 'namespaces']),
      rule(READ, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
      rule(
        READ,
        ['apps'],
        [
          'controllerrevisions',
          ...APPS_SCALED,
          'daemonsets',
          'daemonsets/status',
          'deployments/status',
          'replicasets/status',
          'statefulsets/status',
        ],
      ),
    ],
    { labels: aggregated('view') },
  ),
  // Viewers see rollouts and policies (cluster-scoped: through a ClusterRoleBinding); writing a rollout assigns
  // config, which no aggregated role grants.
  clusterRole(
    'dkc:aggregate-to-view',
    [
      rule(
        READ,
        ['dkc.io'],
        ['nodeconfigrollouts', 'nodeconfigrollouts/status', 'nodeconfigpolicies', 'nodeconfigs', 'nodeconfigs/status'],
      ),
    ],
    {
      labels: aggregated('view'),
    },
  ),
  clusterRole('system:basic-user', [
    rule(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
    rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews']),
  ]),
  clusterRole('system:discovery', [
    {
      verbs: ['get'],
      nonResourceURLs: [
        '/api',
        '/api/*',
        '/apis',
        '/apis/*',
        '/openapi',
        '/openapi/*',
        '/version',
        '/version/',
        '/healthz',
        '/livez',
        '/readyz',
      ],
    },
  ]),
  // Health and metrics endpoints for monitoring systems, as upstream's bootstrap policy grants the group of that name.
  clusterRole('system:monitoring', [
    {
      verbs: ['get'],
      nonResourceURLs: [
        '/metrics',
        '/metrics/slis',
        '/livez',
        '/readyz',
        '/healthz',
        '/livez/*',
        '/readyz/*',
        '/healthz/*',
      ],
    },
  ]),
  clusterRole('system:auth-delegator', [
    rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
    rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
  ]),
  // Full access to the node agents' API, for the API server's node proxy identity (as upstream's bootstrap policy).
  clusterRole('system:kubelet-api-admin', [
    rule(READ, [''], ['nodes']),
    rule(['proxy'], [''], ['nodes']),
    rule(['*'], [''], ['nodes/proxy', 'nodes/metrics', 'nodes/spec', 'nodes/stats', 'nodes/log']),
  ]),
  // The cluster-scoped half of the operator's rights; the kube-system half is the Role of the same name.
  clusterRole(NODE_CONFIG_OPERATOR, [
    rule(['get', 'list', 'watch', 'patch', 'update'], [''], ['nodes']),
    // Assigning config is a permission of its own (src/server/auth/configsource.ts); edit and admin do not hold it.
    rule(['update'], [''], [`nodes/${CONFIGSOURCE_SUBRESOURCE}`]),
    // The tutorial reads each node's running config from /configz through the API server's node proxy.
    rule(['get'], [''], ['nodes/proxy']),
    rule([...READ, 'create', 'patch', 'update', 'delete'], ['dkc.io'], ['nodeconfigrollouts']),
    rule(READ, ['dkc.io'], ['nodeconfigrollouts/status']),
    // Policies bound what operators may assign: they read them, an administrator writes them.
    rule(READ, ['dkc.io'], ['nodeconfigpolicies']),
    // Where the API server drops Node.spec.configSource, a node is assigned through its NodeConfig: update on it is
    // that channel's nodes/configsource.
    rule([...READ, 'patch', 'update'], ['dkc.io'], ['nodeconfigs']),
  ]),
  // The rollout and node lifecycle controllers: exactly what they read and write. Leases only in the namespaces
  // they use (the Roles below): the leader election Lease in kube-system, the nodes' Leases in kube-node-lease.
  clusterRole(CONTROLLER_USER, [
    rule(['get', 'list', 'watch', 'patch', 'update'], [''], ['nodes']),
    rule(['update'], [''], [`nodes/${CONFIGSOURCE_SUBRESOURCE}`]),
    rule(['get', 'patch', 'update'], [''], ['nodes/status']),
    // Reads layers anywhere; creates rendered ConfigMaps only in dkc's config namespace (its Role there, below).
    rule(READ, [''], ['configmaps']),
    rule(['get', 'list', 'watch', 'update', 'patch'], ['dkc.io'], ['nodeconfigrollouts']),
    rule(['get', 'update', 'patch'], ['dkc.io'], ['nodeconfigrollouts/status']),
    rule(READ, ['dkc.io'], ['nodeconfigpolicies']),
    // The NodeConfig channel: assigns through spec, keeps the revert record in status (only it may write that).
    rule([...READ, 'create', 'patch', 'update'], ['dkc.io'], ['nodeconfigs']),
    rule(['get', 'update', 'patch'], ['dkc.io'], ['nodeconfigs/status']),
    rule(['create', 'patch', 'update'], [''], ['events']),
  ]),
  // The namespace controller, its own user as kube-controller-manager's system:controller:namespace-controller:
  // follows namespaces, records Terminating and the deletion conditions, removes its finalizer through /finalize, and
  // lists and deletes whatever a terminating namespace holds, of any kind, built in or custom (kube's role, less the
  // get on every resource, which it does not use). RBAC cannot say "namespaced resources only": no other identity has this.
  clusterRole(NAMESPACE_CONTROLLER_USER, [
    rule(READ, [''], ['namespaces']),
    rule(['update'], [''], ['namespaces/status', 'namespaces/finalize']),
    rule(['list', 'delete', 'deletecollection'], ['*'], ['*']),
  ]),
  // The garbage collector, its own user as kube-controller-manager's system:controller:generic-garbage-collector:
  // it watches every resource, removes owner references and its finalizers, and deletes what has no owner left. It
  // records OwnerRefInvalidNamespace events, which kube's role grants too.
  // The taint eviction controller, its own user as kube-controller-manager's taint-eviction-controller: reads Nodes
  // and Pods, marks a Pod DisruptionTarget through its status and deletes it, and records its events.
  clusterRole(TAINT_EVICTION_USER, [
    rule(READ, [''], ['nodes', 'pods']),
    rule(['patch', 'update'], [''], ['pods/status']),
    rule(['delete'], [''], ['pods']),
    rule(['create', 'patch', 'update'], ['', 'events.k8s.io'], ['events']),
  ]),
  // The scheduler, as kube's system:kube-scheduler: reads Nodes and Pods, binds Pods, says why one fits nowhere.
  clusterRole(SCHEDULER_USER, [
    rule(READ, [''], ['nodes', 'pods']),
    rule(['create'], [''], ['pods/binding', 'bindings']),
    rule(['patch', 'update'], [''], ['pods/status']),
    rule(['create', 'patch', 'update'], ['', 'events.k8s.io'], ['events']),
  ]),
  // The DaemonSet controller, its own user as kube-controller-manager's daemon-set-controller, less what it does not
  // use (ControllerRevisions, pods/binding, the finalizers subresource): reads DaemonSets (a fresh get before an
  // adoption) and Nodes, creates, adopts or releases (patch) and deletes Pods, writes the DaemonSets' status, and
  // records its events.
  clusterRole(DAEMON_SET_CONTROLLER_USER, [
    rule(READ, ['apps'], ['daemonsets']),
    rule(['update'], ['apps'], ['daemonsets/status']),
    rule(['list', 'watch'], [''], ['nodes']),
    rule(['list', 'watch', 'create', 'delete', 'patch'], [''], ['pods']),
    rule(['create', 'patch', 'update'], ['', 'events.k8s.io'], ['events']),
  ]),
  // The StatefulSet controller, its own user as kube-controller-manager's statefulset-controller, less what it does
  // not use (PersistentVolumeClaims, the finalizers subresource, update and patch of revisions): reads StatefulSets
  // (a fresh get before an adoption), lists, creates, reads (a name taken) and deletes their ControllerRevisions,
  // creates, adopts, releases or relabels (patch) and deletes Pods, writes the sets' status, and records its events.
  clusterRole(STATEFUL_SET_CONTROLLER_USER, [
    rule(READ, ['apps'], ['statefulsets']),
    rule(['update'], ['apps'], ['statefulsets/status']),
    rule(['get', 'list', 'watch', 'create', 'delete'], ['apps'], ['controllerrevisions']),
    rule(['list', 'watch', 'create', 'delete', 'patch'], [''], ['pods']),
    rule(['create', 'patch', 'update'], ['', 'events.k8s.io'], ['events']),
  ]),
  // The disruption controller, its own user as kube-controller-manager's disruption-controller: reads the budgets and
  // their Pods, the Pods' controllers (ReplicationController, ReplicaSet, Deployment, StatefulSet, or any through its
  // scale), writes the budgets' status, resets a Pod's stale DisruptionTarget condition, and records its events.
  clusterRole(DISRUPTION_CONTROLLER_USER, [
    rule(READ, ['policy'], ['poddisruptionbudgets']),
    rule(READ, [''], ['pods']),
    rule(['get'], [''], ['replicationcontrollers']),
    rule(['get'], ['apps'], ['replicasets', 'deployments', 'statefulsets']),
    rule(['get'], ['*'], ['*/scale']),
    rule(['update'], ['policy'], ['poddisruptionbudgets/status']),
    rule(['patch'], [''], ['pods/status']),
    rule(['create', 'patch', 'update'], ['', 'events.k8s.io'], ['events']),
  ]),
  // The ReplicaSet controller, its own user as kube-controller-manager's replicaset-controller: reads ReplicaSets and
  // writes their status; creates, adopts, releases and deletes their Pods, and records its events. It reads a
  // ReplicaSet afresh before adopting.
  clusterRole(REPLICASET_CONTROLLER_USER, [
    rule(READ, ['apps'], ['replicasets']),
    rule(['update'], ['apps'], ['replicasets/status']),
    rule(['list', 'watch', 'create', 'patch', 'delete'], [''], ['pods']),
    rule(['create', 'patch', 'update'], ['', 'events.k8s.io'], ['events']),
  ]),
  // The Deployment controller, its own user as kube-controller-manager's deployment-controller: reads Deployments,
  // sets their revision annotation and writes their status; creates, adopts, scales and deletes their ReplicaSets;
  // watches Pods (a Recreate rollout waits for the old ones to go), and records its events.
  clusterRole(DEPLOYMENT_CONTROLLER_USER, [
    rule([...READ, 'update'], ['apps'], ['deployments']),
    rule(['update'], ['apps'], ['deployments/status']),
    rule([...READ, 'create', 'update', 'patch', 'delete'], ['apps'], ['replicasets']),
    rule(['list', 'watch'], [''], ['pods']),
    rule(['create', 'patch', 'update'], ['', 'events.k8s.io'], ['events']),
  ]),
  clusterRole(GARBAGE_COLLECTOR_USER, [
    rule(['get', 'list', 'watch', 'patch', 'update', 'delete'], ['*'], ['*']),
    rule(['create', 'patch', 'update'], ['', 'events.k8s.io'], ['events']),
  ]),
]);

function controllerRole(namespace: string, rules: PolicyRule[]): KubeObject {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: 'Role',
    metadata: { name: CONTROLLER_USER, namespace, labels: { ...BOOTSTRAP_LABELS }, annotations: { ...AUTOUPDATE } },
    rules,
  };
}

function controllerLeaseBinding(namespace: string): KubeObject {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: 'RoleBinding',
    metadata: { name: CONTROLLER_USER, namespace, labels: { ...BOOTSTRAP_LABELS }, annotations: { ...AUTOUPDATE } },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: CONTROLLER_USER },
    subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: CONTROLLER_USER }],
  };
}

export const defaultRoles: KubeObject[] = [
  // The leader Lease by name, as upstream's kube-controller-manager holds its own (a create names no object, so it
  // cannot be scoped).
  controllerRole(LEADER_LEASE_NAMESPACE, [
    rule(['create'], ['coordination.k8s.io'], ['leases']),
    rule(['get', 'update'], ['coordination.k8s.io'], ['leases'], [LEADER_LEASE_NAME]),
  ]),
  // Rendered ConfigMaps, in dkc's config namespace only: created; patch because the rollout controller takes over a
  // rendered one it finds already made (by a rollout of that name deleted since) by setting its owner reference to the
  // live rollout, so that the garbage collector keeps it while the rollout lives.
  controllerRole(CONFIG_NAMESPACE, [rule(['create', 'patch'], [''], ['configmaps'])]),
  // The node lifecycle controller reads the nodes' Leases; the nodes write them.
  controllerRole('kube-node-lease', [rule(READ, ['coordination.k8s.io'], ['leases'])]),
  // The operator publishes configs in dkc's config namespace (the documented one) and, as upstream's tutorial does,
  // in kube-system.
  ...[CONFIG_NAMESPACE, 'kube-system'].map((namespace) => ({
    apiVersion: RBAC_API_VERSION,
    kind: 'Role',
    metadata: {
      name: NODE_CONFIG_OPERATOR,
      namespace,
      labels: { ...BOOTSTRAP_LABELS },
      annotations: { ...AUTOUPDATE },
    },
    rules: [rule(['get', 'list', 'watch', 'create'], [''], ['configmaps'])],
  })),
];

function clusterBinding(name: string, role: string, subjects: Subject[]): KubeObject {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: 'ClusterRoleBinding',
    metadata: { name, labels: { ...BOOTSTRAP_LABELS }, annotations: { ...AUTOUPDATE } },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role },
    subjects,
  };
}

export const defaultClusterRoleBindings: KubeObject[] = [
  clusterBinding('cluster-admin', 'cluster-admin', [group('system:masters')]),
  clusterBinding('system:basic-user', 'system:basic-user', [group('system:authenticated')]),
  clusterBinding('system:discovery', 'system:discovery', [group('system:authenticated')]),
  clusterBinding('system:monitoring', 'system:monitoring', [group('system:monitoring')]),
  // Agents ask the server, with a SubjectAccessReview, whether a caller of their HTTPS endpoints may proceed.
  clusterBinding('dkc:nodes-auth-delegator', 'system:auth-delegator', [group('system:nodes')]),
  clusterBinding(NODE_CONFIG_OPERATOR, NODE_CONFIG_OPERATOR, [group(NODE_CONFIG_OPERATORS_GROUP)]),
  // The node proxy authenticates to agents as this user; agents ask the server whether it may (kubeadm binds the same).
  clusterBinding('dkc:kube-apiserver-kubelet-client', 'system:kubelet-api-admin', [
    { kind: 'User', apiGroup: RBAC_GROUP, name: KUBELET_API_CLIENT_USER },
  ]),
  clusterBinding(CONTROLLER_USER, CONTROLLER_USER, [{ kind: 'User', apiGroup: RBAC_GROUP, name: CONTROLLER_USER }]),
  clusterBinding(TAINT_EVICTION_USER, TAINT_EVICTION_USER, [
    { kind: 'User', apiGroup: RBAC_GROUP, name: TAINT_EVICTION_USER },
  ]),
  clusterBinding(DAEMON_SET_CONTROLLER_USER, DAEMON_SET_CONTROLLER_USER, [
    { kind: 'User', apiGroup: RBAC_GROUP, name: DAEMON_SET_CONTROLLER_USER },
  ]),
  clusterBinding(STATEFUL_SET_CONTROLLER_USER, STATEFUL_SET_CONTROLLER_USER, [
    { kind: 'User', apiGroup: RBAC_GROUP, name: STATEFUL_SET_CONTROLLER_USER },
  ]),
  clusterBinding(DISRUPTION_CONTROLLER_USER, DISRUPTION_CONTROLLER_USER, [
    { kind: 'User', apiGroup: RBAC_GROUP, name: DISRUPTION_CONTROLLER_USER },
  ]),
  clusterBinding(REPLICASET_CONTROLLER_USER, REPLICASET_CONTROLLER_USER, [
    { kind: 'User', apiGroup: RBAC_GROUP, name: REPLICASET_CONTROLLER_USER },
  ]),
  clusterBinding(DEPLOYMENT_CONTROLLER_USER, DEPLOYMENT_CONTROLLER_USER, [
    { kind: 'User', apiGroup: RBAC_GROUP, name: DEPLOYMENT_CONTROLLER_USER },
  ]),
  clusterBinding(SCHEDULER_USER, SCHEDULER_USER, [{ kind: 'User', apiGroup: RBAC_GROUP, name: SCHEDULER_USER }]),
  clusterBinding(GARBAGE_COLLECTOR_USER, GARBAGE_COLLECTOR_USER, [
    { kind: 'User', apiGroup: RBAC_GROUP, name: GARBAGE_COLLECTOR_USER },
  ]),
  clusterBinding(NAMESPACE_CONTROLLER_USER, NAMESPACE_CONTROLLER_USER, [
    { kind: 'User', apiGroup: RBAC_GROUP, name: NAMESPACE_CONTROLLER_USER },
  ]),
];

export const defaultRoleBindings: KubeObject[] = [
  controllerLeaseBinding('kube-system'),
  controllerLeaseBinding('kube-node-lease'),
  controllerLeaseBinding(CONFIG_NAMESPACE),
  ...[CONFIG_NAMESPACE, 'kube-system'].map((namespace) => ({
    apiVersion: RBAC_API_VERSION,
    kind: 'RoleBinding',
    metadata: {
      name: NODE_CONFIG_OPERATOR,
      namespace,
      labels: { ...BOOTSTRAP_LABELS },
      annotations: { ...AUTOUPDATE },
    },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: NODE_CONFIG_OPERATOR },
    subjects: [group(NODE_CONFIG_OPERATORS_GROUP)],
  })),
];

export const roles: ResourceDef = { ...roleDef('Role', 'roles', true), builtin: defaultRoles };
export const clusterroles: ResourceDef = {
  ...roleDef('ClusterRole', 'clusterroles', false),
  builtin: defaultClusterRoles,
};
export const rolebindings: ResourceDef = {
  ...bindingDef('RoleBinding', 'rolebindings', true),
  builtin: defaultRoleBindings,
};
export const clusterrolebindings: ResourceDef = {
  ...bindingDef('ClusterRoleBinding', 'clusterrolebindings', false),
  builtin: defaultClusterRoleBindings,
};

export const rbacResources: ResourceDef[] = [clusterroles, clusterrolebindings, roles, rolebindings];
