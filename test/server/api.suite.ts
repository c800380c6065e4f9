// The API server's semantics through its REST API, against a real `dkc server` process: validation messages,
// optimistic concurrency under contention, no-op writes, status separation, selectors and pagination, watch
// semantics, and a table of malformed requests that must each get the right 4xx Status.
// The suite runs once per storage backend (api.integration.test.ts: SQLite, api.etcd.e2e.test.ts: etcd), so both behave alike.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { ApiError, RestClient, type WatchEvent } from '../../src/client/index.js';
import { startServer, type RunningServer, type StorageBackend } from '../helpers/server.js';

export function apiSuite(storage: StorageBackend): void {
  interface Obj {
    apiVersion?: string;
    kind?: string;
    metadata: {
      name?: string;
      namespace?: string;
      resourceVersion?: string;
      uid?: string;
      labels?: Record<string, string>;
      [k: string]: unknown;
    };
    /** The fields the tests read, present in every object they read them from. */
    spec: { configSource?: unknown; unschedulable?: boolean; [k: string]: unknown };
    status: {
      phase?: string;
      config?: { active?: unknown };
      conditions?: { type: string; status: string }[];
      [k: string]: unknown;
    };
    data: Record<string, string>;
    [k: string]: unknown;
  }

  let server: RunningServer;
  let api: RestClient;

  before(async () => {
    server = await startServer(['--watch-cache-size', '50'], { storage });
    api = await RestClient.fromKubeconfig(server.kubeconfig);
  });

  after(async () => {
    api?.close();
    await server?.cleanup();
  });

  async function expectStatus(p: Promise<unknown>, code: number, message?: RegExp | string): Promise<ApiError> {
    try {
      await p;
    } catch (err) {
      assert.ok(err instanceof ApiError, `expected ApiError, got ${String(err)}`);
      assert.equal(err.code, code, `${err.message}`);
      assert.equal(err.status.kind, 'Status');
      assert.equal(err.status.apiVersion, 'v1');
      assert.equal(err.status.status, 'Failure');
      if (typeof message === 'string') assert.equal(err.status.message, message);
      else if (message) assert.match(err.status.message ?? '', message);
      return err;
    }
    assert.fail(`expected HTTP ${code}`);
  }

  const nodesPath = '/api/v1/nodes';
  const cmPath = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

  async function createNode(name: string, extra: Partial<Obj> = {}): Promise<Obj> {
    return api.create<Obj>(nodesPath, { apiVersion: 'v1', kind: 'Node', metadata: { name }, ...extra });
  }

  describe('spec.configSource and status.config validation', () => {
    const base = { name: 'my-cm', namespace: 'kube-system', kubeletConfigKey: 'kubelet' };
    const cases: [string, unknown, string][] = [
      [
        'empty configSource',
        {},
        'Node "vn" is invalid: spec.configSource: Invalid value: core.NodeConfigSource{ConfigMap:(*core.ConfigMapNodeConfigSource)(nil)}: exactly one reference subfield must be non-nil',
      ],
      [
        'missing namespace',
        { configMap: { ...base, namespace: '' } },
        'Node "vn" is invalid: spec.configSource.configMap.namespace: Required value: namespace must be set',
      ],
      [
        'missing name',
        { configMap: { ...base, name: '' } },
        'Node "vn" is invalid: spec.configSource.configMap.name: Required value: name must be set',
      ],
      [
        'missing key',
        { configMap: { ...base, kubeletConfigKey: '' } },
        'Node "vn" is invalid: spec.configSource.configMap.kubeletConfigKey: Required value: kubeletConfigKey must be set',
      ],
      [
        'uid in spec',
        { configMap: { ...base, uid: 'abc' } },
        'Node "vn" is invalid: spec.configSource.configMap.uid: Forbidden: uid must not be set in spec',
      ],
      [
        'resourceVersion in spec',
        { configMap: { ...base, resourceVersion: '1' } },
        'Node "vn" is invalid: spec.configSource.configMap.resourceVersion: Forbidden: resourceVersion must not be set in spec',
      ],
    ];
    before(async () => {
      await createNode('vn');
    });
    for (const [what, source, message] of cases) {
      it(`${what} → 422 with the exact message`, async () => {
        const err = await expectStatus(
          api.patch(`${nodesPath}/vn`, 'merge', { spec: { configSource: source } }),
          422,
          message,
        );
        assert.equal(err.status.reason, 'Invalid');
        assert.equal(err.status.details?.kind, 'Node');
        assert.equal(err.status.details?.name, 'vn');
        assert.ok((err.status.details?.causes ?? []).length >= 1);
      });
    }
    for (const [field, value] of [
      ['namespace', '../baz'],
      ['name', '../bar'],
      ['kubeletConfigKey', '../qux'],
    ] as const) {
      it(`invalid ${field} ${value} → Invalid value`, async () => {
        await expectStatus(
          api.patch(`${nodesPath}/vn`, 'merge', { spec: { configSource: { configMap: { ...base, [field]: value } } } }),
          422,
          new RegExp(
            `^Node "vn" is invalid: .*spec\\.configSource\\.configMap\\.${field}: Invalid value: "\\.\\./(baz|bar|qux)"`,
          ),
        );
      });
    }
    it('several errors aggregate as [a, b]', async () => {
      await expectStatus(
        api.patch(`${nodesPath}/vn`, 'merge', {
          spec: {
            configSource: {
              configMap: { uid: 'u', resourceVersion: '1', name: 'x', namespace: 'kube-system', kubeletConfigKey: 'k' },
            },
          },
        }),
        422,
        'Node "vn" is invalid: [spec.configSource.configMap.uid: Forbidden: uid must not be set in spec, spec.configSource.configMap.resourceVersion: Forbidden: resourceVersion must not be set in spec]',
      );
    });
    it('a valid configSource is stored', async () => {
      const n = await api.patch<Obj>(`${nodesPath}/vn`, 'merge', { spec: { configSource: { configMap: base } } });
      assert.deepEqual(n['spec'].configSource, { configMap: base });
      const got = await api.get<Obj>(`${nodesPath}/vn`);
      assert.deepEqual(got['spec'].configSource, { configMap: base });
    });
    it('status.config requires uid and resourceVersion, through nodes/status', async () => {
      await expectStatus(
        api.patch(`${nodesPath}/vn/status`, 'merge', { status: { config: { assigned: { configMap: base } } } }),
        422,
        'Node "vn" is invalid: [status.config.assigned.configMap.uid: Required value: uid must be set in status, status.config.assigned.configMap.resourceVersion: Required value: resourceVersion must be set in status]',
      );
      const good = { configMap: { ...base, uid: 'u-1', resourceVersion: '7' } };
      const n = await api.patch<Obj>(`${nodesPath}/vn/status`, 'merge', {
        status: { config: { assigned: good, active: good } },
      });
      assert.deepEqual(n['status'].config?.active, good);
    });
  });

  describe('write semantics', () => {
    it('no-op update and no-op patch keep the resourceVersion', async () => {
      const n = await createNode('noop', { metadata: { name: 'noop', labels: { a: '1' } } });
      const same = await api.update<Obj>(`${nodesPath}/noop`, n);
      assert.equal(same.metadata.resourceVersion, n.metadata.resourceVersion);
      const patched = await api.patch<Obj>(`${nodesPath}/noop`, 'strategic', { metadata: { labels: { a: '1' } } });
      assert.equal(patched.metadata.resourceVersion, n.metadata.resourceVersion);
      const changed = await api.patch<Obj>(`${nodesPath}/noop`, 'strategic', { metadata: { labels: { a: '2' } } });
      assert.ok(Number(changed.metadata.resourceVersion) > Number(n.metadata.resourceVersion));
    });

    it('nodes ignore status; nodes/status ignores everything but status', async () => {
      await createNode('split', { status: { phase: 'Running' } });
      const viaMain = await api.patch<Obj>(`${nodesPath}/split`, 'merge', {
        metadata: { labels: { x: 'y' } },
        status: { phase: 'Pending' },
      });
      assert.equal(viaMain['status'].phase, 'Running');
      assert.equal(viaMain.metadata.labels?.['x'], 'y');
      const viaStatus = await api.patch<Obj>(`${nodesPath}/split/status`, 'merge', {
        metadata: { labels: { x: 'z' } },
        spec: { unschedulable: true },
        status: { phase: 'Terminated' },
      });
      assert.equal(viaStatus['status'].phase, 'Terminated');
      assert.equal(viaStatus.metadata.labels?.['x'], 'y');
      assert.equal(viaStatus['spec'].unschedulable, undefined);
    });

    it('strategic merge keeps conditions by type and $setElementOrder', async () => {
      await createNode('smp', {
        status: {
          conditions: [
            { type: 'Ready', status: 'True' },
            { type: 'MemoryPressure', status: 'False' },
          ],
        },
      });
      const n = await api.patch<Obj>(`${nodesPath}/smp/status`, 'strategic', {
        status: { conditions: [{ type: 'Ready', status: 'False' }] },
      });
      assert.deepEqual(
        n['status'].conditions?.map((c) => `${c.type}=${c.status}`),
        ['Ready=False', 'MemoryPressure=False'],
      );
    });

    it('update with a stale resourceVersion is a 409 Conflict; an empty one is unconditional', async () => {
      const cm = await api.create<Obj>(cmPath('default'), { metadata: { name: 'occ' }, data: { v: '1' } });
      await api.update(`${cmPath('default')}/occ`, { ...cm, data: { v: '2' } });
      await expectStatus(
        api.update(`${cmPath('default')}/occ`, { ...cm, data: { v: '3' } }),
        409,
        'Operation cannot be fulfilled on configmaps "occ": the object has been modified; please apply your changes to the latest version and try again',
      );
      const { resourceVersion: _rv, ...meta } = cm.metadata;
      const forced = await api.update<Obj>(`${cmPath('default')}/occ`, { ...cm, metadata: meta, data: { v: '4' } });
      assert.equal(forced['data'].v, '4');
    });

    it('create defaults kind/apiVersion, supports generateName and dryRun=All', async () => {
      const created = await api.create<Obj>(cmPath('default'), { metadata: { generateName: 'gen-' }, data: {} });
      assert.equal(created.kind, 'ConfigMap');
      assert.equal(created.apiVersion, 'v1');
      assert.match(created.metadata.name ?? '', /^gen-[a-z0-9]{5}$/);
      const dry = await api.create<Obj>(
        cmPath('default'),
        { metadata: { name: 'dry' }, data: {} },
        { query: { dryRun: 'All' } },
      );
      assert.equal(dry.metadata.name, 'dry');
      await expectStatus(api.get(`${cmPath('default')}/dry`), 404, 'configmaps "dry" not found');
    });

    it('fieldValidation: Strict refuses unknown fields, Warn drops them with a Warning header, Ignore drops them', async () => {
      await expectStatus(
        api.create(
          cmPath('default'),
          { metadata: { name: 'fv' }, data: {}, spec: { foo: 1 } },
          { query: { fieldValidation: 'Strict' } },
        ),
        400,
        'strict decoding error: unknown field "spec"',
      );
      const warned = await api.request<Obj>({
        method: 'POST',
        path: cmPath('default'),
        body: { metadata: { name: 'fv', bogus: true }, data: {} },
      });
      assert.equal(warned.status, 201);
      assert.match(String(warned.headers['warning']), /299 - "unknown field \\"metadata.bogus\\""/);
      assert.equal((warned.body.metadata as Record<string, unknown>)['bogus'], undefined);
      const ignored = await api.request<Obj>({
        method: 'PATCH',
        path: `${nodesPath}/vn`,
        query: { fieldValidation: 'Ignore' },
        contentType: 'application/merge-patch+json',
        body: { spec: { nope: 1 } },
      });
      assert.equal(ignored.headers['warning'], undefined);
      assert.equal(ignored.body['spec'].nope, undefined);
      await expectStatus(
        api.create(cmPath('default'), { metadata: { name: 'fv2' } }, { query: { fieldValidation: 'Loose' } }),
        400,
        /invalid fieldValidation directive: Loose/,
      );
    });

    it('immutable ConfigMaps refuse data changes', async () => {
      await api.create(cmPath('default'), { metadata: { name: 'frozen' }, data: { a: '1' }, immutable: true });
      await expectStatus(
        api.patch(`${cmPath('default')}/frozen`, 'merge', { data: { a: '2' } }),
        422,
        /data: Forbidden: field is immutable when `immutable` is set/,
      );
    });

    it('delete returns the object and honours preconditions', async () => {
      const cm = await api.create<Obj>(cmPath('default'), { metadata: { name: 'del' }, data: { a: '1' } });
      await expectStatus(
        api.delete(`${cmPath('default')}/del`, { body: { preconditions: { uid: 'not-the-uid' } } }),
        409,
        /^Operation cannot be fulfilled on ConfigMap "del": the UID in the precondition \(not-the-uid\) does not match the UID in record \(.+\)\. The object might have been deleted and then recreated$/,
      );
      const deleted = await api.delete<Obj>(`${cmPath('default')}/del`, {
        body: { preconditions: { uid: cm.metadata.uid } },
      });
      assert.equal(deleted.metadata.name, 'del');
      assert.equal(deleted.kind, 'ConfigMap');
      await expectStatus(api.delete(`${cmPath('default')}/del`), 404);
    });

    it('the default namespaces exist and kube-system cannot be deleted', async () => {
      const list = await api.list<{ items: Obj[] }>('/api/v1/namespaces');
      const names = list.items.map((n) => n.metadata.name);
      for (const n of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) assert.ok(names.includes(n), n);
      await expectStatus(
        api.delete('/api/v1/namespaces/kube-system'),
        403,
        'namespaces "kube-system" is forbidden: this namespace may not be deleted',
      );
    });

    it('leases in coordination.k8s.io/v1', async () => {
      const l = await api.create<Obj>('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', {
        metadata: { name: 'node-a' },
        spec: { holderIdentity: 'node-a', leaseDurationSeconds: 40, renewTime: '2026-01-01T00:00:00.000000Z' },
      });
      assert.equal(l.apiVersion, 'coordination.k8s.io/v1');
      await expectStatus(
        api.get('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/nope'),
        404,
        'leases.coordination.k8s.io "nope" not found',
      );
    });
  });

  describe('no lost updates', () => {
    it('20 clients × 50 get-modify-update increments with retry on 409 end at exactly 1000', async () => {
      await createNode('counter', { metadata: { name: 'counter', labels: { count: '0' } } });
      const clients = await Promise.all(Array.from({ length: 20 }, () => RestClient.fromKubeconfig(server.kubeconfig)));
      let conflicts = 0;
      try {
        await Promise.all(
          clients.map(async (c) => {
            for (let i = 0; i < 50; i++) {
              for (let attempt = 0; attempt < 1000; attempt++) {
                const n = await c.get<Obj>(`${nodesPath}/counter`);
                n.metadata.labels = { ...n.metadata.labels, count: String(Number(n.metadata.labels?.['count']) + 1) };
                try {
                  await c.update(`${nodesPath}/counter`, n);
                  break;
                } catch (err) {
                  if (err instanceof ApiError && err.code === 409) {
                    conflicts++;
                    // A jittered backoff doubling from 4 ms to 256 ms (client-go's retry.DefaultBackoff grows too) keeps
                    // the contention, but no retry re-reads at once in lockstep with the other 19 to lose again: each
                    // conflict still marks an update a server without the resourceVersion check would have lost.
                    await new Promise((r) => setTimeout(r, Math.random() * 2 ** Math.min(attempt + 2, 8)));
                    continue;
                  }
                  throw err;
                }
              }
            }
          }),
        );
      } finally {
        for (const c of clients) c.close();
      }
      const final = await api.get<Obj>(`${nodesPath}/counter`);
      assert.equal(final.metadata.labels?.['count'], '1000');
      assert.ok(conflicts > 0, 'contention should have produced conflicts');
    });

    it('200 concurrent patches without a resourceVersion all succeed (the server re-applies them on conflict)', async () => {
      await api.create(cmPath('default'), { metadata: { name: 'patched-together' }, data: {} });
      const clients = await Promise.all(Array.from({ length: 8 }, () => RestClient.fromKubeconfig(server.kubeconfig)));
      try {
        const results = await Promise.allSettled(
          Array.from({ length: 200 }, (_, i) =>
            clients[i % clients.length]!.patch(`${cmPath('default')}/patched-together`, i % 2 ? 'merge' : 'strategic', {
              data: { [`k${i}`]: String(i) },
            }),
          ),
        );
        const failed = results.filter((r) => r.status === 'rejected').map((r) => String(r.reason));
        assert.deepEqual(failed, []);
        // Status writes too: conditions of distinct types, merged by type.
        await createNode('status-together');
        const st = await Promise.allSettled(
          Array.from({ length: 40 }, (_, i) =>
            clients[i % clients.length]!.patch(`${nodesPath}/status-together/status`, 'strategic', {
              status: { conditions: [{ type: `T${i}`, status: 'True', reason: 'R', message: 'm' }] },
            }),
          ),
        );
        assert.deepEqual(
          st.filter((r) => r.status === 'rejected').map((r) => String(r.reason)),
          [],
        );
        const node = await api.get<Obj>(`${nodesPath}/status-together`);
        assert.equal((node['status'] as { conditions: unknown[] }).conditions.length, 40);
      } finally {
        for (const c of clients) c.close();
      }
      const cm = await api.get<Obj>(`${cmPath('default')}/patched-together`);
      assert.equal(Object.keys(cm['data'] as object).length, 200);
    });

    it('a patch that carries a stale resourceVersion is still a 409 Conflict', async () => {
      const cm = await api.create<Obj>(cmPath('default'), { metadata: { name: 'pinned-patch' }, data: { a: '1' } });
      await api.patch(`${cmPath('default')}/pinned-patch`, 'merge', { data: { a: '2' } });
      await expectStatus(
        api.patch(`${cmPath('default')}/pinned-patch`, 'merge', {
          metadata: { resourceVersion: cm.metadata.resourceVersion },
          data: { a: '3' },
        }),
        409,
      );
      await expectStatus(
        api.patch(`${cmPath('default')}/pinned-patch`, 'json', [
          { op: 'test', path: '/metadata/resourceVersion', value: cm.metadata.resourceVersion },
          { op: 'replace', path: '/data/a', value: '4' },
        ]),
        422,
      );
      assert.equal(((await api.get<Obj>(`${cmPath('default')}/pinned-patch`))['data'] as { a: string }).a, '2');
    });
  });

  describe('list', () => {
    before(async () => {
      for (let i = 0; i < 12; i++) {
        await api.create(cmPath('kube-public'), {
          metadata: { name: `page-${String(i).padStart(2, '0')}`, labels: { parity: i % 2 ? 'odd' : 'even' } },
          data: {},
        });
      }
    });
    it('limit/continue pages through everything exactly once', async () => {
      const seen: string[] = [];
      let cont: string | undefined;
      for (let i = 0; i < 10; i++) {
        const page: { items: Obj[]; metadata: { continue?: string } } = await api.list(cmPath('kube-public'), {
          limit: 5,
          ...(cont ? { continue: cont } : {}),
        });
        seen.push(...page.items.map((o) => o.metadata.name!));
        cont = page.metadata.continue;
        if (!cont) break;
      }
      assert.deepEqual(
        seen,
        Array.from({ length: 12 }, (_, i) => `page-${String(i).padStart(2, '0')}`),
      );
    });
    it('label and field selectors', async () => {
      const odd = await api.list<{ items: Obj[] }>(cmPath('kube-public'), { labelSelector: 'parity=odd' });
      assert.equal(odd.items.length, 6);
      const notIn = await api.list<{ items: Obj[] }>(cmPath('kube-public'), {
        labelSelector: 'parity notin (odd),parity',
      });
      assert.equal(notIn.items.length, 6);
      const byName = await api.list<{ items: Obj[] }>(cmPath('kube-public'), {
        fieldSelector: 'metadata.namespace=kube-public,metadata.name=page-03',
      });
      assert.deepEqual(
        byName.items.map((o) => o.metadata.name),
        ['page-03'],
      );
      const notName = await api.list<{ items: Obj[] }>(cmPath('kube-public'), {
        fieldSelector: 'metadata.name!=page-03',
      });
      assert.equal(notName.items.length, 11);
      await expectStatus(
        api.list(cmPath('kube-public'), { fieldSelector: 'spec.nodeName=x' }),
        400,
        'field label not supported: spec.nodeName',
      );
    });
    it('a list pinned to one name reads that object only, at the revision asked for', async () => {
      // page-0 is a prefix of page-00 … page-09, none of which it selects.
      const prefixOnly = await api.list<{ items: Obj[]; metadata: { resourceVersion: string } }>(
        cmPath('kube-public'),
        { fieldSelector: 'metadata.name=page-0' },
      );
      assert.deepEqual(prefixOnly.items, []);
      assert.match(prefixOnly.metadata.resourceVersion, /^[1-9][0-9]*$/);
      const withLabel = await api.list<{ items: Obj[] }>(cmPath('kube-public'), {
        fieldSelector: 'metadata.name=page-03',
        labelSelector: 'parity=even',
      });
      assert.deepEqual(withLabel.items, []);
      const limited = await api.list<{ items: Obj[]; metadata: { continue?: string } }>(cmPath('kube-public'), {
        fieldSelector: 'metadata.name=page-04',
        limit: 1,
      });
      assert.deepEqual(
        [limited.items.map((o) => o.metadata.name), limited.metadata.continue],
        [['page-04'], undefined],
      );
      const old = await api.list<{ items: Obj[]; metadata: { resourceVersion: string } }>(cmPath('kube-public'), {
        fieldSelector: 'metadata.name=page-05',
      });
      await api.update(`${cmPath('kube-public')}/page-05`, { ...old.items[0]!, data: { changed: 'yes' } });
      const then = await api.get<{ items: Obj[] }>(cmPath('kube-public'), {
        query: {
          fieldSelector: 'metadata.name=page-05',
          resourceVersion: old.metadata.resourceVersion,
          resourceVersionMatch: 'Exact',
        },
      });
      assert.deepEqual(
        then.items.map((o) => o.data),
        [{}],
      );
      const everywhere = await api.list<{ items: Obj[] }>('/api/v1/configmaps', {
        fieldSelector: 'metadata.name=page-05',
      });
      assert.deepEqual(
        everywhere.items.map((o) => [o.metadata.namespace, o.data]),
        [['kube-public', { changed: 'yes' }]],
      );
    });
    it('describe-style queries: pods by node and events by involved object', async () => {
      const pods = await api.list<{ kind: string; items: Obj[] }>('/api/v1/pods', {
        fieldSelector: 'status.phase!=Failed,spec.nodeName=n1,status.phase!=Succeeded',
      });
      assert.equal(pods.kind, 'PodList');
      assert.deepEqual(pods.items, []);
      await api.create('/api/v1/namespaces/default/events', {
        metadata: { name: 'n1.abc' },
        involvedObject: { kind: 'Node', name: 'n1', uid: 'n1', namespace: '' },
        reason: 'KubeletConfigChanged',
        message: 'Kubelet restarting to use local config',
        type: 'Normal',
        source: { component: 'kubelet', host: 'n1' },
      });
      const evs = await api.list<{ items: Obj[] }>('/api/v1/events', {
        fieldSelector:
          'involvedObject.namespace=,involvedObject.kind=Node,involvedObject.uid=n1,involvedObject.name=n1',
      });
      assert.equal(evs.items.length, 1);
      assert.equal(evs.items[0]!['reason'], 'KubeletConfigChanged');
    });
  });

  async function collect<T>(stream: AsyncIterable<WatchEvent<T>>, n: number, ms: number): Promise<WatchEvent<T>[]> {
    const out: WatchEvent<T>[] = [];
    const timer = setTimeout(() => (stream as { close?: () => void }).close?.(), ms);
    try {
      for await (const ev of stream) {
        out.push(ev);
        if (out.length >= n) break;
      }
    } finally {
      clearTimeout(timer);
    }
    return out;
  }

  describe('watch', () => {
    it('without a resourceVersion starts with synthetic ADDED, then follows changes', async () => {
      await api.create(cmPath('default'), { metadata: { name: 'w1' }, data: {} });
      const w = await api.watch<Obj>(cmPath('default'), { fieldSelector: 'metadata.name=w1' });
      const got = collect(w, 2, 10_000);
      await api.patch(`${cmPath('default')}/w1`, 'merge', { data: { a: 'b' } });
      const events = await got;
      w.close();
      assert.deepEqual(
        events.map((e) => e.type),
        ['ADDED', 'MODIFIED'],
      );
    });

    it('from a resourceVersion delivers only later changes, in order', async () => {
      const cm = await api.create<Obj>(cmPath('default'), { metadata: { name: 'w2' }, data: {} });
      await api.patch(`${cmPath('default')}/w2`, 'merge', { data: { n: '1' } });
      await api.patch(`${cmPath('default')}/w2`, 'merge', { data: { n: '2' } });
      const w = await api.watch<Obj>(cmPath('default'), {
        resourceVersion: cm.metadata.resourceVersion!,
        fieldSelector: 'metadata.name=w2',
      });
      const events = await collect(w, 2, 10_000);
      w.close();
      assert.deepEqual(
        events.map((e) => (e.type === 'MODIFIED' ? e.object['data'].n : e.type)),
        ['1', '2'],
      );
    });

    it('a label change moving an object out of the selector is a DELETED', async () => {
      await api.create(cmPath('default'), { metadata: { name: 'w3', labels: { watch: 'yes' } }, data: {} });
      const w = await api.watch<Obj>(cmPath('default'), { labelSelector: 'watch=yes' });
      const got = collect(w, 2, 10_000);
      await api.patch(`${cmPath('default')}/w3`, 'merge', { metadata: { labels: { watch: 'no' } } });
      const events = await got;
      w.close();
      assert.deepEqual(
        events.map((e) => e.type),
        ['ADDED', 'DELETED'],
      );
    });

    it('a resourceVersion older than the window gets an ERROR 410 Expired, then the stream closes', async () => {
      const first = await api.create<Obj>(cmPath('kube-public'), { metadata: { name: 'old-rv' }, data: {} });
      for (let i = 0; i < 60; i++)
        await api.patch(`${cmPath('kube-public')}/old-rv`, 'merge', { data: { i: String(i) } });
      const w = await api.watch<Obj>(cmPath('kube-public'), { resourceVersion: first.metadata.resourceVersion! });
      const events = await collect(w, 5, 10_000);
      assert.equal(events.length, 1, 'the stream must end after the ERROR');
      assert.equal(events[0]!.type, 'ERROR');
      const status = events[0]!.object as unknown as { code: number; reason: string; message: string };
      assert.equal(status.code, 410);
      assert.equal(status.reason, 'Expired');
      assert.match(status.message, /^too old resource version: \d+ \(\d+\)$/);
    });

    it('bookmarks when asked, and timeoutSeconds ends the stream', async () => {
      const listed = await api.list<{ metadata: { resourceVersion: string } }>(nodesPath);
      const started = Date.now();
      const w = await api.watch<Obj>(nodesPath, {
        timeoutSeconds: 1,
        resourceVersion: listed.metadata.resourceVersion,
        allowWatchBookmarks: true,
      });
      const events: WatchEvent<Obj>[] = [];
      for await (const ev of w) events.push(ev);
      const took = Date.now() - started;
      assert.ok(took >= 900 && took < 10_000, `took ${took} ms`);
      for (const e of events) assert.notEqual(e.type, 'ERROR');
      const last = events[events.length - 1];
      assert.equal(last?.type, 'BOOKMARK');
      assert.ok(Number(last.object.metadata.resourceVersion) >= Number(listed.metadata.resourceVersion));
    });
  });

  describe('bad input', () => {
    const big = 'x'.repeat(3 * 1024 * 1024 + 10);
    const table: {
      what: string;
      method: string;
      path: string;
      body?: string | Uint8Array;
      contentType?: string;
      code: number;
      reason: string;
      message?: RegExp;
    }[] = [
      {
        what: 'malformed JSON',
        method: 'POST',
        path: cmPath('default'),
        body: '{"metadata": {',
        contentType: 'application/json',
        code: 400,
        reason: 'BadRequest',
      },
      {
        what: 'JSON that is not an object',
        method: 'POST',
        path: cmPath('default'),
        body: '[1,2]',
        contentType: 'application/json',
        code: 400,
        reason: 'BadRequest',
      },
      {
        what: 'wrong content type',
        method: 'POST',
        path: cmPath('default'),
        body: '<xml/>',
        contentType: 'application/xml',
        code: 415,
        reason: 'UnsupportedMediaType',
      },
      {
        what: 'patch with an unknown patch type',
        method: 'PATCH',
        path: `${nodesPath}/vn`,
        body: '{}',
        contentType: 'text/plain',
        code: 415,
        reason: 'UnsupportedMediaType',
      },
      {
        what: 'json patch that is an object',
        method: 'PATCH',
        path: `${nodesPath}/vn`,
        body: '{"spec":{}}',
        contentType: 'application/json-patch+json',
        code: 400,
        reason: 'BadRequest',
      },
      {
        what: 'json patch with a failing test op',
        method: 'PATCH',
        path: `${nodesPath}/vn`,
        body: '[{"op":"test","path":"/metadata/name","value":"other"}]',
        contentType: 'application/json-patch+json',
        code: 422,
        reason: 'Invalid',
      },
      {
        what: 'merge patch that is not JSON',
        method: 'PATCH',
        path: `${nodesPath}/vn`,
        body: 'nope',
        contentType: 'application/merge-patch+json',
        code: 400,
        reason: 'BadRequest',
      },
      {
        what: 'unknown resource',
        method: 'GET',
        path: '/api/v1/widgets',
        code: 404,
        reason: 'NotFound',
        message: /the server could not find the requested resource/,
      },
      {
        what: 'wrong kind in body',
        method: 'POST',
        path: cmPath('default'),
        body: '{"apiVersion":"v1","kind":"Node","metadata":{"name":"k"}}',
        contentType: 'application/json',
        code: 400,
        reason: 'BadRequest',
      },
      {
        what: 'oversized body',
        method: 'POST',
        path: cmPath('default'),
        body: `{"metadata":{"name":"big"},"data":{"a":"${big}"}}`,
        contentType: 'application/json',
        code: 413,
        reason: 'RequestEntityTooLarge',
      },
      {
        what: 'missing namespace',
        method: 'POST',
        path: cmPath('no-such-ns'),
        body: '{"metadata":{"name":"a"}}',
        contentType: 'application/json',
        code: 404,
        reason: 'NotFound',
        message: /namespaces "no-such-ns" not found/,
      },
      {
        what: 'name too long',
        method: 'POST',
        path: cmPath('default'),
        body: JSON.stringify({ metadata: { name: 'a'.repeat(254) } }),
        contentType: 'application/json',
        code: 422,
        reason: 'Invalid',
        message: /metadata\.name: Invalid value: "a+": must be no more than 253 characters/,
      },
      {
        what: 'invalid name',
        method: 'POST',
        path: nodesPath,
        body: JSON.stringify({ metadata: { name: 'Not_Valid' } }),
        contentType: 'application/json',
        code: 422,
        reason: 'Invalid',
        message:
          /^Node "Not_Valid" is invalid: metadata\.name: Invalid value: "Not_Valid": a lowercase RFC 1123 subdomain/,
      },
      {
        what: 'ConfigMap over 1 MiB',
        method: 'POST',
        path: cmPath('default'),
        body: JSON.stringify({ metadata: { name: 'huge' }, data: { a: 'y'.repeat(1024 * 1024 + 1) } }),
        contentType: 'application/json',
        code: 422,
        reason: 'Invalid',
        message: /must have at most 1048576 bytes/,
      },
      {
        what: 'invalid ConfigMap key',
        method: 'POST',
        path: cmPath('default'),
        body: JSON.stringify({ metadata: { name: 'badkey' }, data: { 'a/b': 'x' } }),
        contentType: 'application/json',
        code: 422,
        reason: 'Invalid',
        message: /data\[a\/b\]: Invalid value: "a\/b": a valid config key must consist of alphanumeric characters/,
      },
      {
        what: 'bad label selector',
        method: 'GET',
        path: `${cmPath('default')}?labelSelector=a%20in%20(`,
        code: 400,
        reason: 'BadRequest',
      },
      {
        what: 'bad resourceVersion on watch',
        method: 'GET',
        path: `${nodesPath}?watch=true&resourceVersion=abc`,
        code: 400,
        reason: 'BadRequest',
      },
      {
        what: 'bad continue token',
        method: 'GET',
        path: `${nodesPath}?limit=1&continue=garbage`,
        code: 400,
        reason: 'BadRequest',
      },
      {
        what: 'create of a pod without containers',
        method: 'POST',
        path: '/api/v1/namespaces/default/pods',
        body: '{"metadata":{"name":"p"}}',
        contentType: 'application/json',
        code: 422,
        reason: 'Invalid',
      },
      {
        what: 'resourceVersion on create',
        method: 'POST',
        path: cmPath('default'),
        body: '{"metadata":{"name":"rv","resourceVersion":"5"}}',
        contentType: 'application/json',
        code: 400,
        reason: 'BadRequest',
      },
      {
        what: 'name mismatch on update',
        method: 'PUT',
        path: `${nodesPath}/vn`,
        body: '{"metadata":{"name":"other"}}',
        contentType: 'application/json',
        code: 400,
        reason: 'BadRequest',
      },
      {
        what: 'unsupported status subresource',
        method: 'GET',
        path: `${cmPath('default')}/x/status`,
        code: 404,
        reason: 'NotFound',
      },
    ];
    for (const t of table) {
      it(`${t.what} → ${t.code} ${t.reason}`, async () => {
        const res = await api
          .request<{ kind: string; reason: string; code: number; message: string }>({
            method: t.method,
            path: t.path.split('?')[0]!,
            query: Object.fromEntries(new URLSearchParams(t.path.split('?')[1] ?? '')),
            ...(t.body !== undefined ? { body: t.body } : {}),
            ...(t.contentType ? { contentType: t.contentType } : {}),
          })
          .catch((err: unknown) => {
            if (err instanceof ApiError)
              return {
                status: err.code,
                body: err.status as unknown as { kind: string; reason: string; code: number; message: string },
              };
            throw err;
          });
        assert.equal(res.status, t.code, JSON.stringify(res.body));
        assert.equal(res.body.kind, 'Status');
        assert.equal(res.body.reason, t.reason);
        assert.equal(res.body.code, t.code);
        if (t.message) assert.match(res.body.message, t.message);
      });
    }
    it('unauthenticated requests and unknown tokens get 401; the server still answers afterwards', async () => {
      for (const headers of [{}, { Authorization: 'Bearer not-a-token' }]) {
        const res = await new Promise<{ code: number; body: string }>((resolve, reject) => {
          https
            .get(`${server.url}/api/v1/nodes`, { rejectUnauthorized: false, headers }, (r) => {
              let b = '';
              r.on('data', (d: Buffer) => (b += d.toString()));
              r.on('end', () => resolve({ code: r.statusCode ?? 0, body: b }));
            })
            .on('error', reject);
        });
        assert.equal(res.code, 401);
        assert.equal((JSON.parse(res.body) as { reason?: unknown }).reason, 'Unauthorized');
      }
      const list = await api.list<{ items: Obj[] }>(nodesPath);
      assert.ok(list.items.length > 0);
      assert.equal(server.proc.exitCode, null);
    });
  });
}
