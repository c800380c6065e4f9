// The ReplicaSet controller inside `dkc server`, against its API: it adopts a matching orphan and creates only the
// rest (no second create before its watch shows the first ones), replaces a Pod whose labels stop matching and
// releases it, scales down by deleting, and writes its status through the status subresource, with kube's events.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ReplicaSet } from '../../../src/api/apps.js';
import type { Event } from '../../../src/api/types.js';
import type { Pod } from '../../../src/api/workloads.js';
import { RestClient } from '../../../src/client/index.js';
import { startServer, type RunningServer } from '../../helpers/server.js';
import { waitFor } from '../../helpers/wait.js';
import { appsObject } from '../workload/apps.js';

const PODS = '/api/v1/namespaces/default/pods';
const RSS = '/apis/apps/v1/namespaces/default/replicasets';

let server: RunningServer;
let admin: RestClient;

before(async () => {
  server = await startServer(['--controllers=replicaset']);
  admin = await RestClient.fromKubeconfig(server.kubeconfig, { timeoutMs: 5_000 });
});
after(async () => {
  admin?.close();
  await server?.cleanup();
});

const livePods = async () =>
  (await admin.list<{ items: Pod[] }>(PODS)).items.filter((p) => !p.metadata.deletionTimestamp);
const controllerUid = (p: Pod) => p.metadata.ownerReferences?.find((r) => r.controller)?.uid;
const events = async (reason: string) =>
  (await admin.list<{ items: Event[] }>('/api/v1/namespaces/default/events')).items.filter((e) => e.reason === reason);

async function settled(rs: ReplicaSet, replicas: number): Promise<Pod[]> {
  return waitFor(
    `${replicas} Pods of the ReplicaSet, its status saying so`,
    async () => {
      const owned = (await livePods()).filter((p) => controllerUid(p) === rs.metadata.uid);
      const status = (await admin.get<ReplicaSet>(`${RSS}/web`)).status;
      return owned.length === replicas && status?.replicas === replicas ? owned : undefined;
    },
    10_000,
    50,
  );
}

describe('replicaset controller', () => {
  it('adopts, creates only what is missing, releases, scales down and counts', async () => {
    await admin.create(PODS, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'orphan', labels: { app: 'web' } },
      spec: { containers: [{ name: 'c', image: 'pause' }] },
    });
    // The controller follows Pods and ReplicaSets on two watches, as kube's does: a ReplicaSet seen before the orphan
    // would get three new Pods (and lose one again). Nothing shows when the Pod watch has the orphan, so it is given
    // a moment on this loopback server.
    await new Promise((r) => setTimeout(r, 1_000));
    const rs = await admin.create<ReplicaSet>(RSS, appsObject('ReplicaSet', 'web', 'web', { replicas: 3 }));
    const owned = await settled(rs, 3);
    assert.ok(
      owned.some((p) => p.metadata.name === 'orphan'),
      'the orphan adopted',
    );
    assert.ok(owned.filter((p) => p.metadata.name !== 'orphan').every((p) => p.metadata.generateName === 'web-'));
    const created = await waitFor('two SuccessfulCreate events', async () => {
      const e = await events('SuccessfulCreate');
      return e.length === 2 ? e : undefined;
    });
    assert.match(created[0]?.message ?? '', /^Created pod: web-[a-z0-9]{5}$/);
    assert.equal((await events('SuccessfulDelete')).length, 0, 'nothing created twice, so nothing to take back');

    await admin.patch(`${PODS}/orphan`, 'merge', { metadata: { labels: { app: 'other' } } });
    await settled(rs, 3);
    const released = await waitFor('the relabelled Pod released', async () => {
      const p = await admin.get<Pod>(`${PODS}/orphan`);
      return controllerUid(p) === undefined ? p : undefined;
    });
    assert.equal(released.metadata.deletionTimestamp, undefined, 'released, not deleted');

    await admin.patch(`${RSS}/web`, 'merge', { spec: { replicas: 1 } });
    await settled(rs, 1);
    const status = (await admin.get<ReplicaSet>(`${RSS}/web`)).status;
    assert.equal(status?.observedGeneration, 2);
    await waitFor('two SuccessfulDelete events', async () =>
      (await events('SuccessfulDelete')).length === 2 ? true : undefined,
    );
  });
});
