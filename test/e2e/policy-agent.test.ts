// The agent's own NodeConfigPolicy check, through real kubectl on a real local cluster whose API server judges no
// policy at admission (`--disable-admission-plugins=NodeConfigPolicy`, as a kube-apiserver, where the CRD installs
// but nothing enforces it). Each known way past admission — (a) assign a ConfigMap that does not exist yet, then
// create it; (b) take the node's label away, assign, give the label back; (c) assign an allowed ConfigMap, then
// `kubectl replace` its content — ends with the node not running the denied config, on its last-known-good or local
// config, and status.config.error naming the policy. The node reads the policies with its own identity, and the
// policy selects on a label the node cannot set itself (node-restriction.kubernetes.io/).

import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Node } from '../../src/api/types.js';
import { RestClient } from '../../src/client/index.js';
import { nodeDiff } from '../../src/ui/api.js';
import { startCluster, type Cluster } from '../../src/up/cluster.js';
import { kubectl, type Kubectl } from '../helpers/kubectl.js';
import { waitFor } from '../helpers/wait.js';

const POLICY = `apiVersion: dkc.io/v1alpha1
kind: NodeConfigPolicy
metadata: {name: blue-deny}
spec:
  nodeSelector: {matchLabels: {node-restriction.kubernetes.io/pool: blue}}
  allowedFields: [maxPods, eventRecordQPS]
  enforcement: Deny
`;
const POOL = 'node-restriction.kubernetes.io/pool';
const POOL_LABEL = `${POOL}=blue`;
const DENIED = 'config denied by NodeConfigPolicy "blue-deny", see Kubelet log for details';
const SOURCE = (name: string | null) =>
  JSON.stringify({
    spec: {
      configSource: name ? { configMap: { namespace: 'kube-system', name, kubeletConfigKey: 'kubelet' } } : null,
    },
  });

let dir: string;
let cluster: Cluster;
let admin: RestClient;
let k: Kubectl;
let nodeK: Kubectl;
let localConfig: string;

/** A ConfigMap manifest holding the node's local config with `extra` lines. */
const manifest = (name: string, extra: string) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'kube-system' },
    data: { kubelet: `${localConfig.trimEnd()}\n${extra}\n` },
  });
const ALLOWED = 'eventRecordQPS: 7';
const FORBIDDEN = 'containerLogMaxFiles: 7';

type Status = NonNullable<Node['status']>['config'];
const statusOf = async (): Promise<Status> => (await admin.get<Node>('/api/v1/nodes/node-1')).status?.config;
const configz = async (): Promise<Record<string, unknown>> =>
  (await admin.get<{ kubeletconfig: Record<string, unknown> }>('/api/v1/nodes/node-1/proxy/configz')).kubeletconfig;

/** Waits for node-1's status.config to meet `check`, then for its /configz to answer. */
async function waitStatus(what: string, check: (s: Status) => boolean): Promise<Status> {
  const s = await waitFor(
    what,
    async () => {
      const s = await statusOf();
      return check(s) ? s : undefined;
    },
    60_000,
    100,
  );
  await waitFor('node-1 /configz', () => configz(), 30_000, 100);
  return s;
}

const activeName = (s: Status): string | undefined => s?.active?.configMap?.name;

/** The node is back on its local config without an error, ready for the next case. */
async function reset(): Promise<void> {
  await k.ok(['patch', 'node', 'node-1', '-p', SOURCE(null)]);
  await k.ok(['label', 'node', 'node-1', POOL_LABEL, '--overwrite']);
  await waitStatus('node-1 on its local config', (s) => !s?.assigned && !s?.active && !s?.error);
}

/** What every case ends with: the denied ConfigMap is assigned, not running, and the policy is named. */
async function deniedAndNotRunning(name: string): Promise<Status> {
  const s = await waitStatus(
    `node-1 refusing ${name}`,
    (s) => s?.assigned?.configMap?.name === name && s.error === DENIED,
  );
  assert.equal((await configz())['containerLogMaxFiles'], 5, 'the denied value does not run');
  return s;
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dkc-policy-agent-'));
  cluster = await startCluster({
    dataDir: dir,
    nodes: 1,
    port: 0,
    serverArgs: ['--disable-admission-plugins=NodeConfigPolicy'],
    // A short trial, so that an accepted config becomes last-known-good within the test.
    agentArgs: ['--dynamic-config-trial-duration=2s'],
  });
  admin = await RestClient.fromKubeconfig(cluster.kubeconfig, { timeoutMs: 10_000 });
  k = await kubectl('1.32', cluster.kubeconfig);
  nodeK = await kubectl('1.32', cluster.nodes[0]!.kubeconfig);
  localConfig = await readFile(cluster.nodes[0]!.config, 'utf8');
  await waitStatus('node-1 reports status.config', (s) => s !== undefined);
  await k.ok(['label', 'node', 'node-1', POOL_LABEL]);
  await k.ok(['apply', '-f', '-'], { input: POLICY });
});

after(async () => {
  admin?.close();
  await k?.cleanup();
  await nodeK?.cleanup();
  await cluster?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('the agent judges what it runs by the NodeConfigPolicies that govern it', () => {
  it('the node reads the policies as itself (list and watch), may not write them, nor step out of their selector', async () => {
    assert.equal((await nodeK.run(['auth', 'can-i', 'watch', 'nodeconfigpolicies.dkc.io'])).stdout.trim(), 'yes');
    assert.match(await nodeK.ok(['get', 'ncp']), /^NAME\s+ENFORCEMENT\s+AGE\nblue-deny\s+Deny\s/);
    const r = await nodeK.run(['delete', 'ncp', 'blue-deny']);
    assert.notEqual(r.code, 0);
    assert.match(
      r.stderr,
      /User "system:node:node-1" cannot delete resource "nodeconfigpolicies" in API group "dkc.io"/,
    );
    const extra = 'node-restriction.kubernetes.io/extra';
    for (const [args, key] of [
      [[`${POOL}-`], POOL],
      [[`${POOL}=green`, '--overwrite'], POOL],
      [[`${extra}=1`], extra],
    ] as const) {
      const label = await nodeK.run(['label', 'node', 'node-1', ...args]);
      assert.deepEqual(
        [label.code, label.stderr.trim()],
        [1, `Error from server (Forbidden): nodes "node-1" is forbidden: is not allowed to modify labels: ${key}`],
      );
    }
    await nodeK.ok(['label', 'node', 'node-1', 'team=own']);
  });

  it('(a) a ConfigMap assigned before it exists, then created with a denied field: not run, the policy named', async () => {
    await k.ok(['patch', 'node', 'node-1', '-p', SOURCE('late')]);
    await waitStatus(
      'node-1 failing to download late',
      (s) => s?.error === 'failed to sync: failed to download config, see Kubelet log for details',
    );
    await k.ok(['create', '-f', '-'], { input: manifest('late', FORBIDDEN) });
    const s = await deniedAndNotRunning('late');
    assert.equal(s?.active, undefined, 'no last-known-good: the local config runs');
    // The node page's diff (running against assigned) names what the policy denies and nothing the flags hold.
    const diff = await nodeDiff(admin, 'node-1');
    assert.deepEqual(diff.changes, [{ path: 'containerLogMaxFiles', running: '5', assigned: '7' }]);
    await reset();
  });

  it('(b) the label taken away, a denied config assigned and run, the label given back: the node leaves it', async () => {
    await k.ok(['label', 'node', 'node-1', `${POOL}-`]);
    await k.ok(['create', '-f', '-'], { input: manifest('unlabelled', FORBIDDEN) });
    await k.ok(['patch', 'node', 'node-1', '-p', SOURCE('unlabelled')]);
    await waitStatus(
      'node-1 running unlabelled while no policy governs it',
      (s) => activeName(s) === 'unlabelled' && !s?.error,
    );
    assert.equal((await configz())['containerLogMaxFiles'], 7);
    await k.ok(['label', 'node', 'node-1', POOL_LABEL]);
    const s = await deniedAndNotRunning('unlabelled');
    assert.notEqual(activeName(s), 'unlabelled');
    await reset();
  });

  it('(c) an allowed ConfigMap replaced with denied content: last-known-good runs, the policy named', async () => {
    await k.ok(['create', '-f', '-'], { input: manifest('replaced', ALLOWED) });
    await k.ok(['patch', 'node', 'node-1', '-p', SOURCE('replaced')]);
    const good = await waitStatus(
      'replaced@1 last-known-good',
      (s) => activeName(s) === 'replaced' && s?.lastKnownGood?.configMap?.name === 'replaced',
    );
    const rv = good?.active?.configMap?.resourceVersion;
    const file = join(dir, 'replaced.json');
    await writeFile(file, manifest('replaced', `${ALLOWED}\n${FORBIDDEN}`));
    await k.ok(['replace', '-f', file]);
    const s = await deniedAndNotRunning('replaced');
    assert.notEqual(s?.assigned?.configMap?.resourceVersion, rv, 'the new content is assigned');
    assert.equal(s?.active?.configMap?.resourceVersion, rv, 'the last-known-good content runs');
    assert.equal((await configz())['eventRecordQPS'], 7);
    await reset();
  });

  it('a policy tightened over a running config: the node leaves it; loosened again: it runs it again', async () => {
    await k.ok(['create', '-f', '-'], { input: manifest('tightened', 'maxPods: 100') });
    await k.ok(['patch', 'node', 'node-1', '-p', SOURCE('tightened')]);
    await waitStatus('node-1 running tightened', (s) => activeName(s) === 'tightened' && !s?.error);
    await k.ok([
      'patch',
      'ncp',
      'blue-deny',
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { allowedFields: ['eventRecordQPS'] } }),
    ]);
    await waitStatus(
      'node-1 leaving tightened',
      (s) => s?.assigned?.configMap?.name === 'tightened' && activeName(s) !== 'tightened' && s?.error === DENIED,
    );
    assert.equal((await configz())['maxPods'], 110);
    await k.ok([
      'patch',
      'ncp',
      'blue-deny',
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { allowedFields: ['maxPods', 'eventRecordQPS'] } }),
    ]);
    await waitStatus('node-1 running tightened again', (s) => activeName(s) === 'tightened' && !s?.error);
    await reset();
  });
});
