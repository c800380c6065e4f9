// The disruption controller's status computation: every worked example of the reference's PDB table (controller
// steady state), then the edges — selectors that select nothing or everything, disruptedPods pruning at the 2-minute
// deletion timeout, failSafe on errors, and a sync that has nothing to write.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  DELETION_TIMEOUT_MS,
  scaledValue,
  syncDisruption,
  type ControllerLookup,
  type DisruptionInput,
} from '../../../src/controllers/disruption/compute.js';
import { selectorText } from '../../../src/controllers/disruption/messages.js';
import type { Pod, PodDisruptionBudget, PodDisruptionBudgetSpec } from '../../../src/api/workloads.js';

const NOW = Date.parse('2025-01-01T12:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

interface PodOpts {
  ready?: boolean;
  owner?: string | null;
  phase?: string;
  deleting?: boolean;
  labels?: Record<string, string>;
}

function pod(name: string, o: PodOpts = {}): Pod {
  const owner = o.owner === undefined ? 'rs-uid' : o.owner;
  return {
    metadata: {
      name,
      namespace: 'default',
      labels: o.labels ?? { app: 'web' },
      ...(owner
        ? {
            ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: owner, controller: true }],
          }
        : {}),
      ...(o.deleting ? { deletionTimestamp: iso(NOW) } : {}),
    },
    spec: { containers: [{ name: 'c' }] },
    status: {
      phase: o.phase ?? 'Running',
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }],
    },
  };
}

const pods = (n: number, o: PodOpts = {}) => Array.from({ length: n }, (_, i) => pod(`p${i}`, o));

function pdb(
  spec: Omit<PodDisruptionBudgetSpec, 'selector'>,
  extra: Partial<PodDisruptionBudget> = {},
): PodDisruptionBudget {
  return {
    metadata: { name: 'web-pdb', namespace: 'default', generation: 1 },
    spec: { selector: { matchLabels: { app: 'web' } }, ...spec },
    ...extra,
  };
}

const scale = (n: number): ReadonlyMap<string, ControllerLookup> =>
  new Map([['rs-uid', { uid: 'deploy-uid', scale: n }]]);

function run(p: PodDisruptionBudget, ps: Pod[], controllers: ReadonlyMap<string, ControllerLookup> = new Map()) {
  const input: DisruptionInput = { pdb: p, pods: ps, controllers, now: NOW };
  return syncDisruption(input);
}

interface Row {
  name: string;
  pdb: PodDisruptionBudget;
  pods: Pod[];
  controllers?: ReadonlyMap<string, ControllerLookup>;
  expected: [expectedPods: number, desiredHealthy: number, currentHealthy: number, disruptionsAllowed: number];
  condition: [status: string, reason: string];
  events?: string[];
}

const rows: Row[] = [
  {
    name: '1: Deployment 3, 3 Ready, minAvailable 2',
    pdb: pdb({ minAvailable: 2 }),
    pods: pods(3),
    controllers: scale(3),
    expected: [3, 2, 3, 1],
    condition: ['True', 'SufficientPods'],
  },
  {
    name: '2: Deployment 3, 2 Ready + 1 not Ready, minAvailable 2',
    pdb: pdb({ minAvailable: 2 }),
    pods: [...pods(2), pod('p2', { ready: false })],
    controllers: scale(3),
    expected: [3, 2, 2, 0],
    condition: ['False', 'InsufficientPods'],
  },
  {
    name: '3: Deployment 3, 3 Ready, maxUnavailable 1 (expected from the scale)',
    pdb: pdb({ maxUnavailable: 1 }),
    pods: pods(3),
    controllers: scale(3),
    expected: [3, 2, 3, 1],
    condition: ['True', 'SufficientPods'],
  },
  {
    name: '4: Deployment 5, 5 Ready, minAvailable 50% (ceil 2.5)',
    pdb: pdb({ minAvailable: '50%' }),
    pods: pods(5),
    controllers: scale(5),
    expected: [5, 3, 5, 2],
    condition: ['True', 'SufficientPods'],
  },
  {
    name: '5: StatefulSet 5, 4 Ready + 1 Pending, maxUnavailable 30% (5 - ceil 1.5)',
    pdb: pdb({ maxUnavailable: '30%' }),
    pods: [...pods(4), pod('p4', { ready: false, phase: 'Pending' })],
    controllers: scale(5),
    expected: [5, 3, 4, 1],
    condition: ['True', 'SufficientPods'],
  },
  {
    name: '6: Deployment 1, 1 Ready, minAvailable 1',
    pdb: pdb({ minAvailable: 1 }),
    pods: pods(1),
    controllers: scale(1),
    expected: [1, 1, 1, 0],
    condition: ['False', 'InsufficientPods'],
  },
  {
    name: '7: Deployment 1, 1 Ready, maxUnavailable 0',
    pdb: pdb({ maxUnavailable: 0 }),
    pods: pods(1),
    controllers: scale(1),
    expected: [1, 1, 1, 0],
    condition: ['False', 'InsufficientPods'],
  },
  {
    name: '8: Deployment 3, 3 Ready, minAvailable 100%',
    pdb: pdb({ minAvailable: '100%' }),
    pods: pods(3),
    controllers: scale(3),
    expected: [3, 3, 3, 0],
    condition: ['False', 'InsufficientPods'],
  },
  {
    name: '9: the selector matches nothing, maxUnavailable 1',
    pdb: pdb({ maxUnavailable: 1 }),
    pods: pods(3, { labels: { app: 'other' } }),
    expected: [0, 0, 0, 0],
    condition: ['False', 'InsufficientPods'],
    events: ['Normal NoPods No matching pods found'],
  },
  {
    name: '10: 4 bare pods, maxUnavailable 50%: unmanaged, nothing expected',
    pdb: pdb({ maxUnavailable: '50%' }),
    pods: pods(4, { owner: null }),
    expected: [0, 0, 4, 0],
    condition: ['False', 'InsufficientPods'],
    events: ['Warning UnmanagedPods'],
  },
  {
    name: '11: 4 bare pods, minAvailable 2 (the pod count, no controllers needed)',
    pdb: pdb({ minAvailable: 2 }),
    pods: pods(4, { owner: null }),
    expected: [4, 2, 4, 2],
    condition: ['True', 'SufficientPods'],
  },
  {
    name: 'neither minAvailable nor maxUnavailable: nothing expected',
    pdb: pdb({}),
    pods: pods(3),
    expected: [0, 0, 3, 0],
    condition: ['False', 'InsufficientPods'],
  },
  {
    name: 'a deleting pod is not healthy; a terminal one is still counted for minAvailable',
    pdb: pdb({ minAvailable: 1 }),
    pods: [pod('p0', { deleting: true }), pod('p1'), pod('p2', { phase: 'Succeeded', ready: false })],
    expected: [3, 1, 1, 0],
    condition: ['False', 'InsufficientPods'],
  },
  {
    name: 'pods of two controllers add their scales',
    pdb: pdb({ maxUnavailable: 1 }),
    pods: [pod('a0', { owner: 'rs-a' }), pod('a1', { owner: 'rs-a' }), pod('b0', { owner: 'rs-b' })],
    controllers: new Map([
      ['rs-a', { uid: 'dep-a', scale: 2 }],
      ['rs-b', { uid: 'sts-b', scale: 4 }],
    ]),
    expected: [6, 5, 3, 0],
    condition: ['False', 'InsufficientPods'],
  },
];

describe('disruption controller: worked examples and counts', () => {
  for (const r of rows) {
    it(r.name, () => {
      const out = run(r.pdb, r.pods, r.controllers);
      const s = out.status;
      assert.deepEqual([s.expectedPods, s.desiredHealthy, s.currentHealthy, s.disruptionsAllowed], r.expected);
      const c = s.conditions?.find((x) => x.type === 'DisruptionAllowed');
      assert.deepEqual([c?.status, c?.reason, c?.message], [...r.condition, '']);
      assert.equal(s.observedGeneration, 1);
      assert.equal(out.write, true);
      assert.equal(out.error, undefined);
      const seen = out.events.map((e) => `${e.type} ${e.reason} ${e.message}`);
      for (const want of r.events ?? [])
        assert.ok(
          seen.some((e) => e.startsWith(want)),
          `${want} in ${seen.join(' | ')}`,
        );
      if (!r.events) assert.deepEqual(seen, []);
    });
  }

  it('12: Job-owned pods, new PDB: SyncFailed with the finder error, observedGeneration not advanced', () => {
    const job = new Map([['rs-uid', { error: 'jobs.batch does not implement the scale subresource' }]]);
    const out = run(pdb({ maxUnavailable: 1 }), pods(2), job);
    assert.equal(out.error, 'jobs.batch does not implement the scale subresource');
    assert.equal(out.write, true);
    assert.deepEqual(out.status, {
      disruptionsAllowed: 0,
      currentHealthy: 0,
      desiredHealthy: 0,
      expectedPods: 0,
      conditions: [
        {
          type: 'DisruptionAllowed',
          status: 'False',
          lastTransitionTime: iso(NOW),
          reason: 'SyncFailed',
          message: 'jobs.batch does not implement the scale subresource',
        },
      ],
    });
    assert.deepEqual(
      out.events.map((e) => [e.type, e.reason, e.message]),
      [
        [
          'Warning',
          'CalculateExpectedPodCountFailed',
          'Failed to calculate the number of expected pods: jobs.batch does not implement the scale subresource',
        ],
      ],
    );
  });

  it('the UnmanagedPods warning names the selector as Go prints it', () => {
    const out = run(pdb({ maxUnavailable: '50%' }), pods(1, { owner: null }));
    assert.equal(
      out.events[0]?.message,
      'Pods selected by this PodDisruptionBudget (selector: &LabelSelector{MatchLabels:map[string]string{app: web,},' +
        'MatchExpressions:[]LabelSelectorRequirement{},}) were found to be unmanaged. As a result, the status of the PDB ' +
        'cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set ' +
        '".spec.minAvailable" field of the PDB to an integer value.',
    );
  });
});

describe('disruption controller: selectors', () => {
  it('a null selector selects no pod, {} every pod of the namespace and only of it', () => {
    const none = run({ ...pdb({ minAvailable: 1 }), spec: { minAvailable: 1, selector: null } }, pods(2));
    assert.equal(none.status.expectedPods, 0);
    const other = { ...pod('elsewhere'), metadata: { ...pod('elsewhere').metadata, namespace: 'other' } };
    const all = run({ ...pdb({ minAvailable: 1 }), spec: { minAvailable: 1, selector: {} } }, [
      ...pods(2, { labels: { x: 'y' } }),
      other,
    ]);
    assert.equal(all.status.expectedPods, 2);
  });

  it('matchExpressions select too', () => {
    const p = pdb({ minAvailable: 1 });
    p.spec!.selector = { matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'api'] }] };
    const out = run(p, [pod('a'), pod('b', { labels: { app: 'api' } }), pod('c', { labels: { app: 'db' } })]);
    assert.equal(out.status.expectedPods, 2);
  });

  it('a selector that does not parse: NoPods warning and SyncFailed', () => {
    const p = pdb({ minAvailable: 1 });
    p.spec!.selector = { matchExpressions: [{ key: 'app', operator: 'Near', values: ['web'] }] };
    const out = run(p, pods(2));
    assert.equal(out.error, '"Near" is not a valid label selector operator');
    assert.equal(out.events[0]?.message, 'Failed to get pods: "Near" is not a valid label selector operator');
    assert.equal(out.status.conditions?.[0]?.reason, 'SyncFailed');
  });

  it('a controllerRef no finder resolves is an error naming the pod', () => {
    const out = run(pdb({ maxUnavailable: 1 }), pods(1));
    assert.equal(out.error, 'found no controllers for pod "p0"');
  });
});

describe('disruption controller: disruptedPods and the 2-minute deletion timeout', () => {
  const withDisrupted = (entries: Record<string, number>) =>
    pdb(
      { minAvailable: 1 },
      {
        status: {
          observedGeneration: 1,
          disruptedPods: Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, iso(v)])),
          disruptionsAllowed: 0,
          currentHealthy: 3,
          desiredHealthy: 1,
          expectedPods: 3,
        },
      },
    );

  it('a recent entry is kept, is not healthy, and sets the recheck at its expiry', () => {
    const out = run(withDisrupted({ p0: NOW - 30_000 }), pods(3));
    assert.deepEqual(out.status.disruptedPods, { p0: iso(NOW - 30_000) });
    assert.equal(out.status.currentHealthy, 2);
    assert.equal(out.recheckAt, NOW - 30_000 + DELETION_TIMEOUT_MS);
  });

  it('an entry older than 2 minutes is dropped with a NotDeleted event on the pod', () => {
    const out = run(withDisrupted({ p0: NOW - DELETION_TIMEOUT_MS - 1000, p1: NOW - 1000 }), pods(3));
    assert.deepEqual(out.status.disruptedPods, { p1: iso(NOW - 1000) });
    assert.equal(out.status.currentHealthy, 2);
    assert.deepEqual(out.events, [
      {
        on: { kind: 'Pod', name: 'p0' },
        type: 'Warning',
        reason: 'NotDeleted',
        message: "Pod was expected by PDB default/default to be deleted but it wasn't",
      },
    ]);
    assert.equal(out.recheckAt, NOW - 1000 + DELETION_TIMEOUT_MS);
  });

  it('entries of deleting or vanished pods are dropped silently', () => {
    const out = run(withDisrupted({ p0: NOW - 1000, gone: NOW - 1000 }), [pod('p0', { deleting: true }), pod('p1')]);
    assert.equal(out.status.disruptedPods, undefined);
    assert.deepEqual(out.events, []);
    assert.equal(out.recheckAt, undefined);
  });
});

describe('disruption controller: writes only on change', () => {
  it('a status already up to date is not written again', () => {
    const first = run(pdb({ minAvailable: 2 }), pods(3), scale(3));
    const again = run({ ...pdb({ minAvailable: 2 }), status: first.status }, pods(3), scale(3));
    assert.equal(again.write, false);
    assert.equal(again.status, first.status);
  });

  it('a new generation is written with the condition time kept when its status stays', () => {
    const first = run(pdb({ minAvailable: 2 }), pods(3), scale(3));
    const later = { ...pdb({ minAvailable: 2 }), status: first.status };
    later.metadata.generation = 2;
    const out = syncDisruption({ pdb: later, pods: pods(3), controllers: scale(3), now: NOW + 60_000 });
    assert.equal(out.write, true);
    assert.equal(out.status.observedGeneration, 2);
    assert.equal(out.status.conditions?.[0]?.lastTransitionTime, iso(NOW));
    assert.equal(out.status.conditions?.[0]?.observedGeneration, 2);
  });

  it('after a SyncFailed the next good sync rewrites the condition and clears its message', () => {
    const failed = run(pdb({ maxUnavailable: 1 }), pods(3), new Map([['rs-uid', { error: 'boom' }]]));
    const out = run({ ...pdb({ maxUnavailable: 1 }), status: failed.status }, pods(3), scale(3));
    const c = out.status.conditions?.[0];
    assert.deepEqual([c?.status, c?.reason, c?.message], ['True', 'SufficientPods', '']);
  });
});

describe('GetScaledValueFromIntOrPercent (round up)', () => {
  const cases: [string | number, number, number | string][] = [
    [3, 10, 3],
    ['50%', 5, 3],
    ['30%', 5, 2],
    ['0%', 7, 0],
    ['100%', 3, 3],
    ['1%', 1, 1],
    ['5', 10, 'invalid value for IntOrString: invalid type: string is not a percentage'],
    ['x%', 10, 'invalid value for IntOrString: invalid value "x%": strconv.Atoi: parsing "x": invalid syntax'],
  ];
  for (const [v, total, want] of cases) {
    it(`${JSON.stringify(v)} of ${total}`, () => {
      if (typeof want === 'number') assert.equal(scaledValue(v, total), want);
      else assert.throws(() => scaledValue(v, total), { message: want });
    });
  }

  it('a malformed minAvailable percentage makes the sync fail', () => {
    const out = run(pdb({ minAvailable: '5' }), pods(3), scale(3));
    assert.equal(out.error, 'invalid value for IntOrString: invalid type: string is not a percentage');
  });
});

describe('selectorText', () => {
  it('prints expressions and nil as Go does', () => {
    assert.equal(selectorText(null), 'nil');
    assert.equal(
      selectorText({
        matchLabels: { b: '2', a: '1' },
        matchExpressions: [{ key: 'k', operator: 'In', values: ['x', 'y'] }],
      }),
      '&LabelSelector{MatchLabels:map[string]string{a: 1,b: 2,},MatchExpressions:[]LabelSelectorRequirement{' +
        'LabelSelectorRequirement{Key:k,Operator:In,Values:[x y],},},}',
    );
  });
});
