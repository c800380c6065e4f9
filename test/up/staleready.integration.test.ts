// `dkc up` reports a node Ready only on its agent's own report of this run, never from a Ready=True condition an
// earlier run left in the store.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dkcBin } from '../../src/up/cluster.js';
import { reportedReadySince, type LeaseLike, type NodeLike } from '../../src/up/up.js';
import { waitFor } from '../helpers/wait.js';

const procs: ChildProcess[] = [];
const dirs: string[] = [];

function exited(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return Promise.resolve();
  return new Promise((r) => p.once('exit', () => r()));
}

after(async () => {
  for (const p of procs) {
    if (p.exitCode === null && p.signalCode === null) p.kill('SIGINT');
    await exited(p);
  }
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** The permission bits of the data directory, its database and the database's write-ahead log. */
function modes(dataDir: string): { dir: number; db: number; wal: number } {
  const mode = (p: string) => statSync(p).mode & 0o777;
  return { dir: mode(dataDir), db: mode(join(dataDir, 'dkc.db')), wal: mode(join(dataDir, 'dkc.db-wal')) };
}

function up(dataDir: string, ...extra: string[]): { proc: ChildProcess; out(): string; err(): string } {
  let out = '';
  let err = '';
  const proc = spawn(process.execPath, [dkcBin, 'up', '--data-dir', dataDir, '--nodes', '1', '--port', '0', ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  procs.push(proc);
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return { proc, out: () => out, err: () => err };
}

const node = (status: string, lastHeartbeatTime?: string): NodeLike => ({
  metadata: { name: 'n' },
  status: {
    conditions: [{ type: 'Ready', status, ...(lastHeartbeatTime !== undefined ? { lastHeartbeatTime } : {}) }],
  },
});

const lease = (renewTime: string): LeaseLike => ({ metadata: { name: 'n' }, spec: { renewTime } });

describe('dkc up and a stale Ready condition', () => {
  it("counts a Ready=True only when its heartbeat and the node's Lease are from this run", () => {
    const since = Date.parse('2024-01-15T10:00:00.700Z');
    const fresh = lease('2024-01-15T10:00:00.750000Z');
    assert.equal(
      reportedReadySince(node('True', '2024-01-15T10:00:00Z'), fresh, since),
      true,
      'same second: metav1.Time has no fraction',
    );
    assert.equal(reportedReadySince(node('True', '2024-01-15T10:00:05Z'), fresh, since), true);
    assert.equal(
      reportedReadySince(node('True', '2024-01-15T10:00:00Z'), lease('2024-01-15T10:00:00.600000Z'), since),
      false,
      'the Lease of a run before',
    );
    assert.equal(reportedReadySince(node('True', '2024-01-15T10:00:05Z'), undefined, since), false);
    assert.equal(reportedReadySince(node('True', '2024-01-15T09:59:59Z'), fresh, since), false);
    assert.equal(reportedReadySince(node('True'), fresh, since), false);
    assert.equal(reportedReadySince(node('Unknown', '2024-01-15T10:00:05Z'), fresh, since), false);
  });

  it("does not print a node Ready from an earlier run while this run's agent has not reported", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'dkc-up-stale-'));
    dirs.push(dataDir);
    const first = up(dataDir);
    await waitFor(
      'the first run to be up',
      async () => (/dkc cluster is up/.test(first.out()) ? true : undefined),
      60_000,
    );
    assert.match(first.out(), /node-1: Ready/);
    assert.deepEqual(modes(dataDir), { dir: 0o700, db: 0o600, wal: 0o600 });
    first.proc.kill('SIGINT');
    await exited(first.proc);
    // A data directory left readable by an earlier version is tightened by the next run.
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'dkc.db'), 0o644);

    // The node still says Ready=True in the store; this run's agent cannot even start.
    const second = up(dataDir, '--agent-arg=--kubeconfig=/nonexistent/kubeconfig');
    await waitFor(
      'the agent to have failed twice',
      async () =>
        (second.err().match(/Supervised process crashed name="node-1"/g) ?? []).length >= 2 ? true : undefined,
      60_000,
    );
    assert.doesNotMatch(second.out(), /node-1: Ready/, second.out());
    assert.deepEqual(modes(dataDir), { dir: 0o700, db: 0o600, wal: 0o600 });
    second.proc.kill('SIGINT');
    await exited(second.proc);
    assert.doesNotMatch(second.out(), /node-1: Ready|dkc cluster is up/, second.out());
  });
});
