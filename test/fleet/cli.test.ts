// `dkc up --simulated-nodes` and `dkc fleet` as the user runs them: dkc up starts a supervised fleet beside its real
// agent and says when the simulated nodes are Ready; a second `dkc fleet` process against the same cluster prints its
// progress until every node is Ready, stops cleanly on SIGINT, and its nodes answer through the API server's proxy.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RestClient } from '../../src/client/index.js';
import { dkcBin } from '../../src/up/cluster.js';
import { waitFor } from '../helpers/wait.js';

interface Running {
  child: ChildProcess;
  out: () => string;
  exited: Promise<number | null>;
}

function run(args: string[]): Running {
  const child = spawn(process.execPath, [dkcBin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.resume();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, out: () => out, exited };
}

let work = '';
let up: Running | undefined;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'dkc-fleet-cli-'));
});

after(async () => {
  if (up && up.child.exitCode === null) {
    up.child.kill('SIGINT');
    await up.exited;
  }
  if (work) await rm(work, { recursive: true, force: true });
});

describe('dkc up --simulated-nodes and dkc fleet', { concurrency: false, timeout: 120_000 }, () => {
  it('dkc up runs a fleet beside its agent and reports the simulated nodes Ready', async () => {
    up = run(['up', '--data-dir', join(work, 'up'), '--nodes', '1', '--simulated-nodes', '5', '--port', '0']);
    await waitFor('dkc up to report its cluster', async () => (up!.out().includes('Press Ctrl-C to stop.') ? true : undefined), 60_000, 100);
    assert.match(up.out(), /simulated nodes: 5\/5 Ready/);
    assert.match(up.out(), /dkc cluster is up \(1 node and 5 simulated in/);
  });

  it('dkc fleet prints its progress until every node is Ready and stops cleanly on SIGINT', async () => {
    const kubeconfig = join(work, 'up', 'kubeconfig');
    const fleet = run(['fleet', '--kubeconfig', kubeconfig, '--nodes', '4', '--name-prefix', 'extra-', '--data-dir', join(work, 'extra'), '--port', '0']);
    try {
      await waitFor('every extra node Ready', async () => (fleet.out().includes('4 nodes Ready in') ? true : undefined), 60_000, 100);
      assert.match(fleet.out(), /4\/4 registered, 4 Ready/);
      const admin = await RestClient.fromKubeconfig(kubeconfig);
      try {
        const body = await admin.get<string | { kubeletconfig: unknown }>('/api/v1/nodes/extra-4/proxy/healthz');
        assert.equal(body, 'ok');
      } finally {
        admin.close();
      }
    } finally {
      fleet.child.kill('SIGINT');
    }
    assert.equal(await fleet.exited, 0);
    assert.match(fleet.out(), /received SIGINT, stopping the fleet\nfleet of 4 nodes stopped\n$/);
  });

  it('dkc up stops its fleet with everything else on Ctrl-C', async () => {
    up!.child.kill('SIGINT');
    assert.equal(await up!.exited, 0);
    assert.match(up!.out(), /dkc cluster stopped/);
  });
});
