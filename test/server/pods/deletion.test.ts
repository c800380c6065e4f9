// A Pod's graceful deletion against kube-apiserver's CheckGracefulDelete and BeforeDelete (workloads.md §1.1): one
// row per rule.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { podDeletion, podGracePeriod } from '../../../src/server/pods/deletion.js';
import type { PodObject, PodSpec } from '../../../src/server/pods/types.js';
import type { DeleteOptions } from '../../../src/server/deletion.js';

const NOW = '2025-01-01T00:00:00Z';
const pod = (spec: PodSpec, phase = 'Running', meta: Partial<PodObject['metadata']> = {}): PodObject => ({
  metadata: { name: 'p', namespace: 'default', ...meta },
  spec,
  status: { phase },
});
const bound = { nodeName: 'n1', terminationGracePeriodSeconds: 30 };

describe('podGracePeriod', () => {
  const rows: [string, PodObject, DeleteOptions, number][] = [
    ["the pod's terminationGracePeriodSeconds", pod(bound), {}, 30],
    ["the delete's gracePeriodSeconds first", pod(bound), { gracePeriodSeconds: 5 }, 5],
    ['0 for an unbound pod', pod({ terminationGracePeriodSeconds: 30 }), { gracePeriodSeconds: 5 }, 0],
    ['0 for a Succeeded pod', pod(bound, 'Succeeded'), {}, 0],
    ['0 for a Failed pod', pod(bound, 'Failed'), {}, 0],
    ['negative is 1', pod(bound), { gracePeriodSeconds: -3 }, 1],
    ['none at all is 0', pod({ nodeName: 'n1' }), {}, 0],
  ];
  for (const [what, p, o, want] of rows) it(what, () => assert.equal(podGracePeriod(p, o), want));
});

describe('podDeletion', () => {
  it('marks a bound pod: deletionTimestamp now + grace, deletionGracePeriodSeconds grace', () => {
    const d = podDeletion(pod(bound), NOW, {});
    assert.ok(d && 'store' in d);
    assert.equal(d.store.metadata.deletionTimestamp, '2025-01-01T00:00:30Z');
    assert.equal(d.store.metadata.deletionGracePeriodSeconds, 30);
  });
  it('bumps a generation that is set', () => {
    const d = podDeletion(pod(bound, 'Running', { generation: 2 }), NOW, {});
    assert.ok(d && 'store' in d);
    assert.equal(d.store.metadata.generation, 3);
  });
  it('leaves an unbound, terminal or grace-0 delete to the generic rule (removed at once)', () => {
    assert.equal(podDeletion(pod({}), NOW, {}), undefined);
    assert.equal(podDeletion(pod(bound, 'Succeeded'), NOW, {}), undefined);
    assert.equal(podDeletion(pod(bound), NOW, { gracePeriodSeconds: 0 }), undefined);
  });
  const terminating = pod(bound, 'Running', {
    deletionTimestamp: '2025-01-01T00:00:30Z',
    deletionGracePeriodSeconds: 30,
  });
  it('a later delete may only shorten the grace', () => {
    assert.deepEqual(podDeletion(terminating, NOW, {}), { keep: true });
    assert.deepEqual(podDeletion(terminating, NOW, { gracePeriodSeconds: 60 }), { keep: true });
    const d = podDeletion(terminating, NOW, { gracePeriodSeconds: 10 });
    assert.ok(d && 'store' in d);
    assert.equal(d.store.metadata.deletionTimestamp, '2025-01-01T00:00:10Z');
    assert.equal(d.store.metadata.deletionGracePeriodSeconds, 10);
  });
  it('a grace-0 delete of a terminating pod removes it', () => {
    assert.equal(podDeletion(terminating, NOW, { gracePeriodSeconds: 0 }), undefined);
  });
});
