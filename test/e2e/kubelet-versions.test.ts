// A mixed fleet (`dkc up --nodes 3 --kubelet-version 1.22,1.30,1.32`) through kubectl 1.32 and `dkc rollout`: a
// config with a field that arrived after 1.30 (singleProcessOOMKill, 1.32) is refused at admission naming the 1.22 and
// 1.30 nodes, as a rollout and as a direct assignment; with skipIncompatible it reaches the 1.32 node only and the
// rollout reports the others; a config every kubelet can run reaches every node. `dkc config lint --against node/N`
// reads a config as node N's kubelet does.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Node } from '../../src/api/types.js';
import { RestClient } from '../../src/client/index.js';
import { defaultLocalConfig } from '../../src/agent/clusterconfig.js';
import { startCluster, type Cluster } from '../../src/up/cluster.js';
import { runDkc } from '../helpers/dkc.js';
import { kubectl, type Kubectl } from '../helpers/kubectl.js';
import { waitFor } from '../helpers/wait.js';

const NODES = ['node-1', 'node-2', 'node-3'];

let work = '';
let cluster: Cluster | undefined;
let admin: RestClient | undefined;
let k: Kubectl | undefined;

/** kube-system/`name` holding node-1's local config plus `extra`, created with kubectl. */
async function configMap(name: string, extra: string): Promise<void> {
  const local = await readFile(cluster!.nodes[0]!.config, 'utf8');
  const file = join(work, `${name}.yaml`);
  await writeFile(file, `${local.trimEnd()}\n${extra}\n`);
  await k!.ok(['create', 'configmap', name, '-n', 'kube-system', `--from-file=kubelet=${file}`]);
  // Immutable, so a rollout assigns it as it is (a mutable one it pins as a copy) and nodes show the name given here.
  await k!.ok(['patch', 'configmap', name, '-n', 'kube-system', '-p', '{"immutable":true}']);
}

const rolloutManifest = (name: string, configMapName: string, strategy: Record<string, unknown> = {}): string =>
  JSON.stringify({
    apiVersion: 'dkc.io/v1alpha1',
    kind: 'NodeConfigRollout',
    metadata: { name },
    spec: {
      configSource: { configMap: { namespace: 'kube-system', name: configMapName, kubeletConfigKey: 'kubelet' } },
      strategy: { maxUnavailable: 3, ...strategy },
    },
  });

const dkc = (...args: string[]) => runDkc([...args, '--kubeconfig', cluster!.kubeconfig], { timeoutMs: 90_000 });

/** Each node's assigned ConfigMap (spec.configSource), '' for its local config. */
async function assigned(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const n of NODES)
    out[n] = (await admin!.get<Node>(`/api/v1/nodes/${n}`)).spec?.configSource?.configMap?.name ?? '';
  return out;
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'dkc-kubelet-versions-'));
  cluster = await startCluster({
    dataDir: join(work, 'cluster'),
    nodes: 3,
    port: 0,
    kubeletVersions: ['1.22', '1.30', '1.32'],
    localConfig: defaultLocalConfig,
  });
  admin = await RestClient.fromKubeconfig(cluster.kubeconfig);
  k = await kubectl('1.32', cluster.kubeconfig);
  const versions = await waitFor(
    'three Ready nodes reporting their kubelet versions',
    async () => {
      const out = await k!.ok([
        'get',
        'nodes',
        '-o',
        'jsonpath={range .items[*]}{.metadata.name}={.status.nodeInfo.kubeletVersion}={.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}',
      ]);
      const lines = out.trim().split('\n').filter(Boolean).sort();
      return lines.length === 3 && lines.every((l) => l.endsWith('=True')) ? lines : undefined;
    },
    30_000,
  );
  assert.deepEqual(versions, ['node-1=v1.22.0=True', 'node-2=v1.30.0=True', 'node-3=v1.32.0=True']);
  await configMap('oomkill', 'singleProcessOOMKill: true');
  await configMap('everywhere', 'eventRecordQPS: 7');
});

after(async () => {
  admin?.close();
  await k?.cleanup();
  await cluster?.stop(5_000);
  if (work) await rm(work, { recursive: true, force: true });
});

describe('rollouts on a fleet of kubelets 1.22, 1.30 and 1.32', { concurrency: false }, () => {
  const refusal =
    'kubelet 1.22 (node-1): unknown field singleProcessOOMKill; kubelet 1.30 (node-2): unknown field singleProcessOOMKill';

  it('a config with a 1.32 field is refused, naming the 1.22 and 1.30 nodes, by kubectl and by dkc rollout start', async () => {
    const r = await k!.run(['create', '-f', '-'], { input: rolloutManifest('oomkill', 'oomkill') });
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr.trim(),
      'Error from server (Forbidden): error when creating "STDIN": nodeconfigrollouts.dkc.io "oomkill" is forbidden: ' +
        `the config does not suit the kubelet of some selected nodes: ${refusal}; set spec.strategy.skipIncompatible to leave them out`,
    );
    const d = await dkc('rollout', 'start', 'oomkill', '--configmap', 'kube-system/oomkill', '--max-unavailable', '3');
    assert.equal(d.code, 5); // refused by the API server (docs/errors.md)
    assert.match(
      d.stderr,
      /^Error from server \(Forbidden\): nodeconfigrollouts.dkc.io "oomkill" is forbidden: .*kubelet 1.22 \(node-1\): unknown field singleProcessOOMKill; kubelet 1.30 \(node-2\)/,
    );
    // Nor may it be assigned to the 1.22 node directly.
    const p = await k!.run([
      'patch',
      'node',
      'node-1',
      '-p',
      JSON.stringify({
        spec: {
          configSource: { configMap: { namespace: 'kube-system', name: 'oomkill', kubeletConfigKey: 'kubelet' } },
        },
      }),
    ]);
    assert.equal(p.code, 1);
    assert.equal(
      p.stderr.trim(),
      'Error from server (Forbidden): nodes "node-1" is forbidden: the config does not suit the node\'s kubelet: kubelet 1.22 (node-1): unknown field singleProcessOOMKill',
    );
    assert.deepEqual(await assigned(), { 'node-1': '', 'node-2': '', 'node-3': '' });
  });

  it('with --skip-incompatible it succeeds on the 1.32 node and reports the 1.22 and 1.30 nodes', async () => {
    const start = await dkc(
      'rollout',
      'start',
      'oomkill',
      '--configmap',
      'kube-system/oomkill',
      '--max-unavailable',
      '3',
      '--skip-incompatible',
    );
    assert.equal(start.code, 0, start.stderr);
    const status = await dkc('rollout', 'status', 'oomkill', '--watch', '--timeout', '60s');
    assert.equal(status.code, 0, status.stdout + status.stderr);
    assert.match(
      status.stdout,
      /^node node-1 left out: its kubelet 1.22 cannot run the config \(unknown field singleProcessOOMKill\)$/m,
    );
    assert.match(
      status.stdout,
      /^node node-2 left out: its kubelet 1.30 cannot run the config \(unknown field singleProcessOOMKill\)$/m,
    );
    assert.match(
      status.stdout,
      /^nodeconfigrollout "oomkill" successfully rolled out \(1 of 1 nodes succeeded, 2 left out as incompatible\)$/m,
    );
    const left = await k!.ok([
      'get',
      'ncr',
      'oomkill',
      '-o',
      'jsonpath={range .status.incompatible[*]}{.node}={.kubeletVersion}{"\\n"}{end}',
    ]);
    assert.deepEqual(left.trim().split('\n'), ['node-1=1.22', 'node-2=1.30']);
    assert.equal(
      await k!.ok(['get', 'ncr', 'oomkill', '-o', 'jsonpath={.status.failedNodes}/{.status.incompatibleNodes}']),
      '0/2',
    );
    assert.deepEqual(await assigned(), { 'node-1': '', 'node-2': '', 'node-3': 'oomkill' });
    const configz = JSON.parse(await k!.ok(['get', '--raw', '/api/v1/nodes/node-3/proxy/configz'])) as {
      kubeletconfig: Record<string, unknown>;
    };
    assert.equal(configz.kubeletconfig['singleProcessOOMKill'], true);
  });

  it('a config every kubelet can run succeeds on every node', async () => {
    await k!.ok(['create', '-f', '-'], { input: rolloutManifest('everywhere', 'everywhere') });
    const status = await dkc('rollout', 'status', 'everywhere', '--watch', '--timeout', '60s');
    assert.equal(status.code, 0, status.stdout + status.stderr);
    assert.match(status.stdout, /^nodeconfigrollout "everywhere" successfully rolled out \(3 of 3 nodes succeeded\)$/m);
    assert.doesNotMatch(status.stdout, /left out/);
    assert.deepEqual(await assigned(), { 'node-1': 'everywhere', 'node-2': 'everywhere', 'node-3': 'everywhere' });
  });

  it("dkc config lint --against node/N reads the config as node N's kubelet: unknown to 1.22, a change on 1.32 (from unset: its default depends on the cgroup version)", async () => {
    const file = join(work, 'oomkill-lint.yaml');
    await writeFile(
      file,
      'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nsingleProcessOOMKill: true\n',
    );
    const old = await dkc('config', 'lint', file, '--against', 'node/node-1');
    assert.equal(old.code, 0, old.stderr);
    assert.equal(old.stderr, `${file}: warning: unknown field "singleProcessOOMKill"\n`);
    assert.doesNotMatch(old.stdout, /singleProcessOOMKill/);
    const current = await dkc('config', 'lint', file, '--against', 'node/node-3');
    assert.equal(current.code, 0, current.stderr);
    assert.equal(current.stderr, '');
    assert.match(current.stdout, /^disruptive singleProcessOOMKill: \(unset\) -> true {2}\(/m);
  });
});
