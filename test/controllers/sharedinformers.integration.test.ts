// One informer per resource per process: the factory hands every user of a path the same informer (one list, one
// watch), replays the cache to a handler added after the sync, and a user's stop removes only its own handlers; and
// the controller manager gives the rollout and node lifecycle controllers one such factory, so that together they list
// the Nodes and the node Leases once — against a real dkc server.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RestClient, type ListOptions } from '../../src/client/index.js';
import { SharedInformerFactory } from '../../src/client/sharedinformers.js';
import { ControllerManager } from '../../src/controllers/manager.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

/** A client that counts its lists by path. */
class CountingClient extends RestClient {
  readonly lists = new Map<string, number>();
  override list<T = unknown>(path: string, options?: ListOptions): Promise<T> {
    this.lists.set(path, (this.lists.get(path) ?? 0) + 1);
    return super.list<T>(path, options);
  }
}

type Named = { metadata: { name?: string } };
const NODES = '/api/v1/nodes';
const node = (name: string) => ({ metadata: { name } });

let server: RunningServer | undefined;
let admin: RestClient | undefined;

before(async () => {
  // No controllers in the server: the manager under test is the one that leads.
  server = await startServer(['--controllers', '']);
  admin = await RestClient.fromKubeconfig(server.kubeconfig, { timeoutMs: 10_000 });
  await admin.create(NODES, node('node-a'));
});

after(async () => {
  admin?.close();
  await server?.cleanup();
});

async function counting(): Promise<CountingClient> {
  const base = await RestClient.fromKubeconfig(server!.kubeconfig, { timeoutMs: 10_000 });
  base.close();
  return new CountingClient(base.config, { timeoutMs: 10_000 });
}

describe('SharedInformerFactory', () => {
  it('one informer per path: one list for every user, the same events, and the cache replayed to a late handler', async () => {
    const client = await counting();
    const factory = new SharedInformerFactory(client);
    try {
      const a = factory.informer<Named>(NODES);
      const b = factory.informer<Named>(NODES);
      const seenA: string[] = [];
      a.on('add', (n) => seenA.push(n.metadata.name ?? ''));
      a.start();
      b.start();
      assert.equal(await a.whenSynced(), true);
      assert.deepEqual(seenA, ['node-a']);
      const seenB: string[] = [];
      b.on('add', (n) => seenB.push(n.metadata.name ?? ''));
      assert.deepEqual(seenB, ['node-a'], 'a handler added after the sync is given the cache');
      await admin!.create(NODES, node('node-b'));
      await waitFor(
        'node-b seen by both',
        async () => (seenA.includes('node-b') && seenB.includes('node-b') ? true : undefined),
        10_000,
      );
      assert.equal(client.lists.get(NODES), 1);
      assert.equal(factory.size, 1);
      // One user stops: its handlers go, the other's stay, the informer runs on.
      await b.stop();
      await admin!.create(NODES, node('node-c'));
      await waitFor(
        'node-c seen by the user still running',
        async () => (seenA.includes('node-c') ? true : undefined),
        10_000,
      );
      assert.equal(seenB.includes('node-c'), false);
      assert.equal(a.store.has('node-c'), true);
    } finally {
      await factory.stop();
      client.close();
    }
  });

  it("a user stopped before the sync stops waiting for it, though the informer's other users go on waiting", async () => {
    const client = await counting();
    const factory = new SharedInformerFactory(client, { backoff: { initialMs: 50, maxMs: 100 } });
    try {
      const path = '/apis/example.com/v1/widgets'; // not served: the list fails and is retried, never synced
      const a = factory.informer<Named>(path);
      const b = factory.informer<Named>(path);
      a.start();
      const waiting = b.whenSynced();
      await a.stop();
      assert.equal(await a.whenSynced(), false);
      let settled = false;
      void waiting.then(() => (settled = true));
      await waitFor('a second list', async () => ((client.lists.get(path) ?? 0) >= 2 ? true : undefined), 10_000);
      assert.equal(settled, false, "the other user's wait is its own");
    } finally {
      await factory.stop();
      client.close();
    }
  });
});

describe('the controller manager shares informers between its controllers', () => {
  it('the rollout and node lifecycle controllers list the Nodes and the node Leases once between them', async () => {
    const client = await counting();
    const manager = new ControllerManager({
      client,
      controllers: ['rollout', 'nodelifecycle'],
      nodeMonitorGracePeriodMs: 40_000,
      configChannel: 'node',
      identity: 'shared-test',
    });
    try {
      manager.start();
      const leases = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';
      await waitFor(
        'both controllers listing',
        async () =>
          client.lists.has(NODES) &&
          client.lists.has(leases) &&
          client.lists.has('/apis/dkc.io/v1alpha1/nodeconfigrollouts')
            ? true
            : undefined,
        20_000,
      );
      assert.equal(client.lists.get(NODES), 1, 'Nodes listed once');
      assert.equal(client.lists.get(leases), 1, 'node Leases listed once');
    } finally {
      await manager.stop();
      client.close();
    }
  });
});
