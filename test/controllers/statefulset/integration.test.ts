// The StatefulSet controller inside `dkc server`, against its API: under OrderedReady the Pods `web-0…` come one at
// a time, each only once the one before is Running and Ready; they carry their identity and the revision the set
// records in a ControllerRevision; a scale down removes the highest ordinal first; a new template rolls out and the
// old revision goes beyond the history limit; the status counts as kube's.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { StatefulSet } from '../../../src/api/apps.js';
import type { Pod } from '../../../src/api/workloads.js';
import { isApiError, RestClient } from '../../../src/client/index.js';
import { revisionName } from '../../../src/controllers/statefulset/identity.js';
import { markRunningReady } from '../../helpers/cluster.js';
import { startServer, type RunningServer } from '../../helpers/server.js';
import { waitFor } from '../../helpers/wait.js';
import { appsObject } from '../workload/apps.js';

const PODS = '/api/v1/namespaces/default/pods';
const SETS = '/apis/apps/v1/namespaces/default/statefulsets';
const REVISIONS = '/apis/apps/v1/namespaces/default/controllerrevisions';

let server: RunningServer;
let admin: RestClient;

before(async () => {
  server = await startServer(['--controllers=statefulset']);
  admin = await RestClient.fromKubeconfig(server.kubeconfig, { timeoutMs: 5_000 });
});
after(async () => {
  admin?.close();
  await server?.cleanup();
});

const getSet = () => admin.get<StatefulSet>(`${SETS}/web`);
const podNames = async (): Promise<string[]> =>
  (await admin.list<{ items: Pod[] }>(PODS, { labelSelector: 'app=web' })).items
    .map((p) => p.metadata.name ?? '')
    .sort();

/** Waits for the set's status to count `replicas` created Pods: the sync that counted them decided with them seen. */
const counted = (replicas: number, ready: number) =>
  waitFor(
    `status: ${replicas} replicas, ${ready} ready`,
    async () => {
      const s = (await getSet()).status;
      return s?.replicas === replicas && (s.readyReplicas ?? 0) === ready ? s : undefined;
    },
    5_000,
    20,
  );

describe('statefulset controller', () => {
  it('makes web-0..2 in order, each after the previous is ready, scales down from the top, rolls out', async () => {
    await admin.create(
      SETS,
      appsObject('StatefulSet', 'web', 'web', { replicas: 3, serviceName: 'web', revisionHistoryLimit: 0 }),
    );
    for (let i = 0; i < 3; i++) {
      await counted(i + 1, i);
      assert.deepEqual(
        await podNames(),
        ['web-0', 'web-1', 'web-2'].slice(0, i + 1),
        `web-${i + 1} waits for web-${i}`,
      );
      await markRunningReady(admin, 'default', `web-${i}`);
    }
    const s = await counted(3, 3);
    assert.deepEqual(
      [s.currentReplicas, s.updatedReplicas, s.availableReplicas, s.observedGeneration],
      [3, 3, 3, (await getSet()).metadata.generation],
    );
    assert.ok(s.updateRevision?.startsWith('web-'));
    assert.equal(s.currentRevision, s.updateRevision);
    const rev = await admin.get<{ revision: number; metadata: { ownerReferences?: { kind: string }[] } }>(
      `/apis/apps/v1/namespaces/default/controllerrevisions/${s.updateRevision ?? ''}`,
    );
    assert.deepEqual([rev.revision, rev.metadata.ownerReferences?.[0]?.kind], [1, 'StatefulSet']);
    const pod1 = await admin.get<Pod>(`${PODS}/web-1`);
    assert.deepEqual(
      [
        pod1.metadata.labels?.['statefulset.kubernetes.io/pod-name'],
        pod1.metadata.labels?.['apps.kubernetes.io/pod-index'],
        pod1.metadata.labels?.['controller-revision-hash'],
        (pod1.spec as Record<string, unknown> | undefined)?.['hostname'],
        (pod1.spec as Record<string, unknown> | undefined)?.['subdomain'],
      ],
      ['web-1', '1', s.updateRevision, 'web-1', 'web'],
    );

    const deleted: string[] = [];
    const ac = new AbortController();
    const stream = await admin.watch<Pod>(PODS, { labelSelector: 'app=web', signal: ac.signal });
    const watched = (async () => {
      for await (const e of stream) {
        if (e.type === 'DELETED') deleted.push(e.object.metadata.name ?? '');
        if (deleted.length === 2) return;
      }
    })();
    try {
      await admin.patch(`${SETS}/web`, 'merge', { spec: { replicas: 1 } });
      await waitFor('web-2 and web-1 deleted', () => watched.then(() => true), 10_000);
    } finally {
      ac.abort();
      stream.close();
    }
    assert.deepEqual(deleted, ['web-2', 'web-1'], 'the highest ordinal first');
    await counted(1, 1);
    assert.deepEqual(await podNames(), ['web-0']);
    await admin.get(`${PODS}/web-1`).then(
      () => assert.fail('web-1 is gone'),
      (err: unknown) => assert.ok(isApiError(err, 404)),
    );

    // A new template: web-0 comes back at the new revision, which becomes current; with no history kept, the old
    // revision goes once no Pod carries it.
    await admin.patch(`${SETS}/web`, 'merge', {
      spec: { template: { spec: { containers: [{ name: 'c', image: 'pause:2' }] } } },
    });
    const updated = await waitFor(
      'web-0 at the new revision',
      async () => {
        const set = await getSet();
        const pod = await admin.get<Pod>(`${PODS}/web-0`).catch(() => undefined);
        const rev = pod?.metadata.labels?.['controller-revision-hash'];
        return rev && rev !== s.updateRevision && rev === set.status?.updateRevision ? rev : undefined;
      },
      5_000,
      20,
    );
    await markRunningReady(admin, 'default', 'web-0');
    const names = await waitFor(
      'only the new revision kept',
      async () => {
        const revs = await admin.list<{ items: { metadata: { name?: string } }[] }>(REVISIONS);
        const got = revs.items.map((r) => r.metadata.name);
        return got.length === 1 ? got : undefined;
      },
      5_000,
      20,
    );
    assert.deepEqual(names, [updated]);
    assert.equal((await getSet()).status?.currentRevision, updated);
  });

  it('takes the next name when its revision name holds other data, counting the collision', async () => {
    const db = appsObject('StatefulSet', 'db', 'db', { replicas: 1 });
    // The name the set's revision would take, from the set as the server stores it (defaulted), made by a dry run.
    const defaulted = await admin.create<StatefulSet>(SETS, db, { query: { dryRun: 'All' } });
    const squatted = revisionName(defaulted);
    await admin.create(REVISIONS, {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: { name: squatted },
      data: { other: true },
      revision: 1,
    });
    await admin.create(SETS, db);
    const status = await waitFor(
      'the set counting the collision',
      async () => {
        const s = (await admin.get<StatefulSet>(`${SETS}/db`)).status;
        return s?.updateRevision ? s : undefined;
      },
      5_000,
      20,
    );
    assert.equal(status.collisionCount, 1);
    assert.notEqual(status.updateRevision, squatted);
    const pod = await waitFor('db-0', () => admin.get<Pod>(`${PODS}/db-0`).catch(() => undefined), 5_000, 20);
    assert.equal(pod.metadata.labels?.['controller-revision-hash'], status.updateRevision);
  });
});
