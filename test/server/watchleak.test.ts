// Watchers leave the watch cache on every exit path: a watch dropped with 410 because its initial state alone is
// more than --watch-buffer-limit is removed at once (it used to stay registered forever, 10 → 20 → 30).

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureClusterPKI, type ClusterPKI } from '../../src/pki/index.js';
import { ApiServer } from '../../src/server/apiserver.js';
import { openStore, type Store } from '../../src/storage/index.js';
import { waitFor } from '../helpers/wait.js';

let dir: string;
let store: Store;
let server: ApiServer;
let pki: ClusterPKI;
let base: string;

function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(path, base);
    const req = request(
      { host: u.hostname, port: u.port, path: u.pathname + u.search, method, ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem, headers: { 'content-type': 'application/json' }, timeout: 20_000 },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dkc-watchleak-'));
  pki = await ensureClusterPKI(join(dir, 'pki'));
  store = await openStore({ kind: 'sqlite', path: join(dir, 'dkc.db') });
  server = new ApiServer({
    store,
    tls: { caPem: pki.ca.certPem, certPem: pki.apiserver.certPem, keyPem: pki.apiserver.keyPem },
    kubeletClient: pki.apiserverKubeletClient,
    watchBufferLimit: 64 * 1024,
  });
  await server.start();
  const addr = await server.listen(0, '127.0.0.1');
  base = `https://127.0.0.1:${addr.port}`;
});

after(async () => {
  await server?.close();
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('watcher bookkeeping', () => {
  it('a watch dropped for an initial state beyond the buffer limit leaves no watcher behind', async () => {
    const big = 'x'.repeat(200 * 1024);
    assert.equal((await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'big' }, data: { big } })).status, 201);
    const baseline = server.watcherCount();
    for (let round = 1; round <= 3; round++) {
      const answers = await Promise.all(Array.from({ length: 10 }, () => call('GET', '/api/v1/namespaces/default/configmaps?watch=true')));
      for (const a of answers) assert.match(a.body, /"type":"ERROR".*"code":410/);
      await waitFor(`no watcher left after round ${round}`, async () => (server.watcherCount() === baseline ? true : undefined), 5_000);
    }
    assert.equal(server.watcherCount(), baseline);
  });
});
