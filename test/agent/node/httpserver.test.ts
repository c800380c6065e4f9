// The agent's HTTPS, read-only and healthz listeners on 127.0.0.1, with real TLS.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import * as https from 'node:https';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { createCA, issueCert, type CertKeyPem } from '../../../src/pki/index.js';
import { setDefaults, toConfigzJSON, type KubeletConfiguration } from '../../../src/kubeletconfig/index.js';
import {
  createMetricsRegistry,
  gauge,
  isNodeAgentError,
  startAgentServers,
  type AgentServers,
  type AgentServersOptions,
  type MetricsRegistry,
} from '../../../src/agent/node/index.js';
import { httpGet, type Reply } from '../../helpers/http.js';
import { repoRoot } from '../../helpers/paths.js';
import { freePort } from './netutil.js';

const get = (url: string, tls: { cert?: string; key?: string } = {}): Promise<Reply> => httpGet(url, tls);

let dir: string;
let ca: CertKeyPem;
let client: CertKeyPem;
let foreign: CertKeyPem;
let caFile: string;
let metrics: MetricsRegistry;
const open: AgentServers[] = [];

function config(partial: Parameters<typeof setDefaults>[0]): KubeletConfiguration {
  const c = setDefaults({ address: '127.0.0.1', healthzBindAddress: '127.0.0.1', ...partial });
  // port 0 asks the OS for a free port; setDefaults would turn it into 10250.
  c.port = partial.port ?? 0;
  c.readOnlyPort = partial.readOnlyPort ?? 0;
  c.healthzPort = partial.healthzPort ?? 0;
  return c;
}

async function start(cfg: KubeletConfiguration, extra: Partial<AgentServersOptions> = {}): Promise<AgentServers> {
  const s = await startAgentServers({
    config: cfg,
    certDir: join(dir, 'pki'),
    nodeName: 'node-a',
    nodeIPs: ['127.0.0.1'],
    configz: () => toConfigzJSON(cfg),
    healthz: () => ({ ok: true }),
    metrics,
    ...extra,
  });
  open.push(s);
  return s;
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dkc-agent-http-'));
  ca = await createCA('clients-ca');
  client = await issueCert(ca, { commonName: 'system:kube-apiserver', usages: ['client'] });
  const otherCA = await createCA('other-ca');
  foreign = await issueCert(otherCA, { commonName: 'intruder', usages: ['client'] });
  caFile = join(dir, 'client-ca.crt');
  await writeFile(caFile, ca.certPem);
  metrics = createMetricsRegistry();
  gauge(
    metrics,
    'kubelet_node_config_error',
    'This metric is true (1) if the node is experiencing a configuration-related error, false (0) otherwise.',
  ).set(0);
  gauge(metrics, 'kubelet_node_config_active', 'The config source the node is actively using. The count is always 1.', [
    'node_config_source',
  ]).set({ node_config_source: 'local' }, 1);
});

after(async () => {
  await Promise.all(open.map((s) => s.stop()));
  await rm(dir, { recursive: true, force: true });
});

describe('HTTPS server', () => {
  it('creates the self-signed certificate once and reuses it, without loading the PKI library', async () => {
    const first = await start(config({ authentication: { anonymous: { enabled: true } } }));
    assert.equal(first.certGenerated, true);
    assert.equal(first.certFile, join(dir, 'pki', 'kubelet.crt'));
    assert.equal(first.keyFile, join(dir, 'pki', 'kubelet.key'));
    const pem = await readFile(first.certFile, 'utf8');
    const leaf = new X509Certificate(pem);
    assert.match(leaf.subject, /CN=node-a@\d+/);
    assert.match(leaf.subjectAltName ?? '', /DNS:node-a/);
    assert.match(leaf.subjectAltName ?? '', /IP Address:127\.0\.0\.1/);
    await first.stop();

    const second = await start(config({ authentication: { anonymous: { enabled: true } } }));
    assert.equal(second.certGenerated, false);
    assert.equal(await readFile(second.certFile, 'utf8'), pem);
    const r = await get(`https://127.0.0.1:${second.ports.https}/healthz`);
    assert.deepEqual([r.status, r.body], [200, 'ok']);
    await second.stop();

    // In a fresh process, reading the existing pair must not import src/pki (its X.509 library costs ~250 ms).
    const script = `
      const { loadOrCreateServingCert } = await import(${JSON.stringify(join(repoRoot, 'dist/src/agent/node/servingcert.js'))});
      const c = await loadOrCreateServingCert({ tlsCertFile: '', tlsPrivateKeyFile: '', certDir: ${JSON.stringify(join(dir, 'pki'))}, hostnames: ['node-a'] });
      console.log(JSON.stringify({ generated: c.generated, pkiLoaded: typeof Reflect.getMetadata === 'function' }));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(child.status, 0, child.stderr);
    assert.deepEqual(JSON.parse(child.stdout), { generated: false, pkiLoaded: false });
  });

  it('serves /configz, /healthz, /metrics and /pods, and 404 elsewhere', async () => {
    const cfg = config({ authentication: { anonymous: { enabled: true } }, maxPods: 42 });
    const s = await start(cfg);
    const base = `https://127.0.0.1:${s.ports.https}`;

    const configz = await get(`${base}/configz`);
    assert.equal(configz.status, 200);
    assert.equal(configz.headers['content-type'], 'application/json');
    const body = JSON.parse(configz.body) as { kubeletconfig: Record<string, unknown> };
    assert.deepEqual(Object.keys(body), ['kubeletconfig']);
    assert.equal(body.kubeletconfig['kind'], undefined);
    assert.equal(body.kubeletconfig['apiVersion'], undefined);
    assert.equal(body.kubeletconfig['maxPods'], 42);
    assert.equal(body.kubeletconfig['nodeStatusReportFrequency'], '5m0s');

    const m = await get(`${base}/metrics`);
    assert.equal(m.status, 200);
    assert.match(m.headers['content-type'] ?? '', /^text\/plain; version=0\.0\.4/);
    assert.match(m.body, /^# HELP kubelet_node_config_error /m);
    assert.match(m.body, /^kubelet_node_config_active\{node_config_source="local"\} 1$/m);

    const pods = await get(`${base}/pods`);
    assert.deepEqual([pods.status, pods.body], [200, '{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[]}']);

    const missing = await get(`${base}/stats/summary`);
    assert.deepEqual([missing.status, missing.body], [404, '404 page not found\n']);
  });

  it('/configz also takes an object, and /healthz reports failure with its reason', async () => {
    let healthy = false;
    const s = await start(config({ authentication: { anonymous: { enabled: true } } }), {
      configz: () => ({ maxPods: 7 }),
      healthz: () => (healthy ? { ok: true } : { ok: false, reason: 'config trial failed' }),
    });
    const base = `https://127.0.0.1:${s.ports.https}`;
    assert.equal((await get(`${base}/configz`)).body, '{"kubeletconfig":{"maxPods":7}}');
    const bad = await get(`${base}/healthz`);
    assert.deepEqual([bad.status, bad.body], [500, 'healthz check failed: config trial failed\n']);
    healthy = true;
    assert.equal((await get(`${base}/healthz`)).status, 200);
  });

  it('checks client certificates against clientCAFile and refuses anonymous requests when disabled', async () => {
    const s = await start(
      config({ authentication: { anonymous: { enabled: false }, x509: { clientCAFile: caFile } } }),
    );
    const base = `https://127.0.0.1:${s.ports.https}`;
    const anon = await get(`${base}/configz`);
    assert.deepEqual([anon.status, anon.body], [401, 'Unauthorized\n']);
    const intruder = await get(`${base}/configz`, { cert: foreign.certPem, key: foreign.keyPem });
    assert.equal(intruder.status, 401);
    const ok = await get(`${base}/configz`, { cert: client.certPem, key: client.keyPem });
    assert.equal(ok.status, 200);
    assert.ok((JSON.parse(ok.body) as { kubeletconfig?: unknown }).kubeletconfig);
  });

  it('refuses everything without a client CA when anonymous is disabled, and lets anonymous in when enabled', async () => {
    const closed = await start(config({ authentication: { anonymous: { enabled: false } } }));
    assert.equal(
      (await get(`https://127.0.0.1:${closed.ports.https}/healthz`, { cert: client.certPem, key: client.keyPem }))
        .status,
      401,
    );
    const openToAll = await start(
      config({ authentication: { anonymous: { enabled: true }, x509: { clientCAFile: caFile } } }),
    );
    assert.equal((await get(`https://127.0.0.1:${openToAll.ports.https}/pods`)).status, 200);
  });

  it('uses tlsCertFile/tlsPrivateKeyFile when configured', async () => {
    const serving = await issueCert(ca, {
      commonName: 'configured-serving',
      ipAddresses: ['127.0.0.1'],
      usages: ['server'],
    });
    const certFile = join(dir, 'serving.crt');
    const keyFile = join(dir, 'serving.key');
    await writeFile(certFile, serving.certPem);
    await writeFile(keyFile, serving.keyPem);
    const s = await start(
      config({ tlsCertFile: certFile, tlsPrivateKeyFile: keyFile, authentication: { anonymous: { enabled: true } } }),
    );
    assert.equal(s.certGenerated, false);
    const subject = await new Promise<string>((resolve, reject) => {
      const req = https.get(`https://127.0.0.1:${s.ports.https}/healthz`, { ca: ca.certPem, agent: false }, (res) => {
        resolve(String((res.socket as import('node:tls').TLSSocket).getPeerCertificate().subject.CN));
        res.resume();
      });
      req.on('error', reject);
    });
    assert.equal(subject, 'configured-serving');
  });
});

describe('read-only and healthz ports', () => {
  it('serve plain HTTP: read-only has /healthz and /metrics, healthz only /healthz', async () => {
    const [ro, hz] = [await freePort(), await freePort()];
    const s = await start(
      config({ readOnlyPort: ro, healthzPort: hz, authentication: { anonymous: { enabled: false } } }),
    );
    assert.deepEqual(s.ports, { https: s.ports.https, readOnly: ro, healthz: hz });
    const roBase = `http://127.0.0.1:${ro}`;
    assert.deepEqual([(await get(`${roBase}/healthz`)).status, (await get(`${roBase}/healthz`)).body], [200, 'ok']);
    assert.match((await get(`${roBase}/metrics`)).body, /kubelet_node_config_error 0/);
    assert.equal((await get(`${roBase}/configz`)).status, 404);
    assert.equal((await get(`${roBase}/pods`)).status, 404);
    const hzBase = `http://127.0.0.1:${hz}`;
    assert.equal((await get(`${hzBase}/healthz`)).body, 'ok');
    assert.equal((await get(`${hzBase}/metrics`)).status, 404);
  });
});

describe('start failures', () => {
  it('rejects a port in use with LISTEN_ADDRESS_IN_USE and leaves nothing listening', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const taken = (blocker.address() as net.AddressInfo).port;
    try {
      await assert.rejects(
        start(config({ port: taken, authentication: { anonymous: { enabled: true } } })),
        (err: unknown) =>
          isNodeAgentError(err, 'DKC_NODE_LISTEN_ADDRESS_IN_USE') &&
          err.message === `kubelet server: listen tcp 127.0.0.1:${taken}: bind: address already in use`,
      );
      // The HTTPS server started, then the healthz port failed: the HTTPS port must be released again.
      const httpsPort = await freePort();
      await assert.rejects(
        start(config({ port: httpsPort, healthzPort: taken })),
        (err: unknown) =>
          isNodeAgentError(err, 'DKC_NODE_LISTEN_ADDRESS_IN_USE') && /^healthz server: /.test(err.message),
      );
      const probe = net.createServer();
      await new Promise<void>((resolve, reject) => {
        probe.once('error', reject);
        probe.listen(httpsPort, '127.0.0.1', () => resolve());
      });
      await new Promise<void>((r) => probe.close(() => r()));
    } finally {
      await new Promise<void>((r) => blocker.close(() => r()));
    }
  });

  it('rejects an address that is not on this host', async () => {
    await assert.rejects(
      start(config({ address: '192.0.2.1' })),
      (err: unknown) =>
        isNodeAgentError(err, 'DKC_NODE_LISTEN_ADDRESS_NOT_AVAILABLE') &&
        /listen tcp 192\.0\.2\.1:0: bind: cannot assign requested address/.test(err.message),
    );
  });

  it('rejects missing certificate and CA files, naming the file', async () => {
    const missing = join(dir, 'nope.crt');
    await assert.rejects(
      start(config({ tlsCertFile: missing, tlsPrivateKeyFile: missing })),
      (err: unknown) => isNodeAgentError(err, 'DKC_NODE_SERVING_CERT_INVALID') && err.message.includes(missing),
    );
    await assert.rejects(
      start(config({ tlsCertFile: missing })),
      (err: unknown) =>
        isNodeAgentError(err, 'DKC_NODE_SERVING_CERT_INVALID') && /must be set together/.test(err.message),
    );
    await assert.rejects(
      start(config({ authentication: { x509: { clientCAFile: missing } } })),
      (err: unknown) => isNodeAgentError(err, 'DKC_NODE_CLIENT_CA_INVALID') && err.message.includes(missing),
    );
  });
});
