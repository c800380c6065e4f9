// The Deployment and ReplicaSet controllers inside `dkc server`, against its API: a Deployment of 3 gets a
// ReplicaSet `<name>-<hash>` and 3 Pods (no scheduler: they stay Pending until the test marks them Running and Ready
// through the status subresource); a template change rolls out to a new ReplicaSet by kube's steps for maxSurge 1,
// maxUnavailable 0 — one new Pod at a time, an old one going only once a new one is available — and kubectl's
// `rollout status` reads the status as done.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Deployment, ReplicaSet } from '../../../src/api/apps.js';
import type { Pod } from '../../../src/api/workloads.js';
import { RestClient } from '../../../src/client/index.js';
import { kubectl, type Kubectl } from '../../helpers/kubectl.js';
import { startServer, type RunningServer } from '../../helpers/server.js';
import { waitFor } from '../../helpers/wait.js';
import { appsObject, podTemplate } from '../workload/apps.js';

const NS = '/namespaces/default';
const PODS = `/api/v1${NS}/pods`;
const RSS = `/apis/apps/v1${NS}/replicasets`;
const DEPLOYMENTS = `/apis/apps/v1${NS}/deployments`;

let server: RunningServer;
let admin: RestClient;
let k: Kubectl;

before(async () => {
  server = await startServer(['--controllers=replicaset,deployment']);
  admin = await RestClient.fromKubeconfig(server.kubeconfig, { timeoutMs: 5_000 });
  k = await kubectl('1.32', server.kubeconfig);
});
after(async () => {
  admin?.close();
  await k?.cleanup();
  await server?.cleanup();
});

const template = (image: string) => podTemplate('web', image);

const replicaSets = async () => (await admin.list<{ items: ReplicaSet[] }>(RSS)).items;
const pods = async () => (await admin.list<{ items: Pod[] }>(PODS)).items.filter((p) => !p.metadata.deletionTimestamp);
const ready = (p: Pod) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
const ownedBy = (rs: ReplicaSet) => (p: Pod) =>
  p.metadata.ownerReferences?.some((r) => r.controller && r.uid === rs.metadata.uid);

/** What the kubelet would report once the Pods of `rs` run: Running and Ready. */
async function markReady(rs: ReplicaSet): Promise<number> {
  const mine = (await pods()).filter(ownedBy(rs)).filter((p) => !ready(p));
  for (const p of mine) {
    await admin.patch(`${PODS}/${p.metadata.name}/status`, 'merge', {
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date().toISOString() }],
      },
    });
  }
  return mine.length;
}

/** The ReplicaSets' sizes once they are (new, old), the new one named by its template's image. */
async function sizes(what: string, image: string, want: [number, number]): Promise<[ReplicaSet, ReplicaSet?]> {
  return waitFor(
    `${what}: new ${want[0]}, old ${want[1]}`,
    async () => {
      const all = await replicaSets();
      const imageOf = (rs: ReplicaSet) => (rs.spec.template?.spec as Pod['spec'])?.containers[0]?.image;
      const fresh = all.find((rs) => imageOf(rs) === image);
      const old = all.find((rs) => rs !== fresh);
      const got = [fresh?.spec.replicas, old?.spec.replicas ?? 0];
      return fresh && got[0] === want[0] && got[1] === want[1]
        ? ([fresh, old] as [ReplicaSet, ReplicaSet?])
        : undefined;
    },
    10_000,
    50,
  );
}

describe('deployment and replicaset controllers', () => {
  it('create 3 Pods, then roll a template change out by kube’s steps', async () => {
    await admin.create(
      DEPLOYMENTS,
      appsObject('Deployment', 'web', 'web', {
        replicas: 3,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
        template: template('nginx:1'),
      }),
    );
    const [first] = await sizes('the first ReplicaSet', 'nginx:1', [3, 0]);
    assert.match(first.metadata.name ?? '', /^web-[bcdfghjklmnpqrstvwxz2456789]+$/);
    const created = await waitFor(
      'its 3 Pods',
      async () => ((await pods()).filter(ownedBy(first)).length === 3 ? true : undefined),
      10_000,
      50,
    );
    assert.ok(created);
    assert.equal(await markReady(first), 3);
    await waitFor(
      'the Deployment available',
      async () => {
        const d = await admin.get<Deployment>(`${DEPLOYMENTS}/web`);
        return d.status?.availableReplicas === 3 && d.status.updatedReplicas === 3 ? d : undefined;
      },
      10_000,
      50,
    );

    await admin.patch(`${DEPLOYMENTS}/web`, 'merge', { spec: { template: template('nginx:2') } });
    // maxSurge 1, maxUnavailable 0: a new Pod first; an old one goes only once the new one is available.
    for (const [newSize, oldSize] of [
      [1, 3],
      [2, 2],
      [3, 1],
    ] as const) {
      const [fresh] = await sizes('rolling', 'nginx:2', [newSize, oldSize]);
      await waitFor(
        `${newSize} new Pods`,
        async () => ((await pods()).filter(ownedBy(fresh)).length === newSize ? true : undefined),
        10_000,
        50,
      );
      assert.equal(await markReady(fresh), 1, 'one new Pod at a time');
    }
    await sizes('rolled out', 'nginx:2', [3, 0]);
    const out = await waitFor(
      'kubectl rollout status done',
      async () => {
        const r = await k.run(['rollout', 'status', 'deployment/web', '--watch=false']);
        return r.code === 0 && r.stdout.includes('successfully rolled out') ? r.stdout : undefined;
      },
      10_000,
      100,
    );
    assert.equal(out, 'deployment "web" successfully rolled out\n');
    const d = await admin.get<Deployment>(`${DEPLOYMENTS}/web`);
    assert.equal(d.metadata.annotations?.['deployment.kubernetes.io/revision'], '2');
    const progressing = d.status?.conditions?.find((c) => c.type === 'Progressing');
    assert.equal(progressing?.reason, 'NewReplicaSetAvailable');
  });
});
