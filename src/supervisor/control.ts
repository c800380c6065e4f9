// The supervisor's control socket: a Unix socket on which another process asks for one child to be restarted, the
// local stand-in for `systemctl restart <unit>` (`dkc restart <name>` is its client). One request per connection,
// one JSON line each way: `{"restart":"<name>"}` → `{"ok":true}` once the new process has been spawned, or
// `{"error":"<one line>"}`. The socket is created with mode 0600: only the user running the supervisor may use it.

import { chmod, unlink } from 'node:fs/promises';
import { createConnection, createServer, type Server } from 'node:net';
import type { Supervisor } from './supervisor.js';

/** The file name of the socket in a `dkc up` data directory. */
export const CONTROL_SOCKET = 'supervisor.sock';

export const controlMessages = {
  badRequest: 'bad request: want one JSON line {"restart":"<name>"}',
  noAnswer: (path: string) => `no answer from the supervisor on ${path}`,
  cannotReach: (path: string, why: string) => `cannot reach the supervisor on ${path}: ${why}`,
};

export interface ControlServer {
  readonly path: string;
  close(): Promise<void>;
}

/** Serves restart requests for `supervisor` on a Unix socket at `path` (a stale socket file there is replaced). */
export async function serveControl(supervisor: Pick<Supervisor, 'restart'>, path: string): Promise<ControlServer> {
  await unlink(path).catch(() => undefined);
  const server: Server = createServer((conn) => {
    let buf = '';
    conn.setEncoding('utf8');
    conn.on('error', () => undefined);
    conn.on('data', (chunk: string) => {
      buf += chunk;
      const nl = buf.indexOf('\n');
      if (nl < 0) {
        if (buf.length > 4096) conn.end(JSON.stringify({ error: controlMessages.badRequest }) + '\n');
        return;
      }
      let name: unknown;
      try {
        name = (JSON.parse(buf.slice(0, nl)) as { restart?: unknown }).restart;
      } catch {
        name = undefined;
      }
      if (typeof name !== 'string' || name === '') {
        conn.end(JSON.stringify({ error: controlMessages.badRequest }) + '\n');
        return;
      }
      supervisor.restart(name).then(
        () => conn.end(JSON.stringify({ ok: true }) + '\n'),
        (err: unknown) => conn.end(JSON.stringify({ error: err instanceof Error ? err.message : String(err) }) + '\n'),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  await chmod(path, 0o600);
  server.unref();
  return {
    path,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  };
}

/** Asks the supervisor listening on `path` to restart child `name`; resolves once it has, rejects with its one-line answer. */
export function requestRestart(path: string, name: string, timeoutMs = 60_000): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const conn = createConnection(path);
    let buf = '';
    const timer = setTimeout(() => {
      conn.destroy();
      reject(new Error(controlMessages.noAnswer(path)));
    }, timeoutMs);
    conn.setEncoding('utf8');
    conn.on('connect', () => conn.write(JSON.stringify({ restart: name }) + '\n'));
    conn.on('data', (chunk: string) => (buf += chunk));
    conn.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(controlMessages.cannotReach(path, err.message)));
    });
    conn.on('close', () => {
      clearTimeout(timer);
      let answer: { ok?: boolean; error?: string } = {};
      try {
        answer = JSON.parse(buf.trim() || '{}') as typeof answer;
      } catch {
        answer = {};
      }
      if (answer.ok === true) resolve();
      else reject(new Error(answer.error ?? controlMessages.noAnswer(path)));
    });
  });
}
