// The disruption controller inside `dkc server`, against its API: a PodDisruptionBudget over Running, Ready Pods gets
// its status written through the status subresource, so the Eviction API lets exactly as many Pods go as the budget
// allows and refuses the next with kube's 429.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, PodDisruptionBudget } from '../../../src/api/workloads.js';
import { isApiError, RestClient } from '../../../src/client/index.js';
import { startServer, type RunningServer } from '../../helpers/server.js';
import { waitFor } from '../../helpers/wait.js';

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
    const rs = await admin.create<{ metadata: { uid: string } }>('/apis/apps/v1/namespaces/default/replicasets', {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'db' },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'db' } },
        template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'c', image: 'pause' }] } },
      },
    });
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

    const ds = await admin.create<{ metadata: { uid: string } }>('/apis/apps/v1/namespaces/default/daemonsets', {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent' },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'c', image: 'pause' }] } },
      },
    });
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
});
