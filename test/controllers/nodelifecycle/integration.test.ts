// Node lifecycle with real processes: a `dkc server` running its controllers with a 4 s grace period and a real
// `dkc agent`. Stopping the agent turns its conditions Unknown and taints the node unreachable within the grace
// period and 5 s; starting it again brings Ready back (the agent's report undoes the controller's write) and the
// taint goes.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Lease, Node } from '../../../src/api/types.js';
import { RestClient } from '../../../src/client/index.js';
import { Supervisor } from '../../../src/supervisor/index.js';
import { defaultLocalConfig } from '../../../src/agent/clusterconfig.js';
import { startCluster, type Cluster, type ClusterNode } from '../../../src/up/cluster.js';
import { startServer, type RunningServer } from '../../helpers/server.js';
import { waitFor } from '../../helpers/wait.js';

const GRACE_MS = 4_000;
const UNREACHABLE = 'node.kubernetes.io/unreachable';

let server: RunningServer;
let cluster: Cluster | undefined;
let paused: Cluster | undefined;
let restarted: Supervisor | undefined;
let admin: RestClient;

const ready = (n: Node) => n.status?.conditions?.find((c) => c.type === 'Ready');
const tainted = (n: Node) => (n.spec?.taints ?? []).some((t) => t.key === UNREACHABLE && t.effect === 'NoSchedule');

before(async () => {
  server = await startServer(['--node-monitor-grace-period', `${GRACE_MS / 1000}s`]);
  admin = await RestClient.fromKubeconfig(server.kubeconfig, { timeoutMs: 5_000 });
});

after(async () => {
  await restarted?.stop('SIGKILL', 0);
  await cluster?.stop(0);
  const pid = paused?.supervisor.pidOf('nl-2');
  if (pid !== undefined) process.kill(pid, 'SIGCONT');
  await paused?.stop(0);
  admin?.close();
  await server?.cleanup();
});

// The agent renews its Lease every 0.5 s (a quarter of 2 s), well inside the grace period, as 10 s is inside 40 s;
// it computes its status every second but, with nothing changed, writes it only every 5 minutes (as by default).
const localConfig = (ctx: { caFile: string }) =>
  `${defaultLocalConfig(ctx)}nodeLeaseDurationSeconds: 2\nnodeStatusUpdateFrequency: 1s\nnodeStatusReportFrequency: 5m\n`;

function describeNode(n: Node | undefined): string {
  return JSON.stringify({ conditions: n?.status?.conditions, taints: n?.spec?.taints });
}

describe('node lifecycle controller', () => {
  it("marks a silent node Unknown and unreachable, and the agent's return undoes both", async () => {
    cluster = await startCluster({
      dataDir: server.dataDir,
      nodes: 1,
      port: 0,
      externalServerURL: server.url,
      nodeNames: ['nl-1'],
      localConfig,
    });
    const node: ClusterNode = cluster.nodes[0]!;
    const path = `/api/v1/nodes/${node.name}`;
    let last: Node | undefined;
    const live = await waitFor(`${node.name} Ready`, async () => {
      last = await admin.get<Node>(path);
      return ready(last)?.status === 'True' ? last : undefined;
    });
    assert.equal(tainted(live), false);
    // A live agent renews its Lease: it is never marked, however long it runs past the grace period. A soak in wall
    // time (the controller and the agent are other processes, on their own clocks): the pause paces the samples.
    const watchUntil = Date.now() + GRACE_MS + 2_000;
    while (Date.now() < watchUntil) {
      last = await admin.get<Node>(path);
      assert.equal(ready(last)?.status, 'True', `a live node was marked: ${describeNode(last)}`);
      await new Promise((r) => setTimeout(r, 200));
    }

    const stoppedAt = Date.now();
    await cluster.stop(5_000);
    cluster = undefined;
    const before = await admin.get<Node>(path);
    const dark = await waitFor(
      `${node.name} Unknown and tainted (last: ${describeNode(last)})`,
      async () => {
        last = await admin.get<Node>(path);
        return ready(last)?.status === 'Unknown' && tainted(last) ? last : undefined;
      },
      GRACE_MS + 5_000,
      100,
    );
    assert.ok(Date.now() - stoppedAt <= GRACE_MS + 5_000, `took ${Date.now() - stoppedAt} ms`);
    for (const type of ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure']) {
      const c = dark.status!.conditions!.find((x) => x.type === type)!;
      const was = before.status!.conditions!.find((x) => x.type === type)!;
      assert.deepEqual(
        [c.status, c.reason, c.message],
        ['Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.'],
        type,
      );
      assert.equal(c.lastHeartbeatTime, was.lastHeartbeatTime, `${type}: the last heartbeat is kept`);
      assert.ok(
        Date.parse(c.lastTransitionTime!) >= Math.floor(stoppedAt / 1000) * 1000,
        `${type}: transition time is now`,
      );
    }
    const taint = dark.spec!.taints!.find((t) => t.key === UNREACHABLE)!;
    assert.ok(taint.timeAdded, 'the taint records when it was added');

    restarted = new Supervisor();
    restarted.add({
      name: node.name,
      command: process.execPath,
      args: node.args,
      logFile: node.logFile,
      restart: 'always',
    });
    restarted.start();
    const back = await waitFor(
      `${node.name} Ready again without the taint (last: ${describeNode(last)})`,
      async () => {
        last = await admin.get<Node>(path);
        return ready(last)?.status === 'True' && !tainted(last) ? last : undefined;
      },
      20_000,
      100,
    );
    assert.ok(
      back.status!.conditions!.every((c) => c.status !== 'Unknown'),
      describeNode(back),
    );
    assert.match(server.log(), /Node nl-1 hasn't been updated for/);
  });

  it('an agent that was frozen past the grace period restores its own conditions on its next status update', async () => {
    paused = await startCluster({
      dataDir: server.dataDir,
      nodes: 1,
      port: 0,
      externalServerURL: server.url,
      nodeNames: ['nl-2'],
      localConfig,
    });
    const path = '/api/v1/nodes/nl-2';
    let last: Node | undefined;
    await waitFor('nl-2 Ready', async () => {
      last = await admin.get<Node>(path);
      return ready(last)?.status === 'True' ? true : undefined;
    });
    // Registration already wrote Ready=True: let the agent settle into its loops (status every 1 s) before freezing
    // it, shown by its Lease renewed more than two seconds later.
    const settled = Date.now() + 2_000;
    await waitFor('nl-2 to renew its Lease for 2 s', async () => {
      const lease = await admin
        .get<Lease>('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/nl-2')
        .catch(() => undefined);
      return Date.parse(lease?.spec?.renewTime ?? '') > settled ? true : undefined;
    });
    const pid = paused.supervisor.pidOf('nl-2')!;
    process.kill(pid, 'SIGSTOP');
    try {
      await waitFor(
        `nl-2 Unknown (last: ${describeNode(last)})`,
        async () => {
          last = await admin.get<Node>(path);
          return ready(last)?.status === 'Unknown' && tainted(last) ? true : undefined;
        },
        GRACE_MS + 5_000,
        100,
      );
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    // The same process, not a new one: it must notice that the server's copy differs from what it last wrote.
    const back = await waitFor(
      `nl-2 Ready again (last: ${describeNode(last)})`,
      async () => {
        last = await admin.get<Node>(path);
        return ready(last)?.status === 'True' && !tainted(last) ? last : undefined;
      },
      10_000,
      100,
    );
    assert.equal(paused.supervisor.pidOf('nl-2'), pid);
    assert.ok(
      back.status!.conditions!.every((c) => c.status !== 'Unknown'),
      describeNode(back),
    );
  });
});
