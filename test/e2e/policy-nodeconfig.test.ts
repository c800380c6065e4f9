// NodeConfigPolicy and the permission to assign where nodes are assigned through NodeConfigs: real kubectl 1.32
// against `dkc server --emulated-version 1.31`, read as a table of who types what and what they get, in order. A
// NodeConfig's spec.configSource is judged as a Node's is on the Node channel (the same messages, the refusal naming
// the NodeConfig), with its Node's labels; a relabel and a ConfigMap's change are judged by what the NodeConfigs
// assign; and a NodeConfigRollout takes `update nodeconfigs`, the permission to assign on this channel. The nodes run
// no agent, so what they run now is the defaults (maxPods 110).

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureClusterPKI, writeTokenKubeconfig } from '../../src/pki/index.js';
import { kubectl, type Kubectl } from '../helpers/kubectl.js';
import { startServer, type RunningServer } from '../helpers/server.js';

const people = {
  admin: 'the cluster admin',
  alice: 'alice, who may create rollouts and update nodes/configsource, not nodeconfigs',
  olga: 'olga, a dkc:node-config-operator',
} as const;
type Who = keyof typeof people;

interface Row {
  who: Who;
  tries: string;
  /** `refused: <the server's message>`, or what kubectl prints on stdout. */
  gets: string;
  /** A warning kubectl prints on stderr. */
  warns?: string;
  stdin?: string;
}

const cm = (name: string) => ({ configMap: { namespace: 'kube-system', name, kubeletConfigKey: 'kubelet' } });
const assign = (name: string) => JSON.stringify({ spec: { configSource: cm(name) } });
const kubelet = (maxPods: number) =>
  JSON.stringify({ kind: 'KubeletConfiguration', apiVersion: 'kubelet.config.k8s.io/v1beta1', maxPods });
const denied = (resource: string, name: string, node: string, change: string) =>
  `${resource} "${name}" is forbidden: NodeConfigPolicy "blue-deny" denies the config change on node "${node}": maxPods: ${change}`;
const rollout = (name: string, config: string) =>
  JSON.stringify({
    apiVersion: 'dkc.io/v1alpha1',
    kind: 'NodeConfigRollout',
    metadata: { name },
    spec: { configSource: cm(config), nodeSelector: { matchLabels: { pool: 'blue' } } },
  });

const table: Row[] = [
  // A NodeConfig's assignment, judged as a Node's: update, and create.
  {
    who: 'admin',
    tries: `patch nodeconfig node-1 --type=merge -p ${assign('big')}`,
    gets: `refused: ${denied('nodeconfigs.dkc.io', 'node-1', 'node-1', '110 -> 300 (above the maximum 250)')}`,
  },
  {
    who: 'admin',
    tries: 'create -f -',
    stdin: JSON.stringify({
      apiVersion: 'dkc.io/v1alpha1',
      kind: 'NodeConfig',
      metadata: { name: 'node-3' },
      spec: { configSource: cm('big') },
    }),
    gets: `refused: ${denied('nodeconfigs.dkc.io', 'node-3', 'node-3', '110 -> 300 (above the maximum 250)')}`,
  },
  {
    who: 'admin',
    tries: `patch nodeconfig node-1 --type=merge -p ${assign('fits')}`,
    gets: 'nodeconfig.dkc.io/node-1 patched',
  },
  {
    who: 'admin',
    tries: `patch nodeconfig node-2 --type=merge -p ${assign('big')}`,
    warns:
      'Warning: NodeConfigPolicy "green-warn" (Warn) on node "node-2": maxPods: 110 -> 300 (above the maximum 150)',
    gets: 'nodeconfig.dkc.io/node-2 patched',
  },
  // A relabel that brings node-2's NodeConfig assignment under the Deny policy, and a ConfigMap change under it.
  {
    who: 'admin',
    tries: 'label node node-2 pool=blue --overwrite',
    gets: `refused: ${denied('nodes', 'node-2', 'node-2', '110 -> 300 (above the maximum 250)')}`,
  },
  { who: 'admin', tries: 'label node node-2 team=x', gets: 'node/node-2 labeled' },
  {
    who: 'admin',
    tries: `patch configmap fits -n kube-system --type=merge -p ${JSON.stringify({ data: { kubelet: kubelet(260) } })}`,
    gets: `refused: ${denied('configmaps', 'fits', 'node-1', '110 -> 260 (above the maximum 250)')}`,
  },
  // Assigning by rollout takes update on nodeconfigs here; nodes/configsource is the Node channel's.
  {
    who: 'alice',
    tries: 'create -f -',
    stdin: rollout('r1', 'fits'),
    gets:
      'refused: nodeconfigrollouts.dkc.io "r1" is forbidden: User "alice" cannot update resource "nodeconfigs" in API group "dkc.io" at the cluster scope: ' +
      'a NodeConfigRollout assigns config to the nodes it selects, which requires update on nodeconfigs',
  },
  {
    who: 'olga',
    tries: 'create -f -',
    stdin: rollout('r1', 'big'),
    gets: `refused: ${denied('nodeconfigrollouts.dkc.io', 'r1', 'node-1', '110 -> 300 (above the maximum 250)')}`,
  },
  { who: 'olga', tries: 'create -f -', stdin: rollout('r1', 'fits'), gets: 'nodeconfigrollout.dkc.io/r1 created' },
];

const SETUP = `
apiVersion: v1
kind: ConfigMap
metadata: {name: big, namespace: kube-system}
data: {kubelet: '${kubelet(300)}'}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: fits, namespace: kube-system}
data: {kubelet: '${kubelet(200)}'}
---
apiVersion: v1
kind: Node
metadata: {name: node-1, labels: {pool: blue}}
---
apiVersion: v1
kind: Node
metadata: {name: node-2, labels: {pool: green}}
---
apiVersion: v1
kind: Node
metadata: {name: node-3, labels: {pool: blue}}
---
apiVersion: dkc.io/v1alpha1
kind: NodeConfig
metadata: {name: node-1}
spec: {}
---
apiVersion: dkc.io/v1alpha1
kind: NodeConfig
metadata: {name: node-2}
spec: {}
---
apiVersion: dkc.io/v1alpha1
kind: NodeConfigPolicy
metadata: {name: blue-deny}
spec:
  nodeSelector: {matchLabels: {pool: blue}}
  allowedFields: [maxPods]
  bounds: {maxPods: {maximum: 250}}
  enforcement: Deny
---
apiVersion: dkc.io/v1alpha1
kind: NodeConfigPolicy
metadata: {name: green-warn}
spec:
  nodeSelector: {matchLabels: {pool: green}}
  allowedFields: [maxPods]
  bounds: {maxPods: {maximum: 150}}
  enforcement: Warn
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: rollout-starter}
rules:
- {apiGroups: [dkc.io], resources: [nodeconfigrollouts], verbs: [get, create]}
- {apiGroups: [""], resources: [nodes/configsource], verbs: [update]}
- {apiGroups: [""], resources: [configmaps], verbs: [get]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: alice-rollout-starter}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: rollout-starter}
subjects: [{kind: User, name: alice}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: olga-operator}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: dkc:node-config-operator}
subjects: [{kind: User, name: olga}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: olga-operator, namespace: kube-system}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: dkc:node-config-operator}
subjects: [{kind: User, name: olga}]
`;

let dataDir: string | undefined;
let server: RunningServer | undefined;
const handles = new Map<Who, Kubectl>();

before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'dkc-policy-nc-'));
  const tokens = join(dataDir, 'tokens.csv');
  await writeFile(tokens, 'alice-token,alice,alice-uid\nolga-token,olga,olga-uid\n');
  server = await startServer(['--emulated-version', '1.31', '--token-auth-file', tokens], { dataDir });
  const pki = await ensureClusterPKI(join(server.dataDir, 'pki'));
  handles.set('admin', await kubectl('1.32', server.kubeconfig));
  for (const who of ['alice', 'olga'] as const) {
    const path = join(server.dataDir, `${who}.kubeconfig`);
    await writeTokenKubeconfig(path, { server: server.url, caPem: pki.ca.certPem, token: `${who}-token`, user: who });
    handles.set(who, await kubectl('1.32', path));
  }
  await handles.get('admin')!.ok(['apply', '-f', '-'], { input: SETUP });
});

after(async () => {
  for (const h of handles.values()) await h.cleanup();
  if (server) await server.cleanup();
  else if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('NodeConfigPolicy and the permission to assign on the NodeConfig channel (dkc server --emulated-version 1.31, kubectl 1.32)', () => {
  for (const row of table) {
    it(`${people[row.who]}: kubectl ${row.tries.slice(0, 90)} → ${row.gets.slice(0, 120)}`, async () => {
      const r = await handles
        .get(row.who)!
        .run(row.tries.split(' '), row.stdin === undefined ? {} : { input: row.stdin });
      if (row.gets.startsWith('refused: ')) {
        assert.notEqual(r.code, 0, `expected a refusal, kubectl printed: ${r.stdout}`);
        assert.ok(r.stderr.includes(row.gets.slice('refused: '.length)), `kubectl printed:\n${r.stderr}`);
      } else {
        assert.equal(r.code, 0, r.stderr);
        assert.ok(r.stdout.includes(row.gets), `kubectl printed:\n${r.stdout}`);
        if (row.warns !== undefined) assert.ok(r.stderr.includes(row.warns), `kubectl printed:\n${r.stderr}`);
      }
    });
  }
});
