// Starts a real `dkc server` process on a random loopback port with a temp data dir, waits for its kubeconfig,
// and tears everything down (the process by its PID, then the directory) even when a test fails.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dkcBin } from '../../src/up/cluster.js';
import { startEtcd } from './etcd.js';
import { waitFor } from './wait.js';

export { repoRoot } from './paths.js';

export { dkcBin };

export interface RunningServer {
  dataDir: string;
  kubeconfig: string;
  url: string;
  port: number;
  proc: ChildProcess;
  log(): string;
  /** SIGTERM and wait. */
  stop(): Promise<void>;
  /** SIGKILL and wait. */
  kill(): Promise<void>;
  /** Start again on the same data dir and port. */
  restart(): Promise<void>;
  /** Stop and remove the data dir. */
  cleanup(): Promise<void>;
}

function waitExit(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return Promise.resolve();
  return new Promise((r) => p.once('exit', () => r()));
}

async function waitForFile(path: string, proc: ChildProcess, log: () => string, timeoutMs: number): Promise<void> {
  const state = await waitFor(
    `dkc server to write ${path}`,
    async () =>
      proc.exitCode !== null
        ? 'exited'
        : await stat(path).then(
            () => 'written',
            () => undefined,
          ),
    { timeoutMs, stepMs: 25 },
  ).catch(() => 'silent');
  if (state === 'exited') throw new Error(`dkc server exited with ${proc.exitCode}:\n${log()}`);
  if (state !== 'written') throw new Error(`dkc server did not write ${path} within ${timeoutMs} ms:\n${log()}`);
}

export type StorageBackend = 'sqlite' | 'etcd';

export interface StartServerOptions {
  dataDir?: string;
  /** Default 'sqlite'. With 'etcd' and no `etcd`, a single etcd member is started and torn down with the server. */
  storage?: StorageBackend;
  /** An etcd the caller owns (left running by cleanup()). */
  etcd?: { endpoints: string[] };
  /** Another checkout's bin/dkc (benchmarks compare builds); default this one's. */
  bin?: string;
}

export async function startServer(extraArgs: string[] = [], options: StartServerOptions = {}): Promise<RunningServer> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'dkc-server-')));
  let ownEtcd: Awaited<ReturnType<typeof startEtcd>> | undefined;
  if (options.storage === 'etcd' || options.etcd) {
    const etcd = options.etcd ?? (ownEtcd = await startEtcd());
    extraArgs = ['--storage', 'etcd', '--etcd-servers', etcd.endpoints.join(','), ...extraArgs];
  }
  const kubeconfig = join(dataDir, 'kubeconfig');
  let output = '';
  let port = 0;
  const launch = async (): Promise<ChildProcess> => {
    await rm(kubeconfig, { force: true });
    const proc = spawn(
      process.execPath,
      [options.bin ?? dkcBin, 'server', '--data-dir', dataDir, '--port', String(port), ...extraArgs],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    proc.stdout.on('data', (d: Buffer) => (output += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (output += d.toString()));
    await waitForFile(kubeconfig, proc, () => output, 30_000);
    return proc;
  };
  let proc: ChildProcess;
  try {
    proc = await launch();
  } catch (err) {
    await ownEtcd?.cleanup();
    throw err;
  }
  const text = await readFile(kubeconfig, 'utf8');
  const m = /server:\s*(https:\/\/\S+)/.exec(text);
  if (!m) throw new Error(`no server URL in ${kubeconfig}`);
  const url = m[1]!;
  port = Number(new URL(url).port);
  const server: RunningServer = {
    dataDir,
    kubeconfig,
    url,
    port,
    get proc() {
      return proc;
    },
    log: () => output,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await waitExit(proc);
    },
    async kill() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      await waitExit(proc);
    },
    async restart() {
      await server.stop();
      proc = await launch();
    },
    async cleanup() {
      await server.kill();
      await ownEtcd?.cleanup();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return server;
}
