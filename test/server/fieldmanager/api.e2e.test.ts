// Server-side apply and managedFields at the API, where kubectl's own tests do not reach: the options of a write
// (fieldManager required for apply, force for apply only, the manager of a write that names none), what an apply
// refuses and with which status, an apply that creates (201, dry run, status subresource, create permission),
// resetting managedFields, an object no one manages, spec and status managers kept apart, the cap of ten update
// managers, repeated keys in an applied YAML document, and managedFields in the store's compact form (ADR 32).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ApiError, RestClient } from '../../../src/client/index.js';
import type { Status } from '../../../src/api/errors.js';
import { kubectl, type Kubectl } from '../../helpers/kubectl.js';
import { startServer, type RunningServer } from '../../helpers/server.js';
import { waitFor } from '../../helpers/wait.js';
import { builtinKeyPrefix } from '../../../src/server/crd/keys.js';

const APPLY = 'application/apply-patch+yaml';
const CMS = '/api/v1/namespaces/default/configmaps';

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  time?: string;
  fieldsType: string;
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}
interface Obj {
  metadata: { name: string; uid?: string; labels?: Record<string, string>; managedFields?: Entry[] };
  data?: Record<string, string>;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

let server: RunningServer;
let client: RestClient;

before(async () => {
  server = await startServer(['--controllers', '']);
  client = await RestClient.fromKubeconfig(server.kubeconfig);
});

after(async () => {
  client?.close();
  await server?.cleanup();
});

async function call<T = Obj>(
  method: string,
  path: string,
  opts: { body?: unknown; contentType?: string; query?: Record<string, string>; headers?: Record<string, string> } = {},
): Promise<{ code: number; body: T; status?: Status; warnings: string[] }> {
  try {
    const r = await client.request<T>({ method, path, ...opts });
    const w = r.headers['warning'];
    return { code: r.status, body: r.body, warnings: w === undefined ? [] : Array.isArray(w) ? w : [w] };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { code: err.code, body: undefined as T, status: err.status, warnings: [] };
  }
}

const apply = (path: string, body: unknown, manager: string | undefined, query: Record<string, string> = {}) =>
  call('PATCH', path, {
    body: typeof body === 'string' ? body : JSON.stringify(body),
    contentType: APPLY,
    query: { ...(manager ? { fieldManager: manager } : {}), ...query },
  });

const cm = (name: string, data: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(extra['metadata'] as object | undefined) },
  data,
  ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== 'metadata')),
});

const managers = (o: Obj) =>
  (o.metadata.managedFields ?? [])
    .map((e) => `${e.manager}/${e.operation}${e.subresource ? `/${e.subresource}` : ''}`)
    .sort();
const entry = (o: Obj, manager: string) => o.metadata.managedFields?.find((e) => e.manager === manager);

describe('the options of a write', () => {
  it('an apply must name its field manager; force is for applies only; a manager is at most 128 printable bytes', async () => {
    const missing = await apply(`${CMS}/opts`, cm('opts', { a: '1' }), undefined);
    assert.equal(missing.code, 422);
    assert.equal(
      missing.status?.message,
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
    const force = await call('PATCH', `${CMS}/opts`, {
      body: '{}',
      contentType: 'application/merge-patch+json',
      query: { force: 'true' },
    });
    assert.equal(force.code, 422);
    assert.equal(
      force.status?.message,
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    );
    const long = await call('POST', CMS, { body: cm('opts', {}), query: { fieldManager: 'm'.repeat(129) } });
    assert.equal(
      long.status?.message,
      'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: must have at most 128 bytes',
    );
    const bell = await call('PUT', `${CMS}/opts`, { body: cm('opts', {}), query: { fieldManager: 'a\u0007b' } });
    assert.equal(
      bell.status?.message,
      'UpdateOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "a\\ab": invalid character U+0007 (at position 1)',
    );
  });

  it("a write that names no manager is recorded under its user agent's program name", async () => {
    const r = await call('POST', CMS, {
      body: cm('ua', { a: '1' }),
      headers: { 'user-agent': 'kubectl/v1.32.0 (linux/amd64) kubernetes/abcdef' },
    });
    assert.equal(r.code, 201);
    assert.deepEqual(managers(r.body), ['kubectl/Update']);
    const named = await call('PATCH', `${CMS}/ua`, {
      body: { data: { b: '2' } },
      contentType: 'application/merge-patch+json',
      query: { fieldManager: 'kubectl-patch' },
    });
    assert.deepEqual(managers(named.body), ['kubectl-patch/Update', 'kubectl/Update']);
    assert.deepEqual(entry(named.body, 'kubectl-patch')?.fieldsV1, { 'f:data': { 'f:b': {} } });
  });
});

describe("the server's own writes", () => {
  it('are recorded for dkc-server: the default namespaces, the CRDs it installs and their status', async () => {
    assert.deepEqual(managers((await call('GET', '/api/v1/namespaces/default')).body), ['dkc-server/Update']);
    const crd = (await call('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/nodeconfigrollouts.dkc.io'))
      .body;
    assert.deepEqual(managers(crd), ['dkc-server/Update', 'dkc-server/Update/status']);
  });
});

describe('applies', () => {
  it('an apply creates a missing object (201), then updates it (200); a dry run stores nothing', async () => {
    const dry = await apply(`${CMS}/made`, cm('made', { a: '1' }), 'maker', { dryRun: 'All' });
    assert.equal(dry.code, 201);
    assert.equal((await call('GET', `${CMS}/made`)).code, 404);
    const made = await apply(`${CMS}/made`, cm('made', { a: '1' }), 'maker');
    assert.equal(made.code, 201);
    assert.ok(made.body.metadata.uid);
    const e = entry(made.body, 'maker')!;
    assert.deepEqual(
      { ...e, time: undefined },
      {
        manager: 'maker',
        operation: 'Apply',
        apiVersion: 'v1',
        time: undefined,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:a': {} } },
      },
    );
    assert.match(e.time!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const again = await apply(`${CMS}/made`, cm('made', { a: '2' }), 'maker');
    assert.equal(again.code, 200);
    assert.equal(again.body.data?.['a'], '2');
  });

  it('an apply to the status of a missing object is a 404, not a create', async () => {
    const r = await apply(
      '/api/v1/nodes/no-such-node/status',
      { apiVersion: 'v1', kind: 'Node', metadata: { name: 'no-such-node' }, status: { phase: 'Running' } },
      'm',
    );
    assert.equal(r.code, 404);
    assert.equal(r.status?.message, 'nodes "no-such-node" not found');
  });

  it('an applied object names its kind, carries no managedFields, no uid of a missing object, and only declared fields', async () => {
    const kind = await apply(`${CMS}/bad`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bad' } }, 'm');
    assert.deepEqual([kind.code, kind.status?.message], [400, 'invalid object type: /v1, Kind=Secret']);
    const mf = await apply(`${CMS}/bad`, cm('bad', {}, { metadata: { managedFields: [] } }), 'm');
    assert.deepEqual([mf.code, mf.status?.message], [400, 'metadata.managedFields must be nil']);
    const uid = await apply(`${CMS}/bad`, cm('bad', {}, { metadata: { uid: 'u-1' } }), 'm');
    assert.deepEqual(
      [uid.code, uid.status?.message],
      [
        409,
        'Operation cannot be fulfilled on configmaps "bad": uid mismatch: the provided object specified uid u-1, and no existing object was found',
      ],
    );
    const unknown = await apply(`${CMS}/bad`, cm('bad', {}, { spec: { x: 1 } }), 'm');
    assert.deepEqual(
      [unknown.code, unknown.status?.message],
      [500, 'failed to create typed patch object (/bad; /v1, Kind=ConfigMap): .spec: field not declared in schema'],
    );
    const keyless = await apply(
      '/api/v1/nodes/bad',
      { apiVersion: 'v1', kind: 'Node', metadata: { name: 'bad' }, status: { conditions: [{ status: 'True' }] } },
      'm',
    );
    assert.equal(keyless.code, 500);
    assert.equal(
      keyless.status?.message,
      'failed to create typed patch object (/bad; /v1, Kind=Node): .status.conditions: element 0: associative list with keys has an element that omits all key fields ["type"] (and doesn\'t have default values for any key fields)',
    );
    const twice = await apply(
      '/api/v1/nodes/bad',
      {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'bad' },
        status: {
          addresses: [
            { type: 'A', address: '1' },
            { type: 'A', address: '2' },
          ],
        },
      },
      'm',
    );
    assert.equal(
      twice.status?.message,
      'failed to create typed patch object (/bad; /v1, Kind=Node): .status.addresses: duplicate entries for key [type="A"]',
    );
    assert.equal((await call('GET', `${CMS}/bad`)).code, 404);
  });

  it('a conflict is a 409 whose causes name each field and its manager', async () => {
    await apply(`${CMS}/clash`, cm('clash', { a: '1', b: '1' }), 'first');
    const r = await apply(`${CMS}/clash`, cm('clash', { a: '2', b: '2' }), 'second');
    assert.equal(r.code, 409);
    assert.equal(r.status?.reason, 'Conflict');
    assert.equal(r.status?.message, 'Apply failed with 2 conflicts: conflicts with "first":\n- .data.a\n- .data.b');
    assert.deepEqual(r.status?.details?.causes, [
      { reason: 'FieldManagerConflict', message: 'conflict with "first"', field: '.data.a' },
      { reason: 'FieldManagerConflict', message: 'conflict with "first"', field: '.data.b' },
    ]);
  });

  it('a repeated key in an applied YAML document: Strict refuses it, Warn warns', async () => {
    const doc = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml\ndata:\n  a: "1"\n  a: "2"\n';
    const strict = await apply(`${CMS}/yaml`, doc, 'm', { fieldValidation: 'Strict' });
    assert.equal(strict.code, 400);
    assert.match(strict.status?.message ?? '', /^error strict decoding YAML: .*Map keys must be unique/);
    const warn = await apply(`${CMS}/yaml`, doc, 'm');
    assert.equal(warn.code, 201);
    assert.equal(warn.body.data?.['a'], '2');
    assert.equal(warn.warnings.length, 1);
    assert.match(warn.warnings[0]!, /Map keys must be unique/);
  });
});

describe('managedFields', () => {
  it('an empty list, or one empty entry, resets them; a write that leaves them out keeps them', async () => {
    await call('POST', CMS, { body: cm('reset', { a: '1' }), query: { fieldManager: 'maker' } });
    const kept = await call('PUT', `${CMS}/reset`, {
      body: cm('reset', { a: '1', b: '2' }),
      query: { fieldManager: 'editor' },
    });
    assert.deepEqual(managers(kept.body), ['editor/Update', 'maker/Update']);
    const cleared = await call('PATCH', `${CMS}/reset`, {
      body: { metadata: { managedFields: [] } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(cleared.body.metadata.managedFields, undefined);
    // An object no one manages is not tracked by updates…
    const untracked = await call('PATCH', `${CMS}/reset`, {
      body: { data: { c: '3' } },
      contentType: 'application/merge-patch+json',
      query: { fieldManager: 'editor' },
    });
    assert.equal(untracked.body.metadata.managedFields, undefined);
    // …until an apply, which first records what is there for "before-first-apply".
    const applied = await apply(`${CMS}/reset`, cm('reset', { d: '4' }), 'applier');
    assert.deepEqual(managers(applied.body), ['applier/Apply', 'before-first-apply/Update']);
    assert.deepEqual(entry(applied.body, 'before-first-apply')?.fieldsV1, {
      'f:data': { '.': {}, 'f:a': {}, 'f:b': {}, 'f:c': {} },
    });
    const single = await call('PATCH', `${CMS}/reset`, {
      body: [{ op: 'replace', path: '/metadata/managedFields', value: [{}] }],
      contentType: 'application/json-patch+json',
    });
    assert.equal(single.body.metadata.managedFields, undefined);
  });

  it('a status write owns status only; a write of the main resource owns nothing of status', async () => {
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'split', labels: { a: '1' } },
      spec: { unschedulable: true },
      status: { phase: 'Pending' },
    };
    const created = await call('POST', '/api/v1/nodes', { body: node, query: { fieldManager: 'registrar' } });
    assert.deepEqual(entry(created.body, 'registrar')?.fieldsV1, {
      'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } },
      'f:spec': { 'f:unschedulable': {} },
    });
    const status = await call('PUT', '/api/v1/nodes/split/status', {
      body: { ...node, metadata: { name: 'split', labels: { a: '2' } }, spec: {}, status: { phase: 'Running' } },
      query: { fieldManager: 'agent' },
    });
    assert.equal(status.body.metadata.labels?.['a'], '1');
    assert.equal(status.body.spec?.['unschedulable'], true);
    const agent = entry(status.body, 'agent')!;
    assert.deepEqual([agent.subresource, agent.fieldsV1], ['status', { 'f:status': { 'f:phase': {} } }]);
    const main = await apply(
      '/api/v1/nodes/split',
      {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'split' },
        spec: { unschedulable: false },
        status: { phase: 'Failed' },
      },
      'ops',
      { force: 'true' },
    );
    assert.equal(main.code, 200);
    assert.equal(main.body.status?.['phase'], 'Running');
    assert.deepEqual(entry(main.body, 'ops')?.fieldsV1, { 'f:spec': { 'f:unschedulable': {} } });
    const onStatus = await apply(
      '/api/v1/nodes/split/status',
      {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'split' },
        spec: { unschedulable: true },
        status: { phase: 'Failed' },
      },
      'checker',
      { force: 'true' },
    );
    assert.equal(onStatus.body.spec?.['unschedulable'], false);
    assert.equal(onStatus.body.status?.['phase'], 'Failed');
    const checker = entry(onStatus.body, 'checker')!;
    assert.deepEqual(
      [checker.operation, checker.subresource, checker.fieldsV1],
      ['Apply', 'status', { 'f:status': { 'f:phase': {} } }],
    );
  });

  it('past ten update managers, the oldest are merged into "ancient-changes"', async () => {
    await call('POST', CMS, { body: cm('many', { k0: '0' }), query: { fieldManager: 'm0' } });
    for (let i = 1; i <= 11; i++) {
      await call('PATCH', `${CMS}/many`, {
        body: { data: { [`k${i}`]: String(i) } },
        contentType: 'application/merge-patch+json',
        query: { fieldManager: `m${i}` },
      });
    }
    const o = (await call('GET', `${CMS}/many`)).body;
    const names = (o.metadata.managedFields ?? []).map((e) => e.manager);
    assert.equal(names.length, 10);
    assert.ok(names.includes('ancient-changes'), names.join(','));
    assert.ok(names.includes('m11'));
    const ancient = entry(o, 'ancient-changes')!;
    assert.ok(Object.keys(ancient.fieldsV1['f:data'] as object).length >= 2, JSON.stringify(ancient.fieldsV1));
  });
});

describe('permissions', () => {
  let k: Kubectl;
  before(async () => {
    k = await kubectl('1.32', server.kubeconfig);
    const rbac = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: cm-patcher, namespace: default}
rules: [{apiGroups: [""], resources: [configmaps], verbs: [get, patch]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: cm-patcher, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: cm-patcher}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: patricia}]
`;
    await k.ok(['apply', '-f', '-'], { input: rbac });
    await client.create(CMS, cm('existing', { a: '1' }));
    await waitFor('patricia may patch ConfigMaps', async () =>
      (await k.run(['auth', 'can-i', 'patch', 'configmaps', '--as', 'patricia'])).stdout.trim() === 'yes'
        ? true
        : undefined,
    );
  });
  after(() => k?.cleanup());

  it('an apply that would create the object needs create as well as patch; one that changes it needs patch', async () => {
    const doc = (name: string) => JSON.stringify(cm(name, { a: '2' }));
    const create = await k.run(['apply', '--server-side', '--as', 'patricia', '-f', '-'], { input: doc('fresh') });
    assert.equal(create.code, 1);
    assert.equal(
      create.stderr.trim(),
      'Error from server (Forbidden): configmaps "fresh" is forbidden: User "patricia" cannot create resource "configmaps" in API group "" in the namespace "default"',
    );
    assert.equal((await call('GET', `${CMS}/fresh`)).code, 404);
    const change = await k.run(['apply', '--server-side', '--as', 'patricia', '--force-conflicts', '-f', '-'], {
      input: doc('existing'),
    });
    assert.equal(change.code, 0, change.stderr);
    assert.equal((await call('GET', `${CMS}/existing`)).body.data?.['a'], '2');
  });
});

describe('managedFields in the store', () => {
  it("are kept in the compact stored form and read back as kube's entries, across a restart", async () => {
    await call('PATCH', `${CMS}/stored-form`, {
      body: JSON.stringify(cm('stored-form', { a: '1', b: '2' })),
      contentType: APPLY,
      query: { fieldManager: 'gitops' },
    });
    await call('PATCH', `${CMS}/stored-form`, {
      body: { metadata: { labels: { team: 'x' } } },
      contentType: 'application/merge-patch+json',
      query: { fieldManager: 'labeller' },
    });
    const before = (await call('GET', `${CMS}/stored-form`)).body.metadata.managedFields;
    assert.equal(before?.length, 2);
    await server.stop();
    const db = new Database(join(server.dataDir, 'dkc.db'), { readonly: true, fileMustExist: true });
    let stored: unknown[];
    try {
      const row = db
        .prepare<[string], { value: Buffer }>('SELECT value FROM kv WHERE key = ?')
        .get(`${builtinKeyPrefix('', 'configmaps')}default/stored-form`);
      stored = (JSON.parse(row!.value.toString('utf8')) as { metadata: { managedFields: unknown[] } }).metadata
        .managedFields;
    } finally {
      db.close();
    }
    assert.deepEqual(
      stored.map((e) => (Array.isArray(e) ? [e[0], e[1], e[4]] : e)),
      [
        ['gitops', 'Apply', 'data*'],
        ['labeller', 'Update', 'metadata(labels*.)'],
      ],
    );
    await server.restart();
    const after = (await call('GET', `${CMS}/stored-form`)).body.metadata.managedFields;
    assert.equal(JSON.stringify(after), JSON.stringify(before));
  });
});
