import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import '../../src/pki/reflect.js';
import * as x509 from '@peculiar/x509';
import {
  createCA,
  ensureClusterPKI,
  issueCert,
  parseCertIdentity,
  PkiError,
  selfSignedServing,
  type CertKeyPem,
} from '../../src/pki/index.js';

const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dkc-pki-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function peculiar(pem: string): x509.X509Certificate {
  return new x509.X509Certificate(pem);
}

function sans(pem: string): string[] {
  return (new X509Certificate(pem).subjectAltName ?? '').split(', ').filter(Boolean);
}

describe('createCA / issueCert', () => {
  let ca: CertKeyPem;
  before(async () => {
    ca = await createCA('unit-ca');
  });

  it('creates a 10-year self-signed CA with CA constraints, cert-signing usage and a subject key id', () => {
    const c = new X509Certificate(ca.certPem);
    assert.equal(c.ca, true);
    assert.equal(c.subject, 'CN=unit-ca');
    assert.ok(c.checkIssued(c));
    assert.ok(c.verify(c.publicKey));
    const years = (Date.parse(c.validTo) - Date.now()) / (365 * 86_400_000);
    assert.ok(years > 9.9 && years < 10.1, `CA validity ${years} years`);
    const p = peculiar(ca.certPem);
    const bc = p.getExtension(x509.BasicConstraintsExtension)!;
    assert.equal(bc.ca, true);
    assert.equal(bc.critical, true);
    const ku = p.getExtension(x509.KeyUsagesExtension)!;
    assert.ok(ku.usages & x509.KeyUsageFlags.keyCertSign);
    assert.ok(ku.usages & x509.KeyUsageFlags.cRLSign);
    assert.ok(p.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId);
  });

  it('writes keys as PKCS#8 ECDSA P-256 and signs with SHA-256', () => {
    assert.match(ca.keyPem, /^-----BEGIN PRIVATE KEY-----\n/);
    const k = createPrivateKey(ca.keyPem);
    assert.equal(k.asymmetricKeyType, 'ec');
    assert.equal(k.asymmetricKeyDetails?.namedCurve, 'prime256v1');
    assert.deepEqual(peculiar(ca.certPem).signatureAlgorithm, { name: 'ECDSA', hash: { name: 'SHA-256' } });
  });

  it('issues a serving certificate with SANs, serverAuth, and the CA as issuer', async () => {
    const leaf = await issueCert(ca, {
      commonName: 'server',
      dnsNames: ['localhost', 'api.example'],
      ipAddresses: ['127.0.0.1', '::1', '10.0.0.7'],
      usages: ['server'],
    });
    const c = new X509Certificate(leaf.certPem);
    const caCert = new X509Certificate(ca.certPem);
    assert.equal(c.ca, false);
    assert.ok(c.checkIssued(caCert));
    assert.ok(c.verify(caCert.publicKey));
    assert.ok(!c.verify(new X509Certificate((await createCA('other')).certPem).publicKey));
    assert.ok(c.checkPrivateKey(createPrivateKey(leaf.keyPem)));
    assert.deepEqual(c.keyUsage, [SERVER_AUTH]);
    assert.deepEqual(sans(leaf.certPem), [
      'DNS:localhost',
      'DNS:api.example',
      'IP Address:127.0.0.1',
      'IP Address:0:0:0:0:0:0:0:1',
      'IP Address:10.0.0.7',
    ]);
    assert.ok(c.checkHost('api.example'));
    assert.ok(c.checkIP('::1'));
    const days = (Date.parse(c.validTo) - Date.now()) / 86_400_000;
    assert.ok(days > 364 && days < 366, `leaf validity ${days} days`);
    const aki = peculiar(leaf.certPem).getExtension(x509.AuthorityKeyIdentifierExtension)!;
    assert.equal(aki.keyId, peculiar(ca.certPem).getExtension(x509.SubjectKeyIdentifierExtension)!.keyId);
  });

  it('issues client certificates whose subject carries the user (CN) and groups (O)', async () => {
    const leaf = await issueCert(ca, {
      commonName: 'alice',
      organizations: ['system:masters', 'dev'],
      usages: ['client'],
      days: 7,
    });
    const c = new X509Certificate(leaf.certPem);
    assert.deepEqual(c.keyUsage, [CLIENT_AUTH]);
    assert.equal(c.subjectAltName, undefined);
    assert.deepEqual(parseCertIdentity(leaf.certPem), {
      commonName: 'alice',
      organizations: ['system:masters', 'dev'],
    });
    assert.deepEqual(parseCertIdentity(new Uint8Array(c.raw)), {
      commonName: 'alice',
      organizations: ['system:masters', 'dev'],
    });
    const days = (Date.parse(c.validTo) - Date.now()) / 86_400_000;
    assert.ok(days > 6.9 && days < 7.1);
  });

  it('supports both usages in one certificate and random serials', async () => {
    const a = await issueCert(ca, { commonName: 'both', usages: ['server', 'client'], dnsNames: ['x'] });
    const b = await issueCert(ca, { commonName: 'both', usages: ['server', 'client'], dnsNames: ['x'] });
    assert.deepEqual(new X509Certificate(a.certPem).keyUsage, [SERVER_AUTH, CLIENT_AUTH]);
    assert.notEqual(new X509Certificate(a.certPem).serialNumber, new X509Certificate(b.certPem).serialNumber);
  });

  it('rejects bad arguments with PKI_INVALID_ARGUMENT and bad PEM with PKI_INVALID_PEM', async () => {
    await assert.rejects(
      issueCert(ca, { commonName: 'x', ipAddresses: ['not-an-ip'], usages: ['server'] }),
      (e: unknown) => {
        assert.ok(e instanceof PkiError);
        assert.equal(e.code, 'DKC_PKI_INVALID_ARGUMENT');
        return true;
      },
    );
    await assert.rejects(issueCert(ca, { commonName: '', usages: ['client'] }), { code: 'DKC_PKI_INVALID_ARGUMENT' });
    await assert.rejects(issueCert(ca, { commonName: 'x', usages: [] }), { code: 'DKC_PKI_INVALID_ARGUMENT' });
    await assert.rejects(issueCert({ certPem: 'junk', keyPem: ca.keyPem }, { commonName: 'x', usages: ['client'] }), {
      code: 'DKC_PKI_INVALID_PEM',
    });
    await assert.rejects(issueCert({ certPem: ca.certPem, keyPem: 'junk' }, { commonName: 'x', usages: ['client'] }), {
      code: 'DKC_PKI_INVALID_PEM',
    });
    assert.throws(() => parseCertIdentity('nothing here'), { code: 'DKC_PKI_INVALID_PEM' });
  });

  it('signs with an existing RSA CA', async () => {
    const alg = {
      name: 'RSASSA-PKCS1-v1_5',
      hash: 'SHA-256',
      publicExponent: new Uint8Array([1, 0, 1]),
      modulusLength: 2048,
    };
    const keys = await crypto.subtle.generateKey(alg, true, ['sign', 'verify']);
    const rsaCa = await x509.X509CertificateGenerator.createSelfSigned({
      name: 'CN=rsa-ca',
      keys,
      signingAlgorithm: alg,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ],
    });
    const keyPem = x509.PemConverter.encode(await crypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY');
    const leaf = await issueCert({ certPem: rsaCa.toString('pem'), keyPem }, { commonName: 'n', usages: ['client'] });
    assert.ok(new X509Certificate(leaf.certPem).verify(new X509Certificate(rsaCa.toString('pem')).publicKey));
  });
});

describe('selfSignedServing', () => {
  it('returns the leaf followed by its throwaway CA, valid for the given names', async () => {
    const now = new Date();
    const s = await selfSignedServing(['node-1', 'node-1.local'], ['127.0.0.1']);
    const blocks = s.certPem.match(/-----BEGIN CERTIFICATE-----/g) ?? [];
    assert.equal(blocks.length, 2);
    assert.ok(s.certPem.endsWith(s.caPem));
    const leaf = new X509Certificate(s.certPem);
    const ca = new X509Certificate(s.caPem);
    assert.ok(leaf.verify(ca.publicKey));
    assert.equal(leaf.subject, `CN=node-1@${Math.floor(now.getTime() / 1000)}`);
    assert.equal(ca.subject, `CN=node-1-ca@${Math.floor(now.getTime() / 1000)}`);
    assert.deepEqual(sans(s.certPem), ['DNS:node-1', 'DNS:node-1.local', 'IP Address:127.0.0.1']);
    assert.deepEqual(leaf.keyUsage, [SERVER_AUTH]);
  });

  it('serves HTTPS that a client pinning the returned CA accepts', async () => {
    const s = await selfSignedServing(['localhost'], ['127.0.0.1']);
    const server = https.createServer({ cert: s.certPem, key: s.keyPem }, (_req, res) => res.end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const body = await new Promise<string>((resolve, reject) => {
        https
          .get({ host: '127.0.0.1', port, path: '/', ca: s.caPem, agent: false }, (res) => {
            let t = '';
            res.on('data', (d: Buffer) => (t += d.toString()));
            res.on('end', () => resolve(t));
          })
          .on('error', reject);
      });
      assert.equal(body, 'ok');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('needs at least one name', async () => {
    await assert.rejects(selfSignedServing([], []), { code: 'DKC_PKI_INVALID_ARGUMENT' });
  });
});

describe('mutual TLS with issued certificates', () => {
  let server: https.Server;
  let port: number;
  let ca: CertKeyPem;
  let client: CertKeyPem;
  let foreign: CertKeyPem;
  const seen: string[] = [];

  before(async () => {
    ca = await createCA('mtls-ca');
    const serving = await issueCert(ca, {
      commonName: 'srv',
      dnsNames: ['localhost'],
      ipAddresses: ['127.0.0.1'],
      usages: ['server'],
    });
    client = await issueCert(ca, { commonName: 'bob', organizations: ['ops'], usages: ['client'] });
    foreign = await issueCert(await createCA('evil-ca'), { commonName: 'mallory', usages: ['client'] });
    server = https.createServer(
      { cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: true },
      (req, res) => {
        const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
        seen.push(`${String(peer.subject.CN)}/${String(peer.subject.O)}`);
        res.end('hello');
      },
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  function get(pair: CertKeyPem | undefined): Promise<string> {
    return new Promise((resolve, reject) => {
      const opts: https.RequestOptions = { host: '127.0.0.1', port, path: '/', ca: ca.certPem, agent: false };
      if (pair) {
        opts.cert = pair.certPem;
        opts.key = pair.keyPem;
      }
      https
        .get(opts, (res) => {
          let t = '';
          res.on('data', (d: Buffer) => (t += d.toString()));
          res.on('end', () => resolve(t));
          res.on('error', reject);
        })
        .on('error', reject);
    });
  }

  it('accepts a client certificate from the CA and exposes its CN and O', async () => {
    assert.equal(await get(client), 'hello');
    assert.deepEqual(seen, ['bob/ops']);
  });

  it('rejects a client certificate from another CA, and no certificate at all', async () => {
    await assert.rejects(get(foreign));
    await assert.rejects(get(undefined));
    assert.deepEqual(seen, ['bob/ops']);
  });
});

describe('ensureClusterPKI', () => {
  const FILES = [
    'admin.crt',
    'admin.key',
    'apiserver-kubelet-client.crt',
    'apiserver-kubelet-client.key',
    'apiserver.crt',
    'apiserver.key',
    'ca.crt',
    'ca.key',
  ];

  async function snapshot(d: string): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const f of FILES) out[f] = await readFile(join(d, f), 'utf8');
    return out;
  }

  it('creates the CA and the three pairs on first use, keys readable by the owner only', async () => {
    const d = join(dir, 'first');
    const pki = await ensureClusterPKI(d, { hostnames: ['api.dkc.test'], ips: ['192.0.2.10'] });
    assert.deepEqual((await readdir(d)).sort(), FILES);
    assert.deepEqual([...pki.created].sort(), FILES);
    for (const f of FILES) {
      const mode = (await stat(join(d, f))).mode & 0o777;
      assert.equal(mode, f.endsWith('.key') ? 0o600 : 0o644, f);
    }
    const caCert = new X509Certificate(pki.ca.certPem);
    for (const pair of [pki.apiserver, pki.admin, pki.apiserverKubeletClient]) {
      assert.ok(new X509Certificate(pair.certPem).verify(caCert.publicKey));
    }
    assert.deepEqual(sans(pki.apiserver.certPem), [
      'DNS:localhost',
      `DNS:${hostname()}`,
      'DNS:api.dkc.test',
      'IP Address:127.0.0.1',
      'IP Address:0:0:0:0:0:0:0:1',
      'IP Address:192.0.2.10',
    ]);
    assert.deepEqual(new X509Certificate(pki.apiserver.certPem).keyUsage, [SERVER_AUTH]);
    assert.deepEqual(parseCertIdentity(pki.admin.certPem), { commonName: 'admin', organizations: ['system:masters'] });
    assert.deepEqual(new X509Certificate(pki.admin.certPem).keyUsage, [CLIENT_AUTH]);
    // The node proxy's identity: no group, so nothing but what RBAC grants the user (system:kubelet-api-admin).
    assert.deepEqual(parseCertIdentity(pki.apiserverKubeletClient.certPem), {
      commonName: 'kube-apiserver-kubelet-client',
      organizations: [],
    });
    assert.deepEqual(new X509Certificate(pki.apiserverKubeletClient.certPem).keyUsage, [CLIENT_AUTH]);
    assert.equal(pki.paths.adminKey, join(d, 'admin.key'));
  });

  it('replaces a node-proxy certificate in system:masters left by an earlier version, and nothing else', async () => {
    const d = join(dir, 'upgrade');
    const first = await ensureClusterPKI(d);
    const old = await issueCert(first.ca as CertKeyPem, {
      commonName: 'kube-apiserver-kubelet-client',
      organizations: ['system:masters'],
      usages: ['client'],
    });
    await writeFile(join(d, 'apiserver-kubelet-client.key'), old.keyPem, { mode: 0o600 });
    await writeFile(join(d, 'apiserver-kubelet-client.crt'), old.certPem);
    const before = await snapshot(d);
    const pki = await ensureClusterPKI(d);
    assert.deepEqual([...pki.created].sort(), ['apiserver-kubelet-client.crt', 'apiserver-kubelet-client.key']);
    assert.deepEqual(parseCertIdentity(pki.apiserverKubeletClient.certPem), {
      commonName: 'kube-apiserver-kubelet-client',
      organizations: [],
    });
    assert.equal(await readFile(join(d, 'apiserver-kubelet-client.crt'), 'utf8'), pki.apiserverKubeletClient.certPem);
    const after = await snapshot(d);
    for (const f of FILES) if (!f.startsWith('apiserver-kubelet-client')) assert.equal(after[f], before[f], f);
    // Once replaced, later starts keep it.
    assert.deepEqual((await ensureClusterPKI(d)).created, []);
  });

  it('loads existing files unchanged on later calls, whatever the options say', async () => {
    const d = join(dir, 'idem');
    const first = await ensureClusterPKI(d);
    const before = await snapshot(d);
    const second = await ensureClusterPKI(d, { hostnames: ['other.name'] });
    assert.deepEqual(second.created, []);
    assert.deepEqual(await snapshot(d), before);
    assert.equal(second.ca.certPem, first.ca.certPem);
    assert.equal(second.apiserver.certPem, first.apiserver.certPem);
    assert.equal(second.admin.keyPem, first.admin.keyPem);
  });

  it('serialises concurrent first calls so that every file comes from one CA', async () => {
    const d = join(dir, 'race');
    const [a, b, c] = await Promise.all([ensureClusterPKI(d), ensureClusterPKI(d), ensureClusterPKI(d)]);
    assert.equal(a.ca.certPem, b.ca.certPem);
    assert.equal(b.ca.certPem, c.ca.certPem);
    assert.equal(a.admin.certPem, c.admin.certPem);
    assert.equal(a.created.length + b.created.length + c.created.length, FILES.length);
    assert.ok(!(await readdir(d)).includes('.lock'));
  });

  it('completes a directory left half-made, re-issuing only what is missing', async () => {
    const d = join(dir, 'resume');
    const first = await ensureClusterPKI(d);
    await unlink(join(d, 'admin.crt')); // as if the process died between key and certificate
    const again = await ensureClusterPKI(d);
    assert.deepEqual(again.created, ['admin.key', 'admin.crt']);
    assert.equal(again.ca.certPem, first.ca.certPem);
    assert.equal(again.apiserver.certPem, first.apiserver.certPem);
    assert.notEqual(again.admin.certPem, first.admin.certPem);
  });

  it('runs from a copy without ca.key, but cannot issue from one', async () => {
    const d = join(dir, 'nokey');
    await ensureClusterPKI(d);
    await unlink(join(d, 'ca.key'));
    const pki = await ensureClusterPKI(d);
    assert.equal(pki.ca.keyPem, undefined);
    await unlink(join(d, 'admin.crt'));
    await unlink(join(d, 'admin.key'));
    await assert.rejects(ensureClusterPKI(d), { code: 'DKC_PKI_CA_KEY_MISSING' });
  });

  it('refuses leaves without their CA, a certificate without its key, and mismatched pairs', async () => {
    const d1 = join(dir, 'orphan');
    await ensureClusterPKI(d1);
    await unlink(join(d1, 'ca.crt'));
    await assert.rejects(
      ensureClusterPKI(d1),
      (e: unknown) => e instanceof PkiError && e.code === 'DKC_PKI_INCOMPLETE',
    );

    const d2 = join(dir, 'nokeyleaf');
    await ensureClusterPKI(d2);
    await unlink(join(d2, 'apiserver.key'));
    await assert.rejects(ensureClusterPKI(d2), { code: 'DKC_PKI_INCOMPLETE' });

    const d3 = join(dir, 'mismatch');
    await ensureClusterPKI(d3);
    await writeFile(join(d3, 'admin.key'), await readFile(join(d3, 'apiserver.key')));
    await assert.rejects(ensureClusterPKI(d3), { code: 'DKC_PKI_KEY_MISMATCH' });

    const d4 = join(dir, 'foreign');
    await ensureClusterPKI(d4);
    const other = await createCA('someone-else');
    const stray = await issueCert(other, { commonName: 'admin', usages: ['client'] });
    await writeFile(join(d4, 'admin.crt'), stray.certPem);
    await writeFile(join(d4, 'admin.key'), stray.keyPem);
    await assert.rejects(ensureClusterPKI(d4), { code: 'DKC_PKI_KEY_MISMATCH' });
  });

  it('breaks a lock left by a dead process and times out on a live one', async () => {
    const d = join(dir, 'locked');
    await mkdir(d);
    // A pid that cannot be alive (above the kernel's pid_max).
    await writeFile(join(d, '.lock'), '999999999');
    const pki = await ensureClusterPKI(d);
    assert.equal(pki.created.length, FILES.length);

    const d2 = join(dir, 'locked-live');
    await mkdir(d2);
    await writeFile(join(d2, '.lock'), String(process.pid));
    await assert.rejects(ensureClusterPKI(d2, { lockTimeoutMs: 100 }), { code: 'DKC_PKI_LOCKED' });
  });
});
