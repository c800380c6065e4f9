// kill -9 of the rollout controller at random moments of 6-node rollouts, 20 trials alternating a good config and one
// the agents refuse, in two hosts:
// - 'controller': `dkc controller` (the standalone host, leader-elected) runs beside a `dkc server` started with
//   --controllers=, is SIGKILLed once or twice per trial and started again (its Lease deleted, standing in for the
//   15 s expiry);
// - 'server': the controller runs inside `dkc server` (the default), and the server process itself is SIGKILLed and
//   started again at once (as systemd's Restart=always would; dkc up's supervisor would back off further after each
//   of twenty crashes in a row); the restarted server takes its own Lease back at once (SQLite).
// Every trial must end Succeeded or Reverted with every node right: on the new config with the exact pre-trial source
// recorded as previous in the rollout's status (a node switched twice would record the new one), or back on its
// exact previous source, no longer annotated as the rollout's.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigMap, Node, NodeConfigSource } from '../../src/api/types.js';
import { RestClient, isApiError } from '../../src/client/index.js';
import { ROLLOUT_ANNOTATION, ROLLOUTS_PATH, recordSource, type NodeConfigRollout } from '../../src/api/dkc/rollout.js';
import { startCluster, type Cluster } from '../../src/up/cluster.js';
import { dkcBin, startServer, type RunningServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { prng } from '../helpers/prng.js';

// The server host runs at least 20 trials (what the controllers' design asks of a kill -9 mid-rollout); the
// standalone host shares every line of the controller and its leader election, so 10 of its own are enough.
const DEFAULT_TRIALS: Record<'controller' | 'server', number> = { server: 20, controller: 10 };
const NODES = ['node-1', 'node-2', 'node-3', 'node-4', 'node-5', 'node-6'];
const LEASE = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/dkc-controller';

export type CrashTarget = 'controller' | 'server';

export function rolloutCrashSuite(target: CrashTarget): void {
  const TRIALS = Number(process.env['DKC_CRASH_TRIALS'] ?? DEFAULT_TRIALS[target]);
  let work = '';
  let cluster: Cluster | undefined;
  let admin: RestClient;
  let controller: ChildProcess | undefined;
  let controllerLog = '';
  let server: RunningServer | undefined;
  let localConfig = '';

  function startController(): void {
    const child = spawn(
      process.execPath,
      [dkcBin, 'controller', '--kubeconfig', cluster!.kubeconfig, '--controllers=rollout'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout.on('data', (d: Buffer) => (controllerLog += d.toString()));
    child.stderr.on('data', (d: Buffer) => (controllerLog += d.toString()));
    controller = child;
  }

  async function killServer(): Promise<void> {
    await server!.kill();
    await server!.restart();
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

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'dkc-rollout-crash-'));
    if (target === 'server') {
      // The server is this test's own process, so that it can be killed and started again; the agents use its CA.
      server = await startServer([], { dataDir: join(work, 'server') });
      await cp(join(server.dataDir, 'pki'), join(work, 'cluster', 'pki'), { recursive: true });
      cluster = await startCluster({
        dataDir: join(work, 'cluster'),
        nodes: 6,
        port: 0,
        externalServerURL: server.url,
      });
      admin = await RestClient.fromKubeconfig(server.kubeconfig);
    } else {
      cluster = await startCluster({
        dataDir: join(work, 'cluster'),
        nodes: 6,
        port: 0,
        serverArgs: ['--controllers='],
      });
      admin = await RestClient.fromKubeconfig(cluster.kubeconfig);
    }
    localConfig = await readFile(cluster.nodes[0]!.config, 'utf8');
    await waitFor(
      'six nodes Ready',
      async () => {
        const ready = [...(await nodes()).values()].filter((n) =>
          n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        );
        return ready.length === 6 ? true : undefined;
      },
      30_000,
    );
    if (target === 'controller') startController();
  });

  after(async () => {
    await killController();
    admin?.close();
    await cluster?.stop(5_000);
    await server?.cleanup();
    if (work) await rm(work, { recursive: true, force: true });
  });

  describe(`kill -9 of the rollout controller mid-rollout (${target === 'controller' ? 'dkc controller' : 'dkc server, the controller inside'})`, () => {
    it(
      `${TRIALS} trials, good and bad configs, end Succeeded or Reverted with every node right`,
      { timeout: 360_000 },
      async (t) => {
        const seed = Number(process.env['DKC_CRASH_SEED'] ?? Date.now() % 100_000);
        const random = prng(seed);
        let totalKills = 0;
        let midRollout = 0;
        for (let trial = 1; trial <= TRIALS; trial++) {
          const started = Date.now();
          const bad = trial % 2 === 0;
          const name = `t-${trial}`;
          const cm = await admin.create<ConfigMap>('/api/v1/namespaces/kube-system/configmaps', {
            metadata: { name, namespace: 'kube-system' },
            data: { kubelet: `${localConfig.trimEnd()}\n${bad ? 'kubeAPIQPS: -1' : `eventRecordQPS: ${trial}`}\n` },
            // Assigned as it is (a mutable one would be pinned as a copy): every node's source is the trial's name.
            immutable: true,
          });
          const before = new Map([...(await nodes())].map(([n, node]) => [n, sourceOf(node)]));
          await admin.create(ROLLOUTS_PATH, {
            apiVersion: 'dkc.io/v1alpha1',
            kind: 'NodeConfigRollout',
            metadata: { name },
            spec: {
              configSource: { configMap: { namespace: 'kube-system', name, kubeletConfigKey: 'kubelet' } },
              nodeSelector: {},
              strategy: { canary: 1, maxUnavailable: 2 },
              progressDeadlineSeconds: 60,
            },
          });
          // A server restart outlasts a six-node rollout, so a second kill of the server would find it finished.
          const kills = target === 'server' ? 1 : 1 + Math.floor(random() * 2);
          for (let k = 0; k < kills; k++) {
            // A random moment is the point here: the kill must land anywhere in the rollout.
            await new Promise((r) => setTimeout(r, Math.floor(random() * (bad ? 600 : 1500))));
            const phase = (await admin.get<NodeConfigRollout>(`${ROLLOUTS_PATH}/${name}`)).status?.phase;
            const moving = phase !== 'Succeeded' && phase !== 'Reverted';
            // A second kill is for a rollout still moving; one that has finished (a refused config ends in well under a
            // second) has nothing left to interrupt. The first kill always lands, and the guard below counts it.
            if (k > 0 && !moving) break;
            if (moving) midRollout++;
            totalKills++;
            if (target === 'server') {
              await killServer();
            } else {
              await killController();
              await deleteLease();
              startController();
            }
          }
          const want = bad ? 'Reverted' : 'Succeeded';
          const what = `trial ${trial} (seed ${seed}) ${want}`;
          await waitFor(
            what,
            async () =>
              (await admin.get<NodeConfigRollout>(`${ROLLOUTS_PATH}/${name}`)).status?.phase === want
                ? true
                : undefined,
            60_000,
          ).catch(async (err: Error) => {
            const log = target === 'controller' ? controllerLog : server!.log();
            const state = JSON.stringify((await admin.get<NodeConfigRollout>(`${ROLLOUTS_PATH}/${name}`)).status);
            throw new Error(`${err.message}\nrollout status: ${state}\ncontroller log:\n${log.slice(-4000)}`);
          });
          const after = await nodes();
          const recorded = (await admin.get<NodeConfigRollout>(`${ROLLOUTS_PATH}/${name}`)).status?.nodes ?? {};
          for (const n of NODES) {
            const node = after.get(n)!;
            const annotations = node.metadata.annotations ?? {};
            if (bad) {
              assert.deepEqual(sourceOf(node), before.get(n), `${what}: ${n} back on its exact previous source`);
              assert.notEqual(annotations[ROLLOUT_ANNOTATION], name, `${what}: ${n} no longer annotated`);
            } else {
              assert.deepEqual(
                sourceOf(node),
                { configMap: { namespace: 'kube-system', name, kubeletConfigKey: 'kubelet' } },
                `${what}: ${n} on the new config`,
              );
              assert.equal(annotations[ROLLOUT_ANNOTATION], name);
              const previous = recorded[n]?.previous?.configSource;
              assert.deepEqual(
                previous,
                recordSource(before.get(n) ?? null),
                `${what}: ${n} switched once (previous source as before the trial)`,
              );
              const active = await waitFor(`${n} active on ${name}`, async () => {
                const a = (await admin.get<Node>(`/api/v1/nodes/${n}`)).status?.config?.active?.configMap;
                return a?.name === name ? a : undefined;
              });
              assert.equal(active.resourceVersion, cm.metadata.resourceVersion);
            }
          }
          t.diagnostic(`trial ${trial} (${bad ? 'refused config' : 'good config'}): ${Date.now() - started} ms`);
          const r = await admin.get<NodeConfigRollout>(`${ROLLOUTS_PATH}/${name}`);
          if (!bad) assert.equal(r.status?.succeededNodes, 6, `${what}: all six succeeded`);
          else
            assert.deepEqual(
              r.status?.failures?.map((f) => f.reason),
              ['ConfigError'],
              `${what}: the canary failed, nothing else`,
            );
        }
        // Guards the test's meaning: most kills must land while a rollout is still moving.
        assert.ok(midRollout * 2 >= totalKills, `only ${midRollout} of ${totalKills} kills landed mid-rollout`);
      },
    );
  });
}
