// A rollout pins what it rolls out: a mutable ConfigMap is copied, before any node changes, into an immutable one
// named by its content, which the nodes are assigned; an immutable source is assigned as it is; a rollout that changed
// nodes before it pinned keeps its source.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from '../../../src/api/types.js';
import { PINNED_FROM_ANNOTATION, copySource, mayPin, pinnedCopy } from '../../../src/controllers/rollout/pin.js';
import { planRollout, type PlanInput } from '../../../src/controllers/rollout/plan/index.js';
import { configMapHash } from '../../../src/controllers/rollout/confighash.js';
import { CM, NEW, at, found, iso, leasesFor, node, rollout } from './fixtures.js';

const source: ConfigMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'new', namespace: 'kube-system', uid: 'cm-uid', resourceVersion: '10' },
  data: { kubelet: 'maxPods: 50\n' },
};

describe('pinnedCopy', () => {
  it('an immutable copy in dkc-configs named <rollout>-<the content hash kubectl --append-hash gives>', () => {
    const copy = pinnedCopy('r1', source)!;
    assert.equal(copy.immutable, true);
    assert.deepEqual(copy.data, source.data);
    assert.equal(copy.metadata.namespace, 'dkc-configs');
    assert.equal(
      copy.metadata.name,
      `r1-${configMapHash({ metadata: { name: 'r1' }, data: source.data!, immutable: true })}`,
    );
    assert.equal(copy.metadata.annotations?.[PINNED_FROM_ANNOTATION], 'kube-system/new');
    assert.equal(copy.metadata.labels?.['dkc.io/rendered-by'], 'r1');
    const edited = pinnedCopy('r1', { ...source, data: { kubelet: 'maxPods: 60\n' } })!;
    assert.notEqual(edited.metadata.name, copy.metadata.name, 'other content, another name');
  });

  it('an immutable source is pinned by itself', () => {
    assert.equal(pinnedCopy('r1', { ...source, immutable: true }), undefined);
  });

  it('the copy keeps the source’s key', () => {
    const r = rollout({ configSource: { configMap: { ...NEW.configMap!, kubeletConfigKey: 'blue.yaml' } } });
    assert.deepEqual(copySource(r, 'r1-abc'), {
      configMap: { namespace: 'dkc-configs', name: 'r1-abc', kubeletConfigKey: 'blue.yaml' },
    });
  });
});

describe('mayPin', () => {
  it('only a rollout of a ConfigMap that has changed no node, is not undone or deleted, and has no copy yet', () => {
    assert.equal(mayPin(rollout()), true);
    assert.equal(mayPin(rollout({ configSource: null })), false, 'a reset to local config has nothing to pin');
    assert.equal(mayPin(rollout({}, { renderedConfigMap: 'r1-x' })), false);
    assert.equal(mayPin(rollout({}, { phase: 'Progressing', currentBatch: 0 })), false);
    assert.equal(
      mayPin(rollout({}, { nodes: { 'node-1': { state: 'InFlight', updatedAt: iso(0), previous: found() } } })),
      false,
      'changed a node before it could pin (an earlier controller): keeps its source',
    );
    assert.equal(mayPin(rollout({ revert: true })), false);
    assert.equal(mayPin(rollout({}, { phase: 'Succeeded' })), false);
  });
});

describe('planRollout of a pinned rollout', () => {
  const base = (over: Partial<PlanInput>): PlanInput => {
    const input = {
      rollout: rollout(),
      nodes: [node('node-1'), node('node-2')],
      configMap: CM,
      others: [],
      now: at(10),
      startedAt: at(-3600),
      ...over,
    };
    return { ...input, leases: leasesFor(input.nodes, input.now) };
  };
  const COPY = { configMap: { namespace: 'dkc-configs', name: 'r1-copy', kubeletConfigKey: 'kubelet' } };

  it('assigns the copy and records it, in the intent written before the patch too', () => {
    const plan = planRollout(base({ rendered: { name: 'r1-copy' } }));
    assert.deepEqual(
      plan.assignments.map((p) => [p.node, p.source]),
      [['node-1', COPY]],
    );
    assert.equal(plan.status.renderedConfigMap, 'r1-copy');
    assert.equal(plan.intent?.renderedConfigMap, 'r1-copy');
  });

  it('keeps to the recorded copy', () => {
    const first = planRollout(base({ rendered: { name: 'r1-copy' } }));
    const next = planRollout(
      base({
        rollout: rollout({}, first.status),
        nodes: [node('node-1', { source: COPY, owner: 'r1' }), node('node-2')],
      }),
    );
    assert.equal(next.status.renderedConfigMap, 'r1-copy');
    assert.equal(next.status.nodes?.['node-1']?.state, 'InFlight');
  });

  it('without a copy (an immutable source) assigns the source', () => {
    const plan = planRollout(base({}));
    assert.deepEqual(plan.assignments[0]?.source, NEW);
    assert.equal(plan.status.renderedConfigMap, undefined);
  });

  it('a copy that cannot be made halts the rollout before any node changes', () => {
    const plan = planRollout(base({ rendered: { failure: { reason: 'RenderFailed', message: 'other content' } } }));
    assert.equal(plan.status.phase, 'Halted');
    assert.deepEqual(plan.assignments, []);
  });
});
