// Who can make a revert assign a config: the rollout controller keeps what each node ran before a rollout changed it
// in the rollout's status, where only the controller writes, and restores nothing else. A node (which may write its
// own annotations and status) and a user who may patch nodes (but not nodes/configsource) try to steer an undo or a
// failure revert to a ConfigMap they may not read, on a real cluster (`dkc up`'s two agents with their node
// certificates), through kubectl and `dkc rollout`.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Node } from '../../src/api/types.js';
import { RestClient } from '../../src/client/index.js';
import {
  LEGACY_PREVIOUS_SOURCE_ANNOTATION,
  ROLLOUT_ANNOTATION,
  type NodeConfigRollout,
} from '../../src/api/dkc/rollout.js';
import { ensureClusterPKI, issueCert, writeKubeconfig } from '../../src/pki/index.js';
import { startCluster, type Cluster } from '../../src/up/cluster.js';
import { runDkc } from '../helpers/dkc.js';
import { kubectl, type Kubectl } from '../helpers/kubectl.js';
import { kubeletConfigMap } from '../helpers/nodeconfig.js';
import { waitFor } from '../helpers/wait.js';

interface Row {
  who: string;
  tries: string;
  gets: string;
  run: () => Promise<void>;
}

const TABLE: Row[] = [
  {
    who: 'node-1, with its own node certificate',
    tries: `annotates itself ${LEGACY_PREVIOUS_SOURCE_ANNOTATION}: victim/app-secrets and reports an error for the rollout's config, so the rollout reverts it`,
    gets: 'reverted to its local config, what it really ran before; victim/app-secrets stays unreadable to it (403)',
    run: nodeSteersItsOwnRevert,
  },
  {
    who: 'mallory, who may get, list and patch nodes',
    tries: 'assigns victim/app-secrets to node-2 directly (spec.configSource)',
    gets: '403: changing spec.configSource requires update on nodes/configsource',
    run: patcherAssignsDirectly,
  },
  {
    who: 'mallory',
    tries: `annotates node-2 ${LEGACY_PREVIOUS_SOURCE_ANNOTATION}: victim/app-secrets after a rollout changed it; the operator runs dkc rollout undo`,
    gets: 'node-2 back on its local config, what it really ran before',
    run: patcherSteersAnUndo,
  },
  {
    who: 'mallory',
    tries: `marks node-2 (on the rollout's config by the operator's hand) as changed by the rollout (${ROLLOUT_ANNOTATION}), with a previous source of victim/app-secrets; the operator undoes the rollout`,
    gets: 'node-2 left on its config and reported NotRestored: the rollout has no record of changing it',
    run: patcherClaimsANodeForARollout,
  },
];

const VICTIM = { configMap: { namespace: 'victim', name: 'app-secrets', kubeletConfigKey: 'kubelet' } };
const SOURCE = (name: string) => ({ configMap: { namespace: 'kube-system', name, kubeletConfigKey: 'kubelet' } });

let work = '';
let cluster: Cluster | undefined;
let admin: RestClient;
let operator: Kubectl;
let node1: Kubectl;
let mallory: Kubectl;

async function sourceOf(name: string): Promise<unknown> {
  const n = JSON.parse(await operator.ok(['get', 'node', name, '-o', 'json'])) as Node;
  return n.spec?.configSource ?? null;
}

async function rolloutNamed(name: string): Promise<NodeConfigRollout> {
  return JSON.parse(await operator.ok(['get', 'ncr', name, '-o', 'json'])) as NodeConfigRollout;
}

async function dkcRollout(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runDkc(['rollout', ...args, '--kubeconfig', cluster!.kubeconfig], { timeoutMs: 150_000 });
}

/** Starts `name` over the nodes labelled sec=`label` and waits for `phase` (`dkc rollout status -w`). */
async function rolloutTo(name: string, configMap: string, label: string, ...flags: string[]): Promise<void> {
  const started = await dkcRollout(
    'start',
    name,
    '--configmap',
    `kube-system/${configMap}`,
    '--selector',
    `sec=${label}`,
    ...flags,
  );
  assert.equal(started.code, 0, started.stderr);
}

async function undo(name: string): Promise<void> {
  assert.equal((await dkcRollout('undo', name)).code, 0);
  const done = await dkcRollout('status', name, '--watch', '--timeout', '120s');
  assert.equal(done.code, 1, `${name} Reverted: ${done.stdout}${done.stderr}`);
}

const previousAnnotation = `${LEGACY_PREVIOUS_SOURCE_ANNOTATION}=${JSON.stringify(VICTIM)}`;

async function nodeSteersItsOwnRevert(): Promise<void> {
  await rolloutTo('sec-node', 'sec-good', 'one', '--soak', '5m');
  await waitFor(
    'node-1 running the rollout’s config, soaking',
    async () => ((await rolloutNamed('sec-node')).status?.nodes?.['node-1']?.readySince ? true : undefined),
    60_000,
  );
  await node1.ok(['annotate', 'node', 'node-1', '--overwrite', previousAnnotation]);
  await node1.ok([
    'patch',
    'node',
    'node-1',
    '--subresource=status',
    '--type=merge',
    '-p',
    JSON.stringify({ status: { config: { error: 'failed to validate config, see Kubelet log for details' } } }),
  ]);
  const done = await dkcRollout('status', 'sec-node', '--watch', '--timeout', '120s');
  assert.equal(done.code, 1, done.stdout + done.stderr);
  const r = await rolloutNamed('sec-node');
  assert.equal(r.status?.phase, 'Reverted');
  assert.deepEqual(
    r.status?.failures?.map((f) => [f.node, f.reason]),
    [['node-1', 'ConfigError']],
  );
  assert.equal(await sourceOf('node-1'), null, 'node-1 back on its local config');
  const read = await node1.run(['get', 'configmap', '-n', 'victim', 'app-secrets']);
  assert.notEqual(read.code, 0);
  assert.match(read.stderr, /Forbidden/);
}

async function patcherAssignsDirectly(): Promise<void> {
  const r = await mallory.run([
    'patch',
    'node',
    'node-2',
    '--type=merge',
    '-p',
    JSON.stringify({ spec: { configSource: VICTIM } }),
  ]);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /Forbidden.*changing spec\.configSource requires update on nodes\/configsource/);
  assert.equal(await sourceOf('node-2'), null);
}

async function patcherSteersAnUndo(): Promise<void> {
  await rolloutTo('sec-undo', 'sec-good', 'two');
  assert.equal((await dkcRollout('status', 'sec-undo', '--watch', '--timeout', '120s')).code, 0);
  assert.deepEqual(await sourceOf('node-2'), SOURCE('sec-good'));
  await mallory.ok(['annotate', 'node', 'node-2', '--overwrite', previousAnnotation]);
  await undo('sec-undo');
  assert.equal(await sourceOf('node-2'), null, 'node-2 back on its local config');
  assert.equal((await rolloutNamed('sec-undo')).status?.nodes?.['node-2']?.state, 'Reverted');
}

async function patcherClaimsANodeForARollout(): Promise<void> {
  await rolloutTo('sec-claim', 'sec-good-2', 'one');
  assert.equal((await dkcRollout('status', 'sec-claim', '--watch', '--timeout', '120s')).code, 0);
  await operator.ok([
    'patch',
    'node',
    'node-2',
    '--type=merge',
    '-p',
    JSON.stringify({ spec: { configSource: SOURCE('sec-good-2') } }),
  ]);
  await mallory.ok([
    'annotate',
    'node',
    'node-2',
    '--overwrite',
    previousAnnotation,
    `${ROLLOUT_ANNOTATION}=sec-claim`,
  ]);
  await undo('sec-claim');
  assert.equal(await sourceOf('node-1'), null, 'node-1, which the rollout changed, restored');
  assert.deepEqual(await sourceOf('node-2'), SOURCE('sec-good-2'), 'node-2 left on its config');
  const r = await rolloutNamed('sec-claim');
  assert.deepEqual(
    [r.status?.nodes?.['node-2']?.state, r.status?.nodes?.['node-2']?.reason],
    ['NotRestored', 'NoRecord'],
  );
}

/** Each row starts from both nodes on their local config, no rollout marks on them. */
async function resetNodes(): Promise<void> {
  const clear = { [ROLLOUT_ANNOTATION]: null, [LEGACY_PREVIOUS_SOURCE_ANNOTATION]: null };
  for (const n of ['node-1', 'node-2'])
    await operator.ok([
      'patch',
      'node',
      n,
      '--type=merge',
      '-p',
      JSON.stringify({ metadata: { annotations: clear }, spec: { configSource: null } }),
    ]);
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'dkc-revert-record-'));
  cluster = await startCluster({ dataDir: join(work, 'cluster'), nodes: 2, port: 0 });
  admin = await RestClient.fromKubeconfig(cluster.kubeconfig);
  operator = await kubectl('1.32', cluster.kubeconfig);
  node1 = await kubectl('1.32', cluster.nodes[0]!.kubeconfig);
  const pki = await ensureClusterPKI(join(work, 'cluster', 'pki'));
  const cert = await issueCert(
    { certPem: pki.ca.certPem, keyPem: pki.ca.keyPem! },
    { commonName: 'mallory', organizations: [], usages: ['client'] },
  );
  const malloryConfig = join(work, 'mallory.kubeconfig');
  await writeKubeconfig(malloryConfig, {
    server: cluster.serverURL,
    caPem: pki.ca.certPem,
    certPem: cert.certPem,
    keyPem: cert.keyPem,
    user: 'mallory',
  });
  mallory = await kubectl('1.32', malloryConfig);
  await operator.ok(['create', 'clusterrole', 'node-patcher', '--verb=get,list,patch', '--resource=nodes']);
  await operator.ok(['create', 'clusterrolebinding', 'node-patcher', '--clusterrole=node-patcher', '--user=mallory']);
  await operator.ok(['create', 'namespace', 'victim']);
  await operator.ok([
    'create',
    'configmap',
    'app-secrets',
    '-n',
    'victim',
    '--from-literal=kubelet=not a kubelet config',
  ]);
  const localConfig = await readFile(cluster.nodes[0]!.config, 'utf8');
  await kubeletConfigMap(admin, localConfig, 'sec-good', 'eventRecordQPS: 6');
  await kubeletConfigMap(admin, localConfig, 'sec-good-2', 'eventRecordQPS: 7');
  await waitFor(
    'both nodes Ready',
    async () => {
      const list = await admin.list<{ items: Node[] }>('/api/v1/nodes');
      return list.items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
        .length === 2
        ? true
        : undefined;
    },
    60_000,
  );
  await operator.ok(['label', 'node', 'node-1', 'sec=one']);
  await operator.ok(['label', 'node', 'node-2', 'sec=two']);
});

after(async () => {
  admin?.close();
  for (const k of [operator, node1, mallory]) await k?.cleanup();
  await cluster?.stop(5_000);
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the revert record: who tries what, and what they get', { concurrency: false }, () => {
  for (const row of TABLE) {
    it(`${row.who} ${row.tries}: ${row.gets}`, async () => {
      await resetNodes();
      await row.run();
    });
  }
});
