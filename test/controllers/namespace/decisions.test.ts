// The namespace controller's decisions, against kube-controller-manager's namespace deleter: the five deletion
// conditions and their wording, which resources discovery yields, what objects left after a delete mean, and what
// /finalize is sent.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { NamespaceCondition } from '../../../src/api/types.js';
import { updateConditions, type DeletionPass } from '../../../src/controllers/namespace/conditions.js';
import {
  collectionPath,
  finalizersWithout,
  remainderOf,
  requeueAfterMs,
} from '../../../src/controllers/namespace/content.js';
import {
  deletableResources,
  discoveryFailureMessage,
  gvrString,
  parseGroupVersion,
  preferredNamespacedResources,
  type DiscoveredGroup,
  type ResourceLists,
} from '../../../src/controllers/namespace/discovery.js';

const NOW = '2024-05-01T10:00:00Z';
const EARLIER = '2024-05-01T09:00:00Z';
const clean: DeletionPass = { contentFailures: [], remaining: [], finalizers: {} };
const cm = { group: '', version: 'v1', resource: 'configmaps' };
const widgets = { group: 'example.com', version: 'v1', resource: 'widgets' };
const brief = (cs: NamespaceCondition[]) => cs.map((c) => `${c.type}=${c.status} ${c.reason}: ${c.message}`);
const ALL_WELL = [
  'NamespaceDeletionDiscoveryFailure=False ResourcesDiscovered: All resources successfully discovered',
  'NamespaceDeletionGroupVersionParsingFailure=False ParsedGroupVersions: All legacy kube types successfully parsed',
  'NamespaceDeletionContentFailure=False ContentDeleted: All content successfully deleted, may be waiting on finalization',
  'NamespaceContentRemaining=False ContentRemoved: All content successfully removed',
  'NamespaceFinalizersRemaining=False ContentHasNoFinalizers: All content-preserving finalizers finished',
];

describe('namespace deletion conditions', () => {
  it('a first clean pass appends the five, all False with their well reasons, in kube order', () => {
    const { conditions, changed } = updateConditions([], clean, NOW);
    assert.equal(changed, true);
    assert.deepEqual(brief(conditions), ALL_WELL);
    assert.ok(conditions.every((c) => c.lastTransitionTime === NOW));
    assert.equal(updateConditions(conditions, clean, EARLIER).changed, false, 'the same pass again changes nothing');
  });

  const cases: { what: string; pass: DeletionPass; expect: Record<number, string> }[] = [
    {
      what: 'content held by finalizers',
      pass: {
        contentFailures: [],
        remaining: [
          { gvr: widgets, count: 1 },
          { gvr: cm, count: 2 },
          { gvr: widgets, count: 0 },
        ],
        finalizers: { 'b.io/x': 1, 'a.io/y': 2, 'c.io/gone': 0 },
      },
      expect: {
        3: 'NamespaceContentRemaining=True SomeResourcesRemain: Some resources are remaining: configmaps. has 2 resource instances, widgets.example.com has 1 resource instances',
        4: 'NamespaceFinalizersRemaining=True SomeFinalizersRemain: Some content in the namespace has finalizers remaining: a.io/y in 2 resource instances, b.io/x in 1 resource instances',
      },
    },
    {
      what: 'failures of discovery, parsing and deletion',
      pass: {
        discoveryFailure: 'D',
        groupVersionFailure: 'unexpected GroupVersion string: a/b/c',
        contentFailures: ['zz failed', 'aa failed'],
        remaining: [],
        finalizers: {},
      },
      expect: {
        0: 'NamespaceDeletionDiscoveryFailure=True DiscoveryFailed: D',
        1: 'NamespaceDeletionGroupVersionParsingFailure=True GroupVersionParsingFailed: unexpected GroupVersion string: a/b/c',
        2: 'NamespaceDeletionContentFailure=True ContentDeletionFailed: Failed to delete all resource types, 2 remaining: aa failed, zz failed',
      },
    },
  ];
  for (const c of cases) {
    it(`${c.what}: the failing types turn True (their transition time moves), the others stay well`, () => {
      const before = updateConditions([], clean, EARLIER).conditions;
      const { conditions, changed } = updateConditions(before, c.pass, NOW);
      assert.equal(changed, true);
      const want = ALL_WELL.map((line, i) => c.expect[i] ?? line);
      assert.deepEqual(brief(conditions), want);
      assert.deepEqual(
        conditions.map((x) => x.lastTransitionTime),
        want.map((_, i) => (i in c.expect ? NOW : EARLIER)),
      );
    });
  }

  it('a changed message alone keeps the transition time; conditions of other types are kept', () => {
    const other: NamespaceCondition = { type: 'Example', status: 'True', reason: 'R', message: 'm' };
    const held = updateConditions([other], { ...clean, finalizers: { 'a.io/y': 2 } }, EARLIER).conditions;
    const next = updateConditions(held, { ...clean, finalizers: { 'a.io/y': 1 } }, NOW).conditions;
    assert.deepEqual(next[0], other);
    const f = next.find((x) => x.type === 'NamespaceFinalizersRemaining')!;
    assert.deepEqual(
      [f.message, f.lastTransitionTime],
      ['Some content in the namespace has finalizers remaining: a.io/y in 1 resource instances', EARLIER],
    );
  });
});

describe('namespace controller discovery', () => {
  const groups: DiscoveredGroup[] = [
    {
      name: '',
      versions: [{ groupVersion: 'v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'v1', version: 'v1' },
    },
    {
      name: 'example.com',
      versions: [
        { groupVersion: 'example.com/v2', version: 'v2' },
        { groupVersion: 'example.com/v1', version: 'v1' },
      ],
      preferredVersion: { groupVersion: 'example.com/v2', version: 'v2' },
    },
  ];
  const lists: ResourceLists = new Map([
    [
      'v1',
      {
        groupVersion: 'v1',
        resources: [
          { name: 'configmaps', namespaced: true, verbs: ['delete', 'deletecollection', 'list'] },
          { name: 'pods', namespaced: true, verbs: ['get', 'list', 'watch'] },
          { name: 'pods/status', namespaced: true, verbs: ['get'] },
          { name: 'nodes', namespaced: false, verbs: ['delete', 'list'] },
        ],
      },
    ],
    [
      'example.com/v2',
      { groupVersion: 'example.com/v2', resources: [{ name: 'widgets', namespaced: true, verbs: ['delete', 'list'] }] },
    ],
    [
      'example.com/v1',
      {
        groupVersion: 'example.com/v1',
        resources: [
          { name: 'widgets', namespaced: true, verbs: ['delete', 'list'] },
          { name: 'gadgets', namespaced: true, verbs: ['delete'] },
        ],
      },
    ],
  ]);

  it("takes each namespaced resource in its group's preferred version, or the first that has it; no subresources, nothing cluster-scoped", () => {
    assert.deepEqual(
      preferredNamespacedResources(groups, lists).map((l) => [l.groupVersion, l.resources.map((r) => r.name)]),
      [
        ['v1', ['configmaps', 'pods']],
        ['example.com/v2', ['widgets']],
        ['example.com/v1', ['gadgets']],
      ],
    );
    const withoutV2 = new Map([...lists].filter(([gv]) => gv !== 'example.com/v2'));
    assert.deepEqual(
      preferredNamespacedResources(groups, withoutV2)
        .at(-1)!
        .resources.map((r) => r.name),
      ['widgets', 'gadgets'],
      'a version whose discovery failed is left out',
    );
  });

  it('keeps the resources that take delete, with their verbs; a group version that does not parse fails them all', () => {
    const found = deletableResources(preferredNamespacedResources(groups, lists));
    assert.ok(!('error' in found));
    assert.deepEqual(
      found.resources.map((r) => [gvrString(r), r.verbs.includes('deletecollection')]),
      [
        ['/v1, Resource=configmaps', true],
        ['example.com/v2, Resource=widgets', false],
        ['example.com/v1, Resource=gadgets', false],
      ],
    );
    const bad = [{ groupVersion: 'a/b/c', resources: [{ name: 'x', namespaced: true, verbs: ['delete'] }] }];
    assert.deepEqual(deletableResources([...preferredNamespacedResources(groups, lists), ...bad]), {
      error: 'unexpected GroupVersion string: a/b/c',
    });
    assert.deepEqual(
      deletableResources([{ groupVersion: 'a/b/c', resources: [{ name: 'x', namespaced: true, verbs: ['get'] }] }]),
      { resources: [] },
      'nothing to delete there: not parsed',
    );
  });

  it('parses group versions as apimachinery does', () => {
    assert.deepEqual(['v1', 'example.com/v1', '', 'a/b/c'].map(parseGroupVersion), [
      { group: '', version: 'v1' },
      { group: 'example.com', version: 'v1' },
      { group: '', version: '' },
      { error: 'unexpected GroupVersion string: a/b/c' },
    ]);
  });

  it("words a partial failure as client-go's ErrGroupDiscoveryFailed, groups sorted", () => {
    assert.equal(
      discoveryFailureMessage({
        'z.io/v1': 'the server is currently unable to handle the request',
        'metrics.k8s.io/v1beta1': 'stale GroupVersion discovery',
      }),
      'Discovery failed for some groups, 2 failing: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: stale GroupVersion discovery, z.io/v1: the server is currently unable to handle the request',
    );
  });
});

describe('namespace content', () => {
  const held = (...finalizers: string[]) => ({ metadata: { finalizers } });
  const rows: [string, Parameters<typeof remainderOf>[2], ReturnType<typeof remainderOf>][] = [
    ['nothing left', [], { estimateSeconds: 0, count: 0, finalizers: {} }],
    [
      'objects held by finalizers: waited for, 15 s',
      [held('a.io/x'), held('a.io/x', 'b.io/y')],
      { estimateSeconds: 15, count: 2, finalizers: { 'a.io/x': 2, 'b.io/y': 1 } },
    ],
    [
      'an object no finalizer holds: an error',
      [{ metadata: {} }],
      {
        estimateSeconds: 0,
        count: 1,
        finalizers: {},
        error: 'unexpected items still remain in namespace: ns for gvr: /v1, Resource=configmaps',
      },
    ],
  ];
  for (const [what, left, want] of rows) it(`${what}`, () => assert.deepEqual(remainderOf('ns', cm, left), want));

  it('looks again after half the estimate plus a second; /finalize gets the rest sorted, without repeats', () => {
    assert.deepEqual([requeueAfterMs(15), requeueAfterMs(0), requeueAfterMs(3)], [8_000, 1_000, 2_000]);
    assert.deepEqual(finalizersWithout(['z.io/a', 'kubernetes', 'b.io/c', 'z.io/a'], 'kubernetes'), [
      'b.io/c',
      'z.io/a',
    ]);
    assert.deepEqual(finalizersWithout(['kubernetes'], 'kubernetes'), []);
  });

  it('addresses a resource in a namespace', () => {
    assert.equal(collectionPath(cm, 'a b'), '/api/v1/namespaces/a%20b/configmaps');
    assert.equal(collectionPath(widgets, 'team'), '/apis/example.com/v1/namespaces/team/widgets');
  });
});
