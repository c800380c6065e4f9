// Who tries what, and what they get: CustomResourceDefinitions that name a built-in's resource or a protected group,
// a status forged when a custom object is created, and the node proxy aimed, by what a node writes about itself, at
// the API server or at another node's agent. Against a local cluster as `dkc up` runs it (a server and two agents),
// each row through kubectl 1.32 as the identities it names, each with a certificate of the cluster CA:
//
//   crd-admin        may create, read and delete CustomResourceDefinitions, nothing else
//   rollout-author   may create and read NodeConfigRollouts (and assign node config, which creating one may need)
//   node rogue       a node credential, system:node:rogue; it may register its own Node, status included
//   oscar            may get nodes/proxy on every node (the built-in node-config operators' group)
//   olga             may get nodes/proxy on node-1 only
//
// `gets` is what kubectl prints on failure (its first line), or what the row observes on success; ports are shown
// as <API port> and <node-2's port>.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureClusterPKI, issueCert, writeKubeconfig } from '../../src/pki/index.js';
import { startCluster, type Cluster } from '../../src/up/cluster.js';
import { kubectl, type Kubectl } from '../helpers/kubectl.js';
import { waitFor } from '../helpers/wait.js';

type Who = 'admin' | 'crd-admin' | 'rollout-author' | 'rogue' | 'oscar' | 'olga';

interface Row {
  who: string;
  tries: string;
  gets: string;
  /** Does what `tries` says and reports the outcome in the words of `gets`. */
  run: () => Promise<string>;
}

const APPROVAL_REVIEW = 'https://github.com/kubernetes/enhancements/pull/1111';

let dir: string;
let cluster: Cluster;
let apiPort: number;
let node2Port: number;
const as = new Map<Who, Kubectl>();

function k(who: Who): Kubectl {
  return as.get(who)!;
}

/** The first line kubectl printed for a failure, or `ok(stdout)` for a success; ports by name. */
async function attempt(who: Who, args: string[], ok: (stdout: string) => string, input?: string): Promise<string> {
  const r = await k(who).run(args, input === undefined ? {} : { input });
  const out = r.code === 0 ? ok(r.stdout) : (r.stderr.trim().split('\n')[0] ?? '');
  return out.replaceAll(String(apiPort), '<API port>').replaceAll(String(node2Port), "<node-2's port>");
}

function crd(
  group: string,
  plural: string,
  kind: string,
  scope: 'Cluster' | 'Namespaced',
  annotations: Record<string, string>,
): string {
  return JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}`, annotations },
    spec: {
      group,
      scope,
      names: { plural, singular: kind.toLowerCase(), kind },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  });
}

async function names(resource: string): Promise<string> {
  return k('admin').ok(['get', resource, '-A', '-o', 'name']);
}

async function condition(name: string, type: string): Promise<string> {
  const got = JSON.parse(await k('admin').ok(['get', 'crd', name, '-o', 'json'])) as {
    status?: { conditions?: { type: string; status: string; reason: string }[] };
  };
  const c = got.status?.conditions?.find((x) => x.type === type);
  return c ? `${type}=${c.status} (${c.reason})` : `no ${type}`;
}

/** A CRD whose names a built-in resource has, created and deleted by crd-admin: what is left of the built-in's objects. */
async function collide(group: string, plural: string, kind: string, scope: 'Cluster' | 'Namespaced'): Promise<string> {
  const resource = `${plural}.${group}`;
  const before = await names(resource);
  const created = await attempt(
    'crd-admin',
    ['create', '-f', '-'],
    () => '',
    crd(group, plural, kind, scope, { 'api-approved.kubernetes.io': 'unapproved, a name taken on purpose' }),
  );
  if (created) return created;
  const accepted = await condition(resource, 'NamesAccepted');
  const deleted = await attempt('crd-admin', ['delete', 'crd', resource], () => '');
  if (deleted) return deleted;
  const after = await names(resource);
  const lost = before.split('\n').filter((n) => n && !after.split('\n').includes(n)).length;
  return `${accepted}; ${lost === 0 ? `every ${kind} remains` : `${lost} ${kind}s are gone`}`;
}

/** Node rogue registers itself at `address` with `port` as its kubelet port (replacing an earlier registration). */
async function rogueRegisters(address: string, port: number): Promise<void> {
  await k('admin').run(['delete', 'node', 'rogue', '--ignore-not-found']);
  const node = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'rogue' },
    status: { addresses: [{ type: 'InternalIP', address }], daemonEndpoints: { kubeletEndpoint: { Port: port } } },
  };
  await k('rogue').ok(['create', '-f', '-'], { input: JSON.stringify(node) });
}

const proxied = (stdout: string): string => {
  const body = JSON.parse(stdout) as { kind?: string; kubeletconfig?: unknown };
  return body.kubeletconfig ? 'a KubeletConfiguration (200)' : `a ${body.kind ?? 'body'} (200)`;
};

const table: Row[] = [
  {
    who: 'crd-admin',
    tries: 'creates CRD clusterroles.rbac.authorization.k8s.io, then deletes it',
    gets: 'NamesAccepted=False (NameConflict); every ClusterRole remains',
    run: () => collide('rbac.authorization.k8s.io', 'clusterroles', 'ClusterRole', 'Cluster'),
  },
  {
    who: 'crd-admin',
    tries: 'creates CRD leases.coordination.k8s.io, then deletes it',
    gets: 'NamesAccepted=False (NameConflict); every Lease remains',
    run: () => collide('coordination.k8s.io', 'leases', 'Lease', 'Namespaced'),
  },
  {
    who: 'crd-admin',
    tries: 'creates CRD widgets.example.k8s.io without the api-approved.kubernetes.io annotation',
    gets: 'The CustomResourceDefinition "widgets.example.k8s.io" is invalid: metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
    run: () =>
      attempt(
        'crd-admin',
        ['create', '-f', '-'],
        () => 'created',
        crd('example.k8s.io', 'widgets', 'Widget', 'Namespaced', {}),
      ),
  },
  {
    who: 'crd-admin',
    tries: 'creates CRD widgets.kubernetes.io with api-approved.kubernetes.io: "approved"',
    gets: 'The CustomResourceDefinition "widgets.kubernetes.io" is invalid: metadata.annotations[api-approved.kubernetes.io]: Invalid value: "approved": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111',
    run: () =>
      attempt(
        'crd-admin',
        ['create', '-f', '-'],
        () => 'created',
        crd('kubernetes.io', 'widgets', 'Widget', 'Namespaced', { 'api-approved.kubernetes.io': 'approved' }),
      ),
  },
  {
    who: 'crd-admin',
    tries: 'creates CRD gadgets.example.k8s.io with api-approved.kubernetes.io set to the URL of its API review',
    gets: 'created; KubernetesAPIApprovalPolicyConformant=True (ApprovedAnnotation)',
    run: async () => {
      const input = crd('example.k8s.io', 'gadgets', 'Gadget', 'Namespaced', {
        'api-approved.kubernetes.io': APPROVAL_REVIEW,
      });
      const created = await attempt('crd-admin', ['create', '-f', '-'], () => 'created', input);
      return created === 'created'
        ? `created; ${await condition('gadgets.example.k8s.io', 'KubernetesAPIApprovalPolicyConformant')}`
        : created;
    },
  },
  {
    who: 'rollout-author',
    tries: 'creates a NodeConfigRollout carrying status.phase: Succeeded',
    gets: 'created without a status',
    run: () => {
      const forged = {
        apiVersion: 'dkc.io/v1alpha1',
        kind: 'NodeConfigRollout',
        metadata: { name: 'forged-success' },
        spec: { nodeSelector: { matchLabels: { pool: 'nobody' } }, configSource: {} },
        status: { phase: 'Succeeded' },
      };
      return attempt(
        'rollout-author',
        ['create', '-f', '-', '-o', 'json'],
        (out) => {
          const status = (JSON.parse(out) as { status?: { phase?: string } }).status;
          return status === undefined
            ? 'created without a status'
            : `created with status.phase ${status.phase ?? '(none)'}`;
        },
        JSON.stringify(forged),
      );
    },
  },
  {
    who: 'node rogue, then oscar',
    tries:
      'rogue registers at 0.0.0.0 with the API port as kubelet port; oscar GETs nodes/rogue/proxy/api/v1/nodes/node-2/proxy/configz',
    gets: 'Error from server (BadRequest): address not allowed',
    run: async () => {
      await rogueRegisters('0.0.0.0', apiPort);
      return attempt('oscar', ['get', '--raw', '/api/v1/nodes/rogue/proxy/api/v1/nodes/node-2/proxy/configz'], proxied);
    },
  },
  {
    who: 'node rogue, then oscar',
    tries: 'rogue registers at 0.0.0.0 with its own port; oscar GETs nodes/rogue:<API port>/proxy/api/v1/nodes',
    gets: 'Error from server (BadRequest): address not allowed',
    run: async () => {
      await rogueRegisters('0.0.0.0', node2Port + 1);
      return attempt('oscar', ['get', '--raw', `/api/v1/nodes/rogue:${apiPort}/proxy/api/v1/nodes`], proxied);
    },
  },
  {
    who: 'olga',
    tries: "GETs nodes/node-1:<node-2's port>/proxy/configz (node-1 is at 127.0.0.1, as node-2 is)",
    gets: `Error from server (BadRequest): port <node-2's port> is not the kubelet port of node "node-1"`,
    run: () => attempt('olga', ['get', '--raw', `/api/v1/nodes/node-1:${node2Port}/proxy/configz`], proxied),
  },
  {
    who: 'olga',
    tries: 'GETs nodes/node-1/proxy/configz (what her grant is for)',
    gets: 'a KubeletConfiguration (200)',
    run: () => attempt('olga', ['get', '--raw', '/api/v1/nodes/node-1/proxy/configz'], proxied),
  },
];

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dkc-security-crd-proxy-'));
  cluster = await startCluster({ dataDir: dir, nodes: 2, port: 0 });
  apiPort = Number(new URL(cluster.serverURL).port);
  node2Port = cluster.nodes[1]!.port;
  const pki = await ensureClusterPKI(join(dir, 'pki'));
  const ca = { certPem: pki.ca.certPem, keyPem: pki.ca.keyPem! };
  as.set('admin', await kubectl('1.32', cluster.kubeconfig));
  const identities: [Who, string, string[]][] = [
    ['crd-admin', 'crd-admin', []],
    ['rollout-author', 'rollout-author', []],
    ['rogue', 'system:node:rogue', ['system:nodes']],
    ['oscar', 'oscar', ['dkc:node-config-operators']],
    ['olga', 'olga', []],
  ];
  for (const [who, cn, organizations] of identities) {
    const cert = await issueCert(ca, { commonName: cn, organizations, usages: ['client'] });
    const kubeconfig = join(dir, `${who}.kubeconfig`);
    await writeKubeconfig(kubeconfig, {
      server: cluster.serverURL,
      caPem: pki.ca.certPem,
      certPem: cert.certPem,
      keyPem: cert.keyPem,
      user: cn,
    });
    as.set(who, await kubectl('1.32', kubeconfig));
  }
  const grants = [
    {
      name: 'crd-admin',
      user: 'crd-admin',
      rules: [
        {
          apiGroups: ['apiextensions.k8s.io'],
          resources: ['customresourcedefinitions'],
          verbs: ['create', 'get', 'list', 'watch', 'delete'],
        },
      ],
    },
    {
      name: 'rollout-author',
      user: 'rollout-author',
      rules: [
        { apiGroups: ['dkc.io'], resources: ['nodeconfigrollouts'], verbs: ['create', 'get'] },
        { apiGroups: [''], resources: ['nodes/configsource'], verbs: ['update'] },
      ],
    },
    {
      name: 'olga',
      user: 'olga',
      rules: [{ apiGroups: [''], resources: ['nodes/proxy'], resourceNames: ['node-1'], verbs: ['get'] }],
    },
  ];
  for (const g of grants) {
    await k('admin').ok(['create', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: g.name },
        rules: g.rules,
      }),
    });
    await k('admin').ok(['create', 'clusterrolebinding', g.name, `--clusterrole=${g.name}`, `--user=${g.user}`]);
  }
  for (const n of cluster.nodes) {
    await waitFor(
      `${n.name} serving /configz through the proxy`,
      async () =>
        (await k('admin').run(['get', '--raw', `/api/v1/nodes/${n.name}/proxy/configz`])).code === 0 ? true : undefined,
      60_000,
    );
  }
});

after(async () => {
  for (const kc of as.values()) await kc.cleanup();
  await cluster?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('CRDs and the node proxy: who tries what, and what they get', () => {
  for (const row of table) {
    it(`${row.who} ${row.tries} → ${row.gets}`, async () => {
      assert.equal(await row.run(), row.gets);
    });
  }
});
