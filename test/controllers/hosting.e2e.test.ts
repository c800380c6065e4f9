// Where the controllers run: `dkc controller` as its own process against a server started with `--controllers=`
// (authenticated as system:dkc:controller, so the default RBAC is proven sufficient), and two server replicas over
// one etcd, of which exactly one holds the Lease and acts, until it dies and the other takes over.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Lease, Node } from '../../src/api/types.js';
import { RestClient } from '../../src/client/index.js';
import { leasePath } from '../../src/controllers/leaderelection.js';
import { issueCert, writeKubeconfig } from '../../src/pki/index.js';
import { startEtcd } from '../helpers/etcd.js';
import { startReplicas } from '../helpers/replicas.js';
import { dkcBin, startServer, type RunningServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const LEASE = leasePath('kube-system', 'dkc-controller');
const UNREACHABLE = 'node.kubernetes.io/unreachable';
const cleanups: (() => Promise<void>)[] = [];

after(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

/** A Node whose agent posted Ready=True long ago and never renewed a Lease: silent from the controller's first look. */
async function createSilentNode(admin: RestClient, name: string): Promise<void> {
  const node = await admin.create<Node>('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name } });
  const old = '2024-01-01T00:00:00Z';
  const conditions = ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready'].map((type) => ({
    type,
    status: type === 'Ready' ? 'True' : 'False',
    reason: 'Kubelet',
    message: 'kubelet',
    lastHeartbeatTime: old,
    lastTransitionTime: old,
  }));
  await admin.update(`/api/v1/nodes/${name}/status`, { ...node, status: { conditions } });
}

async function waitUnreachable(admin: RestClient, name: string, ms: number): Promise<Node> {
  return waitFor(
    `${name} Unknown and tainted unreachable`,
    async () => {
      const n = await admin.get<Node>(`/api/v1/nodes/${name}`);
      const ready = n.status?.conditions?.find((c) => c.type === 'Ready');
      return ready?.status === 'Unknown' && (n.spec?.taints ?? []).some((t) => t.key === UNREACHABLE) ? n : undefined;
    },
    ms,
    100,
  );
}

function exited(p: ChildProcess): Promise<number | null> {
  if (p.exitCode !== null || p.signalCode !== null) return Promise.resolve(p.exitCode);
  return new Promise((r) => p.once('exit', (code) => r(code)));
}

describe('controller hosting', () => {
  it('dkc controller does the node lifecycle work for a server that runs no controllers, as system:dkc:controller', async () => {
    const server: RunningServer = await startServer(['--controllers=']);
    cleanups.push(() => server.cleanup());
    const admin = await RestClient.fromKubeconfig(server.kubeconfig, { timeoutMs: 5_000 });
    cleanups.push(async () => admin.close());
    await createSilentNode(admin, 'silent-1');

    const dir = await mkdtemp(join(tmpdir(), 'dkc-controller-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const ca = {
      certPem: await readFile(join(server.dataDir, 'pki', 'ca.crt'), 'utf8'),
      keyPem: await readFile(join(server.dataDir, 'pki', 'ca.key'), 'utf8'),
    };
    const cert = await issueCert(ca, { commonName: 'system:dkc:controller', usages: ['client'] });
    const kubeconfig = join(dir, 'controller.kubeconfig');
    await writeKubeconfig(kubeconfig, {
      server: server.url,
      caPem: ca.certPem,
      ...cert,
      user: 'system:dkc:controller',
    });

    let output = '';
    // Found through $KUBECONFIG, as kubectl finds it.
    const proc = spawn(process.execPath, [dkcBin, 'controller', '--node-monitor-grace-period', '2s'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, KUBECONFIG: kubeconfig },
    });
    proc.stdout.on('data', (d: Buffer) => (output += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (output += d.toString()));
    cleanups.push(async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      await exited(proc);
    });

    await waitUnreachable(admin, 'silent-1', 15_000).catch((err: Error) => {
      throw new Error(`${err.message}\n--- dkc controller ---\n${output}`);
    });
    const held = await admin.get<Lease>(LEASE);
    assert.match(held.spec?.holderIdentity ?? '', /_[0-9a-f]{16}$/);
    assert.doesNotMatch(server.log(), /acquire leader lease/, 'the server itself runs no controllers');
    assert.doesNotMatch(output, /forbidden/i, 'RBAC grants the controller all it uses');

    proc.kill('SIGTERM');
    assert.equal(await exited(proc), 0, output);
    assert.equal((await admin.get<Lease>(LEASE)).spec?.holderIdentity, '', 'released on a clean stop');

    // A controller asked for by name whose identity may not read what it follows says so, loudly, while it retries.
    let scheduler = '';
    const other = spawn(process.execPath, [dkcBin, 'controller', '--controllers', 'scheduler'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, KUBECONFIG: kubeconfig },
    });
    other.stderr.on('data', (d: Buffer) => (scheduler += d.toString()));
    cleanups.push(async () => {
      if (other.exitCode === null && other.signalCode === null) other.kill('SIGKILL');
      await exited(other);
    });
    await waitFor('the scheduler to say it may not list Pods', async () =>
      /^E.*default-scheduler: failed to list or watch \/api\/v1\/pods: pods is forbidden: User "system:dkc:controller" cannot list resource "pods"/m.test(
        scheduler,
      )
        ? true
        : undefined,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n--- dkc controller ---\n${scheduler}`);
    });
    other.kill('SIGTERM');
    assert.equal(await exited(other), 0, scheduler);
  });

  it('bad flags are one line and exit 3 (a usage error), for dkc controller and dkc server alike', () => {
    const run = (...args: string[]) => spawnSync(process.execPath, [dkcBin, ...args], { encoding: 'utf8' });
    const unknown = run('controller', '--controllers=rollout,gc', '--kubeconfig', '/nonexistent');
    assert.deepEqual(
      [unknown.status, unknown.stderr],
      [
        3,
        'dkc: unknown controller "gc" in --controllers (known: rollout, nodelifecycle, tainteviction, scheduler, namespace, garbagecollector, disruption, replicaset, deployment, daemonset, statefulset)\n',
      ],
    );
    const grace = run('server', '--data-dir', '/nonexistent/dkc', '--node-monitor-grace-period', 'soon');
    assert.deepEqual(
      [grace.status, grace.stderr],
      [3, 'dkc: invalid --node-monitor-grace-period "soon": must be a positive duration such as 40s or 1m\n'],
    );
    const channel = run('controller', '--config-channel', 'nodes', '--kubeconfig', '/nonexistent');
    assert.deepEqual(
      [channel.status, channel.stderr],
      [3, 'dkc: invalid --config-channel "nodes": must be one of auto, node, nodeconfig\n'],
    );
    const noKubeconfig = run('controller', '--kubeconfig', '/nonexistent/kubeconfig');
    assert.equal(noKubeconfig.status, 3);
    assert.match(noKubeconfig.stderr, /^dkc: cannot read kubeconfig \/nonexistent\/kubeconfig: ENOENT/);
  });

  it('dkc controller says its config channel and refuses, in one line, a cluster whose assignments live on both', async () => {
    const server = await startServer(['--controllers=']);
    cleanups.push(() => server.cleanup());
    const admin = await RestClient.fromKubeconfig(server.kubeconfig, { timeoutMs: 5_000 });
    cleanups.push(async () => admin.close());
    const source = { configMap: { namespace: 'kube-system', name: 'c', kubeletConfigKey: 'kubelet' } };
    await admin.create('/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n1' },
      spec: { configSource: source },
    });
    await admin.create('/apis/dkc.io/v1alpha1/nodeconfigs', {
      apiVersion: 'dkc.io/v1alpha1',
      kind: 'NodeConfig',
      metadata: { name: 'n2' },
      spec: { configSource: source },
    });
    const r = spawnSync(process.execPath, [dkcBin, 'controller', '--kubeconfig', server.kubeconfig], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(r.status, 1, r.stderr);
    const lines = r.stderr.trimEnd().split('\n');
    assert.match(
      lines[0]!,
      /config channel: Node \(spec\.configSource, status\.config\) — the API server \(v1\.22\.17-dkc\.0\) keeps the Node's fields$/,
    );
    assert.deepEqual(lines.slice(1), [
      "dkc: refusing to mix config channels: this cluster's channel is Node, but 1 NodeConfig(s) carry spec.configSource (nodeconfig/n2); move every assignment to one channel first",
    ]);
  });

  it('a server killed with -9 and started again on its data dir takes its Lease back at once', async () => {
    const server = await startServer();
    cleanups.push(() => server.cleanup());
    const identity = () => [...server.log().matchAll(/leader election identity (\S+)/g)].at(-1)?.[1];
    const admin = await RestClient.fromKubeconfig(server.kubeconfig, { timeoutMs: 5_000 });
    cleanups.push(async () => admin.close());
    const first = await waitFor('the first run to lead', async () => {
      const h = (await admin.get<Lease>(LEASE)).spec?.holderIdentity;
      return h && h === identity() ? h : undefined;
    });
    await server.kill();
    await server.restart();
    const restartedAt = Date.now();
    // Well inside the 15 s another process would have to wait for the dead holder's lease to expire.
    const second = await waitFor(
      'the restarted server to lead',
      async () => {
        const h = (await admin.get<Lease>(LEASE)).spec?.holderIdentity;
        return h && h !== first ? h : undefined;
      },
      8_000,
      100,
    );
    assert.equal(second, identity());
    assert.ok(Date.now() - restartedAt < 8_000);
    assert.equal((await admin.get<Lease>(LEASE)).spec?.leaseTransitions, 1);
  });

  it('of two server replicas over etcd exactly one leads and acts; when it dies the other takes over', async () => {
    const etcd = await startEtcd();
    cleanups.push(() => etcd.cleanup());
    const servers = await startReplicas(2, etcd, ['--node-monitor-grace-period', '2s']);
    cleanups.push(async () => {
      for (const s of servers) await s.cleanup();
    });
    const admin = await RestClient.fromKubeconfig(servers[1]!.kubeconfig, { timeoutMs: 5_000 });
    cleanups.push(async () => admin.close());
    const identityOf = (s: RunningServer) => /leader election identity (\S+)/.exec(s.log())?.[1];
    await waitFor('both replicas to name their identity', async () => (servers.every(identityOf) ? true : undefined));

    const holder = await waitFor(
      'a leader',
      async () => (await admin.get<Lease>(LEASE)).spec?.holderIdentity || undefined,
    );
    const leader = servers.find((s) => identityOf(s) === holder);
    const follower = servers.find((s) => s !== leader)!;
    assert.ok(leader, `the holder ${holder} is one of the replicas`);
    assert.match(leader.log(), /successfully acquired lease kube-system\/dkc-controller/);
    assert.doesNotMatch(follower.log(), /successfully acquired lease/);

    await createSilentNode(admin, 'silent-a');
    await waitUnreachable(admin, 'silent-a', 15_000);
    assert.match(leader.log(), /Node silent-a hasn't been updated/);
    assert.doesNotMatch(follower.log(), /hasn't been updated|Updating the readiness taints/, 'only the leader acts');

    // From here on ask the replica that survives.
    const survivor = await RestClient.fromKubeconfig(follower.kubeconfig, { timeoutMs: 5_000 });
    cleanups.push(async () => survivor.close());
    await leader.kill();
    // The follower waits out the 15 s lease (as it last saw it renewed), then takes it.
    const next = await waitFor(
      'the follower to take over',
      async () => {
        const h = (await survivor.get<Lease>(LEASE)).spec?.holderIdentity;
        return h && h !== holder ? h : undefined;
      },
      30_000,
      200,
    );
    assert.equal(next, identityOf(follower));
    const lease = await survivor.get<Lease>(LEASE);
    assert.equal(lease.spec?.leaseTransitions, 1);
    await createSilentNode(survivor, 'silent-b');
    await waitUnreachable(survivor, 'silent-b', 15_000);
    assert.match(follower.log(), /Node silent-b hasn't been updated/);
  });
});
