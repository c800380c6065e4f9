// kill -9 of the rollout controller at random moments of 6-node rollouts, 20 trials alternating a good config and one
// the agents refuse: `dkc controller` (the standalone host, leader-elected) runs beside a `dkc server` started with
// --controllers=, is SIGKILLed once or twice per trial and started again (its Lease deleted, standing in for the 15 s
// expiry). Every trial must end Succeeded or Reverted with every node right: on the new config with the exact
// pre-trial source recorded as previous (a node switched twice would record the new one), or back on its exact
// previous source with the annotations gone.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigMap, Node, NodeConfigSource } from '../../src/api/types.js';
import { RestClient, isApiError } from '../../src/client/index.js';
import { PREVIOUS_SOURCE_ANNOTATION, ROLLOUT_ANNOTATION, ROLLOUTS_PATH, type NodeConfigRollout } from '../../src/controllers/rollout/resource.js';
import { startCluster, type Cluster } from '../../src/up/cluster.js';
import { dkcBin } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const TRIALS = 20;
const NODES = ['node-1', 'node-2', 'node-3', 'node-4', 'node-5', 'node-6'];
const LEASE = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/dkc-controller';

let work = '';
let cluster: Cluster | undefined;
let admin: RestClient;
let controller: ChildProcess | undefined;
let controllerLog = '';
let localConfig = '';

function startController(): void {
  const child = spawn(process.execPath, [dkcBin, 'controller', '--kubeconfig', cluster!.kubeconfig, '--controllers=rollout'], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d: Buffer) => (controllerLog += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (controllerLog += d.toString()));
  controller = child;
}

async function killController(): Promise<void> {
  const c = controller;
  if (!c || c.exitCode !== null || c.signalCode !== null) return;
  const exited = new Promise((r) => c.once('exit', r));
  c.kill('SIGKILL');
  await exited;
}

/** The next controller need not wait out the dead one's Lease: deleting it stands in for the expiry. */
async function deleteLease(): Promise<void> {
  try {
    await admin.delete(LEASE);
  } catch (err) {
    if (!isApiError(err) || err.status.code !== 404) throw err;
  }
}

const sourceOf = (n: Node): NodeConfigSource | null => (n.spec?.configSource?.configMap ? n.spec.configSource : null);

async function nodes(): Promise<Map<string, Node>> {
  const list = await admin.list<{ items: Node[] }>('/api/v1/nodes');
  return new Map(list.items.map((n) => [n.metadata.name!, n]));
}

/** A seeded generator (mulberry32): the kill moments of a failing run can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'dkc-rollout-crash-'));
  cluster = await startCluster({ dataDir: join(work, 'cluster'), nodes: 6, port: 0, serverArgs: ['--controllers='] });
  admin = await RestClient.fromKubeconfig(cluster.kubeconfig);
  localConfig = await readFile(cluster.nodes[0]!.config, 'utf8');
  await waitFor(
    'six nodes Ready',
    async () => {
      const ready = [...(await nodes()).values()].filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
      return ready.length === 6 ? true : undefined;
    },
    30_000,
  );
  startController();
});

after(async () => {
  await killController();
  admin?.close();
  await cluster?.stop(5_000);
  if (work) await rm(work, { recursive: true, force: true });
});

describe('kill -9 of the rollout controller mid-rollout', () => {
  it(`${TRIALS} trials, good and bad configs, end Succeeded or Reverted with every node right`, { timeout: 240_000 }, async () => {
    const seed = Number(process.env['DKC_CRASH_SEED'] ?? Date.now() % 100_000);
    const random = prng(seed);
    let totalKills = 0;
    let midRollout = 0;
    for (let trial = 1; trial <= TRIALS; trial++) {
      const bad = trial % 2 === 0;
      const name = `t-${trial}`;
      const cm = await admin.create<ConfigMap>('/api/v1/namespaces/kube-system/configmaps', {
        metadata: { name, namespace: 'kube-system' },
        data: { kubelet: `${localConfig.trimEnd()}\n${bad ? 'kubeAPIQPS: -1' : `eventRecordQPS: ${trial}`}\n` },
      });
      const before = new Map([...(await nodes())].map(([n, node]) => [n, sourceOf(node)]));
      await admin.create(ROLLOUTS_PATH, {
        apiVersion: 'dkc.io/v1alpha1',
        kind: 'NodeConfigRollout',
        metadata: { name },
        spec: { configSource: { configMap: { namespace: 'kube-system', name, kubeletConfigKey: 'kubelet' } }, nodeSelector: {}, strategy: { canary: 1, maxUnavailable: 2 }, progressDeadlineSeconds: 60 },
      });
      const kills = 1 + Math.floor(random() * 2);
      for (let k = 0; k < kills; k++) {
        // A random moment is the point here: the kill must land anywhere in the rollout.
        await new Promise((r) => setTimeout(r, Math.floor(random() * (bad ? 600 : 1500))));
        const phase = (await admin.get<NodeConfigRollout>(`${ROLLOUTS_PATH}/${name}`)).status?.phase;
        if (phase !== 'Succeeded' && phase !== 'Reverted') midRollout++;
        totalKills++;
        await killController();
        await deleteLease();
        startController();
      }
      const want = bad ? 'Reverted' : 'Succeeded';
      const what = `trial ${trial} (seed ${seed}) ${want}`;
      await waitFor(what, async () => ((await admin.get<NodeConfigRollout>(`${ROLLOUTS_PATH}/${name}`)).status?.phase === want ? true : undefined), 60_000).catch(
        (err: Error) => {
          throw new Error(`${err.message}\ncontroller log:\n${controllerLog.slice(-4000)}`);
        },
      );
      const after = await nodes();
      for (const n of NODES) {
        const node = after.get(n)!;
        const annotations = node.metadata.annotations ?? {};
        if (bad) {
          assert.deepEqual(sourceOf(node), before.get(n), `${what}: ${n} back on its exact previous source`);
          assert.notEqual(annotations[ROLLOUT_ANNOTATION], name, `${what}: ${n} no longer annotated`);
        } else {
          assert.deepEqual(sourceOf(node), { configMap: { namespace: 'kube-system', name, kubeletConfigKey: 'kubelet' } }, `${what}: ${n} on the new config`);
          assert.equal(annotations[ROLLOUT_ANNOTATION], name);
          assert.equal(annotations[PREVIOUS_SOURCE_ANNOTATION], JSON.stringify(before.get(n)), `${what}: ${n} switched once (previous source as before the trial)`);
          const active = await waitFor(`${n} active on ${name}`, async () => {
            const a = (await admin.get<Node>(`/api/v1/nodes/${n}`)).status?.config?.active?.configMap;
            return a?.name === name ? a : undefined;
          });
          assert.equal(active.resourceVersion, cm.metadata.resourceVersion);
        }
      }
      const r = await admin.get<NodeConfigRollout>(`${ROLLOUTS_PATH}/${name}`);
      if (!bad) assert.equal(r.status?.succeededNodes, 6, `${what}: all six succeeded`);
      else assert.deepEqual(r.status?.failures?.map((f) => f.reason), ['ConfigError'], `${what}: the canary failed, nothing else`);
    }
    // Guards the test's meaning: most kills must land while a rollout is still moving.
    assert.ok(midRollout * 2 >= totalKills, `only ${midRollout} of ${totalKills} kills landed mid-rollout`);
  });
});
