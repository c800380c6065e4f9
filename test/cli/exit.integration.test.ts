// The exit codes of dkc's commands (src/cli/exit.ts, docs/errors.md): what an error becomes at the CLI boundary, and
// real `dkc` processes that end with each — one line on stderr, and the code a script can branch on.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { ExitCodes, exitCodeFor } from '../../src/cli/exit.js';
import { ApiError, ClientError } from '../../src/client/errors.js';
import { ConfigCommandError } from '../../src/workflow/config/errors.js';
import { RolloutError } from '../../src/workflow/rollout/errors.js';
import { ServerConfigError } from '../../src/server/main.js';
import { freePort } from '../../src/util/net.js';
import { runDkc } from '../helpers/dkc.js';

const status = (code: number, reason: string) =>
  new ApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code, reason, message: reason });

describe('exitCodeFor', () => {
  it('gives usage errors 3, whether commander or a module found them', () => {
    assert.equal(
      exitCodeFor(new CommanderError(1, 'commander.unknownOption', "error: unknown option '--bogus'")),
      ExitCodes.usage,
    );
    assert.equal(exitCodeFor(new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)')), ExitCodes.ok);
    assert.equal(exitCodeFor(new RolloutError('DKC_ROLLOUT_INVALID_FLAG', 'bad')), 3);
    assert.equal(exitCodeFor(new ServerConfigError('bad')), 3);
    assert.equal(exitCodeFor(new ClientError('DKC_CLIENT_KUBECONFIG_READ', 'no kubeconfig')), 3);
  });

  it("maps the API server's answers by HTTP code: 404 and 410 not found, 429 and 5xx unavailable, other 4xx refused", () => {
    assert.deepEqual(
      [
        [404, 'NotFound'],
        [410, 'Gone'],
        [401, 'Unauthorized'],
        [403, 'Forbidden'],
        [409, 'AlreadyExists'],
        [422, 'Invalid'],
        [429, 'TooManyRequests'],
        [500, 'InternalError'],
        [503, 'ServiceUnavailable'],
      ].map(([code, reason]) => exitCodeFor(status(code as number, reason as string))),
      [4, 4, 5, 5, 5, 5, 6, 6, 6],
    );
  });

  it('gives no answer at all 6, a missing object 4, and anything else 1', () => {
    assert.equal(exitCodeFor(new ClientError('DKC_CLIENT_CONNECTION', 'connect ECONNREFUSED')), ExitCodes.unavailable);
    assert.equal(exitCodeFor(new ClientError('DKC_CLIENT_TIMEOUT', 'timed out')), ExitCodes.unavailable);
    assert.equal(exitCodeFor(new RolloutError('DKC_ROLLOUT_CONFIGMAP_NOT_FOUND', 'gone')), ExitCodes.notFound);
    assert.equal(exitCodeFor(new ClientError('DKC_CLIENT_RESPONSE_DECODE', 'not JSON')), ExitCodes.failure);
    assert.equal(exitCodeFor(new Error('plain')), ExitCodes.failure);
    assert.equal(exitCodeFor('a string'), ExitCodes.failure);
  });

  it('lets an error with no exit code of its own exit as the error it wraps', () => {
    const notFound = new ConfigCommandError('DKC_CONFIG_NODE_CONFIGZ', 'node "x" not found', {
      cause: status(404, 'NotFound'),
    });
    assert.equal(exitCodeFor(notFound), ExitCodes.notFound);
    assert.equal(
      exitCodeFor(new Error('wrapped', { cause: new ClientError('DKC_CLIENT_CONNECTION', 'refused') })),
      ExitCodes.unavailable,
    );
    // Its own code wins when it has one.
    assert.equal(
      exitCodeFor(new ServerConfigError('bad', { cause: new ClientError('DKC_CLIENT_CONNECTION', 'refused') })),
      ExitCodes.usage,
    );
  });
});

describe('dkc exits with the code of its error, after one line on stderr', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dkc-exit-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A kubeconfig naming a loopback port nothing listens on. */
  async function deadKubeconfig(): Promise<string> {
    const port = await freePort();
    const path = join(dir, `dead-${port}`);
    writeFileSync(
      path,
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{name: c, cluster: {server: "https://127.0.0.1:${port}", insecure-skip-tls-verify: true}}]`,
        'users: [{name: u, user: {token: t}}]',
        'contexts: [{name: x, context: {cluster: c, user: u}}]',
        'current-context: x',
        '',
      ].join('\n'),
    );
    return path;
  }

  it('3 for a flag commander refuses', async () => {
    const r = await runDkc(['rollout', 'list', '--bogus']);
    assert.deepEqual(r, { code: 3, stdout: '', stderr: "error: unknown option '--bogus'\n" });
  });

  it('3 for a flag value a command refuses, printed as `dkc: …`', async () => {
    const r = await runDkc(['server', '--data-dir', join(dir, 'server'), '--port', 'abc']);
    assert.deepEqual(r, {
      code: 3,
      stdout: '',
      stderr: 'dkc: invalid --port "abc": must be an integer in [0, 65535]\n',
    });
  });

  it('6 when the API server does not answer, for dkc rollout and dkc config alike', async () => {
    const kubeconfig = await deadKubeconfig();
    for (const args of [
      ['rollout', 'list'],
      ['rollout', 'status', 'x'],
      ['config', 'lint', 'cm/kube-system/x'],
    ]) {
      const r = await runDkc([...args, '--kubeconfig', kubeconfig]);
      assert.equal(r.code, 6, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /^error: .*ECONNREFUSED.*\n$/, args.join(' '));
    }
  });

  it('keeps 2 for dkc config diff, which answers as diff(1) does', async () => {
    const r = await runDkc([
      'config',
      'diff',
      'cm/kube-system/x',
      'cm/kube-system/y',
      '--kubeconfig',
      await deadKubeconfig(),
    ]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr.split('\n').length, 2, r.stderr);
  });
});
