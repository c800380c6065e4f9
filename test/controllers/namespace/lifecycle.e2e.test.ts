// Namespace deletion with real processes: a `dkc server` running its namespace controller, driven through the API
// and kubectl 1.32, compared with what kubernetes.io documents
// (https://kubernetes.io/docs/tasks/administer-cluster/namespaces/#deleting-a-namespace,
// https://kubernetes.io/docs/concepts/overview/working-with-objects/finalizers/ and the NamespaceLifecycle admission
// plugin in https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/): a deleted namespace
// turns Terminating and stays readable, everything in it is deleted, the `kubernetes` finalizer goes once nothing is
// left and the namespace with it; an object held by a finalizer keeps the namespace Terminating with
// NamespaceFinalizersRemaining until released; nothing new may be created meanwhile.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NAMESPACE_CONTROLLER_USER } from '../../../src/api/dkc/identity.js';
import type { KubeObject, Namespace, NamespaceCondition } from '../../../src/api/types.js';
import { ApiError, RestClient } from '../../../src/client/index.js';
import { kubectl, type Kubectl } from '../../helpers/kubectl.js';
import { startServer, type RunningServer } from '../../helpers/server.js';
import { waitFor } from '../../helpers/wait.js';
// A namespaced custom kind, so the controller has to find it by discovery.
import { widgetCrd } from '../../helpers/crds.js';

let server: RunningServer | undefined;
let work: string | undefined;
let admin: RestClient;
let k: Kubectl | undefined;

type Ns = Namespace & { metadata: { deletionTimestamp?: string } };

const nsPath = (name: string) => `/api/v1/namespaces/${name}`;
const condition = (ns: Ns | undefined, type: string): NamespaceCondition | undefined =>
  ns?.status?.conditions?.find((c) => c.type === type);
const brief = (c: NamespaceCondition | undefined) => (c ? [c.status, c.reason, c.message] : undefined);

/** 100 objects of five kinds, one of them custom: [collection path, object][] */
function content(ns: string): [string, object][] {
  const out: [string, object][] = [];
  const n = (prefix: string, count: number, make: (name: string) => object, path: string) => {
    for (let i = 0; i < count; i++) out.push([path, make(`${prefix}-${i}`)]);
  };
  n('cm', 40, (name) => ({ metadata: { name }, data: { k: name } }), `${nsPath(ns)}/configmaps`);
  n(
    'lease',
    20,
    (name) => ({ metadata: { name }, spec: { holderIdentity: 'x' } }),
    `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`,
  );
  n(
    'ev',
    15,
    (name) => ({
      metadata: { name },
      involvedObject: { kind: 'ConfigMap', namespace: ns, name: 'cm-0' },
      reason: 'Test',
      message: 'm',
      type: 'Normal',
    }),
    `${nsPath(ns)}/events`,
  );
  n(
    'role',
    10,
    (name) => ({ metadata: { name }, rules: [] }),
    `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`,
  );
  n(
    'widget',
    15,
    (name) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec: { size: 1 } }),
    `/apis/example.com/v1/namespaces/${ns}/widgets`,
  );
  return out;
}

async function count(ns: string): Promise<number> {
  const paths = [...new Set(content(ns).map(([p]) => p))];
  const lists = await Promise.all(paths.map((p) => admin.list<{ items: KubeObject[] }>(p)));
  return lists.reduce((n, l) => n + l.items.length, 0);
}

before(async () => {
  // Only the namespace controller, looking again at terminating namespaces every second (kube's default is 5 minutes).
  work = await mkdtemp(join(tmpdir(), 'dkc-ns-'));
  server = await startServer([
    '--controllers',
    'namespace',
    '--namespace-sync-period',
    '1s',
    '--audit-log-path',
    join(work, 'audit.log'),
  ]);
  admin = await RestClient.fromKubeconfig(server.kubeconfig, { timeoutMs: 10_000 });
  k = await kubectl('1.32', server.kubeconfig);
  await admin.create('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd);
});

after(async () => {
  admin?.close();
  await k?.cleanup();
  await server?.cleanup();
  if (work) await rm(work, { recursive: true, force: true });
});

type AuditEvent = {
  verb: string;
  user: { username: string };
  objectRef?: { resource?: string; namespace?: string; name?: string; subresource?: string };
};

/** Who the audit log says wrote in or to namespace `ns`: `[verb resource/subresource, user]`, without repeats. */
async function writersIn(ns: string): Promise<string[][]> {
  const lines = (await readFile(join(work!, 'audit.log'), 'utf8')).split('\n').filter((l) => l !== '');
  const events = lines.map((l) => JSON.parse(l) as AuditEvent);
  const mine = events.filter(
    (e) =>
      ['update', 'delete', 'deletecollection'].includes(e.verb) &&
      (e.objectRef?.namespace === ns || (e.objectRef?.resource === 'namespaces' && e.objectRef.name === ns)),
  );
  const rows = mine.map(
    (e) =>
      `${e.verb} ${e.objectRef?.resource ?? ''}${e.objectRef?.subresource ? `/${e.objectRef.subresource}` : ''}\t${e.user.username}`,
  );
  return [...new Set(rows)].sort().map((r) => r.split('\t'));
}

describe('namespace lifecycle', () => {
  it('a namespace with 100 objects goes Terminating, is emptied, loses its finalizer and goes (kubectl delete, kubectl wait --for=delete)', async () => {
    const created = await admin.create<Ns>('/api/v1/namespaces', {
      metadata: { name: 'big' },
      spec: { finalizers: [] },
    });
    // As kube-apiserver: Active, and the `kubernetes` finalizer whatever the client sent.
    assert.deepEqual([created.status?.phase, created.spec?.finalizers], ['Active', ['kubernetes']]);
    for (let i = 0, all = content('big'); i < all.length; i += 25)
      await Promise.all(all.slice(i, i + 25).map(([p, o]) => admin.create(p, o)));
    assert.equal(await count('big'), 100);

    const seen: Ns[] = [];
    const ac = new AbortController();
    const stream = await admin.watch<Ns>('/api/v1/namespaces', {
      fieldSelector: 'metadata.name=big',
      resourceVersion: created.metadata.resourceVersion!,
      signal: ac.signal,
    });
    const watched = (async () => {
      for await (const e of stream) {
        if (e.type === 'ERROR' || e.type === 'BOOKMARK') continue;
        seen.push(e.object);
        if (e.type === 'DELETED') return;
      }
    })();
    try {
      assert.match(await k!.ok(['delete', 'namespace', 'big', '--wait=false']), /^namespace "big" deleted$/m);
      const r = await k!.run(['wait', '--for=delete', 'namespace/big', '--timeout=20s']);
      assert.equal(r.code, 0, r.stderr);
      await waitFor('the DELETED event of namespace big', () => watched.then(() => true));
    } finally {
      ac.abort();
      stream.close();
    }
    await assert.rejects(admin.get(nsPath('big')), (e: unknown) => e instanceof ApiError && e.code === 404);
    assert.equal(await count('big'), 0, 'every object of every kind went before the namespace');
    // The controller acted as its own user, never as the other controllers' identity; the delete was kubectl's.
    const writers = await waitFor('the audit event of /finalize', async () => {
      const rows = await writersIn('big');
      return rows.some(([what]) => what === 'update namespaces/finalize') && rows;
    });
    const users = new Set(writers.filter(([what]) => what !== 'delete namespaces').map(([, user]) => user));
    assert.deepEqual([...users], [NAMESPACE_CONTROLLER_USER], JSON.stringify(writers));
    assert.ok(
      writers.some(([what, user]) => what === 'deletecollection widgets' && user === NAMESPACE_CONTROLLER_USER),
      JSON.stringify(writers),
    );

    // Terminating before anything else changed; the five conditions written, all False; then the namespace gone.
    const terminating = seen.find((ns) => ns.status?.phase === 'Terminating');
    assert.ok(terminating?.metadata.deletionTimestamp, JSON.stringify(seen.map((s) => s.status)));
    assert.deepEqual(terminating.spec?.finalizers, ['kubernetes']);
    const last = seen.at(-1)!;
    assert.deepEqual(
      [
        'NamespaceDeletionDiscoveryFailure',
        'NamespaceDeletionGroupVersionParsingFailure',
        'NamespaceDeletionContentFailure',
        'NamespaceContentRemaining',
        'NamespaceFinalizersRemaining',
      ].map((t) => brief(condition(last, t))),
      [
        ['False', 'ResourcesDiscovered', 'All resources successfully discovered'],
        ['False', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
        ['False', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
        ['False', 'ContentRemoved', 'All content successfully removed'],
        ['False', 'ContentHasNoFinalizers', 'All content-preserving finalizers finished'],
      ],
    );
  });

  it('an object with a finalizer keeps its namespace Terminating, creates are refused, and releasing it lets the namespace go', async () => {
    await k!.ok(['create', 'namespace', 'held']);
    await admin.create(`${nsPath('held')}/configmaps`, {
      metadata: { name: 'kept', finalizers: ['example.com/hold'] },
    });
    await admin.create(`${nsPath('held')}/configmaps`, { metadata: { name: 'free' } });
    await admin.create('/apis/example.com/v1/namespaces/held/widgets', {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', finalizers: ['example.com/hold'] },
    });
    await k!.ok(['delete', 'namespace', 'held', '--wait=false']);

    const stuck = await waitFor('held reports the finalizers that keep it', async () => {
      const ns = await admin.get<Ns>(nsPath('held'));
      return condition(ns, 'NamespaceFinalizersRemaining')?.status === 'True' ? ns : undefined;
    });
    assert.equal(stuck.status?.phase, 'Terminating');
    assert.deepEqual(stuck.spec?.finalizers, ['kubernetes']);
    assert.deepEqual(brief(condition(stuck, 'NamespaceFinalizersRemaining')), [
      'True',
      'SomeFinalizersRemain',
      'Some content in the namespace has finalizers remaining: example.com/hold in 2 resource instances',
    ]);
    assert.deepEqual(brief(condition(stuck, 'NamespaceContentRemaining')), [
      'True',
      'SomeResourcesRemain',
      'Some resources are remaining: configmaps. has 1 resource instances, widgets.example.com has 1 resource instances',
    ]);
    assert.equal(brief(condition(stuck, 'NamespaceDeletionContentFailure'))?.[0], 'False');
    const left = await admin.list<{ items: KubeObject[] }>(`${nsPath('held')}/configmaps`);
    assert.deepEqual(
      left.items.map((o) => [o.metadata?.name, typeof o.metadata?.['deletionTimestamp']]),
      [['kept', 'string']],
    );

    // NamespaceLifecycle admission: 403 Forbidden with the NamespaceTerminating cause, as kubectl shows it.
    const refused = await k!.run(['create', 'configmap', 'late', '-n', 'held']);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /configmaps "late" is forbidden: unable to create new content in namespace held because it is being terminated/,
    );
    const err = await admin.create(`${nsPath('held')}/configmaps`, { metadata: { generateName: 'late-' } }).then(
      () => assert.fail('created in a terminating namespace'),
      (e: unknown) => e as ApiError,
    );
    assert.deepEqual(
      [err.code, err.reason, err.status.message, err.status.details?.causes],
      [
        403,
        'Forbidden',
        'configmaps "Unknown" is forbidden: unable to create new content in namespace held because it is being terminated',
        [
          {
            reason: 'NamespaceTerminating',
            message: 'namespace held is being terminated',
            field: 'metadata.namespace',
          },
        ],
      ],
    );
    // spec.finalizers changes only through /finalize: a patch of the namespace leaves it; a second delete changes nothing.
    const patched = await admin.patch<Ns>(nsPath('held'), 'merge', { spec: { finalizers: [] } });
    assert.deepEqual(patched.spec?.finalizers, ['kubernetes']);
    const again = await admin.delete<Ns>(nsPath('held'));
    assert.deepEqual(
      [again.metadata.deletionTimestamp, again.status?.phase],
      [stuck.metadata.deletionTimestamp, 'Terminating'],
    );

    for (const p of [`${nsPath('held')}/configmaps/kept`, '/apis/example.com/v1/namespaces/held/widgets/w'])
      await admin.patch(p, 'merge', { metadata: { finalizers: null } });
    const r = await k!.run(['wait', '--for=delete', 'namespace/held', '--timeout=20s']);
    assert.equal(r.code, 0, r.stderr);
    await assert.rejects(admin.get(nsPath('held')), (e: unknown) => e instanceof ApiError && e.code === 404);
  });

  it('/finalize is the one write of spec.finalizers, PUT only, and serves in discovery', async () => {
    const ns = await admin.create<Ns>('/api/v1/namespaces', { metadata: { name: 'fin' } });
    const put = await admin.update<Ns>(`${nsPath('fin')}/finalize`, {
      ...ns,
      spec: { finalizers: ['example.com/mine', 'kubernetes'] },
      status: { phase: 'Terminating' },
    });
    assert.deepEqual([put.spec?.finalizers, put.status?.phase], [['example.com/mine', 'kubernetes'], 'Active']);
    await assert.rejects(
      admin.get(`${nsPath('fin')}/finalize`),
      (e: unknown) => e instanceof ApiError && e.code === 405,
    );
    const v1 = await admin.get<{ resources: { name: string; verbs: string[] }[] }>('/api/v1');
    assert.deepEqual(v1.resources.find((r) => r.name === 'namespaces/finalize')?.verbs, ['update']);
    const doc = await admin.get<{ paths: Record<string, Record<string, { operationId?: string }>> }>(
      '/openapi/v3/api/v1',
    );
    const finalize = doc.paths['/api/v1/namespaces/{name}/finalize'] ?? {};
    assert.deepEqual([finalize['put']?.operationId, 'get' in finalize], ['replaceCoreV1NamespaceFinalize', false]);
    // Finalized before it was deleted: the first delete still only marks it (kube's namespace registry does the
    // same), the controller has nothing left to remove, and the next delete is the one that removes it.
    await admin.update(`${nsPath('fin')}/finalize`, { ...put, spec: { finalizers: [] } });
    const marked = await admin.delete<Ns>(nsPath('fin'));
    assert.deepEqual([marked.status?.phase, marked.spec?.finalizers], ['Terminating', []]);
    await admin.delete(nsPath('fin'));
    await assert.rejects(admin.get(nsPath('fin')), (e: unknown) => e instanceof ApiError && e.code === 404);
  });
});
