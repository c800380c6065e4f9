// Deletion through kubectl 1.32 against a real dkc server and its garbage collector, compared with kube's documented
// behaviour (https://kubernetes.io/docs/concepts/architecture/garbage-collection/):
// - "In background cascading deletion, the Kubernetes API server deletes the owner object immediately and the
//   garbage collector controller cleans up the dependent objects in the background" (the default);
// - "In foreground cascading deletion, the owner object you're deleting first enters a deletion in progress state":
//   deletionTimestamp and the foregroundDeletion finalizer set, it stays while dependents with
//   ownerReference.blockOwnerDeletion=true exist, and goes once the collector has deleted them;
// - orphan: "Kubernetes ignores dependent objects and deletes only the owner object", the dependents losing their
//   reference to it;
// - "Namespaced owners must exist in the same namespace as the dependent. If it does not, the owner reference is
//   treated as absent", with a Warning event of reason OwnerRefInvalidNamespace about the dependent.
// A Node's Lease is owned by the Node (a namespaced dependent of a cluster-scoped owner) and goes with it.
// The collector acts as its own user (as kube-controller-manager's generic-garbage-collector), seen in the audit log.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GARBAGE_COLLECTOR_USER } from '../../../src/api/dkc/identity.js';
import { startServer, type RunningServer } from '../../helpers/server.js';
import { kubectl, type Kubectl } from '../../helpers/kubectl.js';
import { waitFor } from '../../helpers/wait.js';

let server: RunningServer;
let k: Kubectl;
let work = '';

interface Owner {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  blockOwnerDeletion?: boolean;
}

/** Creates a ConfigMap owned by `owners`; returns its owner reference for the next level. */
async function cm(
  name: string,
  owners: Owner[],
  extra: { namespace?: string; finalizers?: string[] } = {},
): Promise<Owner> {
  const ns = extra.namespace ?? 'default';
  const meta = {
    name,
    namespace: ns,
    ownerReferences: owners,
    ...(extra.finalizers ? { finalizers: extra.finalizers } : {}),
  };
  await k.ok(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta }) });
  const uid = await k.ok(['-n', ns, 'get', 'cm', name, '-o', 'jsonpath={.metadata.uid}']);
  return { apiVersion: 'v1', kind: 'ConfigMap', name, uid };
}

const blocking = (o: Owner): Owner => ({ ...o, blockOwnerDeletion: true });

async function exists(kind: string, name: string, ns = 'default'): Promise<boolean> {
  const r = await k.run(['-n', ns, 'get', kind, name, '-o', 'name']);
  if (r.code !== 0 && !/NotFound|not found/.test(r.stderr)) throw new Error(r.stderr);
  return r.code === 0;
}

async function meta(
  kind: string,
  name: string,
  ns = 'default',
): Promise<{ deletionTimestamp?: string; finalizers?: string[]; ownerReferences?: Owner[] }> {
  return JSON.parse(await k.ok(['-n', ns, 'get', kind, name, '-o', 'jsonpath={.metadata}'])) as never;
}

const gone = (kind: string, name: string, ns = 'default') =>
  waitFor(`${kind} ${ns}/${name} deleted`, async () => !(await exists(kind, name, ns)), { timeoutMs: 15_000 });

type AuditEvent = {
  verb: string;
  requestURI: string;
  requestReceivedTimestamp: string;
  user: { username: string };
  objectRef?: { resource?: string; name?: string };
};

async function audited(): Promise<AuditEvent[]> {
  const lines = (await readFile(join(work, 'audit.log'), 'utf8')).split('\n').filter((l) => l !== '');
  return lines.map((l) => JSON.parse(l) as AuditEvent);
}

/** Who the audit log says sent each request matching `verb`, `resource` and `name`. */
async function auditedUsers(verb: string, resource: string, name: string): Promise<string[]> {
  return (await audited())
    .filter((e) => e.verb === verb && e.objectRef?.resource === resource && e.objectRef.name === name)
    .map((e) => e.user.username);
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'dkc-gc-'));
  server = await startServer(['--audit-log-path', join(work, 'audit.log')]);
  k = await kubectl('1.32', server.kubeconfig);
});

after(async () => {
  await k?.cleanup();
  await server?.cleanup();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the garbage collector with kubectl 1.32', () => {
  it('background (the default): the owner goes at once, its dependents three levels down after it', async () => {
    const a = await cm('bg-a', []);
    const b = await cm('bg-b', [a]);
    await cm('bg-c', [b]);
    await cm('bg-keep', [
      a,
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        name: 'default',
        uid: await k.ok(['get', 'ns', 'default', '-o', 'jsonpath={.metadata.uid}']),
      },
    ]);
    await k.ok(['delete', 'cm', 'bg-a']);
    assert.equal(await exists('cm', 'bg-a'), false);
    await gone('cm', 'bg-b');
    await gone('cm', 'bg-c');
    // The audit log is written as the response goes: read it once the delete is in.
    const deleters = await waitFor('the audit event of bg-b deleted', async () => {
      const users = await auditedUsers('delete', 'configmaps', 'bg-b');
      return users.length > 0 && users;
    });
    assert.deepEqual(deleters, [GARBAGE_COLLECTOR_USER], 'deleted by the collector as its own user');
    // An object with another owner left loses only its reference to the one gone.
    await waitFor(
      'bg-keep to lose its reference to bg-a',
      async () => ((await meta('cm', 'bg-keep')).ownerReferences ?? []).length === 1,
    );
  });

  it('discovers once as it starts: the CustomResourceDefinitions its informer first lists are those discovery found', async () => {
    // By now the collector has acted (the test above); its next discovery is the resync, 30 s after the first.
    const discoveries = (await audited()).filter(
      (e) => e.user.username === GARBAGE_COLLECTOR_USER && e.requestURI === '/apis',
    );
    const first = Date.parse(discoveries[0]!.requestReceivedTimestamp.replace(/0{3}Z$/, 'Z'));
    const early = discoveries.filter(
      (e) => Date.parse(e.requestReceivedTimestamp.replace(/0{3}Z$/, 'Z')) - first < 20_000,
    );
    assert.equal(early.length, 1);
  });

  it('--cascade=foreground: the owner waits, marked, for its blocking dependents three levels down; kubectl wait --for=delete sees it go', async () => {
    const a = await cm('fg-a', []);
    const b = await cm('fg-b', [blocking(a)]);
    await cm('fg-c', [blocking(b)], { finalizers: ['example.com/hold'] });
    await k.ok(['delete', 'cm', 'fg-a', '--cascade=foreground', '--wait=false']);
    // fg-c is held by its own finalizer, so fg-b and fg-a must wait, marked for deletion.
    await waitFor('fg-c marked for deletion', async () => (await meta('cm', 'fg-c')).deletionTimestamp !== undefined);
    for (const name of ['fg-a', 'fg-b']) {
      const m = await meta('cm', name);
      assert.ok(m.deletionTimestamp, `${name} has a deletionTimestamp`);
      assert.deepEqual(m.finalizers, ['foregroundDeletion'], name);
    }
    const waiting = k.run(['wait', '--for=delete', 'cm/fg-a', '--timeout=20s']);
    await k.ok(['patch', 'cm', 'fg-c', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    const r = await waiting;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(await exists('cm', 'fg-b'), false, 'fg-b went before its owner');
    assert.equal(await exists('cm', 'fg-c'), false, 'fg-c went before its owner');
  });

  it('--cascade=orphan: only the owner goes; its dependents stay, without their reference to it', async () => {
    const a = await cm('or-a', []);
    const b = await cm('or-b', [blocking(a)]);
    await cm('or-c', [b]);
    await k.ok(['delete', 'cm', 'or-a', '--cascade=orphan']);
    await gone('cm', 'or-a');
    assert.deepEqual((await meta('cm', 'or-b')).ownerReferences, undefined);
    assert.deepEqual(
      (await meta('cm', 'or-c')).ownerReferences?.map((o) => o.uid),
      [b.uid],
    );
  });

  it("a Node deleted takes its Lease with it (the kubelet's ownerReference to the Node)", async () => {
    await k.ok(['create', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'gc-node' } }),
    });
    const uid = await k.ok(['get', 'node', 'gc-node', '-o', 'jsonpath={.metadata.uid}']);
    const lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: 'gc-node',
        namespace: 'kube-node-lease',
        ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'gc-node', uid }],
      },
      spec: { holderIdentity: 'gc-node' },
    };
    await k.ok(['create', '-f', '-'], { input: JSON.stringify(lease) });
    await k.ok(['delete', 'node', 'gc-node']);
    await gone('lease', 'gc-node', 'kube-node-lease');
  });

  it('an owner in another namespace is absent: the dependent is collected, with an OwnerRefInvalidNamespace event', async () => {
    const owner = await cm('ns-owner', []);
    const dep = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'ns-dep', namespace: 'kube-public', ownerReferences: [owner] },
    };
    await k.ok(['create', '-f', '-'], { input: JSON.stringify(dep) });
    await gone('cm', 'ns-dep', 'kube-public');
    assert.equal(await exists('cm', 'ns-owner'), true);
    const events = await waitFor('the Warning event', async () => {
      const out = await k.ok([
        '-n',
        'kube-public',
        'get',
        'events',
        '--field-selector',
        'reason=OwnerRefInvalidNamespace',
        '-o',
        'jsonpath={.items[*].message}',
      ]);
      return out || undefined;
    });
    assert.equal(
      events,
      `ownerRef [v1/ConfigMap, namespace: kube-public, name: ns-owner, uid: ${owner.uid}] does not exist in namespace "kube-public"`,
    );
  });
});
