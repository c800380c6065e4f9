// Runs this checkout's `dkc` as a process and collects what it printed and its exit code, for tests of commands.

import { execFile } from 'node:child_process';
import { dkcBin } from '../../src/up/cluster.js';

export interface DkcRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Never rejects: a process killed by a signal (or the timeout) reports code -1. */
export function runDkc(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<DkcRun> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [dkcBin, ...args],
      { cwd: options.cwd, env: options.env ?? process.env, timeout: options.timeoutMs ?? 30_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}
