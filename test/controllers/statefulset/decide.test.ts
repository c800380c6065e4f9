// The StatefulSet controller's decisions against kube's updateStatefulSet (processReplica, processCondemned, the
// rolling update with a partition), newVersionedStatefulSetPod and updateStatus/completeRollingUpdate.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PodTemplateSpec, StatefulSet } from '../../../src/api/apps.js';
import type { PodView } from '../../../src/api/pods.js';
import { decideStatefulSet, type StatefulSetDecision } from '../../../src/controllers/statefulset/decide.js';
import { podOrdinal, revisionName, type Revisions } from '../../../src/controllers/statefulset/identity.js';
import { statefulSetRolloutStatusMessage } from '../../../src/controllers/statefulset/rolloutstatus.js';
import { requeueAfterSeconds, statefulSetStatus } from '../../../src/controllers/statefulset/status.js';
import { iso, NOW, workloadPod } from '../workload/pods.js';

const template = (image: string): PodTemplateSpec => ({
  metadata: { labels: { app: 'web' } },
  spec: { containers: [{ name: 'c', image }] },
});
const REVS: Revisions = { current: { name: 'web-r1', template: template('v1') }, update: 'web-r2' };
const SAME: Revisions = { current: { name: 'web-r2', template: template('v2') }, update: 'web-r2' };

function sts(replicas: number, spec: Partial<StatefulSet['spec']> = {}, meta: Partial<StatefulSet['metadata']> = {}) {
  const set: StatefulSet = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'web', namespace: 'ns', uid: 'ss1', generation: 4, ...meta },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: template('v2'),
      serviceName: 'web',
      ...spec,
    },
  };
  return set;
}

interface PodOpts {
  phase?: string;
  ready?: boolean;
  rev?: string;
  deleting?: boolean;
  readyAgo?: number;
  labels?: Record<string, string>;
}

const OWNER = { kind: 'StatefulSet', name: 'web', uid: 'ss1' };
const identity = (name: string, rev: string) => ({
  app: 'web',
  'statefulset.kubernetes.io/pod-name': name,
  'apps.kubernetes.io/pod-index': String(podOrdinal({ metadata: { name } }).ordinal),
  'controller-revision-hash': rev,
});

const pod = (name: string, o: PodOpts = {}): PodView =>
  workloadPod(name, { ...o, owner: OWNER, labels: o.labels ?? identity(name, o.rev ?? 'web-r2') }, { nodeName: 'n1' });

const healthy = (...names: string[]) => names.map((n) => pod(n));
const decide = (set: StatefulSet, pods: PodView[], revisions = SAME) =>
  decideStatefulSet({ set, pods, revisions, nowMs: NOW });
const summary = (d: StatefulSetDecision) => ({
  create: d.create.map((p) => p.metadata.name),
  delete: d.delete.map((p) => p.metadata.name),
  recreate: d.recreate.map((p) => p.metadata.name),
  update: d.deleteForUpdate?.metadata.name,
});
const none = { create: [], delete: [], recreate: [], update: undefined };

describe('decideStatefulSet: ordered and parallel Pod management', () => {
  const parallel = { podManagementPolicy: 'Parallel' } as const;
  const rows: { name: string; set: StatefulSet; pods: PodView[]; want: Partial<ReturnType<typeof summary>> }[] = [
    { name: 'OrderedReady creates the lowest missing Pod only', set: sts(3), pods: [], want: { create: ['web-0'] } },
    {
      name: 'OrderedReady waits for a Pending Pod',
      set: sts(3),
      pods: [pod('web-0', { phase: 'Pending', ready: false })],
      want: {},
    },
    {
      name: 'OrderedReady waits for a Running Pod that is not Ready',
      set: sts(3),
      pods: [pod('web-0', { ready: false })],
      want: {},
    },
    {
      name: 'OrderedReady waits for minReadySeconds',
      set: sts(3, { minReadySeconds: 900 }),
      pods: healthy('web-0'),
      want: {},
    },
    {
      name: 'OrderedReady goes on once the lower Pod is ready',
      set: sts(3),
      pods: healthy('web-0'),
      want: { create: ['web-1'] },
    },
    {
      name: 'OrderedReady fills a gap before going higher',
      set: sts(3),
      pods: healthy('web-0', 'web-2'),
      want: { create: ['web-1'] },
    },
    {
      name: 'OrderedReady waits for a terminating Pod',
      set: sts(3),
      pods: [pod('web-0', { deleting: true }), pod('web-1')],
      want: {},
    },
    {
      name: 'Parallel creates all at once',
      set: sts(3, parallel),
      pods: [],
      want: { create: ['web-0', 'web-1', 'web-2'] },
    },
    {
      name: 'Parallel does not wait for a Pod that is not ready',
      set: sts(3, parallel),
      pods: [pod('web-0', { phase: 'Pending', ready: false })],
      want: { create: ['web-1', 'web-2'] },
    },
    {
      name: 'OrderedReady scales down the highest ordinal, one at a time',
      set: sts(1),
      pods: healthy('web-0', 'web-1', 'web-2'),
      want: { delete: ['web-2'] },
    },
    {
      name: 'OrderedReady waits while the condemned Pod terminates',
      set: sts(1),
      pods: [pod('web-0'), pod('web-1'), pod('web-2', { deleting: true })],
      want: {},
    },
    {
      name: 'OrderedReady scales down only when every replica is healthy',
      set: sts(1),
      pods: [pod('web-0', { ready: false }), pod('web-1'), pod('web-2')],
      want: {},
    },
    {
      name: 'OrderedReady deletes an unhealthy condemned Pod when it is the first unhealthy one',
      set: sts(1),
      pods: [pod('web-0'), pod('web-1'), pod('web-2', { ready: false })],
      want: { delete: ['web-2'] },
    },
    {
      name: 'OrderedReady blocks on an unhealthy condemned Pod above a lower unhealthy one',
      set: sts(1),
      pods: [pod('web-0'), pod('web-1', { ready: false }), pod('web-2', { ready: false })],
      want: {},
    },
    {
      name: 'Parallel scales down every condemned Pod at once, skipping those terminating',
      set: sts(1, parallel),
      pods: [pod('web-0'), pod('web-1', { ready: false }), pod('web-2'), pod('web-3', { deleting: true })],
      want: { delete: ['web-2', 'web-1'] },
    },
    {
      name: 'a failed Pod is deleted and created again, and OrderedReady stops there',
      set: sts(3),
      pods: [pod('web-0'), pod('web-1', { phase: 'Failed', ready: false })],
      want: { recreate: ['web-1'], create: ['web-1'] },
    },
    {
      name: 'a succeeded Pod too',
      set: sts(2, parallel),
      pods: [pod('web-0', { phase: 'Succeeded', ready: false }), pod('web-1')],
      want: { recreate: ['web-0'], create: ['web-0'] },
    },
    {
      name: 'ordinals.start shifts the range',
      set: sts(2, { ordinals: { start: 5 } }),
      pods: [pod('web-0'), pod('web-5')],
      want: { create: ['web-6'] },
    },
    {
      name: 'with the start moved, the Pods below it are condemned',
      set: sts(2, { ordinals: { start: 5 } }),
      pods: healthy('web-0', 'web-5', 'web-6'),
      want: { delete: ['web-0'] },
    },
    { name: 'a set being deleted does nothing', set: sts(3, {}, { deletionTimestamp: iso(0) }), pods: [], want: {} },
  ];
  for (const r of rows) {
    it(r.name, () => assert.deepEqual(summary(decide(r.set, r.pods)), { ...none, ...r.want }));
  }

  it('creates in slow-start batches for Parallel', () => {
    assert.deepEqual(decide(sts(7, parallel), []).batches, [1, 2, 4]);
  });

  it('adopts a matching orphan and relabels a Pod that lacks its identity labels', () => {
    const orphan = pod('web-0', { labels: { app: 'web', 'controller-revision-hash': 'web-r2' } });
    orphan.metadata.ownerReferences = [];
    const d = decide(sts(1), [orphan]);
    assert.deepEqual(
      d.adopt.map((p) => p.metadata.name),
      ['web-0'],
    );
    assert.deepEqual(d.relabel, [
      { pod: orphan, labels: { 'statefulset.kubernetes.io/pod-name': 'web-0', 'apps.kubernetes.io/pod-index': '0' } },
    ]);
    assert.deepEqual(decide(sts(1), healthy('web-0')).relabel, []);
  });

  it('claims only the Pods named <set>-<ordinal>: releases the others it owns, adopts no other orphan', () => {
    const odd = pod('web-x', { labels: { app: 'web' } });
    const other = pod('webby-1');
    const stranger = pod('api-0');
    stranger.metadata.ownerReferences = [];
    const d = decide(sts(2), [pod('web-0'), odd, other, stranger]);
    assert.deepEqual(
      d.release.map((p) => p.metadata.name),
      ['web-x', 'webby-1'],
    );
    assert.deepEqual(d.adopt, []);
    assert.deepEqual(summary(d), { ...none, create: ['web-1'] });
  });

  it('reports a selector it cannot read', () => {
    const d = decide(sts(1, { selector: { matchExpressions: [{ key: 'a', operator: 'Bogus' }] } }), []);
    assert.match(d.error ?? '', /^error converting StatefulSet ns\/web selector: /);
    assert.deepEqual(d.create, []);
  });
});

describe('the Pod for an ordinal', () => {
  it('is named, labelled and addressed for its ordinal', () => {
    const p = decide(sts(1), []).create[0]!;
    assert.equal(p.metadata.name, 'web-0');
    assert.equal(p.metadata.generateName, 'web-');
    assert.equal(p.metadata.namespace, 'ns');
    assert.deepEqual(p.metadata.labels, {
      app: 'web',
      'statefulset.kubernetes.io/pod-name': 'web-0',
      'apps.kubernetes.io/pod-index': '0',
      'controller-revision-hash': 'web-r2',
    });
    assert.equal(p.spec['hostname'], 'web-0');
    assert.equal(p.spec['subdomain'], 'web');
    assert.deepEqual(p.metadata.ownerReferences?.[0], {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      name: 'web',
      uid: 'ss1',
      controller: true,
      blockOwnerDeletion: true,
    });
    assert.equal(decide(sts(1, { serviceName: '' }), []).create[0]!.spec['subdomain'], undefined);
  });

  it('comes back at the current revision below the partition, at the update revision from it', () => {
    const partitioned = (partition: number) =>
      sts(3, {
        podManagementPolicy: 'Parallel',
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition } },
      });
    const made = decide(partitioned(2), [], REVS).create;
    assert.deepEqual(
      made.map((p) => [p.metadata.name, p.metadata.labels?.['controller-revision-hash']]),
      [
        ['web-0', 'web-r1'],
        ['web-1', 'web-r1'],
        ['web-2', 'web-r2'],
      ],
    );
    assert.deepEqual(made[0]!.spec['containers'], [{ name: 'c', image: 'v1' }]);
    assert.deepEqual(made[2]!.spec['containers'], [{ name: 'c', image: 'v2' }]);
  });

  it('without a rollingUpdate block, below status.currentReplicas at the current revision', () => {
    const set = sts(2, { podManagementPolicy: 'Parallel', updateStrategy: { type: 'RollingUpdate' } });
    set.status = { replicas: 1, currentReplicas: 1 };
    const revs = decide(set, [], REVS).create.map((p) => p.metadata.labels?.['controller-revision-hash']);
    assert.deepEqual(revs, ['web-r1', 'web-r2']);
  });

  it('names the revision after the set and a hash of the template and collision count', () => {
    const a = revisionName(sts(1));
    assert.match(a, /^web-[bcdfghjklmnpqrstvwxz2456789]+$/);
    assert.notEqual(revisionName(sts(1, { template: template('v3') })), a);
    const collided = sts(1);
    collided.status = { replicas: 0, collisionCount: 1 };
    assert.notEqual(revisionName(collided), a);
    collided.status = { replicas: 0, collisionCount: 0 };
    assert.equal(revisionName(collided), a, 'no collision count is 0: the first status write keeps the revision');
  });
});

describe('decideStatefulSet: the rolling update', () => {
  const rows: { name: string; set: StatefulSet; pods: PodView[]; want: string | undefined }[] = [
    {
      name: 'replaces the highest old Pod first',
      set: sts(3),
      pods: [old('web-0'), old('web-1'), old('web-2')],
      want: 'web-2',
    },
    {
      name: 'then the next one down once the new one is healthy',
      set: sts(3),
      pods: [old('web-0'), old('web-1'), pod('web-2')],
      want: 'web-1',
    },
    {
      name: 'waits while the new one is not healthy',
      set: sts(3, { podManagementPolicy: 'Parallel' }),
      pods: [old('web-0'), old('web-1'), pod('web-2', { ready: false })],
      want: undefined,
    },
    {
      name: 'leaves the Pods below the partition',
      set: sts(3, { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } }),
      pods: [old('web-0'), old('web-1'), pod('web-2')],
      want: undefined,
    },
    {
      name: 'does nothing under OnDelete',
      set: sts(3, { updateStrategy: { type: 'OnDelete' } }),
      pods: [old('web-0'), old('web-1'), old('web-2')],
      want: undefined,
    },
    {
      name: 'waits for scaling first',
      set: sts(2),
      pods: [old('web-0'), old('web-1'), old('web-2')],
      want: undefined,
    },
  ];
  for (const r of rows) {
    it(r.name, () => assert.equal(decide(r.set, r.pods, REVS).deleteForUpdate?.metadata.name, r.want));
  }
});

describe('statefulSetStatus', () => {
  it('counts created, ready, available, current and updated Pods, in range and beyond', () => {
    const set = sts(2, { minReadySeconds: 300 });
    const pods = [old('web-0'), pod('web-1', { readyAgo: 60_000 }), pod('web-2', { deleting: true })];
    const d = decide(set, pods, REVS);
    assert.deepEqual(statefulSetStatus(set, d, REVS, NOW), {
      observedGeneration: 4,
      replicas: 3,
      readyReplicas: 3,
      currentReplicas: 1,
      updatedReplicas: 1,
      currentRevision: 'web-r1',
      updateRevision: 'web-r2',
      collisionCount: 0,
      availableReplicas: 2,
    });
    const s = statefulSetStatus(set, d, REVS, NOW);
    // Two available (one of them condemned) against two desired: no wait; against three, minReadySeconds.
    assert.equal(requeueAfterSeconds(set, s), undefined);
    assert.equal(requeueAfterSeconds(sts(3, { minReadySeconds: 300 }), s), 300);
    assert.equal(requeueAfterSeconds(sts(3), s), undefined);
  });

  it('does not count a Pod to be created, nor a failed one being recreated', () => {
    const set = sts(3, { podManagementPolicy: 'Parallel' });
    const d = decide(set, [pod('web-0'), pod('web-1', { phase: 'Failed', ready: false })], SAME);
    const s = statefulSetStatus(set, d, SAME, NOW);
    assert.deepEqual([s.replicas, s.readyReplicas, s.updatedReplicas], [1, 1, 1]);
  });

  it('counts the Pod deleted for the update out of the current ones', () => {
    const set = sts(2);
    const d = decide(set, [old('web-0'), old('web-1')], REVS);
    assert.equal(d.deleteForUpdate?.metadata.name, 'web-1');
    assert.equal(statefulSetStatus(set, d, REVS, NOW).currentReplicas, 1);
  });

  it('makes the update revision current once every Pod is updated and ready', () => {
    const set = sts(2);
    const done = statefulSetStatus(set, decide(set, healthy('web-0', 'web-1'), REVS), REVS, NOW);
    assert.deepEqual([done.currentRevision, done.currentReplicas], ['web-r2', 2]);
    const onDelete = sts(2, { updateStrategy: { type: 'OnDelete' } });
    const kept = statefulSetStatus(onDelete, decide(onDelete, healthy('web-0', 'web-1'), REVS), REVS, NOW);
    assert.deepEqual([kept.currentRevision, kept.currentReplicas], ['web-r1', 0]);
    const notReady = [pod('web-0'), pod('web-1', { ready: false })];
    const waiting = statefulSetStatus(set, decide(set, notReady, REVS), REVS, NOW);
    assert.equal(waiting.currentRevision, 'web-r1');
  });
});

/** A Pod of the current revision, r1, while the update revision is r2. */
function old(n: string, o: PodOpts = {}): PodView {
  return pod(n, { rev: 'web-r1', ...o });
}

describe('an OrderedReady set from start to finish', () => {
  interface Step {
    created: string[];
    deleted: string[];
  }
  /** Syncs until nothing happens: the controller acts, then the kubelet starts what was created. */
  function run(set: StatefulSet, start: PodView[], revisions: Revisions) {
    let pods = start;
    const steps: Step[] = [];
    for (let i = 0; i < 30; i++) {
      pods = pods.map((p) => (p.status?.phase === 'Pending' ? pod(p.metadata.name!, { rev: podRev(p) }) : p));
      const d = decide(set, pods, revisions);
      const gone = [...d.delete, ...d.recreate, ...(d.deleteForUpdate ? [d.deleteForUpdate] : [])];
      pods = pods.filter((p) => !gone.includes(p));
      for (const c of d.create) pods.push(pod(c.metadata.name!, { phase: 'Pending', ready: false, rev: podRev(c) }));
      const step = { created: d.create.map((p) => p.metadata.name!), deleted: gone.map((p) => p.metadata.name!) };
      if (step.created.length === 0 && step.deleted.length === 0 && !pods.some((p) => p.status?.phase === 'Pending')) {
        return { steps, pods, status: statefulSetStatus(set, d, revisions, NOW) };
      }
      steps.push(step);
    }
    throw new Error('no steady state');
  }
  const podRev = (p: { metadata: { labels?: Record<string, string> } }) =>
    p.metadata.labels?.['controller-revision-hash'] ?? '';

  it('creates web-0, web-1, web-2, each once the one below is ready', () => {
    const r = run(sts(3), [], SAME);
    assert.deepEqual(r.steps, [
      { created: ['web-0'], deleted: [] },
      { created: ['web-1'], deleted: [] },
      { created: ['web-2'], deleted: [] },
    ]);
    assert.deepEqual([r.status.replicas, r.status.readyReplicas, r.status.currentRevision], [3, 3, 'web-r2']);
  });

  it('updates from the highest ordinal down and then makes the update revision current', () => {
    const r = run(sts(3), [old('web-0'), old('web-1'), old('web-2')], REVS);
    const replaced = r.steps.map((s) => [s.deleted, s.created]);
    assert.deepEqual(replaced, [
      [['web-2'], []],
      [[], ['web-2']],
      [['web-1'], []],
      [[], ['web-1']],
      [['web-0'], []],
      [[], ['web-0']],
    ]);
    assert.deepEqual(r.pods.map(podRev), ['web-r2', 'web-r2', 'web-r2']);
    assert.deepEqual([r.status.currentRevision, r.status.currentReplicas, r.status.updatedReplicas], ['web-r2', 3, 3]);
    assert.deepEqual(statefulSetRolloutStatusMessage({ ...sts(3), status: r.status }), {
      message: 'partitioned roll out complete: 3 new pods have been updated...',
      done: true,
    });
  });

  it('scales down from the highest ordinal, one at a time', () => {
    const r = run(sts(1), healthy('web-0', 'web-1', 'web-2'), SAME);
    assert.deepEqual(
      r.steps.map((s) => s.deleted),
      [['web-2'], ['web-1']],
    );
  });
});

describe('statefulSetRolloutStatusMessage', () => {
  const at = (status: Partial<NonNullable<StatefulSet['status']>>, spec: Partial<StatefulSet['spec']> = {}) =>
    statefulSetRolloutStatusMessage({ ...sts(3, spec), status: { replicas: 3, ...status } });
  const partition = (p: number): Partial<StatefulSet['spec']> => ({
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: p } },
  });
  const noBlock: Partial<StatefulSet['spec']> = { updateStrategy: { type: 'RollingUpdate' } };
  const seen = { observedGeneration: 4, readyReplicas: 3 };
  const rows: { name: string; got: ReturnType<typeof at>; want: ReturnType<typeof at> }[] = [
    {
      name: 'OnDelete',
      got: at(seen, { updateStrategy: { type: 'OnDelete' } }),
      want: { message: '', done: true, error: 'rollout status is only available for RollingUpdate strategy type' },
    },
    {
      name: 'never observed',
      got: at({ readyReplicas: 3 }),
      want: { message: 'Waiting for statefulset spec update to be observed...', done: false },
    },
    {
      name: 'not all ready',
      got: at({ observedGeneration: 4, readyReplicas: 1 }),
      want: { message: 'Waiting for 2 pods to be ready...', done: false },
    },
    {
      name: 'partition: not all above it updated',
      got: at({ ...seen, updatedReplicas: 1 }, partition(1)),
      want: {
        message: 'Waiting for partitioned roll out to finish: 1 out of 2 new pods have been updated...',
        done: false,
      },
    },
    {
      name: 'partition: done (the usual case, partition defaulted to 0)',
      got: at({ ...seen, updatedReplicas: 3 }),
      want: { message: 'partitioned roll out complete: 3 new pods have been updated...', done: true },
    },
    {
      name: 'no rollingUpdate block: revisions differ',
      got: at({ ...seen, updatedReplicas: 2, currentRevision: 'web-r1', updateRevision: 'web-r2' }, noBlock),
      want: { message: 'waiting for statefulset rolling update to complete 2 pods at revision web-r2...', done: false },
    },
    {
      name: 'no rollingUpdate block: done',
      got: at({ ...seen, currentReplicas: 3, currentRevision: 'web-r2', updateRevision: 'web-r2' }, noBlock),
      want: { message: 'statefulset rolling update complete 3 pods at revision web-r2...', done: true },
    },
  ];
  for (const r of rows) it(r.name, () => assert.deepEqual(r.got, r.want));
});
