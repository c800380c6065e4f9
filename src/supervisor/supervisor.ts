// Keeps named child processes running: `dkc up` runs the server and its agents under it, and it stands in for
// systemd on hosts that have none. The agent applies a new config the kubelet's way — it exits with code 0 and
// expects to be started again at once — so a clean exit restarts immediately, while a crash (non-zero exit,
// death by signal, failure to spawn) restarts only after the child's backoff. A child ended by stop() is never
// restarted.
//
// Each child runs in its own process group (detached), so a Ctrl-C at the terminal reaches the supervisor
// alone and stop() decides the order and the grace period; signals go to the whole group, so a child's own
// helpers end with it. Being detached, children would outlive a supervisor that dies abruptly, so while it
// supervises, the supervisor's own exit (an uncaught exception, a process.exit) SIGKILLs whatever still runs.
// SIGKILL of the supervisor itself escapes any in-process cleanup; children that opt in (`watchParent`) notice it
// through a pipe the kernel closes when the supervisor dies, and stop themselves.

import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { closeSync, fstatSync, mkdirSync, openSync, readSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Socket } from 'node:net';
import { systemClock, type Clock } from '../util/clock.js';
import { klog } from '../util/klog.js';
import { SUPERVISOR_FD_ENV } from './parentwatch.js';
import { RestartBackoff, resolveBackoffOptions, type BackoffOptions } from './backoff.js';
import { SupervisorError } from './errors.js';
import { errorMessage } from '../util/errors.js';
import { failureLine } from '../util/failureline.js';

export type RestartPolicy = 'always' | 'on-failure' | 'never';

export interface ChildSpec {
  /** Unique among the supervisor's children; used in logs, events and status. */
  name: string;
  command: string;
  args?: readonly string[];
  /** Merged over the supervisor's own environment; a variable set to `undefined` is removed. */
  env?: Readonly<Record<string, string | undefined>>;
  cwd?: string;
  /** Stdout and stderr are appended here (parent directories are created); otherwise they are inherited. */
  logFile?: string;
  /** 'always': restart after any exit; 'on-failure': only after a crash; 'never': run once. */
  restart: RestartPolicy;
  /** Overrides the supervisor's backoff options for this child. */
  backoff?: BackoffOptions;
  /**
   * Hand the child a pipe that closes when the supervisor dies (its descriptor in DKC_SUPERVISOR_FD; see
   * parentwatch.ts), so that a child able to watch it stops instead of running on as an orphan.
   */
  watchParent?: boolean;
}

/**
 * - pending: added, the supervisor not yet started;
 * - running: a process is alive;
 * - backoff: ended, waiting to be started again;
 * - stopping: signalled by stop(), not yet exited;
 * - exited: ended, and its restart policy says it stays down;
 * - stopped: ended by stop() (or never started because of it).
 */
export type ChildState = 'pending' | 'running' | 'backoff' | 'stopping' | 'exited' | 'stopped';

/** How a run ended, as the supervisor judges it: exit 0, a crash, or the supervisor's own stop(). */
export type RunOutcome = 'clean' | 'crash' | 'stopped';

export interface StartEvent {
  name: string;
  pid: number;
  /** Restarts so far, this start included (0 for the first start). */
  restarts: number;
}

export interface ExitEvent {
  name: string;
  /** Null when the process could not be spawned at all. */
  pid: number | null;
  code: number | null;
  signal: NodeJS.Signals | null;
  outcome: RunOutcome;
  uptimeMs: number;
  /** Restarts before this exit (the one it may lead to is not counted yet). */
  restarts: number;
  /** Crash exits so far, this one included. */
  crashes: number;
  consecutiveCrashes: number;
  crashLooping: boolean;
  /** Milliseconds until the next start, or null when the child stays down. */
  nextDelayMs: number | null;
  /** Why the spawn failed, when it did. */
  error?: string;
  /**
   * For an exit with an error code: the failure the process wrote to its log file this run (its `dkc: …` line or last
   * klog error).
   */
  reason?: string;
}

export interface SupervisorEvents {
  start: StartEvent;
  exit: ExitEvent;
  /** Nothing is running or waiting to restart, and no stop() is in progress: every child's policy let it rest. */
  idle: Record<string, never>;
}

export interface LastExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  outcome: RunOutcome;
  uptimeMs: number;
  at: Date;
  error?: string;
  /** For an exit with an error code: the failure the process wrote to its log file this run. */
  reason?: string;
}

export interface ChildStatus {
  name: string;
  state: ChildState;
  pid: number | null;
  restarts: number;
  crashes: number;
  consecutiveCrashes: number;
  crashLooping: boolean;
  /** How long the current process has been running, or null when none is. */
  uptimeMs: number | null;
  /** Milliseconds until a child in backoff is started again, or null. */
  nextStartInMs: number | null;
  lastExit: LastExit | null;
}

export interface SupervisorOptions {
  /** Backoff for every child that does not bring its own. */
  backoff?: BackoffOptions;
  /** Monotonic time for uptimes and pacing, wall time for `lastExit.at`; the system clock by default. */
  clock?: Clock;
}

interface Child {
  readonly spec: Readonly<ChildSpec>;
  readonly backoff: RestartBackoff;
  state: ChildState;
  proc: ChildProcess | null;
  pid: number | null;
  startedAt: number;
  /** The log file's size when the current process started: what it writes comes after. */
  logOffset: number;
  restarts: number;
  crashes: number;
  lastExit: LastExit | null;
  restartTimer: ReturnType<typeof setTimeout> | null;
  restartAt: number | null;
  killTimer: ReturnType<typeof setTimeout> | null;
  killAt: number | null;
  /** restart() asked for this child: once its process has exited it is started again at once. */
  restartWaiters: ((err?: Error) => void)[];
}

const POLICIES: readonly RestartPolicy[] = ['always', 'on-failure', 'never'];
// The child's descriptor for the pipe that tells it the supervisor is gone.
const PARENT_PIPE_FD = 3;
// Process groups are a POSIX notion; on Windows the child is signalled alone.
const GROUPS = process.platform !== 'win32';
// How much of a crashed child's log is read for the reason it gave.
const CRASH_LOG_TAIL = 64 * 1024;

export class Supervisor {
  readonly #children = new Map<string, Child>();
  readonly #events = new EventEmitter();
  readonly #backoff: BackoffOptions;
  readonly #clock: Clock;
  #started = false;
  #stopping = false;
  #drainWaiters: (() => void)[] = [];
  readonly #onProcessExit = (): void => {
    for (const child of this.#children.values()) this.#signal(child, 'SIGKILL');
  };
  #exitHook = false;

  constructor(options: SupervisorOptions = {}) {
    // Validate once here so a bad option fails at construction, not at the first crash.
    resolveBackoffOptions(options.backoff);
    this.#backoff = { ...options.backoff };
    this.#clock = options.clock ?? systemClock;
  }

  on<K extends keyof SupervisorEvents>(event: K, listener: (ev: SupervisorEvents[K]) => void): this {
    this.#events.on(event, listener);
    return this;
  }

  once<K extends keyof SupervisorEvents>(event: K, listener: (ev: SupervisorEvents[K]) => void): this {
    this.#events.once(event, listener);
    return this;
  }

  off<K extends keyof SupervisorEvents>(event: K, listener: (ev: SupervisorEvents[K]) => void): this {
    this.#events.off(event, listener);
    return this;
  }

  /** Supervises one more child; once the supervisor has started, the child starts at once. */
  add(spec: ChildSpec): void {
    if (this.#stopping)
      throw new SupervisorError(
        'DKC_SUPERVISOR_STOPPED',
        `cannot add child "${spec.name}": the supervisor was stopped`,
      );
    if (typeof spec.name !== 'string' || spec.name === '')
      throw new SupervisorError('DKC_SUPERVISOR_INVALID_ARGUMENT', 'child name must be a non-empty string');
    if (typeof spec.command !== 'string' || spec.command === '') {
      throw new SupervisorError(
        'DKC_SUPERVISOR_INVALID_ARGUMENT',
        `child "${spec.name}": command must be a non-empty string`,
      );
    }
    if (!POLICIES.includes(spec.restart)) {
      throw new SupervisorError(
        'DKC_SUPERVISOR_INVALID_ARGUMENT',
        `child "${spec.name}": restart must be one of ${POLICIES.join(', ')}, got ${String(spec.restart)}`,
      );
    }
    if (this.#children.has(spec.name))
      throw new SupervisorError('DKC_SUPERVISOR_DUPLICATE_CHILD', `a child named "${spec.name}" is already supervised`);
    const frozen: Readonly<ChildSpec> = Object.freeze({
      ...spec,
      args: Object.freeze([...(spec.args ?? [])]),
      ...(spec.env ? { env: Object.freeze({ ...spec.env }) } : {}),
    });
    const child: Child = {
      spec: frozen,
      backoff: new RestartBackoff({ ...this.#backoff, ...spec.backoff }),
      state: 'pending',
      proc: null,
      pid: null,
      startedAt: 0,
      logOffset: 0,
      restarts: 0,
      crashes: 0,
      lastExit: null,
      restartTimer: null,
      restartAt: null,
      killTimer: null,
      killAt: null,
      restartWaiters: [],
    };
    this.#children.set(spec.name, child);
    if (this.#started) this.#spawn(child);
  }

  /** Starts every child added so far (and, from now on, every child as it is added). Calling it again does nothing. */
  start(): void {
    if (this.#stopping) throw new SupervisorError('DKC_SUPERVISOR_STOPPED', 'cannot start: the supervisor was stopped');
    if (this.#started) return;
    this.#started = true;
    process.on('exit', this.#onProcessExit);
    this.#exitHook = true;
    for (const child of this.#children.values()) if (child.state === 'pending') this.#spawn(child);
  }

  /**
   * Sends `signal` to every running child, SIGKILL to those still alive `graceMs` later, and resolves when all
   * have exited. Nothing is restarted afterwards. Calling it again (a second Ctrl-C) re-signals the children still
   * alive, and may shorten — never extend — their grace period.
   */
  stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<void> {
    if (!(graceMs >= 0)) {
      return Promise.reject(
        new SupervisorError('DKC_SUPERVISOR_INVALID_ARGUMENT', `stop grace period must be >= 0, got ${graceMs}`),
      );
    }
    const first = !this.#stopping;
    this.#stopping = true;
    const running = [...this.#children.values()].filter((c) => c.proc !== null).length;
    if (first) klog.info('Stopping supervised processes', { signal, gracePeriodMs: graceMs, running });
    for (const child of this.#children.values()) {
      if (child.restartTimer) clearTimeout(child.restartTimer);
      child.restartTimer = null;
      child.restartAt = null;
      if (child.proc === null) {
        if (child.state === 'pending' || child.state === 'backoff') child.state = 'stopped';
        continue;
      }
      child.state = 'stopping';
      this.#signal(child, signal);
      if (signal === 'SIGKILL') continue;
      const deadline = this.#clock.monotonicMs() + graceMs;
      if (child.killAt !== null && child.killAt <= deadline) continue;
      if (child.killTimer) clearTimeout(child.killTimer);
      child.killAt = deadline;
      const proc = child.proc;
      child.killTimer = setTimeout(() => {
        child.killTimer = null;
        if (child.proc !== proc) return;
        klog.warning('Supervised process did not exit within its grace period, killing it', {
          name: child.spec.name,
          pid: child.pid,
          gracePeriodMs: graceMs,
        });
        this.#signal(child, 'SIGKILL');
      }, graceMs);
    }
    const drained = this.#drained();
    this.#settle();
    return drained;
  }

  /**
   * Restarts one child as `systemctl restart` does: SIGTERM to its running process (SIGKILL after `graceMs`), and a
   * new process as soon as it has exited, without backoff; a child waiting in backoff starts at once. Resolves when
   * the new process has been spawned. The stop counts as a stop, not a crash.
   */
  restart(name: string, graceMs = 10_000): Promise<void> {
    let child: Child;
    try {
      child = this.#get(name);
    } catch (err) {
      return Promise.reject(err);
    }
    if (this.#stopping)
      return Promise.reject(
        new SupervisorError('DKC_SUPERVISOR_STOPPED', `cannot restart child "${name}": the supervisor was stopped`),
      );
    if (!this.#started)
      return Promise.reject(
        new SupervisorError(
          'DKC_SUPERVISOR_INVALID_ARGUMENT',
          `cannot restart child "${name}": the supervisor has not started`,
        ),
      );
    return new Promise<void>((resolve, reject) => {
      child.restartWaiters.push((err) => (err ? reject(err) : resolve()));
      if (child.proc === null) {
        if (child.restartTimer) clearTimeout(child.restartTimer);
        child.restartTimer = null;
        child.restartAt = null;
        this.#restarted(child);
        return;
      }
      if (child.state === 'stopping') return; // already on its way down: the waiters are answered when it is up again
      klog.info('Restarting supervised process', { name, pid: child.pid });
      child.state = 'stopping';
      this.#signal(child, 'SIGTERM');
      const proc = child.proc;
      child.killAt = this.#clock.monotonicMs() + graceMs;
      child.killTimer = setTimeout(() => {
        child.killTimer = null;
        if (child.proc === proc) this.#signal(child, 'SIGKILL');
      }, graceMs);
    });
  }

  /** Starts a child that restart() brought down, and answers whoever asked. */
  #restarted(child: Child): void {
    const waiters = child.restartWaiters.splice(0);
    if (waiters.length === 0) return;
    child.backoff.reset();
    this.#spawn(child);
    for (const w of waiters) w();
  }

  /** The pid of the child's current process, or undefined when none is running. */
  pidOf(name: string): number | undefined {
    return this.#get(name).pid ?? undefined;
  }

  /** One entry per child, in the order they were added. */
  status(): ChildStatus[] {
    const now = this.#clock.monotonicMs();
    return [...this.#children.values()].map((c) => ({
      name: c.spec.name,
      state: c.state,
      pid: c.pid,
      restarts: c.restarts,
      crashes: c.crashes,
      consecutiveCrashes: c.backoff.consecutiveCrashes,
      crashLooping: c.backoff.crashLooping,
      uptimeMs: c.proc !== null ? now - c.startedAt : null,
      nextStartInMs: c.restartAt !== null ? Math.max(0, c.restartAt - now) : null,
      lastExit: c.lastExit ? { ...c.lastExit } : null,
    }));
  }

  #get(name: string): Child {
    const child = this.#children.get(name);
    if (!child) throw new SupervisorError('DKC_SUPERVISOR_UNKNOWN_CHILD', `no child named "${name}" is supervised`);
    return child;
  }

  /** The failure a crashed child wrote to its log file this run, read from the file's last 64 KiB at most. */
  #crashReason(child: Child): string | undefined {
    const { logFile } = child.spec;
    if (logFile === undefined) return undefined;
    let fd: number | undefined;
    try {
      fd = openSync(logFile, 'r');
      const size = fstatSync(fd).size;
      const from = Math.max(child.logOffset, size - CRASH_LOG_TAIL);
      const buf = Buffer.alloc(Math.max(0, size - from));
      readSync(fd, buf, 0, buf.length, from);
      return failureLine(buf.toString('utf8'));
    } catch {
      return undefined; // a log file gone or unreadable: the crash is reported without its reason
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  #emit<K extends keyof SupervisorEvents>(event: K, ev: SupervisorEvents[K]): void {
    // A throwing listener must not leave a child half-accounted for.
    try {
      this.#events.emit(event, ev);
    } catch (err) {
      klog.error(`Supervisor ${event} listener failed: ${errorMessage(err)}`);
    }
  }

  #spawn(child: Child): void {
    const { spec } = child;
    if (child.state !== 'pending') child.restarts++;
    child.state = 'running';
    child.startedAt = this.#clock.monotonicMs();
    let logFd: number | undefined;
    let proc: ChildProcess;
    try {
      if (spec.logFile !== undefined) {
        mkdirSync(dirname(spec.logFile), { recursive: true });
        logFd = openSync(spec.logFile, 'a');
        child.logOffset = fstatSync(logFd).size;
      }
      const out = logFd ?? 'inherit';
      const env = spec.env ? { ...process.env, ...spec.env } : { ...process.env };
      if (spec.watchParent) env[SUPERVISOR_FD_ENV] = String(PARENT_PIPE_FD);
      else delete env[SUPERVISOR_FD_ENV];
      proc = spawn(spec.command, spec.args ?? [], {
        cwd: spec.cwd,
        env,
        stdio: spec.watchParent ? ['ignore', out, out, 'pipe'] : ['ignore', out, out],
        detached: GROUPS,
      });
    } catch (err) {
      // Synchronous failures (a log file that cannot be opened, a bad cwd type) are paced like crashes.
      queueMicrotask(() => this.#ended(child, null, null, null, err));
      child.proc = null;
      return;
    } finally {
      // The child holds its own copy of the descriptor from here on.
      if (logFd !== undefined) closeSync(logFd);
    }
    child.proc = proc;
    child.pid = proc.pid ?? null;
    // Our end of the parent pipe is never written: it only has to stay open while we live, without keeping this
    // process alive by itself, and go away with the child.
    const parentPipe = spec.watchParent ? (proc.stdio[PARENT_PIPE_FD] as Socket | null | undefined) : undefined;
    parentPipe?.on('error', () => undefined);
    parentPipe?.unref();
    proc.once('exit', (code, signal) => {
      parentPipe?.destroy();
      this.#ended(child, proc, code, signal);
    });
    proc.on('error', (err) => {
      // 'error' without a pid is a failed spawn (ENOENT, EACCES); with one it is a failed kill or IPC, not an exit.
      if (proc.pid === undefined) this.#ended(child, proc, null, null, err);
      else klog.warning(`Supervised process error: ${err.message}`, { name: spec.name, pid: proc.pid });
    });
    if (proc.pid !== undefined) {
      klog.info('Started supervised process', { name: spec.name, pid: proc.pid, restarts: child.restarts });
      this.#emit('start', { name: spec.name, pid: proc.pid, restarts: child.restarts });
    }
  }

  #ended(
    child: Child,
    proc: ChildProcess | null,
    code: number | null,
    signal: NodeJS.Signals | null,
    error?: unknown,
  ): void {
    // Exactly one end per process: 'exit' and 'error' may both fire for a failed spawn.
    if (child.proc !== proc || (child.state !== 'running' && child.state !== 'stopping')) return;
    const now = this.#clock.monotonicMs();
    const pid = child.pid;
    const uptimeMs = now - child.startedAt;
    child.proc = null;
    child.pid = null;
    if (child.killTimer) clearTimeout(child.killTimer);
    child.killTimer = null;
    child.killAt = null;

    const outcome: RunOutcome =
      child.state === 'stopping' || this.#stopping ? 'stopped' : error === undefined && code === 0 ? 'clean' : 'crash';
    const errorText = error === undefined ? undefined : errorMessage(error);
    // Only a process that exited with an error said why; one killed by a signal did not choose to end, and the last
    // error it logged (a failed request a while before) would read as the cause.
    const reason =
      outcome === 'crash' && errorText === undefined && code !== null ? this.#crashReason(child) : undefined;
    if (outcome === 'crash') child.crashes++;
    let nextDelayMs: number | null = null;
    if (outcome !== 'stopped') {
      const decision = child.backoff.afterExit(outcome, uptimeMs, now);
      const restart = child.spec.restart === 'always' || (child.spec.restart === 'on-failure' && outcome === 'crash');
      if (restart) nextDelayMs = decision.delayMs;
      if (
        decision.crashLooping &&
        outcome === 'crash' &&
        decision.consecutiveCrashes === child.backoff.options.crashLoopThreshold
      ) {
        klog.warning('Supervised process is crash-looping, restarting it at the maximum backoff from now on', {
          name: child.spec.name,
          consecutiveCrashes: decision.consecutiveCrashes,
          backoffMs: child.backoff.options.maxMs,
        });
      }
      if (decision.throttled && restart) {
        klog.warning('Supervised process exits cleanly too often, delaying its restart', {
          name: child.spec.name,
          delayMs: decision.delayMs,
        });
      }
    }
    child.lastExit = {
      code,
      signal,
      outcome,
      uptimeMs,
      at: this.#clock.now(),
      ...(errorText !== undefined ? { error: errorText } : {}),
      ...(reason !== undefined ? { reason } : {}),
    };
    child.state = nextDelayMs !== null ? 'backoff' : outcome === 'stopped' ? 'stopped' : 'exited';

    const kv = {
      name: child.spec.name,
      pid,
      code,
      signal,
      uptimeMs: Math.round(uptimeMs),
      restartInMs: nextDelayMs,
      ...(reason !== undefined ? { reason } : {}),
    };
    if (outcome === 'crash')
      klog.warning(
        errorText !== undefined ? `Supervised process failed to start: ${errorText}` : 'Supervised process crashed',
        kv,
      );
    else klog.info(outcome === 'clean' ? 'Supervised process exited cleanly' : 'Supervised process stopped', kv);

    this.#emit('exit', {
      name: child.spec.name,
      pid,
      code,
      signal,
      outcome,
      uptimeMs,
      restarts: child.restarts,
      crashes: child.crashes,
      consecutiveCrashes: child.backoff.consecutiveCrashes,
      crashLooping: child.backoff.crashLooping,
      nextDelayMs,
      ...(errorText !== undefined ? { error: errorText } : {}),
      ...(reason !== undefined ? { reason } : {}),
    });

    if (child.restartWaiters.length > 0) {
      if (this.#stopping) {
        for (const w of child.restartWaiters.splice(0))
          w(
            new SupervisorError(
              'DKC_SUPERVISOR_STOPPED',
              `cannot restart child "${child.spec.name}": the supervisor was stopped`,
            ),
          );
      } else {
        this.#restarted(child);
        this.#settle();
        return;
      }
    }
    // A listener may have called stop(), which turned this child's backoff into 'stopped'.
    if (child.state === 'backoff' && nextDelayMs !== null && !this.#stopping) {
      if (nextDelayMs === 0) {
        this.#spawn(child);
      } else {
        child.restartAt = now + nextDelayMs;
        child.restartTimer = setTimeout(() => {
          child.restartTimer = null;
          child.restartAt = null;
          if (child.state === 'backoff' && !this.#stopping) this.#spawn(child);
        }, nextDelayMs);
      }
    }
    this.#settle();
  }

  #signal(child: Child, signal: NodeJS.Signals): void {
    const pid = child.pid;
    if (pid === null) return;
    try {
      process.kill(GROUPS ? -pid : pid, signal);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH')
        klog.warning(`Cannot signal supervised process group: ${errorMessage(err)}`, { name: child.spec.name, pid });
    }
    // The group may already be gone while the leader is not yet reaped; signal the leader itself.
    try {
      process.kill(pid, signal);
    } catch {
      // Exited already: its 'exit' event will follow.
    }
  }

  #busy(): boolean {
    for (const c of this.#children.values())
      if (c.proc !== null || c.state === 'backoff' || c.state === 'running') return true;
    return false;
  }

  #settle(): void {
    if (this.#busy()) return;
    if (this.#stopping) {
      if (this.#exitHook) process.off('exit', this.#onProcessExit);
      this.#exitHook = false;
      const waiters = this.#drainWaiters;
      this.#drainWaiters = [];
      for (const resolve of waiters) resolve();
    } else if (this.#started) {
      this.#emit('idle', {});
    }
  }

  #drained(): Promise<void> {
    if (!this.#busy()) return Promise.resolve();
    return new Promise((resolve) => this.#drainWaiters.push(resolve));
  }
}
