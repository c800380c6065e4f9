// The rollout controller assigns nodes by server-side apply, as field manager dkc-rollout-controller, and shares the
// Node with people as kube-apiserver arbitrates it: a `kubectl label` stays, a person's `kubectl apply
// --server-side` of the node's source conflicts with the controller (and the controller with it: the node is not
// assigned, the rollout says why in a NodeConflict event), and a source set by `kubectl patch` is taken, as before.
// The nodes are API objects with a Ready condition and a fresh Lease (no agents): the assignment is what is looked at.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RestClient } from '../../src/client/index.js';
import { ROLLOUTS_PATH, newRollout } from '../../src/api/dkc/rollout.js';
import type { Node, NodeConfigSource } from '../../src/api/types.js';
import { kubectl, type Kubectl } from '../helpers/kubectl.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

type Entry = { manager: string; operation: string; fieldsV1: Record<string, unknown> };
type Managed = Node & { metadata: { managedFields?: Entry[] } };

const source = (name: string): NodeConfigSource => ({
  configMap: { namespace: 'kube-system', name, kubeletConfigKey: 'kubelet' },
});
const nodeYaml = (name: string, pool: string, cm?: string) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { pool } },
    ...(cm ? { spec: { configSource: source(cm) } } : {}),
  });

let server: RunningServer;
let admin: RestClient;
let k: Kubectl;

async function readyNode(name: string, pool: string): Promise<void> {
  await admin.create('/api/v1/nodes', { metadata: { name, labels: { pool } } });
  const now = new Date().toISOString();
  await admin.patch(`/api/v1/nodes/${name}/status`, 'merge', {
    status: {
      conditions: [
        { type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: now, lastTransitionTime: now },
      ],
    },
  });
  await admin.create('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', {
    metadata: { name, namespace: 'kube-node-lease' },
    spec: {
      holderIdentity: name,
      leaseDurationSeconds: 3600,
      renewTime: new Date().toISOString().replace('Z', '000Z'),
    },
  });
}

const node = (name: string) => admin.get<Managed>(`/api/v1/nodes/${name}`);
const cmOf = (n: Node) => n.spec?.configSource?.configMap?.name;
const rollout = (name: string, pool: string) =>
  admin.create(
    ROLLOUTS_PATH,
    newRollout(name, { configSource: source('cfg-a'), nodeSelector: { matchLabels: { pool } } }),
  );

before(async () => {
  server = await startServer(['--controllers', 'rollout']);
  admin = await RestClient.fromKubeconfig(server.kubeconfig);
  k = await kubectl('1.32', server.kubeconfig);
  for (const cm of ['cfg-a', 'cfg-b']) {
    await admin.create('/api/v1/namespaces/kube-system/configmaps', {
      metadata: { name: cm, namespace: 'kube-system' },
      data: { kubelet: 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n' },
      // Assigned as it is by a rollout (a mutable one would be pinned as a copy), so its name is what nodes show.
      immutable: true,
    });
  }
});

after(async () => {
  await k?.cleanup();
  admin?.close();
  await server?.cleanup();
});

describe('the rollout controller applies node assignments', () => {
  it('as its own field manager, owning only the source and its annotations (the holder and the revert record): a kubectl label stays, a person applying the source conflicts with it', async () => {
    await readyNode('ssa-1', 'labelled');
    await rollout('ssa-labelled', 'labelled');
    await waitFor('ssa-1 assigned', async () => (cmOf(await node('ssa-1')) === 'cfg-a' ? true : undefined));
    await k.ok(['label', 'node', 'ssa-1', 'team=infra']);
    const n = await node('ssa-1');
    assert.equal(n.metadata.labels?.['team'], 'infra');
    assert.equal(n.metadata.annotations?.['dkc.io/rollout'], 'ssa-labelled');
    const mine = n.metadata.managedFields?.filter((e) => e.manager === 'dkc-rollout-controller');
    assert.deepEqual(
      mine?.map((e) => [e.operation, e.fieldsV1]),
      [
        [
          'Apply',
          {
            'f:metadata': { 'f:annotations': { 'f:dkc.io/revert-record': {}, 'f:dkc.io/rollout': {} } },
            'f:spec': {
              'f:configSource': { 'f:configMap': { 'f:kubeletConfigKey': {}, 'f:name': {}, 'f:namespace': {} } },
            },
          },
        ],
      ],
    );
    const r = await k.run(['apply', '--server-side', '-f', '-'], { input: nodeYaml('ssa-1', 'labelled', 'cfg-b') });
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^error: Apply failed with 1 conflict: conflict with "dkc-rollout-controller": \.spec\.configSource\.configMap\.name\n/,
    );
  });

  it('does not take a source another manager applies: the node stays on it, and the rollout says why (NodeConflict)', async () => {
    await readyNode('ssa-2', 'declared');
    await k.ok(['apply', '--server-side', '--field-manager', 'gitops', '-f', '-'], {
      input: nodeYaml('ssa-2', 'declared', 'cfg-b'),
    });
    await rollout('ssa-declared', 'declared');
    const event = await waitFor('a NodeConflict event', async () => {
      const list = await admin.list<{
        items: { reason?: string; type?: string; message?: string; involvedObject?: { name?: string } }[];
      }>('/api/v1/namespaces/default/events');
      return list.items.find((e) => e.reason === 'NodeConflict' && e.involvedObject?.name === 'ssa-declared');
    });
    assert.equal(event.type, 'Warning');
    assert.match(
      event.message ?? '',
      /^node ssa-2 not assigned: its assignment is applied by another field manager \(Apply failed with 1 conflict: conflict with "gitops": \.spec\.configSource\.configMap\.name\)$/,
    );
    assert.equal(cmOf(await node('ssa-2')), 'cfg-b');
  });

  it('takes a source set by kubectl patch, as it always has', async () => {
    await readyNode('ssa-3', 'patched');
    await k.ok([
      'patch',
      'node',
      'ssa-3',
      '--type',
      'merge',
      '-p',
      JSON.stringify({ spec: { configSource: source('cfg-b') } }),
    ]);
    await rollout('ssa-patched', 'patched');
    await waitFor('ssa-3 assigned', async () => (cmOf(await node('ssa-3')) === 'cfg-a' ? true : undefined));
    // The name the patch set is the controller's now; what both set alike stays shared, as structured-merge-diff does.
    const owners = (await node('ssa-3')).metadata.managedFields
      ?.filter((e) => JSON.stringify(e.fieldsV1).includes('"f:name"'))
      .map((e) => e.manager);
    assert.deepEqual(owners, ['dkc-rollout-controller']);
  });
});
