// The supervisor against real child processes: immediate restart on exit 0, paced restarts after crashes,
// reset after a healthy run, stop() with its grace period, log files across restarts, and restart policies.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Supervisor, type ChildSpec } from '../../src/supervisor/supervisor.js';
import { SupervisorError } from '../../src/supervisor/errors.js';
import {
  Recorder,
  captureLogs,
  isAlive,
  isRunning,
  killIfStill,
  nodeScript,
  noteProcess,
  type StartedProcess,
} from './helpers.js';
import { waitFor } from '../helpers/wait.js';
import { FakeClock } from '../helpers/fakeclock.js';

const logs = captureLogs();
let dir: string;
const supervisors: Supervisor[] = [];
const extraPids = new Set<StartedProcess>();

// Timers never fire early, but the loop's cached time may round by a millisecond; the upper slack absorbs a
// loaded 2-core machine.
const EARLY_MS = 2;
const LATE_MS = 250;

function track(s: Supervisor): Supervisor {
  supervisors.push(s);
  return s;
}

function child(name: string, script: string, rest: Partial<ChildSpec> = {}): ChildSpec {
  return { name, ...nodeScript(script), restart: 'always', ...rest };
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'dkc-supervisor-'));
});

afterEach(async () => {
  // Whatever a test left running is stopped hard, so one failure does not leak processes into the next.
  for (const s of supervisors.splice(0)) await s.stop('SIGKILL', 0);
});

after(() => {
  for (const pid of extraPids) killIfStill(pid);
  rmSync(dir, { recursive: true, force: true });
});

describe('Supervisor restarts', () => {
  it('restarts a child that exits 0 at once, counted as a restart and not a crash', async (t) => {
    const s = track(new Supervisor({ backoff: { jitter: 0 } }));
    const rec = new Recorder(s);
    s.add(child('agent', 'process.exit(0)'));
    s.start();
    await rec.until(() => rec.starts.length >= 4, 'four starts');
    await s.stop();
    const starts = rec.starts.slice(0, 4);
    assert.equal(new Set(starts.map((x) => x.pid)).size, 4, 'every start is a new process');
    assert.deepEqual(
      starts.map((x) => x.restarts),
      [0, 1, 2, 3],
    );
    const clean = rec.exits.filter((e) => e.outcome === 'clean');
    assert.ok(clean.length >= 3);
    for (const [i, e] of clean.slice(0, 3).entries()) {
      assert.equal(e.code, 0);
      assert.equal(e.nextDelayMs, 0);
      assert.equal(e.crashes, 0);
      const gap = starts[i + 1]!.t - e.t;
      assert.ok(gap < 150, `exit 0 → restart took ${gap.toFixed(1)} ms`);
    }
    const cycle = (starts[3]!.t - starts[0]!.t) / 3;
    t.diagnostic(
      `exit 0 → next start: ${clean
        .slice(0, 3)
        .map((e, i) => (starts[i + 1]!.t - e.t).toFixed(1))
        .join(', ')} ms; full cycle (boot, exit, restart) ${cycle.toFixed(1)} ms`,
    );
    const st = s.status()[0]!;
    assert.equal(st.crashes, 0);
    assert.ok(st.restarts >= 3);
    assert.equal(st.state, 'stopped');
  });

  it('paces clean exits like crashes once they exceed the burst', async () => {
    const s = track(
      new Supervisor({
        backoff: { jitter: 0, initialMs: 30, maxMs: 120, cleanExitBurst: 2, cleanExitWindowMs: 60_000 },
      }),
    );
    const rec = new Recorder(s);
    s.add(child('agent', 'process.exit(0)'));
    s.start();
    await rec.until(() => rec.exits.length >= 5, 'five exits');
    await s.stop();
    assert.deepEqual(
      rec.exits.slice(0, 5).map((e) => e.nextDelayMs),
      [0, 0, 30, 60, 120],
    );
    assert.ok(logs.some((l) => l.includes('exits cleanly too often')));
  });

  it('restarts a crashing child after a backoff that grows and is capped', async (t) => {
    const s = track(
      new Supervisor({ backoff: { jitter: 0, initialMs: 40, factor: 2, maxMs: 160, resetAfterMs: 60_000 } }),
    );
    const rec = new Recorder(s);
    s.add(child('agent', 'process.exit(3)'));
    s.start();
    await rec.until(() => rec.starts.length >= 6, 'six starts', 20_000);
    await s.stop();
    const exits = rec.exits.slice(0, 5);
    assert.deepEqual(
      exits.map((e) => e.nextDelayMs),
      [40, 80, 160, 160, 160],
    );
    assert.deepEqual(
      exits.map((e) => [e.code, e.outcome, e.crashes, e.consecutiveCrashes]),
      [1, 2, 3, 4, 5].map((n) => [3, 'crash', n, n]),
    );
    // The lower bounds prove the measured waits grow with the schedule; the upper bounds only rule out a wait
    // far beyond it, since a loaded machine may run a timer late but never early.
    const gaps = exits.map((e, i) => rec.starts[i + 1]!.t - e.t);
    for (const [i, gap] of gaps.entries()) {
      const want = exits[i]!.nextDelayMs!;
      assert.ok(
        gap >= want - EARLY_MS && gap < want + LATE_MS,
        `restart ${i + 1}: waited ${gap.toFixed(1)} ms, backoff ${want} ms`,
      );
    }
    t.diagnostic(
      `crash backoff 40 ms ×2 cap 160 ms: observed restart delays ${gaps.map((g) => g.toFixed(1)).join(', ')} ms`,
    );
    const st = s.status()[0]!;
    assert.ok(st.crashes >= 5);
    assert.ok(st.restarts >= 5);
    assert.equal(st.lastExit?.outcome, 'stopped');
  });

  it('treats death by signal as a crash', async () => {
    const s = track(new Supervisor({ backoff: { jitter: 0, initialMs: 20, maxMs: 20 } }));
    const rec = new Recorder(s);
    s.add(child('agent', "process.kill(process.pid, 'SIGKILL')"));
    s.start();
    await rec.until(() => rec.exits.length >= 2, 'two exits');
    await s.stop();
    const e = rec.exits[0]!;
    assert.equal(e.code, null);
    assert.equal(e.signal, 'SIGKILL');
    assert.equal(e.outcome, 'crash');
    assert.equal(e.nextDelayMs, 20);
  });

  it('starts the crash series over after the child stayed up for resetAfterMs', async () => {
    // Runs 1, 2 and 4 crash at once; run 3 stays up 800 ms, longer than resetAfterMs, then crashes. The child is a
    // shell, which starts in a millisecond where Node may take longer than resetAfterMs on a loaded machine.
    const counter = join(dir, 'reset-count');
    const script =
      'n=$(( $(cat "$COUNTER" 2>/dev/null || echo 0) + 1 )); echo "$n" > "$COUNTER"; ' +
      '[ "$n" -eq 3 ] && sleep 0.8; exit 1';
    const s = track(new Supervisor({ backoff: { jitter: 0, initialMs: 40, maxMs: 1000, resetAfterMs: 500 } }));
    const rec = new Recorder(s);
    s.add({ name: 'agent', command: '/bin/sh', args: ['-c', script], env: { COUNTER: counter }, restart: 'always' });
    s.start();
    await rec.until(() => rec.exits.length >= 4, 'four exits', 20_000);
    await s.stop();
    const exits = rec.exits.slice(0, 4);
    assert.ok(exits[2]!.uptimeMs >= 800, `run 3 was up ${exits[2]!.uptimeMs} ms`);
    assert.ok(exits[0]!.uptimeMs < 500 && exits[1]!.uptimeMs < 500, 'runs 1 and 2 were short');
    assert.deepEqual(
      exits.map((e) => e.nextDelayMs),
      [40, 80, 40, 80],
    );
    assert.deepEqual(
      exits.map((e) => e.consecutiveCrashes),
      [1, 2, 1, 2],
    );
  });

  it('backs off at the cap once crash-looping, and says so', async () => {
    const s = track(
      new Supervisor({ backoff: { jitter: 0, initialMs: 20, factor: 2, maxMs: 150, crashLoopThreshold: 2 } }),
    );
    const rec = new Recorder(s);
    s.add(child('agent', 'process.exit(2)'));
    s.start();
    await rec.until(() => rec.exits.length >= 3, 'three exits', 20_000);
    const st = s.status()[0]!;
    await s.stop();
    assert.deepEqual(
      rec.exits.slice(0, 3).map((e) => [e.nextDelayMs, e.crashLooping]),
      [
        [20, false],
        [150, true],
        [150, true],
      ],
    );
    assert.equal(st.crashLooping, true);
    assert.equal(logs.filter((l) => l.includes('crash-looping')).length, 1, 'the crash loop is reported once');
  });

  it('paces a command that cannot be spawned like a crash', async () => {
    const s = track(new Supervisor({ backoff: { jitter: 0, initialMs: 30, maxMs: 30 } }));
    const rec = new Recorder(s);
    s.add({ name: 'ghost', command: join(dir, 'no-such-binary'), restart: 'always' });
    s.start();
    await rec.until(() => rec.exits.length >= 2, 'two failed spawns');
    await s.stop();
    const e = rec.exits[0]!;
    assert.equal(e.pid, null);
    assert.equal(e.outcome, 'crash');
    assert.equal(e.nextDelayMs, 30);
    assert.match(e.error ?? '', /ENOENT/);
    assert.equal(rec.starts.length, 0);
    assert.equal(s.status()[0]!.lastExit?.error, e.error);
  });

  it('paces a log file that cannot be opened like a crash', async () => {
    const blocker = join(dir, 'not-a-directory');
    writeFileSync(blocker, '');
    const s = track(new Supervisor({ backoff: { jitter: 0, initialMs: 30, maxMs: 30 } }));
    const rec = new Recorder(s);
    s.add(child('agent', 'setInterval(() => {}, 1000)', { logFile: join(blocker, 'agent.log') }));
    s.start();
    await rec.until(() => rec.exits.length >= 2, 'two failed starts');
    await s.stop();
    assert.equal(rec.starts.length, 0);
    assert.deepEqual(
      rec.exits.slice(0, 2).map((e) => [e.outcome, e.nextDelayMs, e.restarts]),
      [
        ['crash', 30, 0],
        ['crash', 30, 1],
      ],
    );
    assert.match(rec.exits[0]!.error ?? '', /ENOTDIR|EEXIST/);
  });
});

describe('Supervisor restart policies', () => {
  it("'on-failure' leaves a child that exited 0 down, and reports idle", async () => {
    const s = track(new Supervisor({ backoff: { jitter: 0, initialMs: 20 } }));
    const rec = new Recorder(s);
    let idle = 0;
    s.on('idle', () => idle++);
    s.add(child('once', 'process.exit(0)', { restart: 'on-failure' }));
    s.start();
    await rec.until(() => rec.exits.length >= 1, 'one exit');
    await waitFor('idle', () => idle === 1, { timeoutMs: 10_000 });
    assert.equal(rec.exits[0]!.nextDelayMs, null);
    assert.equal(rec.exits[0]!.outcome, 'clean');
    const st = s.status()[0]!;
    assert.equal(st.state, 'exited');
    assert.equal(st.pid, null);
    assert.equal(s.pidOf('once'), undefined);
  });

  it("'on-failure' restarts a crash; 'never' does not", async () => {
    const s = track(new Supervisor({ backoff: { jitter: 0, initialMs: 20, maxMs: 20 } }));
    const rec = new Recorder(s);
    s.add(child('flaky', 'process.exit(1)', { restart: 'on-failure' }));
    s.add(child('oneshot', 'process.exit(1)', { restart: 'never' }));
    s.start();
    await rec.until(() => rec.exitsOf('flaky').length >= 2 && rec.exitsOf('oneshot').length >= 1, 'exits');
    await s.stop();
    assert.equal(rec.exitsOf('flaky')[0]!.nextDelayMs, 20);
    assert.equal(rec.exitsOf('oneshot')[0]!.nextDelayMs, null);
    assert.equal(rec.startsOf('oneshot').length, 1);
    assert.equal(s.status().find((c) => c.name === 'oneshot')!.state, 'exited');
  });

  it('starts a child added after start() at once, and reports it in status()', async () => {
    const clock = new FakeClock(0);
    const s = track(new Supervisor({ clock }));
    const rec = new Recorder(s);
    s.start();
    s.add(child('late', 'setInterval(() => {}, 1000)'));
    await rec.until(() => rec.starts.length === 1, 'the late start');
    clock.advance(1500);
    const st = s.status()[0]!;
    assert.equal(st.state, 'running');
    assert.equal(st.pid, rec.starts[0]!.pid);
    assert.equal(s.pidOf('late'), st.pid);
    assert.equal(st.uptimeMs, 1500);
    assert.equal(st.lastExit, null);
    await s.stop();
    const final = s.status()[0]!;
    assert.deepEqual(final.lastExit, {
      code: null,
      signal: 'SIGTERM',
      outcome: 'stopped',
      uptimeMs: 1500,
      at: new Date(1500), // the injected clock's wall side
    });
  });

  it('reports misuse with stable codes', async () => {
    const s = track(new Supervisor());
    const code = (c: string) => (err: unknown) => err instanceof SupervisorError && err.code === c;
    s.add(child('a', '0'));
    assert.throws(() => s.add(child('a', '0')), code('DKC_SUPERVISOR_DUPLICATE_CHILD'));
    assert.throws(() => s.add(child('', '0')), code('DKC_SUPERVISOR_INVALID_ARGUMENT'));
    assert.throws(
      () => s.add({ name: 'b', command: 'x', restart: 'sometimes' as 'always' }),
      code('DKC_SUPERVISOR_INVALID_ARGUMENT'),
    );
    assert.throws(() => s.pidOf('nobody'), code('DKC_SUPERVISOR_UNKNOWN_CHILD'));
    assert.throws(() => new Supervisor({ backoff: { factor: 0 } }), code('DKC_SUPERVISOR_INVALID_ARGUMENT'));
    await assert.rejects(s.stop('SIGTERM', -1), code('DKC_SUPERVISOR_INVALID_ARGUMENT'));
    await s.stop();
    assert.equal(s.status()[0]!.state, 'stopped', 'a child never started is stopped with the supervisor');
    assert.throws(() => s.start(), code('DKC_SUPERVISOR_STOPPED'));
    assert.throws(() => s.add(child('c', '0')), code('DKC_SUPERVISOR_STOPPED'));
  });
});

describe('Supervisor stop', () => {
  it('terminates every child and restarts none of them', async (t) => {
    const s = track(new Supervisor({ backoff: { jitter: 0, initialMs: 20 } }));
    const rec = new Recorder(s);
    for (const name of ['server', 'agent-1', 'agent-2']) s.add(child(name, 'setInterval(() => {}, 1000)'));
    s.start();
    await rec.until(() => rec.starts.length === 3, 'three starts');
    const pids = ['server', 'agent-1', 'agent-2'].map((n) => s.pidOf(n)!);
    for (const p of pids) assert.ok(isAlive(p));
    const t0 = performance.now();
    await s.stop();
    const took = performance.now() - t0;
    for (const p of pids) assert.throws(() => process.kill(p, 0), /ESRCH/, `pid ${p} is gone`);
    assert.equal(rec.exits.length, 3);
    for (const e of rec.exits) {
      assert.equal(e.outcome, 'stopped');
      assert.equal(e.signal, 'SIGTERM');
      assert.equal(e.nextDelayMs, null);
    }
    assert.equal(rec.starts.length, 3, 'nothing was restarted');
    assert.ok(s.status().every((c) => c.state === 'stopped' && c.pid === null && c.uptimeMs === null));
    t.diagnostic(`stop() of 3 children with SIGTERM: ${took.toFixed(1)} ms`);
  });

  it('cancels a pending restart of a child in backoff', async () => {
    const s = track(new Supervisor({ backoff: { jitter: 0, initialMs: 60_000, maxMs: 60_000 } }));
    const rec = new Recorder(s);
    s.add(child('agent', 'process.exit(1)'));
    s.start();
    await rec.until(() => rec.exits.length === 1, 'the crash');
    const st = s.status()[0]!;
    assert.equal(st.state, 'backoff');
    assert.ok(st.nextStartInMs !== null && st.nextStartInMs > 50_000);
    const t0 = performance.now();
    await s.stop();
    assert.ok(performance.now() - t0 < 100);
    assert.equal(s.status()[0]!.state, 'stopped');
    assert.equal(s.status()[0]!.nextStartInMs, null);
  });

  it('SIGKILLs a child that ignores SIGTERM once the grace period is over', async (t) => {
    const ready = join(dir, 'stubborn.log');
    const s = track(new Supervisor());
    const rec = new Recorder(s);
    s.add(
      child(
        'stubborn',
        "process.on('SIGTERM', () => console.log('ignoring SIGTERM')); console.log('ready'); setInterval(() => {}, 1000)",
        { logFile: ready },
      ),
    );
    s.add(child('polite', 'setInterval(() => {}, 1000)'));
    s.start();
    await waitFor(
      'the stubborn child to install its handler',
      () => existsSync(ready) && readFileSync(ready, 'utf8').includes('ready'),
      { timeoutMs: 10_000 },
    );
    const pids = [s.pidOf('stubborn')!, s.pidOf('polite')!];
    const t0 = performance.now();
    await s.stop('SIGTERM', 300);
    const took = performance.now() - t0;
    for (const p of pids) assert.ok(!isAlive(p), `pid ${p} is gone`);
    assert.equal(rec.exitsOf('stubborn')[0]!.signal, 'SIGKILL');
    assert.equal(rec.exitsOf('polite')[0]!.signal, 'SIGTERM');
    assert.ok(
      took >= 300 - EARLY_MS && took < 300 + 1500,
      `stop took ${took.toFixed(1)} ms with a 300 ms grace period`,
    );
    await waitFor(
      'the SIGTERM to have reached the child',
      () => readFileSync(ready, 'utf8').includes('ignoring SIGTERM'),
      { timeoutMs: 2000 },
    );
    assert.ok(logs.some((l) => l.includes('did not exit within its grace period')));
    t.diagnostic(`stop() with a SIGTERM-ignoring child, grace 300 ms: ${took.toFixed(1)} ms`);
  });

  it("signals the child's whole process group, so its own helpers end with it", async () => {
    const pidFile = join(dir, 'grandchild.pid');
    const script = `
      const { spawn } = require('node:child_process');
      const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      require('node:fs').writeFileSync(process.env.PIDFILE, String(g.pid));
      setInterval(() => {}, 1000);`;
    const s = track(new Supervisor());
    s.add(child('parent', script, { env: { PIDFILE: pidFile } }));
    s.start();
    await waitFor('the grandchild pid', () => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '', {
      timeoutMs: 10_000,
    });
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    extraPids.add(noteProcess(grandchild));
    assert.ok(isRunning(grandchild));
    await s.stop('SIGTERM', 2000);
    // The grandchild is not ours to reap: once its parent is gone, whoever inherits it does, maybe later.
    await waitFor('the grandchild to be gone', () => !isRunning(grandchild), { timeoutMs: 5000 });
  });
});

describe('Supervisor log files', () => {
  it('appends stdout and stderr of every run to the log file, creating its directory', async () => {
    const logFile = join(dir, 'logs', 'nested', 'agent.log');
    const s = track(new Supervisor({ backoff: { jitter: 0 } }));
    const rec = new Recorder(s);
    s.add(
      child('agent', 'console.log("out " + process.pid); console.error("err " + process.pid); process.exit(0)', {
        logFile,
      }),
    );
    s.start();
    await rec.until(() => rec.exits.length >= 3, 'three runs');
    await s.stop();
    // A run that stop() cut short may not have written anything; the completed ones must all be there.
    const pids = rec.exits.filter((e) => e.outcome === 'clean').map((e) => e.pid);
    const text = readFileSync(logFile, 'utf8');
    for (const pid of pids) {
      assert.ok(text.includes(`out ${pid}\n`), `stdout of ${pid}`);
      assert.ok(text.includes(`err ${pid}\n`), `stderr of ${pid}`);
    }
    assert.ok(pids.length >= 3);
  });

  it('keeps what the file held before', async () => {
    const logFile = join(dir, 'keep.log');
    writeFileSync(logFile, 'from before\n');
    const s = track(new Supervisor());
    const rec = new Recorder(s);
    s.add(child('once', 'console.log("hello")', { logFile, restart: 'never' }));
    s.start();
    await rec.until(() => rec.exits.length === 1, 'the run');
    assert.equal(readFileSync(logFile, 'utf8'), 'from before\nhello\n');
  });

  it('reports an exit with an error code with the failure the process wrote this run, in the exit event and in lastExit', async () => {
    const logFile = join(dir, 'reason.log');
    // An earlier run's failure is not this run's.
    writeFileSync(logFile, 'dkc: an earlier failure\n');
    const s = track(new Supervisor({ backoff: { jitter: 0 } }));
    const rec = new Recorder(s);
    const klogError = 'E1126 19:58:05.684000   16309 httpserver.ts:304] kubelet server: port 4242 is in use';
    s.add(
      child('agent', `console.error(${JSON.stringify(klogError)}); console.log("I1126 later"); process.exit(1)`, {
        logFile,
        restart: 'never',
      }),
    );
    s.add(child('quiet', 'process.exit(3)', { logFile: join(dir, 'quiet.log'), restart: 'never' }));
    // Killed, it did not say why it ended: what it logged earlier is not given as the reason.
    const killScript = `console.error(${JSON.stringify(klogError)}); process.kill(process.pid, 'SIGKILL')`;
    s.add(child('killed', killScript, { logFile: join(dir, 'killed.log'), restart: 'never' }));
    s.start();
    await rec.until(() => rec.exits.length === 3, 'the three runs');
    const agent = rec.exits.find((e) => e.name === 'agent');
    assert.equal(agent?.reason, 'kubelet server: port 4242 is in use');
    assert.equal(s.status().find((c) => c.name === 'agent')?.lastExit?.reason, 'kubelet server: port 4242 is in use');
    const quiet = rec.exits.find((e) => e.name === 'quiet');
    assert.equal(quiet?.outcome, 'crash');
    assert.equal(quiet?.reason, undefined);
    const killed = rec.exits.find((e) => e.name === 'killed');
    assert.equal(killed?.signal, 'SIGKILL');
    assert.equal(killed?.reason, undefined);
  });
});

describe('Supervisor parent pipe', () => {
  const parentwatch = new URL('../../src/supervisor/parentwatch.js', import.meta.url).href;

  it('hands a watchParent child the pipe in DKC_SUPERVISOR_FD; other children do not get the variable', async () => {
    const out = join(dir, 'parent-pipe.json');
    const script = (file: string) =>
      `const fs = require('node:fs'); let kind = 'closed';
       try { kind = fs.fstatSync(3).isSocket() ? 'socket' : 'other'; } catch {}
       fs.writeFileSync(${JSON.stringify(file)}, JSON.stringify({ env: process.env.DKC_SUPERVISOR_FD ?? null, kind }));`;
    const s = track(new Supervisor());
    const rec = new Recorder(s);
    s.add(child('watched', script(out), { restart: 'never', watchParent: true }));
    // A variable inherited from the supervisor's own supervisor is not passed on to a child without the pipe.
    s.add(child('plain', script(`${out}.plain`), { restart: 'never', env: { DKC_SUPERVISOR_FD: '3' } }));
    s.start();
    await rec.until(() => rec.exits.length === 2, 'both runs');
    assert.deepEqual(JSON.parse(readFileSync(out, 'utf8')), { env: '3', kind: 'socket' });
    // (Its fd 3, if open at all, is one of node's own: only the variable says whether there is a pipe.)
    assert.equal((JSON.parse(readFileSync(`${out}.plain`, 'utf8')) as { env: string | null }).env, null);
  });

  it("a child watching the pipe learns of its supervisor's end when the pipe closes, and only then", async () => {
    const { spawn } = await import('node:child_process');
    const marker = join(dir, 'gone');
    const script = `import(${JSON.stringify(parentwatch)}).then((m) => {
      const w = m.watchSupervisor(() => { require('node:fs').writeFileSync(${JSON.stringify(marker)}, String(process.env.DKC_SUPERVISOR_FD)); process.exit(0); });
      console.log(w ? 'watching' : 'none');
      setInterval(() => console.log('tick'), 20);
    });`;
    const p = spawn(process.execPath, ['-e', script], {
      stdio: ['ignore', 'pipe', 'inherit', 'pipe'],
      env: { ...process.env, DKC_SUPERVISOR_FD: '3' },
    });
    extraPids.add(noteProcess(p.pid!));
    let said = '';
    p.stdout!.on('data', (d: Buffer) => (said += d.toString()));
    const exited = new Promise((r) => p.once('exit', r));
    await waitFor('the child to watch', () => said.includes('watching'), { timeoutMs: 10_000 });
    // The child's own timer fires several times while the pipe is open: each turn of its event loop was a chance to stop.
    await waitFor("five turns of the child's event loop", () => said.split('tick').length > 5, { timeoutMs: 10_000 });
    assert.ok(!existsSync(marker), 'an open pipe is no reason to stop');
    assert.equal(p.exitCode, null, 'the child still runs');
    // What the kernel does when the supervisor dies: our end of the pipe closes.
    (p.stdio[3] as import('node:net').Socket).destroy();
    await exited;
    assert.equal(
      readFileSync(marker, 'utf8'),
      'undefined',
      'fired once, and the variable was removed for its own children',
    );
  });
});
