// The scheduler's filters, the FailedScheduling text and the spread: one row per rule of the reference's filter
// table (first failing plugin wins), the reference's message examples verbatim, and the preemption part.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { schedule, type Candidate } from '../../../src/controllers/scheduler/fit.js';
import type { Node, Taint } from '../../../src/api/types.js';
import type { NodeSelectorTerm, Pod, PodSpec } from '../../../src/api/workloads.js';

interface NodeOpts {
  cordoned?: boolean;
  taints?: Taint[];
  labels?: Record<string, string>;
  cpu?: string;
  memory?: string;
  pods?: string;
}

function node(name: string, o: NodeOpts = {}): Node {
  return {
    metadata: { name, labels: o.labels ?? { 'kubernetes.io/hostname': name } },
    spec: { ...(o.cordoned ? { unschedulable: true } : {}), ...(o.taints ? { taints: o.taints } : {}) },
    status: { allocatable: { cpu: o.cpu ?? '4', memory: o.memory ?? '8Gi', pods: o.pods ?? '110' } },
  };
}

function pod(name: string, spec: Partial<PodSpec> = {}, phase = 'Running'): Pod {
  return {
    metadata: { name, namespace: 'default' },
    spec: { containers: [{ name: 'c' }], ...spec },
    status: { phase },
  };
}

const requesting = (cpu: string, memory = '0', extra: Partial<PodSpec> = {}): Partial<PodSpec> => ({
  containers: [{ name: 'c', resources: { requests: { cpu, memory } } }],
  ...extra,
});

const on = (n: Node, ...pods: Pod[]): Candidate => ({ node: n, pods });
const full = (name: string) => on(node(name, { cpu: '1' }), pod(`${name}-x`, requesting('1')));

function message(p: Pod, cs: Candidate[]): string {
  const r = schedule(p, cs);
  assert.equal(r.outcome, 'unschedulable');
  return r.outcome === 'unschedulable' ? r.message : '';
}

function boundTo(p: Pod, cs: Candidate[]): string {
  const r = schedule(p, cs);
  assert.equal(r.outcome, 'bind', r.outcome === 'unschedulable' ? r.message : '');
  return r.outcome === 'bind' ? r.node : '';
}

const NOT_HELPFUL = 'Preemption is not helpful for scheduling';
const NO_VICTIMS = 'No preemption victims found for incoming pod';

describe('scheduler: the FailedScheduling text', () => {
  it('a cordoned node and two full ones (the reference example)', () => {
    const cs = [on(node('a', { cordoned: true })), full('b'), full('c')];
    assert.equal(
      message(pod('p', requesting('500m')), cs),
      '0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu. preemption: 0/3 nodes are ' +
        `available: 1 ${NOT_HELPFUL}, 2 ${NO_VICTIMS}.`,
    );
  });

  it('a control-plane taint and two nodes short of memory (the observed transcript)', () => {
    const cp = node('cp', { taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] });
    const small = (n: string) => on(node(n, { memory: '1Gi' }));
    assert.equal(
      message(pod('p', requesting('0', '2Gi')), [on(cp), small('w1'), small('w2')]),
      '0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, ' +
        `2 Insufficient memory. preemption: 0/3 nodes are available: 1 ${NOT_HELPFUL}, 2 ${NO_VICTIMS}.`,
    );
  });

  it('reasons of one node all count, and the histogram is string-sorted', () => {
    const tiny = node('a', { cpu: '100m', memory: '10Mi', pods: '1' });
    assert.equal(
      message(pod('p', requesting('1', '1Gi')), [on(tiny, pod('q'))]),
      '0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 Too many pods. preemption: 0/1 nodes ' +
        `are available: 1 ${NO_VICTIMS}.`,
    );
  });

  it('no nodes at all', () => {
    assert.equal(message(pod('p'), []), 'no nodes available to schedule pods');
  });

  it('preemptionPolicy Never', () => {
    assert.equal(
      message(pod('p', requesting('2', '0', { preemptionPolicy: 'Never' })), [full('a')]),
      '0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.',
    );
  });

  it('lower-priority pods whose removal makes room: a candidate, and no preemption text', () => {
    const low = pod('low', requesting('1', '0', { priority: 0 }));
    const r = schedule(pod('p', requesting('1', '0', { priority: 1000 })), [on(node('a', { cpu: '1' }), low)]);
    assert.equal(r.outcome, 'unschedulable');
    if (r.outcome !== 'unschedulable') return;
    assert.equal(r.message, '0/1 nodes are available: 1 Insufficient cpu.');
    assert.deepEqual(r.preemptionCandidates, ['a']);
  });

  it('lower-priority pods too small to matter: the filter reasons of the dry run', () => {
    const low = pod('low', requesting('100m', '0', { priority: 0 }));
    const same = pod('same', requesting('900m', '0', { priority: 1000 }));
    assert.equal(
      message(pod('p', requesting('500m', '0', { priority: 1000 })), [on(node('a', { cpu: '1' }), low, same)]),
      '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Insufficient cpu.',
    );
  });
});

interface Row {
  name: string;
  pod: Pod;
  node: Node;
  pods?: Pod[];
  reason?: string;
}

const gi = (key: string, operator: string, values?: string[]): Partial<PodSpec> => ({
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key, operator, ...(values ? { values } : {}) }] }],
      },
    },
  },
});

const rows: Row[] = [
  { name: 'a plain node fits', pod: pod('p'), node: node('a') },
  { name: 'cordoned', pod: pod('p'), node: node('a', { cordoned: true }), reason: 'node(s) were unschedulable' },
  {
    name: 'cordoned, the pod tolerates node.kubernetes.io/unschedulable',
    pod: pod('p', {
      tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }],
    }),
    node: node('a', { cordoned: true }),
  },
  {
    name: 'cordoned and tainted: NodeUnschedulable fails first',
    pod: pod('p'),
    node: node('a', { cordoned: true, taints: [{ key: 'x', value: 'y', effect: 'NoSchedule' }] }),
    reason: 'node(s) were unschedulable',
  },
  {
    name: 'not Ready: the not-ready taint',
    pod: pod('p'),
    node: node('a', { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] }),
    reason: 'node(s) had untolerated taint {node.kubernetes.io/not-ready: }',
  },
  {
    name: 'a NoExecute taint blocks too, with its value named',
    pod: pod('p'),
    node: node('a', { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoExecute' }] }),
    reason: 'node(s) had untolerated taint {dedicated: gpu}',
  },
  {
    name: 'PreferNoSchedule does not block',
    pod: pod('p'),
    node: node('a', { taints: [{ key: 'dedicated', value: 'gpu', effect: 'PreferNoSchedule' }] }),
  },
  {
    name: 'Equal toleration with the same value tolerates',
    pod: pod('p', { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }] }),
    node: node('a', { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] }),
  },
  {
    name: 'Equal toleration with another value does not',
    pod: pod('p', { tolerations: [{ key: 'dedicated', value: 'cpu' }] }),
    node: node('a', { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] }),
    reason: 'node(s) had untolerated taint {dedicated: gpu}',
  },
  {
    name: 'a toleration of another effect does not',
    pod: pod('p', { tolerations: [{ key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }] }),
    node: node('a', { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] }),
    reason: 'node(s) had untolerated taint {dedicated: gpu}',
  },
  {
    name: 'Exists with no key tolerates everything',
    pod: pod('p', { tolerations: [{ operator: 'Exists' }] }),
    node: node('a', { taints: [{ key: 'k', value: 'v', effect: 'NoExecute' }] }),
  },
  {
    name: 'the second taint is the untolerated one',
    pod: pod('p', { tolerations: [{ key: 'a', operator: 'Exists' }] }),
    node: node('a', {
      taints: [
        { key: 'a', effect: 'NoSchedule' },
        { key: 'b', value: '1', effect: 'NoSchedule' },
      ],
    }),
    reason: 'node(s) had untolerated taint {b: 1}',
  },
  {
    name: 'another node name',
    pod: pod('p', { nodeName: 'b' }),
    node: node('a'),
    reason: "node(s) didn't match the requested node name",
  },
  {
    name: 'nodeSelector that the labels satisfy',
    pod: pod('p', { nodeSelector: { zone: 'x' } }),
    node: node('a', { labels: { zone: 'x', other: '1' } }),
  },
  {
    name: 'nodeSelector that they do not',
    pod: pod('p', { nodeSelector: { zone: 'x' } }),
    node: node('a', { labels: { zone: 'y' } }),
    reason: "node(s) didn't match Pod's node affinity/selector",
  },
  { name: 'affinity In', pod: pod('p', gi('zone', 'In', ['x', 'y'])), node: node('a', { labels: { zone: 'y' } }) },
  {
    name: 'affinity In, no such value',
    pod: pod('p', gi('zone', 'In', ['x'])),
    node: node('a', { labels: { zone: 'y' } }),
    reason: "node(s) didn't match Pod's node affinity/selector",
  },
  { name: 'affinity NotIn, label absent', pod: pod('p', gi('zone', 'NotIn', ['x'])), node: node('a', { labels: {} }) },
  {
    name: 'affinity NotIn, excluded value',
    pod: pod('p', gi('zone', 'NotIn', ['x'])),
    node: node('a', { labels: { zone: 'x' } }),
    reason: "node(s) didn't match Pod's node affinity/selector",
  },
  { name: 'affinity Exists', pod: pod('p', gi('gpu', 'Exists')), node: node('a', { labels: { gpu: '' } }) },
  {
    name: 'affinity DoesNotExist, present',
    pod: pod('p', gi('gpu', 'DoesNotExist')),
    node: node('a', { labels: { gpu: 'yes' } }),
    reason: "node(s) didn't match Pod's node affinity/selector",
  },
  { name: 'affinity Gt', pod: pod('p', gi('cores', 'Gt', ['8'])), node: node('a', { labels: { cores: '16' } }) },
  {
    name: 'affinity Gt, not an integer label',
    pod: pod('p', gi('cores', 'Gt', ['8'])),
    node: node('a', { labels: { cores: 'many' } }),
    reason: "node(s) didn't match Pod's node affinity/selector",
  },
  {
    name: 'affinity Lt, equal is not less',
    pod: pod('p', gi('cores', 'Lt', ['16'])),
    node: node('a', { labels: { cores: '16' } }),
    reason: "node(s) didn't match Pod's node affinity/selector",
  },
  {
    name: 'affinity with an unknown operator matches nothing',
    pod: pod('p', gi('zone', 'Near', ['x'])),
    node: node('a', { labels: { zone: 'x' } }),
    reason: "node(s) didn't match Pod's node affinity/selector",
  },
  {
    name: 'too many pods (terminal pods do not count)',
    pod: pod('p'),
    node: node('a', { pods: '2' }),
    pods: [pod('q1'), pod('q2'), pod('done', {}, 'Succeeded')],
    reason: 'Too many pods',
  },
  {
    name: 'room left by a terminal pod',
    pod: pod('p', requesting('1')),
    node: node('a', { cpu: '1', pods: '2' }),
    pods: [pod('done', requesting('1'), 'Failed')],
  },
  {
    name: 'cpu: exactly what is left fits',
    pod: pod('p', requesting('1500m')),
    node: node('a', { cpu: '2' }),
    pods: [pod('q', requesting('500m'))],
  },
  {
    name: 'cpu: one millicore more does not',
    pod: pod('p', requesting('1501m')),
    node: node('a', { cpu: '2' }),
    pods: [pod('q', requesting('500m'))],
    reason: 'Insufficient cpu',
  },
  {
    name: 'an init container larger than the containers sets the request',
    pod: pod('p', {
      ...requesting('100m'),
      initContainers: [{ name: 'i', resources: { requests: { memory: '9Gi' } } }],
    }),
    node: node('a'),
    reason: 'Insufficient memory',
  },
  {
    name: 'an extended resource the node lacks',
    pod: pod('p', { containers: [{ name: 'c', resources: { requests: { 'example.com/gpu': '1' } } }] }),
    node: node('a'),
    reason: 'Insufficient example.com/gpu',
  },
];

describe('scheduler: filters, one node at a time', () => {
  for (const r of rows) {
    it(r.name, () => {
      const result = schedule(r.pod, [{ node: r.node, pods: r.pods ?? [] }]);
      if (r.reason === undefined) assert.equal(result.outcome, 'bind');
      else {
        assert.equal(result.outcome, 'unschedulable');
        if (result.outcome === 'unschedulable') assert.deepEqual(result.statuses.get('a')?.reasons, [r.reason]);
      }
    });
  }
});

describe('scheduler: pinned pods and the spread', () => {
  it('the fitting node with the fewest pods wins, ties by name', () => {
    const cs = [on(node('c')), on(node('a'), pod('x')), on(node('b'))];
    assert.equal(boundTo(pod('p'), cs), 'b');
    assert.equal(boundTo(pod('p'), [on(node('a'), pod('x')), on(node('b'), pod('y'), pod('z'))]), 'a');
  });

  it('matchFields metadata.name (a DaemonSet pod): the other nodes are left out by the PreFilter', () => {
    const pinned: NodeSelectorTerm = { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['b'] }] };
    const spec = {
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [pinned] } } },
    };
    assert.equal(boundTo(pod('p', spec), [on(node('a')), on(node('b'), pod('x'))]), 'b');
    assert.equal(
      message(pod('p', spec), [on(node('a')), on(node('b', { cordoned: true }))]),
      "0/2 nodes are available: 1 node(s) didn't satisfy plugin(s) [NodeAffinity], 1 node(s) were unschedulable. " +
        `preemption: 0/2 nodes are available: 2 ${NOT_HELPFUL}.`,
    );
  });

  it('terms pinning to no common node conflict', () => {
    const spec = {
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              {
                matchFields: [
                  { key: 'metadata.name', operator: 'In', values: ['a'] },
                  { key: 'metadata.name', operator: 'In', values: ['b'] },
                ],
              },
            ],
          },
        },
      },
    };
    assert.equal(
      message(pod('p', spec), [on(node('a')), on(node('b'))]),
      `0/2 nodes are available: pod affinity terms conflict. preemption: 0/2 nodes are available: 2 ${NOT_HELPFUL}.`,
    );
  });
});
