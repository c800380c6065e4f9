// The manifests a cluster admin applies for NodeConfig on a real cluster — the dkc.io CRDs (deploy/crds/), the nodes'
// RBAC and the ValidatingAdmissionPolicies (deploy/nodeconfig/) — checked offline, since no kube-apiserver runs here:
// - each validates against upstream's schema for its kind (the npm package kubernetes-models, generated from
//   Kubernetes' OpenAPI), and the bindings name what exists;
// - each policy's CEL, evaluated with @bufbuild/cel against sample requests, gives the verdicts dkc server gives the
//   same requests with its own code (Node authorizer, NodeRestriction, the revert-record admission) — a node's own
//   status update allowed, another node's refused, and so on;
// - the CRD's x-kubernetes-validations give, for sample sources, exactly the errors of upstream's rules that dkc
//   server reports (the fields upstream requires or forbids);
// - the CRDs and the RBAC are accepted by `kubectl apply --dry-run=server` against dkc server.

import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { ValidatingAdmissionPolicy } from 'kubernetes-models/admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy';
import { ValidatingAdmissionPolicyBinding } from 'kubernetes-models/admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding';
import { CustomResourceDefinition } from 'kubernetes-models/apiextensions.k8s.io/v1/CustomResourceDefinition';
import { ClusterRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole';
import { ClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { DaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import { defaultClusterRoles, defaultRoles } from '../../src/server/auth/rbacresources.js';
import { validateNodeConfig, type NodeConfig } from '../../src/api/dkc/index.js';
import type { AdmissionAttributes } from '../../src/server/authz.js';
import { NodeAuthorizer } from '../../src/server/auth/nodeauthorizer.js';
import { NodeGraph } from '../../src/server/auth/nodegraph.js';
import { nodeConfigRefusal } from '../../src/server/auth/nodeconfigrestriction.js';
import { writesRevertRecord } from '../../src/server/nodeconfig/admission.js';
import {
  CONFIG_NAMESPACE,
  CONTROLLER_USER,
  GARBAGE_COLLECTOR_USER,
  NAMESPACE_CONTROLLER_USER,
} from '../../src/api/dkc/identity.js';
import type { ResourceDef } from '../../src/server/resourcedef.js';
import { kubectl, type Kubectl } from '../helpers/kubectl.js';
import { repoRoot, startServer, type RunningServer } from '../helpers/server.js';
import { admit, crdRuleErrors, evaluate, type AdmissionRequest } from './cel.js';
import { goRegExp } from '../../src/server/crd/regexp.js';
import { isConfigMapKey, isDNS1123Label, isDNS1123Subdomain } from '../../src/api/validation/names.js';

type Doc = { apiVersion: string; kind: string; metadata: { name: string }; [k: string]: unknown };

const CRD_DIR = join(repoRoot, 'deploy/crds');
const NODECONFIG_DIR = join(repoRoot, 'deploy/nodeconfig');
const CONTROLLER_DIR = join(repoRoot, 'deploy/controller');
const OPTIONAL_DIR = join(CONTROLLER_DIR, 'optional');
const NODE_DAEMON_DIR = join(repoRoot, 'deploy/node-daemon');

async function docsIn(dir: string): Promise<{ file: string; doc: Doc }[]> {
  const out: { file: string; doc: Doc }[] = [];
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.yaml')).sort()) {
    for (const d of parseAllDocuments(await readFile(join(dir, file), 'utf8'))) {
      assert.deepEqual(d.errors, [], `${file}: YAML errors`);
      out.push({ file, doc: d.toJS() as Doc });
    }
  }
  return out;
}

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apiextensions.k8s.io/v1/CustomResourceDefinition': CustomResourceDefinition,
  'rbac.authorization.k8s.io/v1/ClusterRole': ClusterRole,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': ClusterRoleBinding,
  'rbac.authorization.k8s.io/v1/Role': Role,
  'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding,
  'v1/ServiceAccount': ServiceAccount,
  'v1/Namespace': Namespace,
  'apps/v1/DaemonSet': DaemonSet,
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy': ValidatingAdmissionPolicy,
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding': ValidatingAdmissionPolicyBinding,
};

describe("deploy/: the manifests against upstream's schemas (kubernetes-models)", () => {
  it('every document validates as its kind', async () => {
    const dirs = [CRD_DIR, NODECONFIG_DIR, CONTROLLER_DIR, OPTIONAL_DIR, NODE_DAEMON_DIR];
    const docs = (await Promise.all(dirs.map(docsIn))).flat();
    assert.ok(docs.length >= 7, `found ${docs.length} documents`);
    // dkc.io objects (the default NodeConfigPolicy) have no upstream schema: dkc server's CRD validates them, below.
    for (const { file, doc } of docs.filter((d) => !d.doc.apiVersion.startsWith('dkc.io/'))) {
      const Model = MODELS[`${doc.apiVersion}/${doc.kind}`];
      assert.ok(Model, `${file}: no schema for ${doc.apiVersion} ${doc.kind}`);
      assert.doesNotThrow(() => new Model(doc as never).validate(), `${file}: ${doc.kind} ${doc.metadata.name}`);
    }
  });

  it('each binding names a policy or role shipped beside it, and every policy is bound', async () => {
    const docs = (await docsIn(NODECONFIG_DIR)).map((d) => d.doc);
    const named = (kind: string) =>
      docs
        .filter((d) => d.kind === kind)
        .map((d) => d.metadata.name)
        .sort();
    const policies = named('ValidatingAdmissionPolicy');
    const bound = docs
      .filter((d) => d.kind === 'ValidatingAdmissionPolicyBinding')
      .map((d) => (d['spec'] as { policyName: string }).policyName)
      .sort();
    assert.deepEqual(bound, policies);
    for (const d of docs.filter((x) => x.kind === 'ValidatingAdmissionPolicyBinding')) {
      assert.deepEqual((d['spec'] as { validationActions: string[] }).validationActions, ['Deny']);
    }
    const roles = named('ClusterRole');
    for (const d of docs.filter((x) => x.kind === 'ClusterRoleBinding'))
      assert.ok(roles.includes((d['roleRef'] as { name: string }).name));
  });
});

// ---- the policies' CEL against sample requests, beside dkc server's own decisions ----

const SOURCE = { configMap: { namespace: 'kube-system', name: 'cfg-a', kubeletConfigKey: 'kubelet' } };
const ACTIVE = { configMap: { ...SOURCE.configMap, uid: 'u-a', resourceVersion: '1' } };
const owned = (node: string, extra: object = {}) => ({
  name: node,
  uid: `uid-${node}`,
  ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node, uid: `uid-${node}`, ...extra }],
});
const nc = (name: string, spec: object = {}, status: object = {}, meta: object = owned(name)) => ({
  apiVersion: 'dkc.io/v1alpha1',
  kind: 'NodeConfig',
  metadata: { ...meta },
  spec,
  status,
});
const STORED = nc('node-1', { configSource: SOURCE });
const STORED_WITH_RECORD = nc('node-1', { configSource: SOURCE }, { previous: { configSource: {}, rollout: 'r0' } });

const node = (n: string) => ({ username: `system:node:${n}`, groups: ['system:nodes', 'system:authenticated'] });
const ADMIN = { username: 'admin', groups: ['system:masters', 'system:authenticated'] };
const CONTROLLER = { username: CONTROLLER_USER, groups: ['system:authenticated'] };

interface Sample {
  what: string;
  user: { username: string; groups: string[] };
  operation: AdmissionRequest['operation'];
  subResource?: string;
  name: string;
  object?: object;
  oldObject?: object;
  /** On a real cluster, RBAC (deploy/nodeconfig/rbac.yaml for nodes; admins and the controller hold their verbs) and the policies. */
  allowed: boolean;
}

const samples: Sample[] = [
  {
    what: "a node's own status update",
    user: node('node-1'),
    operation: 'UPDATE',
    subResource: 'status',
    name: 'node-1',
    object: nc('node-1', { configSource: SOURCE }, { config: { active: ACTIVE } }),
    oldObject: STORED,
    allowed: true,
  },
  {
    what: "another node's status update",
    user: node('node-2'),
    operation: 'UPDATE',
    subResource: 'status',
    name: 'node-1',
    object: nc('node-1', { configSource: SOURCE }, { config: { error: 'x' } }),
    oldObject: STORED,
    allowed: false,
  },
  {
    what: 'a node creating its own, owned by itself',
    user: node('node-1'),
    operation: 'CREATE',
    name: 'node-1',
    object: nc('node-1'),
    allowed: true,
  },
  {
    what: "a node creating another node's",
    user: node('node-1'),
    operation: 'CREATE',
    name: 'node-2',
    object: nc('node-2'),
    allowed: false,
  },
  {
    what: 'a node creating its own with a configSource',
    user: node('node-1'),
    operation: 'CREATE',
    name: 'node-1',
    object: nc('node-1', { configSource: SOURCE }),
    allowed: false,
  },
  {
    what: 'a node creating its own owned by another node',
    user: node('node-1'),
    operation: 'CREATE',
    name: 'node-1',
    object: nc('node-1', {}, {}, { name: 'node-1', ownerReferences: owned('node-2').ownerReferences }),
    allowed: false,
  },
  {
    what: 'a node creating its own with blockOwnerDeletion',
    user: node('node-1'),
    operation: 'CREATE',
    name: 'node-1',
    object: nc('node-1', {}, {}, owned('node-1', { blockOwnerDeletion: true })),
    allowed: false,
  },
  {
    what: 'a node changing its own spec',
    user: node('node-1'),
    operation: 'UPDATE',
    name: 'node-1',
    object: nc('node-1', { configSource: { configMap: { ...SOURCE.configMap, name: 'cfg-b' } } }),
    oldObject: STORED,
    allowed: false,
  },
  {
    what: 'a node deleting its own',
    user: node('node-1'),
    operation: 'DELETE',
    name: 'node-1',
    oldObject: STORED,
    allowed: false,
  },
  {
    what: 'a node writing the revert record in its status',
    user: node('node-1'),
    operation: 'UPDATE',
    subResource: 'status',
    name: 'node-1',
    object: STORED_WITH_RECORD,
    oldObject: STORED,
    allowed: false,
  },
  {
    what: 'a node removing the revert record',
    user: node('node-1'),
    operation: 'UPDATE',
    subResource: 'status',
    name: 'node-1',
    object: STORED,
    oldObject: STORED_WITH_RECORD,
    allowed: false,
  },
  {
    what: 'a node reporting status beside the record, which it leaves alone',
    user: node('node-1'),
    operation: 'UPDATE',
    subResource: 'status',
    name: 'node-1',
    object: nc(
      'node-1',
      { configSource: SOURCE },
      { previous: { configSource: {}, rollout: 'r0' }, config: { error: 'x' } },
    ),
    oldObject: STORED_WITH_RECORD,
    allowed: true,
  },
  {
    what: 'the admin assigning config',
    user: ADMIN,
    operation: 'UPDATE',
    name: 'node-1',
    object: nc('node-1', { configSource: { configMap: { ...SOURCE.configMap, name: 'cfg-b' } } }),
    oldObject: STORED,
    allowed: true,
  },
  {
    what: 'the admin writing the revert record',
    user: ADMIN,
    operation: 'UPDATE',
    subResource: 'status',
    name: 'node-1',
    object: STORED_WITH_RECORD,
    oldObject: STORED,
    allowed: false,
  },
  {
    what: 'the admin creating one with a revert record',
    user: ADMIN,
    operation: 'CREATE',
    name: 'node-1',
    object: STORED_WITH_RECORD,
    allowed: false,
  },
  {
    what: 'the controller writing the revert record',
    user: CONTROLLER,
    operation: 'UPDATE',
    subResource: 'status',
    name: 'node-1',
    object: STORED_WITH_RECORD,
    oldObject: STORED,
    allowed: true,
  },
  {
    what: 'the controller creating one for a node',
    user: CONTROLLER,
    operation: 'CREATE',
    name: 'node-3',
    object: nc('node-3', { configSource: SOURCE }),
    allowed: true,
  },
];

type RbacRule = { apiGroups: string[]; resources: string[]; verbs: string[] };

/** Real-cluster RBAC as the shipped file grants it to nodes; others hold their verbs. */
function rbacAllows(rules: RbacRule[], s: Sample): boolean {
  if (!s.user.groups.includes('system:nodes')) return true;
  const verb = s.operation === 'CREATE' ? 'create' : s.operation === 'DELETE' ? 'delete' : 'update';
  const resource = s.subResource ? `nodeconfigs/${s.subResource}` : 'nodeconfigs';
  return rules.some((r) => r.apiGroups.includes('dkc.io') && r.resources.includes(resource) && r.verbs.includes(verb));
}

/** What dkc server decides with its own code: the Node authorizer (nodes only), NodeRestriction, the revert record. */
function dkcAllows(s: Sample): boolean {
  const isNode = s.user.groups.includes('system:nodes');
  const nodeName = s.user.username.slice('system:node:'.length);
  const verb = s.operation === 'CREATE' ? 'create' : s.operation === 'DELETE' ? 'delete' : 'update';
  if (isNode) {
    const authorizer = new NodeAuthorizer({ configMaps: [new NodeGraph()] });
    const attrs = {
      user: { name: s.user.username, groups: s.user.groups },
      verb,
      isResourceRequest: true,
      path: '',
      apiGroup: 'dkc.io',
      apiVersion: 'v1alpha1',
      resource: 'nodeconfigs',
      subresource: s.subResource ?? '',
      namespace: '',
      name: s.operation === 'CREATE' ? '' : s.name,
    };
    if (authorizer.authorize(attrs).decision !== 'allow') return false;
  }
  const a: AdmissionAttributes = {
    user: { name: s.user.username, groups: s.user.groups },
    operation: s.operation,
    resource: { group: 'dkc.io', plural: 'nodeconfigs', kind: 'NodeConfig' } as ResourceDef,
    subresource: s.subResource ?? '',
    namespace: '',
    name: s.name,
    ...(s.object ? { object: structuredClone(s.object) as NodeConfig } : {}),
    ...(s.oldObject ? { oldObject: structuredClone(s.oldObject) as NodeConfig } : {}),
    dryRun: false,
  };
  if (isNode && nodeConfigRefusal(nodeName, a)) return false;
  return !(writesRevertRecord(a) && s.user.username !== CONTROLLER_USER);
}

type Rule = { apiGroups?: string[]; resources?: string[]; verbs?: string[]; resourceNames?: string[] };
/** Rules as comparable lines, one per group × resource × name, with their verbs sorted. */
const ruleLines = (rules: Rule[]): string[] =>
  rules
    .flatMap((r) =>
      (r.apiGroups ?? []).flatMap((g) =>
        (r.resources ?? []).flatMap((res) =>
          (r.resourceNames ?? ['*']).map((n) => `${g}/${res}/${n}: ${[...(r.verbs ?? [])].sort().join(',')}`),
        ),
      ),
    )
    .sort();

describe('deploy/controller/: the rollout controller on a real cluster', () => {
  it("holds exactly dkc server's own controller rights, less nodes/configsource (which only dkc server has); the collector's and the namespace controller's are optional and their own", async () => {
    const docs = (await docsIn(CONTROLLER_DIR)).map((d) => d.doc);
    const optional = (await docsIn(OPTIONAL_DIR)).map((d) => d.doc);
    const shipped = (from: Doc[], kind: string, ns?: string, name = 'dkc:controller'): string[] =>
      ruleLines(
        from
          .filter(
            (d) =>
              d.kind === kind &&
              d.metadata.name === name &&
              (ns === undefined || (d.metadata as { namespace?: string }).namespace === ns),
          )
          .flatMap((d) => d['rules'] as Rule[]),
      );
    const own = (objs: KubeObjectLike[], ns?: string, user = CONTROLLER_USER): string[] =>
      ruleLines(
        objs
          .filter((o) => o.metadata.name === user && (ns === undefined || o.metadata.namespace === ns))
          .flatMap((o) => o.rules),
      );
    const withoutConfigSource = (lines: string[]) => lines.filter((l) => !l.startsWith('/nodes/configsource/'));
    assert.deepEqual(
      shipped(docs, 'ClusterRole'),
      withoutConfigSource(own(defaultClusterRoles as unknown as KubeObjectLike[])),
    );
    // The default install holds the rollout and node lifecycle controllers' roles only.
    assert.deepEqual(
      docs.filter((d) => d.kind === 'ClusterRole').map((d) => d.metadata.name),
      ['dkc:controller'],
    );
    // ConfigMaps are written in dkc's config namespace only: the leader Lease in kube-system, nothing else there.
    for (const ns of ['kube-system', 'kube-node-lease', CONFIG_NAMESPACE])
      assert.deepEqual(shipped(docs, 'Role', ns), own(defaultRoles as unknown as KubeObjectLike[], ns), ns);
    assert.deepEqual(shipped(docs, 'Role', 'kube-system'), [
      'coordination.k8s.io/leases/*: create',
      'coordination.k8s.io/leases/dkc-controller: get,update',
    ]);
    const subjects = docs.filter((d) => d.kind.endsWith('Binding')).map((d) => JSON.stringify(d['subjects']));
    assert.deepEqual(
      [...new Set(subjects)],
      [JSON.stringify([{ kind: 'ServiceAccount', name: 'dkc-controller', namespace: 'kube-system' }])],
    );
    // The garbage collector's and the namespace controller's rights (optional/): the server's users of theirs, to the
    // rule, each bound to a ServiceAccount of its own, with a leader Lease of its own.
    const apart = {
      'dkc:controller:generic-garbage-collector': [GARBAGE_COLLECTOR_USER, 'dkc-garbage-collector'],
      'dkc:controller:namespace-controller': [NAMESPACE_CONTROLLER_USER, 'dkc-namespace-controller'],
    };
    for (const [name, [user, account]] of Object.entries(apart)) {
      assert.deepEqual(
        shipped(optional, 'ClusterRole', undefined, name),
        own(defaultClusterRoles as unknown as KubeObjectLike[], undefined, user),
        name,
      );
      assert.deepEqual(shipped(optional, 'Role', 'kube-system', name), [
        'coordination.k8s.io/leases/*: create',
        `coordination.k8s.io/leases/${account}: get,update`,
      ]);
      for (const kind of ['ClusterRoleBinding', 'RoleBinding']) {
        const binding = optional.find((d) => d.kind === kind && d.metadata.name === name);
        assert.deepEqual(
          binding?.['subjects'],
          [{ kind: 'ServiceAccount', name: account, namespace: 'kube-system' }],
          `${kind} ${name}`,
        );
      }
      assert.ok(
        optional.some((d) => d.kind === 'ServiceAccount' && d.metadata.name === account),
        account,
      );
    }
    // The ServiceAccount is the one the revert-record policy lets write status.previous.
    assert.match(
      await readFile(join(NODECONFIG_DIR, 'policy.yaml'), 'utf8'),
      /'system:serviceaccount:kube-system:dkc-controller'/,
    );
  });
});

type KubeObjectLike = { metadata: { name?: string; namespace?: string }; rules: Rule[] };

describe('deploy/nodeconfig/policy.yaml: the policies’ CEL (@bufbuild/cel) against sample requests', () => {
  let policies: { name: string; binding: string; policy: Parameters<typeof admit>[0] }[] = [];
  let nodeRules: RbacRule[] = [];

  before(async () => {
    const docs = (await docsIn(NODECONFIG_DIR)).map((d) => d.doc);
    policies = docs
      .filter((d) => d.kind === 'ValidatingAdmissionPolicy')
      .map((d) => ({
        name: d.metadata.name,
        binding: docs.find(
          (b) =>
            b.kind === 'ValidatingAdmissionPolicyBinding' &&
            (b['spec'] as { policyName: string }).policyName === d.metadata.name,
        )!.metadata.name,
        policy: d as unknown as Parameters<typeof admit>[0],
      }));
    const binding = docs.find(
      (d) =>
        d.kind === 'ClusterRoleBinding' && (d['subjects'] as { name: string }[]).some((x) => x.name === 'system:nodes'),
    )!;
    nodeRules = docs.find(
      (d) => d.kind === 'ClusterRole' && d.metadata.name === (binding['roleRef'] as { name: string }).name,
    )!['rules'] as RbacRule[];
  });

  const verdict = (s: Sample) => {
    const req: AdmissionRequest = {
      userInfo: s.user,
      operation: s.operation,
      resource: { group: 'dkc.io', resource: 'nodeconfigs' },
      subResource: s.subResource ?? '',
      name: s.name,
      object: (s.object ?? null) as never,
      oldObject: (s.oldObject ?? null) as never,
    };
    const denials = policies
      .map((p) => admit(p.policy, p.binding, req))
      .flatMap((r) => (r.matched && r.denied ? [r.denied] : []));
    return { allowed: rbacAllows(nodeRules, s) && denials.length === 0, denials };
  };

  for (const s of samples) {
    it(`${s.what}: ${s.allowed ? 'allowed' : 'refused'} on a real cluster and on dkc server`, () => {
      const real = verdict(s);
      assert.equal(real.allowed, s.allowed, `real cluster: ${real.denials.join('; ') || 'RBAC'}`);
      assert.equal(dkcAllows(s), s.allowed, 'dkc server');
    });
  }

  it("refuses with kube-apiserver's wording, naming the policy and its binding", () => {
    const s = samples.find((x) => x.what === "another node's status update")!;
    assert.deepEqual(verdict(s).denials, [
      "ValidatingAdmissionPolicy 'dkc.io-nodeconfig-node' with binding 'dkc.io-nodeconfig-node' denied request: a node may write only the NodeConfig named after it",
    ]);
  });
});

// ---- the CRD's CEL rules against upstream's validation, as dkc server runs it ----

describe("deploy/crds/nodeconfigs.dkc.io.yaml: x-kubernetes-validations give upstream's messages", () => {
  let schema: Record<string, unknown> = {};

  before(async () => {
    const crd = (await docsIn(CRD_DIR)).find((d) => d.doc.metadata.name === 'nodeconfigs.dkc.io')!.doc as unknown as {
      spec: { versions: { schema: { openAPIV3Schema: Record<string, unknown> } }[] };
    };
    schema = crd.spec.versions[0]!.schema.openAPIV3Schema;
  });

  const cm = (fields: object) => ({ configMap: fields });
  const objects: [string, object][] = [
    [
      'a valid assignment and status',
      nc('n', { configSource: SOURCE }, { config: { assigned: ACTIVE, active: ACTIVE, lastKnownGood: ACTIVE } }),
    ],
    ['an empty source', nc('n', { configSource: {} })],
    ['an empty configMap', nc('n', { configSource: cm({}) })],
    ['empty names', nc('n', { configSource: cm({ namespace: '', name: '', kubeletConfigKey: '' }) })],
    [
      'uid and resourceVersion in spec',
      nc('n', { configSource: cm({ ...SOURCE.configMap, uid: 'u', resourceVersion: '1' }) }),
    ],
    ['a status source without uid and resourceVersion', nc('n', {}, { config: { active: SOURCE, lastKnownGood: {} } })],
  ];

  for (const [what, obj] of objects) {
    it(`${what}: the same required and forbidden fields, with the same messages`, () => {
      const fromCel = crdRuleErrors(schema, obj);
      const fromUpstream = validateNodeConfig(obj as NodeConfig);
      // The format rules (names, keys) are dkc server's alone; upstream's required, forbidden and one-of rules are both's.
      const shared = fromUpstream.filter(
        (e) => e.type !== 'FieldValueInvalid' || e.detail === 'exactly one reference subfield must be non-nil',
      );
      const expected = shared.map((e) =>
        e.type === 'FieldValueInvalid' ? `${e.field}: Invalid value: "object": ${e.detail}` : e.toString(),
      );
      assert.deepEqual([...fromCel].sort(), [...expected].sort());
      if (what.startsWith('a valid')) assert.deepEqual(fromUpstream, []);
      else assert.ok(fromCel.length > 0);
    });
  }
});

// ---- the same manifests sent to dkc server ----

describe('deploy/: kubectl apply --dry-run=server against dkc server', () => {
  let server: RunningServer | undefined;
  let k: Kubectl | undefined;

  before(async () => {
    server = await startServer(['--emulated-version', '1.31']);
    k = await kubectl('1.32', server.kubeconfig);
  });

  after(async () => {
    await k?.cleanup();
    await server?.cleanup();
  });

  it('accepts the dkc.io CRDs, the config namespace, the nodes’ and the controller’s RBAC and the default NodeConfigPolicy', async () => {
    const r = await k!.run([
      'apply',
      '--dry-run=server',
      '-f',
      CRD_DIR,
      '-f',
      join(NODECONFIG_DIR, 'rbac.yaml'),
      '-f',
      join(CONTROLLER_DIR, 'rbac.yaml'),
      '-f',
      join(NODECONFIG_DIR, 'namespace.yaml'),
      '-f',
      join(NODE_DAEMON_DIR, 'rbac.yaml'),
      '-f',
      join(NODECONFIG_DIR, 'default-policy.yaml'),
    ]);
    assert.equal(r.code, 0, r.stderr);
    for (const name of ['nodeconfigpolicies.dkc.io', 'nodeconfigrollouts.dkc.io', 'nodeconfigs.dkc.io']) {
      assert.match(
        r.stdout,
        new RegExp(
          `customresourcedefinition.apiextensions.k8s.io/${name.replace(/\./g, '\\.')} (configured|unchanged) \\(server dry run\\)`,
        ),
      );
    }
    assert.match(r.stdout, /clusterrole\.rbac\.authorization\.k8s\.io\/dkc:nodeconfig:node created \(server dry run\)/);
    assert.match(
      r.stdout,
      /clusterrolebinding\.rbac\.authorization\.k8s\.io\/dkc:nodeconfig:node created \(server dry run\)/,
    );
    assert.match(r.stdout, /role\.rbac\.authorization\.k8s\.io\/dkc:controller created \(server dry run\)/);
    assert.match(r.stdout, /namespace\/dkc-configs (configured|unchanged) \(server dry run\)/);
    assert.match(r.stdout, /nodeconfigpolicy\.dkc\.io\/dkc\.io-privileged-fields created \(server dry run\)/);
    assert.match(r.stdout, /role\.rbac\.authorization\.k8s\.io\/dkc:node-daemon:configs created \(server dry run\)/);
  });

  it('warns about a rollout that names a ConfigMap outside dkc-configs, which nodes of a real cluster cannot read', async () => {
    const rollout = (namespace: string) =>
      JSON.stringify({
        apiVersion: 'dkc.io/v1alpha1',
        kind: 'NodeConfigRollout',
        metadata: { name: 'r-elsewhere' },
        spec: { configSource: { configMap: { namespace, name: 'cfg', kubeletConfigKey: 'kubelet' } } },
      });
    const elsewhere = await k!.run(['create', '--dry-run=server', '-f', '-'], { input: rollout('kube-system') });
    assert.equal(elsewhere.code, 0, elsewhere.stderr);
    assert.match(
      elsewhere.stderr,
      /^Warning: spec\.configSource\.configMap names ConfigMap kube-system\/cfg, outside dkc-configs: on a real cluster nodes may read ConfigMaps in dkc-configs only/m,
    );
    const home = await k!.run(['create', '--dry-run=server', '-f', '-'], { input: rollout('dkc-configs') });
    assert.equal(home.code, 0, home.stderr);
    assert.doesNotMatch(home.stderr, /Warning/);
  });
});

// ---- the CRDs' bounds on the ConfigMaps they name, against kube's own validation of those names ----

describe('deploy/crds/: names, namespaces and keys of the ConfigMaps a NodeConfig or a rollout names are bounded as kube bounds them', () => {
  type Prop = { type: string; pattern?: string; maxLength?: number; minLength?: number };
  type CmSchema = { properties: Record<string, Prop>; 'x-kubernetes-validations'?: { rule: string }[] };
  let places: { where: string; schema: CmSchema }[] = [];

  before(async () => {
    const crds = (await docsIn(CRD_DIR)).map(
      (d) =>
        d.doc as unknown as {
          metadata: { name: string };
          spec: { versions: { schema: { openAPIV3Schema: unknown } }[] };
        },
    );
    const root = (name: string) => crds.find((c) => c.metadata.name === name)!.spec.versions[0]!.schema.openAPIV3Schema;
    const at = (obj: unknown, path: string): CmSchema =>
      path.split('.').reduce((o, k) => (o as Record<string, unknown>)[k], obj) as CmSchema;
    const nc = root('nodeconfigs.dkc.io');
    const ncr = root('nodeconfigrollouts.dkc.io');
    const P = 'properties';
    places = [
      { where: 'NodeConfig spec.configSource', schema: at(nc, `${P}.spec.${P}.configSource.${P}.configMap`) },
      {
        where: 'NodeConfig status.config.active',
        schema: at(nc, `${P}.status.${P}.config.${P}.active.${P}.configMap`),
      },
      {
        where: 'NodeConfig status.previous',
        schema: at(nc, `${P}.status.${P}.previous.${P}.configSource.${P}.configMap`),
      },
      { where: 'rollout spec.configSource', schema: at(ncr, `${P}.spec.${P}.configSource.${P}.configMap`) },
      { where: 'rollout spec.layers[]', schema: at(ncr, `${P}.spec.${P}.layers.items.${P}.configMap`) },
      {
        where: 'rollout status.nodes[].previous',
        schema: at(ncr, `${P}.status.${P}.nodes.additionalProperties.${P}.previous.${P}.configSource.${P}.configMap`),
      },
    ];
  });

  /** Whether the schema admits the value: maxLength, minLength, pattern (as dkc server compiles a CRD's Go pattern). */
  const admits = (p: Prop, v: string): boolean => {
    if (p.maxLength === undefined || p.pattern === undefined) return false;
    const re = goRegExp(p.pattern);
    assert.ok(re instanceof RegExp, p.pattern);
    return v.length <= p.maxLength && v.length >= (p.minLength ?? 0) && re.test(v);
  };
  const long = (n: number) => 'a'.repeat(n);
  const names = [
    'cfg',
    'my-node-config-k867md486d',
    'a.b',
    'Bad_Name',
    '../bar',
    'a/b',
    '-a',
    'a.',
    long(253),
    long(254),
  ];
  const keys = ['kubelet', 'blue.conf', 'KEY_NAME', 'a..b', '../kubelet', 'a/b', 'a b', long(253), long(254)];

  it('names as a ConfigMap name (DNS-1123 subdomain), namespaces as a namespace (DNS-1123 label), keys as a ConfigMap key', () => {
    assert.equal(places.length, 6);
    for (const { where, schema } of places) {
      const p = schema.properties;
      // The empty string is left to the rules that say "must be set" (upstream's messages) or to minLength.
      for (const v of names) {
        assert.equal(admits(p['name']!, v), isDNS1123Subdomain(v).length === 0, `${where} name ${v}`);
        assert.equal(admits(p['namespace']!, v), isDNS1123Label(v).length === 0, `${where} namespace ${v}`);
      }
      for (const v of keys) {
        // '..' as a prefix is the CEL rule's (below); the pattern has the character set and the length.
        const kube = isConfigMapKey(v).filter((e) => !e.includes("'..'"));
        assert.equal(admits(p['kubeletConfigKey']!, v), kube.length === 0, `${where} key ${v}`);
      }
    }
  });

  it("refuses the keys '.', '..' and '..x' with a CEL rule on a real cluster, as kube refuses them", () => {
    for (const { where, schema } of places.filter((x) => x.schema['x-kubernetes-validations'])) {
      const rule = schema['x-kubernetes-validations']!.find((r) => r.rule.includes("startsWith('..')"));
      if (!rule) continue;
      for (const key of ['.', '..', '..data', 'kubelet', 'a..b']) {
        const self = { namespace: 'dkc-configs', name: 'c', kubeletConfigKey: key };
        assert.equal(evaluate(rule.rule, { self }), isConfigMapKey(key).length === 0, `${where} ${key}`);
      }
    }
    assert.equal(
      places.filter((x) => x.schema['x-kubernetes-validations']?.some((r) => r.rule.includes("'..'"))).length,
      4,
    );
  });
});
