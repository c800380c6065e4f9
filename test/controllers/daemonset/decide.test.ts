// The DaemonSet controller's decisions against kube's NodeShouldRunDaemonPod, podsShouldBeOnNode, syncNodes,
// rollingUpdate (maxSurge 0), updateDaemonSetStatus and kubectl's DaemonSetStatusViewer.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { DaemonSet } from '../../../src/api/apps.js';
import type { Node, Taint } from '../../../src/api/types.js';
import { BURST_REPLICAS, decideDaemonSet, type DaemonSetSyncInput } from '../../../src/controllers/daemonset/decide.js';
import { daemonPodFor, revisionHash } from '../../../src/controllers/daemonset/pod.js';
import {
  nodeShouldRunDaemonPod,
  targetNodeName,
  withDaemonTolerations,
  type DaemonPodView,
} from '../../../src/controllers/daemonset/placement.js';
import { daemonSetRolloutStatusMessage } from '../../../src/controllers/daemonset/rolloutstatus.js';
import { daemonSetStatus, requeueAfterSeconds } from '../../../src/controllers/daemonset/status.js';
import { iso, NOW, workloadPod } from '../workload/pods.js';

const HASH = 'h2';

function ds(spec: Partial<DaemonSet['spec']> = {}, meta: Partial<DaemonSet['metadata']> = {}): DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent', namespace: 'ns', uid: 'ds1', generation: 2, ...meta },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      ...spec,
    },
  };
}

const withTemplateSpec = (extra: Record<string, unknown>): Partial<DaemonSet['spec']> => ({
  template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'c', image: 'i' }], ...extra } },
});

const node = (name: string, labels: Record<string, string> = {}, taints: Taint[] = []): Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } },
  spec: { taints },
});

interface PodOpts {
  node?: string;
  boundFor?: string;
  hash?: string;
  phase?: string;
  ready?: boolean;
  readyAgo?: number;
  createdAgo?: number;
  deleting?: boolean;
  labels?: Record<string, string>;
}

const OWNER = { kind: 'DaemonSet', name: 'agent', uid: 'ds1' };
const boundTo = (node: string): NonNullable<DaemonPodView['spec']> => ({
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }],
      },
    },
  },
});

const pod = (name: string, o: PodOpts = {}): DaemonPodView =>
  workloadPod(
    name,
    { ...o, owner: OWNER, labels: o.labels ?? { app: 'agent', 'controller-revision-hash': o.hash ?? HASH } },
    o.boundFor !== undefined ? boundTo(o.boundFor) : { nodeName: o.node ?? 'n1' },
  );

const emptyStatus = { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 };

const input = (d: DaemonSet, nodes: Node[], pods: DaemonPodView[], extra: Partial<DaemonSetSyncInput> = {}) =>
  decideDaemonSet({ ds: d, nodes, pods, hash: HASH, nowMs: NOW, ...extra });
const names = (pods: readonly DaemonPodView[]) => pods.map((p) => p.metadata.name).sort();

describe('nodeShouldRunDaemonPod', () => {
  const rows: { name: string; spec: Record<string, unknown>; node: Node; run: boolean; stay: boolean }[] = [
    { name: 'a plain node', spec: {}, node: node('n1'), run: true, stay: true },
    {
      name: 'node selector matches',
      spec: { nodeSelector: { disk: 'ssd' } },
      node: node('n1', { disk: 'ssd' }),
      run: true,
      stay: true,
    },
    {
      name: 'node selector does not match',
      spec: { nodeSelector: { disk: 'ssd' } },
      node: node('n1'),
      run: false,
      stay: false,
    },
    {
      name: 'required node affinity does not match',
      spec: {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }],
            },
          },
        },
      },
      node: node('n1', { zone: 'b' }),
      run: false,
      stay: false,
    },
    { name: 'the template names another node', spec: { nodeName: 'n2' }, node: node('n1'), run: false, stay: false },
    { name: 'the template names this node', spec: { nodeName: 'n1' }, node: node('n1'), run: true, stay: true },
    {
      name: 'an untolerated NoSchedule taint: no new Pod, the old one stays',
      spec: {},
      node: node('n1', {}, [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }]),
      run: false,
      stay: true,
    },
    {
      name: 'an untolerated NoExecute taint: no Pod at all',
      spec: {},
      node: node('n1', {}, [{ key: 'dedicated', value: 'db', effect: 'NoExecute' }]),
      run: false,
      stay: false,
    },
    {
      name: 'a PreferNoSchedule taint is no bar',
      spec: {},
      node: node('n1', {}, [{ key: 'dedicated', effect: 'PreferNoSchedule' }]),
      run: true,
      stay: true,
    },
    {
      name: 'the template tolerates the taint',
      spec: { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoExecute' }] },
      node: node('n1', {}, [{ key: 'dedicated', value: 'db', effect: 'NoExecute' }]),
      run: true,
      stay: true,
    },
    {
      name: 'cordoned: the added unschedulable toleration',
      spec: {},
      node: node('n1', {}, [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }]),
      run: true,
      stay: true,
    },
    {
      name: 'not ready and unreachable: the added NoExecute tolerations',
      spec: {},
      node: node('n1', {}, [
        { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' },
        { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' },
        { key: 'node.kubernetes.io/memory-pressure', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/disk-pressure', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/pid-pressure', effect: 'NoSchedule' },
      ]),
      run: true,
      stay: true,
    },
    {
      name: 'network unavailable, pod network',
      spec: {},
      node: node('n1', {}, [{ key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule' }]),
      run: false,
      stay: true,
    },
    {
      name: 'network unavailable, host network',
      spec: { hostNetwork: true },
      node: node('n1', {}, [{ key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule' }]),
      run: true,
      stay: true,
    },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const got = nodeShouldRunDaemonPod(r.node, ds(withTemplateSpec(r.spec)).spec.template);
      assert.deepEqual(got, { shouldRun: r.run, shouldContinueRunning: r.stay });
    });
  }
});

describe('the daemon Pod for a node', () => {
  it('binds to the node by a metadata.name field term, replacing the label terms, keeping the rest', () => {
    const affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }],
        },
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: {} }],
      },
    };
    const d = ds(withTemplateSpec({ affinity }), { annotations: { 'deprecated.daemonset.template.generation': '4' } });
    const p = daemonPodFor(d, HASH, 'n7');
    assert.deepEqual(p.spec['affinity'], {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n7'] }] }],
        },
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: {} }],
      },
    });
    assert.deepEqual(p.metadata.labels, {
      app: 'agent',
      'pod-template-generation': '4',
      'controller-revision-hash': HASH,
    });
    assert.equal(p.metadata.generateName, 'agent-');
    assert.deepEqual(p.metadata.ownerReferences?.[0], {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      name: 'agent',
      uid: 'ds1',
      controller: true,
      blockOwnerDeletion: true,
    });
    assert.equal(targetNodeName({ metadata: {}, spec: p.spec }), 'n7');
    // The template itself is untouched.
    assert.deepEqual(d.spec.template.spec?.['affinity'], affinity);
    assert.equal(d.spec.template.metadata?.labels?.['controller-revision-hash'], undefined);
  });

  it('carries the daemon tolerations, network-unavailable only with the host network', () => {
    const keys = (spec: Record<string, unknown>) =>
      (
        daemonPodFor(ds(withTemplateSpec(spec)), HASH, 'n1').spec['tolerations'] as { key: string; effect: string }[]
      ).map((t) => `${t.key}:${t.effect}`);
    const base = [
      'node.kubernetes.io/not-ready:NoExecute',
      'node.kubernetes.io/unreachable:NoExecute',
      'node.kubernetes.io/disk-pressure:NoSchedule',
      'node.kubernetes.io/memory-pressure:NoSchedule',
      'node.kubernetes.io/pid-pressure:NoSchedule',
      'node.kubernetes.io/unschedulable:NoSchedule',
    ];
    assert.deepEqual(keys({}), base);
    assert.deepEqual(keys({ hostNetwork: true }), [...base, 'node.kubernetes.io/network-unavailable:NoSchedule']);
  });

  it('replaces a toleration that differs only in its seconds, so the daemon is never evicted', () => {
    const own = {
      key: 'node.kubernetes.io/not-ready',
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: 300,
    };
    const other = { key: 'x', operator: 'Exists' };
    const got = withDaemonTolerations([other, own], false);
    assert.deepEqual(got[0], other);
    assert.deepEqual(got[1], { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' });
    assert.equal(got.length, 7);
  });

  it('hashes the template and the collision count for the revision', () => {
    const a = revisionHash(ds());
    assert.match(a, /^[bcdfghjklmnpqrstvwxz2456789]+$/);
    assert.equal(revisionHash(ds({}, { generation: 9 })), a);
    assert.notEqual(revisionHash(ds(withTemplateSpec({ hostNetwork: true }))), a);
    assert.notEqual(revisionHash({ ...ds(), status: { ...emptyStatus, collisionCount: 1 } }), a);
  });

  it('has no generation label without the annotation, no hash label without a hash', () => {
    assert.deepEqual(daemonPodFor(ds(), '', 'n1').metadata.labels, { app: 'agent' });
  });
});

describe('decideDaemonSet: which nodes get a Pod, which Pods go', () => {
  it('creates on every eligible node without one, in slow-start batches', () => {
    const nodes = ['n1', 'n2', 'n3', 'n4'].map((n) => node(n));
    nodes.push(node('n5', {}, [{ key: 'k', effect: 'NoSchedule' }]));
    const d = input(ds(), nodes, [pod('a', { node: 'n2' })]);
    assert.deepEqual(d.create, ['n1', 'n3', 'n4']);
    assert.deepEqual(d.batches, [1, 2]);
    assert.deepEqual(d.delete, []);
  });

  it('counts a Pod bound for a node but not yet scheduled as that node’s', () => {
    const d = input(ds(), [node('n1'), node('n2')], [pod('a', { boundFor: 'n1' })]);
    assert.deepEqual(d.create, ['n2']);
  });

  it('deletes the Pods of a node that must not run one, and leaves those being deleted', () => {
    const nodes = [node('n1', {}, [{ key: 'k', effect: 'NoExecute' }]), node('n2', { role: 'x' })];
    const d = input(ds(withTemplateSpec({ nodeSelector: { role: 'x' } })), nodes, [
      pod('a', { node: 'n1' }),
      pod('b', { node: 'n1', deleting: true }),
      pod('c', { node: 'n2' }),
    ]);
    assert.deepEqual(names(d.delete), ['a']);
    assert.deepEqual(d.create, []);
  });

  it('keeps the Pod of a node that gained an untolerated NoSchedule taint, and creates none there', () => {
    const tainted = node('n1', {}, [{ key: 'k', effect: 'NoSchedule' }]);
    assert.deepEqual(input(ds(), [tainted], [pod('a', { node: 'n1' })]).delete, []);
    assert.deepEqual(input(ds(), [tainted], []).create, []);
  });

  it('keeps the oldest of duplicates on one node, a bound Pod before an unbound one', () => {
    const d = input(
      ds(),
      [node('n1')],
      [
        pod('young', { node: 'n1', createdAgo: 1000 }),
        pod('old', { node: 'n1', createdAgo: 9000 }),
        pod('oldest-unbound', { boundFor: 'n1', createdAgo: 99_000 }),
        pod('gone', { node: 'n1', createdAgo: 99_000, deleting: true }),
      ],
    );
    assert.deepEqual(names(d.delete), ['oldest-unbound', 'young']);
  });

  it('breaks a tie in age by name', () => {
    const d = input(ds(), [node('n1')], [pod('b', { node: 'n1' }), pod('a', { node: 'n1' })]);
    assert.deepEqual(names(d.delete), ['b']);
  });

  it('deletes a failed Pod with an event, unless its node is backing off; a succeeded one always', () => {
    const pods = [pod('f', { node: 'n1', phase: 'Failed' }), pod('s', { node: 'n2', phase: 'Succeeded' })];
    const d = input(ds(), [node('n1'), node('n2')], pods);
    assert.deepEqual(names(d.delete), ['f', 's']);
    assert.deepEqual(
      d.failed.map((f) => [f.pod.metadata.name, f.node]),
      [['f', 'n1']],
    );
    const waiting = input(ds(), [node('n1'), node('n2')], pods, { failedBackoff: new Set(['n1']) });
    assert.deepEqual(names(waiting.delete), ['s']);
    assert.deepEqual(waiting.backingOff, ['n1']);
    assert.deepEqual(waiting.create, []);
  });

  it('forgets a terminal Pod being deleted: its node gets a new one', () => {
    const d = input(ds(), [node('n1')], [pod('f', { node: 'n1', phase: 'Failed', deleting: true })]);
    assert.deepEqual(d.create, ['n1']);
  });

  it('deletes an unbound Pod whose node is gone, and leaves a bound one to the Pod GC', () => {
    const d = input(
      ds(),
      [node('n1')],
      [pod('a', { node: 'n1' }), pod('lost', { boundFor: 'gone' }), pod('bound', { node: 'gone2' })],
    );
    assert.deepEqual(names(d.delete), ['lost']);
  });

  it('adopts orphans that match and releases owned Pods that no longer do', () => {
    const orphan = pod('o', { node: 'n1' });
    orphan.metadata.ownerReferences = [];
    const stray = pod('s', { node: 'n2', labels: { app: 'other' } });
    const d = input(ds(), [node('n1'), node('n2')], [orphan, stray]);
    assert.deepEqual(names(d.adopt), ['o']);
    assert.deepEqual(names(d.release), ['s']);
    assert.deepEqual(d.create, ['n2']);
  });

  it('does nothing for a DaemonSet being deleted, nor with a selector it cannot read', () => {
    const gone = input(ds({}, { deletionTimestamp: iso(0) }), [node('n1')], []);
    assert.deepEqual([gone.create, gone.delete], [[], []]);
    const bad = input(ds({ selector: { matchExpressions: [{ key: 'a', operator: 'Bogus' }] } }), [node('n1')], []);
    assert.match(bad.error ?? '', /^error converting pod selector to selector for daemon set ns\/agent: /);
    assert.deepEqual(bad.create, []);
  });

  it('creates at most a burst per sync', () => {
    const nodes = Array.from({ length: BURST_REPLICAS + 10 }, (_, i) => node(`n${i}`));
    const d = input(ds(), nodes, []);
    assert.equal(d.create.length, BURST_REPLICAS);
    assert.equal(
      d.batches.reduce((a, b) => a + b, 0),
      BURST_REPLICAS,
    );
  });
});

describe('decideDaemonSet: the rolling update (maxSurge 0)', () => {
  const nodes = ['n1', 'n2', 'n3', 'n4', 'n5'].map((n) => node(n));
  const old = (n: string, o: PodOpts = {}) => pod(`old-${n}`, { node: n, hash: 'h1', ...o });
  const fresh = (n: string, o: PodOpts = {}) => pod(`new-${n}`, { node: n, ...o });
  const strategy = (maxUnavailable?: number | string, maxSurge?: number | string): Partial<DaemonSet['spec']> => ({
    updateStrategy: {
      type: 'RollingUpdate',
      rollingUpdate: {
        ...(maxUnavailable !== undefined ? { maxUnavailable } : {}),
        ...(maxSurge !== undefined ? { maxSurge } : {}),
      },
    },
  });
  const rows: { name: string; spec: Partial<DaemonSet['spec']>; pods: DaemonPodView[]; want: string[] }[] = [
    { name: 'default maxUnavailable 1', spec: {}, pods: nodes.map((n) => old(n.metadata.name!)), want: ['old-n1'] },
    {
      name: 'maxUnavailable 2',
      spec: strategy(2),
      pods: nodes.map((n) => old(n.metadata.name!)),
      want: ['old-n1', 'old-n2'],
    },
    {
      name: 'a percentage rounds up (30% of 5 is 2)',
      spec: strategy('30%'),
      pods: nodes.map((n) => old(n.metadata.name!)),
      want: ['old-n1', 'old-n2'],
    },
    {
      name: 'maxUnavailable 0 and maxSurge 0 is read as 1',
      spec: strategy(0, 0),
      pods: nodes.map((n) => old(n.metadata.name!)),
      want: ['old-n1'],
    },
    {
      name: 'a new Pod not yet available uses up the budget',
      spec: {},
      pods: [fresh('n1', { ready: false }), old('n2'), old('n3'), old('n4'), old('n5')],
      want: [],
    },
    {
      name: 'an available new Pod does not',
      spec: {},
      pods: [fresh('n1'), old('n2'), old('n3'), old('n4'), old('n5')],
      want: ['old-n2'],
    },
    {
      name: 'an old Pod that is not available is replaced whatever the budget',
      spec: {},
      pods: [fresh('n1', { ready: false }), old('n2', { ready: false }), old('n3'), old('n4'), old('n5')],
      want: ['old-n2'],
    },
    {
      name: 'a node without a Pod counts as unavailable',
      spec: strategy(2),
      pods: [old('n2'), old('n3'), old('n4'), old('n5')],
      want: [],
    },
    {
      name: 'minReadySeconds: ready for too short is not available',
      spec: { minReadySeconds: 900 },
      pods: [
        fresh('n1', { readyAgo: 60_000 }),
        ...['n2', 'n3', 'n4'].map((n) => old(n, { readyAgo: 3_000_000 })),
        old('n5'),
      ],
      want: ['old-n5'],
    },
    {
      name: 'a Pod of the current template generation counts as updated',
      spec: {},
      pods: [
        fresh('n1', { labels: { app: 'agent', 'pod-template-generation': '7' } }),
        old('n2'),
        old('n3'),
        old('n4'),
        old('n5'),
      ],
      want: ['old-n2'],
    },
    {
      name: 'OnDelete replaces nothing',
      spec: { updateStrategy: { type: 'OnDelete' } },
      pods: nodes.map((n) => old(n.metadata.name!)),
      want: [],
    },
  ];
  const annotated = { annotations: { 'deprecated.daemonset.template.generation': '7' } };
  for (const r of rows) {
    it(r.name, () => assert.deepEqual(names(input(ds(r.spec, annotated), nodes, r.pods).delete), r.want));
  }

  it('waits while the core loop still has creates or deletes to do', () => {
    const pods = [old('n1'), old('n2'), old('n3'), old('n4')];
    const d = input(ds(strategy(3)), nodes, pods);
    assert.deepEqual(d.create, ['n5']);
    assert.deepEqual(d.delete, []);
  });

  it('notes a maxSurge it does not honour and replaces in place', () => {
    const d = input(
      ds(strategy(0, 1)),
      nodes,
      nodes.map((n) => old(n.metadata.name!)),
    );
    assert.deepEqual(names(d.delete), ['old-n1']);
    assert.equal(d.notes.length, 1);
  });

  it('reports an unreadable maxUnavailable', () => {
    const d = input(
      ds(strategy('lots')),
      nodes,
      nodes.map((n) => old(n.metadata.name!)),
    );
    assert.match(d.error ?? '', /invalid value for IntOrString: invalid type: string is not a percentage$/);
    assert.deepEqual(d.delete, []);
  });
});

describe('daemonSetStatus', () => {
  it('counts scheduled, misscheduled, ready, available and updated Pods per node', () => {
    const d = ds(withTemplateSpec({ nodeSelector: { role: 'x' } }), { generation: 5 });
    d.spec.minReadySeconds = 300;
    const x = { role: 'x' };
    const nodes = [node('n1', x), node('n2', x), node('n3', x), node('n4', x), node('n5')];
    const pods = [
      pod('a', { node: 'n1' }),
      pod('b', { node: 'n2', hash: 'h1', readyAgo: 60_000 }),
      pod('c-young', { node: 'n3', ready: false, createdAgo: 10 }),
      pod('c-old', { node: 'n3', hash: 'h1', ready: true }),
      pod('d', { node: 'n5' }),
    ];
    const decision = input(d, nodes, pods);
    const s = daemonSetStatus(d, nodes, decision.byNode, HASH, NOW);
    assert.deepEqual(s, {
      currentNumberScheduled: 3,
      numberMisscheduled: 1,
      desiredNumberScheduled: 4,
      numberReady: 3,
      observedGeneration: 5,
      updatedNumberScheduled: 1,
      numberAvailable: 2,
      numberUnavailable: 2,
    });
    assert.equal(requeueAfterSeconds(d, s), 300);
    assert.equal(requeueAfterSeconds(ds(), s), undefined);
  });
});

describe('daemonSetRolloutStatusMessage', () => {
  const at = (
    status: Partial<NonNullable<DaemonSet['status']>>,
    spec: Partial<DaemonSet['spec']> = {},
    generation = 2,
  ) =>
    daemonSetRolloutStatusMessage({
      ...ds(spec, { generation }),
      status: {
        currentNumberScheduled: 0,
        numberMisscheduled: 0,
        desiredNumberScheduled: 3,
        numberReady: 0,
        ...status,
      },
    });
  const rows: { name: string; got: ReturnType<typeof at>; want: ReturnType<typeof at> }[] = [
    {
      name: 'OnDelete',
      got: at({}, { updateStrategy: { type: 'OnDelete' } }),
      want: { message: '', done: true, error: 'rollout status is only available for RollingUpdate strategy type' },
    },
    {
      name: 'spec not yet observed',
      got: at({ observedGeneration: 1 }),
      want: { message: 'Waiting for daemon set spec update to be observed...', done: false },
    },
    {
      name: 'not all updated',
      got: at({ observedGeneration: 2, updatedNumberScheduled: 1 }),
      want: {
        message: 'Waiting for daemon set "agent" rollout to finish: 1 out of 3 new pods have been updated...',
        done: false,
      },
    },
    {
      name: 'not all available',
      got: at({ observedGeneration: 2, updatedNumberScheduled: 3, numberAvailable: 2 }),
      want: {
        message: 'Waiting for daemon set "agent" rollout to finish: 2 of 3 updated pods are available...',
        done: false,
      },
    },
    {
      name: 'done',
      got: at({ observedGeneration: 2, updatedNumberScheduled: 3, numberAvailable: 3 }),
      want: { message: 'daemon set "agent" successfully rolled out', done: true },
    },
  ];
  for (const r of rows) it(r.name, () => assert.deepEqual(r.got, r.want));
});

describe('a rolling update from start to finish', () => {
  /** Syncs until rolled out: the controller acts, the kubelet starts what was created, the status is written. */
  function rollOut(maxUnavailable: number) {
    const nodes = ['n1', 'n2', 'n3', 'n4'].map((n) => node(n));
    let d: DaemonSet = ds({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable } } });
    let pods = nodes.map((n) => pod(`old-${n.metadata.name}`, { node: n.metadata.name!, hash: 'h1' }));
    const lines: string[] = [];
    let worst = 0;
    for (let i = 0; i < 30 && !daemonSetRolloutStatusMessage(d).done; i++) {
      pods = pods.map((p) => (p.status?.phase === 'Pending' ? pod(p.metadata.name!, { node: p.spec!.nodeName! }) : p));
      const decision = input(d, nodes, pods);
      pods = pods.filter((p) => !decision.delete.includes(p));
      for (const n of decision.create) pods.push(pod(`new-${n}`, { node: n, phase: 'Pending', ready: false }));
      const status = daemonSetStatus(d, nodes, input(d, nodes, pods).byNode, HASH, NOW);
      d = { ...d, status };
      worst = Math.max(worst, status.numberUnavailable ?? 0);
      const line = daemonSetRolloutStatusMessage(d).message;
      if (line !== lines.at(-1)) lines.push(line);
    }
    return { lines, worst, pods: names(pods) };
  }

  it('replaces one node at a time with maxUnavailable 1', () => {
    const r = rollOut(1);
    const wait = (what: string) => `Waiting for daemon set "agent" rollout to finish: ${what}...`;
    assert.deepEqual(r.lines, [
      wait('0 out of 4 new pods have been updated'),
      wait('1 out of 4 new pods have been updated'),
      wait('2 out of 4 new pods have been updated'),
      wait('3 out of 4 new pods have been updated'),
      wait('3 of 4 updated pods are available'),
      'daemon set "agent" successfully rolled out',
    ]);
    assert.equal(r.worst, 1);
    assert.deepEqual(r.pods, ['new-n1', 'new-n2', 'new-n3', 'new-n4']);
  });

  it('two at a time with maxUnavailable 2, never more', () => {
    const r = rollOut(2);
    assert.equal(r.worst, 2);
    assert.equal(r.lines.length, 4);
    assert.deepEqual(r.pods, ['new-n1', 'new-n2', 'new-n3', 'new-n4']);
  });
});
