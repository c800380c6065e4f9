// .ci/run on a machine that lacks what it cannot install: it must stop at once with one line naming what is
// missing, before installing or running anything. Commands it must not reach (npm, apt-get) are stand-ins on PATH
// that leave a mark, so a run that went too far fails the test instead of changing this machine.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/paths.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A bin dir of stand-ins: each name runs `body`; npm and apt-get record that they ran and fail. */
function standIns(scripts: Record<string, string>): { bin: string; ran: string } {
  const dir = mkdtempSync(join(tmpdir(), 'dkc-ci-'));
  dirs.push(dir);
  const ran = join(dir, 'ran');
  const all: Record<string, string> = {
    npm: `echo npm "$@" >> ${ran}; exit 1`,
    'apt-get': `echo apt-get "$@" >> ${ran}; exit 1`,
    ...scripts,
  };
  for (const [name, body] of Object.entries(all)) {
    writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(dir, name), 0o755);
  }
  return { bin: dir, ran };
}

function ciRun(path: string): { code: number | null; stderr: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: path };
  delete env['DKC_KUBECTL_1_32'];
  const r = spawnSync('/usr/bin/env', ['bash', join(repoRoot, '.ci/run')], { env, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stderr: r.stderr };
}

describe('.ci/run on a fresh machine', () => {
  it('an old Node.js: one line naming the version needed and the one found; nothing installed', () => {
    const { bin, ran } = standIns({ node: 'echo v18.19.1' });
    const r = ciRun(`${bin}:${process.env['PATH']}`);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, `.ci/run: Node.js >= 20.16 is required; ${bin}/node is v18.19.1\n`);
    assert.ok(!existsSync(ran), 'nothing was installed or run');
  });

  it('Node.js 20.15 is too old, 20.16 and 22.1 are not', () => {
    const { bin: old } = standIns({ node: 'echo v20.15.1' });
    assert.match(ciRun(`${old}:${process.env['PATH']}`).stderr, /Node\.js >= 20\.16 is required; .* is v20\.15\.1/);
    for (const v of ['v20.16.0', 'v22.1.0']) {
      // These get past the check and stop at the stand-in kubectl without kubectl.1.32 beside it.
      const { bin } = standIns({ node: `echo ${v}`, kubectl: 'exit 0' });
      assert.doesNotMatch(ciRun(`${bin}:${process.env['PATH']}`).stderr, /Node\.js/, v);
    }
  });

  it('no node on PATH: one line saying so', () => {
    const { bin, ran } = standIns({});
    for (const tool of ['bash', 'dirname']) symlinkSync(`/usr/bin/${tool}`, join(bin, tool));
    const r = ciRun(bin);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^\.ci\/run: Node\.js >= 20\.16 is required and there is no node on PATH .*\n$/);
    assert.ok(!existsSync(ran));
  });

  it('installs curl and jq with apt when they are missing', () => {
    const { bin, ran } = standIns({});
    for (const tool of ['bash', 'dirname', 'node', 'g++', 'make', 'python3'])
      symlinkSync(`/usr/bin/${tool}`, join(bin, tool));
    const r = ciRun(bin);
    // The stand-in apt-get fails, which stops the run right there.
    assert.equal(r.code, 1, r.stderr);
    assert.equal(readFileSync(ran, 'utf8'), 'apt-get update -qq\n');
    const { bin: bin2, ran: ran2 } = standIns({ 'apt-get': `echo apt-get "$@" >> ${join(bin, 'ran2')}; exit 0` });
    for (const tool of ['bash', 'dirname', 'node', 'g++', 'make', 'python3'])
      symlinkSync(`/usr/bin/${tool}`, join(bin2, tool));
    ciRun(bin2);
    assert.match(
      readFileSync(join(bin, 'ran2'), 'utf8'),
      /^apt-get update -qq\napt-get install -y -qq --no-install-recommends curl jq\n/,
    );
    assert.ok(!existsSync(ran2));
  });

  it('no kubectl 1.32 beside kubectl: one line naming the path it looked for; npm never runs', () => {
    const { bin, ran } = standIns({ kubectl: 'exit 0' });
    const r = ciRun(`${bin}:${process.env['PATH']}`);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      `kubectl 1.32 not found: ${bin}/kubectl.1.32 is missing or not executable (install kubectl 1.32 there, or set DKC_KUBECTL_1_32 to its path)\n`,
    );
    assert.ok(!existsSync(ran), 'npm ci / npm test never ran');
  });
});
