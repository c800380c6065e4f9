// One `dkc up` per data dir. The first takes DIR/dkc.lock before touching anything else; a second finds the
// lock held by a live process and stops at once, leaving the running cluster's kubeconfig, database and
// certificates alone. A lock whose owner is dead (SIGKILLed, power loss) is stale and taken over: liveness is
// process.kill(pid, 0), and the owner's start time, where /proc has it, tells a reused pid from the owner.

import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UpError, messages } from './errors.js';
import { errorMessage } from '../util/errors.js';

export const LOCK_FILE = 'dkc.lock';

export interface LockOwner {
  pid: number;
  /** The owner's start time in clock ticks since boot (/proc/PID/stat field 22), when known. */
  startTime?: string;
}

export interface DataDirLock {
  readonly path: string;
  /** Removes the lock if it is still ours. Synchronous, so that it can run in an 'exit' handler. */
  release(this: void): void;
}

/** A process's start time from /proc, or undefined where there is no procfs. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at field 3; the start time is field 22.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function parseLockOwner(text: string): LockOwner | undefined {
  try {
    const v = JSON.parse(text) as { pid?: unknown; startTime?: unknown };
    if (typeof v.pid !== 'number' || !Number.isSafeInteger(v.pid) || v.pid <= 0) return undefined;
    return { pid: v.pid, ...(typeof v.startTime === 'string' ? { startTime: v.startTime } : {}) };
  } catch {
    return undefined;
  }
}

/** Whether the lock's owner still runs: its pid exists and, when both are known, started when the owner did. */
export function ownerAlive(owner: LockOwner, exists = pidExists, startTime = processStartTime): boolean {
  if (!exists(owner.pid)) return false;
  if (owner.startTime === undefined) return true;
  const now = startTime(owner.pid);
  return now === undefined || now === owner.startTime;
}

function readOwner(path: string): LockOwner | undefined {
  try {
    return parseLockOwner(readFileSync(path, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UpError('DKC_UP_DATA_DIR_LOCK_FAILED', messages.lockFailed(path, errorMessage(err)), { cause: err });
  }
}

function removeIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/**
 * Takes the data dir's lock or throws UpError('DKC_UP_DATA_DIR_IN_USE') naming the live owner. The lock file appears
 * with its content in one step (written aside, then hard-linked into place, which fails if it exists), so a
 * reader never sees a half-written owner.
 */
export function lockDataDir(dir: string): DataDirLock {
  const path = join(dir, LOCK_FILE);
  const startTime = processStartTime(process.pid);
  const me: LockOwner = { pid: process.pid, ...(startTime !== undefined ? { startTime } : {}) };
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(tmp, JSON.stringify(me) + '\n');
  } catch (err) {
    throw new UpError('DKC_UP_DATA_DIR_LOCK_FAILED', messages.lockFailed(path, errorMessage(err)), { cause: err });
  }
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(tmp, path);
        return lockHandle(path, me.pid);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST')
          throw new UpError('DKC_UP_DATA_DIR_LOCK_FAILED', messages.lockFailed(path, errorMessage(err)), {
            cause: err,
          });
      }
      const owner = readOwner(path);
      if (owner && owner.pid !== me.pid && ownerAlive(owner))
        throw new UpError('DKC_UP_DATA_DIR_IN_USE', messages.dataDirInUse(dir, owner.pid));
      // Stale (dead owner, unreadable content, or our own pid left by an earlier process): take it over.
      removeIfPresent(path);
    }
    throw new UpError('DKC_UP_DATA_DIR_LOCK_FAILED', messages.lockContended(path));
  } finally {
    removeIfPresent(tmp);
  }
}

function lockHandle(path: string, pid: number): DataDirLock {
  let released = false;
  return {
    path,
    release() {
      if (released) return;
      released = true;
      try {
        if (readOwner(path)?.pid === pid) unlinkSync(path);
      } catch {
        // Leaving a lock behind is harmless: the next start finds its owner dead.
      }
    },
  };
}
