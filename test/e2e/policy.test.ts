// NodeConfigPolicy and the nodes/configsource permission through real kubectl 1.32 and 1.20 on a real local cluster
// (a server and two agents, as `dkc up` runs them). node-1 is in pool blue (a Deny policy), node-2 in pool green (a
// Warn policy). Most ConfigMaps are the node's own /configz with one change, so that the only differences a policy
// sees are the ones a test makes; node-1 never leaves its local config for long, so its old values come from
// /configz. The fleet-wide ConfigMaps are what an operator writes instead: the local config file with a change, which
// the node's flags (address, ports, a feature gate) override; and the orders of requests that once went past
// admission are each refused, or left by the agent.

import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RestClient } from '../../src/client/index.js';
import { ensureClusterPKI, issueCert, writeKubeconfig } from '../../src/pki/index.js';
import { startCluster, type Cluster } from '../../src/up/cluster.js';
import { runDkc } from '../helpers/dkc.js';
import { kubectl, type Kubectl, type KubectlVersion } from '../helpers/kubectl.js';
import { waitFor } from '../helpers/wait.js';

const NS = '/api/v1/namespaces/kube-system/configmaps';
const VERSIONS: KubectlVersion[] = ['1.32', '1.20'];

let dir: string;
let cluster: Cluster;
let admin: RestClient;
let ca: { certPem: string; keyPem: string };
const handles: Kubectl[] = [];

type Config = Record<string, unknown>;
const configz = new Map<string, Config>();

const source = (name: string | null) => ({
  spec: { configSource: name ? { configMap: { namespace: 'kube-system', name, kubeletConfigKey: 'kubelet' } } : null },
});
const patchArg = (name: string) => JSON.stringify(source(name));

/** A ConfigMap holding the node's running config with `changes` laid over it. */
async function configMap(name: string, node: string, changes: Config): Promise<void> {
  const body = {
    kind: 'KubeletConfiguration',
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    ...configz.get(node),
    ...changes,
  };
  await admin.create(NS, { metadata: { name }, data: { kubelet: JSON.stringify(body) } });
}

/** A drop-in layer: only the fields it sets. */
async function dropIn(name: string, changes: Config): Promise<void> {
  await admin.create(NS, {
    metadata: { name },
    data: {
      kubelet: JSON.stringify({
        kind: 'KubeletConfiguration',
        apiVersion: 'kubelet.config.k8s.io/v1beta1',
        ...changes,
      }),
    },
  });
}

type NodeStatus = { status?: { config?: { active?: { configMap?: { name?: string } } } } };

/** Waits until the node runs `name` (undefined: its local config) and answers on /configz again. */
async function waitActive(node: string, name: string | undefined): Promise<void> {
  await waitFor(
    `${node} running ${name ?? 'its local config'}`,
    async () =>
      (await admin.get<NodeStatus>(`/api/v1/nodes/${node}`)).status?.config?.active?.configMap?.name === name
        ? true
        : undefined,
    60_000,
    100,
  );
  await waitFor(`${node}'s /configz`, async () => admin.get(`/api/v1/nodes/${node}/proxy/configz`), 30_000, 100);
}

/** An accepted assignment runs, and the node goes back to its local config for the next test. */
async function runsThenReset(node: string, name: string): Promise<void> {
  await waitActive(node, name);
  await admin.patch(`/api/v1/nodes/${node}`, 'merge', source(null));
  await waitActive(node, undefined);
}

async function userKubeconfig(name: string, organizations: string[] = []): Promise<string> {
  const cert = await issueCert(ca, { commonName: name, organizations, usages: ['client'] });
  const path = join(dir, `${name}.kubeconfig`);
  await writeKubeconfig(path, {
    server: cluster.serverURL,
    caPem: ca.certPem,
    certPem: cert.certPem,
    keyPem: cert.keyPem,
    user: name,
  });
  return path;
}

async function kubectlFor(version: KubectlVersion, kubeconfig: string): Promise<Kubectl> {
  const k = await kubectl(version, kubeconfig);
  handles.push(k);
  return k;
}

const POLICIES = `apiVersion: dkc.io/v1alpha1
kind: NodeConfigPolicy
metadata: {name: blue-deny}
spec:
  nodeSelector: {matchLabels: {pool: blue}}
  allowedFields: [maxPods, "evictionHard.*", eventRecordQPS]
  bounds: {maxPods: {minimum: 10, maximum: 250}}
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
`;

const DENIED_OVER =
  'nodes "node-1" is forbidden: NodeConfigPolicy "blue-deny" denies the config change on node "node-1": containerLogMaxFiles: 5 -> 7 (not in allowedFields), maxPods: 110 -> 300 (above the maximum 250)';

const rollout = (name: string, spec: string) => `apiVersion: dkc.io/v1alpha1
kind: NodeConfigRollout
metadata: {name: ${name}}
spec:
  nodeSelector: {matchLabels: {pool: blue}}
${spec}`;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dkc-policy-'));
  cluster = await startCluster({ dataDir: dir, nodes: 2, port: 0 });
  const pki = await ensureClusterPKI(join(dir, 'pki'));
  ca = { certPem: pki.ca.certPem, keyPem: pki.ca.keyPem! };
  admin = await RestClient.fromKubeconfig(cluster.kubeconfig, { timeoutMs: 10_000 });
  for (const [node, pool] of [
    ['node-1', 'blue'],
    ['node-2', 'green'],
  ] as const) {
    await waitFor(
      `${node} reports status.config`,
      async () =>
        (await admin.get<{ status?: { config?: unknown } }>(`/api/v1/nodes/${node}`)).status?.config ? true : undefined,
      30_000,
      100,
    );
    await admin.patch(`/api/v1/nodes/${node}`, 'merge', { metadata: { labels: { pool } } });
    const body = await waitFor(
      `${node}'s /configz`,
      async () => admin.get<{ kubeletconfig: Config }>(`/api/v1/nodes/${node}/proxy/configz`).catch(() => undefined),
      30_000,
      100,
    );
    configz.set(node, body.kubeletconfig);
  }
  await configMap('over', 'node-1', { maxPods: 300, containerLogMaxFiles: 7 });
  await configMap('low', 'node-1', { maxPods: 5 });
  await configMap('within', 'node-1', { maxPods: 200 });
  await dropIn('layer-maxpods', { maxPods: 300 });
  await configMap('warn-1.32', 'node-2', { maxPods: 200 });
  await configMap('warn-1.20', 'node-2', { maxPods: 180 });
  for (const [version, maxPods] of [
    ['1.32', 120],
    ['1.20', 130],
  ] as const) {
    await configMap(`free-${version}`, 'node-1', { maxPods });
    await configMap(`ops-${version}`, 'node-2', { maxPods });
  }
  await mkdir(join(dir, 'tmp'));
});

after(async () => {
  admin?.close();
  for (const k of handles) await k.cleanup();
  await cluster?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('with no NodeConfigPolicy nothing changes', () => {
  for (const version of VERSIONS) {
    it(`kubectl ${version}: an assignment and a rollout go through without a word`, async () => {
      const k = await kubectlFor(version, cluster.kubeconfig);
      const patched = await k.run(['patch', 'node', 'node-1', '-p', patchArg(`free-${version}`)]);
      assert.equal(patched.code, 0, patched.stderr);
      assert.equal(patched.stderr, '');
      await runsThenReset('node-1', `free-${version}`);
      // Paused, so that the controller changes no node; kubectl 1.20 offers no server dry run for this kind.
      const name = `free-${version.replace('.', '-')}`;
      const r = await k.run(['create', '-f', '-'], {
        input: rollout(
          name,
          '  paused: true\n  configSource: {configMap: {namespace: kube-system, name: over, kubeletConfigKey: kubelet}}\n',
        ),
      });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr, '');
      await k.ok(['delete', 'ncr', name]);
    });
  }
});

describe('NodeConfigPolicy', () => {
  before(async () => {
    const k = await kubectlFor('1.32', cluster.kubeconfig);
    await k.ok(['apply', '-f', '-'], { input: POLICIES });
    assert.match(
      await k.ok(['get', 'ncp']),
      /^NAME\s+ENFORCEMENT\s+AGE\nblue-deny\s+Deny\s+\S+\ngreen-warn\s+Warn\s+\S+\n$/,
    );
  });

  let warnOld = 110;
  for (const version of VERSIONS) {
    describe(`kubectl ${version}`, () => {
      let k: Kubectl;
      before(async () => {
        k = await kubectlFor(version, cluster.kubeconfig);
      });

      it('Deny: patch is refused with 403 naming the policy and each field with old and new value', async () => {
        const r = await k.run(['patch', 'node', 'node-1', '-p', patchArg('over')]);
        assert.notEqual(r.code, 0);
        assert.equal(r.stderr.trim(), `Error from server (Forbidden): ${DENIED_OVER}`);
        const node = await admin.get<{ spec: { configSource?: unknown } }>('/api/v1/nodes/node-1');
        assert.equal(node.spec.configSource, undefined);
      });

      it('Deny: bounds, below the minimum; within them the change passes', async () => {
        const low = await k.run(['patch', 'node', 'node-1', '-p', patchArg('low')]);
        assert.notEqual(low.code, 0);
        assert.match(
          low.stderr,
          /NodeConfigPolicy "blue-deny" denies the config change on node "node-1": maxPods: 110 -> 5 \(below the minimum 10\)\n$/,
        );
        const within = await k.run(['patch', 'node', 'node-1', '-p', patchArg('within')]);
        assert.equal(within.code, 0, within.stderr);
        assert.equal(within.stderr, '');
        await runsThenReset('node-1', 'within');
      });

      it('Deny: kubectl edit is refused the same way', async () => {
        const editor = join(dir, 'edit.mjs');
        await writeFile(
          editor,
          [
            "import { readFileSync, writeFileSync } from 'node:fs';",
            'const file = process.argv[2];',
            "const obj = JSON.parse(readFileSync(file, 'utf8').replace(/^#.*$/gm, ''));",
            `obj.spec = { ...obj.spec, ...${JSON.stringify(source('over').spec)} };`,
            'writeFileSync(file, JSON.stringify(obj, null, 2));',
            '',
          ].join('\n'),
        );
        const r = await k.run(['edit', 'node', 'node-1', '-o', 'json'], {
          env: { KUBE_EDITOR: `${process.execPath} ${editor}`, TMPDIR: join(dir, 'tmp') },
        });
        assert.notEqual(r.code, 0);
        assert.ok(r.stderr.includes(DENIED_OVER), r.stderr);
      });

      it('Deny: kubectl apply is refused the same way', async () => {
        const manifest = `apiVersion: v1\nkind: Node\nmetadata:\n  name: node-1\n  labels: {pool: blue}\nspec:\n  configSource: {configMap: {namespace: kube-system, name: over, kubeletConfigKey: kubelet}}\n`;
        const r = await k.run(['apply', '-f', '-'], { input: manifest });
        assert.notEqual(r.code, 0);
        assert.ok(r.stderr.includes(DENIED_OVER), r.stderr);
      });

      it('Deny: a NodeConfigRollout that would violate it is refused, with configSource or with layers', async () => {
        const suffix = version.replace('.', '-');
        const direct = await k.run(['apply', '-f', '-'], {
          input: rollout(
            `over-${suffix}`,
            '  configSource: {configMap: {namespace: kube-system, name: over, kubeletConfigKey: kubelet}}\n',
          ),
        });
        assert.notEqual(direct.code, 0);
        assert.ok(
          direct.stderr.includes(
            `nodeconfigrollouts.dkc.io "over-${suffix}" is forbidden: NodeConfigPolicy "blue-deny" denies the config change on node "node-1": containerLogMaxFiles: 5 -> 7`,
          ),
          direct.stderr,
        );
        const layers =
          '  layers:\n  - configMap: {namespace: kube-system, name: within, kubeletConfigKey: kubelet}\n  - configMap: {namespace: kube-system, name: layer-maxpods, kubeletConfigKey: kubelet}\n';
        const layered = await k.run(['create', '-f', '-'], { input: rollout(`layered-${suffix}`, layers) });
        assert.notEqual(layered.code, 0);
        assert.match(
          layered.stderr,
          /denies the config change on node "node-1": maxPods: 110 -> 300 \(above the maximum 250\)\n$/,
        );
        assert.equal((await k.run(['get', 'ncr', `layered-${suffix}`])).code, 1, 'nothing was stored');
      });

      it('Warn: the change applies and kubectl prints each violation as a Warning', async () => {
        const cm = `warn-${version}`;
        const next = version === '1.32' ? 200 : 180;
        const r = await k.run(['patch', 'node', 'node-2', '-p', patchArg(cm)]);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(
          r.stderr,
          `Warning: NodeConfigPolicy "green-warn" (Warn) on node "node-2": maxPods: ${warnOld} -> ${next} (above the maximum 150)\n`,
        );
        assert.match(r.stdout, /node\/node-2 patched/);
        await waitActive('node-2', cm);
        warnOld = next;
      });
    });
  }
});

describe("the node's flags hold their fields, and the order of requests does not matter", () => {
  let k: Kubectl;
  let local: string;
  /** A ConfigMap holding node-1's local config file with `extra` lines: what an operator writes for a whole fleet. */
  const fleetMap = (name: string, extra: string) =>
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'kube-system' },
      data: { kubelet: `${local.trimEnd()}\n${extra}\n` },
    });
  /** kubectl's line for a refused request; `when` is what create and replace put before the server's message. */
  const denied = (kind: string, name: string, clause: string, when = '') =>
    `Error from server (Forbidden): ${when}${kind} "${name}" is forbidden: NodeConfigPolicy "blue-deny" denies the config change on node "node-1": ${clause}`;
  const dkc = (...args: string[]) =>
    runDkc(args, { env: { ...process.env, KUBECONFIG: cluster.kubeconfig, HOME: dir } });
  const nodeStatus = async () =>
    (
      await admin.get<{ status?: { config?: { active?: { configMap?: { name?: string } }; error?: string } } }>(
        '/api/v1/nodes/node-1',
      )
    ).status?.config;

  before(async () => {
    k = await kubectlFor('1.32', cluster.kubeconfig);
    local = await readFile(cluster.nodes[0]!.config, 'utf8');
  });

  it('the agent records its config flags on its Node, and no one else may change them', async () => {
    const n = cluster.nodes[0]!;
    const record = JSON.parse(
      await k.ok(['get', 'node', 'node-1', '-o', 'jsonpath={.metadata.annotations.dkc\\.io/config-flags}']),
    ) as { flags: string[] };
    assert.deepEqual(record, {
      flags: [
        '--address=127.0.0.1',
        `--port=${n.port}`,
        `--healthz-port=${n.healthzPort}`,
        '--healthz-bind-address=127.0.0.1',
        '--feature-gates=DynamicKubeletConfig=true',
      ],
    });
    const refused =
      'Error from server (Forbidden): nodes "node-1" is forbidden: only node "node-1" may set the annotation dkc.io/config-flags on its Node';
    const forged = await k.run([
      'annotate',
      'node',
      'node-1',
      '--overwrite',
      `dkc.io/config-flags={"flags":["--max-pods=300"]}`,
    ]);
    assert.deepEqual([forged.code, forged.stderr.trim()], [1, refused]);
    const removed = await k.run(['annotate', 'node', 'node-1', 'dkc.io/config-flags-']);
    assert.deepEqual([removed.code, removed.stderr.trim()], [1, refused]);
  });

  it('a fleet-wide ConfigMap (the local config plus eventRecordQPS) under allowedFields [eventRecordQPS]: lint, diff and admission agree', async () => {
    await k.ok(['apply', '-f', '-'], {
      input:
        'apiVersion: dkc.io/v1alpha1\nkind: NodeConfigPolicy\nmetadata: {name: fleet-qps}\nspec:\n  nodeSelector: {matchLabels: {pool: blue}}\n  allowedFields: [eventRecordQPS]\n',
    });
    await k.ok(['create', '-f', '-'], { input: fleetMap('fleet-wide', 'eventRecordQPS: 7') });
    await k.ok(['create', '-f', '-'], { input: fleetMap('fleet-pods', 'eventRecordQPS: 7\nmaxPods: 120') });
    const lint = await dkc('config', 'lint', 'cm/kube-system/fleet-wide', '--against', 'node/node-1');
    assert.equal(lint.code, 0, lint.stderr);
    assert.deepEqual(
      lint.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.replace(/\s+\(.*$/, '')),
      ['safe       eventRecordQPS: 5 -> 7'],
    );
    const diff = await dkc('config', 'diff', 'node/node-1', 'cm/kube-system/fleet-wide');
    assert.deepEqual([diff.code, diff.stdout], [1, '- eventRecordQPS: 5\n+ eventRecordQPS: 7\n']);
    const lintPods = await dkc('config', 'lint', 'cm/kube-system/fleet-pods', '--against', 'node/node-1', '-o', 'json');
    assert.deepEqual(
      (JSON.parse(lintPods.stdout) as { changes: { path: string }[] }).changes.map((c) => c.path),
      ['eventRecordQPS', 'maxPods'],
    );
    const refused = await k.run(['patch', 'node', 'node-1', '-p', patchArg('fleet-pods')]);
    assert.equal(
      refused.stderr.trim(),
      'Error from server (Forbidden): nodes "node-1" is forbidden: NodeConfigPolicy "fleet-qps" denies the config change on node "node-1": maxPods: 110 -> 120 (not in allowedFields)',
    );
    const r = await k.run(['create', '-f', '-'], {
      input: rollout(
        'fleet-wide',
        '  paused: true\n  configSource: {configMap: {namespace: kube-system, name: fleet-wide, kubeletConfigKey: kubelet}}\n',
      ),
    });
    assert.deepEqual([r.code, r.stderr], [0, '']);
    await k.ok(['delete', 'ncr', 'fleet-wide']);
    const patched = await k.run(['patch', 'node', 'node-1', '-p', patchArg('fleet-wide')]);
    assert.deepEqual([patched.code, patched.stderr], [0, '']);
    await waitActive('node-1', 'fleet-wide');
    assert.equal((await nodeStatus())?.error, undefined, 'the agent judges it the same way');
    await runsThenReset('node-1', 'fleet-wide');
    await k.ok(['delete', 'ncp', 'fleet-qps']);
  });

  it('(a) a ConfigMap assigned before it exists: creating it with a denied field is refused', async () => {
    assert.equal(
      (await k.run(['patch', 'node', 'node-1', '-p', patchArg('late')])).code,
      0,
      'a missing target is no policy matter',
    );
    const r = await k.run(['create', '-f', '-'], { input: fleetMap('late', 'containerLogMaxFiles: 7') });
    assert.deepEqual(
      [r.code, r.stderr.trim()],
      [
        1,
        denied(
          'configmaps',
          'late',
          'containerLogMaxFiles: 5 -> 7 (not in allowedFields)',
          'error when creating "STDIN": ',
        ),
      ],
    );
    assert.equal((await k.run(['get', 'cm', '-n', 'kube-system', 'late'])).code, 1, 'nothing was stored');
    await admin.patch('/api/v1/nodes/node-1', 'merge', source(null));
  });

  it('(c) an allowed ConfigMap the node runs: kubectl replace with a denied field is refused, the node keeps it', async () => {
    await k.ok(['create', '-f', '-'], { input: fleetMap('replaced', 'eventRecordQPS: 7') });
    await k.ok(['patch', 'node', 'node-1', '-p', patchArg('replaced')]);
    await waitActive('node-1', 'replaced');
    const file = join(dir, 'replaced.json');
    await writeFile(file, fleetMap('replaced', 'eventRecordQPS: 7\ncontainerLogMaxFiles: 7'));
    const r = await k.run(['replace', '-f', file]);
    assert.deepEqual(
      [r.code, r.stderr.trim()],
      [
        1,
        denied(
          'configmaps',
          'replaced',
          'containerLogMaxFiles: 5 -> 7 (not in allowedFields)',
          `error when replacing "${file}": `,
        ),
      ],
    );
    await k.ok(['label', 'cm', '-n', 'kube-system', 'replaced', 'checked=yes']);
    assert.equal((await nodeStatus())?.error, undefined);
    await runsThenReset('node-1', 'replaced');
  });

  it('(b) the label taken away and a config assigned: giving the label back is refused out of bounds; within them the agent leaves a denied field', async () => {
    await k.ok(['create', '-f', '-'], { input: fleetMap('big', 'maxPods: 300') });
    await k.ok(['create', '-f', '-'], { input: fleetMap('files', 'containerLogMaxFiles: 7') });
    await k.ok(['label', 'node', 'node-1', 'pool-']);
    await k.ok(['patch', 'node', 'node-1', '-p', patchArg('big')]);
    await waitActive('node-1', 'big');
    const r = await k.run(['label', 'node', 'node-1', 'pool=blue']);
    assert.deepEqual(
      [r.code, r.stderr.trim()],
      [1, denied('nodes', 'node-1', 'maxPods: 300 -> 300 (above the maximum 250)')],
    );
    await k.ok(['patch', 'node', 'node-1', '-p', patchArg('files')]);
    await waitActive('node-1', 'files');
    await k.ok(['label', 'node', 'node-1', 'pool=blue']);
    await waitFor(
      'node-1 leaving files',
      async () => {
        const s = await nodeStatus();
        return s?.error === 'config denied by NodeConfigPolicy "blue-deny", see Kubelet log for details' &&
          s.active?.configMap?.name !== 'files'
          ? true
          : undefined;
      },
      60_000,
      100,
    );
    await waitFor('node-1 /configz', () => admin.get('/api/v1/nodes/node-1/proxy/configz'), 30_000, 100);
    assert.equal(
      (await admin.get<{ kubeletconfig: { containerLogMaxFiles: number } }>('/api/v1/nodes/node-1/proxy/configz'))
        .kubeletconfig.containerLogMaxFiles,
      5,
    );
    await admin.patch('/api/v1/nodes/node-1', 'merge', source(null));
    await waitActive('node-1', undefined);
  });
});

describe('nodes/configsource: a permission of its own', () => {
  before(async () => {
    const k = await kubectlFor('1.32', cluster.kubeconfig);
    await k.ok(['create', 'clusterrolebinding', 'eddie-edit', '--clusterrole=edit', '--user=eddie']);
    await k.ok(['create', 'clusterrole', 'node-labeler', '--verb=get,list,patch', '--resource=nodes']);
    await k.ok(['create', 'clusterrolebinding', 'eddie-labels', '--clusterrole=node-labeler', '--user=eddie']);
    await k.ok(['delete', 'ncp', '--all']);
  });

  for (const version of VERSIONS) {
    it(`kubectl ${version}: auth can-i answers for masters, the operator group, edit and a node`, async () => {
      const canI = async (kubeconfig: string) => {
        const k = await kubectlFor(version, kubeconfig);
        return (await k.run(['auth', 'can-i', 'update', 'nodes', '--subresource=configsource'])).stdout.trim();
      };
      assert.equal(await canI(cluster.kubeconfig), 'yes');
      assert.equal(await canI(await userKubeconfig(`oscar-${version}`, ['dkc:node-config-operators'])), 'yes');
      const eddie = await userKubeconfig('eddie');
      await waitFor(
        'eddie’s bindings in force',
        async () =>
          (await (await kubectlFor(version, eddie)).run(['auth', 'can-i', 'patch', 'nodes'])).stdout.trim() === 'yes'
            ? true
            : undefined,
        10_000,
        100,
      );
      assert.equal(await canI(eddie), 'no');
      assert.equal(await canI(cluster.nodes[0]!.kubeconfig), 'no');
    });

    it(`kubectl ${version}: a user with edit and node patch labels the node but cannot assign config`, async () => {
      const k = await kubectlFor(version, await userKubeconfig('eddie'));
      await k.ok(['label', 'node', 'node-2', `team=t${version.replace('.', '')}`, '--overwrite']);
      const r = await k.run(['patch', 'node', 'node-2', '-p', patchArg(`ops-${version}`)]);
      assert.notEqual(r.code, 0);
      assert.equal(
        r.stderr.trim(),
        'Error from server (Forbidden): nodes "node-2" is forbidden: User "eddie" cannot update resource "nodes/configsource" in API group "" at the cluster scope: changing spec.configSource requires update on nodes/configsource',
      );
      const ops = await kubectlFor(version, await userKubeconfig(`olga-${version}`, ['dkc:node-config-operators']));
      const allowed = await ops.run(['patch', 'node', 'node-2', '-p', patchArg(`ops-${version}`)]);
      assert.equal(allowed.code, 0, allowed.stderr);
      await waitActive('node-2', `ops-${version}`);
    });
  }
});
