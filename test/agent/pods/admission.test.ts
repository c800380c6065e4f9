// The node's admission of a bound Pod: one row per outcome of the kubelet's predicate admit handler — the resource
// reasons with the kubelet's message, the first failure only, the predicates by plugin name, and what the node
// ignores (cordon, NoSchedule taints, extended resources it does not offer).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admitPod, rejectedStatus, type Admission } from '../../../src/agent/pods/admission.js';
import type { Node, Taint } from '../../../src/api/types.js';
import type { Pod, PodSpec } from '../../../src/api/workloads.js';

const node = (o: { taints?: Taint[]; cordoned?: boolean; labels?: Record<string, string> } = {}): Node => ({
  metadata: { name: 'n1', labels: o.labels ?? {} },
  spec: { ...(o.cordoned ? { unschedulable: true } : {}), ...(o.taints ? { taints: o.taints } : {}) },
  status: { allocatable: { cpu: '2', memory: '1Gi', pods: '110' } },
});

const pod = (name: string, spec: Partial<PodSpec> = {}, extra: Partial<Pod> = {}): Pod => ({
  metadata: { name, namespace: 'default' },
  spec: { nodeName: 'n1', containers: [{ name: 'c' }], ...spec },
  status: { phase: 'Running' },
  ...extra,
});

const req = (requests: Record<string, string>): Partial<PodSpec> => ({
  containers: [{ name: 'c', resources: { requests } }],
});
const many = (n: number) => Array.from({ length: n }, (_, i) => pod(`r${i}`));

interface Row {
  name: string;
  pod: Pod;
  node?: Node;
  maxPods?: number;
  running?: Pod[];
  want: Admission;
}

const rows: Row[] = [
  { name: 'room on the node', pod: pod('p'), running: many(3), want: { admit: true } },
  {
    name: 'maxPods reached (the reference example)',
    pod: pod('p'),
    running: many(110),
    want: {
      admit: false,
      reason: 'OutOfpods',
      message: "Node didn't have enough resource: pods, requested: 1, used: 110, capacity: 110",
    },
  },
  {
    name: "the running config's maxPods, not the node's allocatable, is the capacity",
    pod: pod('p'),
    maxPods: 3,
    running: many(3),
    want: {
      admit: false,
      reason: 'OutOfpods',
      message: "Node didn't have enough resource: pods, requested: 1, used: 3, capacity: 3",
    },
  },
  {
    name: 'terminal pods hold no slot',
    pod: pod('p'),
    maxPods: 1,
    running: [pod('done', {}, { status: { phase: 'Succeeded' } })],
    want: { admit: true },
  },
  {
    name: 'cpu in millicores',
    pod: pod('p', req({ cpu: '1500m' })),
    running: [pod('r', req({ cpu: '1' }))],
    want: {
      admit: false,
      reason: 'OutOfcpu',
      message: "Node didn't have enough resource: cpu, requested: 1500, used: 1000, capacity: 2000",
    },
  },
  {
    name: 'memory in bytes',
    pod: pod('p', req({ memory: '600Mi' })),
    running: [pod('r', req({ memory: '512Mi' }))],
    want: {
      admit: false,
      reason: 'OutOfmemory',
      message: "Node didn't have enough resource: memory, requested: 629145600, used: 536870912, capacity: 1073741824",
    },
  },
  {
    name: 'only the first failure: pods before cpu',
    pod: pod('p', req({ cpu: '3' })),
    maxPods: 1,
    running: many(1),
    want: {
      admit: false,
      reason: 'OutOfpods',
      message: "Node didn't have enough resource: pods, requested: 1, used: 1, capacity: 1",
    },
  },
  {
    name: 'an extended resource the node does not offer is not checked',
    pod: pod('p', req({ 'example.com/foo': '1' })),
    want: { admit: true },
  },
  {
    name: 'a cordoned node with a NoSchedule taint admits a pod bound to it',
    pod: pod('p'),
    node: node({ cordoned: true, taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }] }),
    want: { admit: true },
  },
  {
    name: 'an untolerated NoExecute taint refuses it',
    pod: pod('p'),
    node: node({ taints: [{ key: 'dedicated', value: 'x', effect: 'NoExecute' }] }),
    want: {
      admit: false,
      reason: 'TaintToleration',
      message: "Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate",
    },
  },
  {
    name: 'a static pod is exempt from the taint check',
    pod: pod('p', {}, { metadata: { name: 'p', annotations: { 'kubernetes.io/config.source': 'file' } } }),
    node: node({ taints: [{ key: 'dedicated', value: 'x', effect: 'NoExecute' }] }),
    want: { admit: true },
  },
  {
    name: 'node affinity is checked again',
    pod: pod('p', { nodeSelector: { disk: 'ssd' } }),
    want: {
      admit: false,
      reason: 'NodeAffinity',
      message: "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector",
    },
  },
  {
    name: 'a pod naming another node',
    pod: pod('p', { nodeName: 'n2' }),
    want: {
      admit: false,
      reason: 'NodeName',
      message: "Predicate NodeName failed: node(s) didn't match the requested node name",
    },
  },
];

describe('kubelet admission', () => {
  for (const r of rows) {
    it(r.name, () => {
      const got = admitPod({ pod: r.pod, node: r.node ?? node(), maxPods: r.maxPods ?? 110, running: r.running ?? [] });
      assert.deepEqual(got, r.want);
    });
  }

  it('a rejected pod is Failed with "Pod was rejected: …"', () => {
    assert.deepEqual(rejectedStatus({ reason: 'OutOfpods', message: 'm' }), {
      phase: 'Failed',
      reason: 'OutOfpods',
      message: 'Pod was rejected: m',
    });
  });
});
