// The pure halves of a node's restrictions on its own objects: what it may change of its NodeConfig after creating it
// (not its spec, owners, finalizers, nor dkc.io/ labels and annotations), and which managedFields a write of its own
// may bring (one manager's growth; the server's bookkeeping entries; no Apply ownership of what the controller
// applies).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../src/api/types.js';
import type { AdmissionAttributes } from '../../../src/server/authz.js';
import { nodeConfigRefusal } from '../../../src/server/auth/nodeconfigrestriction.js';
import { managedFieldsRefusal } from '../../../src/server/auth/nodemanagedfields.js';
import { nodeRestriction } from '../../../src/server/auth/noderestriction.js';
import type { ResourceDef } from '../../../src/server/resourcedef.js';

const OWNER = { apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'u1' };
const nc = (meta: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name: 'node-1', ownerReferences: [OWNER], ...meta },
  spec: {},
});
const update = (object: KubeObject, oldObject: KubeObject): AdmissionAttributes => ({
  user: { name: 'system:node:node-1', groups: ['system:nodes'] },
  operation: 'UPDATE',
  resource: { group: 'dkc.io', plural: 'nodeconfigs', kind: 'NodeConfig' } as ResourceDef,
  subresource: '',
  namespace: '',
  name: 'node-1',
  object,
  oldObject,
  dryRun: false,
});

describe("a node's later writes of its NodeConfig", () => {
  it('may not add, change or remove dkc.io/ labels and annotations, nor change finalizers; other metadata is its own', () => {
    const held = nc({ annotations: { 'dkc.io/rollout': 'r1', team: 'a' }, labels: { 'a.dkc.io/x': '1' } });
    const cases: [KubeObject, string | undefined][] = [
      [
        nc({ annotations: { team: 'a' }, labels: { 'a.dkc.io/x': '1' } }),
        'is not allowed to modify annotations: dkc.io/rollout',
      ],
      [
        nc({ annotations: { 'dkc.io/rollout': 'r1', team: 'a' }, labels: { 'a.dkc.io/x': '2' } }),
        'is not allowed to modify labels: a.dkc.io/x',
      ],
      [nc({ ...held.metadata, finalizers: ['example.com/keep'] }), 'node "node-1" is not allowed to modify finalizers'],
      [
        nc({ ...held.metadata, annotations: { 'dkc.io/rollout': 'r1', team: 'b', 'dkc.io.example/y': '1' } }),
        undefined,
      ],
    ];
    for (const [object, why] of cases) assert.equal(nodeConfigRefusal('node-1', update(object, held)), why);
  });
});

const entry = (manager: string, operation: 'Apply' | 'Update', fieldsV1: object) => ({
  manager,
  operation,
  apiVersion: 'v1',
  fieldsType: 'FieldsV1',
  fieldsV1,
});
const withManaged = (...managedFields: object[]): KubeObject =>
  ({ metadata: { name: 'node-1', managedFields } }) as unknown as KubeObject;
const LABEL = (k: string) => ({ 'f:metadata': { 'f:labels': { [`f:${k}`]: {} } } });
const SOURCE = { 'f:spec': { 'f:configSource': { 'f:configMap': { 'f:name': {} } } } };
const ANNOTATION = { 'f:metadata': { 'f:annotations': { 'f:dkc.io/rollout': {} } } };

describe('the managedFields a node may bring', () => {
  const old = withManaged(entry('kubelet', 'Update', LABEL('a')), entry('dkc-rollout-controller', 'Apply', SOURCE));
  const cases: [string, KubeObject, string | undefined][] = [
    [
      'its own manager grows, another loses a field',
      withManaged(entry('kubelet', 'Update', { 'f:metadata': { 'f:labels': { 'f:a': {}, 'f:b': {} } } })),
      undefined,
    ],
    [
      'two managers grow',
      withManaged(
        entry('kubelet', 'Update', { ...LABEL('a'), 'f:spec': { 'f:podCIDR': {} } }),
        entry('x', 'Update', LABEL('b')),
      ),
      'node "node-1" is not allowed to set managedFields: a write records only its own field manager, and it would give fields to "kubelet (Update)", "x (Update)"',
    ],
    [
      'ancient-changes takes what older managers owned',
      withManaged(entry('ancient-changes', 'Update', LABEL('a')), entry('y', 'Update', LABEL('c'))),
      undefined,
    ],
    [
      'an applier comes to own the source',
      withManaged(
        entry('kubelet', 'Update', LABEL('a')),
        entry('dkc-rollout-controller', 'Apply', SOURCE),
        entry('me', 'Apply', SOURCE),
      ),
      'node "node-1" is not allowed to own spec.configSource by server-side apply (manager "me"): the rollout controller applies it',
    ],
    [
      'an applier comes to own the rollout annotation',
      withManaged(entry('me', 'Apply', ANNOTATION)),
      'node "node-1" is not allowed to own metadata.annotations[dkc.io/rollout] by server-side apply (manager "me"): the rollout controller applies it',
    ],
    [
      'an Update manager takes the source (the controller takes it back)',
      withManaged(entry('kubelet', 'Update', { ...LABEL('a'), ...SOURCE })),
      undefined,
    ],
    ['a reset to the writer alone', withManaged(entry('kubelet', 'Update', LABEL('z'))), undefined],
  ];
  for (const [what, object, why] of cases)
    it(what, () => assert.equal(managedFieldsRefusal('node-1', object, old), why));

  it('an Update entry gains only fields the write changes', () => {
    const next = withManaged(entry('kubelet', 'Update', { ...LABEL('a'), 'f:spec': { 'f:podCIDR': {} } }));
    assert.equal(managedFieldsRefusal('node-1', next, old, { 'f:spec': { 'f:podCIDR': {} } }), undefined);
    assert.equal(
      managedFieldsRefusal('node-1', next, old, LABEL('b')),
      'node "node-1" is not allowed to set managedFields: the update manager "kubelet" would own fields this write does not change',
    );
  });

  it('a create records one manager, and an apply to an object no one managed adds before-first-apply', () => {
    assert.match(
      managedFieldsRefusal('node-1', withManaged(entry('a', 'Update', LABEL('a')), entry('b', 'Update', LABEL('b'))))!,
      /"a \(Update\)", "b \(Update\)"/,
    );
    const unmanaged = withManaged();
    const first = withManaged(entry('before-first-apply', 'Update', LABEL('a')), entry('me', 'Apply', LABEL('b')));
    assert.equal(managedFieldsRefusal('node-1', first, unmanaged), undefined);
  });
});

describe("NodeRestriction on a node's NodeConfig writes", () => {
  it('refuses an Apply entry of its own on spec.configSource, whatever RBAC grants it', async () => {
    const held = { ...nc(), spec: { configSource: { configMap: { name: 'cfg' } } } } as KubeObject;
    const applied = {
      ...held,
      metadata: { ...held.metadata, managedFields: [entry('squatter', 'Apply', SOURCE)] },
    } as unknown as KubeObject;
    await assert.rejects(
      Promise.resolve(nodeRestriction(() => undefined).validate!(update(applied, held))),
      /node "node-1" is not allowed to own spec.configSource by server-side apply \(manager "squatter"\)/,
    );
    await Promise.resolve(
      nodeRestriction(() => undefined).validate!({ ...update(applied, held), subresource: 'status' }),
    );
  });
});
