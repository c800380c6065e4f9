// The data dir lock's decisions (who owns it, whether that owner still lives) and its takeover of a stale lock,
// against real processes and files.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCK_FILE, lockDataDir, ownerAlive, parseLockOwner, processStartTime } from '../../src/up/lock.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'dkc-lock-'));
  dirs.push(d);
  return d;
}

/** The pid of a process that has already exited (and been reaped). */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid;
}

describe('parseLockOwner and ownerAlive', () => {
  it('reads a pid and start time; rejects anything else', () => {
    assert.deepEqual(parseLockOwner('{"pid":12,"startTime":"345"}\n'), { pid: 12, startTime: '345' });
    assert.deepEqual(parseLockOwner('{"pid":12}'), { pid: 12 });
    for (const bad of ['', '12', '{"pid":0}', '{"pid":"12"}', '{"pid":1.5}', '{'])
      assert.equal(parseLockOwner(bad), undefined, bad);
  });

  it('an owner lives while its pid exists and started when recorded; a reused pid is not the owner', () => {
    assert.equal(
      ownerAlive(
        { pid: 7, startTime: '100' },
        () => true,
        () => '100',
      ),
      true,
    );
    assert.equal(
      ownerAlive(
        { pid: 7, startTime: '100' },
        () => true,
        () => '999',
      ),
      false,
    );
    assert.equal(
      ownerAlive(
        { pid: 7, startTime: '100' },
        () => false,
        () => '100',
      ),
      false,
    );
    assert.equal(
      ownerAlive(
        { pid: 7 },
        () => true,
        () => '999',
      ),
      true,
    );
    assert.equal(ownerAlive({ pid: process.pid, startTime: processStartTime(process.pid)! }), true);
    assert.equal(ownerAlive({ pid: deadPid() }), false);
  });
});

describe('lockDataDir', () => {
  it('refuses while a live process holds the lock, naming it; takes over once that process is dead', async () => {
    const dir = tempDir();
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    try {
      const pid = holder.pid!;
      writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid, startTime: processStartTime(pid) }));
      assert.throws(() => lockDataDir(dir), {
        code: 'DKC_UP_DATA_DIR_IN_USE',
        message: `data dir ${dir} is in use by dkc (pid ${pid})`,
      });
    } finally {
      holder.kill('SIGKILL');
      await new Promise((r) => holder.once('exit', r));
    }
    const lock = lockDataDir(dir);
    assert.equal(parseLockOwner(readFileSync(lock.path, 'utf8'))?.pid, process.pid);
    lock.release();
    assert.equal(existsSync(lock.path), false);
  });

  it('takes over a lock left by a dead pid, by a reused pid, or with unreadable content', () => {
    for (const stale of [
      JSON.stringify({ pid: deadPid() }),
      JSON.stringify({ pid: process.ppid, startTime: 'not-when-it-started' }),
      'garbage',
    ]) {
      const dir = tempDir();
      writeFileSync(join(dir, LOCK_FILE), stale);
      const lock = lockDataDir(dir);
      assert.equal(parseLockOwner(readFileSync(lock.path, 'utf8'))?.pid, process.pid, stale);
      lock.release();
    }
  });

  it('release leaves a lock that someone else has taken since', () => {
    const dir = tempDir();
    const lock = lockDataDir(dir);
    writeFileSync(lock.path, JSON.stringify({ pid: process.ppid }));
    lock.release();
    assert.equal(parseLockOwner(readFileSync(lock.path, 'utf8'))?.pid, process.ppid);
  });
});
