import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Admission } from '../../../src/agent/pods/admission.js';
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
const fits: Admission = { admit: true };
const full: Admission = { admit: false, reason: 'OutOfpods', message: 'Node didn’t have enough resource' };

const cases: [
  string,
  Parameters<typeof decidePod>[0] extends infer I ? Omit<I & object, 'admit'> : never,
  Admission,
  PodAction,
][] = [
  ['gone, nothing runs', { pod: undefined, running: undefined, reported: false }, fits, { kind: 'none' }],
  [
    'gone, still runs (a force delete)',
    { pod: undefined, running: running(), reported: false },
    fits,
    { kind: 'forget' },
  ],
  ['new, fits', { pod: pod(), running: undefined, reported: false }, fits, { kind: 'start' }],
  [
    'new, does not fit',
    { pod: pod(), running: undefined, reported: false },
    full,
    { kind: 'reject', reason: 'OutOfpods', message: full.admit ? '' : full.message },
  ],
  ['runs, reported', { pod: pod({ phase: 'Running' }), running: running(), reported: true }, fits, { kind: 'none' }],
  ['runs, not reported', { pod: pod(), running: running(), reported: false }, fits, { kind: 'report' }],
  [
    'rejected earlier (Failed), nothing runs',
    { pod: pod({ phase: 'Failed' }), running: undefined, reported: false },
    fits,
    { kind: 'none' },
  ],
  ['being deleted, runs', { pod: pod({ deleting: true }), running: running(), reported: true }, fits, { kind: 'stop' }],
  [
    'being deleted, stopped, not reported',
    { pod: pod({ deleting: true }), running: running(true), reported: false },
    fits,
    { kind: 'report' },
  ],
  [
    'being deleted, stopped and reported',
    { pod: pod({ deleting: true }), running: running(true), reported: true },
    fits,
    { kind: 'confirm' },
  ],
  [
    'being deleted, never ran',
    { pod: pod({ deleting: true }), running: undefined, reported: false },
    fits,
    { kind: 'confirm' },
  ],
];

for (const [name, input, admission, want] of cases) {
  test(`decidePod: ${name}`, () => {
    let asked = 0;
    const got = decidePod({ ...input, admit: () => (asked++, admission) });
    assert.deepEqual(got, want);
    // Admission is asked only of a Pod the node does not run and that is not being deleted or finished.
    const shouldAsk =
      input.pod !== undefined && !input.running && !input.pod.metadata?.deletionTimestamp && !input.pod.status?.phase;
    assert.equal(asked, shouldAsk ? 1 : 0, 'admission asked only of a new Pod');
  });
}
