// Who may point node config at which ConfigMaps, and where a ConfigMap's data never shows — on a real local cluster
// (a server and two agents, as `dkc up` runs them), through real kubectl as token users who hold only the Roles this
// file gives them. Naming a ConfigMap as config (a rollout's configSource or layers, a Node's configSource) needs `get`
// on it as the requesting user; creating a rollout or changing what it assigns needs `update nodes/configsource`, the
// right to assign directly. And a ConfigMap that is malformed or is no KubeletConfiguration is never quoted: not in a
// rollout's conditions or events, not in a node's status.config.error or events, not in any log.

import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Event, Node } from '../../src/api/types.js';
import { RestClient } from '../../src/client/index.js';
import { writeTokenKubeconfig } from '../../src/pki/index.js';
import { startCluster, type Cluster } from '../../src/up/cluster.js';
import { runDkc } from '../helpers/dkc.js';
import { kubectl, type Kubectl, type KubectlVersion } from '../helpers/kubectl.js';
import { waitForConfigz } from '../helpers/nodeconfig.js';
import { waitFor } from '../helpers/wait.js';

type User = 'admin' | 'mallory' | 'rita' | 'olivia' | 'sam';

/** What each user holds (the RBAC objects below grant exactly this; no default role is relied on). */
const USERS: Record<Exclude<User, 'admin'>, string> = {
  mallory: 'mallory (creates rollouts, may assign config, reads kube-system ConfigMaps; nothing in namespace victim)',
  rita: 'rita (creates and edits rollouts, reads every ConfigMap; may not assign config)',
  olivia: 'olivia (creates rollouts, may assign config, reads kube-system ConfigMaps)',
  sam: 'sam (reads rollouts and may update nodeconfigrollouts/status, as monitoring tooling granted */status)',
};

const ncr = (name: string, spec: string, target = 'none') =>
  `apiVersion: dkc.io/v1alpha1\nkind: NodeConfigRollout\nmetadata: {name: ${name}}\nspec:\n  nodeSelector: {matchLabels: {target: ${target}}}\n${spec}`;
const ref = (ns: string, name: string) => `{configMap: {namespace: ${ns}, name: ${name}, kubeletConfigKey: kubelet}}`;
const refJson = (ns: string, name: string) => ({ configMap: { namespace: ns, name, kubeletConfigKey: 'kubelet' } });
const cannotGet = (user: string, ns: string) =>
  `User "${user}" cannot get resource "configmaps" in API group "" in the namespace "${ns}"`;
const NAMING = 'and naming a ConfigMap as config requires get on it';
const cannotAssign = (user: string) =>
  `User "${user}" cannot update resource "nodes/configsource" in API group "" at the cluster scope`;

interface Row {
  who: string;
  tries: string;
  gets: string;
  as: User;
  kubectl: string[];
  input?: string;
  version?: KubectlVersion;
  /** The server's refusal as kubectl prints it (a 403); absent: the command succeeds. */
  refused?: string;
  /** What else must hold afterwards. */
  then?: () => Promise<void>;
}

const TABLE: Row[] = [
  {
    who: USERS.mallory,
    tries: 'kubectl get configmap app-secrets -n victim',
    gets: '403: she may not read it',
    as: 'mallory',
    kubectl: ['get', 'configmap', 'app-secrets', '-n', 'victim'],
    refused: `configmaps "app-secrets" is forbidden: ${cannotGet('mallory', 'victim')}`,
  },
  {
    who: USERS.mallory,
    tries: 'a layered rollout whose second layer is victim/app-secrets',
    gets: '403 naming spec.layers[1] and victim/app-secrets; nothing stored, nothing rendered',
    as: 'mallory',
    kubectl: ['create', '-f', '-'],
    input: ncr(
      'steal-layer',
      `  layers:\n  - ${ref('kube-system', 'base-two')}\n  - ${ref('victim', 'app-secrets')}\n`,
      'two',
    ),
    refused: `nodeconfigrollouts.dkc.io "steal-layer" is forbidden: ${cannotGet('mallory', 'victim')}: spec.layers[1] names ConfigMap victim/app-secrets, ${NAMING}`,
    then: async () => {
      assert.equal((await run('admin', ['get', 'ncr', 'steal-layer'])).code, 1, 'nothing stored');
      assert.equal(
        await run('admin', [
          'get',
          'configmaps',
          '-n',
          'dkc-configs',
          '-l',
          'dkc.io/rendered-by=steal-layer',
          '-o',
          'name',
        ]).then((r) => r.stdout),
        '',
      );
    },
  },
  {
    who: USERS.mallory,
    tries: 'the same with kubectl 1.20',
    gets: 'the same 403',
    as: 'mallory',
    version: '1.20',
    kubectl: ['create', '-f', '-'],
    input: ncr(
      'steal-layer',
      `  layers:\n  - ${ref('kube-system', 'base-two')}\n  - ${ref('victim', 'app-secrets')}\n`,
      'two',
    ),
    refused: `nodeconfigrollouts.dkc.io "steal-layer" is forbidden: ${cannotGet('mallory', 'victim')}: spec.layers[1] names ConfigMap victim/app-secrets, ${NAMING}`,
  },
  {
    who: USERS.mallory,
    tries: 'a rollout whose configSource is victim/team-b-kubelet, onto node-2',
    gets: '403 naming spec.configSource and victim/team-b-kubelet; node-2 keeps its config',
    as: 'mallory',
    kubectl: ['create', '-f', '-'],
    input: ncr('steal-source', `  configSource: ${ref('victim', 'team-b-kubelet')}\n`, 'two'),
    refused: `nodeconfigrollouts.dkc.io "steal-source" is forbidden: ${cannotGet('mallory', 'victim')}: spec.configSource names ConfigMap victim/team-b-kubelet, ${NAMING}`,
    then: async () => assert.equal((await admin.get<Node>('/api/v1/nodes/node-2')).spec?.configSource, undefined),
  },
  {
    who: USERS.mallory,
    tries: 'a paused rollout of kube-system/base-two',
    gets: 'created',
    as: 'mallory',
    kubectl: ['create', '-f', '-'],
    input: ncr('mine', `  paused: true\n  configSource: ${ref('kube-system', 'base-two')}\n`),
  },
  {
    who: USERS.mallory,
    tries: 'that rollout patched to layers ending in victim/app-secrets',
    gets: '403 naming spec.layers[1]',
    as: 'mallory',
    kubectl: [
      'patch',
      'ncr',
      'mine',
      '--type=merge',
      '-p',
      JSON.stringify({
        spec: { configSource: null, layers: [refJson('kube-system', 'base-two'), refJson('victim', 'app-secrets')] },
      }),
    ],
    refused: `nodeconfigrollouts.dkc.io "mine" is forbidden: ${cannotGet('mallory', 'victim')}: spec.layers[1] names ConfigMap victim/app-secrets, ${NAMING}`,
  },
  {
    who: USERS.mallory,
    tries: 'kubectl patch node node-2 onto victim/team-b-kubelet directly',
    gets: '403 naming spec.configSource',
    as: 'mallory',
    kubectl: [
      'patch',
      'node',
      'node-2',
      '-p',
      JSON.stringify({ spec: { configSource: refJson('victim', 'team-b-kubelet') } }),
    ],
    refused: `nodes "node-2" is forbidden: ${cannotGet('mallory', 'victim')}: spec.configSource names ConfigMap victim/team-b-kubelet, ${NAMING}`,
  },
  {
    who: USERS.rita,
    tries: 'a rollout of kube-system/base-two onto node-2',
    gets: '403: update on nodes/configsource, as for assigning directly',
    as: 'rita',
    kubectl: ['create', '-f', '-'],
    input: ncr('rita-base', `  configSource: ${ref('kube-system', 'base-two')}\n`, 'two'),
    refused: `nodeconfigrollouts.dkc.io "rita-base" is forbidden: ${cannotAssign('rita')}: a NodeConfigRollout assigns config to the nodes it selects, which requires update on nodes/configsource`,
  },
  {
    who: USERS.rita,
    tries: 'the same with kubectl 1.20',
    gets: 'the same 403',
    as: 'rita',
    version: '1.20',
    kubectl: ['create', '-f', '-'],
    input: ncr('rita-base', `  configSource: ${ref('kube-system', 'base-two')}\n`, 'two'),
    refused: `nodeconfigrollouts.dkc.io "rita-base" is forbidden: ${cannotAssign('rita')}: a NodeConfigRollout assigns config to the nodes it selects, which requires update on nodes/configsource`,
  },
  {
    who: USERS.rita,
    tries: "an operator's paused rollout pointed at node-2 (its nodeSelector)",
    gets: '403: update on nodes/configsource',
    as: 'rita',
    kubectl: [
      'patch',
      'ncr',
      'held',
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { nodeSelector: { matchLabels: { target: 'two' } } } }),
    ],
    refused: `nodeconfigrollouts.dkc.io "held" is forbidden: ${cannotAssign('rita')}: changing spec.nodeSelector of a NodeConfigRollout assigns config to nodes, which requires update on nodes/configsource`,
  },
  {
    who: USERS.rita,
    tries: 'undo of that rollout (spec.revert: true)',
    gets: '403: update on nodes/configsource (undo assigns the previous sources back)',
    as: 'rita',
    kubectl: ['patch', 'ncr', 'held', '--type=merge', '-p', '{"spec":{"revert":true}}'],
    refused: `nodeconfigrollouts.dkc.io "held" is forbidden: ${cannotAssign('rita')}: changing spec.revert of a NodeConfigRollout assigns config to nodes, which requires update on nodes/configsource`,
  },
  {
    who: USERS.rita,
    tries: "that rollout's strategy and maxFailures",
    gets: 'allowed: steering a rollout assigns nothing new',
    as: 'rita',
    kubectl: ['patch', 'ncr', 'held', '--type=merge', '-p', '{"spec":{"maxFailures":1,"strategy":{"canary":2}}}'],
  },
  {
    who: USERS.olivia,
    tries: 'a rollout of kube-system/base-two onto node-2',
    gets: 'created, and node-2 runs it',
    as: 'olivia',
    kubectl: ['create', '-f', '-'],
    input: ncr('olivia-base', `  configSource: ${ref('kube-system', 'base-two')}\n`, 'two'),
    then: async () => {
      await waitFor(
        'olivia-base Succeeded',
        async () => ((await rolloutPhase('olivia-base')) === 'Succeeded' ? true : undefined),
        90_000,
        200,
      );
      const node = await admin.get<Node>('/api/v1/nodes/node-2');
      // The rollout assigns its immutable copy of the mutable kube-system/base-two, named by its content.
      assert.match(node.status?.config?.active?.configMap?.name ?? '', /^olivia-base-[a-z0-9]{10}$/);
    },
  },
  {
    who: USERS.sam,
    tries: "olivia-base's status patched to Reverting with a previous source of victim/app-secrets for node-2",
    gets: "403: a rollout's status is the controller's; the rollout stays Succeeded and node-2 on its config",
    as: 'sam',
    kubectl: [
      'patch',
      'ncr',
      'olivia-base',
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({
        status: {
          phase: 'Reverting',
          nodes: {
            'node-2': {
              state: 'Failed',
              reason: 'ConfigError',
              updatedAt: '2026-01-01T00:00:00Z',
              previous: { configSource: refJson('victim', 'app-secrets') },
            },
          },
        },
      }),
    ],
    refused:
      'nodeconfigrollouts.dkc.io "olivia-base" is forbidden: the status of a NodeConfigRollout is the rollout ' +
      'controller\'s record of what it did and decides what it assigns next: only "system:dkc:controller" may write it',
    then: async () => {
      assert.equal(await rolloutPhase('olivia-base'), 'Succeeded');
      const node = await admin.get<Node>('/api/v1/nodes/node-2');
      assert.match(node.spec?.configSource?.configMap?.name ?? '', /^olivia-base-[a-z0-9]{10}$/);
    },
  },
];

/** Not a byte of this may show anywhere but in the ConfigMaps that hold it. */
const MARKER = 'SECRET-do-not-show-7f3a9c';
const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
/** ConfigMaps in kube-system (key kubelet) that are malformed or no KubeletConfiguration, each holding the marker. */
const LEAKY: Record<string, string> = {
  'leak-app-secrets': `password: ${MARKER}\napiKey: ${MARKER}\n`,
  'leak-secret-manifest': `apiVersion: v1\nkind: Secret\nstringData:\n  password: ${MARKER}\n`,
  'leak-json': `{"kind": "KubeletConfiguration", "token": "${MARKER}", "x": ${MARKER}}`,
  'leak-unterminated': `${HEADER}staticPodURL: "https://user:${MARKER}@example.com\n`,
  'leak-duration': `${HEADER}syncFrequency: ${MARKER}\n`,
  'leak-tag': `password: !${MARKER} x\n`,
};

const LEAK_TABLE: Array<{ who: string; tries: string; gets: string }> = [
  {
    who: 'an operator',
    tries: 'a layered rollout with each such ConfigMap as its base, and one with it as a drop-in',
    gets: 'Halted with RenderFailed naming the layer cm/kube-system/<name>:kubelet; the data in no condition or event',
  },
  {
    who: 'an operator',
    tries: 'kubectl patch node node-1 onto each such ConfigMap in turn',
    gets: "upstream's status.config.error and a KubeletConfigRejected event naming the ConfigMap; the data in neither",
  },
  {
    who: 'an operator',
    tries: 'a rollout with one as configSource onto node-2',
    gets: 'the node fails and the rollout stops; the data in no failure, condition or event',
  },
  {
    who: 'an operator',
    tries: 'dkc config lint cm/kube-system/<name> of each',
    gets: 'an error naming the ConfigMap, not its data',
  },
  {
    who: 'anyone who may read them',
    tries:
      'kubectl get/describe of rollouts, nodes and events; the agents’ logs (files and /logs/ through the node proxy); the server log; the audit log',
    gets: 'the data appears in none of them',
  },
];

let work: string;
let cluster: Cluster;
let admin: RestClient;
const kubeconfigs = new Map<User, string>();
const handles = new Map<string, Kubectl>();

async function kubectlAs(user: User, version: KubectlVersion = '1.32'): Promise<Kubectl> {
  const key = `${user}/${version}`;
  let k = handles.get(key);
  if (!k) {
    k = await kubectl(version, kubeconfigs.get(user)!);
    handles.set(key, k);
  }
  return k;
}

async function run(user: User, args: string[], input?: string, version?: KubectlVersion) {
  return (await kubectlAs(user, version)).run(args, input === undefined ? {} : { input });
}

async function rolloutPhase(name: string): Promise<string | undefined> {
  const r = await admin.get<{ status?: { phase?: string } }>(`/apis/dkc.io/v1alpha1/nodeconfigrollouts/${name}`);
  return r.status?.phase;
}

const RBAC = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: test-rollout-author}
rules:
- {apiGroups: [dkc.io], resources: [nodeconfigrollouts], verbs: [get, list, watch, create, update, patch, delete]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: test-config-assigner}
rules:
- {apiGroups: [""], resources: [nodes/configsource], verbs: [update]}
- {apiGroups: [""], resources: [nodes], verbs: [get, list, watch, patch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: test-configmap-reader}
rules:
- {apiGroups: [""], resources: [configmaps], verbs: [get, list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: test-rollout-status-writer}
rules:
- {apiGroups: [dkc.io], resources: [nodeconfigrollouts], verbs: [get, list, watch]}
- {apiGroups: [dkc.io], resources: [nodeconfigrollouts/status], verbs: [get, update, patch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: test-configmap-reader, namespace: kube-system}
rules:
- {apiGroups: [""], resources: [configmaps], verbs: [get, list, watch]}
${[
  ['mallory', 'ClusterRole', 'test-rollout-author'],
  ['mallory', 'ClusterRole', 'test-config-assigner'],
  ['mallory', 'Role', 'test-configmap-reader'],
  ['rita', 'ClusterRole', 'test-rollout-author'],
  ['rita', 'ClusterRole', 'test-configmap-reader'],
  ['olivia', 'ClusterRole', 'test-rollout-author'],
  ['olivia', 'ClusterRole', 'test-config-assigner'],
  ['olivia', 'Role', 'test-configmap-reader'],
  ['sam', 'ClusterRole', 'test-rollout-status-writer'],
]
  .map(
    ([user, kind, role]) => `---
apiVersion: rbac.authorization.k8s.io/v1
kind: ${kind}Binding
metadata: {name: ${user}-${role}${kind === 'Role' ? ', namespace: kube-system' : ''}}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ${kind}, name: ${role}}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: ${user}}]`,
  )
  .join('\n')}
`;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'dkc-security-refs-'));
  const tokens = join(work, 'tokens.csv');
  const users = ['mallory', 'rita', 'olivia', 'sam'] as const;
  await writeFile(tokens, users.map((u) => `token-${u}-0123456789,${u},uid-${u}`).join('\n') + '\n');
  cluster = await startCluster({
    dataDir: join(work, 'cluster'),
    nodes: 2,
    port: 0,
    serverArgs: ['--token-auth-file', tokens, '--audit-log-path', join(work, 'audit.log')],
  });
  admin = await RestClient.fromKubeconfig(cluster.kubeconfig, { timeoutMs: 10_000 });
  kubeconfigs.set('admin', cluster.kubeconfig);
  const caPem = await readFile(join(cluster.dataDir, 'pki', 'ca.crt'), 'utf8');
  for (const u of users) {
    const path = join(work, `${u}.kubeconfig`);
    await writeTokenKubeconfig(path, { server: cluster.serverURL, caPem, token: `token-${u}-0123456789`, user: u });
    kubeconfigs.set(u, path);
  }
  await waitForConfigz(admin, ['node-1', 'node-2']);
  const k = await kubectlAs('admin');
  await k.ok(['apply', '-f', '-'], { input: RBAC });
  await k.ok(['label', 'node', 'node-1', 'target=one']);
  await k.ok(['label', 'node', 'node-2', 'target=two']);
  await k.ok(['create', 'namespace', 'victim']);
  const victimLocal = await readFile(cluster.nodes[1]!.config, 'utf8');
  await k.ok(['create', 'configmap', 'app-secrets', '-n', 'victim', `--from-literal=kubelet=password: ${MARKER}\n`]);
  await k.ok([
    'create',
    'configmap',
    'team-b-kubelet',
    '-n',
    'victim',
    `--from-literal=kubelet=${victimLocal}maxPods: 17\n`,
  ]);
  await k.ok(['create', 'configmap', 'base-two', '-n', 'kube-system', `--from-literal=kubelet=${victimLocal}`]);
  for (const [name, data] of Object.entries(LEAKY))
    await k.ok(['create', 'configmap', name, '-n', 'kube-system', `--from-literal=kubelet=${data}`]);
  await k.ok(['create', '-f', '-'], {
    input: ncr('held', `  paused: true\n  configSource: ${ref('kube-system', 'base-two')}\n`),
  });
  // RBAC follows its objects through the watch cache: wait until each user's last binding is in force.
  for (const [u, verb, what] of [
    ['mallory', 'get', 'configmaps -n kube-system'],
    ['rita', 'get', 'configmaps -n victim'],
    ['olivia', 'get', 'configmaps -n kube-system'],
    ['sam', 'patch', 'nodeconfigrollouts --subresource=status'],
  ] as const) {
    await waitFor(
      `${u}'s bindings`,
      async () =>
        (await run(u, ['auth', 'can-i', verb, ...what.split(' ')])).stdout.trim() === 'yes' ? true : undefined,
      10_000,
      100,
    );
  }
});

after(async () => {
  admin?.close();
  for (const k of handles.values()) await k.cleanup();
  await cluster?.stop(5_000);
  if (work) await rm(work, { recursive: true, force: true });
});

describe('who may point config at which ConfigMaps', () => {
  for (const row of TABLE) {
    it(`${row.who} tries ${row.tries}: ${row.gets}`, async () => {
      const r = await run(row.as, row.kubectl, row.input, row.version);
      if (row.refused === undefined) {
        assert.equal(r.code, 0, r.stderr);
      } else {
        assert.notEqual(r.code, 0, `refused, not ${r.stdout}`);
        assert.match(r.stderr, /^Error from server \(Forbidden\): /);
        assert.ok(r.stderr.trimEnd().endsWith(row.refused), `${r.stderr}\nwanted …${row.refused}`);
      }
      await row.then?.();
    });
  }
});

describe("no surface quotes a ConfigMap's data", () => {
  const names = Object.keys(LEAKY);
  const layeredName = (name: string, i: number) => `${name}-l${i}`;

  it(LEAK_TABLE.map((r) => `${r.who} tries ${r.tries}: ${r.gets}`).join('; '), async () => {
    const k = await kubectlAs('admin');
    // Layered rollouts: each ConfigMap as the base, and as a drop-in over a good base.
    for (const name of names) {
      await k.ok(['create', '-f', '-'], {
        input: ncr(layeredName(name, 0), `  layers:\n  - ${ref('kube-system', name)}\n`),
      });
      await k.ok(['create', '-f', '-'], {
        input: ncr(
          layeredName(name, 1),
          `  layers:\n  - ${ref('kube-system', 'base-two')}\n  - ${ref('kube-system', name)}\n`,
        ),
      });
    }
    // node-1 pointed at each in turn, each rejected before the next.
    for (const name of names) {
      await k.ok([
        'patch',
        'node',
        'node-1',
        '-p',
        JSON.stringify({ spec: { configSource: refJson('kube-system', name) } }),
      ]);
      await waitFor(
        `node-1 rejects ${name}`,
        async () => {
          const events = await admin.list<{ items: Event[] }>('/api/v1/namespaces/default/events', {
            fieldSelector: 'involvedObject.name=node-1',
          });
          if (
            !events.items.some(
              (e) => e.reason === 'KubeletConfigRejected' && e.message?.includes(`ConfigMap kube-system/${name} `),
            )
          )
            return undefined;
          const config = (await admin.get<Node>('/api/v1/nodes/node-1')).status?.config;
          // upstream's string, which names no payload
          return config?.assigned?.configMap?.name === name &&
            config.error === 'failed to load config, see Kubelet log for details'
            ? true
            : undefined;
        },
        60_000,
        200,
      );
    }
    // A rollout onto node-2 of a ConfigMap that is no KubeletConfiguration.
    await k.ok(['create', '-f', '-'], {
      input: ncr('leak-source', `  configSource: ${ref('kube-system', 'leak-app-secrets')}\n`, 'two'),
    });
    await waitFor(
      'leak-source to stop',
      async () => (['Halted', 'Reverted'].includes((await rolloutPhase('leak-source')) ?? '') ? true : undefined),
      90_000,
      200,
    );
    for (const name of names) {
      for (const i of [0, 1]) {
        const r = await waitFor(
          `${layeredName(name, i)} halted`,
          async () => {
            const got = await admin.get<{
              status?: { phase?: string; conditions?: Array<{ reason?: string; message?: string }> };
            }>(`/apis/dkc.io/v1alpha1/nodeconfigrollouts/${layeredName(name, i)}`);
            return got.status?.phase === 'Halted' ? got : undefined;
          },
          30_000,
          100,
        );
        const failed = r.status?.conditions?.find((c) => c.reason === 'RenderFailed');
        assert.ok(
          failed?.message?.startsWith(
            `the layers cannot be rendered: cm/kube-system/${name}:kubelet: failed to decode: `,
          ),
          JSON.stringify(r.status),
        );
      }
    }

    // Every surface a person reads, through kubectl where a person would use it.
    const surfaces: Array<[string, string]> = [];
    for (const args of [
      ['get', 'ncr', '-o', 'yaml'],
      ['describe', 'ncr'],
      ['get', 'nodes', '-o', 'yaml'],
      ['describe', 'nodes'],
      ['get', 'events', '-A', '-o', 'yaml'],
      ['get', '--raw', '/api/v1/nodes/node-1/proxy/logs/agent.log'],
      ['get', '--raw', '/api/v1/nodes/node-2/proxy/logs/agent.log'],
    ]) {
      surfaces.push([`kubectl ${args.join(' ')}`, await k.ok(args)]);
    }
    for (const name of names) {
      const lint = await runDkc(['config', 'lint', `cm/kube-system/${name}`, '--kubeconfig', cluster.kubeconfig]);
      assert.notEqual(lint.code, 0);
      assert.match(lint.stderr + lint.stdout, new RegExp(`cm/kube-system/${name}:kubelet`));
      surfaces.push([`dkc config lint cm/kube-system/${name}`, lint.stdout + lint.stderr]);
    }
    const status = await runDkc(['rollout', 'status', 'leak-source', '--kubeconfig', cluster.kubeconfig]);
    surfaces.push(['dkc rollout status leak-source', status.stdout + status.stderr]);
    for (const n of cluster.nodes) surfaces.push([n.logFile, await readFile(n.logFile, 'utf8')]);
    surfaces.push(['server.log', await readFile(join(cluster.dataDir, 'server.log'), 'utf8')]);
    surfaces.push(['audit.log', await readFile(join(work, 'audit.log'), 'utf8')]);

    assert.ok(
      surfaces.find(([what]) => what === 'kubectl get events -A -o yaml')![1].includes('KubeletConfigRejected'),
      'the events were read',
    );
    const quoting = surfaces.filter(([, text]) => text.includes(MARKER));
    assert.deepEqual(
      quoting.map(([what]) => what),
      [],
      quoting
        .map(
          ([what, text]) =>
            `${what}: …${text.slice(Math.max(0, text.indexOf(MARKER) - 160), text.indexOf(MARKER) + 60)}…`,
        )
        .join('\n'),
    );
  });
});
