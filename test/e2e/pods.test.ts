// The Pods a dkc node runs, end to end on `dkc up` (one node, its agent a real process): a Pod bound to the node
// runs (Running, Ready, an IP of the node's range, a running container), survives twenty restarts of the agent with
// its uid, IP and start time, a Pod past the node's maxPods is refused in the kubelet's words, a graceful delete is
// confirmed by the node, and a Pod deleted by force is ended on the node too.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RestClient } from '../../src/client/index.js';
import { defaultLocalConfig } from '../../src/agent/clusterconfig.js';
import type { Pod } from '../../src/api/workloads.js';
import { startCluster, type Cluster } from '../../src/up/cluster.js';
import { DEFAULT_PODS as PODS, barePod as podBody, nodeRuntime, podGone } from '../helpers/pods.js';
import { waitFor } from '../helpers/wait.js';

const RESTARTS = 20;

describe('the Pods a node runs (dkc up, one node, maxPods 2)', { concurrency: false, timeout: 240_000 }, () => {
  let work = '';
  let cluster: Cluster | undefined;
  let admin: RestClient;
  const get = (name: string) => admin.get<Pod>(`${PODS}/${name}`);
  const gone = (name: string) => podGone(admin, `${PODS}/${name}`);
  const runtime = () => nodeRuntime(cluster!.nodes[0]!.dir);

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'dkc-pods-'));
    cluster = await startCluster({
      dataDir: join(work, 'cluster'),
      nodes: 1,
      port: 0,
      localConfig: (ctx) => `${defaultLocalConfig(ctx)}maxPods: 2\n`,
    });
    admin = await RestClient.fromKubeconfig(cluster.kubeconfig);
  });
  after(async () => {
    admin?.close();
    await cluster?.stop(5_000);
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('a Pod bound to the node runs: Running and Ready, an IP, a running container', async () => {
    await admin.create(PODS, podBody('web-1'));
    const pod = await waitFor(
      'web-1 Running',
      async () => {
        const p = await get('web-1');
        return p.status?.phase === 'Running' ? p : undefined;
      },
      30_000,
    );
    assert.equal(pod.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
    assert.match(pod.status?.podIP ?? '', /^10\.\d+\.\d+\.2$/);
    assert.equal(pod.status?.hostIP, '127.0.0.1');
    assert.ok(pod.status?.containerStatuses?.[0]?.state.running?.startedAt, 'a running container');
    assert.ok((await runtime()).pods[pod.metadata.uid!], 'the runtime keeps it on the node');
    const listed = await admin.get<{ kind: string; items: Pod[] }>('/api/v1/nodes/node-1/proxy/pods');
    assert.deepEqual(
      [listed.kind, listed.items.map((p) => p.metadata.name)],
      ['PodList', ['web-1']],
      "the kubelet's /pods lists what the node runs",
    );
    const cpuState = await readFile(join(cluster!.nodes[0]!.dir, 'cpu_manager_state'), 'utf8');
    assert.match(cpuState, /^\{"policyName":"none",/, "the CPU manager's checkpoint is kept in the root dir");
    assert.deepEqual(
      pod.spec?.tolerations?.map((t) => `${t.key}:${t.effect}:${t.tolerationSeconds}`),
      ['node.kubernetes.io/not-ready:NoExecute:300', 'node.kubernetes.io/unreachable:NoExecute:300'],
      'DefaultTolerationSeconds gave it five minutes on a node that stops answering',
    );
  });

  it(`survives ${RESTARTS} restarts of the agent: the same uid, IP and start time, still Running`, async () => {
    const before = await get('web-1');
    const node = cluster!.nodes[0]!;
    for (let i = 0; i < RESTARTS; i++) {
      const was = cluster!.supervisor.pidOf('node-1');
      await cluster!.supervisor.restart('node-1', 5_000);
      // Each agent comes up and looks at its Pods before the next restart: it found web-1 in its runtime.
      await waitFor(
        `restart ${i + 1}: the new agent synced its pods`,
        async () => {
          const pid = cluster!.supervisor.pidOf('node-1');
          if (pid === undefined || pid === was) return undefined;
          const log = await readFile(node.logFile, 'utf8');
          return log
            .split('\n')
            .some(
              (l) => l.includes(` ${pid} `) && l.includes('pod runner synced: 1 pod(s) bound to the node, 1 running'),
            )
            ? true
            : undefined;
        },
        20_000,
        20,
      );
    }
    await waitFor(
      'the node Ready again',
      async () => {
        const n = await admin.get<{ status?: { conditions?: { type: string; status: string }[] } }>(
          '/api/v1/nodes/node-1',
        );
        return n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True' || undefined;
      },
      30_000,
    );
    const now = await get('web-1');
    assert.equal(now.metadata.uid, before.metadata.uid);
    assert.equal(now.status?.phase, 'Running');
    assert.equal(now.status?.podIP, before.status?.podIP);
    assert.equal(now.status?.startTime, before.status?.startTime);
    assert.equal(
      now.status?.containerStatuses?.[0]?.state.running?.startedAt,
      before.status?.containerStatuses?.[0]?.state.running?.startedAt,
    );
  });

  it("a Pod past maxPods is refused in the kubelet's words", async () => {
    await admin.create(PODS, podBody('web-2'));
    await waitFor(
      'web-2 Running',
      async () => ((await get('web-2')).status?.phase === 'Running' ? true : undefined),
      30_000,
    );
    await admin.create(PODS, podBody('web-3'));
    const refused = await waitFor(
      'web-3 Failed',
      async () => {
        const p = await get('web-3');
        return p.status?.phase === 'Failed' ? p : undefined;
      },
      30_000,
    );
    assert.equal(refused.status?.reason, 'OutOfpods');
    assert.equal(
      refused.status?.message,
      "Pod was rejected: Node didn't have enough resource: pods, requested: 1, used: 2, capacity: 2",
    );
  });

  it('a graceful delete stays Terminating until the node confirms it, then the Pod is gone', async () => {
    const uid = (await get('web-1')).metadata.uid!;
    const deleting = await admin.delete<Pod>(`${PODS}/web-1`);
    assert.ok(deleting.metadata.deletionTimestamp, 'marked for deletion, not gone');
    await waitFor('web-1 gone', () => gone('web-1'), 30_000);
    assert.equal((await runtime()).pods[uid], undefined, 'nothing of it left on the node');
  });

  it('a Pod deleted by force (grace 0) is ended on the node as well', async () => {
    const uid = (await get('web-2')).metadata.uid!;
    await admin.delete(`${PODS}/web-2`, { body: { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 } });
    assert.ok(await gone('web-2'), 'gone from the API at once');
    await waitFor('web-2 ended on the node', async () => ((await runtime()).pods[uid] ? undefined : true), 15_000);
  });
});
