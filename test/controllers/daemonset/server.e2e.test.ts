// The DaemonSet controller inside `dkc server`, with the scheduler, against its API: a daemon Pod for each node that
// should run one, bound to it by the scheduler through the Pod's `metadata.name In` node affinity; none for a node
// whose NoSchedule taint the Pod does not tolerate; a cordoned node keeps (and gets back) its daemon Pod; the status
// counted as kube counts it, which `kubectl rollout status` reads as rolled out; a new template replaces the Pods
// one node at a time under maxUnavailable 1, the test confirming each deletion as a kubelet would.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { DaemonSet } from '../../../src/api/apps.js';
import type { Taint } from '../../../src/api/types.js';
import type { Pod } from '../../../src/api/workloads.js';
import { RestClient } from '../../../src/client/index.js';
import { daemonSetRolloutStatusMessage } from '../../../src/controllers/daemonset/rolloutstatus.js';
import { markRunningReady, readyNode } from '../../helpers/cluster.js';
import { kubectl, type Kubectl } from '../../helpers/kubectl.js';
import { startServer, type RunningServer } from '../../helpers/server.js';
import { waitFor } from '../../helpers/wait.js';
import { appsObject } from '../workload/apps.js';

const PODS = '/api/v1/namespaces/default/pods';
const DSS = '/apis/apps/v1/namespaces/default/daemonsets';

let server: RunningServer;
let admin: RestClient;
let k: Kubectl;

before(async () => {
  server = await startServer(['--controllers=daemonset,scheduler']);
  admin = await RestClient.fromKubeconfig(server.kubeconfig, { timeoutMs: 5_000 });
  k = await kubectl('1.32', server.kubeconfig);
});
after(async () => {
  admin?.close();
  await k?.cleanup();
  await server?.cleanup();
});

const node = (name: string, taints: Taint[] = []) => readyNode(admin, name, { taints });

const allPods = async (app: string): Promise<Pod[]> =>
  (await admin.list<{ items: Pod[] }>(PODS, { labelSelector: `app=${app}` })).items;
const daemonPods = async (app: string): Promise<Pod[]> =>
  (await allPods(app)).filter((p) => !p.metadata.deletionTimestamp);

/** The daemon Pods by node when every one of `nodes` has exactly one, bound. */
async function placement(nodes: string[], app = 'agent'): Promise<Map<string, Pod> | undefined> {
  const pods = await daemonPods(app);
  const byNode = new Map(pods.map((p) => [p.spec?.nodeName ?? '', p]));
  return pods.length === nodes.length && nodes.every((n) => byNode.has(n)) ? byNode : undefined;
}

const pinnedNode = (p: Pod): string | undefined =>
  p.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0]?.matchFields?.[0]
    ?.values?.[0];

describe('daemonset controller', () => {
  it('runs one Pod per node that admits it, bound there, and counts them', async () => {
    await node('d-1');
    await node('d-2');
    await node('d-3', [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }]);
    await admin.create(DSS, appsObject('DaemonSet', 'agent', 'agent'));
    const placed = await waitFor('one daemon Pod bound on d-1 and on d-2', () => placement(['d-1', 'd-2']), 15_000, 50);
    for (const [nodeName, p] of placed) {
      assert.equal(pinnedNode(p), nodeName, 'created pinned to its node, then bound there by the scheduler');
      assert.equal(p.metadata.ownerReferences?.[0]?.kind, 'DaemonSet');
      assert.ok(p.metadata.labels?.['controller-revision-hash'], 'the revision hash label');
      assert.ok(
        p.spec?.tolerations?.some((t) => t.key === 'node.kubernetes.io/unschedulable' && t.effect === 'NoSchedule'),
      );
    }
    for (const p of placed.values()) await markRunningReady(admin, 'default', p.metadata.name ?? '');
    const ds = await waitFor(
      'the status counts two available',
      async () => {
        const got = await admin.get<DaemonSet>(`${DSS}/agent`);
        return got.status?.numberAvailable === 2 ? got : undefined;
      },
      10_000,
      50,
    );
    const s = ds.status!;
    assert.deepEqual(
      [
        s.desiredNumberScheduled,
        s.currentNumberScheduled,
        s.updatedNumberScheduled,
        s.numberReady,
        s.numberAvailable,
        s.numberUnavailable,
        s.numberMisscheduled,
        s.observedGeneration,
      ],
      [2, 2, 2, 2, 2, 0, 0, ds.metadata.generation],
    );
    assert.equal(daemonSetRolloutStatusMessage(ds).message, 'daemon set "agent" successfully rolled out');
    const r = await k.run(['rollout', 'status', 'daemonset/agent', '--watch=false']);
    assert.deepEqual([r.code, r.stdout], [0, 'daemon set "agent" successfully rolled out\n'], r.stderr);

    // Cordoned, as kubectl cordon and the node lifecycle controller mark it: the daemon Pod tolerates both.
    await admin.patch('/api/v1/nodes/d-1', 'merge', {
      spec: {
        unschedulable: true,
        taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }],
      },
    });
    const gone = placed.get('d-1')!;
    // Gone at once, as the kubelet would confirm it: a Pod still terminating keeps its node's place.
    await admin.delete(`${PODS}/${gone.metadata.name ?? ''}`, {
      body: { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 },
    });
    const again = await waitFor(
      'a new daemon Pod bound on the cordoned node',
      async () => {
        const byNode = await placement(['d-1', 'd-2']);
        return byNode && byNode.get('d-1')?.metadata.uid !== gone.metadata.uid ? byNode : undefined;
      },
      15_000,
      50,
    );
    assert.equal(again.get('d-2')?.metadata.uid, placed.get('d-2')?.metadata.uid, 'the other node keeps its Pod');
  });

  it('replaces out-of-date Pods one node at a time under maxUnavailable 1', async () => {
    // The nodes of the test before: d-1 (cordoned) and d-2 run daemon Pods, d-3 does not.
    await admin.create(
      DSS,
      appsObject('DaemonSet', 'roll', 'roll', {
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
      }),
    );
    const first = await waitFor('roll on d-1 and d-2', () => placement(['d-1', 'd-2'], 'roll'), 15_000, 50);
    for (const p of first.values()) await markRunningReady(admin, 'default', p.metadata.name ?? '');
    const oldHash = first.get('d-1')?.metadata.labels?.['controller-revision-hash'];
    await admin.patch(`${DSS}/roll`, 'merge', {
      spec: { template: { spec: { containers: [{ name: 'c', image: 'pause:2' }] } } },
    });

    const replaced: string[] = [];
    for (let round = 0; round < 2; round++) {
      // The kubelet's part: a Pod being deleted is confirmed gone; at most one old Pod is down at a time.
      const terminating = await waitFor(
        'an old Pod being deleted',
        async () => {
          const pods = await allPods('roll');
          const down = pods.filter((p) => p.metadata.deletionTimestamp);
          return down.length > 0 ? { down, pods } : undefined;
        },
        10_000,
        20,
      );
      assert.equal(terminating.down.length, 1, 'maxUnavailable 1: one old Pod down at a time');
      const gone = terminating.down[0]!;
      assert.equal(gone.metadata.labels?.['controller-revision-hash'], oldHash);
      const node = gone.spec?.nodeName ?? '';
      replaced.push(node);
      await admin.delete(`${PODS}/${gone.metadata.name ?? ''}`, {
        body: { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 },
      });
      const fresh = await waitFor(
        `the new Pod bound on ${node}`,
        async () =>
          (await daemonPods('roll')).find(
            (p) => p.spec?.nodeName === node && p.metadata.labels?.['controller-revision-hash'] !== oldHash,
          ),
        10_000,
        20,
      );
      // Its controller has synced since it was made (it was bound since): the other old Pod waits for it to be ready.
      const down = (await allPods('roll')).filter((p) => p.metadata.deletionTimestamp);
      assert.deepEqual(down, [], 'no other old Pod down before the new one is available');
      await markRunningReady(admin, 'default', fresh.metadata.name ?? '');
    }
    assert.deepEqual([...replaced].sort(), ['d-1', 'd-2']);
    await waitFor(
      'kubectl rollout status done',
      async () => {
        const r = await k.run(['rollout', 'status', 'ds/roll', '--watch=false']);
        return r.code === 0 && r.stdout === 'daemon set "roll" successfully rolled out\n';
      },
      10_000,
      100,
    );
    const done = await admin.get<DaemonSet>(`${DSS}/roll`);
    assert.deepEqual([done.status?.updatedNumberScheduled, done.status?.numberAvailable], [2, 2]);
  });
});
