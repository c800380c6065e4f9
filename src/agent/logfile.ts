// klog's --log-file for the agent: each log line is appended to the file (and, unless --logtostderr=false, still
// written to standard error). Lines are written synchronously with O_APPEND, so a line is in the file before the
// agent exits to restart, and lines from a supervisor appending to the same file never interleave mid-line.

import { mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export interface LogFile {
  /** The file's absolute path; its directory is what /logs/ serves. */
  path: string;
  sink(this: void, line: string): void;
}

/** Opens `path` for appending (creating its directory); throws the open error. */
export function openLogFile(path: string, toStderr: boolean): LogFile {
  const abs = resolve(path);
  mkdirSync(dirname(abs), { recursive: true });
  const fd = openSync(abs, 'a', 0o644);
  return {
    path: abs,
    sink(line: string): void {
      if (toStderr) process.stderr.write(line);
      try {
        writeSync(fd, line);
      } catch {
        // A full disk must not stop the agent; standard error still has the line when it is kept.
      }
    },
  };
}
