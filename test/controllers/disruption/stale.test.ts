// Stale DisruptionTarget conditions: reset two minutes after they were set, unless the Pod is going, finished, or
// the kubelet set them.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../../src/api/workloads.js';
import {
  STALE_POD_DISRUPTION_TIMEOUT_MS,
  staleDisruptionIn,
  staleDisruptionReset,
} from '../../../src/controllers/disruption/stale.js';

const NOW = Date.parse('2025-01-01T12:00:00Z');
const SET = '2025-01-01T11:59:00Z';

function pod(o: { status?: string; reason?: string; deleting?: boolean; phase?: string; at?: string } = {}): Pod {
  return {
    metadata: { name: 'p', namespace: 'ns', resourceVersion: '7', ...(o.deleting ? { deletionTimestamp: SET } : {}) },
    status: {
      phase: o.phase ?? 'Running',
      conditions: [
        {
          type: 'DisruptionTarget',
          status: o.status ?? 'True',
          reason: o.reason ?? 'EvictionByEvictionAPI',
          lastTransitionTime: o.at ?? SET,
        },
      ],
    },
  };
}

describe('stale DisruptionTarget', () => {
  const cases: [string, Pod, number | undefined][] = [
    ['set a minute ago: stale in a minute', pod(), 60_000],
    ['set long ago: stale now', pod({ at: '2025-01-01T11:00:00Z' }), 0],
    ['the Pod is being deleted', pod({ deleting: true }), undefined],
    ['the condition is False', pod({ status: 'False' }), undefined],
    ['the kubelet set it', pod({ reason: 'TerminationByKubelet' }), undefined],
    ['the Pod has finished', pod({ phase: 'Succeeded' }), undefined],
  ];
  for (const [name, p, want] of cases) it(name, () => assert.equal(staleDisruptionIn(p, NOW), want));

  it('has no condition, nothing to do', () => {
    assert.equal(staleDisruptionIn({ metadata: { name: 'p' }, status: { phase: 'Running' } }, NOW), undefined);
  });

  it('resets to False, guarded by the resourceVersion', () => {
    const reset = staleDisruptionReset(pod(), NOW + STALE_POD_DISRUPTION_TIMEOUT_MS);
    assert.deepEqual(reset, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'ns', resourceVersion: '7' },
      status: {
        conditions: [{ type: 'DisruptionTarget', status: 'False', lastTransitionTime: '2025-01-01T12:02:00Z' }],
      },
    });
  });
});
