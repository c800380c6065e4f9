// `dkc up` as a user runs it: 3 nodes Ready within 15 s, and Ctrl-C (SIGINT) stops everything it started and
// exits 0, leaving no process behind; the same when it runs as `npm start` and npm is stopped.

import { after, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { RestClient } from '../../src/client/index.js';
import { dkcBin } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

let dataDir = '';
after(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** PIDs of processes whose command line mentions `needle`. */
async function processesMentioning(needle: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmd = (await readFile(`/proc/${entry}/cmdline`, 'utf8')).replace(/\0/g, ' ');
      if (cmd.includes(needle)) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

interface Running {
  out: () => string;
  exited: Promise<number | null>;
  child: ChildProcess;
}

/** Spawns `command args` and waits until it says the cluster is up (at most 30 s). */
async function startUp(command: string, args: string[], cwd?: string): Promise<Running> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(cwd ? { cwd } : {}) });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  // The callers assert on what was said; a wait that runs out leaves that to them.
  await waitFor(
    'dkc up to say the cluster is up, or to exit',
    () => out.includes('dkc cluster is up') || child.exitCode !== null,
    { timeoutMs: 30_000 },
  ).catch(() => undefined);
  return { out: () => out, exited, child };
}

/** Sends `signal`, waits up to 20 s for the exit (then SIGKILL), and returns the exit code. */
async function stop(r: Running, signal: NodeJS.Signals): Promise<number | null | 'timeout'> {
  r.child.kill(signal);
  const code = await Promise.race([
    r.exited,
    new Promise<'timeout'>((done) => setTimeout(() => done('timeout'), 20_000)),
  ]);
  if (code === 'timeout') r.child.kill('SIGKILL');
  return code;
}

it('dkc up brings up 3 Ready nodes within 15 s and Ctrl-C leaves nothing behind', async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'dkc-up-'));
  const started = Date.now();
  const up = await startUp(process.execPath, [dkcBin, 'up', '--data-dir', dataDir, '--nodes', '3', '--port', '0']);
  let code: number | null | 'timeout' = 'timeout';
  try {
    assert.match(up.out(), /dkc cluster is up \(3 nodes/);
    const client = await RestClient.fromKubeconfig(join(dataDir, 'kubeconfig'));
    try {
      const nodes = await client.list<{
        items: { metadata: { name: string }; status?: { conditions?: { type: string; status: string }[] } }[];
      }>('/api/v1/nodes');
      const ready = nodes.items
        .filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
        .map((n) => n.metadata.name)
        .sort();
      assert.deepEqual(ready, ['node-1', 'node-2', 'node-3']);
      // The agent speaks as the kubelet (client-go's User-Agent), so its writes are managed by "kubelet" as on a real
      // cluster: the Node's registration, its status, and the node's Lease.
      type Managed = { metadata: { managedFields?: { manager: string; operation: string; subresource?: string }[] } };
      const managers = (o: Managed) =>
        (o.metadata.managedFields ?? []).map((e) => [e.manager, e.operation, e.subresource ?? ''].join(' ')).sort();
      assert.deepEqual(managers(await client.get<Managed>('/api/v1/nodes/node-1')), [
        'kubelet Update ',
        'kubelet Update status',
      ]);
      const lease = await client.get<Managed>('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1');
      assert.deepEqual(managers(lease), ['kubelet Update ']);
    } finally {
      client.close();
    }
    const took = Date.now() - started;
    assert.ok(took <= 15_000, `3 nodes took ${took} ms to be Ready`);
    for (const n of ['node-1', 'node-2', 'node-3']) assert.match(up.out(), new RegExp(`${n}: Ready`));
    assert.match(up.out(), new RegExp(`export KUBECONFIG=${dataDir}/kubeconfig`));
    assert.ok((await processesMentioning(dataDir)).length >= 4, 'server and agents should be running');
  } finally {
    code = await stop(up, 'SIGINT');
  }
  assert.equal(code, 0, up.out());
  assert.deepEqual(await processesMentioning(dataDir), []);
});

it('npm start runs dkc up in place of its shell: stopping npm (SIGTERM to its PID) stops the whole cluster', async () => {
  // npm runs a script through `sh -c` and passes SIGTERM on to that child only; the script execs, so the child is
  // dkc up itself. Arguments after `--` come last and win (another data dir, any free port): the checkout's own
  // .dkc and port 6443 stay untouched.
  const dir = await mkdtemp(join(tmpdir(), 'dkc-npm-start-'));
  try {
    const npm = await startUp(
      'npm',
      ['start', '--silent', '--', '--data-dir', dir, '--nodes', '1', '--port', '0'],
      resolve(dkcBin, '../..'),
    );
    let code: number | null | 'timeout' = 'timeout';
    try {
      assert.match(npm.out(), /dkc cluster is up \(1 node/);
      assert.ok((await processesMentioning(dir)).length >= 2, 'server and agent should be running');
    } finally {
      code = await stop(npm, 'SIGTERM');
    }
    assert.notEqual(code, 'timeout', npm.out());
    await waitFor('no process left', async () => (await processesMentioning(dir)).length === 0, {
      timeoutMs: 15_000,
      stepMs: 100,
    }).catch(() => undefined);
    assert.deepEqual(await processesMentioning(dir), [], `left behind after npm stopped:\n${npm.out()}`);
  } finally {
    for (const pid of await processesMentioning(dir)) process.kill(pid, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});

it('dkc up --emulated-version 1.31 runs the cluster as that release: its /version, Nodes without configSource, NodeConfigs served', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'dkc-up-emulated-'));
  try {
    const up = await startUp(process.execPath, [
      dkcBin,
      'up',
      '--data-dir',
      dir,
      '--nodes',
      '1',
      '--port',
      '0',
      '--emulated-version',
      '1.31',
    ]);
    let code: number | null | 'timeout' = 'timeout';
    try {
      assert.match(up.out(), /dkc cluster is up \(1 node/);
      const client = await RestClient.fromKubeconfig(join(dir, 'kubeconfig'));
      try {
        assert.equal((await client.get<{ gitVersion: string }>('/version')).gitVersion, 'v1.31.0');
        const source = { configMap: { namespace: 'kube-system', name: 'cfg', kubeletConfigKey: 'kubelet' } };
        const node = await client.patch<{ spec: Record<string, unknown> }>('/api/v1/nodes/node-1', 'merge', {
          spec: { configSource: source },
        });
        assert.equal(node.spec['configSource'], undefined);
        await client.list('/apis/dkc.io/v1alpha1/nodeconfigs');
      } finally {
        client.close();
      }
    } finally {
      code = await stop(up, 'SIGINT');
    }
    assert.equal(code, 0, up.out());
  } finally {
    for (const pid of await processesMentioning(dir)) process.kill(pid, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});
