// Shared by the supervisor tests: child scripts run by the current node binary, an event recorder with
// bounded waits, and process-liveness checks.

import { readFileSync } from 'node:fs';
import { processStartTime } from '../../src/up/lock.js';
import { configureLogging } from '../../src/util/klog.js';
import type { ExitEvent, StartEvent, Supervisor } from '../../src/supervisor/supervisor.js';

/** A child spec's command and args that run `script` with this node binary. */
export function nodeScript(script: string): { command: string; args: string[] } {
  return { command: process.execPath, args: ['-e', script] };
}

/** True while a process with this pid exists (signal 0 probes without delivering anything). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EPERM') return true;
    return false;
  }
}

/**
 * Like isAlive, but a zombie counts as gone: a process that is not our child is reaped by whoever inherits
 * it, which may be late or never in a container.
 */
export function isRunning(pid: number): boolean {
  if (!isAlive(pid)) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    // No procfs (not Linux) or the process just went away.
    return isAlive(pid);
  }
}

/** A process a test started, as it was when the test learned its pid: the pid and its start time. */
export interface StartedProcess {
  pid: number;
  startTime: string | undefined;
}

/** Notes a process this test started (directly or through a supervisor) while it runs, for killIfStill. */
export function noteProcess(pid: number): StartedProcess {
  return { pid, startTime: processStartTime(pid) };
}

/**
 * SIGKILLs a process this test started if it is still that process. A pid alone is not enough: the suite starts
 * thousands of processes and pids wrap, so a pid freed long ago may now be another test file's runner; the start
 * time tells them apart, and without one (no procfs) nothing is killed.
 */
export function killIfStill(p: StartedProcess | undefined): void {
  if (p === undefined || p.startTime === undefined || processStartTime(p.pid) !== p.startTime) return;
  try {
    process.kill(p.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Keeps klog's lines in memory so test output stays readable; returns them for assertions. */
export function captureLogs(): string[] {
  const lines: string[] = [];
  configureLogging({
    sink: (line) => {
      if (lines.length < 5_000) lines.push(line);
    },
  });
  return lines;
}

export type Timed<T> = T & { t: number };

/** Records a supervisor's events with their arrival time and lets a test await a condition on them. */
export class Recorder {
  readonly starts: Timed<StartEvent>[] = [];
  readonly exits: Timed<ExitEvent>[] = [];
  readonly startedPids = new Set<number>();
  #waiters: { check: () => boolean; resolve: () => void }[] = [];

  constructor(supervisor: Supervisor) {
    supervisor.on('start', (ev) => {
      this.starts.push({ ...ev, t: performance.now() });
      this.startedPids.add(ev.pid);
      this.#poke();
    });
    supervisor.on('exit', (ev) => {
      this.exits.push({ ...ev, t: performance.now() });
      this.#poke();
    });
  }

  startsOf(name: string): Timed<StartEvent>[] {
    return this.starts.filter((s) => s.name === name);
  }

  exitsOf(name: string): Timed<ExitEvent>[] {
    return this.exits.filter((e) => e.name === name);
  }

  /** Resolves once `check` holds after some event; rejects after `timeoutMs`. */
  until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const waiter = {
        check,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      this.#waiters.push(waiter);
    });
  }

  #poke(): void {
    const ready = this.#waiters.filter((w) => w.check());
    this.#waiters = this.#waiters.filter((w) => !ready.includes(w));
    for (const w of ready) w.resolve();
  }
}
