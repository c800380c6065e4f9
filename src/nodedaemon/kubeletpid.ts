// The kubelet's process id, as `--kubelet-pid-command` prints it (systemd's MainPID: 0 while the unit is down), and
// the accounting of the restarts the daemon did not cause. A kubelet that crashes and is started again by systemd
// within a second leaves healthz down for less than any probe notices; its pid changes every time. The daemon takes a
// baseline after each restart it runs; any later change of pid is a restart someone else caused (a crash, an
// operator). Counted per config, since the daemon last restarted the kubelet onto it, and kept across restarts of the
// daemon beside the journal, so the NodeConfig's count does not fall back to zero when the daemon restarts.

import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../util/atomicfile.js';

export const RESTARTS_FILE = 'restarts.json';

/** What the command printed: a process id (0: not running), or why it could not tell. */
export type PidReading = { pid: number } | { error: string };

/** systemctl's `--value` output: a decimal pid, 0 for none; an empty answer is none too. */
export function parsePid(out: string): PidReading {
  const text = out.trim();
  if (text === '') return { pid: 0 };
  return /^\d{1,10}$/.test(text)
    ? { pid: Number(text) }
    : { error: `not a process id: ${JSON.stringify(text.slice(0, 80))}` };
}

/** Runs the pid command through a shell, bounded by `timeoutMs`. */
export function readKubeletPid(command: string, timeoutMs: number): Promise<PidReading> {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', command], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out = (out + b.toString('utf8')).slice(-200)));
    child.stderr.on('data', (b: Buffer) => (err = (err + b.toString('utf8')).slice(-200)));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ error: e.message });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) return resolve(parsePid(out));
      resolve({
        error: `exited with ${code === null ? 'a signal' : `status ${code}`}: ${err.trim().split('\n').at(-1) ?? ''}`,
      });
    });
  });
}

/** The pid last seen running (undefined: none seen yet by this process). */
export interface PidTrack {
  known: number | undefined;
}

/**
 * One reading against what was known: a running pid other than the known one is a restart the daemon did not cause
 * (its own restarts re-baseline the track before they are read). A pid of 0 (stopped) is no restart yet: the next
 * pid is. The first pid this process sees is the baseline, never a restart.
 */
export function observePid(track: PidTrack, pid: number): { track: PidTrack; restarted: boolean } {
  if (pid === 0) return { track, restarted: false };
  if (track.known === undefined || track.known === pid) return { track: { known: pid }, restarted: false };
  return { track: { known: pid }, restarted: true };
}

/** The restarts the daemon did not cause since it last restarted the kubelet onto `digest`. */
export interface RestartCount {
  digest: string;
  count: number;
  /** When the last was seen (RFC 3339). */
  last?: string;
}

/** The count as status.kubelet reports it: nothing to say for none. */
export function reportOf(c: RestartCount | undefined): {
  unexpectedRestarts: number | null;
  lastUnexpectedRestart: string | null;
} {
  return c && c.count > 0
    ? { unexpectedRestarts: c.count, lastUnexpectedRestart: c.last ?? null }
    : { unexpectedRestarts: null, lastUnexpectedRestart: null };
}

/** The count for `digest`: the record's when it counts that content, else none. */
export function countFor(record: RestartCount | undefined, digest: string): RestartCount {
  return record?.digest === digest ? record : { digest, count: 0 };
}

/** The persisted count, beside the journal in the daemon's directory. */
export class RestartRecord {
  private readonly path: string;
  constructor(dir: string) {
    this.path = join(dir, RESTARTS_FILE);
  }
  async read(): Promise<RestartCount | undefined> {
    try {
      const r = JSON.parse(await readFile(this.path, 'utf8')) as RestartCount;
      return typeof r.digest === 'string' && Number.isSafeInteger(r.count) && r.count >= 0 ? r : undefined;
    } catch {
      return undefined; // missing or unreadable: counting starts again, which only delays a rollback
    }
  }
  async write(c: RestartCount): Promise<void> {
    await writeFileAtomic(this.path, JSON.stringify(c) + '\n', 0o600);
  }
}
