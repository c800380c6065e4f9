import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideEviction, type EvictionDecision } from '../../../src/controllers/tainteviction/decide.js';
import type { Toleration } from '../../../src/api/workloads.js';
import type { Taint } from '../../../src/api/types.js';

const NOW = Date.parse('2026-12-04T10:00:00Z');
const unreachable: Taint = {
  key: 'node.kubernetes.io/unreachable',
  effect: 'NoExecute',
  timeAdded: '2026-12-04T09:59:00Z',
};
const notReadyNoSchedule: Taint = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' };
const dedicated: Taint = { key: 'dedicated', value: 'gpu', effect: 'NoExecute', timeAdded: '2026-12-04T09:58:00Z' };
const defaultToleration = (key: string, s: number): Toleration => ({
  key,
  operator: 'Exists',
  effect: 'NoExecute',
  tolerationSeconds: s,
});

const cases: [
  string,
  { deleting?: boolean; nodeName?: string; tolerations: Toleration[] },
  Taint[],
  EvictionDecision,
][] = [
  ['no taints', { tolerations: [] }, [], { kind: 'keep' }],
  ['only NoSchedule taints', { tolerations: [] }, [notReadyNoSchedule], { kind: 'keep' }],
  ['an untolerated NoExecute taint: at once', { tolerations: [] }, [unreachable], { kind: 'delete', atMs: NOW }],
  [
    'tolerated for 300 s: 300 s after the taint was added',
    { tolerations: [defaultToleration('node.kubernetes.io/unreachable', 300)] },
    [unreachable],
    { kind: 'delete', atMs: Date.parse('2026-12-04T10:04:00Z') },
  ],
  [
    'tolerated for ever',
    { tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' }] },
    [unreachable],
    { kind: 'keep' },
  ],
  [
    'every taint tolerated by an empty-key Exists',
    { tolerations: [{ operator: 'Exists' }] },
    [unreachable, dedicated],
    { kind: 'keep' },
  ],
  [
    'one of two tolerated: at once',
    { tolerations: [defaultToleration('node.kubernetes.io/unreachable', 300)] },
    [unreachable, dedicated],
    { kind: 'delete', atMs: NOW },
  ],
  [
    'the shortest tolerationSeconds, from the earliest taint',
    {
      tolerations: [
        defaultToleration('node.kubernetes.io/unreachable', 300),
        { key: 'dedicated', operator: 'Equal', value: 'gpu', tolerationSeconds: 60 },
      ],
    },
    [unreachable, dedicated],
    { kind: 'delete', atMs: Date.parse('2026-12-04T09:59:00Z') },
  ],
  [
    'Equal with another value does not tolerate',
    { tolerations: [{ key: 'dedicated', value: 'cpu', effect: 'NoExecute' }] },
    [dedicated],
    { kind: 'delete', atMs: NOW },
  ],
  [
    'a NoSchedule toleration does not tolerate NoExecute',
    { tolerations: [{ key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' }] },
    [dedicated],
    { kind: 'delete', atMs: NOW },
  ],
  [
    'negative seconds: at once',
    { tolerations: [defaultToleration('node.kubernetes.io/unreachable', -5)] },
    [unreachable],
    { kind: 'delete', atMs: Date.parse('2026-12-04T09:59:00Z') },
  ],
  ['already being deleted', { deleting: true, tolerations: [] }, [unreachable], { kind: 'keep' }],
  ['not bound', { nodeName: '', tolerations: [] }, [unreachable], { kind: 'keep' }],
];

for (const [name, pod, taints, want] of cases) {
  test(`decideEviction: ${name}`, () => {
    const got = decideEviction({
      pod: { deleting: pod.deleting ?? false, nodeName: pod.nodeName ?? 'node-1', tolerations: pod.tolerations },
      taints,
      nowMs: NOW,
    });
    assert.deepEqual(got, want);
  });
}
