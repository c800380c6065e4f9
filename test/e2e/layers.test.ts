// A layered NodeConfigRollout on a real local cluster (a server with its rollout controller and two agents under
// dkc's supervisor): two layers become one immutable, content-named ConfigMap in dkc-configs, the nodes run it
// (status.config.active names it, /configz shows the merged values), and the same layers rendered again by a
// re-created rollout of the same name give the same ConfigMap, created once.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigMap, Node } from '../../src/api/types.js';
import { RestClient } from '../../src/client/index.js';
import { ROLLOUTS_PATH, newRollout, type NodeConfigRollout } from '../../src/api/dkc/rollout.js';
import { startCluster, type Cluster } from '../../src/up/cluster.js';
import { waitFor } from '../helpers/wait.js';
import { waitForConfigz } from '../helpers/nodeconfig.js';

const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
const LAYERS = [
  { configMap: { namespace: 'default', name: 'fleet-base', kubeletConfigKey: 'kubelet' } },
  { configMap: { namespace: 'default', name: 'pool-blue', kubeletConfigKey: 'blue.conf' } },
];

let work: string;
let cluster: Cluster;
let admin: RestClient;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'dkc-layers-e2e-'));
  cluster = await startCluster({ dataDir: join(work, 'cluster'), nodes: 2, port: 0 });
  admin = await RestClient.fromKubeconfig(cluster.kubeconfig);
  await waitForConfigz(
    admin,
    cluster.nodes.map((n) => n.name),
  );
  const local = await readFile(cluster.nodes[0]!.config, 'utf8');
  const create = (name: string, data: Record<string, string>) =>
    admin.create('/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name },
      data,
    });
  await create('fleet-base', { kubelet: local + 'maxPods: 50\nevictionHard:\n  memory.available: 100Mi\n' });
  await create('pool-blue', { 'blue.conf': HEADER + 'maxPods: 80\nevictionHard:\n  nodefs.available: 5%\n' });
});

after(async () => {
  admin?.close();
  await cluster?.stop(5_000);
  if (work) await rm(work, { recursive: true, force: true });
});

async function rollOut(name: string): Promise<NodeConfigRollout> {
  await admin.create(ROLLOUTS_PATH, newRollout(name, { layers: LAYERS, strategy: { canary: 1, maxUnavailable: 2 } }));
  const done = await waitFor(
    `rollout ${name} to finish`,
    async () => {
      const r = await admin.get<NodeConfigRollout>(`${ROLLOUTS_PATH}/${name}`);
      return ['Succeeded', 'Halted', 'Reverted'].includes(r.status?.phase ?? '') ? r : undefined;
    },
    90_000,
  );
  assert.equal(done.status?.phase, 'Succeeded', JSON.stringify(done.status?.conditions));
  return done;
}

const rendered = async (): Promise<ConfigMap[]> =>
  (
    await admin.list<{ items: ConfigMap[] }>('/api/v1/namespaces/dkc-configs/configmaps', {
      labelSelector: 'dkc.io/rendered-by=layered',
    })
  ).items;

describe('a layered rollout', () => {
  let name = '';

  it('renders two layers into one hashed ConfigMap and every node runs it', async () => {
    const r = await rollOut('layered');
    name = r.status?.renderedConfigMap ?? '';
    assert.match(name, /^layered-[0-9b-df-hj-np-z]{10}$/, 'the rollout name and a vowel-free 10-character hash');
    const cms = await rendered();
    assert.deepEqual(
      cms.map((c) => c.metadata.name),
      [name],
    );
    const cm = cms[0]!;
    assert.equal(cm.immutable, true);
    for (const n of cluster.nodes) {
      const node = await admin.get<Node>(`/api/v1/nodes/${n.name}`);
      const active = node.status?.config?.active?.configMap;
      assert.deepEqual(
        [active?.namespace, active?.name, active?.kubeletConfigKey, active?.uid, active?.resourceVersion],
        ['dkc-configs', name, 'kubelet', cm.metadata.uid, cm.metadata.resourceVersion],
        `${n.name} runs the rendered ConfigMap`,
      );
      const configz = await admin.get<{ kubeletconfig: { maxPods: number; evictionHard: Record<string, string> } }>(
        `/api/v1/nodes/${n.name}/proxy/configz`,
      );
      assert.equal(configz.kubeletconfig.maxPods, 80, 'the drop-in wins');
      assert.equal(configz.kubeletconfig.evictionHard['memory.available'], '100Mi', 'the base map key stays');
      assert.equal(configz.kubeletconfig.evictionHard['nodefs.available'], '5%', 'the drop-in map key is added');
    }
  });

  it('the same layers rendered again give the same name, and the existing ConfigMap is reused', async () => {
    assert.notEqual(name, '');
    const uid = (await rendered())[0]!.metadata.uid;
    await admin.delete(`${ROLLOUTS_PATH}/layered`);
    await waitFor(
      'the rollout to be gone',
      async () => {
        const left = await admin.get<{ items: NodeConfigRollout[] }>(ROLLOUTS_PATH);
        return left.items.length === 0 ? true : undefined;
      },
      10_000,
    );
    const again = await rollOut('layered');
    assert.equal(again.status?.renderedConfigMap, name);
    const cms = await rendered();
    assert.deepEqual(
      cms.map((c) => [c.metadata.name, c.metadata.uid]),
      [[name, uid]],
    );
  });
});
