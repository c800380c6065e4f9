// Acceptance of `dkc fleet` at a size npm test can afford: 200 simulated nodes in this process against a real local
// cluster's API server. Every node registers and reports Ready with an address of its own; real kubectl reaches any
// node's /configz through the API server's node proxy; each node's credentials are its own (the Node authorizer refuses
// it another node's ConfigMap); a NodeConfigRollout over the whole fleet succeeds with every node's status.config
// naming the new ConfigMap; a config the agents refuse is reverted.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ApiError, RestClient, loadKubeconfig } from '../../src/client/index.js';
import type { ConfigMap, Node } from '../../src/api/types.js';
import { ROLLOUTS_PATH, newRollout, type NodeConfigRollout, type RolloutSpec } from '../../src/api/dkc/rollout.js';
import { startFleet, type Fleet } from '../../src/fleet/index.js';
import { nodeTokenSigner } from '../../src/pki/nodetoken.js';
import { startCluster, type Cluster } from '../../src/up/cluster.js';
import { configureLogging } from '../../src/util/klog.js';
import { kubectl } from '../helpers/kubectl.js';
import { waitFor } from '../helpers/wait.js';
import { stopFleetCluster } from './teardown.js';
import { kubeletConfigMap, kubeletSource } from '../helpers/nodeconfig.js';

const N = 200;
let work = '';
let cluster: Cluster | undefined;
let fleet: Fleet | undefined;
let admin: RestClient;
let localConfig = '';

const source = kubeletSource;

const configMap = (name: string, extra: string): Promise<ConfigMap> =>
  kubeletConfigMap(admin, localConfig, name, extra);

async function fleetNodes(): Promise<Node[]> {
  const list = await admin.list<{ items: Node[] }>('/api/v1/nodes', { labelSelector: 'pool=sim' });
  return list.items;
}

async function untilPhase(name: string, phase: string, ms: number): Promise<NodeConfigRollout> {
  return waitFor(
    `rollout ${name} ${phase}`,
    async () => {
      const r = await admin.get<NodeConfigRollout>(`${ROLLOUTS_PATH}/${name}`);
      return r.status?.phase === phase ? r : undefined;
    },
    ms,
    250,
  );
}

/** A client that authenticates as simulated node `name`, with a node token as the fleet's own (from the cluster CA). */
async function nodeClient(name: string): Promise<RestClient> {
  const cfg = await loadKubeconfig(cluster!.kubeconfig);
  const sign = nodeTokenSigner(await readFile(join(dirname(cluster!.kubeconfig), 'pki', 'ca.key'), 'utf8'));
  return new RestClient({
    server: cfg.server,
    ...(cfg.ca ? { ca: cfg.ca } : {}),
    token: sign(name, Math.floor(Date.now() / 1000), 600),
  });
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'dkc-fleet-'));
  // Two hundred agents log their start-up; only warnings and errors would help a failure here.
  configureLogging({ sink: (line) => void (line.startsWith('I') ? undefined : process.stderr.write(line)) });
  cluster = await startCluster({ dataDir: join(work, 'cluster'), nodes: 0, port: 0 });
  admin = await RestClient.fromKubeconfig(cluster.kubeconfig);
  const started = performance.now();
  fleet = await startFleet({
    kubeconfig: cluster.kubeconfig,
    nodes: N,
    dataDir: join(work, 'fleet'),
    port: 0,
    labels: { pool: 'sim' },
  });
  assert.equal(await fleet.ready(120_000), true, `not every node became Ready: ${JSON.stringify(fleet.progress())}`);
  const s = (performance.now() - started) / 1000;
  process.stdout.write(`# ${N} simulated nodes Ready in ${s.toFixed(1)} s (${(N / s).toFixed(0)} nodes/s)\n`);
  localConfig = await readFile(join(work, 'fleet', 'config.yaml'), 'utf8');
});

after(() => stopFleetCluster({ fleet, admin, cluster, work }));

describe(`dkc fleet: ${N} simulated nodes against a local cluster`, { concurrency: false, timeout: 300_000 }, () => {
  it('registers every node Ready, each with a loopback address of its own and the shared kubelet port', async () => {
    const nodes = await fleetNodes();
    assert.equal(nodes.length, N);
    const addresses = new Set<string>();
    for (const n of nodes) {
      assert.ok(
        n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        `${n.metadata.name} is not Ready`,
      );
      const ip = n.status?.addresses?.find((a) => a.type === 'InternalIP')?.address ?? '';
      assert.match(ip, /^127\.1\.\d+\.\d+$/);
      addresses.add(ip);
      assert.equal(n.status?.daemonEndpoints?.kubeletEndpoint?.Port, fleet!.port);
    }
    assert.equal(addresses.size, N);
  });

  it('kubectl get --raw /api/v1/nodes/<node>/proxy/configz answers for any node', async () => {
    const k = await kubectl('1.32', cluster!.kubeconfig);
    try {
      for (const name of ['sim-1', `sim-${N}`]) {
        const body = JSON.parse(await k.ok(['get', '--raw', `/api/v1/nodes/${name}/proxy/configz`])) as {
          kubeletconfig: { address: string; port: number };
        };
        assert.equal(body.kubeletconfig.address, fleet!.node(name).address);
        assert.equal(body.kubeletconfig.port, fleet!.port);
      }
    } finally {
      await k.cleanup();
    }
  });

  it("a node's credentials read its own assigned ConfigMap and are refused another node's (403)", async () => {
    await configMap('only-sim-2', 'eventRecordQPS: 6');
    await admin.patch('/api/v1/nodes/sim-2', 'merge', { spec: { configSource: source('only-sim-2') } });
    const path = '/api/v1/namespaces/kube-system/configmaps/only-sim-2';
    const [own, other] = [await nodeClient('sim-2'), await nodeClient('sim-1')];
    try {
      await waitFor('sim-2 may read its ConfigMap', async () =>
        (await own.get(path).catch(() => undefined)) ? true : undefined,
      );
      const refused = await other.get(path).then(
        () => undefined,
        (err: unknown) => err,
      );
      assert.ok(refused instanceof ApiError && refused.code === 403, `expected 403, got ${String(refused)}`);
    } finally {
      own.close();
      other.close();
    }
    await admin.patch('/api/v1/nodes/sim-2', 'merge', { spec: { configSource: null } });
    await waitFor(
      'sim-2 back on its local config',
      async () => ((await admin.get<Node>('/api/v1/nodes/sim-2')).status?.config?.active ? undefined : true),
      30_000,
    );
  });

  it('a NodeConfigRollout over the whole fleet succeeds and every node reports the new config active', async () => {
    const cm = await configMap('fleet-good', 'eventRecordQPS: 7');
    const spec: RolloutSpec = {
      configSource: source('fleet-good'),
      nodeSelector: { matchLabels: { pool: 'sim' } },
      strategy: { canary: 1, maxUnavailable: '10%', soakSeconds: 0 },
    };
    const started = performance.now();
    await admin.create(ROLLOUTS_PATH, newRollout('fleet-good', spec));
    const r = await untilPhase('fleet-good', 'Succeeded', 180_000);
    process.stdout.write(
      `# rollout over ${N} nodes Succeeded in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );
    assert.deepEqual([r.status?.targetNodes, r.status?.succeededNodes, r.status?.failedNodes], [N, N, 0]);
    const want = {
      configMap: {
        ...source('fleet-good').configMap!,
        uid: cm.metadata.uid,
        resourceVersion: cm.metadata.resourceVersion,
      },
    };
    for (const n of await fleetNodes()) {
      assert.deepEqual(n.status?.config?.active, want, n.metadata.name);
      assert.deepEqual(n.status?.config?.assigned, want, n.metadata.name);
      assert.equal(n.status?.config?.error, undefined, n.metadata.name);
    }
    // Every node restarted in this process to run it: its second instance at least.
    assert.ok(fleet!.nodes.every((n) => n.instance >= 2));
    const kc = await admin.get<{ kubeletconfig: { eventRecordQPS: number } }>(`/api/v1/nodes/sim-${N}/proxy/configz`);
    assert.equal((typeof kc === 'string' ? (JSON.parse(kc) as typeof kc) : kc).kubeletconfig.eventRecordQPS, 7);
  });

  it('a config the agents refuse fails the canary and the rollout reverts it', async () => {
    await configMap('fleet-bad', 'kubeAPIQPS: -1');
    const spec: RolloutSpec = {
      configSource: source('fleet-bad'),
      nodeSelector: { matchLabels: { pool: 'sim' } },
      strategy: { canary: 1, maxUnavailable: '10%' },
      failurePolicy: 'Revert',
    };
    await admin.create(ROLLOUTS_PATH, newRollout('fleet-bad', spec));
    await untilPhase('fleet-bad', 'Reverted', 120_000);
    const nodes = await fleetNodes();
    for (const n of nodes) assert.deepEqual(n.spec?.configSource, source('fleet-good'), n.metadata.name);
    await waitFor(
      'every node back on fleet-good without error',
      async () => {
        const all = await fleetNodes();
        return all.every((n) => n.status?.config?.active?.configMap?.name === 'fleet-good' && !n.status.config.error)
          ? true
          : undefined;
      },
      60_000,
      250,
    );
  });
});
