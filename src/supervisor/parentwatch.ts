// How a supervised child learns that its supervisor is gone. The supervisor hands each such child the read end
// of a pipe (descriptor number in DKC_SUPERVISOR_FD) and never writes to it; the kernel closes the write end when
// the supervisor dies, however it dies — SIGKILL included — so end-of-file on the pipe means "nobody will
// restart you". The child then stops the way a SIGTERM stops it, instead of running on unsupervised (and, for
// an agent that exits to apply a config, silently never coming back).

import { Socket } from 'node:net';
import { klog } from '../util/klog.js';
import { errorMessage } from '../util/errors.js';

export const SUPERVISOR_FD_ENV = 'DKC_SUPERVISOR_FD';

/** The descriptor a supervisor passed, or undefined when there is none (run by hand, or a bad value). */
export function supervisorFd(env: NodeJS.ProcessEnv): number | undefined {
  const v = env[SUPERVISOR_FD_ENV];
  if (v === undefined || !/^\d+$/.test(v)) return undefined;
  const fd = Number(v);
  // 0–2 are stdio, never the pipe.
  return fd >= 3 ? fd : undefined;
}

export interface SupervisorWatch {
  dispose(): void;
}

/**
 * Calls `onGone` once, when the supervisor's pipe closes. Returns undefined when this process has no supervisor
 * pipe. The variable is removed from the environment so that this process's own children do not take an
 * unrelated descriptor for the pipe.
 */
export function watchSupervisor(onGone: () => void, env: NodeJS.ProcessEnv = process.env): SupervisorWatch | undefined {
  const fd = supervisorFd(env);
  delete env[SUPERVISOR_FD_ENV];
  if (fd === undefined) return undefined;
  let socket: Socket;
  try {
    socket = new Socket({ fd, readable: true, writable: false });
  } catch (err) {
    klog.warning(`cannot watch the supervisor pipe (fd ${fd}): ${errorMessage(err)}`);
    return undefined;
  }
  let fired = false;
  const gone = (): void => {
    if (fired) return;
    fired = true;
    onGone();
  };
  socket.on('data', () => undefined);
  socket.on('end', gone);
  socket.on('close', gone);
  socket.on('error', gone);
  // Watching must not keep the process alive by itself.
  socket.unref();
  return {
    dispose: () => {
      fired = true;
      socket.destroy();
    },
  };
}

/**
 * Stops this process as SIGTERM would once its supervisor is gone, and exits anyway if that has not ended it
 * within `graceMs` (a stop that hangs must not leave the orphan behind).
 */
export function stopWhenSupervisorGone(graceMs = 15_000): SupervisorWatch | undefined {
  return watchSupervisor(() => {
    klog.warning('the supervisor is gone; stopping, since nothing would restart this process');
    setTimeout(() => process.exit(1), graceMs).unref();
    process.kill(process.pid, 'SIGTERM');
  });
}
