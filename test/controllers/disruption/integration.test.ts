// The disruption controller inside `dkc server`, against its API: a PodDisruptionBudget over Running, Ready Pods gets
// its status written through the status subresource, so the Eviction API lets exactly as many Pods go as the budget
// allows and refuses the next with kube's 429.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Event } from '../../../src/api/types.js';
import type { Pod, PodDisruptionBudget } from '../../../src/api/workloads.js';
import { isApiError, RestClient } from '../../../src/client/index.js';
import { startServer, type RunningServer } from '../../helpers/server.js';
import { waitFor } from '../../helpers/wait.js';
import { appsObject } from '../workload/apps.js';

const PODS = '/api/v1/namespaces/default/pods';
const PDBS = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';

let server: RunningServer;
let admin: RestClient;

before(async () => {
  server = await startServer(['--controllers=disruption']);
  admin = await RestClient.fromKubeconfig(server.kubeconfig, { timeoutMs: 5_000 });
});
after(async () => {
  admin?.close();
  await server?.cleanup();
});

type Owner = { apiVersion: string; kind: string; name: string; uid: string; controller: true };

async function runningReadyPod(name: string, app = 'web', owner?: Owner): Promise<void> {
  await admin.create<Pod>(PODS, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app }, ...(owner ? { ownerReferences: [owner] } : {}) },
    spec: { nodeName: 'n-1', containers: [{ name: 'c', image: 'pause' }] },
  });
  await admin.patch(`${PODS}/${name}/status`, 'merge', {
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  });
}

const evict = (name: string) =>
  admin.create(`${PODS}/${name}/eviction`, {
    apiVersion: 'policy/v1',
    kind: 'Eviction',
    metadata: { name, namespace: 'default' },
  });

describe('disruption controller', () => {
  it('writes a budget its status, so one eviction is let through and the next refused', async () => {
    await runningReadyPod('web-1');
    await runningReadyPod('web-2');
    await admin.create(PDBS, {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web' },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
    });
    const synced = await waitFor(
      'the budget synced',
      async () => {
        const pdb = await admin.get<PodDisruptionBudget>(`${PDBS}/web`);
        return pdb.status?.observedGeneration === pdb.metadata.generation && pdb.status?.disruptionsAllowed === 1
          ? pdb
          : undefined;
      },
      10_000,
      50,
    );
    const { status } = synced;
    assert.deepEqual(
      [status?.currentHealthy, status?.desiredHealthy, status?.expectedPods, status?.disruptionsAllowed],
      [2, 1, 2, 1],
    );
    const allowed = status?.conditions?.find((c) => c.type === 'DisruptionAllowed');
    assert.deepEqual([allowed?.status, allowed?.reason], ['True', 'SufficientPods']);

    await evict('web-1');
    const refused = await evict('web-2').then(
      () => assert.fail('the second eviction must be refused'),
      (err: unknown) => err,
    );
    assert.ok(isApiError(refused, 429), `429, not ${String(refused)}`);
    assert.equal(refused.status.message, "Cannot evict pod as it would violate the pod's disruption budget.");

    // The controller sees web-1 go and keeps the budget at no disruptions allowed.
    await waitFor(
      'the budget resynced',
      async () => {
        const pdb = await admin.get<PodDisruptionBudget>(`${PDBS}/web`);
        const c = pdb.status?.conditions?.find((x) => x.type === 'DisruptionAllowed');
        return pdb.status?.currentHealthy === 1 && c?.reason === 'InsufficientPods' ? true : undefined;
      },
      10_000,
      50,
    );
  });

  it('counts a maxUnavailable budget by its Pods’ controller’s scale, and fails safe on a kind without one', async () => {
    const rs = await admin.create<{ metadata: { uid: string } }>(
      '/apis/apps/v1/namespaces/default/replicasets',
      appsObject('ReplicaSet', 'db', 'db', { replicas: 3 }),
    );
    const owner = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      name: 'db',
      uid: rs.metadata.uid,
      controller: true as const,
    };
    await runningReadyPod('db-1', 'db', owner);
    await runningReadyPod('db-2', 'db', owner);
    await admin.create(PDBS, {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'db' },
      spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'db' } } },
    });
    const counted = await waitFor(
      'the db budget counted by scale',
      async () => {
        const { status } = await admin.get<PodDisruptionBudget>(`${PDBS}/db`);
        return status?.expectedPods === 3 ? status : undefined;
      },
      10_000,
      50,
    );
    assert.deepEqual([counted.desiredHealthy, counted.currentHealthy, counted.disruptionsAllowed], [2, 2, 0]);

    const ds = await admin.create<{ metadata: { uid: string } }>(
      '/apis/apps/v1/namespaces/default/daemonsets',
      appsObject('DaemonSet', 'agent', 'agent'),
    );
    const dsOwner = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      name: 'agent',
      uid: ds.metadata.uid,
      controller: true as const,
    };
    await runningReadyPod('agent-1', 'agent', dsOwner);
    await admin.create(PDBS, {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'agent' },
      spec: { maxUnavailable: '50%', selector: { matchLabels: { app: 'agent' } } },
    });
    const failed = await waitFor(
      'the agent budget failed safe',
      async () => {
        const pdb = await admin.get<PodDisruptionBudget>(`${PDBS}/agent`);
        return pdb.status?.conditions?.find((c) => c.reason === 'SyncFailed');
      },
      10_000,
      50,
    );
    assert.deepEqual(
      [failed.status, failed.message],
      ['False', 'daemonsets.apps does not implement the scale subresource'],
    );
  });

  it('resets a DisruptionTarget condition gone stale, but not the kubelet’s', async () => {
    const longAgo = new Date(Date.now() - 3 * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const mark = async (name: string, reason: string) => {
      await runningReadyPod(name, 'marked');
      await admin.patch(`${PODS}/${name}/status`, 'strategic', {
        status: { conditions: [{ type: 'DisruptionTarget', status: 'True', reason, lastTransitionTime: longAgo }] },
      });
    };
    await mark('by-kubelet', 'TerminationByKubelet');
    await mark('by-eviction', 'EvictionByEvictionAPI');
    const target = async (name: string) =>
      (await admin.get<Pod>(`${PODS}/${name}`)).status?.conditions?.find((c) => c.type === 'DisruptionTarget');
    await waitFor(
      'the stale condition reset',
      async () => ((await target('by-eviction'))?.status === 'False' ? true : undefined),
      10_000,
      50,
    );
    assert.equal((await target('by-kubelet'))?.status, 'True', "the kubelet's mark stays");
  });

  it('warns of a Pod that two budgets select', async () => {
    await runningReadyPod('both', 'both');
    for (const name of ['both-a', 'both-b'])
      await admin.create(PDBS, {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name },
        spec: { minAvailable: 1, selector: { matchLabels: { app: 'both' } } },
      });
    await waitFor('both budgets synced', async () => {
      const l = await admin.list<{ items: PodDisruptionBudget[] }>(PDBS);
      return l.items.filter((p) => p.metadata.name?.startsWith('both-') && p.status?.observedGeneration).length === 2;
    });
    await admin.patch(`${PODS}/both`, 'merge', { metadata: { labels: { app: 'both', tier: 'x' } } });
    const warned = await waitFor('the MultiplePodDisruptionBudgets event', async () => {
      const all = await admin.list<{ items: Event[] }>('/api/v1/namespaces/default/events');
      return all.items.find((e) => e.reason === 'MultiplePodDisruptionBudgets' && e.involvedObject.name === 'both');
    });
    assert.equal(warned.type, 'Warning');
    assert.match(
      warned.message ?? '',
      /^Pod "default"\/"both" matches multiple PodDisruptionBudgets\.  Chose "both-[ab]" arbitrarily\.$/,
    );
  });
});
