// `dkc up` as a user runs it: 3 nodes Ready within 15 s, and Ctrl-C (SIGINT) stops everything it started and
// exits 0, leaving no process behind.

import { after, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RestClient } from '../../src/client/index.js';
import { dkcBin } from '../helpers/server.js';

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

it('dkc up brings up 3 Ready nodes within 15 s and Ctrl-C leaves nothing behind', async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'dkc-up-'));
  const started = Date.now();
  const up = spawn(process.execPath, [dkcBin, 'up', '--data-dir', dataDir, '--nodes', '3', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  up.stdout.on('data', (d: Buffer) => (out += d.toString()));
  up.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => up.once('exit', (code) => r(code)));
  try {
    const deadline = Date.now() + 30_000;
    while (!out.includes('dkc cluster is up') && Date.now() < deadline && up.exitCode === null) await new Promise((r) => setTimeout(r, 50));
    assert.match(out, /dkc cluster is up \(3 nodes/);
    const client = await RestClient.fromKubeconfig(join(dataDir, 'kubeconfig'));
    try {
      const nodes = await client.list<{ items: { metadata: { name: string }; status?: { conditions?: { type: string; status: string }[] } }[] }>('/api/v1/nodes');
      const ready = nodes.items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).map((n) => n.metadata.name).sort();
      assert.deepEqual(ready, ['node-1', 'node-2', 'node-3']);
    } finally {
      client.close();
    }
    const took = Date.now() - started;
    assert.ok(took <= 15_000, `3 nodes took ${took} ms to be Ready`);
    for (const n of ['node-1', 'node-2', 'node-3']) assert.match(out, new RegExp(`${n}: Ready`));
    assert.match(out, new RegExp(`export KUBECONFIG=${dataDir}/kubeconfig`));
    assert.ok((await processesMentioning(dataDir)).length >= 4, 'server and agents should be running');
  } finally {
    up.kill('SIGINT');
  }
  const code = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 20_000))]);
  if (code === 'timeout') up.kill('SIGKILL');
  assert.equal(code, 0, out);
  assert.deepEqual(await processesMentioning(dataDir), []);
});
