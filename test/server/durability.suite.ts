// An acknowledged write survives `kill -9` of the server: a client creates ConfigMaps as fast as it can, the server
// process is SIGKILLed mid-loop and restarted on the same data dir, and every create that got a 201 is there, with
// resourceVersions that keep increasing afterwards.
// On etcd the server holds no state: the kill tests that the server acknowledges only what etcd committed.
// A SIGKILL leaves the page cache intact, so it cannot tell a fsynced commit from one that is not: on SQLite the
// suite also checks the settings the server's store reports from its live connection at each start.

import { after, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, RestClient } from '../../src/client/index.js';
import { startServer, type RunningServer, type StorageBackend } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

/** Every SQLite store the server opened (`starts` of them) reported WAL mode with synchronous=FULL. */
function assertDurableSqlite(log: string, starts: number): void {
  const opened = log.split('\n').filter((l) => l.includes('] Opened SQLite storage '));
  assert.equal(opened.length, starts, `expected ${starts} "Opened SQLite storage" lines in:\n${log}`);
  for (const line of opened) {
    assert.match(line, / journalMode="wal" synchronous="FULL" lockingMode="exclusive"$/);
  }
}

export function durabilitySuite(storage: StorageBackend): void {
  let server: RunningServer | undefined;
  after(async () => server?.cleanup());

  it('every acknowledged create survives kill -9 and resourceVersions keep increasing', async () => {
    server = await startServer([], { storage });
    const path = '/api/v1/namespaces/default/configmaps';
    const acked = new Map<string, number>();
    const writer = await RestClient.fromKubeconfig(server.kubeconfig, { timeoutMs: 5_000 });
    let stop = false;
    const loop = (async () => {
      for (let i = 0; i < 100_000 && !stop; i++) {
        try {
          const cm = await writer.create<{ metadata: { resourceVersion: string } }>(path, {
            metadata: { name: `d-${i}` },
            data: { i: String(i) },
          });
          acked.set(`d-${i}`, Number(cm.metadata.resourceVersion));
        } catch (err) {
          if (err instanceof ApiError) throw err;
          return; // the connection died with the server
        }
      }
    })();
    // The assertion after the kill says how many there were.
    await waitFor('300 acknowledged creates', () => acked.size >= 300, { timeoutMs: 30_000, stepMs: 5 }).catch(
      () => undefined,
    );
    await server.kill();
    await loop;
    stop = true;
    writer.close();
    assert.ok(acked.size >= 300, `only ${acked.size} creates were acknowledged before the kill`);

    await server.restart();
    if (storage === 'sqlite') assertDurableSqlite(server.log(), 2);
    const reader = await RestClient.fromKubeconfig(server.kubeconfig);
    try {
      const list = await reader.list<{
        items: { metadata: { name: string; resourceVersion: string } }[];
        metadata: { resourceVersion: string };
      }>(path);
      const present = new Map(list.items.map((o) => [o.metadata.name, Number(o.metadata.resourceVersion)]));
      for (const [name, rv] of acked)
        assert.equal(present.get(name), rv, `${name} (acknowledged at resourceVersion ${rv})`);
      const maxAcked = Math.max(...acked.values());
      const next = await reader.create<{ metadata: { resourceVersion: string } }>(path, {
        metadata: { name: 'after-restart' },
        data: {},
      });
      assert.ok(Number(next.metadata.resourceVersion) > maxAcked);
      assert.ok(Number(list.metadata.resourceVersion) >= maxAcked);
    } finally {
      reader.close();
    }
  });
}
