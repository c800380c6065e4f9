// A cluster made by an earlier version keeps its data dir: its default roles are the old ones (edit and admin wrote
// Leases, view did not aggregate, system:basic-user knew no self review). On start the server brings each default
// role marked autoupdate up to this version's, as kube-apiserver does, so the upgrade closes what the new defaults
// close (a role an operator marked autoupdate=false is left as it is: test/server/auth/rbacpolicy.test.ts).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RestClient } from '../../../src/client/index.js';
import { kubectl, type Kubectl } from '../../helpers/kubectl.js';
import { startServer, type RunningServer } from '../../helpers/server.js';
import { waitFor } from '../../helpers/wait.js';

const RBAC = 'rbac.authorization.k8s.io';
const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const meta = (name: string) => ({
  name,
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
  annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
});

/** The default ClusterRoles as the previous version created them. */
const previous = [
  {
    metadata: meta('edit'),
    rules: [
      { verbs: [...READ, ...WRITE], apiGroups: [''], resources: ['configmaps', 'events', 'pods'] },
      { verbs: [...READ, ...WRITE], apiGroups: ['coordination.k8s.io'], resources: ['leases'] },
      { verbs: READ, apiGroups: [''], resources: ['namespaces'] },
    ],
  },
  {
    metadata: meta('view'),
    rules: [
      { verbs: READ, apiGroups: [''], resources: ['configmaps', 'events', 'pods', 'namespaces'] },
      { verbs: READ, apiGroups: ['coordination.k8s.io'], resources: ['leases'] },
    ],
  },
  {
    metadata: meta('system:basic-user'),
    rules: [
      {
        verbs: ['create'],
        apiGroups: ['authorization.k8s.io'],
        resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
      },
    ],
  },
];

let server: RunningServer;
let admin: RestClient;
let k: Kubectl;

before(async () => {
  server = await startServer();
  admin = await RestClient.fromKubeconfig(server.kubeconfig, { timeoutMs: 10_000 });
  k = await kubectl('1.32', server.kubeconfig);
});

after(async () => {
  admin?.close();
  await k?.cleanup();
  await server?.cleanup();
});

const can = async (...args: string[]) => (await k.run(['auth', 'can-i', ...args])).stdout.trim();

describe('upgrading a cluster made by an earlier version', () => {
  it('its default roles gain this version’s rules and aggregation on start: edit stops writing Leases, view reads rollouts, everyone may ask who they are', async () => {
    await k.ok(['create', 'clusterrolebinding', 'eddie-edit', '--clusterrole=edit', '--user=eddie']);
    await k.ok(['create', 'clusterrolebinding', 'victor-view', '--clusterrole=view', '--user=victor']);
    for (const role of previous) {
      const path = `/apis/${RBAC}/v1/clusterroles/${role.metadata.name}`;
      const stored = await admin.get<{ metadata: { resourceVersion: string } }>(path);
      await admin.update(path, {
        apiVersion: `${RBAC}/v1`,
        kind: 'ClusterRole',
        ...role,
        metadata: { ...role.metadata, resourceVersion: stored.metadata.resourceVersion },
      });
    }
    // As the earlier version left them.
    assert.equal(await can('update', 'leases', '-n', 'kube-system', '--as=eddie'), 'yes');
    assert.equal(await can('list', 'nodeconfigrollouts.dkc.io', '--as=victor'), 'no');
    assert.equal(await can('create', 'selfsubjectreviews.authentication.k8s.io', '--as=victor'), 'no');

    await server.restart();
    await k.cleanup();
    k = await kubectl('1.32', server.kubeconfig);
    assert.equal(await can('list', 'nodeconfigrollouts.dkc.io', '--as=victor'), 'yes');
    assert.equal(await can('list', 'nodeconfigrollouts.dkc.io', '--as=eddie'), 'yes', 'view feeds edit');
    assert.equal(await can('create', 'selfsubjectreviews.authentication.k8s.io', '--as=victor'), 'yes');
    assert.match(await k.ok(['auth', 'whoami', '--as=victor']), /Username\s+victor/);
    // edit now aggregates: its old Lease rule is replaced by the aggregated rules (the server writes them at once).
    await waitFor('edit to lose its Lease rule', async () =>
      (await can('update', 'leases', '-n', 'kube-system', '--as=eddie')) === 'no' ? true : undefined,
    );
    const edit = await admin.get<{ aggregationRule?: unknown; metadata: { labels: Record<string, string> } }>(
      `/apis/${RBAC}/v1/clusterroles/edit`,
    );
    assert.deepEqual(edit.aggregationRule, {
      clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' } }],
    });
    assert.equal(edit.metadata.labels['rbac.authorization.k8s.io/aggregate-to-admin'], 'true');
  });
});
