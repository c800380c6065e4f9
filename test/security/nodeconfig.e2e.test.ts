// Who may do what with NodeConfigs — the assignment channel kube-apiserver 1.24 and later keep — read as a table:
// each row is a person, the kubectl command she types, and what she gets. Every row runs through real kubectl 1.32
// against `dkc server --emulated-version 1.31`, in order (a row may build on the ones before it). node-1 and node-2
// use their own node certificates; dan is a token user allowed to write NodeConfigs but not to read the ConfigMaps in
// kube-system.
//
// `gets` is `refused: <the server's message>` (kubectl exits non-zero and prints it) or what kubectl prints on
// success; runs of spaces in kubectl's tables compare as one, and a table row may continue past what is given
// (its AGE).

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RestClient } from '../../src/client/index.js';
import { ensureClusterPKI, issueCert, writeKubeconfig, writeTokenKubeconfig } from '../../src/pki/index.js';
import { kubectl, type Kubectl } from '../helpers/kubectl.js';
import { startServer, type RunningServer } from '../helpers/server.js';

const people = {
  admin: 'the cluster admin (system:masters)',
  node1: 'node-1, with its node certificate',
  node2: 'node-2, with its node certificate',
  dan: 'dan, who may write NodeConfigs but not read kube-system',
} as const;
type Who = keyof typeof people;

interface Row {
  who: Who;
  tries: string;
  gets: string;
  /** What kubectl reads on stdin (`-f -`): a node's NodeConfig, owned by that node, maybe assigning cfg-a. */
  stdin?: { nodeConfig: string; owner: string; assigns?: boolean };
}

const cm = (name: string) => ({ configMap: { namespace: 'kube-system', name, kubeletConfigKey: 'kubelet' } });
const assign = (name: string) => JSON.stringify({ spec: { configSource: cm(name) } });
const active = JSON.stringify({
  status: { config: { active: { configMap: { ...cm('cfg-a').configMap, uid: 'u-a', resourceVersion: '1' } } } },
});
const record = JSON.stringify({ status: { previous: { configSource: cm('cfg-b'), rollout: 'r1' } } });

const RECORD_REFUSED =
  'status.previous is the rollout controller\'s revert record: only "system:dkc:controller" may write it';
const cannot = (user: string, verb: string, resource: string, name: string, why: string) =>
  `nodeconfigs.dkc.io${name ? ` "${name}"` : ''} is forbidden: User "${user}" cannot ${verb} resource "${resource}" in API group "dkc.io" at the cluster scope: ${why}`;
const NOT_OWN = 'can only access the node config with the same name as the requesting node';
const VERBS = 'can only get, list, watch, or create a node config, and get, update, or patch its status';

const table: Row[] = [
  // A node creates its own NodeConfig, assigning nothing, owned by itself — and no other.
  {
    who: 'node1',
    tries: 'create -f -',
    stdin: { nodeConfig: 'node-1', owner: 'node-1', assigns: true },
    gets: 'refused: nodeconfigs.dkc.io "node-1" is forbidden: node "node-1" is not allowed to create a nodeconfig with a non-nil configSource',
  },
  {
    who: 'node1',
    tries: 'create -f -',
    stdin: { nodeConfig: 'node-1', owner: 'node-2' },
    gets: 'refused: nodeconfigs.dkc.io "node-1" is forbidden: node "node-1" can only create a nodeconfig with a single owner reference set to itself',
  },
  {
    who: 'node1',
    tries: 'create -f -',
    stdin: { nodeConfig: 'node-2', owner: 'node-2' },
    gets: 'refused: nodeconfigs.dkc.io "node-2" is forbidden: node "node-1" is not allowed to modify nodeconfig "node-2"',
  },
  {
    who: 'node1',
    tries: 'create -f -',
    stdin: { nodeConfig: 'node-1', owner: 'node-1' },
    gets: 'nodeconfig.dkc.io/node-1 created',
  },
  {
    who: 'node2',
    tries: 'create -f -',
    stdin: { nodeConfig: 'node-2', owner: 'node-2' },
    gets: 'nodeconfig.dkc.io/node-2 created',
  },

  // The operator's tutorial, with nodeconfig for node: assign, read back, see the columns.
  {
    who: 'admin',
    tries: `patch nodeconfig node-1 --type=merge -p ${assign('cfg-a')}`,
    gets: 'nodeconfig.dkc.io/node-1 patched',
  },
  { who: 'admin', tries: 'get nc', gets: 'NAME ASSIGNED ACTIVE ERROR AGE\nnode-1 cfg-a ' },
  { who: 'admin', tries: 'get nc -o wide', gets: 'NAME ASSIGNED ACTIVE LAST-KNOWN-GOOD ERROR AGE\nnode-1 cfg-a ' },
  // Invalid sources are refused with upstream's messages for Node.spec.configSource.
  {
    who: 'admin',
    tries:
      'patch nodeconfig node-1 --type=merge -p {"spec":{"configSource":{"configMap":{"namespace":"kube-system","name":"","uid":"x","kubeletConfigKey":"kubelet"}}}}',
    gets:
      'refused: The NodeConfig "node-1" is invalid: \n* spec.configSource.configMap.uid: Forbidden: uid must not be set in spec\n' +
      '* spec.configSource.configMap.name: Required value: name must be set',
  },
  {
    who: 'admin',
    tries:
      'patch nodeconfig node-1 --type=merge -p {"spec":{"configSource":{"configMap":{"namespace":"kube-system","name":"Bad_Name","kubeletConfigKey":"../kubelet"}}}}',
    gets:
      'refused: The NodeConfig "node-1" is invalid: \n' +
      // The CRD's patterns answer first, as kube-apiserver's schema validation does before admission.
      '* spec.configSource.configMap.name: Invalid value: "Bad_Name": spec.configSource.configMap.name in body should match \'^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$\'\n' +
      '* spec.configSource.configMap.kubeletConfigKey: Invalid value: "../kubelet": spec.configSource.configMap.kubeletConfigKey in body should match \'^[-._a-zA-Z0-9]*$\'',
  },
  {
    who: 'admin',
    tries: 'patch nodeconfig node-1 --type=json -p [{"op":"replace","path":"/spec/configSource","value":{}}]',
    gets: 'refused: The NodeConfig "node-1" is invalid: spec.configSource: Invalid value: core.NodeConfigSource{ConfigMap:(*core.ConfigMapNodeConfigSource)(nil)}: exactly one reference subfield must be non-nil',
  },

  // A node reads its own NodeConfig only, and the ConfigMap that one names.
  { who: 'node1', tries: 'get nc node-1 -o jsonpath={.spec.configSource.configMap.name}', gets: 'cfg-a' },
  {
    who: 'node1',
    tries: 'get nc --field-selector metadata.name=node-1',
    gets: 'NAME ASSIGNED ACTIVE ERROR AGE\nnode-1 cfg-a ',
  },
  {
    who: 'node1',
    tries: 'get nc node-2',
    gets: `refused: ${cannot('system:node:node-1', 'get', 'nodeconfigs', 'node-2', NOT_OWN)}`,
  },
  {
    who: 'node1',
    tries: 'get nc',
    gets: `refused: ${cannot('system:node:node-1', 'list', 'nodeconfigs', '', NOT_OWN)}`,
  },
  { who: 'node1', tries: 'get configmap cfg-a -n kube-system -o name', gets: 'configmap/cfg-a' },
  {
    who: 'node2',
    tries: 'get configmap cfg-a -n kube-system',
    gets: 'refused: configmaps "cfg-a" is forbidden: User "system:node:node-2" cannot get resource "configmaps" in API group "" in the namespace "kube-system": no relationship found between node \'node-2\' and this object',
  },

  // A node writes its status, never what it is assigned, never another node's.
  {
    who: 'node1',
    tries: `patch nc node-1 --subresource=status --type=merge -p ${active}`,
    gets: 'nodeconfig.dkc.io/node-1 patched',
  },
  { who: 'admin', tries: 'get nc node-1', gets: 'NAME ASSIGNED ACTIVE ERROR AGE\nnode-1 cfg-a cfg-a ' },
  {
    who: 'node1',
    tries: `patch nc node-1 --type=merge -p ${assign('cfg-b')}`,
    gets: `refused: ${cannot('system:node:node-1', 'patch', 'nodeconfigs', 'node-1', VERBS)}`,
  },
  {
    who: 'node1',
    tries: `patch nc node-2 --subresource=status --type=merge -p ${active}`,
    gets: `refused: ${cannot('system:node:node-1', 'get', 'nodeconfigs/status', 'node-2', NOT_OWN)}`,
  },
  {
    who: 'node1',
    tries: 'delete nc node-1',
    gets: `refused: ${cannot('system:node:node-1', 'delete', 'nodeconfigs', 'node-1', VERBS)}`,
  },

  // The revert record decides what a revert assigns: the controller's alone — not the node's, not even the admin's.
  {
    who: 'node1',
    tries: `patch nc node-1 --subresource=status --type=merge -p ${record}`,
    gets: `refused: nodeconfigs.dkc.io "node-1" is forbidden: ${RECORD_REFUSED}`,
  },
  {
    who: 'admin',
    tries: `patch nc node-1 --subresource=status --type=merge -p ${record}`,
    gets: `refused: nodeconfigs.dkc.io "node-1" is forbidden: ${RECORD_REFUSED}`,
  },
  {
    who: 'admin',
    tries: `patch nc node-1 --subresource=status --type=merge -p ${record} --as=system:dkc:controller`,
    gets: 'nodeconfig.dkc.io/node-1 patched',
  },
  // ...and it is no read path: node-1 still reads only what its spec names.
  {
    who: 'node1',
    tries: 'get configmap cfg-b -n kube-system',
    gets: 'refused: configmaps "cfg-b" is forbidden: User "system:node:node-1" cannot get resource "configmaps" in API group "" in the namespace "kube-system": no relationship found between node \'node-1\' and this object',
  },

  // Naming a ConfigMap as config is reading it: dan may write NodeConfigs, but not point one at what he cannot read.
  {
    who: 'dan',
    tries: `patch nodeconfig node-2 --type=merge -p ${assign('cfg-b')}`,
    gets:
      'refused: nodeconfigs.dkc.io "node-2" is forbidden: User "dan" cannot get resource "configmaps" in API group "" in the namespace "kube-system": ' +
      'spec.configSource names ConfigMap kube-system/cfg-b, and naming a ConfigMap as config requires get on it',
  },
];

const BINDINGS = `
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg-a, namespace: kube-system}
data: {kubelet: '{"kind":"KubeletConfiguration","apiVersion":"kubelet.config.k8s.io/v1beta1"}'}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg-b, namespace: kube-system}
data: {kubelet: '{"kind":"KubeletConfiguration","apiVersion":"kubelet.config.k8s.io/v1beta1"}'}
---
apiVersion: v1
kind: Node
metadata: {name: node-1}
---
apiVersion: v1
kind: Node
metadata: {name: node-2}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: nodeconfig-writer}
rules: [{apiGroups: [dkc.io], resources: [nodeconfigs], verbs: [get, list, watch, update, patch]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: dan-nodeconfig-writer}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: nodeconfig-writer}
subjects: [{kind: User, name: dan}]
`;

let dataDir: string | undefined;
let server: RunningServer | undefined;
let admin: RestClient;
const kubeconfigs = new Map<Who, string>();
const handles = new Map<Who, Kubectl>();

/** Runs of blanks are one space; kubectl pads its tables. */
const squeeze = (text: string) => text.replace(/[ \t]+/g, ' ').replace(/ $/gm, '');

async function stdinFor(row: Row): Promise<string | undefined> {
  if (!row.stdin) return undefined;
  const owner = await admin.get<{ metadata: { uid: string } }>(`/api/v1/nodes/${row.stdin.owner}`);
  return JSON.stringify({
    apiVersion: 'dkc.io/v1alpha1',
    kind: 'NodeConfig',
    metadata: {
      name: row.stdin.nodeConfig,
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: row.stdin.owner, uid: owner.metadata.uid }],
    },
    spec: row.stdin.assigns ? { configSource: cm('cfg-a') } : {},
  });
}

before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'dkc-nodeconfig-'));
  const tokens = join(dataDir, 'tokens.csv');
  await writeFile(tokens, 'dan-token,dan,dan-uid\n');
  server = await startServer(['--emulated-version', '1.31', '--token-auth-file', tokens], { dataDir });
  admin = await RestClient.fromKubeconfig(server.kubeconfig, { timeoutMs: 10_000 });
  const pki = await ensureClusterPKI(join(server.dataDir, 'pki'));
  kubeconfigs.set('admin', server.kubeconfig);
  for (const [who, node] of [
    ['node1', 'node-1'],
    ['node2', 'node-2'],
  ] as const) {
    const cert = await issueCert(
      { certPem: pki.ca.certPem, keyPem: pki.ca.keyPem! },
      { commonName: `system:node:${node}`, organizations: ['system:nodes'], usages: ['client'] },
    );
    const path = join(server.dataDir, `${node}.kubeconfig`);
    await writeKubeconfig(path, {
      server: server.url,
      caPem: pki.ca.certPem,
      certPem: cert.certPem,
      keyPem: cert.keyPem,
      user: node,
    });
    kubeconfigs.set(who, path);
  }
  const danPath = join(server.dataDir, 'dan.kubeconfig');
  await writeTokenKubeconfig(danPath, { server: server.url, caPem: pki.ca.certPem, token: 'dan-token', user: 'dan' });
  kubeconfigs.set('dan', danPath);
  for (const [who, path] of kubeconfigs) handles.set(who, await kubectl('1.32', path));
  await handles.get('admin')!.ok(['apply', '-f', '-'], { input: BINDINGS });
});

after(async () => {
  admin?.close();
  for (const h of handles.values()) await h.cleanup();
  if (server) await server.cleanup();
  else if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('NodeConfig as people meet it on dkc server --emulated-version 1.31, kubectl 1.32', () => {
  for (const row of table) {
    it(`${people[row.who]}: kubectl ${row.tries} → ${row.gets.split('\n')[0]}`, async () => {
      const input = await stdinFor(row);
      const r = await handles.get(row.who)!.run(row.tries.split(' '), input === undefined ? {} : { input });
      if (row.gets.startsWith('refused: ')) {
        assert.notEqual(r.code, 0, `expected a refusal, kubectl printed: ${r.stdout}`);
        assert.ok(r.stderr.includes(row.gets.slice('refused: '.length)), `kubectl printed:\n${r.stderr}`);
      } else {
        assert.equal(r.code, 0, r.stderr);
        assert.ok(squeeze(r.stdout).includes(row.gets), `kubectl printed:\n${r.stdout}`);
      }
    });
  }
});

describe('NodeConfig through kubectl 1.20', () => {
  it('shows the printer columns and refuses a node another node’s NodeConfig', async () => {
    const old = await kubectl('1.20', kubeconfigs.get('admin')!);
    const oldNode = await kubectl('1.20', kubeconfigs.get('node2')!);
    try {
      assert.ok(squeeze(await old.ok(['get', 'nc'])).includes('NAME ASSIGNED ACTIVE ERROR AGE\nnode-1 cfg-a cfg-a '));
      const r = await oldNode.run(['get', 'nc', 'node-1']);
      assert.notEqual(r.code, 0);
      assert.ok(r.stderr.includes(cannot('system:node:node-2', 'get', 'nodeconfigs', 'node-1', NOT_OWN)), r.stderr);
    } finally {
      await old.cleanup();
      await oldNode.cleanup();
    }
  });
});
