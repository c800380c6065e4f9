// Authorization end to end on a real local cluster (`startCluster`, as `dkc up` runs it: a server and two agents
// under the supervisor, node certificates CN=system:node:<name>, O=system:nodes): the Node authorizer and
// NodeRestriction matrix with the nodes' own certificates, `kubectl auth can-i` with impersonation, the
// node-config operator's least privilege with kubectl 1.32, the agents' endpoint security, and identities fuzzed
// until something breaks — which must only ever be a 401 or 403.

import { waitFor } from '../../helpers/wait.js';
import assert from 'node:assert/strict';
import { readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { ApiError, RestClient } from '../../../src/client/index.js';
import { createCA, ensureClusterPKI, issueCert, writeKubeconfig, type CertKeyPem } from '../../../src/pki/index.js';
import { startCluster, type Cluster } from '../../../src/up/cluster.js';
import { kubectl, type Kubectl } from '../../helpers/kubectl.js';

/** A config the agents can run: the dynamic config replaces the local file, so it must keep trusting the cluster CA. */
const kubelet = (caFile: string) =>
  `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nauthentication:\n  anonymous:\n    enabled: false\n  x509:\n    clientCAFile: ${JSON.stringify(caFile)}\nauthorization:\n  mode: Webhook\n`;
const NS = '/api/v1/namespaces/kube-system/configmaps';

let dir: string;
let cluster: Cluster;
let admin: RestClient;
let n1: RestClient;
let ca: { certPem: string; keyPem: string };
let k: Kubectl;
const identities = new Map<string, CertKeyPem>();

/** The HTTP status and message of a call, whether it succeeded or not. */
async function outcome(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
    return { code: 200, message: '' };
  } catch (err) {
    if (err instanceof ApiError) return { code: err.code, message: err.message };
    throw err;
  }
}

function assign(name: string | null) {
  return {
    spec: {
      configSource: name ? { configMap: { namespace: 'kube-system', name, kubeletConfigKey: 'kubelet' } } : null,
    },
  };
}

interface RawResult {
  status: number;
  body: string;
}

/** One HTTPS request with exactly the credentials and headers given. */
function raw(
  url: string,
  opts: {
    cert?: CertKeyPem;
    method?: string;
    headers?: Record<string, string | string[]>;
    body?: string;
    ca?: string;
  } = {},
): Promise<RawResult> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = httpsRequest(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method: opts.method ?? 'GET',
        headers: { ...(opts.body ? { 'content-type': 'application/json' } : {}), ...(opts.headers ?? {}) },
        ca: opts.ca ?? ca.certPem,
        // The agents' serving certificates are self-signed; their identity is not what these tests examine.
        rejectUnauthorized: !!opts.ca || u.port === new URL(cluster.serverURL).port,
        ...(opts.cert ? { cert: opts.cert.certPem, key: opts.cert.keyPem } : {}),
        timeout: 10_000,
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.end(opts.body);
  });
}

async function identity(cn: string, organizations: string[] = []): Promise<CertKeyPem> {
  const key = `${cn}\u0000${organizations.join(',')}`;
  let c = identities.get(key);
  if (!c) {
    c = await issueCert(ca, { commonName: cn, organizations, usages: ['client'] });
    identities.set(key, c);
  }
  return c;
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dkc-auth-'));
  cluster = await startCluster({
    dataDir: dir,
    nodes: 2,
    port: 0,
    serverArgs: ['--audit-log-path', join(dir, 'audit.log')],
  });
  const pki = await ensureClusterPKI(join(dir, 'pki'));
  ca = { certPem: pki.ca.certPem, keyPem: pki.ca.keyPem! };
  admin = await RestClient.fromKubeconfig(cluster.kubeconfig, { timeoutMs: 10_000 });
  n1 = await RestClient.fromKubeconfig(cluster.nodes[0]!.kubeconfig, { timeoutMs: 10_000 });
  for (const name of ['cfg-a', 'cfg-b'])
    await admin.create(NS, { metadata: { name }, data: { kubelet: kubelet(pki.paths.caCert) } });
  for (const n of cluster.nodes) {
    await waitFor(
      `${n.name} registered with status.config`,
      async () => {
        const node = await admin.get<{ status?: { config?: unknown } }>(`/api/v1/nodes/${n.name}`);
        return node.status?.config ? true : undefined;
      },
      { timeoutMs: 30_000, stepMs: 100 },
    );
  }
  k = await kubectl('1.32', cluster.kubeconfig);
});

after(async () => {
  admin?.close();
  n1?.close();
  await k?.cleanup();
  await cluster?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('authorization matrix with real node certificates', () => {
  it('node-1 reads only the ConfigMap its Node names, and follows a reassignment at once', async () => {
    await admin.patch('/api/v1/nodes/node-1', 'merge', assign('cfg-a'));
    assert.equal((await outcome(n1.get(`${NS}/cfg-a`))).code, 200);
    const other = await outcome(n1.get(`${NS}/cfg-b`));
    assert.equal(other.code, 403);
    assert.equal(
      other.message,
      'configmaps "cfg-b" is forbidden: User "system:node:node-1" cannot get resource "configmaps" in API group "" in the namespace "kube-system": no relationship found between node \'node-1\' and this object',
    );
    const list = await outcome(n1.list(NS));
    assert.equal(list.code, 403);
    assert.match(list.message, /cannot list resource "configmaps" .*: No Object name found$/);
    assert.equal((await outcome(n1.list(NS, { fieldSelector: 'metadata.name=cfg-b' }))).code, 403);
    const own = await n1.list<{ items: unknown[] }>(NS, { fieldSelector: 'metadata.name=cfg-a' });
    assert.equal(own.items.length, 1);
    const watch = await n1.request<string>({
      method: 'GET',
      path: NS,
      query: { watch: 'true', fieldSelector: 'metadata.name=cfg-a', timeoutSeconds: '1' },
    });
    assert.equal(watch.status, 200);
    assert.match(typeof watch.body === 'string' ? watch.body : JSON.stringify(watch.body), /"type":"ADDED"/);

    // The admin moves node-1 to cfg-b: the very next request sees the new edge.
    await admin.patch('/api/v1/nodes/node-1', 'merge', assign('cfg-b'));
    assert.equal((await outcome(n1.get(`${NS}/cfg-b`))).code, 200);
    assert.equal((await outcome(n1.get(`${NS}/cfg-a`))).code, 403);
    await admin.patch('/api/v1/nodes/node-1', 'merge', assign('cfg-a'));
    assert.equal((await outcome(n1.get(`${NS}/cfg-a`))).code, 200);
    assert.equal((await outcome(n1.get(`${NS}/cfg-b`))).code, 403);
  });

  it('node-1 writes only its own Node, and never points itself at a new config', async () => {
    const other = await outcome(
      n1.patch('/api/v1/nodes/node-2', 'merge', { metadata: { labels: { touched: 'yes' } } }),
    );
    assert.equal(other.code, 403);
    assert.equal(other.message, 'nodes "node-2" is forbidden: node "node-1" is not allowed to modify node "node-2"');
    assert.equal(
      (await outcome(n1.patch('/api/v1/nodes/node-2/status', 'merge', { status: { phase: 'x' } }))).code,
      403,
    );
    assert.equal(
      (await outcome(n1.patch('/api/v1/nodes/node-1/status', 'strategic', { status: { phase: 'Running' } }))).code,
      200,
    );

    const self = await outcome(n1.patch('/api/v1/nodes/node-1', 'merge', assign('cfg-b')));
    assert.equal(self.code, 403);
    assert.equal(
      self.message,
      'nodes "node-1" is forbidden: node "node-1" is not allowed to update configSource to a new non-nil configSource',
    );
    // Sending the current source back unchanged is allowed; so is clearing it.
    assert.equal((await outcome(n1.patch('/api/v1/nodes/node-1', 'merge', assign('cfg-a')))).code, 200);
    assert.equal((await outcome(n1.patch('/api/v1/nodes/node-1', 'merge', assign(null)))).code, 200);
    assert.equal((await outcome(n1.get(`${NS}/cfg-a`))).code, 403, 'clearing the source removes the edge at once');
    assert.equal((await outcome(n1.delete('/api/v1/nodes/node-2'))).code, 403);
    assert.equal(
      (await outcome(n1.get('/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication'))).code,
      403,
    );
  });

  it('the audit log says who pointed a node at which config', async () => {
    await admin.patch('/api/v1/nodes/node-2', 'merge', assign('cfg-b'));
    const lines = await waitFor(
      'the audit line',
      async () => {
        const text = await readFile(join(dir, 'audit.log'), 'utf8');
        const found = text
          .split('\n')
          .filter(Boolean)
          .map(
            (l) =>
              JSON.parse(l) as {
                verb: string;
                user: { username: string };
                objectRef?: { resource: string; name?: string };
                responseStatus: { code: number };
              },
          )
          .filter((e) => e.verb === 'patch' && e.objectRef?.resource === 'nodes' && e.objectRef.name === 'node-2');
        // A line is written when its response has gone out, so the client may be a moment ahead of the file.
        const byAdmin = found.some((e) => e.user.username === 'admin' && e.responseStatus.code === 200);
        const byNode = found.some((e) => e.user.username === 'system:node:node-1' && e.responseStatus.code === 403);
        return byAdmin && byNode ? found : undefined;
      },
      { timeoutMs: 30_000, stepMs: 100 },
    );
    assert.ok(lines.length >= 2);
  });
});

describe('kubectl auth can-i and the node-config operator', () => {
  it('answers for a node through impersonation', async () => {
    await admin.patch('/api/v1/nodes/node-1', 'merge', assign('cfg-a'));
    const asNode = ['--as=system:node:node-1', '--as-group=system:nodes'];
    const answer = async (...args: string[]) => (await k.run(['auth', 'can-i', ...args, ...asNode])).stdout.trim();
    const can = async (...args: string[]) => (await answer(...args)).split(' ')[0];
    assert.equal(await can('get', 'configmaps/cfg-a', '-n', 'kube-system'), 'yes');
    assert.equal(
      await answer('get', 'configmaps/cfg-b', '-n', 'kube-system'),
      "no - no relationship found between node 'node-1' and this object",
    );
    assert.equal(await can('list', 'configmaps', '-n', 'kube-system'), 'no');
    assert.equal(await can('patch', 'nodes', '--subresource=status'), 'yes');
    assert.equal(await can('get', 'leases/node-1', '-n', 'kube-node-lease'), 'yes');
    assert.equal(await can('get', 'leases/node-2', '-n', 'kube-node-lease'), 'no');
    assert.equal(await can('delete', 'nodes/node-1'), 'no');
    assert.equal((await k.run(['auth', 'can-i', 'delete', 'nodes'])).stdout.trim(), 'yes', 'the admin itself');
  });

  it('a user bound to dkc:node-config-operator runs the tutorial workflow and nothing beyond it', async () => {
    const olivia = await identity('olivia');
    await writeFile(
      join(dir, 'crb.yaml'),
      [
        'apiVersion: rbac.authorization.k8s.io/v1',
        'kind: ClusterRoleBinding',
        'metadata: {name: olivia-node-config}',
        'roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "dkc:node-config-operator"}',
        'subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: olivia}]',
        '---',
        'apiVersion: rbac.authorization.k8s.io/v1',
        'kind: RoleBinding',
        'metadata: {name: olivia-node-config, namespace: kube-system}',
        'roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: "dkc:node-config-operator"}',
        'subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: olivia}]',
        '',
      ].join('\n'),
    );
    await k.ok(['apply', '-f', join(dir, 'crb.yaml')]);
    const crbs = await k.ok(['get', 'clusterrolebindings', 'olivia-node-config']);
    assert.match(crbs, /^NAME\s+ROLE\s+AGE\nolivia-node-config\s+ClusterRole\/dkc:node-config-operator\s+\S+\n$/);
    assert.match(
      await k.ok(['get', 'clusterroles', 'dkc:node-config-operator']),
      /^NAME\s+CREATED AT\ndkc:node-config-operator\s+\d{4}-\d\d-\d\dT/,
    );
    assert.match(
      await k.ok(['get', 'rolebindings', '-n', 'kube-system']),
      /olivia-node-config\s+Role\/dkc:node-config-operator/,
    );

    const kc = join(dir, 'olivia.kubeconfig');
    await writeKubeconfig(kc, {
      server: cluster.serverURL,
      caPem: ca.certPem,
      certPem: olivia.certPem,
      keyPem: olivia.keyPem,
      user: 'olivia',
    });
    const ko = await kubectl('1.32', kc);
    try {
      // RBAC follows the bindings through the watch cache, a moment after the write.
      await waitFor(
        'olivia’s bindings in force',
        async () => ((await ko.run(['auth', 'can-i', 'patch', 'nodes'])).stdout.trim() === 'yes' ? true : undefined),
        { timeoutMs: 30_000, stepMs: 100 },
      );
      const configz = JSON.parse(await ko.ok(['get', '--raw', '/api/v1/nodes/node-2/proxy/configz'])) as {
        kubeletconfig: Record<string, unknown>;
      };
      const file = join(dir, 'kubelet_configz_node-2');
      await writeFile(
        file,
        JSON.stringify({
          kind: 'KubeletConfiguration',
          apiVersion: 'kubelet.config.k8s.io/v1beta1',
          ...configz.kubeletconfig,
        }),
      );
      const created = await ko.ok([
        '-n',
        'kube-system',
        'create',
        'configmap',
        'my-node-config',
        `--from-file=kubelet=${file}`,
        '--append-hash',
        '-o',
        'name',
      ]);
      const cmName = created.trim().replace(/^configmap\//, '');
      await ko.ok(['patch', 'node', 'node-2', '-p', JSON.stringify(assign(cmName))]);
      await ko.ok(['get', 'node', 'node-2', '-o', 'json']);
      await ko.ok(['-n', 'kube-system', 'get', 'configmap', cmName]);

      const del = await ko.run(['delete', 'node', 'node-2']);
      assert.notEqual(del.code, 0);
      assert.match(
        del.stderr,
        /nodes "node-2" is forbidden: User "olivia" cannot delete resource "nodes" in API group "" at the cluster scope/,
      );
      const cms = await ko.run(['get', 'configmaps', '-n', 'default']);
      assert.notEqual(cms.code, 0);
      assert.match(
        cms.stderr,
        /User "olivia" cannot list resource "configmaps" in API group "" in the namespace "default"/,
      );
      assert.equal(
        (await ko.run(['auth', 'can-i', 'delete', 'configmaps', '-n', 'kube-system'])).stdout.trim().split(' ')[0],
        'no',
      );
      assert.equal(
        (await ko.run(['auth', 'can-i', 'patch', 'nodes', '--subresource=status'])).stdout.trim().split(' ')[0],
        'no',
      );
      const imp = await ko.run(['get', 'nodes', '--as=admin', '--as-group=system:masters']);
      assert.notEqual(imp.code, 0);
      assert.match(
        imp.stderr,
        /users "admin" is forbidden: User "olivia" cannot impersonate resource "users" in API group "" at the cluster scope/,
      );
    } finally {
      await ko.cleanup();
    }
  });
});

describe('agent endpoint security', () => {
  it('refuses unauthenticated and untrusted callers; asks the server about the rest', async () => {
    const port = cluster.nodes[0]!.port;
    const base = `https://127.0.0.1:${port}`;
    const pki = await ensureClusterPKI(join(dir, 'pki'));
    const adminCert = { certPem: pki.admin.certPem, keyPem: pki.admin.keyPem };
    await waitFor(
      'node-1 serving',
      async () => ((await raw(`${base}/configz`, { cert: adminCert })).status === 200 ? true : undefined),
      { timeoutMs: 30_000, stepMs: 100 },
    );
    for (const path of ['/configz', '/metrics']) {
      assert.equal((await raw(`${base}${path}`)).status, 401, `${path} without a certificate`);
      const foreign = await issueCert(await createCA('foreign'), {
        commonName: 'admin',
        organizations: ['system:masters'],
        usages: ['client'],
      });
      assert.equal(
        (await raw(`${base}${path}`, { cert: foreign })).status,
        401,
        `${path} with an untrusted certificate`,
      );
      assert.equal((await raw(`${base}${path}`, { cert: adminCert })).status, 200);
    }
    const node2 = await identity('system:node:node-2', ['system:nodes']);
    const denied = await raw(`${base}/configz`, { cert: node2 });
    assert.equal(denied.status, 403);
    assert.equal(denied.body, 'Forbidden (user=system:node:node-2, verb=get, resource=nodes, subresource=proxy)\n');
    const olivia = await identity('olivia');
    assert.equal(
      (await raw(`${base}/configz`, { cert: olivia })).status,
      200,
      'nodes/proxy is granted to the operator',
    );
    const metrics = await raw(`${base}/metrics`, { cert: olivia });
    assert.equal(metrics.status, 403);
    assert.match(metrics.body, /subresource=metrics/);

    const out = JSON.parse(await k.ok(['get', '--raw', '/api/v1/nodes/node-1/proxy/configz'])) as {
      kubeletconfig: { authorization: { mode: string } };
    };
    assert.equal(out.kubeletconfig.authorization.mode, 'Webhook');
  });
});

describe('node proxy identity', () => {
  it('a nodes/proxy grant never reaches the API server itself, and the proxy holds no admin rights', async () => {
    // A least-privilege operator: the built-in group holds get nodes/proxy.
    const oscar = await identity('oscar', ['dkc:node-config-operators']);
    const server = new URL(cluster.serverURL);
    const viaProxy = (path: string) => raw(`${cluster.serverURL}${path}`, { cert: oscar });
    const own = await viaProxy(`/api/v1/nodes/node-1:${server.port}/proxy/api/v1/namespaces`);
    assert.equal(own.status, 400, own.body);
    assert.equal((JSON.parse(own.body) as { message: string }).message, 'address not allowed');
    assert.doesNotMatch(own.body, /NamespaceList/);
    // A Node whose reported endpoint is the API server's own listener is refused the same way.
    await admin.create('/api/v1/nodes', { metadata: { name: 'decoy' } });
    await admin.update('/api/v1/nodes/decoy/status', {
      metadata: { name: 'decoy' },
      status: {
        addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
        daemonEndpoints: { kubeletEndpoint: { Port: Number(server.port) } },
      },
    });
    const decoy = await viaProxy('/api/v1/nodes/decoy/proxy/api/v1/namespaces');
    assert.equal(decoy.status, 400, decoy.body);
    await admin.delete('/api/v1/nodes/decoy');
    // The real agent still answers through the proxy: its Webhook authorizer asks the API server, and RBAC's
    // system:kubelet-api-admin lets the proxy's identity through.
    const configz = await viaProxy('/api/v1/nodes/node-1/proxy/configz');
    assert.equal(configz.status, 200, configz.body);
    assert.ok((JSON.parse(configz.body) as { kubeletconfig?: unknown }).kubeletconfig);

    const pki = await ensureClusterPKI(join(dir, 'pki'));
    const proxyCert = { certPem: pki.apiserverKubeletClient.certPem, keyPem: pki.apiserverKubeletClient.keyPem };
    const namespaces = await raw(`${cluster.serverURL}/api/v1/namespaces`, { cert: proxyCert });
    assert.equal(namespaces.status, 403, 'the proxy identity reads no more than RBAC grants it');
    assert.equal((await raw(`${cluster.serverURL}/api/v1/nodes`, { cert: proxyCert })).status, 200);
  });
});

describe('fuzzed identities', () => {
  const api = () => cluster.serverURL;
  const probes: { method: string; path: string; body?: string; headers?: Record<string, string> }[] = [
    { method: 'GET', path: `${NS}/cfg-a` },
    { method: 'GET', path: `${NS}?fieldSelector=metadata.name%3Dcfg-a` },
    { method: 'GET', path: '/api/v1/nodes' },
    {
      method: 'PATCH',
      path: '/api/v1/nodes/node-1',
      body: JSON.stringify(assign('cfg-b')),
      headers: { 'content-type': 'application/merge-patch+json' },
    },
    {
      method: 'POST',
      path: '/api/v1/nodes',
      body: JSON.stringify({ metadata: { name: 'node-9' }, ...assign('cfg-a') }),
    },
    {
      method: 'POST',
      path: '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases',
      body: JSON.stringify({ metadata: { name: 'node-1' } }),
    },
    { method: 'DELETE', path: '/api/v1/nodes/node-2' },
    { method: 'GET', path: '/api/v1/nodes/node-1/proxy/configz' },
    { method: 'GET', path: '/apis/rbac.authorization.k8s.io/v1/clusterroles' },
    {
      method: 'GET',
      path: `${NS}/cfg-a`,
      headers: { 'Impersonate-User': 'admin', 'Impersonate-Group': 'system:masters' },
    },
  ];

  it('odd certificate identities get 401/403 (or what a node may do), never 5xx', async () => {
    const odd: [string, string[]][] = [
      ['system:node:', ['system:nodes']],
      ['system:node:', []],
      ['system:node:node-1', []],
      ['node-1', ['system:nodes']],
      ['system:node:node-1:extra', ['system:nodes']],
      ['system:node:../node-1', ['system:nodes']],
      ['system:masters', ['system:nodes']],
      ['x'.repeat(200), ['system:nodes', 'system:authenticated']],
      ['system:node:nöde-ü "quoted"', ['system:nodes']],
    ];
    for (const [cn, orgs] of odd) {
      const cert = await identity(cn, orgs.filter(Boolean));
      for (const p of probes) {
        const r = await raw(`${api()}${p.path}`, {
          cert,
          method: p.method,
          ...(p.body ? { body: p.body } : {}),
          ...(p.headers ? { headers: p.headers } : {}),
        });
        assert.ok(r.status < 500, `${cn} ${JSON.stringify(orgs)} ${p.method} ${p.path} → ${r.status} ${r.body}`);
        const fine = r.status === 401 || r.status === 403 || r.status === 404;
        const nodeRead =
          p.method === 'GET' &&
          p.path === '/api/v1/nodes' &&
          orgs.includes('system:nodes') &&
          cn.startsWith('system:node:') &&
          cn !== 'system:node:';
        assert.ok(fine || nodeRead, `${cn} ${JSON.stringify(orgs)} ${p.method} ${p.path} → ${r.status} ${r.body}`);
      }
    }
  });

  it('random impersonation headers from an unprivileged user are refused with 400/403', async () => {
    const cert = await identity('mallory', ['devs']);
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          user: fc.option(
            fc.string({ maxLength: 40 }).filter((s) => /^[\x21-\x7e]*$/.test(s)),
            { nil: undefined },
          ),
          groups: fc.array(fc.constantFrom('system:masters', 'system:nodes', '', 'devs', 'system:authenticated'), {
            maxLength: 3,
          }),
        }),
        async ({ user, groups }) => {
          const headers: Record<string, string | string[]> = {};
          if (user !== undefined) headers['Impersonate-User'] = user;
          if (groups.length) headers['Impersonate-Group'] = groups;
          const r = await raw(`${api()}/api/v1/nodes`, { cert, headers });
          const expected = user === undefined && groups.length === 0 ? [403] : [400, 403];
          assert.ok(expected.includes(r.status), `${JSON.stringify(headers)} → ${r.status} ${r.body}`);
        },
      ),
      { numRuns: 60, seed: 7 },
    );
  });

  it('an unauthenticated caller gets 401 everywhere but the health endpoints', async () => {
    assert.equal((await raw(`${api()}/api/v1/nodes`)).status, 401);
    assert.equal(
      (await raw(`${api()}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`, { method: 'POST', body: '{}' }))
        .status,
      401,
    );
    assert.equal((await raw(`${api()}/healthz`)).status, 200);
  });
});
