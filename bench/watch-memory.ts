// Watch memory benchmark (not a test): a `dkc server` process with N slow watchers (their responses never read) of
// a namespace holding a 1 MB ConfigMap, which is then modified a few times. Prints the server's peak RSS and the
// latency of `GET /api/v1/nodes` while the watchers hold it, so a build can be compared with an older one
// (`--bin` of another checkout) on the same machine in the same run.
// Usage: node dist/bench/watch-memory.js [--watchers 2000] [--changes 3] [--bin path/to/bin/dkc] [-- server args]

import { readFile } from 'node:fs/promises';
import type { ClientRequest } from 'node:http';
import { request } from 'node:https';
import { join } from 'node:path';
import { ensureClusterPKI } from '../src/pki/index.js';
import { dkcBin, startServer } from '../test/helpers/server.js';
import { requestOptions } from '../test/helpers/inprocessserver.js';
import { ms, pct } from './common.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}

async function rssOf(pid: number): Promise<{ rss: number; hwm: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

async function main(): Promise<void> {
  const watchers = Number(arg('--watchers', '2000'));
  const changes = Number(arg('--changes', '3'));
  const bin = arg('--bin', dkcBin);
  const sep = process.argv.indexOf('--');
  const serverArgs = sep >= 0 ? process.argv.slice(sep + 1) : [];
  const server = await startServer(serverArgs, { bin });
  const pki = await ensureClusterPKI(join(server.dataDir, 'pki'));
  const call = (method: string, path: string, body?: unknown) =>
    new Promise<number>((resolve, reject) => {
      const req = request(
        requestOptions(new URL(path, server.url), method, pki, pki.admin, {
          'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json',
        }),
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  const reqs: ClientRequest[] = [];
  try {
    const big = 'x'.repeat(1024 * 1024);
    const created = await call('POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'big' },
      data: { big },
    });
    if (created !== 201) throw new Error(`creating the ConfigMap answered ${created}`);
    let opened = 0;
    let refused = 0;
    await Promise.all(
      Array.from(
        { length: watchers },
        () =>
          new Promise<void>((resolve) => {
            const u = new URL('/api/v1/namespaces/default/configmaps?watch=true', server.url);
            const req = request({ ...requestOptions(u, 'GET', pki), agent: false }, (res) => {
              res.pause(); // a slow client: nothing is read
              if (res.statusCode === 200) opened++;
              else refused++;
              resolve();
            });
            req.on('error', () => resolve());
            reqs.push(req);
            req.end();
          }),
      ),
    );
    for (let i = 0; i < changes; i++) {
      const code = await call('PATCH', '/api/v1/namespaces/default/configmaps/big', {
        data: { big: String(i) + big.slice(1) },
      });
      if (code !== 200) throw new Error(`a change answered ${code}`);
    }
    await new Promise((r) => setTimeout(r, 2000)); // let the fan-out settle
    const lat: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      await call('GET', '/api/v1/nodes');
      lat.push(performance.now() - t);
    }
    const mem = await rssOf(server.proc.pid!);
    console.log(`watchers opened ${opened} (refused ${refused}), ${changes} changes of a 1 MB ConfigMap`);
    console.log(`server RSS ${Math.round(mem.rss / 2 ** 20)} MiB, peak ${Math.round(mem.hwm / 2 ** 20)} MiB`);
    console.log(`GET /api/v1/nodes while they hold: p50 ${ms(pct(lat, 50))}, max ${ms(Math.max(...lat))}`);
  } finally {
    for (const r of reqs) r.destroy();
    await server.cleanup();
  }
}

void main();
