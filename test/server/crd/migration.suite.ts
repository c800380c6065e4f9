// Custom objects in a store written by servers before custom objects had their own keys: those kept them where the
// built-in layout puts a resource, /registry/<group>/<plural>/…, with the same encoding. The suite writes objects with
// today's server, puts their keys back where the old layout had them, and starts the server on that store: every
// object is served again (kubectl), now under its own prefix, none left behind, the built-ins untouched, and a second
// start has nothing to move. Over etcd, two replicas starting together on such a store move each object once.
// Run once per backend (migration.e2e.test.ts: SQLite, migration.etcd.e2e.test.ts: etcd).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../../../src/storage/index.js';
import { kubectl, type Kubectl } from '../../helpers/kubectl.js';
import { startEtcd } from '../../helpers/etcd.js';
import { repoRoot, startServer, type RunningServer, type StorageBackend } from '../../helpers/server.js';
import { waitFor } from '../../helpers/wait.js';

const CUSTOM_ROOT = '/registry/customresources/';
const WIDGETS_CRD = join(repoRoot, 'test/e2e/fixtures/widgets-crd.yaml');

const widget = (name: string) => ({
  apiVersion: 'example.dkc.io/v1',
  kind: 'Widget',
  metadata: { name, namespace: 'legacy' },
  spec: { size: 'small' },
});
const rollout = (name: string) => ({
  apiVersion: 'dkc.io/v1alpha1',
  kind: 'NodeConfigRollout',
  metadata: { name },
  spec: { nodeSelector: { matchLabels: { pool: 'none' } }, configSource: {} },
});
const clash = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {
    name: 'clusterroles.rbac.authorization.k8s.io',
    annotations: { 'api-approved.kubernetes.io': 'unapproved, a test of names' },
  },
  spec: {
    group: 'rbac.authorization.k8s.io',
    scope: 'Cluster',
    names: { plural: 'clusterroles', singular: 'clusterrole', kind: 'ClusterRole' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

async function keysUnder(store: Store, prefix: string): Promise<string[]> {
  return (await store.list(prefix)).items.map((kv) => kv.key);
}

export function migrationSuite(storage: StorageBackend): void {
  describe(`custom objects stored under the layout of older servers (${storage})`, () => {
    let etcd: Awaited<ReturnType<typeof startEtcd>> | undefined;
    let server: RunningServer;
    let k: Kubectl;
    const extra: RunningServer[] = [];
    const openTheStore = () =>
      storage === 'etcd'
        ? openStore({ kind: 'etcd', endpoints: etcd!.endpoints, compactionIntervalMs: 0 })
        : openStore({ kind: 'sqlite', path: join(server.dataDir, 'dkc.db') });
    let moved: string[] = [];
    let clusterRoles = '';

    before(async () => {
      if (storage === 'etcd') etcd = await startEtcd();
      server = await startServer([], etcd ? { etcd } : {});
      k = await kubectl('1.32', server.kubeconfig);
    });
    after(async () => {
      await k?.cleanup();
      for (const s of extra) await s.cleanup();
      await server?.cleanup();
      await etcd?.cleanup();
    });

    /** Restarts the server; resolves with what it logged up to serving (the kubeconfig comes first, the log line after). */
    async function restartLogged(): Promise<string> {
      const from = server.log().length;
      await server.restart();
      return waitFor('the server to log that it serves', async () => {
        const logged = server.log().slice(from);
        return logged.includes('serving the API on') ? logged : undefined;
      });
    }

    /** Stops every server, rewrites the store, and leaves the servers stopped. */
    async function withStoreOffline(fn: (store: Store) => Promise<void>): Promise<void> {
      for (const s of [server, ...extra]) await s.stop();
      const store = await openTheStore();
      try {
        await fn(store);
      } finally {
        await store.close();
      }
    }

    it('a store written the old way: custom objects under /registry/<group>/<plural>/', async () => {
      await k.ok(['create', 'namespace', 'legacy']);
      await k.ok(['apply', '-f', WIDGETS_CRD]);
      await k.ok(['create', '-f', '-'], { input: JSON.stringify(clash) });
      for (const name of ['w1', 'w2', 'w3']) await k.ok(['create', '-f', '-'], { input: JSON.stringify(widget(name)) });
      for (const name of ['r1', 'r2']) await k.ok(['create', '-f', '-'], { input: JSON.stringify(rollout(name)) });
      clusterRoles = await k.ok(['get', 'clusterroles', '-o', 'name']);
      await withStoreOffline(async (store) => {
        moved = await keysUnder(store, CUSTOM_ROOT);
        assert.equal(moved.length, 5, moved.join('\n'));
        for (const key of moved) await store.move(key, key.replace(CUSTOM_ROOT, '/registry/'));
        assert.deepEqual(await keysUnder(store, CUSTOM_ROOT), []);
      });
    });

    it('a server started on it moves every object to its own keys and serves them; the built-ins stay where they are', async () => {
      const logged = await restartLogged();
      assert.match(
        logged,
        /moved 3 widgets\.example\.dkc\.io object\(s\) to their own keys under \/registry\/customresources\/example\.dkc\.io\/widgets\//,
      );
      assert.equal(
        (await k.ok(['-n', 'legacy', 'get', 'widgets', '-o', 'name'])).trim(),
        'widget.example.dkc.io/w1\nwidget.example.dkc.io/w2\nwidget.example.dkc.io/w3',
      );
      assert.match(
        await k.ok(['get', 'ncr', '-o', 'name']),
        /nodeconfigrollout\.dkc\.io\/r1\nnodeconfigrollout\.dkc\.io\/r2/,
      );
      assert.equal(
        await k.ok(['get', 'clusterroles', '-o', 'name']),
        clusterRoles,
        'the ClusterRoles are where they were, the colliding CRD notwithstanding',
      );
      await withStoreOffline(async (store) => {
        assert.deepEqual(await keysUnder(store, CUSTOM_ROOT), moved);
        assert.deepEqual(await keysUnder(store, '/registry/example.dkc.io/'), []);
        assert.deepEqual(await keysUnder(store, '/registry/dkc.io/'), []);
      });
    });

    it('a second start has nothing left to move', async () => {
      assert.doesNotMatch(await restartLogged(), /to their own keys/);
      assert.equal((await k.ok(['-n', 'legacy', 'get', 'widgets', '-o', 'name'])).trim().split('\n').length, 3);
    });

    if (storage === 'etcd') {
      it('two replicas starting together on an old store move each object once', async () => {
        await withStoreOffline(async (store) => {
          for (const key of moved) await store.move(key, key.replace(CUSTOM_ROOT, '/registry/'));
        });
        const dataDir = await mkdtemp(join(tmpdir(), 'dkc-replica-'));
        await cp(join(server.dataDir, 'pki'), join(dataDir, 'pki'), { recursive: true });
        const [, second] = await Promise.all([server.restart(), startServer([], { etcd: etcd!, dataDir })]);
        extra.push(second);
        const k2 = await kubectl('1.32', second.kubeconfig);
        try {
          for (const kc of [k, k2])
            assert.equal((await kc.ok(['-n', 'legacy', 'get', 'widgets', '-o', 'name'])).trim().split('\n').length, 3);
        } finally {
          await k2.cleanup();
        }
        assert.doesNotMatch(`${server.log()}${second.log()}`, /both exist/);
        await withStoreOffline(async (store) => {
          assert.deepEqual(await keysUnder(store, CUSTOM_ROOT), moved);
          assert.deepEqual(await keysUnder(store, '/registry/example.dkc.io/'), []);
        });
      });
    }
  });
}
