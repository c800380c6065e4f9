// The agent's HTTPS port with `authorization.mode: Webhook`: every authenticated request is put to the injected
// authorizer with the kubelet's attributes; refusals answer 403 in the kubelet's words, a failed decision 500.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createMetricsRegistry, startAgentServers, type AgentServers } from '../../../src/agent/node/index.js';
import type { RequestAttributes, RequestUser } from '../../../src/agent/node/httpserver.js';
import { setDefaults } from '../../../src/kubeletconfig/index.js';
import { createCA, issueCert, type CertKeyPem } from '../../../src/pki/index.js';
import { httpGet, type Reply } from '../../helpers/http.js';

const get = (port: number, path: string, cert?: CertKeyPem): Promise<Reply> =>
  httpGet(`https://127.0.0.1:${port}${path}`, cert ? { cert: cert.certPem, key: cert.keyPem } : {});

let dir: string;
let servers: AgentServers;
let node2: CertKeyPem;
let admin: CertKeyPem;
let broken: CertKeyPem;
const asked: [RequestUser, RequestAttributes][] = [];

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dkc-agent-authz-'));
  const ca = await createCA('cluster-ca');
  node2 = await issueCert(ca, {
    commonName: 'system:node:node-2',
    organizations: ['system:nodes'],
    usages: ['client'],
  });
  admin = await issueCert(ca, { commonName: 'admin', organizations: ['system:masters'], usages: ['client'] });
  broken = await issueCert(ca, { commonName: 'broken', usages: ['client'] });
  const caFile = join(dir, 'ca.crt');
  await writeFile(caFile, ca.certPem);
  const config = setDefaults({
    address: '127.0.0.1',
    authentication: { anonymous: { enabled: false }, x509: { clientCAFile: caFile } },
    authorization: { mode: 'Webhook' },
  });
  config.port = 0;
  config.readOnlyPort = 0;
  config.healthzPort = 0;
  servers = await startAgentServers({
    config,
    certDir: join(dir, 'pki'),
    nodeName: 'node-1',
    configz: () => ({ maxPods: 110 }),
    healthz: () => ({ ok: true }),
    metrics: createMetricsRegistry(),
    authorize: async (user, attrs) => {
      asked.push([user, attrs]);
      if (user.name === 'broken') throw new Error('the API server is unreachable');
      return user.groups.includes('system:masters');
    },
  });
});

after(async () => {
  await servers?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('agent webhook authorization', () => {
  it('asks about each authenticated request with the kubelet’s attributes', async () => {
    const ok = await get(servers.ports.https, '/configz', admin);
    assert.equal(ok.status, 200);
    assert.equal(ok.body, '{"kubeletconfig":{"maxPods":110}}');
    assert.deepEqual(asked.at(-1), [
      { name: 'admin', groups: ['system:masters'] },
      { verb: 'get', resource: 'nodes', subresource: 'proxy', name: 'node-1' },
    ]);
    const denied = await get(servers.ports.https, '/metrics', node2);
    assert.equal(denied.status, 403);
    assert.equal(denied.body, 'Forbidden (user=system:node:node-2, verb=get, resource=nodes, subresource=metrics)\n');
  });

  it('refuses the unauthenticated before asking, and answers 500 when no decision can be had', async () => {
    const before = asked.length;
    assert.equal((await get(servers.ports.https, '/configz')).status, 401);
    assert.equal(asked.length, before);
    const failed = await get(servers.ports.https, '/configz', broken);
    assert.equal(failed.status, 500);
    assert.equal(failed.body, 'Authorization error (user=broken, verb=get, resource=nodes, subresource=proxy)\n');
  });
});
