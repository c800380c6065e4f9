// High availability: two `dkc server` replicas over a 3-member etcd behind an nginx TCP balancer, and three real
// agents that know only the balancer's address. A config rollout by `kubectl patch` runs while a writer creates
// ConfigMaps through the balancer; mid-rollout one etcd member and one server replica are SIGKILLed. Afterwards every
// acknowledged write is there, every agent runs the assigned config, and the agents' clients that were on the
// killed replica have reconnected through the balancer (their leases are renewed after the kill).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile, cp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ApiError, RestClient } from '../../src/client/index.js';
import { defaultLocalConfig } from '../../src/agent/clusterconfig.js';
import { startCluster, type Cluster } from '../../src/up/cluster.js';
import { startEtcd } from '../helpers/etcd.js';
import { kubectlPath } from '../helpers/kubectl.js';
import { waitFor } from '../helpers/wait.js';
import { startNginxStream, startReplicas, type Balancer } from '../helpers/replicas.js';
import type { RunningServer } from '../helpers/server.js';

const run = promisify(execFile);
const NODES = ['node-1', 'node-2', 'node-3'];

let work: string;
let etcd: Awaited<ReturnType<typeof startEtcd>>;
let servers: RunningServer[] = [];
let lb: Balancer;
let cluster: Cluster;
let admin: RestClient;
let kubeconfig: string;

/** kubectl against the balancer, retried: a request cut off by the kill fails and is simply repeated. */
async function kubectl(args: string[]): Promise<string> {
  let last: unknown;
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const { stdout } = await run(kubectlPath('1.32'), args, {
        env: { ...process.env, KUBECONFIG: kubeconfig, HOME: work },
        timeout: 20_000,
      });
      return stdout;
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 250)); // a client's pause before its retry, as the test plays a client
    }
  }
  throw new Error(`kubectl ${args.join(' ')} kept failing: ${String((last as { stderr?: string }).stderr ?? last)}`);
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'dkc-ha-'));
  etcd = await startEtcd({ members: 3 });
  servers = await startReplicas(2, etcd);
  lb = await startNginxStream(servers.map((s) => s.port));
  kubeconfig = join(work, 'admin.kubeconfig');
  await writeFile(kubeconfig, (await readFile(servers[0]!.kubeconfig, 'utf8')).replace(servers[0]!.url, lb.url));
  admin = await RestClient.fromKubeconfig(kubeconfig, { timeoutMs: 10_000 });
  // The agents' side: node certificates from the servers' CA, kubeconfigs pointing at the balancer.
  await cp(join(servers[0]!.dataDir, 'pki'), join(work, 'agents', 'pki'), { recursive: true });
  cluster = await startCluster({
    dataDir: join(work, 'agents'),
    nodes: NODES.length,
    port: 0,
    externalServerURL: lb.url,
  });
  await waitFor(
    'three Ready nodes',
    async () => {
      const list = await admin.list<{ items: { status?: { conditions?: { type: string; status: string }[] } }[] }>(
        '/api/v1/nodes',
      );
      const ready = list.items.filter((n) =>
        n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
      );
      return ready.length === NODES.length ? true : undefined;
    },
    { timeoutMs: 60_000, stepMs: 100 },
  );
});

after(async () => {
  admin?.close();
  await cluster?.stop(5_000);
  await lb?.stop();
  for (const s of servers) await s.cleanup();
  await etcd?.cleanup();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('two replicas over a 3-member etcd behind nginx', () => {
  it('a rollout survives SIGKILL of one etcd member and one server replica mid-way', async () => {
    const caFile = join(cluster.dataDir, 'pki', 'ca.crt');
    const kubelet = `${defaultLocalConfig({ caFile })}eventRecordQPS: 7\n`;
    await admin.create('/api/v1/namespaces/kube-system/configmaps', {
      metadata: { name: 'ha-config' },
      data: { kubelet },
    });

    // A writer through the balancer for the whole rollout; only what it got a 201 for must survive.
    const acked = new Set<string>();
    let failures = 0;
    let writing = true;
    const writer = (async () => {
      const client = await RestClient.fromKubeconfig(kubeconfig, { timeoutMs: 10_000 });
      try {
        for (let i = 0; i < 100_000 && writing; i++) {
          try {
            await client.create('/api/v1/namespaces/default/configmaps', {
              metadata: { name: `w-${i}` },
              data: { i: String(i) },
            });
            acked.add(`w-${i}`);
          } catch (err) {
            if (err instanceof ApiError && err.code !== 503 && err.code !== 500 && err.code !== 409) throw err;
            failures++;
            await new Promise((r) => setTimeout(r, 50)); // a writer's pause before its retry
          }
        }
      } finally {
        client.close();
      }
    })();

    const patch = (node: string) =>
      kubectl([
        'patch',
        'node',
        node,
        '-p',
        JSON.stringify({
          spec: {
            configSource: { configMap: { name: 'ha-config', namespace: 'kube-system', kubeletConfigKey: 'kubelet' } },
          },
        }),
      ]);
    // Long-lived watches through the balancer (round-robin puts some on each replica); each re-watches from its
    // last resourceVersion when its stream ends, as an informer does.
    const watchers = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const client = await RestClient.fromKubeconfig(kubeconfig, { timeoutMs: 10_000 });
        const state = { reconnects: 0, sawMarker: false, stop: false };
        const from = (
          await client.list<{ metadata: { resourceVersion: string } }>('/api/v1/namespaces/kube-public/configmaps')
        ).metadata.resourceVersion;
        const loop = (async () => {
          let rv = from;
          for (let round = 0; round < 200 && !state.stop && !state.sawMarker; round++) {
            try {
              const w = await client.watch<{ metadata: { name: string; resourceVersion: string } }>(
                '/api/v1/namespaces/kube-public/configmaps',
                { resourceVersion: rv },
              );
              for await (const ev of w) {
                if (ev.type === 'ERROR') break;
                const o = ev.object;
                rv = o.metadata.resourceVersion;
                if (o.metadata.name === 'after-kill') state.sawMarker = true;
                if (state.sawMarker || state.stop) break;
              }
              w.close();
            } catch {
              await new Promise((r) => setTimeout(r, 100)); // a watcher's pause before it reconnects
            }
            if (!state.sawMarker) state.reconnects++;
          }
          client.close();
        })();
        return { state, loop };
      }),
    );

    await patch('node-1');
    await waitFor('some acknowledged writes', async () => (acked.size >= 50 ? true : undefined), {
      timeoutMs: 30_000,
      stepMs: 100,
    });
    const killedAt = Date.now();
    await Promise.all([etcd.members[0]!.kill(), servers[0]!.kill()]);
    const ackedAtKill = acked.size;
    await patch('node-2');
    await patch('node-3');

    for (const node of NODES) {
      await waitFor(
        `${node} to run ha-config`,
        async () => {
          const n = await admin.get<{
            status?: { config?: { active?: { configMap?: { name: string } }; error?: string } };
          }>(`/api/v1/nodes/${node}`);
          return n.status?.config?.active?.configMap?.name === 'ha-config' && !n.status.config.error ? true : undefined;
        },
        { timeoutMs: 90_000, stepMs: 100 },
      );
    }
    await waitFor('writes after the kill', async () => (acked.size > ackedAtKill + 50 ? true : undefined), {
      timeoutMs: 30_000,
      stepMs: 100,
    });
    writing = false;
    await writer;

    // Every acknowledged create is there (read through the surviving replica, via the balancer).
    const list = await admin.list<{ items: { metadata: { name: string } }[] }>('/api/v1/namespaces/default/configmaps');
    const present = new Set(list.items.map((o) => o.metadata.name));
    const missing = [...acked].filter((n) => !present.has(n));
    assert.deepEqual(missing, [], `acknowledged but missing (of ${acked.size}; ${failures} failed requests)`);

    // Watch clients on the killed replica came back through the balancer without missing the change after the kill.
    await admin.create('/api/v1/namespaces/kube-public/configmaps', { metadata: { name: 'after-kill' }, data: {} });
    await waitFor(
      'every watcher to see the change made after the kill',
      async () => (watchers.every((w) => w.state.sawMarker) ? true : undefined),
      { timeoutMs: 30_000, stepMs: 100 },
    ).finally(() => {
      for (const w of watchers) w.state.stop = true;
    });
    await Promise.all(watchers.map((w) => w.loop));
    assert.ok(
      watchers.some((w) => w.state.reconnects > 0),
      'at least one watch was on the killed replica and had to reconnect',
    );

    // The agents' long-lived clients reconnected through the balancer: every lease is renewed after the kill.
    for (const node of NODES) {
      await waitFor(
        `${node}'s lease renewed after the kill`,
        async () => {
          const lease = await admin.get<{ spec: { renewTime: string } }>(
            `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${node}`,
          );
          return Date.parse(lease.spec.renewTime) > killedAt ? true : undefined;
        },
        { timeoutMs: 60_000, stepMs: 100 },
      );
    }
  });
});
