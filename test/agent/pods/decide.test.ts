import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decidePod, type PodAction } from '../../../src/agent/pods/decide.js';
import type { RunningPod } from '../../../src/agent/pods/types.js';
import type { Pod } from '../../../src/api/workloads.js';

const pod = (extra: { deleting?: boolean; phase?: string } = {}): Pod => ({
  metadata: {
    name: 'web',
    namespace: 'default',
    uid: 'u1',
    ...(extra.deleting ? { deletionTimestamp: '2026-12-04T00:00:30Z' } : {}),
  },
  spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'pause' }] },
  ...(extra.phase ? { status: { phase: extra.phase } } : {}),
});
const running = (stopped = false): RunningPod => ({
  uid: 'u1',
  namespace: 'default',
  name: 'web',
  ip: '10.0.0.2',
  startedAt: '2026-12-04T00:00:00Z',
  containers: [{ name: 'c', image: 'pause', startedAt: '2026-12-04T00:00:00Z' }],
  ...(stopped ? { stoppedAt: '2026-12-04T00:00:10Z' } : {}),
});

type Row = [string, Parameters<typeof decidePod>[0], PodAction];
const cases: Row[] = [
  ['gone, nothing runs', { pod: undefined, running: undefined, reported: false }, { kind: 'none' }],
  ['gone, still runs (a force delete)', { pod: undefined, running: running(), reported: false }, { kind: 'forget' }],
  ['new to the node', { pod: pod(), running: undefined, reported: false }, { kind: 'admit' }],
  ['runs, reported', { pod: pod({ phase: 'Running' }), running: running(), reported: true }, { kind: 'none' }],
  ['runs, not reported', { pod: pod(), running: running(), reported: false }, { kind: 'report' }],
  [
    'refused earlier (Failed), nothing runs',
    { pod: pod({ phase: 'Failed' }), running: undefined, reported: false },
    { kind: 'none' },
  ],
  [
    'finished (Succeeded), nothing runs',
    { pod: pod({ phase: 'Succeeded' }), running: undefined, reported: false },
    { kind: 'none' },
  ],
  ['being deleted, runs', { pod: pod({ deleting: true }), running: running(), reported: true }, { kind: 'stop' }],
  [
    'being deleted, stopped, not reported',
    { pod: pod({ deleting: true }), running: running(true), reported: false },
    { kind: 'report' },
  ],
  [
    'being deleted, stopped and reported',
    { pod: pod({ deleting: true }), running: running(true), reported: true },
    { kind: 'confirm' },
  ],
  [
    'being deleted, never ran',
    { pod: pod({ deleting: true }), running: undefined, reported: false },
    { kind: 'confirm' },
  ],
];

for (const [name, input, want] of cases) {
  test(`decidePod: ${name}`, () => assert.deepEqual(decidePod(input), want));
}
