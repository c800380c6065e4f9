// Supervisor.restart and its control socket, the local stand-in for `systemctl restart`: the running process is
// stopped and a new one started at once, as a stop rather than a crash; a child waiting in crash-loop backoff starts at
// once; `dkc restart <name>` asks over the socket and answers an unknown name in one line, exiting 1.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Supervisor } from '../../src/supervisor/supervisor.js';
import { CONTROL_SOCKET, requestRestart, serveControl } from '../../src/supervisor/control.js';
import { runDkc } from '../helpers/dkc.js';
import { captureLogs, nodeScript } from './helpers.js';
import { waitFor } from '../helpers/wait.js';

captureLogs();
const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('Supervisor.restart and the control socket', () => {
  it('restarts a running child at once, counting a stop, not a crash', async () => {
    const sup = new Supervisor({ backoff: { initialMs: 5_000, jitter: 0 } });
    const exits: string[] = [];
    sup.on('exit', (e) => exits.push(e.outcome));
    sup.add({ name: 'k', ...nodeScript('setInterval(() => {}, 1000)'), restart: 'always' });
    sup.start();
    try {
      await waitFor('first start', async () => sup.pidOf('k') !== undefined, { timeoutMs: 10_000, stepMs: 10 });
      const first = sup.pidOf('k')!;
      const t0 = Date.now();
      await sup.restart('k');
      const second = sup.pidOf('k');
      assert.ok(second !== undefined && second !== first, 'a new process');
      assert.ok(Date.now() - t0 < 4_000, 'without the 5 s backoff');
      assert.deepEqual(exits, ['stopped']);
      assert.equal(sup.status()[0]!.crashes, 0);
    } finally {
      await sup.stop('SIGTERM', 2_000);
    }
  });

  it('starts a crash-looping child waiting in backoff at once', async () => {
    const sup = new Supervisor({ backoff: { initialMs: 60_000, maxMs: 60_000, jitter: 0 } });
    sup.add({ name: 'k', ...nodeScript('process.exit(3)'), restart: 'always' });
    const starts: number[] = [];
    sup.on('start', (e) => starts.push(e.pid));
    sup.start();
    try {
      await waitFor('backoff', async () => sup.status()[0]!.state === 'backoff', { timeoutMs: 10_000, stepMs: 10 });
      await sup.restart('k');
      assert.equal(starts.length, 2);
    } finally {
      await sup.stop('SIGTERM', 2_000);
    }
  });

  it('serves restarts on a 0600 Unix socket; dkc restart asks it, and says in one line what it cannot do', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dkc-ctl-'));
    dirs.push(dir);
    const sup = new Supervisor();
    sup.add({ name: 'node-1', ...nodeScript('setInterval(() => {}, 1000)'), restart: 'always' });
    sup.start();
    const control = await serveControl(sup, join(dir, CONTROL_SOCKET));
    try {
      assert.equal((await stat(control.path)).mode & 0o777, 0o600);
      await waitFor('first start', async () => sup.pidOf('node-1') !== undefined, { timeoutMs: 10_000, stepMs: 10 });
      const first = sup.pidOf('node-1');
      const r = await runDkc(['restart', 'node-1', '--data-dir', dir]);
      assert.deepEqual([r.code, r.stderr], [0, '']);
      assert.notEqual(sup.pidOf('node-1'), first);
      const bad = await runDkc(['restart', 'node-9', '--data-dir', dir]);
      assert.deepEqual([bad.code, bad.stderr], [1, 'dkc restart: no child named "node-9" is supervised\n']);
      await assert.rejects(
        requestRestart(join(dir, 'nothing.sock'), 'node-1'),
        /^Error: cannot reach the supervisor on .*nothing\.sock: connect ENOENT/,
      );
    } finally {
      await control.close();
      await sup.stop('SIGTERM', 2_000);
    }
  });
});
