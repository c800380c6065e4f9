// A bad config on a real local cluster explains itself: besides upstream's status.config.error string, a Warning
// event KubeletConfigRejected on the node carries the real validation message and the ConfigMap's uid and
// resourceVersion, and the agent's log is readable from anywhere at /logs/ through the API server's node proxy
// (with real kubectl 1.32), behind the nodes/proxy (API server) and nodes/log (agent) permissions.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import * as https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigMap, Event, Node } from '../../src/api/types.js';
import { isApiError, RestClient } from '../../src/client/index.js';
import { ensureClusterPKI, issueCert, writeKubeconfig, type CertKeyPem } from '../../src/pki/index.js';
import { startCluster, type Cluster } from '../../src/up/cluster.js';
import { kubectl, type Kubectl } from '../helpers/kubectl.js';
import { waitFor } from '../helpers/wait.js';
import { waitForConfigz } from '../helpers/nodeconfig.js';

const VALIDATION = 'invalid configuration: kubeAPIQPS (--kube-api-qps) -1 must not be a negative number';

let work: string;
let cluster: Cluster;
let admin: RestClient;
let k: Kubectl;
let bad: ConfigMap;
let ca: CertKeyPem;

async function userKubeconfig(name: string, groups: string[]): Promise<{ path: string; cert: CertKeyPem }> {
  const cert = await issueCert(ca, { commonName: name, organizations: groups, usages: ['client'] });
  const path = join(work, `${name}.kubeconfig`);
  await writeKubeconfig(path, {
    server: cluster.serverURL,
    caPem: ca.certPem,
    certPem: cert.certPem,
    keyPem: cert.keyPem,
    user: name,
    format: 'json',
  });
  return { path, cert };
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'dkc-loud-e2e-'));
  cluster = await startCluster({ dataDir: join(work, 'cluster'), nodes: 1, port: 0 });
  admin = await RestClient.fromKubeconfig(cluster.kubeconfig);
  k = await kubectl('1.32', cluster.kubeconfig);
  const pki = await ensureClusterPKI(join(cluster.dataDir, 'pki'));
  ca = { certPem: pki.ca.certPem, keyPem: pki.ca.keyPem! };
  await waitForConfigz(admin, ['node-1']);
  const local = await readFile(cluster.nodes[0]!.config, 'utf8');
  bad = await admin.create<ConfigMap>('/api/v1/namespaces/kube-system/configmaps', {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'bad-qps' },
    data: { kubelet: local + 'kubeAPIQPS: -1\n' },
  });
  await admin.patch('/api/v1/nodes/node-1', 'merge', {
    spec: { configSource: { configMap: { namespace: 'kube-system', name: 'bad-qps', kubeletConfigKey: 'kubelet' } } },
  });
});

after(async () => {
  admin?.close();
  await k?.cleanup();
  await cluster?.stop(5_000);
  if (work) await rm(work, { recursive: true, force: true });
});

describe('a rejected config', () => {
  it('keeps upstream’s status.config.error and records a Warning event with the real cause', async () => {
    await waitFor(
      'status.config.error',
      async () => {
        const n = await admin.get<Node>('/api/v1/nodes/node-1');
        return n.status?.config?.error === 'failed to validate config, see Kubelet log for details' ? n : undefined;
      },
      60_000,
    );
    const event = await waitFor(
      'the KubeletConfigRejected event',
      async () => {
        const list = await admin.list<{ items: Event[] }>('/api/v1/namespaces/default/events', {
          fieldSelector: 'involvedObject.name=node-1',
        });
        return list.items.find((e) => e.reason === 'KubeletConfigRejected');
      },
      30_000,
    );
    assert.equal(event.type, 'Warning');
    assert.equal(event.involvedObject.kind, 'Node');
    const cm = bad.metadata;
    assert.equal(
      event.message,
      `ConfigMap kube-system/bad-qps (key kubelet, UID: ${cm.uid}, ResourceVersion: ${cm.resourceVersion}) failed validation; running the local config: ${VALIDATION}`,
    );
    const shown = await k.ok(['get', 'events', '--field-selector', 'reason=KubeletConfigRejected']);
    assert.match(shown, /Warning\s+KubeletConfigRejected\s+node\/node-1\s+ConfigMap kube-system\/bad-qps/);
  });

  it('/logs/agent.log through the API server’s node proxy shows the agent’s lines about it', async () => {
    const log = await waitFor(
      'the rejection in the log',
      async () => {
        const text = await k.ok(['get', '--raw', '/api/v1/nodes/node-1/proxy/logs/agent.log']);
        return text.includes(VALIDATION) ? text : undefined;
      },
      10_000,
    );
    assert.match(
      log,
      /^E\d{4} [\d:.]+ +\d+ \w+\.ts:\d+\] kubelet config controller: failed to validate config, see Kubelet log for details, error: invalid configuration: kubeAPIQPS/m,
    );
    assert.ok(
      log.split('\n').filter((l) => l.includes('kubelet config controller:')).length >= 2,
      'the controller’s other lines are there too',
    );
    const listing = await k.ok(['get', '--raw', '/api/v1/nodes/node-1/proxy/logs/']);
    assert.match(listing, /<a href="agent.log">agent.log<\/a>/);
  });

  it('refuses a path out of the log directory', async () => {
    for (const path of [
      '/api/v1/nodes/node-1/proxy/logs/..%2fkubeconfig',
      '/api/v1/nodes/node-1/proxy/logs/%2e%2e/pki/client.key',
    ]) {
      await assert.rejects(
        admin.get(path),
        (err: unknown) => isApiError(err) && err.status.code >= 400 && err.status.code < 500,
        path,
      );
    }
  });

  it('a user without nodes/proxy gets 403 from the API server; one without nodes/log gets 403 from the agent', async () => {
    const nobody = await userKubeconfig('nobody', []);
    const kn = await kubectl('1.32', nobody.path);
    try {
      const r = await kn.run(['get', '--raw', '/api/v1/nodes/node-1/proxy/logs/agent.log']);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /Forbidden|forbidden/);
      assert.match(r.stderr, /nodes\/proxy/);
    } finally {
      await kn.cleanup();
    }
    // The config operators may read /configz through the proxy (nodes/proxy) but hold no nodes/log: the agent asks.
    const operator = await userKubeconfig('ops', ['dkc:node-config-operators']);
    const direct = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const port = cluster.nodes[0]!.port;
        https
          .get(
            {
              host: '127.0.0.1',
              port,
              path,
              cert: operator.cert.certPem,
              key: operator.cert.keyPem,
              rejectUnauthorized: false,
              agent: false,
            },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          )
          .on('error', reject);
      });
    assert.equal(await direct('/logs/agent.log'), 403);
    assert.equal(await direct('/configz'), 200);
  });
});
