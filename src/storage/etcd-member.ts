// Runs local etcd members (the `etcd` binary found on PATH) on loopback ports with their own data directories:
// a single member for `dkc up --storage etcd`, one or three for the tests. Members are separate processes so
// that a test can SIGKILL one and start it again on the same directory, as an operator's machine would.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { freePort } from '../util/net.js';
import { join } from 'node:path';
import { request } from 'node:http';
import { systemClock } from '../util/clock.js';

export interface EtcdMember {
  readonly name: string;
  readonly clientUrl: string;
  readonly peerUrl: string;
  readonly dataDir: string;
  /** The running process, undefined after kill()/stop() until start(). */
  readonly pid: number | undefined;
  log(): string;
  /** Starts the member again on its data dir (it rejoins the cluster it belonged to). */
  start(): Promise<void>;
  /** SIGKILL and wait for the exit. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
}

export interface EtcdCluster {
  readonly members: readonly EtcdMember[];
  /** Client URLs of every member, for --etcd-servers. */
  readonly endpoints: string[];
  /** Stops every member; with `removeData`, deletes the base directory too. */
  stop(options?: { removeData?: boolean }): Promise<void>;
}

export interface StartEtcdOptions {
  /** Parent of the members' data directories (each gets `<dir>/<name>`). */
  dir: string;
  /** 1 or 3 members usually; any positive number works. */
  members?: number;
  /** The etcd binary. Default: `etcd` from PATH. */
  binary?: string;
  /** How long to wait for the cluster to report healthy. Default 30 s. */
  readyTimeoutMs?: number;
  /** Fixed client port for a single member (0 or undefined = a free one). */
  clientPort?: number;
  /** Fixed peer port for a single member (0 or undefined = a free one). */
  peerPort?: number;
}

function healthy(clientUrl: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(`${clientUrl}/health`, { timeout: 1_000 }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve(res.statusCode === 200 && /"health":\s*"true"/.test(body)));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

function waitExit(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return Promise.resolve();
  return new Promise((r) => p.once('exit', () => r()));
}

class Member implements EtcdMember {
  private proc: ChildProcess | undefined;
  private output = '';

  constructor(
    readonly name: string,
    readonly clientUrl: string,
    readonly peerUrl: string,
    readonly dataDir: string,
    private readonly binary: string,
    private readonly initialCluster: string,
  ) {}

  get pid(): number | undefined {
    return this.proc?.pid;
  }

  log(): string {
    return this.output;
  }

  /** Starts the process without waiting for health (a lone member of a 3-member cluster cannot be healthy). */
  launch(): void {
    if (this.proc && this.proc.exitCode === null && this.proc.signalCode === null) return;
    const args = [
      '--name',
      this.name,
      '--data-dir',
      this.dataDir,
      '--listen-client-urls',
      this.clientUrl,
      '--advertise-client-urls',
      this.clientUrl,
      '--listen-peer-urls',
      this.peerUrl,
      '--initial-advertise-peer-urls',
      this.peerUrl,
      '--initial-cluster',
      this.initialCluster,
      '--initial-cluster-state',
      'new',
      '--initial-cluster-token',
      'dkc',
      '--logger',
      'zap',
      '--log-level',
      'warn',
    ];
    const proc = spawn(this.binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    // Bounded: a long run must not grow the buffer without limit.
    const keep = (d: Buffer) => {
      this.output += d.toString();
      if (this.output.length > 256 * 1024) this.output = this.output.slice(-128 * 1024);
    };
    proc.stdout.on('data', keep);
    proc.stderr.on('data', keep);
    proc.on('error', (err) => keep(Buffer.from(`spawn failed: ${err.message}\n`)));
    this.proc = proc;
  }

  async waitHealthy(timeoutMs: number): Promise<void> {
    const deadline = systemClock.monotonicMs() + timeoutMs;
    while (systemClock.monotonicMs() < deadline) {
      const p = this.proc;
      if (!p || p.exitCode !== null || p.signalCode !== null) {
        throw new Error(
          `etcd member ${this.name} exited (${p?.exitCode ?? p?.signalCode}):\n${this.output.slice(-4000)}`,
        );
      }
      if (await healthy(this.clientUrl)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`etcd member ${this.name} not healthy within ${timeoutMs} ms:\n${this.output.slice(-4000)}`);
  }

  async start(): Promise<void> {
    this.launch();
    await this.waitHealthy(30_000);
  }

  async kill(): Promise<void> {
    await this.signal('SIGKILL');
  }

  async stop(): Promise<void> {
    await this.signal('SIGTERM');
  }

  private async signal(sig: NodeJS.Signals): Promise<void> {
    const p = this.proc;
    if (!p) return;
    if (p.exitCode === null && p.signalCode === null) p.kill(sig);
    await waitExit(p);
    this.proc = undefined;
  }
}

/** Starts `members` etcd members forming one cluster and waits until every member reports healthy. */
export async function startEtcdCluster(options: StartEtcdOptions): Promise<EtcdCluster> {
  const count = options.members ?? 1;
  if (!Number.isSafeInteger(count) || count < 1)
    throw new RangeError(`members must be a positive integer, got ${count}`);
  const binary = options.binary ?? 'etcd';
  const specs: { name: string; clientUrl: string; peerUrl: string; dataDir: string }[] = [];
  for (let i = 0; i < count; i++) {
    const clientPort = count === 1 && options.clientPort ? options.clientPort : await freePort();
    const peerPort = count === 1 && options.peerPort ? options.peerPort : await freePort();
    const name = `etcd-${i}`;
    specs.push({
      name,
      clientUrl: `http://127.0.0.1:${clientPort}`,
      peerUrl: `http://127.0.0.1:${peerPort}`,
      dataDir: join(options.dir, name),
    });
  }
  const initialCluster = specs.map((s) => `${s.name}=${s.peerUrl}`).join(',');
  await mkdir(options.dir, { recursive: true });
  const members = specs.map((s) => new Member(s.name, s.clientUrl, s.peerUrl, s.dataDir, binary, initialCluster));
  const cluster: EtcdCluster = {
    members,
    endpoints: members.map((m) => m.clientUrl),
    async stop(stopOptions = {}) {
      await Promise.all(members.map((m) => m.kill()));
      if (stopOptions.removeData) await rm(options.dir, { recursive: true, force: true });
    },
  };
  try {
    for (const m of members) m.launch();
    await Promise.all(members.map((m) => m.waitHealthy(options.readyTimeoutMs ?? 30_000)));
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}

/**
 * One member for a local cluster (`dkc up --storage etcd`) in `dir`, on the same ports every time, since the
 * member's stored membership names its peer URL and the servers' flags name its client URL.
 */
export async function startLocalEtcd(dir: string, binary = 'etcd'): Promise<EtcdCluster> {
  await mkdir(dir, { recursive: true });
  const portsFile = join(dir, 'ports.json');
  let ports: { client: number; peer: number };
  try {
    ports = JSON.parse(await readFile(portsFile, 'utf8')) as { client: number; peer: number };
  } catch {
    ports = { client: await freePort(), peer: await freePort() };
    await writeFile(portsFile, JSON.stringify(ports));
  }
  const cluster = await startEtcdCluster({ dir, members: 1, binary, clientPort: ports.client, peerPort: ports.peer });
  return {
    ...cluster,
    // A local cluster's etcd keeps its data and gets a clean shutdown.
    stop: async () => {
      await Promise.all(cluster.members.map((m) => m.stop()));
    },
  };
}
