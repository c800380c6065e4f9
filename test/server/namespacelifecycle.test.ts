// A namespace's lifecycle rules in the API server, against kube-apiserver's namespace registry (its three strategies
// and its Delete) and the NamespaceLifecycle admission plugin.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/api/types.js';
import {
  namespaceDeletion,
  namespaceMayGo,
  prepareNamespaceCreate,
  prepareNamespaceUpdate,
  refuseCreateInTerminating,
} from '../../src/server/namespacelifecycle.js';

const NOW = '2024-05-01T10:00:00Z';
const ns = (spec: unknown, status: unknown, meta: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'team', ...meta },
  ...(spec === undefined ? {} : { spec }),
  ...(status === undefined ? {} : { status }),
});

describe('namespace create and update', () => {
  const creates: [string, unknown, string[]][] = [
    ['no spec', undefined, ['kubernetes']],
    ['an empty list', { finalizers: [] }, ['kubernetes']],
    ['another finalizer', { finalizers: ['example.com/mine'] }, ['example.com/mine', 'kubernetes']],
    [
      'kubernetes already there',
      { finalizers: ['kubernetes', 'example.com/mine'] },
      ['kubernetes', 'example.com/mine'],
    ],
  ];
  for (const [what, spec, want] of creates) {
    it(`create with ${what}: spec.finalizers ${JSON.stringify(want)}, status Active whatever was sent`, () => {
      const o = ns(spec, { phase: 'Terminating', conditions: [{ type: 'X', status: 'True' }] });
      prepareNamespaceCreate(o);
      assert.deepEqual([o['spec'], o['status']], [{ finalizers: want }, { phase: 'Active' }]);
    });
  }

  const old = ns({ finalizers: ['kubernetes'] }, { phase: 'Active' });
  const sent = () => ns({ finalizers: [] }, { phase: 'Terminating' }, { labels: { a: 'b' } });
  const updates: [string, string, unknown, unknown][] = [
    ['the main resource keeps spec.finalizers and status', '', { finalizers: ['kubernetes'] }, { phase: 'Active' }],
    ['/status keeps spec', 'status', { finalizers: ['kubernetes'] }, { phase: 'Terminating' }],
    ['/finalize keeps status', 'finalize', { finalizers: [] }, { phase: 'Active' }],
  ];
  for (const [what, sub, spec, status] of updates) {
    it(what, () => {
      const o = sent();
      prepareNamespaceUpdate(o, old, sub);
      assert.deepEqual([o['spec'], o['status'], o.metadata.labels], [spec, status, { a: 'b' }]);
    });
  }
});

describe('namespace delete', () => {
  it('the first delete marks it Terminating and keeps it, whatever its finalizers', () => {
    for (const finalizers of [['kubernetes'], []]) {
      const d = namespaceDeletion(ns({ finalizers }, { phase: 'Active' }), NOW);
      assert.ok(d && 'store' in d);
      assert.deepEqual(
        [
          d.store.metadata.deletionTimestamp,
          d.store['status'],
          d.store['spec'],
          d.store.metadata.deletionGracePeriodSeconds,
        ],
        [NOW, { phase: 'Terminating' }, { finalizers }, undefined],
      );
    }
  });

  it('a later delete changes nothing while spec.finalizers names anything, and is the generic delete once empty', () => {
    const marked = { deletionTimestamp: '2024-05-01T09:00:00Z' };
    assert.deepEqual(namespaceDeletion(ns({ finalizers: ['kubernetes'] }, { phase: 'Terminating' }, marked), NOW), {
      keep: true,
    });
    assert.equal(namespaceDeletion(ns({ finalizers: [] }, { phase: 'Terminating' }, marked), NOW), undefined);
  });

  it('an update removes it only once spec.finalizers is empty', () => {
    assert.deepEqual(
      [
        namespaceMayGo(ns({ finalizers: ['kubernetes'] }, undefined)),
        namespaceMayGo(ns({ finalizers: [] }, undefined)),
        namespaceMayGo(ns(undefined, undefined)),
      ],
      [false, true, true],
    );
  });
});

describe('NamespaceLifecycle admission', () => {
  it('refuses a create in a terminating namespace as kube-apiserver does, naming the object ("Unknown" without a name)', () => {
    assert.equal(
      refuseCreateInTerminating({ group: '', name: 'configmaps' }, 'c', 'team', ns({}, { phase: 'Active' })),
      undefined,
    );
    const terminating = ns({}, { phase: 'Terminating' });
    const named = refuseCreateInTerminating({ group: 'example.com', name: 'widgets' }, 'w', 'team', terminating)!;
    assert.deepEqual(named.status, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'widgets.example.com "w" is forbidden: unable to create new content in namespace team because it is being terminated',
      reason: 'Forbidden',
      code: 403,
      details: {
        name: 'w',
        group: 'example.com',
        kind: 'widgets',
        causes: [
          {
            reason: 'NamespaceTerminating',
            message: 'namespace team is being terminated',
            field: 'metadata.namespace',
          },
        ],
      },
    });
    assert.equal(
      refuseCreateInTerminating({ group: '', name: 'configmaps' }, '', 'team', terminating)!.message,
      'configmaps "Unknown" is forbidden: unable to create new content in namespace team because it is being terminated',
    );
  });
});
