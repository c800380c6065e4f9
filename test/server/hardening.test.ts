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

function send(path: string, cert: CertKeyPem, body: unknown, accept: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(path, server.url);
    const req = request(
      { host: u.hostname, port: u.port, path: u.pathname + u.search, method: body === undefined ? 'GET' : 'POST', ca: caPem, cert: cert.certPem, key: cert.keyPem, headers: { accept, 'content-type': 'application/json' }, timeout: 10_000 },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.end(body === undefined ? undefined : JSON.stringify(body));
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
  node = await issueCert({ certPem: pki.ca.certPem, keyPem: pki.ca.keyPem! }, { commonName: 'system:node:n1', organizations: ['system:nodes'], usages: ['client'] });
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
      assert.ok(r.status === 500 || r.status === 400 || r.status === 201, `status ${r.status}: ${r.body.slice(0, 200)}`);
      if (r.status === 500) assert.equal((JSON.parse(r.body) as { kind: string }).kind, 'Status');
    }
    const list = await send('/api/v1/nodes', admin, undefined, 'application/json');
    assert.equal(list.status, 200);
    assert.equal((JSON.parse(list.body) as { kind: string }).kind, 'NodeList');
    assert.equal(server.proc.exitCode, null);
  });

  it('a dry-run create nested 2,000 deep, as YAML, does not stop the server', async () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'deep', annotations: { a: 'b' } }, data: { k: nested(2000) } };
    const r = await send('/api/v1/namespaces/default/configmaps?dryRun=All', admin, cm, 'application/yaml');
    assert.ok(r.status >= 400, `status ${r.status}`);
    const list = await send('/api/v1/nodes', admin, undefined, 'application/json');
    assert.equal(list.status, 200);
    assert.equal(server.proc.exitCode, null);
  });
});

describe('Node create', () => {
  it('refuses a configSource that update would refuse (a key that walks out of the checkpoint directory)', async () => {
    const body = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'evil' },
      spec: { configSource: { configMap: { name: 'c', namespace: 'kube-system', kubeletConfigKey: '../../../etc/passwd' } } },
    };
    const r = await send('/api/v1/nodes', admin, body, 'application/json');
    assert.equal(r.status, 422, r.body);
    const st = JSON.parse(r.body) as { reason: string; message: string };
    assert.equal(st.reason, 'Invalid');
    assert.match(st.message, /^Node "evil" is invalid: \[spec\.configSource\.configMap\.kubeletConfigKey: Invalid value: "\.\.\/\.\.\/\.\.\/etc\/passwd"/);
    assert.equal((await send('/api/v1/nodes/evil', admin, undefined, 'application/json')).status, 404);
  });
});
