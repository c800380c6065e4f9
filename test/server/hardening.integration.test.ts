// Hostile or malformed requests against a real server process: one request must never end the server (a response
// that cannot be rendered — YAML of a value nested thousands deep overflows the renderer's stack — is a 500 Status
// while the process keeps serving), and what upstream would refuse is refused with its Status.

import assert from 'node:assert/strict';
import { request } from 'node:https';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureClusterPKI, issueCert, type CertKeyPem } from '../../src/pki/index.js';
import { startServer, type RunningServer } from '../helpers/server.js';

let server: RunningServer;
let caPem: string;
let admin: CertKeyPem;
let node: CertKeyPem;

function send(
  path: string,
  cert: CertKeyPem,
  body: unknown,
  accept: string,
  opts: { method?: string; headers?: Record<string, string>; raw?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(path, server.url);
    const method = opts.method ?? (body === undefined && opts.raw === undefined ? 'GET' : 'POST');
    const headers = { accept, 'content-type': 'application/json', ...(opts.headers ?? {}) };
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method,
        ca: caPem,
        cert: cert.certPem,
        key: cert.keyPem,
        headers,
        timeout: 10_000,
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.end(opts.raw ?? (body === undefined ? undefined : JSON.stringify(body)));
  });
}

function nested(depth: number): unknown {
  let v: unknown = 'x';
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

before(async () => {
  server = await startServer();
  const pki = await ensureClusterPKI(join(server.dataDir, 'pki'));
  caPem = pki.ca.certPem;
  admin = pki.admin;
  node = await issueCert(
    { certPem: pki.ca.certPem, keyPem: pki.ca.keyPem! },
    { commonName: 'system:node:n1', organizations: ['system:nodes'], usages: ['client'] },
  );
});

after(async () => {
  await server?.cleanup();
});

describe('a request whose answer cannot be rendered', () => {
  it('a node asking a SelfSubjectAccessReview nested 2,000 deep, as YAML, does not stop the server', async () => {
    const review = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      metadata: { name: 'x' },
      spec: { resourceAttributes: { verb: 'get', resource: 'nodes' }, extra: nested(2000) },
    };
    for (let i = 0; i < 3; i++) {
      const r = await send('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', node, review, 'application/yaml');
      assert.ok(
        r.status === 500 || r.status === 400 || r.status === 201,
        `status ${r.status}: ${r.body.slice(0, 200)}`,
      );
      if (r.status === 500) assert.equal((JSON.parse(r.body) as { kind: string }).kind, 'Status');
    }
    const list = await send('/api/v1/nodes', admin, undefined, 'application/json');
    assert.equal(list.status, 200);
    assert.equal((JSON.parse(list.body) as { kind: string }).kind, 'NodeList');
    assert.equal(server.proc.exitCode, null);
  });

  it('a dry-run create nested 2,000 deep, as YAML, does not stop the server', async () => {
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'deep', annotations: { a: 'b' } },
      data: { k: nested(2000) },
    };
    const r = await send('/api/v1/namespaces/default/configmaps?dryRun=All', admin, cm, 'application/yaml');
    assert.ok(r.status >= 400, `status ${r.status}`);
    const list = await send('/api/v1/nodes', admin, undefined, 'application/json');
    assert.equal(list.status, 200);
    assert.equal(server.proc.exitCode, null);
  });
});

describe('a YAML body at the size limit', () => {
  it('3 MiB of nested flow maps in a SelfSubjectAccessReview from a node is a 400 at once and the server keeps answering', async () => {
    const levels = Math.floor((3 * 1024 * 1024 - 1024) / 4);
    const raw = 'apiVersion: authorization.k8s.io/v1\nkind: SelfSubjectAccessReview\nspec: ' + '{a: '.repeat(levels);
    const yaml = { 'content-type': 'application/yaml' };
    const t0 = performance.now();
    const r = await send(
      '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      node,
      undefined,
      'application/json',
      {
        headers: yaml,
        raw,
      },
    );
    assert.equal(r.status, 400, r.body.slice(0, 200));
    assert.equal(
      (JSON.parse(r.body) as { message: string }).message,
      'the body of the request is nested more than 500 levels deep',
    );
    assert.ok(performance.now() - t0 < 5000, `answered after ${(performance.now() - t0).toFixed(0)} ms`);
    assert.equal((await send('/healthz', admin, undefined, 'text/plain')).status, 200);
    assert.equal(server.proc.exitCode, null);
  });
});

describe('Node create', () => {
  it('refuses a configSource that update would refuse (a key that walks out of the checkpoint directory)', async () => {
    const body = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'evil' },
      spec: {
        configSource: { configMap: { name: 'c', namespace: 'kube-system', kubeletConfigKey: '../../../etc/passwd' } },
      },
    };
    const r = await send('/api/v1/nodes', admin, body, 'application/json');
    assert.equal(r.status, 422, r.body);
    const st = JSON.parse(r.body) as { reason: string; message: string };
    assert.equal(st.reason, 'Invalid');
    assert.match(
      st.message,
      /^Node "evil" is invalid: \[spec\.configSource\.configMap\.kubeletConfigKey: Invalid value: "\.\.\/\.\.\/\.\.\/etc\/passwd"/,
    );
    assert.equal((await send('/api/v1/nodes/evil', admin, undefined, 'application/json')).status, 404);
  });
});

describe('small deviations from kube-apiserver', () => {
  const cms = '/api/v1/namespaces/default/configmaps';
  const status = (r: { body: string }) => JSON.parse(r.body) as { kind: string; reason: string; message: string };

  it('a limit beyond int64 is a 400, not a 500', async () => {
    const r = await send(`${cms}?limit=99999999999999999999`, admin, undefined, 'application/json');
    assert.equal(r.status, 400, r.body);
    assert.match(
      status(r).message,
      /^limit: Invalid value: "99999999999999999999": strconv\.ParseInt: .*value out of range$/,
    );
  });

  it('a list resourceVersion that is not a number is a 400', async () => {
    for (const rv of ['abc', '-5', '1.5']) {
      const r = await send(`${cms}?resourceVersion=${rv}`, admin, undefined, 'application/json');
      assert.equal(r.status, 400, `${rv}: ${r.body}`);
      assert.equal(status(r).reason, 'BadRequest');
      assert.match(status(r).message, new RegExp(`^resourceVersion: Invalid value: "${rv.replace('.', '\\.')}"`));
    }
    const bad = await send(
      `${cms}?resourceVersion=1&resourceVersionMatch=Newest`,
      admin,
      undefined,
      'application/json',
    );
    assert.equal(bad.status, 400, bad.body);
  });

  it('an exact list at a resourceVersion from the future is 504 Too large resource version', async () => {
    const list = JSON.parse((await send(cms, admin, undefined, 'application/json')).body) as {
      metadata: { resourceVersion: string };
    };
    const future = Number(list.metadata.resourceVersion) + 1000;
    const r = await send(
      `${cms}?resourceVersion=${future}&resourceVersionMatch=Exact`,
      admin,
      undefined,
      'application/json',
    );
    assert.equal(r.status, 504, r.body);
    assert.equal(status(r).reason, 'Timeout');
    assert.match(status(r).message, /Too large resource version/);
    // An exact list at a past revision shows the state of then.
    const created = JSON.parse(
      (await send(cms, admin, { metadata: { name: 'then' }, data: { v: '1' } }, 'application/json')).body,
    ) as { metadata: { resourceVersion: string } };
    await send(`${cms}/then`, admin, { data: { v: '2' } }, 'application/json', {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    const then = JSON.parse(
      (
        await send(
          `${cms}?resourceVersion=${created.metadata.resourceVersion}&resourceVersionMatch=Exact`,
          admin,
          undefined,
          'application/json',
        )
      ).body,
    ) as { items: { metadata: { name: string }; data: { v: string } }[] };
    assert.equal(then.items.find((i) => i.metadata.name === 'then')?.data.v, '1');
  });

  it('a malformed Impersonate-Extra- key is taken as sent, not a 500', async () => {
    const r = await send('/api/v1/namespaces', admin, undefined, 'application/json', {
      headers: { 'Impersonate-User': 'someone', 'Impersonate-Extra-%zz': 'v' },
    });
    assert.notEqual(r.status, 500, r.body);
    assert.equal(r.status, 403, r.body); // someone holds no rights; the request got as far as authorization
  });

  it('a strategic "$patch: delete" at the root is refused, and the ConfigMap keeps its data', async () => {
    await send(cms, admin, { metadata: { name: 'keep' }, data: { a: 'b' } }, 'application/json');
    const r = await send(`${cms}/keep`, admin, { $patch: 'delete' }, 'application/json', {
      method: 'PATCH',
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
    });
    assert.equal(r.status, 400, r.body);
    assert.equal(status(r).message, 'the name of the object () does not match the name on the URL (keep)');
    const cm = JSON.parse((await send(`${cms}/keep`, admin, undefined, 'application/json')).body) as {
      data: Record<string, string>;
    };
    assert.deepEqual(cm.data, { a: 'b' });
  });

  it('the legacy /api/v1/watch/... paths are watches', async () => {
    await send(cms, admin, { metadata: { name: 'legacy' }, data: { a: 'b' } }, 'application/json');
    const one = await send(
      '/api/v1/watch/namespaces/default/configmaps/legacy?timeoutSeconds=1',
      admin,
      undefined,
      'application/json',
    );
    assert.equal(one.status, 200, one.body);
    const events = one.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; object: { metadata: { name: string } } });
    assert.deepEqual(
      events.map((e) => [e.type, e.object.metadata.name]),
      [['ADDED', 'legacy']],
    );
    const all = await send('/api/v1/watch/nodes?timeoutSeconds=1', admin, undefined, 'application/json');
    assert.equal(all.status, 200, all.body);
    assert.doesNotMatch(all.body, /NodeList/);
  });
});

describe('request bodies decoded into the served types', () => {
  const cms = '/api/v1/namespaces/default/configmaps';
  const cases: [string, unknown, string][] = [
    [
      'data as an array',
      { metadata: { name: 't1' }, data: [1, 2] },
      'json: cannot unmarshal array into Go struct field ConfigMap.data of type map[string]string',
    ],
    [
      'a data value as a number',
      { metadata: { name: 't2' }, data: { a: 5 } },
      'json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
    ],
    [
      'labels as a string',
      { metadata: { name: 't3', labels: 'a' } },
      'json: cannot unmarshal string into Go struct field ObjectMeta.metadata.labels of type map[string]string',
    ],
    [
      'a label value as an object',
      { metadata: { name: 't4', labels: { a: { b: 1 } } } },
      'json: cannot unmarshal object into Go struct field ObjectMeta.metadata.labels of type string',
    ],
    [
      'immutable as a string',
      { metadata: { name: 't5' }, immutable: 'yes' },
      'json: cannot unmarshal string into Go struct field ConfigMap.immutable of type bool',
    ],
  ];
  for (const [what, body, message] of cases) {
    it(`${what} → 400, nothing stored`, async () => {
      const r = await send(cms, admin, body, 'application/json');
      assert.equal(r.status, 400, r.body);
      const st = JSON.parse(r.body) as { reason: string; message: string };
      assert.equal(st.reason, 'BadRequest');
      assert.equal(st.message, `ConfigMap in version "v1" cannot be handled as a ConfigMap: ${message}`);
      const name = (body as { metadata: { name: string } }).metadata.name;
      assert.equal((await send(`${cms}/${name}`, admin, undefined, 'application/json')).status, 404);
    });
  }

  it('a patch whose result has the wrong types is refused too', async () => {
    await send(cms, admin, { metadata: { name: 'typed' }, data: { a: 'b' } }, 'application/json');
    const r = await send(`${cms}/typed`, admin, { data: { a: 5 } }, 'application/json', {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(r.status, 400, r.body);
    const node = await send(
      '/api/v1/nodes',
      admin,
      { metadata: { name: 'typed-node' }, spec: { unschedulable: 'no' } },
      'application/json',
    );
    assert.equal(node.status, 400, node.body);
    assert.match(node.body, /cannot unmarshal string into Go struct field NodeSpec\.spec\.unschedulable of type bool/);
  });

  it('a body nested 100,000 deep is a 400, not a 500', async () => {
    const deep = '{"metadata":{"name":"deep"},"data":' + '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000) + '}';
    const r = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const u = new URL(cms, server.url);
      const req = request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: 'POST',
          ca: caPem,
          cert: admin.certPem,
          key: admin.keyPem,
          headers: { 'content-type': 'application/json' },
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.end(deep);
    });
    assert.equal(r.status, 400, r.body.slice(0, 300));
    assert.equal(server.proc.exitCode, null);
  });
});

describe('RBAC bodies are decoded against their types too', () => {
  it('a Role whose rules are a string is a 400 and is not stored', async () => {
    const path = '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles';
    const r = await send(
      path,
      admin,
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'bad' }, rules: 'all' },
      'application/json',
    );
    assert.equal(r.status, 400, r.body);
    assert.match(
      r.body,
      /Role in version \\"v1\\" cannot be handled as a Role: json: cannot unmarshal string into Go struct field Role\.rules of type \[\]v1\.PolicyRule/,
    );
    assert.equal((await send(`${path}/bad`, admin, undefined, 'application/json')).status, 404);
  });
});
