// The ReplicaSet controller's decisions against kube's manageReplicas, getPodsToDelete (ActivePodsWithRanks) and
// calculateStatus.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ReplicaSet } from '../../../src/api/apps.js';
import type { PodView } from '../../../src/api/pods.js';
import { BURST_REPLICAS, decideReplicaSet, replicaSetPod } from '../../../src/controllers/replicaset/decide.js';
import { podsToDelete } from '../../../src/controllers/replicaset/rank.js';
import { replicaSetStatus, requeueAfterSeconds } from '../../../src/controllers/replicaset/status.js';

const NOW = Date.parse('2024-01-01T01:00:00Z');
const iso = (msAgo: number) => new Date(NOW - msAgo).toISOString();

const rs = (
  replicas: number,
  extra: Partial<ReplicaSet['spec']> = {},
  meta: Partial<ReplicaSet['metadata']> = {},
): ReplicaSet => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name: 'web', namespace: 'ns', uid: 'rs1', generation: 3, ...meta },
  spec: {
    replicas,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web', tier: 'fe' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
    ...extra,
  },
});

interface PodOpts {
  node?: string;
  phase?: string;
  ready?: boolean;
  readyAgo?: number;
  createdAgo?: number;
  cost?: string;
  restarts?: number;
  owner?: string | null;
  labels?: Record<string, string>;
}

const pod = (name: string, o: PodOpts = {}): PodView => ({
  metadata: {
    name,
    uid: name,
    namespace: 'ns',
    labels: o.labels ?? { app: 'web', tier: 'fe' },
    creationTimestamp: iso(o.createdAgo ?? 3_600_000),
    ...(o.cost !== undefined ? { annotations: { 'controller.kubernetes.io/pod-deletion-cost': o.cost } } : {}),
    ...(o.owner === null
      ? {}
      : {
          ownerReferences: [
            { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: o.owner ?? 'rs1', controller: true },
          ],
        }),
  },
  spec: o.node === undefined ? {} : { nodeName: o.node },
  status: {
    phase: o.phase ?? 'Running',
    conditions: [
      { type: 'Ready', status: o.ready === false ? 'False' : 'True', lastTransitionTime: iso(o.readyAgo ?? 600_000) },
    ],
    containerStatuses: [{ restartCount: o.restarts ?? 0 }],
  },
});

describe('decideReplicaSet: how many to create or delete', () => {
  it('creates the missing Pods in slow-start batches', () => {
    const d = decideReplicaSet({ rs: rs(10), pods: [pod('a', { node: 'n1' }), pod('b', { node: 'n1' })], nowMs: NOW });
    assert.equal(d.create, 8);
    assert.deepEqual(d.batches, [1, 2, 4, 1]);
    assert.deepEqual(d.delete, []);
  });

  it('creates at most a burst per sync', () => {
    const d = decideReplicaSet({ rs: rs(1200), pods: [], nowMs: NOW });
    assert.equal(d.create, BURST_REPLICAS);
    assert.equal(
      d.batches.reduce((a, b) => a + b, 0),
      500,
    );
  });

  it('counts only active Pods: a Failed or deleting Pod is replaced', () => {
    const failed = { ...pod('f', { node: 'n1' }), status: { phase: 'Failed' } };
    const deleting = pod('d', { node: 'n1' });
    deleting.metadata.deletionTimestamp = iso(0);
    const d = decideReplicaSet({ rs: rs(2), pods: [pod('a', { node: 'n1' }), failed, deleting], nowMs: NOW });
    assert.equal(d.create, 1);
    assert.deepEqual(
      d.active.map((p) => p.metadata.name),
      ['a'],
    );
  });

  it('adopts matching orphans and counts them, releases relabelled Pods, ignores other owners', () => {
    const d = decideReplicaSet({
      rs: rs(3),
      pods: [
        pod('mine', { node: 'n1' }),
        pod('orphan', { node: 'n1', owner: null }),
        pod('relabelled', { node: 'n1', labels: { app: 'db' } }),
        pod('theirs', { node: 'n1', owner: 'other' }),
      ],
      nowMs: NOW,
    });
    assert.deepEqual(
      d.adopt.map((p) => p.metadata.name),
      ['orphan'],
    );
    assert.deepEqual(
      d.release.map((p) => p.metadata.name),
      ['relabelled'],
    );
    assert.equal(d.create, 1);
  });

  it('a ReplicaSet being deleted neither creates nor deletes', () => {
    const d = decideReplicaSet({ rs: rs(3, {}, { deletionTimestamp: iso(0) }), pods: [], nowMs: NOW });
    assert.equal(d.create, 0);
  });

  it('an unreadable selector does nothing and says why', () => {
    const bad = rs(3, { selector: { matchExpressions: [{ key: 'app', operator: 'Near' }] } });
    const d = decideReplicaSet({ rs: bad, pods: [], nowMs: NOW });
    assert.equal(d.create, 0);
    assert.equal(
      d.error,
      'error converting pod selector to selector for rs ns/web: "Near" is not a valid label selector operator',
    );
  });
});

describe('scale-down ranking (ActivePodsWithRanks)', () => {
  const rows: [string, PodView, PodView][] = [
    ['unassigned before assigned', pod('x', {}), pod('y', { node: 'n1' })],
    ['Pending before Unknown', pod('x', { node: 'n1', phase: 'Pending' }), pod('y', { node: 'n1', phase: 'Unknown' })],
    ['Unknown before Running', pod('x', { node: 'n1', phase: 'Unknown' }), pod('y', { node: 'n1' })],
    ['not ready before ready', pod('x', { node: 'n1', ready: false }), pod('y', { node: 'n1' })],
    ['lower deletion cost first', pod('x', { node: 'n1', cost: '-5' }), pod('y', { node: 'n1', cost: '10' })],
    [
      'ready for less time first',
      pod('x', { node: 'n1', readyAgo: 60_000 }),
      pod('y', { node: 'n1', readyAgo: 3_000_000 }),
    ],
    ['more restarts first', pod('x', { node: 'n1', restarts: 5 }), pod('y', { node: 'n1', restarts: 1 })],
    [
      'newer before older',
      pod('x', { node: 'n1', createdAgo: 60_000 }),
      pod('y', { node: 'n1', createdAgo: 3_000_000 }),
    ],
  ];
  for (const [name, first, second] of rows) {
    it(name, () => {
      assert.deepEqual(
        podsToDelete([second, first], [second, first], 1, NOW).map((p) => p.metadata.name),
        ['x'],
      );
      assert.deepEqual(
        podsToDelete([first, second], [first, second], 1, NOW).map((p) => p.metadata.name),
        ['x'],
      );
    });
  }

  it('doubled up before alone: the Pod sharing its node with more related Pods goes first', () => {
    const alone = pod('alone', { node: 'n1' });
    const shared = pod('shared', { node: 'n2' });
    const sibling = pod('sibling', { node: 'n2', owner: 'rs0' });
    assert.deepEqual(
      podsToDelete([alone, shared], [alone, shared, sibling], 1, NOW).map((p) => p.metadata.name),
      ['shared'],
    );
  });

  it('ages within the same power of two tie, and the uid decides', () => {
    // 2^42 ns ≈ 73.3 min and 2^41 ns ≈ 36.6 min: 40 and 50 minutes share rank 41.
    const b = pod('b', { node: 'n1', createdAgo: 40 * 60_000 });
    const a = pod('a', { node: 'n1', createdAgo: 50 * 60_000 });
    assert.deepEqual(
      podsToDelete([b, a], [b, a], 1, NOW).map((p) => p.metadata.name),
      ['a'],
    );
  });

  it('the decision deletes the lowest ranked', () => {
    const pods = [pod('old', { node: 'n1' }), pod('pending', { node: 'n1', phase: 'Pending' }), pod('unbound', {})];
    const d = decideReplicaSet({ rs: rs(1), pods, nowMs: NOW });
    assert.deepEqual(
      d.delete.map((p) => p.metadata.name),
      ['unbound', 'pending'],
    );
  });
});

describe('replicaSetPod', () => {
  it('is the template with generateName <rs>- and the controller reference', () => {
    const p = replicaSetPod(rs(1));
    assert.equal(p.metadata.generateName, 'web-');
    assert.deepEqual(p.metadata.labels, { app: 'web', tier: 'fe' });
    assert.deepEqual(p.metadata.ownerReferences, [
      {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        name: 'web',
        uid: 'rs1',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    assert.deepEqual(p.spec, { containers: [{ name: 'c', image: 'i' }] });
  });
});

describe('replicaSetStatus', () => {
  it('counts replicas, fully labelled, ready and available (minReadySeconds), and the generation seen', () => {
    const pods = [
      pod('a', { node: 'n1', readyAgo: 60_000 }),
      pod('b', { node: 'n1', readyAgo: 5_000 }),
      pod('c', { node: 'n1', ready: false, labels: { app: 'web' } }),
    ];
    const s = replicaSetStatus(rs(3, { minReadySeconds: 10 }), pods, undefined, NOW);
    assert.deepEqual(s, {
      replicas: 3,
      fullyLabeledReplicas: 2,
      readyReplicas: 2,
      availableReplicas: 1,
      observedGeneration: 3,
    });
  });

  it('sets ReplicaFailure FailedCreate while creates fail, and removes it once they do not', () => {
    const failing = replicaSetStatus(rs(2), [], 'pods "web-" is forbidden: exceeded quota', NOW);
    assert.deepEqual(failing.conditions, [
      {
        type: 'ReplicaFailure',
        status: 'True',
        lastTransitionTime: '2024-01-01T01:00:00Z',
        reason: 'FailedCreate',
        message: 'pods "web-" is forbidden: exceeded quota',
      },
    ]);
    const again = replicaSetStatus({ ...rs(2), status: failing }, [], 'other', NOW + 5000);
    assert.deepEqual(again.conditions, failing.conditions, 'an existing failure condition is kept as it is');
    const healed = replicaSetStatus({ ...rs(2), status: failing }, [pod('a'), pod('b')], undefined, NOW);
    assert.equal(healed.conditions, undefined);
  });

  it('FailedDelete when deletes fail', () => {
    const s = replicaSetStatus(rs(0), [pod('a')], 'boom', NOW);
    assert.equal(s.conditions?.[0]?.reason, 'FailedDelete');
  });

  it('asks for a resync after minReadySeconds while ready Pods are not yet available', () => {
    const set = rs(1, { minReadySeconds: 30 });
    const s = replicaSetStatus(set, [pod('a', { readyAgo: 1000 })], undefined, NOW);
    assert.equal(requeueAfterSeconds(set, s, undefined), 30);
    const done = replicaSetStatus(set, [pod('a', { readyAgo: 60_000 })], undefined, NOW);
    assert.equal(requeueAfterSeconds(set, done, undefined), undefined);
  });
});
