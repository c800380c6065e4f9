// `dkc up --simulated-nodes` and `dkc fleet` as the user runs them: dkc up starts a supervised fleet beside its real
// agent and says when the simulated nodes are Ready; a second `dkc fleet` process against the same cluster prints its
// progress until every node is Ready, stops cleanly on SIGINT, and its nodes answer through the API server's proxy.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RestClient } from '../../src/client/index.js';
import { createCA, parseCertIdentity } from '../../src/pki/index.js';
import { dkcBin } from '../../src/up/cluster.js';
import { waitFor } from '../helpers/wait.js';

interface Running {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<number | null>;
}

function run(args: string[]): Running {
  const child = spawn(process.execPath, [dkcBin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, out: () => out, err: () => err, exited };
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
    await waitFor(
      'dkc up to report its cluster',
      async () => (up!.out().includes('Press Ctrl-C to stop.') ? true : undefined),
      60_000,
      100,
    );
    assert.match(up.out(), /simulated nodes: 5\/5 Ready/);
    assert.match(up.out(), /dkc cluster is up \(1 node and 5 simulated in/);
  });

  it('dkc fleet prints its progress until every node is Ready and stops cleanly on SIGINT (nodes on client certificates)', async () => {
    const kubeconfig = join(work, 'up', 'kubeconfig');
    const fleet = run([
      'fleet',
      '--kubeconfig',
      kubeconfig,
      '--nodes',
      '4',
      '--name-prefix',
      'extra-',
      '--data-dir',
      join(work, 'extra'),
      '--port',
      '0',
      '--credentials=certificate',
    ]);
    try {
      await waitFor(
        'every extra node Ready',
        async () => (fleet.out().includes('4 nodes Ready in') ? true : undefined),
        60_000,
        100,
      );
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
    // Each node authenticated with the certificate issued to it.
    assert.equal(
      parseCertIdentity(await readFile(join(work, 'extra', 'extra-4', 'pki', 'client.crt'), 'utf8')).commonName,
      'system:node:extra-4',
    );
  });

  it('dkc fleet says at once, in one line, when the API server refuses its node tokens, and exits 5 (refused)', async () => {
    const other = await createCA('not-this-cluster');
    await writeFile(join(work, 'other.crt'), other.certPem);
    await writeFile(join(work, 'other.key'), other.keyPem);
    const kubeconfig = join(work, 'up', 'kubeconfig');
    const fleet = run([
      'fleet',
      '--kubeconfig',
      kubeconfig,
      '--nodes',
      '2',
      '--name-prefix',
      'refused-',
      '--data-dir',
      join(work, 'refused'),
      '--port',
      '0',
      '--ca-cert',
      join(work, 'other.crt'),
      '--ca-key',
      join(work, 'other.key'),
    ]);
    assert.equal(await fleet.exited, 5);
    assert.match(
      fleet.err(),
      /^dkc: the API server https:\/\/127\.0\.0\.1:\d+ refuses dkc node tokens \(401 Unauthorized\).*use --credentials=certificate\n$/,
    );
  });

  it('dkc up stops its fleet with everything else on Ctrl-C', async () => {
    up!.child.kill('SIGINT');
    assert.equal(await up!.exited, 0);
    assert.match(up!.out(), /dkc cluster stopped/);
  });
});
