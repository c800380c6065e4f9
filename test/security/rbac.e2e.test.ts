// Who may grant what, who may take the controllers' Lease, what the default roles give, and what every user may ask
// about herself — read as a table: each row is a person, the kubectl command she types, and what she gets. The test
// runs every row through real kubectl (1.32, and 1.20 where it has the command) against a real `dkc server` whose
// token users are bound below, exactly as a cluster admin would bind them.
//
// `gets` is either `refused: <the server's message>` (kubectl exits non-zero and prints it), `no` (`auth can-i`
// exits 1), or what kubectl prints on success; runs of spaces in kubectl's tables compare as one. What a row creates,
// the admin deletes again (`then`), so that the next kubectl version meets the same cluster.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RestClient } from '../../src/client/index.js';
import { ensureClusterPKI, issueCert, writeKubeconfig, writeTokenKubeconfig } from '../../src/pki/index.js';
import { kubectl, type Kubectl, type KubectlVersion } from '../helpers/kubectl.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const people = {
  admin: 'the cluster admin (system:masters)',
  alice: 'alice, who may only create RoleBindings in kube-system',
  bob: 'bob, who may create RoleBindings in team and `bind` the ClusterRole view there',
  carol: 'carol, who may create Roles in team and `escalate` them',
  dave: 'dave, who may create Roles in team, nothing more',
  frank: 'frank, admin of namespace team',
  erin: 'erin, edit in kube-system',
  kim: 'kim, admin in kube-system',
  node: 'node-1, with its node certificate',
} as const;
type Who = keyof typeof people;

interface Row {
  who: Who;
  tries: string;
  gets: string;
  /** What kubectl reads on stdin (`-f -`). */
  stdin?: 'the leader Lease as stored';
  /** The kubectl versions that have the command; both by default. */
  only?: KubectlVersion;
  /** What the cluster admin runs afterwards to undo what the row created. */
  then?: string;
}

const DENIED_CLUSTER_ADMIN =
  'rolebindings.rbac.authorization.k8s.io "alice-admin" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
  '{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n' +
  '{NonResourceURLs:["*"], Verbs:["*"]}';
const notHeld = (kind: string, name: string, user: string, missing: string) =>
  `${kind}.rbac.authorization.k8s.io "${name}" is forbidden: user "${user}" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n${missing}`;
const cannot = (user: string, verb: string) =>
  `leases.coordination.k8s.io "dkc-controller" is forbidden: User "${user}" cannot ${verb} resource "leases" in API group "coordination.k8s.io" in the namespace "kube-system"`;

const table: Row[] = [
  // Granting: only what you hold, or what `bind` / `escalate` lets you grant.
  {
    who: 'alice',
    tries: '-n kube-system create rolebinding alice-admin --clusterrole=cluster-admin --user=alice',
    gets: `refused: ${DENIED_CLUSTER_ADMIN}`,
  },
  {
    who: 'bob',
    tries: '-n team create rolebinding bob-view --clusterrole=view --user=bob',
    gets: 'rolebinding.rbac.authorization.k8s.io/bob-view created',
    then: '-n team delete rolebinding bob-view',
  },
  {
    who: 'bob',
    tries: '-n team create rolebinding bob-edit --clusterrole=edit --user=bob',
    // edit holds view's rules as well as its own, so the verbs repeat, as kube-apiserver prints them.
    gets: `refused: ${notHeld('rolebindings', 'bob-edit', 'bob', '{APIGroups:[""], Resources:["configmaps"], Verbs:["get" "list" "watch" "create" "delete" "deletecollection" "patch" "update" "get" "list" "watch"]}')}`,
  },
  {
    who: 'carol',
    tries: '-n team create role anything --verb=* --resource=configmaps',
    gets: 'role.rbac.authorization.k8s.io/anything created',
    then: '-n team delete role anything',
  },
  {
    who: 'dave',
    tries: '-n team create role anything --verb=* --resource=configmaps',
    gets: `refused: ${notHeld('roles', 'anything', 'dave', '{APIGroups:[""], Resources:["configmaps"], Verbs:["*"]}')}`,
  },
  // What admin holds covers edit and view, whose rules are aggregated ClusterRoles'.
  {
    who: 'frank',
    tries: '-n team create rolebinding gina-edit --clusterrole=edit --user=gina',
    gets: 'rolebinding.rbac.authorization.k8s.io/gina-edit created',
    then: '-n team delete rolebinding gina-edit',
  },
  {
    who: 'admin',
    tries: 'create clusterrolebinding mallory-admin --clusterrole=cluster-admin --user=mallory',
    gets: 'clusterrolebinding.rbac.authorization.k8s.io/mallory-admin created',
    then: 'delete clusterrolebinding mallory-admin',
  },

  // The controllers' leader Lease: theirs alone.
  {
    who: 'erin',
    tries: '-n kube-system replace -f -',
    stdin: 'the leader Lease as stored',
    gets: `refused: ${cannot('erin', 'update')}`,
  },
  {
    who: 'kim',
    tries: '-n kube-system replace -f -',
    stdin: 'the leader Lease as stored',
    gets: `refused: ${cannot('kim', 'update')}`,
  },
  { who: 'kim', tries: '-n kube-system delete lease dkc-controller', gets: `refused: ${cannot('kim', 'delete')}` },
  {
    who: 'kim',
    tries: '-n kube-system create role take-lease --verb=update --resource=leases --resource-name=dkc-controller',
    gets: `refused: ${notHeld('roles', 'take-lease', 'kim', '{APIGroups:["coordination.k8s.io"], Resources:["leases"], ResourceNames:["dkc-controller"], Verbs:["update"]}')}`,
  },
  {
    who: 'kim',
    tries: '-n kube-system create rolebinding kim-controller --role=system:dkc:controller --user=kim',
    gets: `refused: ${notHeld(
      'rolebindings',
      'kim-controller',
      'kim',
      '{APIGroups:["coordination.k8s.io"], Resources:["leases"], ResourceNames:["dkc-controller"], Verbs:["get"]}\n' +
        '{APIGroups:["coordination.k8s.io"], Resources:["leases"], ResourceNames:["dkc-controller"], Verbs:["update"]}\n' +
        '{APIGroups:["coordination.k8s.io"], Resources:["leases"], Verbs:["create"]}',
    )}`,
  },
  { who: 'admin', tries: '-n kube-system auth can-i update leases/dkc-controller --as=erin', gets: 'no' },
  {
    who: 'admin',
    tries: '-n kube-system auth can-i update leases/dkc-controller --as=system:dkc:controller',
    gets: 'yes',
  },
  {
    who: 'admin',
    tries: '-n kube-system replace -f - --as=system:dkc:controller',
    stdin: 'the leader Lease as stored',
    gets: 'lease.coordination.k8s.io/dkc-controller replaced',
  },

  // The default roles: view reads rollouts and policies; edit and admin do not assign config; the operator does.
  { who: 'admin', tries: 'auth can-i list nodeconfigrollouts.dkc.io --as=victor', gets: 'yes' },
  { who: 'admin', tries: 'auth can-i watch nodeconfigpolicies.dkc.io --as=victor', gets: 'yes' },
  { who: 'admin', tries: 'auth can-i get nodeconfigrollouts.dkc.io --as=eddie', gets: 'yes' },
  { who: 'admin', tries: 'auth can-i create nodeconfigrollouts.dkc.io --as=eddie', gets: 'no' },
  { who: 'admin', tries: 'auth can-i update nodes/configsource --as=eddie', gets: 'no' },
  { who: 'admin', tries: 'auth can-i create nodeconfigrollouts.dkc.io --as=adam', gets: 'no' },
  { who: 'admin', tries: 'auth can-i update nodes/configsource --as=adam', gets: 'no' },
  {
    who: 'admin',
    tries: 'auth can-i update nodes/configsource --as=olivia --as-group=dkc:node-config-operators',
    gets: 'yes',
  },
  {
    who: 'admin',
    tries: 'auth can-i create nodeconfigrollouts.dkc.io --as=olivia --as-group=dkc:node-config-operators',
    gets: 'yes',
  },

  // Who am I, and what may I do: every authenticated user may ask, and finds both in discovery.
  {
    who: 'alice',
    tries: 'api-resources --api-group=authentication.k8s.io',
    gets: 'selfsubjectreviews authentication.k8s.io/v1 false SelfSubjectReview',
  },
  {
    who: 'alice',
    tries: 'api-resources --api-group=authorization.k8s.io',
    gets: 'selfsubjectrulesreviews authorization.k8s.io/v1 false SelfSubjectRulesReview',
  },
  {
    who: 'admin',
    tries: 'auth whoami',
    gets: 'ATTRIBUTE VALUE\nUsername admin\nGroups [system:masters system:authenticated]',
    only: '1.32',
  },
  {
    who: 'alice',
    tries: 'auth whoami',
    gets: 'ATTRIBUTE VALUE\nUsername alice\nUID alice-uid\nGroups [system:authenticated]',
    only: '1.32',
  },
  {
    who: 'node',
    tries: 'auth whoami',
    gets: 'ATTRIBUTE VALUE\nUsername system:node:node-1\nGroups [system:nodes system:authenticated]',
    only: '1.32',
  },
  {
    who: 'admin',
    tries: 'auth whoami --as=alice',
    gets: 'ATTRIBUTE VALUE\nUsername alice\nGroups [system:authenticated]',
    only: '1.32',
  },
  { who: 'admin', tries: 'auth can-i --list', gets: '*.* [] [] [*]\n [*] [] [*]' },
  {
    who: 'alice',
    tries: '-n kube-system auth can-i --list',
    gets:
      'selfsubjectreviews.authentication.k8s.io [] [] [create]\nselfsubjectaccessreviews.authorization.k8s.io [] [] [create]\n' +
      'selfsubjectrulesreviews.authorization.k8s.io [] [] [create]\nrolebindings.rbac.authorization.k8s.io [] [] [create]',
  },
  {
    who: 'admin',
    tries: '-n kube-system auth can-i --list --as=alice',
    gets: 'rolebindings.rbac.authorization.k8s.io [] [] [create]',
  },
  {
    who: 'node',
    tries: 'auth can-i --list',
    gets: 'warning: the list may be incomplete: node authorizer does not support user rule resolution',
  },
  { who: 'node', tries: 'auth can-i --list', gets: 'subjectaccessreviews.authorization.k8s.io [] [] [create]' },
];

/** The bindings behind the people above, applied by the cluster admin. */
const BINDINGS = `
apiVersion: v1
kind: Namespace
metadata: {name: team}
---
${role('kube-system', 'rolebinding-creator', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['rolebindings'], verbs: ['create'] }])}
${binding('kube-system', 'alice', 'Role', 'rolebinding-creator')}
${role('team', 'view-binder', [
  { apiGroups: ['rbac.authorization.k8s.io'], resources: ['rolebindings'], verbs: ['create'] },
  { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], resourceNames: ['view'], verbs: ['bind'] },
])}
${binding('team', 'bob', 'Role', 'view-binder')}
${role('team', 'role-escalator', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['create', 'escalate'] }])}
${binding('team', 'carol', 'Role', 'role-escalator')}
${role('team', 'role-creator', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['create'] }])}
${binding('team', 'dave', 'Role', 'role-creator')}
${binding('team', 'frank', 'ClusterRole', 'admin')}
${binding('kube-system', 'erin', 'ClusterRole', 'edit')}
${binding('kube-system', 'kim', 'ClusterRole', 'admin')}
${clusterBinding('victor', 'view')}
${clusterBinding('eddie', 'edit')}
${clusterBinding('adam', 'admin')}
`;

function role(namespace: string, name: string, rules: object[]): string {
  return `apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: ${name}, namespace: ${namespace}}\nrules: ${JSON.stringify(rules)}\n---`;
}

function binding(namespace: string, user: string, kind: string, roleName: string): string {
  return (
    `apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: ${user}-${roleName}, namespace: ${namespace}}\n` +
    `roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ${kind}, name: ${roleName}}\nsubjects: [{kind: User, name: ${user}}]\n---`
  );
}

function clusterBinding(user: string, roleName: string): string {
  return (
    `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: ${user}-${roleName}}\n` +
    `roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ${roleName}}\nsubjects: [{kind: User, name: ${user}}]\n---`
  );
}

const TOKEN_USERS = ['alice', 'bob', 'carol', 'dave', 'frank', 'erin', 'kim'] as const;
const VERSIONS: KubectlVersion[] = ['1.32', '1.20'];

let dataDir: string | undefined;
let server: RunningServer | undefined;
let admin: RestClient;
const kubeconfigs = new Map<Who, string>();
const handles: Kubectl[] = [];

/** Runs of blanks are one space; kubectl pads its tables. */
const squeeze = (text: string) => text.replace(/[ \t]+/g, ' ').replace(/ $/gm, '');

async function stdinFor(row: Row): Promise<string | undefined> {
  if (!row.stdin) return undefined;
  const lease = await admin.get<{ metadata: Record<string, unknown> }>(
    '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/dkc-controller',
  );
  // As stored, less the version it was read at: the controllers renew it meanwhile.
  delete lease.metadata['resourceVersion'];
  return JSON.stringify(lease);
}

before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'dkc-rbac-'));
  const tokens = join(dataDir, 'tokens.csv');
  await writeFile(tokens, TOKEN_USERS.map((u) => `${u}-token,${u},${u}-uid`).join('\n') + '\n');
  server = await startServer(['--token-auth-file', tokens], { dataDir });
  admin = await RestClient.fromKubeconfig(server.kubeconfig, { timeoutMs: 10_000 });
  const pki = await ensureClusterPKI(join(server.dataDir, 'pki'));
  kubeconfigs.set('admin', server.kubeconfig);
  for (const u of TOKEN_USERS) {
    const path = join(server.dataDir, `${u}.kubeconfig`);
    await writeTokenKubeconfig(path, { server: server.url, caPem: pki.ca.certPem, token: `${u}-token`, user: u });
    kubeconfigs.set(u, path);
  }
  const nodeCert = await issueCert(
    { certPem: pki.ca.certPem, keyPem: pki.ca.keyPem! },
    { commonName: 'system:node:node-1', organizations: ['system:nodes'], usages: ['client'] },
  );
  const nodePath = join(server.dataDir, 'node-1.kubeconfig');
  await writeKubeconfig(nodePath, {
    server: server.url,
    caPem: pki.ca.certPem,
    certPem: nodeCert.certPem,
    keyPem: nodeCert.keyPem,
    user: 'node-1',
  });
  kubeconfigs.set('node', nodePath);
  const k = await kubectl('1.32', server.kubeconfig);
  handles.push(k);
  await k.ok(['apply', '-f', '-'], { input: BINDINGS });
  await waitFor('the controllers to take their Lease', async () =>
    (await admin
      .get('/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/dkc-controller')
      .catch(() => undefined))
      ? true
      : undefined,
  );
});

after(async () => {
  admin?.close();
  for (const h of handles) await h.cleanup();
  if (server) await server.cleanup();
  else if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

for (const version of VERSIONS) {
  describe(`RBAC as people meet it, kubectl ${version}`, () => {
    const mine = new Map<Who, Kubectl>();
    const as = async (who: Who): Promise<Kubectl> => {
      let k = mine.get(who);
      if (!k) {
        k = await kubectl(version, kubeconfigs.get(who)!);
        handles.push(k);
        mine.set(who, k);
      }
      return k;
    };

    for (const row of table) {
      if (row.only && row.only !== version) continue;
      it(`${people[row.who]}: kubectl ${row.tries} → ${row.gets.split('\n')[0]}`, async () => {
        const k = await as(row.who);
        const admin_ = await as('admin');
        const input = await stdinFor(row);
        const r = await k.run(row.tries.split(' '), input === undefined ? {} : { input });
        if (row.then) await admin_.run(row.then.split(' '));
        if (row.gets.startsWith('refused: ')) {
          assert.notEqual(r.code, 0, `expected a refusal, kubectl printed: ${r.stdout}`);
          assert.ok(r.stderr.includes(row.gets.slice('refused: '.length)), `kubectl printed:\n${r.stderr}`);
        } else if (row.gets === 'no') {
          assert.deepEqual({ code: r.code, answer: r.stdout.trim() }, { code: 1, answer: 'no' }, r.stderr);
        } else {
          assert.equal(r.code, 0, r.stderr);
          // kubectl 1.32 capitalises its warning; 1.20 does not.
          const printed = squeeze(`${r.stdout}\n${r.stderr}`).toLowerCase();
          assert.ok(printed.includes(squeeze(row.gets).toLowerCase()), `kubectl printed:\n${r.stdout}${r.stderr}`);
        }
      });
    }
  });
}

describe('ClusterRole aggregation', () => {
  it('a ClusterRole labelled aggregate-to-view joins view, edit and admin, and leaves them when it goes', async () => {
    const k = await kubectl('1.32', kubeconfigs.get('admin')!);
    handles.push(k);
    const canList = async (who: string) =>
      (await k.run(['-n', 'team', 'auth', 'can-i', 'list', 'leases', `--as=${who}`])).stdout.trim();
    for (const who of ['victor', 'eddie', 'adam']) assert.equal(await canList(who), 'no', `${who} before`);
    const leaseReaders =
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: lease-readers\n  labels: {rbac.authorization.k8s.io/aggregate-to-view: "true"}\n' +
      'rules: [{apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get, list]}]\n';
    await k.ok(['apply', '-f', '-'], { input: leaseReaders });
    for (const who of ['victor', 'eddie', 'adam'])
      await waitFor(`${who} may list leases`, async () => ((await canList(who)) === 'yes' ? true : undefined));
    await k.ok(['delete', 'clusterrole', 'lease-readers']);
    for (const who of ['victor', 'eddie', 'adam'])
      await waitFor(`${who} may no longer list leases`, async () => ((await canList(who)) === 'no' ? true : undefined));
  });
});
