// deploy/nodeconfig/policy.yaml's rules beyond the NodeConfig samples of nodeconfig.e2e.test.ts, evaluated with
// @bufbuild/cel (cel.ts) as kube-apiserver would evaluate them: for each rule, the legitimate request is admitted and
// the forged one denied —
// - a node creates its NodeConfig as its agent would: no dkc.io/ annotations or labels, no finalizers;
// - only the rollout controller writes a NodeConfigRollout's status;
// - a node never touches the dkc.io/rollout annotation on its Node;
// - only the node itself sets, changes or removes the dkc.io/config-flags annotation on its Node, as dkc server's
//   policy admission rules (checkFlagsAnnotation), compared request by request.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { CONTROLLER_USER } from '../../src/api/dkc/identity.js';
import type { KubeObject } from '../../src/api/types.js';
import type { AdmissionAttributes } from '../../src/server/authz.js';
import { checkFlagsAnnotation } from '../../src/server/policy/flagsannotation.js';
import type { ResourceDef } from '../../src/server/resourcedef.js';
import { repoRoot } from '../helpers/paths.js';
import { admit, type AdmissionRequest } from './cel.js';

type Doc = { kind: string; metadata: { name: string }; spec: { policyName?: string } };
type Policy = Parameters<typeof admit>[0];
type User = { username: string; groups: string[] };

const node = (n: string): User => ({ username: `system:node:${n}`, groups: ['system:nodes', 'system:authenticated'] });
const ADMIN: User = { username: 'admin', groups: ['system:masters', 'system:authenticated'] };
const OPS: User = { username: 'ops', groups: ['system:authenticated'] };
const CONTROLLER_SA: User = {
  username: 'system:serviceaccount:kube-system:dkc-controller',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
};
const CONTROLLER: User = { username: CONTROLLER_USER, groups: ['system:authenticated'] };

let policies: { policy: Policy; binding: string }[] = [];

before(async () => {
  const docs = parseAllDocuments(await readFile(join(repoRoot, 'deploy/nodeconfig/policy.yaml'), 'utf8')).map(
    (d) => d.toJS() as Doc,
  );
  policies = docs
    .filter((d) => d.kind === 'ValidatingAdmissionPolicy')
    .map((d) => ({
      policy: d as unknown as Policy,
      binding: docs.find((b) => b.kind === 'ValidatingAdmissionPolicyBinding' && b.spec.policyName === d.metadata.name)!
        .metadata.name,
    }));
});

interface Row {
  what: string;
  user: User;
  operation: 'CREATE' | 'UPDATE';
  resource: { group: string; resource: string };
  subResource?: string;
  name: string;
  object: object;
  oldObject?: object;
  /** The policy that denies it; none: admitted by every policy. */
  deniedBy?: string;
}

function denials(r: Row): string[] {
  const req: AdmissionRequest = {
    userInfo: r.user,
    operation: r.operation,
    resource: r.resource,
    subResource: r.subResource ?? '',
    name: r.name,
    object: r.object as never,
    oldObject: (r.oldObject ?? null) as never,
  };
  return policies.flatMap((p) => {
    const v = admit(p.policy, p.binding, req);
    return v.matched && v.denied ? [v.denied] : [];
  });
}

function check(rows: Row[]): void {
  for (const r of rows) {
    it(`${r.what}: ${r.deniedBy ? `denied by ${r.deniedBy}` : 'admitted'}`, () => {
      const got = denials(r);
      if (!r.deniedBy) assert.deepEqual(got, []);
      else {
        assert.equal(got.length, 1, got.join('; '));
        assert.match(got[0]!, new RegExp(`^ValidatingAdmissionPolicy '${r.deniedBy}' with binding '${r.deniedBy}'`));
      }
    });
  }
}

const NODECONFIGS = { group: 'dkc.io', resource: 'nodeconfigs' };
const ROLLOUTS = { group: 'dkc.io', resource: 'nodeconfigrollouts' };
const NODES = { group: '', resource: 'nodes' };

describe('dkc.io-nodeconfig-node: a node creates its NodeConfig exactly as its agent would', () => {
  const ownNc = (meta: object = {}) => ({
    apiVersion: 'dkc.io/v1alpha1',
    kind: 'NodeConfig',
    metadata: {
      name: 'node-1',
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'uid-node-1' }],
      ...meta,
    },
    spec: {},
  });
  const create = (what: string, meta: object, deniedBy?: string): Row => ({
    what,
    user: node('node-1'),
    operation: 'CREATE',
    resource: NODECONFIGS,
    name: 'node-1',
    object: ownNc(meta),
    ...(deniedBy ? { deniedBy } : {}),
  });
  check([
    create('as the agent creates it', {}),
    create('with an annotation of its own', { annotations: { 'example.com/rack': 'r1' } }),
    create(
      'with dkc.io/rollout (a halt of other rollouts)',
      { annotations: { 'dkc.io/rollout': 'r-hold' } },
      'dkc.io-nodeconfig-node',
    ),
    create('with a dkc.io/ label', { labels: { 'dkc.io/rendered-by': 'r1' } }, 'dkc.io-nodeconfig-node'),
    create('with a finalizer (Terminating for good)', { finalizers: ['example.com/keep'] }, 'dkc.io-nodeconfig-node'),
    create(
      'with a second owner reference',
      {
        ownerReferences: [
          { apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'uid-node-1' },
          { apiVersion: 'v1', kind: 'Node', name: 'node-2', uid: 'uid-node-2' },
        ],
      },
      'dkc.io-nodeconfig-node',
    ),
    {
      ...create('the controller creating one with its annotation', { annotations: { 'dkc.io/rollout': 'r1' } }),
      user: CONTROLLER_SA,
      object: {
        ...ownNc({ annotations: { 'dkc.io/rollout': 'r1' } }),
        spec: { configSource: { configMap: { namespace: 'dkc-configs', name: 'c', kubeletConfigKey: 'kubelet' } } },
      },
    },
  ]);
});

describe("dkc.io-rollout-status: only the rollout controller writes a rollout's status", () => {
  const rollout = (status: object) => ({
    apiVersion: 'dkc.io/v1alpha1',
    kind: 'NodeConfigRollout',
    metadata: { name: 'r1' },
    spec: { configSource: { configMap: { namespace: 'dkc-configs', name: 'c', kubeletConfigKey: 'kubelet' } } },
    status,
  });
  const SUCCEEDED = { phase: 'Succeeded', nodes: { 'node-1': { previous: { configSource: {} } } } };
  const FORGED = {
    phase: 'Reverting',
    nodes: {
      'node-1': {
        previous: { configSource: { configMap: { namespace: 'mallory', name: 'open', kubeletConfigKey: 'kubelet' } } },
      },
    },
  };
  const status = (what: string, user: User, object: object, deniedBy?: string): Row => ({
    what,
    user,
    operation: 'UPDATE',
    resource: ROLLOUTS,
    subResource: 'status',
    name: 'r1',
    object: rollout(object),
    oldObject: rollout(SUCCEEDED),
    ...(deniedBy ? { deniedBy } : {}),
  });
  check([
    status('the controller (its ServiceAccount) reporting progress', CONTROLLER_SA, {
      ...SUCCEEDED,
      phase: 'Progressing',
    }),
    status("the controller (dkc's certificate) reporting", CONTROLLER, { phase: 'Progressing' }),
    status('an operator with */status forging a revert', OPS, FORGED, 'dkc.io-rollout-status'),
    status('the cluster admin rewriting it', ADMIN, { phase: 'Reverting' }, 'dkc.io-rollout-status'),
    status('a node rewriting it', node('node-1'), FORGED, 'dkc.io-rollout-status'),
    status('an operator writing it back unchanged', OPS, SUCCEEDED),
    {
      ...status('the spec changed through the main resource', OPS, SUCCEEDED),
      subResource: '',
    },
  ]);
});

const nodeObj = (name: string, annotations?: Record<string, string>, labels?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, ...(annotations ? { annotations } : {}), ...(labels ? { labels } : {}) },
});

describe('dkc.io-node-rollout-annotation: a node never touches dkc.io/rollout on its Node', () => {
  const HELD = { 'dkc.io/rollout': 'r1' };
  const update = (what: string, object: object, oldObject: object, deniedBy?: string, subResource = ''): Row => ({
    what,
    user: node('node-1'),
    operation: 'UPDATE',
    resource: NODES,
    subResource,
    name: 'node-1',
    object,
    oldObject,
    ...(deniedBy ? { deniedBy } : {}),
  });
  const P = 'dkc.io-node-rollout-annotation';
  check([
    update(
      'a heartbeat that carries it unchanged',
      nodeObj('node-1', { ...HELD, x: '1' }),
      nodeObj('node-1', HELD),
      undefined,
      'status',
    ),
    update('an update of a Node without it', nodeObj('node-1', { x: '1' }), nodeObj('node-1')),
    update('adding it (a halt)', nodeObj('node-1', { 'dkc.io/rollout': 'r-hold' }), nodeObj('node-1'), P),
    update('changing it', nodeObj('node-1', { 'dkc.io/rollout': 'r-hold' }), nodeObj('node-1', HELD), P),
    update('removing it (a forced revert)', nodeObj('node-1'), nodeObj('node-1', HELD), P),
    update(
      'adding it through status',
      nodeObj('node-1', { 'dkc.io/rollout': 'r-hold' }),
      nodeObj('node-1'),
      P,
      'status',
    ),
    {
      what: 'registering its Node with it',
      user: node('node-1'),
      operation: 'CREATE',
      resource: NODES,
      name: 'node-1',
      object: nodeObj('node-1', { 'dkc.io/rollout': 'r-hold' }),
      deniedBy: P,
    },
    {
      what: 'the rollout controller setting it',
      user: CONTROLLER_SA,
      operation: 'UPDATE',
      resource: NODES,
      name: 'node-1',
      object: nodeObj('node-1', HELD),
      oldObject: nodeObj('node-1'),
    },
  ]);
});

describe('dkc.io-node-config-flags: only the node itself writes dkc.io/config-flags, as dkc server rules', () => {
  const FLAGS = { 'dkc.io/config-flags': '{"flags":["--max-pods=110"]}' };
  const FORGED = { 'dkc.io/config-flags': '{"flags":["--max-pods=110","--eviction-hard=memory.available<1Mi"]}' };
  const P = 'dkc.io-node-config-flags';
  const row = (what: string, user: User, object: object, oldObject?: object, deniedBy?: string): Row => ({
    what,
    user,
    operation: oldObject ? 'UPDATE' : 'CREATE',
    resource: NODES,
    name: 'node-1',
    object,
    ...(oldObject ? { oldObject } : {}),
    ...(deniedBy ? { deniedBy } : {}),
  });
  const rows = [
    row('the node registering with its flags', node('node-1'), nodeObj('node-1', FLAGS)),
    row(
      'the node (its kubelet or node daemon) updating them',
      node('node-1'),
      nodeObj('node-1', FORGED),
      nodeObj('node-1', FLAGS),
    ),
    row(
      'an admin relabelling, carrying them unchanged',
      ADMIN,
      nodeObj('node-1', FLAGS, { pool: 'blue' }),
      nodeObj('node-1', FLAGS),
    ),
    row('a user with patch nodes forging them', OPS, nodeObj('node-1', FORGED), nodeObj('node-1', FLAGS), P),
    row('a user with patch nodes adding them', OPS, nodeObj('node-1', FLAGS), nodeObj('node-1'), P),
    row('the cluster admin removing them', ADMIN, nodeObj('node-1'), nodeObj('node-1', FLAGS), P),
    row('another node forging them', node('node-2'), nodeObj('node-1', FORGED), nodeObj('node-1', FLAGS), P),
    row('the controller creating a Node with them', CONTROLLER_SA, nodeObj('node-1', FLAGS), undefined, P),
  ];
  check(rows);

  it('gives the verdicts dkc server gives the same requests', () => {
    for (const r of rows) {
      const a: AdmissionAttributes = {
        user: { name: r.user.username, groups: r.user.groups },
        operation: r.operation,
        resource: { group: '', plural: 'nodes', kind: 'Node' } as ResourceDef,
        subresource: '',
        namespace: '',
        name: r.name,
        object: structuredClone(r.object) as KubeObject,
        ...(r.oldObject ? { oldObject: structuredClone(r.oldObject) as KubeObject } : {}),
        dryRun: false,
      };
      let dkcAllows = true;
      try {
        checkFlagsAnnotation(a);
      } catch {
        dkcAllows = false;
      }
      assert.equal(dkcAllows, r.deniedBy === undefined, r.what);
    }
  });
});
