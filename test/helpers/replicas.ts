// Several `dkc server` replicas over one etcd, sharing one CA (the first replica makes the PKI, the others get a
// copy of its pki/ in their own data dir and load it), and an nginx TCP (stream) load balancer in front of them on
// a loopback port. TLS passes through nginx untouched, so clients verify the servers' certificate for 127.0.0.1.

import { spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/util/net.js';
import { startServer, type RunningServer } from './server.js';
import { waitFor } from './wait.js';

export async function startReplicas(
  count: number,
  etcd: { endpoints: string[] },
  extraArgs: string[] = [],
): Promise<RunningServer[]> {
  const servers: RunningServer[] = [];
  try {
    servers.push(await startServer(extraArgs, { etcd }));
    for (let i = 1; i < count; i++) {
      const dataDir = await mkdtemp(join(tmpdir(), 'dkc-replica-'));
      await cp(join(servers[0]!.dataDir, 'pki'), join(dataDir, 'pki'), { recursive: true });
      servers.push(await startServer(extraArgs, { etcd, dataDir }));
    }
  } catch (err) {
    for (const s of servers) await s.cleanup();
    throw err;
  }
  return servers;
}

export interface Balancer {
  port: number;
  url: string;
  log(): string;
  stop(): Promise<void>;
}

const STREAM_MODULE = '/usr/lib/nginx/modules/ngx_stream_module.so';

/** Whether nginx with its stream module is installed (Debian: nginx + libnginx-mod-stream). */
export function haveNginxStream(): boolean {
  return existsSync('/usr/sbin/nginx') && existsSync(STREAM_MODULE);
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** nginx in the foreground as a TCP balancer over `upstreamPorts` on 127.0.0.1; stopped by its PID. */
export async function startNginxStream(upstreamPorts: number[]): Promise<Balancer> {
  const dir = await mkdtemp(join(tmpdir(), 'dkc-nginx-'));
  const port = await freePort();
  const conf = `
load_module ${STREAM_MODULE};
daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
stream {
  upstream dkc_servers {
${upstreamPorts.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=5s;`).join('\n')}
  }
  server {
    listen 127.0.0.1:${port};
    proxy_pass dkc_servers;
    proxy_connect_timeout 1s;
    # Watches are long-lived and may be quiet for minutes.
    proxy_timeout 1h;
  }
}
`;
  await writeFile(join(dir, 'nginx.conf'), conf);
  let output = '';
  const proc: ChildProcess = spawn(
    '/usr/sbin/nginx',
    ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  proc.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
    }
    await rm(dir, { recursive: true, force: true });
  };
  const state = await waitFor(
    'nginx to listen',
    async () => (proc.exitCode !== null ? 'exited' : (await listening(port)) ? 'listening' : undefined),
    { timeoutMs: 10_000 },
  ).catch(() => 'silent');
  if (state !== 'listening') {
    await stop();
    throw new Error(`nginx did not start: ${output}`);
  }
  return { port, url: `https://127.0.0.1:${port}`, log: () => output, stop };
}
