// A simulated node's lifecycle inside the fleet process: it runs the Pods bound to it (from one watch the fleet
// shares) and keeps them across its agent's restart; a config change restarts only that node's instance, in this
// process, with the same checkpoint directory; each instance has metrics of its own (no registry shared between
// nodes); and stopping the fleet leaves nothing behind in the process (no listener, socket or timer of its own).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as https from 'node:https';
import { connect, type Socket } from 'node:net';
import * as tls from 'node:tls';
import { join } from 'node:path';
import { RestClient, isApiError } from '../../src/client/index.js';
import type { Pod } from '../../src/api/workloads.js';
import type { ConfigMap, Node } from '../../src/api/types.js';
import { startFleet, type Fleet } from '../../src/fleet/index.js';
import { startCluster, type Cluster } from '../../src/up/cluster.js';
import { configureLogging } from '../../src/util/klog.js';
import { waitFor } from '../helpers/wait.js';
import { stopFleetCluster } from './teardown.js';

let work = '';
let cluster: Cluster | undefined;
let fleet: Fleet | undefined;
let admin: RestClient;

/** Live handles by type (process.getActiveResourcesInfo), for what the fleet adds and must take away. */
function handles(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const h of process.getActiveResourcesInfo()) out[h] = (out[h] ?? 0) + 1;
  return out;
}

async function metricsOf(node: string): Promise<string> {
  const res = await admin.request<string>({
    method: 'GET',
    path: `/api/v1/nodes/${node}/proxy/metrics`,
    accept: 'text/plain',
  });
  return String(res.body);
}

let baseline: Record<string, number> = {};
const PODS = '/api/v1/namespaces/default/pods';
const podBody = (name: string, nodeName: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { nodeName, containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.9' }] },
});

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'dkc-fleet-life-'));
  configureLogging({ sink: (line) => void (line.startsWith('I') ? undefined : process.stderr.write(line)) });
  cluster = await startCluster({ dataDir: join(work, 'cluster'), nodes: 0, port: 0 });
  admin = await RestClient.fromKubeconfig(cluster.kubeconfig);
  baseline = handles();
  fleet = await startFleet({ kubeconfig: cluster.kubeconfig, nodes: 3, dataDir: join(work, 'fleet'), port: 0 });
  assert.equal(await fleet.ready(60_000), true);
});

after(() => stopFleetCluster({ fleet, admin, cluster, work }));

describe(
  'a simulated node restarts in-process and the fleet stops cleanly',
  { concurrency: false, timeout: 120_000 },
  () => {
    let started: Pod | undefined;
    it('a simulated node runs the Pods bound to it, from one watch the fleet shares', async () => {
      await admin.create(PODS, podBody('fleet-web', 'sim-2'));
      started = await waitFor('fleet-web Running on sim-2', async () => {
        const p = await admin.get<Pod>(`${PODS}/fleet-web`);
        return p.status?.phase === 'Running' ? p : undefined;
      });
      assert.equal(started.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
      assert.match(started.status?.podIP ?? '', /^10\.\d+\.\d+\.2$/);
      const listed = await admin.get<{ items: Pod[] }>('/api/v1/nodes/sim-2/proxy/pods');
      assert.deepEqual(
        listed.items.map((p) => p.metadata.name),
        ['fleet-web'],
      );
      const other = await admin.get<{ items: Pod[] }>('/api/v1/nodes/sim-1/proxy/pods');
      assert.deepEqual(other.items, [], "another node's view holds none of it");
    });

    it('a config assigned to one node restarts only that node, from the same checkpoint directory', async () => {
      const local = await readFile(join(work, 'fleet', 'config.yaml'), 'utf8');
      const cm = await admin.create<ConfigMap>('/api/v1/namespaces/default/configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'life', namespace: 'default' },
        data: { kubelet: `${local.trimEnd()}\nmaxPods: 77\n` },
      });
      await admin.patch('/api/v1/nodes/sim-2', 'merge', {
        spec: { configSource: { configMap: { namespace: 'default', name: 'life', kubeletConfigKey: 'kubelet' } } },
      });
      await waitFor('sim-2 runs the assigned config', async () => {
        const n = await admin.get<Node>('/api/v1/nodes/sim-2');
        return n.status?.config?.active?.configMap?.uid === cm.metadata.uid ? true : undefined;
      });
      assert.deepEqual(
        fleet!.nodes.map((n) => n.instance),
        [1, 2, 1],
      );
      const checkpoint = join(
        work,
        'fleet',
        'sim-2',
        'dynamic-config',
        'store',
        'checkpoints',
        cm.metadata.uid!,
        cm.metadata.resourceVersion!,
        'kubelet',
      );
      assert.equal(await readFile(checkpoint, 'utf8'), cm.data!['kubelet']);
      const kc = await admin.get<{ kubeletconfig: { maxPods: number } } | string>('/api/v1/nodes/sim-2/proxy/configz');
      assert.equal(
        (typeof kc === 'string' ? (JSON.parse(kc) as { kubeletconfig: { maxPods: number } }) : kc).kubeletconfig
          .maxPods,
        77,
      );
    });

    it("the restarted node's Pod runs on: the same uid, IP and start time; a graceful delete is confirmed", async () => {
      const p = await admin.get<Pod>(`${PODS}/fleet-web`);
      assert.deepEqual(
        [p.metadata.uid, p.status?.podIP, p.status?.startTime, p.status?.phase],
        [started!.metadata.uid, started!.status?.podIP, started!.status?.startTime, 'Running'],
      );
      await admin.delete(`${PODS}/fleet-web`);
      await waitFor('fleet-web gone once its node confirms', async () =>
        admin.get(`${PODS}/fleet-web`).then(
          () => undefined,
          (err: unknown) => (isApiError(err) && err.code === 404 ? true : undefined),
        ),
      );
    });

    it("each node's /metrics is its own: the assigned node's gauges name the ConfigMap, the others' the local config", async () => {
      assert.match(
        await metricsOf('sim-2'),
        /kubelet_node_config_active\{node_config_source="\/api\/v1\/namespaces\/default\/configmaps\/life"/,
      );
      for (const other of ['sim-1', 'sim-3']) {
        const text = await metricsOf(other);
        assert.match(text, /kubelet_node_config_active\{node_config_source="local"/);
        assert.doesNotMatch(text, /configmaps\/life/);
      }
    });

    it('a connection to a node becomes TLS only once its client speaks: a probe that connects and closes costs none', async () => {
      const node = fleet!.node('sim-1');
      const tlsConnections: string[] = [];
      // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called with its server as this (Reflect.apply below) and put back
      const emit = https.Server.prototype.emit;
      https.Server.prototype.emit = function (this: https.Server, event: string | symbol, ...args: unknown[]): boolean {
        if (event === 'connection') tlsConnections.push((args[0] as Socket).localAddress ?? '');
        return Reflect.apply(emit, this, [event, ...args]) as boolean;
      } as typeof emit;
      try {
        for (let i = 0; i < 5; i++) {
          await new Promise<void>((resolve, reject) => {
            const probe = connect({ host: node.address, port: fleet!.port }, () => probe.end());
            probe.once('close', () => resolve());
            probe.once('error', reject);
          });
        }
        assert.deepEqual(
          tlsConnections.filter((a) => a === node.address),
          [],
        );
        await new Promise<void>((resolve, reject) => {
          const client = tls.connect({ host: node.address, port: fleet!.port, rejectUnauthorized: false }, () =>
            client.end(),
          );
          client.once('close', () => resolve());
          client.once('error', reject);
        });
        assert.deepEqual(
          tlsConnections.filter((a) => a === node.address),
          [node.address],
          'a client that speaks TLS',
        );
      } finally {
        https.Server.prototype.emit = emit;
      }
    });

    it('stopping the fleet closes every listener, connection and timer it opened', async () => {
      const running = handles();
      assert.ok(
        (running['TCPServerWrap'] ?? 0) >= (baseline['TCPServerWrap'] ?? 0) + 3,
        'one listener per node address',
      );
      await fleet!.stop();
      await waitFor(
        "the fleet's handles to close",
        async () => {
          const now = handles();
          const extra = Object.entries(now).filter(([k, v]) => v > (baseline[k] ?? 0));
          return extra.length === 0 ? true : undefined;
        },
        5_000,
      );
    });
  },
);
