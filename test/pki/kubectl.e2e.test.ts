// Proves that Go clients accept what dkc's PKI produces: real kubectl 1.32 and 1.20 (built with Go 1.19)
// read our kubeconfig, trust our CA, present our ECDSA PKCS#8 client key, and reach a TLS server that
// requires a client certificate.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createCA,
  ensureClusterPKI,
  issueCert,
  writeKubeconfig,
  writeTokenKubeconfig,
  type ClusterPKI,
} from '../../src/pki/index.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

function kubectlBinary(version: '1.20' | '1.32'): string {
  let p: string;
  if (version === '1.20') {
    p = process.env['DKC_KUBECTL_1_20'] ?? join(repoRoot, '.cache/kubernetes-client/usr/bin/kubectl');
  } else {
    const dispatcher = execFileSync('bash', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).trim();
    p = process.env['DKC_KUBECTL_1_32'] ?? join(dirname(realpathSync(dispatcher)), 'kubectl.1.32');
  }
  assert.ok(existsSync(p), `kubectl ${version} not found at ${p} (scripts/test-deps.sh installs 1.20)`);
  return p;
}

const VERSION_BODY = { major: '1', minor: '22', gitVersion: 'v1.22.0' };

let dir: string;
let pki: ClusterPKI;
let server: https.Server;
let port: number;
const seen: { path: string; cn: string; auth: string }[] = [];

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dkc-kubectl-pki-'));
  pki = await ensureClusterPKI(join(dir, 'pki'));
  server = https.createServer(
    {
      cert: pki.apiserver.certPem,
      key: pki.apiserver.keyPem,
      ca: pki.ca.certPem,
      requestCert: true,
      rejectUnauthorized: false,
    },
    (req, res) => {
      const sock = req.socket as import('node:tls').TLSSocket;
      const cn = sock.authorized ? String(sock.getPeerCertificate().subject.CN) : '';
      seen.push({ path: req.url ?? '', cn, auth: req.headers.authorization ?? '' });
      if (!cn && req.headers.authorization !== 'Bearer s3cret') {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            reason: 'Unauthorized',
            message: 'Unauthorized',
            code: 401,
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(VERSION_BODY));
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  await rm(dir, { recursive: true, force: true });
});

/** Runs kubectl without blocking the event loop (the server under test lives in this process). */
function run(bin: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolveRun) => {
    execFile(
      bin,
      args,
      { env: { ...process.env, HOME: dir, KUBECONFIG: '' }, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolveRun({ code, stdout, stderr });
      },
    );
  });
}

for (const version of ['1.32', '1.20'] as const) {
  describe(`kubectl ${version}`, () => {
    it('uses the admin kubeconfig (ECDSA PKCS#8 client key) to GET /version over mutual TLS', async () => {
      const bin = kubectlBinary(version);
      const kc = join(dir, `admin-${version}.kubeconfig`);
      await writeKubeconfig(kc, {
        server: `https://127.0.0.1:${port}`,
        caPem: pki.ca.certPem,
        certPem: pki.admin.certPem,
        keyPem: pki.admin.keyPem,
      });
      const before = seen.length;
      const r = await run(bin, [
        '--kubeconfig',
        kc,
        '--cache-dir',
        join(dir, `cache-${version}`),
        'get',
        '--raw',
        '/version',
      ]);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout), VERSION_BODY);
      assert.deepEqual(seen.slice(before), [{ path: '/version', cn: 'admin', auth: '' }]);
    });

    it('verifies the server against the CA of the kubeconfig, by hostname too', async () => {
      const bin = kubectlBinary(version);
      const kc = join(dir, `localhost-${version}.kubeconfig`);
      await writeKubeconfig(kc, {
        server: `https://localhost:${port}`,
        caPem: pki.ca.certPem,
        certPem: pki.admin.certPem,
        keyPem: pki.admin.keyPem,
      });
      const ok = await run(bin, [
        '--kubeconfig',
        kc,
        '--cache-dir',
        join(dir, `cache-${version}`),
        'get',
        '--raw',
        '/version',
      ]);
      assert.equal(ok.code, 0, ok.stderr);

      const stranger = await createCA('stranger-ca');
      const bad = join(dir, `bad-ca-${version}.kubeconfig`);
      await writeKubeconfig(bad, {
        server: `https://127.0.0.1:${port}`,
        caPem: stranger.certPem,
        certPem: pki.admin.certPem,
        keyPem: pki.admin.keyPem,
      });
      const r = await run(bin, [
        '--kubeconfig',
        bad,
        '--cache-dir',
        join(dir, `cache-${version}`),
        'get',
        '--raw',
        '/version',
      ]);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /x509: certificate signed by unknown authority|certificate is not trusted/);
    });

    it('uses a token kubeconfig, and a client certificate from another CA is not trusted', async () => {
      const bin = kubectlBinary(version);
      const kc = join(dir, `token-${version}.kubeconfig`);
      await writeTokenKubeconfig(kc, {
        server: `https://127.0.0.1:${port}`,
        caPem: pki.ca.certPem,
        token: 's3cret',
        user: 'robot',
      });
      const before = seen.length;
      const r = await run(bin, [
        '--kubeconfig',
        kc,
        '--cache-dir',
        join(dir, `cache-${version}`),
        'get',
        '--raw',
        '/version',
      ]);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(seen.slice(before), [{ path: '/version', cn: '', auth: 'Bearer s3cret' }]);

      const foreign = await issueCert(await createCA('foreign-ca'), {
        commonName: 'admin',
        organizations: ['system:masters'],
        usages: ['client'],
      });
      const fk = join(dir, `foreign-${version}.kubeconfig`);
      await writeKubeconfig(fk, {
        server: `https://127.0.0.1:${port}`,
        caPem: pki.ca.certPem,
        certPem: foreign.certPem,
        keyPem: foreign.keyPem,
      });
      const denied = await run(bin, [
        '--kubeconfig',
        fk,
        '--cache-dir',
        join(dir, `cache-${version}`),
        'get',
        '--raw',
        '/version',
      ]);
      assert.notEqual(denied.code, 0);
      assert.match(denied.stderr, /Unauthorized/);
    });
  });
}
