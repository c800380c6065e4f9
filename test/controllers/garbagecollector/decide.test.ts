// The garbage collector's decisions, row by row against kube's documented behaviour
// (https://kubernetes.io/docs/concepts/architecture/garbage-collection/, .../overview/working-with-objects/owners-dependents/)
// and kube-controller-manager's attemptToDeleteItem / processDeletingDependentsItem.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  blocksOwner,
  decideDependent,
  decideForegroundOwner,
  invalidNamespaceMessage,
  ownerState,
  type Action,
  type ObjectMetaView,
  type OwnerState,
} from '../../../src/controllers/garbagecollector/decide.js';
import type { OwnerReference } from '../../../src/api/types.js';
import { collectableResources } from '../../../src/controllers/garbagecollector/resources.js';
import { preferredResources } from '../../../src/client/discovery.js';

const ref = (uid: string, block = false): OwnerReference => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  name: `o-${uid}`,
  uid,
  ...(block ? { blockOwnerDeletion: true } : {}),
});
const obj = (owners: string[], extra: Partial<ObjectMetaView> = {}): ObjectMetaView => ({
  uid: 'dep',
  ownerReferences: owners.map((u) => ref(u)),
  ...extra,
});
const states = (s: Record<string, OwnerState>) => new Map(Object.entries(s));

describe('decideDependent', () => {
  const rows: [string, ObjectMetaView, Record<string, OwnerState>, boolean, Action][] = [
    ['no owners: never collected', obj([]), {}, false, { do: 'nothing' }],
    ['its owner is there: kept', obj(['a']), { a: 'solid' }, false, { do: 'nothing' }],
    [
      'its only owner is gone: deleted in the background (the default)',
      obj(['a']),
      { a: 'absent' },
      false,
      { do: 'delete', policy: 'Background' },
    ],
    [
      'all owners gone: deleted',
      obj(['a', 'b']),
      { a: 'absent', b: 'absent' },
      true,
      { do: 'delete', policy: 'Background' },
    ],
    [
      'one owner left: only the dangling reference goes',
      obj(['a', 'b']),
      { a: 'absent', b: 'solid' },
      false,
      { do: 'removeOwners', uids: ['a'] },
    ],
    [
      'one owner left, another deleting in the foreground: that reference goes too',
      obj(['a', 'b', 'c']),
      { a: 'absent', b: 'solid', c: 'waiting' },
      false,
      { do: 'removeOwners', uids: ['a', 'c'] },
    ],
    [
      'owner deleting in the foreground, no dependents of its own: deleted',
      obj(['a']),
      { a: 'waiting' },
      false,
      { do: 'delete', policy: 'Background' },
    ],
    [
      'owner deleting in the foreground, dependents of its own: deleted in the foreground (the cascade goes down first)',
      obj(['a']),
      { a: 'waiting' },
      true,
      { do: 'delete', policy: 'Foreground' },
    ],
    [
      'its own orphan finalizer is honoured',
      obj(['a'], { finalizers: ['orphan'] }),
      { a: 'absent' },
      true,
      { do: 'delete', policy: 'Orphan' },
    ],
    [
      'its own foregroundDeletion finalizer is honoured',
      obj(['a'], { finalizers: ['foregroundDeletion'] }),
      { a: 'absent' },
      true,
      { do: 'delete', policy: 'Foreground' },
    ],
    [
      'already being deleted: left to its finalizers',
      obj(['a'], { deletionTimestamp: '2024-01-01T00:00:00Z', finalizers: ['x.io/y'] }),
      { a: 'absent' },
      false,
      { do: 'nothing' },
    ],
    [
      'a cluster-scoped object naming a namespaced owner: never collected',
      obj(['a']),
      { a: 'invalid' },
      false,
      { do: 'nothing' },
    ],
  ];
  for (const [what, o, s, hasDependents, want] of rows) {
    it(what, () => assert.deepEqual(decideDependent(o, states(s), hasDependents), want));
  }
});

describe('ownerState', () => {
  it('a different uid under the same name is another object: the reference dangles', () => {
    assert.equal(ownerState(ref('a'), undefined), 'absent');
    assert.equal(ownerState(ref('a'), { uid: 'a2' }), 'absent');
    assert.equal(ownerState(ref('a'), { uid: 'a' }), 'solid');
    assert.equal(
      ownerState(ref('a'), { uid: 'a', deletionTimestamp: 't', finalizers: ['foregroundDeletion'] }),
      'waiting',
    );
    // Deleting, but not in the foreground (held by another finalizer): still an owner.
    assert.equal(ownerState(ref('a'), { uid: 'a', deletionTimestamp: 't', finalizers: ['x.io/y'] }), 'solid');
  });
});

describe('decideForegroundOwner', () => {
  const deleting: ObjectMetaView = { uid: 'a', deletionTimestamp: 't', finalizers: ['x.io/y', 'foregroundDeletion'] };
  it('waits while a dependent with blockOwnerDeletion exists, then removes foregroundDeletion', () => {
    assert.deepEqual(decideForegroundOwner(deleting, 1), { do: 'nothing' });
    assert.deepEqual(decideForegroundOwner(deleting, 0), { do: 'removeFinalizer', finalizer: 'foregroundDeletion' });
    assert.deepEqual(decideForegroundOwner({ uid: 'a' }, 0), { do: 'nothing' });
  });
  it('only references with blockOwnerDeletion=true block', () => {
    assert.equal(blocksOwner({ ownerReferences: [ref('a', true)] }, 'a'), true);
    assert.equal(blocksOwner({ ownerReferences: [ref('a')] }, 'a'), false);
    assert.equal(blocksOwner({ ownerReferences: [ref('b', true)] }, 'a'), false);
  });
});

describe('invalidNamespaceMessage', () => {
  it("prints the owner as kube's garbage collector does in its OwnerRefInvalidNamespace event", () => {
    assert.equal(
      invalidNamespaceMessage({ apiVersion: 'v1', kind: 'ConfigMap', name: 'p', uid: 'u' }, 'b'),
      'ownerRef [v1/ConfigMap, namespace: b, name: p, uid: u] does not exist in namespace "b"',
    );
  });
});

describe('the resources the collector watches', () => {
  it("are the preferred version's resources that can be listed, watched and deleted, less Events and subresources", () => {
    const lists = preferredResources(
      [
        { name: '', versions: [{ groupVersion: 'v1', version: 'v1' }] },
        {
          name: 'dkc.io',
          versions: [
            { groupVersion: 'dkc.io/v1', version: 'v1' },
            { groupVersion: 'dkc.io/v1alpha1', version: 'v1alpha1' },
          ],
          preferredVersion: { groupVersion: 'dkc.io/v1', version: 'v1' },
        },
      ],
      new Map([
        [
          'v1',
          { groupVersion: 'v1', resources: [res('configmaps', true), res('events', true), res('nodes/status', false)] },
        ],
        ['dkc.io/v1', { groupVersion: 'dkc.io/v1', resources: [res('nodeconfigrollouts', false)] }],
        [
          'dkc.io/v1alpha1',
          {
            groupVersion: 'dkc.io/v1alpha1',
            resources: [
              res('nodeconfigrollouts', false),
              res('oldkinds', true),
              { ...res('views', true), verbs: ['get', 'list'] },
            ],
          },
        ],
      ]),
    );
    assert.deepEqual(
      collectableResources(lists).map((r) => `${r.group}/${r.version}/${r.resource}`),
      ['/v1/configmaps', 'dkc.io/v1/nodeconfigrollouts', 'dkc.io/v1alpha1/oldkinds'],
    );
  });
});

function res(name: string, namespaced: boolean): { name: string; kind: string; namespaced: boolean; verbs: string[] } {
  return { name, kind: name, namespaced, verbs: ['list', 'watch', 'delete', 'get'] };
}
