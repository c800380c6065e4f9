import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, stat, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ClientError, loadKubeconfig, RestClient } from '../../src/client/index.js';
import { renderKubeconfig, writeKubeconfig, writeTokenKubeconfig } from '../../src/pki/kubeconfig.js';
import { json, makeTestPKI, ScriptedServer, type TestPKI } from './harness.js';

let dir: string;
let pki: TestPKI;
let server: ScriptedServer;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dkc-kubeconfig-'));
  pki = await makeTestPKI();
  server = new ScriptedServer(pki);
  server.handler = (req, res) => json(res, 200, { user: req.clientCN, auth: req.headers.authorization ?? '' });
  await server.start();
});
after(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

/** The fields of a written kubeconfig these tests read. */
interface WrittenKubeconfig {
  apiVersion: string;
  kind: string;
  'current-context': string;
  contexts: unknown;
  clusters: [{ name: string; cluster: { server: string; 'certificate-authority-data': string } }];
  users: [{ user: { 'client-certificate-data': string; 'client-key-data': string } }];
}

describe('writeKubeconfig → loadKubeconfig', () => {
  it('writes a v1 Config with base64 credentials that yaml parses as expected', async () => {
    const p = join(dir, 'admin.kubeconfig');
    await writeKubeconfig(p, {
      server: server.url,
      caPem: pki.ca.certPem,
      certPem: pki.client.certPem,
      keyPem: pki.client.keyPem,
    });
    assert.equal((await stat(p)).mode & 0o777, 0o600);
    const doc = parse(await readFile(p, 'utf8')) as WrittenKubeconfig;
    assert.equal(doc.apiVersion, 'v1');
    assert.equal(doc.kind, 'Config');
    assert.equal(doc['current-context'], 'admin@dkc');
    assert.deepEqual(doc.contexts, [{ name: 'admin@dkc', context: { cluster: 'dkc', user: 'admin' } }]);
    assert.equal(doc.clusters[0].name, 'dkc');
    assert.equal(doc.clusters[0].cluster.server, server.url);
    assert.equal(
      Buffer.from(doc.clusters[0].cluster['certificate-authority-data'], 'base64').toString(),
      pki.ca.certPem,
    );
    assert.equal(Buffer.from(doc.users[0].user['client-certificate-data'], 'base64').toString(), pki.client.certPem);
    assert.equal(Buffer.from(doc.users[0].user['client-key-data'], 'base64').toString(), pki.client.keyPem);
  });

  it('round-trips through loadKubeconfig into a working client', async () => {
    const p = join(dir, 'rt.kubeconfig');
    await writeKubeconfig(p, {
      server: server.url,
      caPem: pki.ca.certPem,
      certPem: pki.client.certPem,
      keyPem: pki.client.keyPem,
      user: 'tester',
      cluster: 'local',
      context: 'ctx',
      namespace: 'team-a',
    });
    const cfg = await loadKubeconfig(p);
    assert.deepEqual(cfg, {
      server: server.url,
      contextName: 'ctx',
      ca: pki.ca.certPem,
      cert: pki.client.certPem,
      key: pki.client.keyPem,
      namespace: 'team-a',
    });
    const client = new RestClient(cfg);
    try {
      assert.deepEqual(await client.get('/whoami'), { user: 'tester', auth: '' });
    } finally {
      client.close();
    }
  });

  it('loads token kubeconfigs, and tokenFile relative to the kubeconfig', async () => {
    const p = join(dir, 'token.kubeconfig');
    await writeTokenKubeconfig(p, { server: server.url, caPem: pki.ca.certPem, token: 'abc' });
    const cfg = await loadKubeconfig(p);
    assert.equal(cfg.token, 'abc');
    assert.equal(cfg.cert, undefined);

    const sub = join(dir, 'tf');
    await mkdir(sub);
    await writeFile(join(sub, 'token'), 'from-file\n');
    await writeFile(join(sub, 'ca.pem'), pki.ca.certPem);
    await writeFile(
      join(sub, 'config'),
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: c, cluster: {server: "' + server.url + '", certificate-authority: ca.pem}}]',
        'users: [{name: u, user: {tokenFile: token}}]',
        'contexts: [{name: x, context: {cluster: c, user: u}}]',
        'current-context: x',
      ].join('\n'),
    );
    const fromFiles = await loadKubeconfig(join(sub, 'config'));
    assert.equal(fromFiles.token, 'from-file');
    assert.equal(fromFiles.ca, pki.ca.certPem);
    // A token-only user presents no client certificate; the server sees the bearer token.
    const client = new RestClient(fromFiles);
    try {
      assert.deepEqual(await client.get('/whoami'), { user: '', auth: 'Bearer from-file' });
    } finally {
      client.close();
    }
  });

  it('resolves certificate file paths against the kubeconfig directory and honours --context', async () => {
    const sub = join(dir, 'paths');
    await mkdir(join(sub, 'certs'), { recursive: true });
    await writeFile(join(sub, 'certs', 'ca.crt'), pki.ca.certPem);
    await writeFile(join(sub, 'certs', 'me.crt'), pki.client.certPem);
    await writeFile(join(sub, 'certs', 'me.key'), pki.client.keyPem);
    const doc = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        { name: 'one', cluster: { server: 'https://one.invalid:6443', 'insecure-skip-tls-verify': true } },
        {
          name: 'two',
          cluster: { server: server.url, 'certificate-authority': 'certs/ca.crt', 'tls-server-name': 'localhost' },
        },
      ],
      users: [{ name: 'me', user: { 'client-certificate': 'certs/me.crt', 'client-key': 'certs/me.key' } }],
      contexts: [
        { name: 'first', context: { cluster: 'one', user: 'me' } },
        { name: 'second', context: { cluster: 'two', user: 'me' } },
      ],
      'current-context': 'first',
    };
    // JSON is YAML too; the loader reads it without the YAML parser.
    await writeFile(join(sub, 'kc.json'), JSON.stringify(doc));
    const first = await loadKubeconfig(join(sub, 'kc.json'));
    assert.equal(first.server, 'https://one.invalid:6443');
    assert.equal(first.insecureSkipTLSVerify, true);
    const second = await loadKubeconfig(join(sub, 'kc.json'), { context: 'second' });
    assert.equal(second.ca, pki.ca.certPem);
    assert.equal(second.key, pki.client.keyPem);
    assert.equal(second.tlsServerName, 'localhost');
    const client = new RestClient(second);
    try {
      assert.deepEqual(await client.get('/whoami'), { user: 'tester', auth: '' });
    } finally {
      client.close();
    }
  });

  it('reports unreadable, malformed and unsupported kubeconfigs with stable codes', async () => {
    const code = (c: string) => (e: unknown) => e instanceof ClientError && e.code === c;
    await assert.rejects(loadKubeconfig(join(dir, 'nope')), code('DKC_CLIENT_KUBECONFIG_READ'));
    const bad = join(dir, 'bad.yaml');
    await writeFile(bad, 'clusters: [\n');
    await assert.rejects(loadKubeconfig(bad), code('DKC_CLIENT_KUBECONFIG_INVALID'));
    const good = renderKubeconfig({
      server: server.url,
      caPem: pki.ca.certPem,
      certPem: pki.client.certPem,
      keyPem: pki.client.keyPem,
    });
    const p = join(dir, 'ctx.yaml');
    await writeFile(p, good);
    await assert.rejects(
      loadKubeconfig(p, { context: 'missing' }),
      (e: unknown) =>
        code('DKC_CLIENT_KUBECONFIG_INVALID')(e) && /context "missing" not found/.test((e as Error).message),
    );
    const exec = join(dir, 'exec.yaml');
    await writeFile(
      exec,
      good.replace(
        /client-certificate-data: .*\n\s*client-key-data: .*\n/,
        'exec: {command: gke-gcloud-auth-plugin}\n',
      ),
    );
    await assert.rejects(loadKubeconfig(exec), code('DKC_CLIENT_KUBECONFIG_UNSUPPORTED'));
    const missingFile = join(dir, 'missingfile.yaml');
    await writeFile(
      missingFile,
      good.replace(/certificate-authority-data: .*/, 'certificate-authority: nowhere/ca.crt'),
    );
    await assert.rejects(loadKubeconfig(missingFile), code('DKC_CLIENT_KUBECONFIG_READ'));
    const noServer = join(dir, 'noserver.yaml');
    await writeFile(noServer, good.replace(/server: .*/, 'server: ftp://x'));
    await assert.rejects(loadKubeconfig(noServer), code('DKC_CLIENT_KUBECONFIG_INVALID'));
  });
});
