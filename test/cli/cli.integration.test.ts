// The command line as a user meets it: `dkc --version`, `dkc agent --help`, the agent's files under its root dir
// when run by hand, and the ways to run dkc from a clone that the README names (`npx dkc`, `npm exec -- dkc`).

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_ROOT_DIR, parseAgentFlags } from '../../src/agent/flags.js';
import { freePort } from '../../src/util/net.js';
import { dkcBin, repoRoot } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const run = promisify(execFile);
const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function dkc(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [dkcBin, ...args], { timeout: 20_000 });
}

describe('dkc --version', () => {
  it("prints package.json's version", async () => {
    assert.equal((await dkc('--version')).stdout, `dkc v${version}\n`);
    assert.equal((await dkc('agent', '--version')).stdout, `dkc v${version}\n`);
  });
});

describe('dkc agent --help', () => {
  it("lists the kubelet's flags, the KubeletConfiguration flags and dkc's own, in that order", async () => {
    const { stdout } = await dkc('agent', '--help');
    const at = (heading: string) => {
      const i = stdout.indexOf(heading);
      assert.ok(i >= 0, `${heading} in:\n${stdout}`);
      return i;
    };
    const kubelet = at('\nKubelet flags:');
    const config = at('\nKubeletConfiguration flags');
    const own = at("\ndkc's own flags:");
    assert.ok(kubelet < config && config < own);
    const section = (from: number, to: number) => stdout.slice(from, to);
    for (const f of [
      '--kubeconfig string',
      '--config string',
      '--dynamic-config-dir',
      '--hostname-override',
      '--root-dir string',
      '--cert-dir string',
      '--node-labels',
    ]) {
      assert.ok(section(kubelet, config).includes(f), f);
    }
    assert.match(section(kubelet, config), /--root-dir string .*\(default \/var\/lib\/kubelet\)/);
    assert.match(section(kubelet, config), /--cert-dir string .*\(default <root-dir>\/pki\)/);
    for (const f of ['--max-pods int32', '--feature-gates mapStringBool', '--healthz-port int32', '--event-qps int32'])
      assert.ok(section(config, own).includes(f), f);
    for (const f of [
      '--dynamic-config-trial-duration duration',
      '--dynamic-config-crash-loop-threshold int',
      '--capacity',
    ])
      assert.ok(section(own, stdout.length).includes(f), f);
    assert.equal((await dkc('agent', '--kubeconfig=x', '-h')).stdout, stdout, '-h anywhere, as the kubelet');
  });
});

describe('dkc agent run by hand', () => {
  it('defaults --cert-dir to <root-dir>/pki with --root-dir /var/lib/kubelet, as the kubelet', () => {
    assert.equal(DEFAULT_ROOT_DIR, '/var/lib/kubelet');
    assert.equal(parseAgentFlags([]).certDir, '/var/lib/kubelet/pki');
    assert.equal(parseAgentFlags(['--root-dir=/srv/node']).certDir, '/srv/node/pki');
    assert.equal(parseAgentFlags(['--root-dir=/srv/node', '--cert-dir', '/etc/certs']).certDir, '/etc/certs');
    assert.throws(() => parseAgentFlags(['--root-dir=']), /--root-dir must not be empty/);
  });

  it('keeps its serving certificate under --root-dir, not in the directory it runs in', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dkc-agent-cwd-'));
    const root = mkdtempSync(join(tmpdir(), 'dkc-agent-root-'));
    dirs.push(cwd, root);
    const port = await freePort();
    const agent = spawn(
      process.execPath,
      [
        dkcBin,
        'agent',
        `--root-dir=${root}`,
        '--address=127.0.0.1',
        `--port=${port}`,
        '--healthz-port=0',
        '--read-only-port=0',
      ],
      {
        cwd,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let log = '';
    agent.stderr.on('data', (d: Buffer) => (log += d.toString()));
    const exited = new Promise((r) => agent.once('exit', r));
    try {
      await waitFor('the agent to serve', () => log.includes('serving on https://') || agent.exitCode !== null, {
        timeoutMs: 20_000,
        stepMs: 50,
      });
      assert.match(log, /serving on https:/);
      assert.ok(existsSync(join(root, 'pki', 'kubelet.key')), `${root}/pki/kubelet.key`);
      assert.ok(existsSync(join(root, 'pki', 'kubelet.crt')));
      assert.ok(!existsSync(join(cwd, 'pki')), 'nothing written into the working directory');
    } finally {
      agent.kill('SIGTERM');
      await exited;
    }
  });
});

describe('running dkc from a clone', () => {
  // Offline: the clone's own bin must be found without asking the registry for a package called dkc. npx keeps the
  // clone's link in its cache; a cache of the test's own makes the run independent of what earlier runs left in the
  // user's (a half-made entry there fails every later npx in that clone, as the README says).
  const cache = mkdtempSync(join(tmpdir(), 'dkc-npm-cache-'));
  after(() => rmSync(cache, { recursive: true, force: true }));
  const env = {
    ...process.env,
    npm_config_offline: 'true',
    npm_config_update_notifier: 'false',
    npm_config_cache: cache,
  };
  for (const [cmd, args] of [
    ['npx', ['dkc', '--help']],
    ['npx', ['dkc', '--version']],
    ['npm', ['exec', '--', 'dkc', '--version']],
  ] as const) {
    it(`${cmd} ${args.join(' ')} runs the clone's dkc`, async () => {
      const { stdout } = await run(cmd, [...args], { cwd: repoRoot, env, timeout: 240_000 });
      if ((args as readonly string[]).includes('--help')) assert.match(stdout, /^Usage: dkc \[options\] \[command\]/);
      else assert.equal(stdout, `dkc v${version}\n`);
    });
  }
});
