// A node that goes dark mid-rollout fails as NotReady: once it has been changed, its agent is frozen (SIGSTOP, so its
// supervisor sees nothing), the node lifecycle controller inside `dkc server` marks it Unknown once its Lease is older
// than the grace period, and the rollout controller fails it at the progress deadline with Ready not True. (A node
// dark before its change is not changed at all: it waits.) Short leases (renewed every second) and a 3 s grace period
// keep this to seconds.

import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Node } from '../../src/api/types.js';
import { RestClient } from '../../src/client/index.js';
import { ROLLOUTS_PATH, newRollout, type NodeConfigRollout } from '../../src/api/dkc/rollout.js';
import { defaultLocalConfig } from '../../src/agent/clusterconfig.js';
import { startCluster, type Cluster } from '../../src/up/cluster.js';
import { waitFor } from '../helpers/wait.js';

let work = '';
let cluster: Cluster | undefined;
let admin: RestClient;
let frozen: number | undefined;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'dkc-rollout-dark-'));
  cluster = await startCluster({
    dataDir: join(work, 'cluster'),
    nodes: 2,
    port: 0,
    serverArgs: ['--node-monitor-grace-period=3s'],
    localConfig: (ctx) => `${defaultLocalConfig(ctx)}nodeLeaseDurationSeconds: 4\n`,
  });
  admin = await RestClient.fromKubeconfig(cluster.kubeconfig);
  await waitFor('two nodes Ready', async () => {
    const list = await admin.list<{ items: Node[] }>('/api/v1/nodes');
    return list.items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
      .length === 2
      ? true
      : undefined;
  });
});

after(async () => {
  // The frozen agent may be gone already (its supervisor stopped it): nothing left to resume.
  if (frozen !== undefined) {
    try {
      process.kill(frozen, 'SIGCONT');
    } catch {
      /* ESRCH */
    }
  }
  admin?.close();
  await cluster?.stop(5_000);
  if (work) await rm(work, { recursive: true, force: true });
});

it(
  'a node whose agent goes dark fails as NotReady at the deadline; the rollout halts',
  { timeout: 60_000 },
  async () => {
    await admin.create('/api/v1/namespaces/kube-system/configmaps', {
      metadata: { name: 'cfg', namespace: 'kube-system' },
      data: { kubelet: 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n' },
    });
    // A valid config: an invalid one would be reported (ConfigError) by the new agent unless it is frozen first.
    await admin.create(
      ROLLOUTS_PATH,
      newRollout('dark', {
        configSource: { configMap: { namespace: 'kube-system', name: 'cfg', kubeletConfigKey: 'kubelet' } },
        nodeSelector: { matchLabels: { 'kubernetes.io/hostname': 'node-2' } },
        // A soak longer than the deadline: the node cannot succeed before it is frozen, and a soak it stops
        // heartbeating in counts for nothing.
        strategy: { soakSeconds: 30 },
        progressDeadlineSeconds: 8,
        failurePolicy: 'Halt',
      }),
    );
    await waitFor('node-2 changed', async () =>
      (await admin.get<NodeConfigRollout>(`${ROLLOUTS_PATH}/dark`)).status?.nodes?.['node-2']?.state === 'InFlight'
        ? true
        : undefined,
    );
    // The agent may be between its exit (to run the new config) and its next start.
    frozen = await waitFor('node-2 agent running', async () => cluster!.supervisor.pidOf('node-2'));
    process.kill(frozen, 'SIGSTOP');
    const r = await waitFor(
      'the rollout to halt',
      async () => {
        const got = await admin.get<NodeConfigRollout>(`${ROLLOUTS_PATH}/dark`);
        return got.status?.phase === 'Halted' ? got : undefined;
      },
      30_000,
    );
    assert.deepEqual(
      r.status?.failures?.map((f) => [f.node, f.reason]),
      [['node-2', 'NotReady']],
    );
    assert.match(r.status?.failures?.[0]?.message ?? '', /Ready=Unknown/);
    const node = await admin.get<Node>('/api/v1/nodes/node-2');
    assert.equal(node.status?.conditions?.find((c) => c.type === 'Ready')?.reason, 'NodeStatusUnknown');
  },
);
