// `kubectl get pods -o wide` rows against kube's printPod (pkg/printers/internalversion/printers.go): one row per
// branch of its STATUS logic, plus READY, RESTARTS and the wide columns.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { podColumns, podRow } from '../../../src/server/pods/table.js';
import type { PodObject } from '../../../src/server/pods/types.js';

const NOW = Date.parse('2025-01-01T01:00:00Z');
const base = (extra: Partial<PodObject> = {}, meta: Partial<PodObject['metadata']> = {}): PodObject => ({
  metadata: { name: 'web', namespace: 'default', creationTimestamp: '2025-01-01T00:00:00Z', ...meta },
  spec: {
    containers: [
      { name: 'a', image: 'x' },
      { name: 'b', image: 'y' },
    ],
  },
  ...extra,
});
const running = { state: { running: { startedAt: '2025-01-01T00:00:01Z' } }, ready: true, restartCount: 0 };

describe('podRow', () => {
  it('names the columns as kube, wide ones at priority 1', () => {
    assert.deepEqual(
      podColumns.map((c) => `${c.name}:${c.priority}`),
      [
        'Name:0',
        'Ready:0',
        'Status:0',
        'Restarts:0',
        'Age:0',
        'IP:1',
        'Node:1',
        'Nominated Node:1',
        'Readiness Gates:1',
      ],
    );
  });
  const rows: [string, PodObject, unknown[]][] = [
    [
      'a pending pod',
      base({ status: { phase: 'Pending' } }),
      ['web', '0/2', 'Pending', '0', '60m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'a running pod on a node, one container ready',
      base({
        spec: { nodeName: 'n1', containers: [{ name: 'a' }, { name: 'b' }] },
        status: {
          phase: 'Running',
          podIPs: [{ ip: '10.0.0.5' }],
          containerStatuses: [
            { name: 'a', ...running },
            { name: 'b', ready: false, state: { running: {} } },
          ],
        },
      }),
      ['web', '1/2', 'Running', '0', '60m', '10.0.0.5', 'n1', '<none>', '<none>'],
    ],
    [
      'a waiting container gives its reason',
      base({
        status: {
          phase: 'Pending',
          containerStatuses: [{ name: 'a', state: { waiting: { reason: 'ImagePullBackOff' } } }],
        },
      }),
      ['web', '0/2', 'ImagePullBackOff', '0', '60m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'a terminated container without reason: its exit code',
      base({
        status: { phase: 'Running', containerStatuses: [{ name: 'a', state: { terminated: { exitCode: 3 } } }] },
      }),
      ['web', '0/2', 'ExitCode:3', '0', '60m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'restarts with the time of the last one',
      base({
        status: {
          phase: 'Running',
          containerStatuses: [
            {
              name: 'a',
              ...running,
              restartCount: 2,
              lastState: { terminated: { finishedAt: '2025-01-01T00:55:00Z' } } as never,
            },
          ],
        },
      }),
      ['web', '1/2', 'Running', '2 (5m ago)', '60m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'status.reason beats the phase',
      base({ status: { phase: 'Failed', reason: 'Evicted' } }),
      ['web', '0/2', 'Evicted', '0', '60m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'an init container still running: Init:i/n',
      base({
        spec: { initContainers: [{ name: 'i1' }, { name: 'i2' }], containers: [{ name: 'a' }] },
        status: {
          phase: 'Pending',
          initContainerStatuses: [
            { name: 'i1', state: { terminated: { exitCode: 0 } } },
            { name: 'i2', state: { running: {} } },
          ],
        },
      }),
      ['web', '0/1', 'Init:1/2', '0', '60m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'a failed init container: Init:<reason>',
      base({
        spec: { initContainers: [{ name: 'i1' }], containers: [{ name: 'a' }] },
        status: {
          phase: 'Pending',
          initContainerStatuses: [{ name: 'i1', state: { terminated: { exitCode: 1, reason: 'Error' } } }],
        },
      }),
      ['web', '0/1', 'Init:Error', '0', '60m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'a started sidecar counts in READY',
      base({
        spec: { initContainers: [{ name: 's', restartPolicy: 'Always' }], containers: [{ name: 'a' }] },
        status: {
          phase: 'Running',
          initContainerStatuses: [{ name: 's', started: true, ...running }],
          containerStatuses: [{ name: 'a', ...running }],
        },
      }),
      ['web', '2/2', 'Running', '0', '60m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'Terminating once deleted, unless terminal',
      base({ status: { phase: 'Running' } }, { deletionTimestamp: '2025-01-01T01:00:30Z' }),
      ['web', '0/2', 'Terminating', '0', '60m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'a deleted Succeeded pod stays Completed',
      base(
        {
          status: {
            phase: 'Succeeded',
            containerStatuses: [{ name: 'a', state: { terminated: { exitCode: 0, reason: 'Completed' } } }],
          },
        },
        { deletionTimestamp: '2025-01-01T01:00:30Z' },
      ),
      ['web', '0/2', 'Completed', '0', '60m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'SchedulingGated from the PodScheduled condition',
      base({
        status: {
          phase: 'Pending',
          conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }],
        },
      }),
      ['web', '0/2', 'SchedulingGated', '0', '60m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'readiness gates met of all, nominated node',
      base({
        spec: { containers: [{ name: 'a' }], readinessGates: [{ conditionType: 'x' }, { conditionType: 'y' }] },
        status: { phase: 'Pending', nominatedNodeName: 'n2', conditions: [{ type: 'x', status: 'True' }] },
      }),
      ['web', '0/1', 'Pending', '0', '60m', '<none>', '<none>', 'n2', '1/2'],
    ],
  ];
  for (const [what, pod, want] of rows) it(what, () => assert.deepEqual(podRow(pod, NOW), want));
});
