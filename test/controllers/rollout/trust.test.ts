// A rollout's status is no authority to assign: a status written by someone other than the controller (phase
// Reverting, a previous source naming another ConfigMap, a renderedConfigMap naming any kube-system ConfigMap)
// assigns nothing of what it says. The plan, as a table; the checks of ./trust.ts on their own.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConfigMap, NodeConfigSource } from '../../../src/api/types.js';
import type { NodeConfigRollout, NodeProgress, Phase, RolloutStatus } from '../../../src/api/dkc/rollout.js';
import { renderRollout } from '../../../src/controllers/rollout/layers.js';
import { planRollout, type PlanInput } from '../../../src/controllers/rollout/plan/index.js';
import { decidedRevert, recordAgrees, renderedDistrust } from '../../../src/controllers/rollout/trust.js';
import { kubeletVersion } from '../../../src/kubeletconfig/index.js';
import { CM, NEW, NEW_ACTIVE, OLD, at, found, iso, leasesFor, node, rollout, switched } from './fixtures.js';

const VICTIM: NodeConfigSource = {
  configMap: { namespace: 'victim', name: 'app-secrets', kubeletConfigKey: 'kubelet' },
};
const COREDNS = 'coredns';

const done = (batch: number, extra: Partial<NodeProgress> = {}): NodeProgress => ({
  state: 'Succeeded',
  batch,
  updatedAt: iso(0),
  previous: found(),
  ...extra,
});
const failed = (batch: number, extra: Partial<NodeProgress> = {}): NodeProgress => ({
  ...done(batch),
  state: 'Failed',
  reason: 'ConfigError',
  message: 'failed to validate config',
  ...extra,
});
const status = (phase: Phase, nodes: Record<string, NodeProgress>): RolloutStatus => ({
  phase,
  startTime: iso(0),
  currentBatch: 1,
  nodes,
});

const base = (over: Partial<PlanInput>): PlanInput => {
  const input = {
    rollout: rollout(),
    nodes: [switched('node-1'), switched('node-2')],
    configMap: CM,
    others: [],
    now: at(10),
    startedAt: at(-3600),
    ...over,
  };
  return { ...input, leases: leasesFor(input.nodes, input.now) };
};

/** A layered rollout as the controller leaves it after rendering (`name` recorded) and succeeding on node-1. */
const layered = (name: string, extra: Partial<RolloutStatus> = {}): NodeConfigRollout =>
  rollout(
    {
      configSource: undefined,
      layers: [{ configMap: { namespace: 'kube-system', name: 'base', kubeletConfigKey: 'kubelet' } }],
    },
    { ...status('Progressing', { 'node-1': done(0) }), renderedConfigMap: name, ...extra },
  );

/** An unfinished rollout, newer than r1 and selecting other nodes: it holds only what its records say it changed. */
const HOLD = (nodes: Record<string, NodeProgress> = {}): NodeConfigRollout =>
  rollout({ nodeSelector: { matchLabels: { pool: 'green' } } }, status('Progressing', nodes), {
    name: 'r-hold',
    creationTimestamp: iso(0),
  });

interface Row {
  name: string;
  input: PlanInput;
  /** What the plan assigns: node → the ConfigMap name of its new source (null: local config). */
  assigns: Record<string, string | null>;
  phase: string;
  states?: Record<string, string>;
  events?: string[];
}

const TABLE: Row[] = [
  {
    name: 'a Succeeded rollout forged to Reverting, with no failure in its records: nothing restored, still Succeeded',
    input: base({ rollout: rollout({}, status('Reverting', { 'node-1': done(0), 'node-2': done(1) })) }),
    assigns: {},
    phase: 'Succeeded',
    states: { 'node-1': 'Succeeded', 'node-2': 'Succeeded' },
    events: ['StatusNotDecided', 'RolloutSucceeded'],
  },
  {
    name: 'forged to Reverting with a forged failure and previous naming victim/app-secrets: the nodes’ own records disagree, nothing assigned',
    input: base({
      rollout: rollout(
        {},
        status('Reverting', {
          'node-1': failed(0, { previous: found(VICTIM) }),
          'node-2': done(1, { previous: found(VICTIM) }),
        }),
      ),
    }),
    assigns: {},
    phase: 'Reverted',
    states: { 'node-1': 'NotRestored', 'node-2': 'NotRestored' },
  },
  {
    name: 'an undo (spec.revert, the right to assign) whose record was rewritten to victim/app-secrets: that node is left, the other restored',
    input: base({
      rollout: rollout(
        { revert: true },
        status('Succeeded', { 'node-1': done(0, { previous: found(VICTIM) }), 'node-2': done(1) }),
      ),
    }),
    assigns: { 'node-2': 'old' },
    phase: 'Reverting',
    states: { 'node-1': 'NotRestored', 'node-2': 'InFlight' },
  },
  {
    name: 'a node the controller changed before it kept a guarded record: an undo leaves it, NotRestored',
    input: base({
      nodes: [switched('node-1', { record: null })],
      rollout: rollout({ revert: true }, status('Succeeded', { 'node-1': done(0) })),
    }),
    assigns: {},
    phase: 'Reverted',
    states: { 'node-1': 'NotRestored' },
  },
  {
    name: 'a layered rollout whose status names kube-system/coredns: halted, nothing assigned',
    input: base({
      nodes: [switched('node-1', { source: OLD }), node('node-2')],
      rollout: layered(COREDNS),
      configMap: CM,
      renderedDistrust: 'not ours',
    }),
    assigns: {},
    phase: 'Halted',
  },
  // ---- who holds a node: the rollouts' own records, never the annotation a node may write
  {
    name: 'a node naming an unfinished rollout in its own dkc.io/rollout does not halt this one',
    input: base({
      nodes: [node('node-1', { owner: 'r-hold' }), node('node-2')],
      rollout: rollout(),
      others: [HOLD()],
    }),
    assigns: { 'node-1': 'new' },
    phase: 'Progressing',
  },
  {
    name: 'a node that rewrites its dkc.io/rollout after it succeeded is not Overridden: no revert is forced',
    input: base({
      nodes: [switched('node-1', { owner: 'r-hold' }), node('node-2')],
      rollout: rollout({}, status('Progressing', { 'node-1': done(0) })),
      others: [HOLD()],
    }),
    assigns: { 'node-2': 'new' },
    phase: 'Progressing',
    states: { 'node-1': 'Succeeded', 'node-2': 'InFlight' },
  },
  {
    name: 'nor one in flight that drops it',
    input: base({
      nodes: [node('node-1', { source: NEW, active: NEW_ACTIVE, record: found() }), node('node-2')],
      rollout: rollout({}, status('Progressing', { 'node-1': { ...done(0), state: 'InFlight' } })),
    }),
    assigns: { 'node-2': 'new' },
    phase: 'Progressing',
    states: { 'node-1': 'Succeeded' },
  },
  {
    name: 'a rollout whose own record says it changed the node does hold it',
    input: base({
      nodes: [node('node-1'), node('node-2')],
      others: [HOLD({ 'node-1': { state: 'InFlight', batch: 0, updatedAt: iso(0), previous: found() } })],
    }),
    assigns: {},
    phase: 'Halted',
  },
];

const assigned = (input: PlanInput): Record<string, string | null> =>
  Object.fromEntries(
    planRollout(input).assignments.flatMap((p) =>
      p.source === 'kept' ? [] : [[p.node, p.source?.configMap?.name ?? null]],
    ),
  );

describe('a status written by anyone else assigns nothing', () => {
  for (const row of TABLE) {
    it(row.name, () => {
      assert.deepEqual(assigned(row.input), row.assigns);
      const plan = planRollout(row.input);
      assert.equal(plan.status.phase, row.phase);
      for (const [n, state] of Object.entries(row.states ?? {}))
        assert.equal(plan.status.nodes?.[n]?.state, state, `state of ${n}`);
      if (row.events) assert.deepEqual(plan.events.map((e) => e.reason).sort(), [...row.events].sort());
    });
  }
});

describe('the checks', () => {
  it('a Reverting phase is the controller’s only from spec.revert, a deletion, or more failures than maxFailures', () => {
    assert.equal(decidedRevert(rollout({}, status('Reverting', { 'node-1': done(0) }))), false);
    assert.equal(decidedRevert(rollout({}, status('Reverting', { 'node-1': failed(0) }))), true);
    assert.equal(decidedRevert(rollout({ maxFailures: 1 }, status('Reverting', { 'node-1': failed(0) }))), false);
    assert.equal(
      decidedRevert(rollout({ failurePolicy: 'Halt' }, status('Reverting', { 'node-1': failed(0) }))),
      false,
    );
    assert.equal(decidedRevert(rollout({ revert: true }, status('Reverting', {}))), true);
    assert.equal(decidedRevert(rollout({}, status('Reverting', {}), { deletionTimestamp: iso(5) })), true);
  });

  it('a record agrees with the node’s guarded copy only when both name the same source and holder', () => {
    assert.equal(recordAgrees(switched('node-1'), found()), true);
    assert.equal(recordAgrees(switched('node-1'), found(VICTIM)), false);
    assert.equal(recordAgrees(switched('node-1'), found(OLD, 'r0')), false);
    assert.equal(recordAgrees(switched('node-1', { record: null }), found()), false);
    assert.equal(recordAgrees(switched('node-1', { record: found(null) }), found(null)), true);
    assert.equal(recordAgrees(switched('node-1'), undefined), false);
  });

  it('a rendered ConfigMap is trusted only as the controller made it: immutable, owned, labelled, named by its content', () => {
    const layers = [{ configMap: { namespace: 'kube-system', name: 'base', kubeletConfigKey: 'kubelet' } }];
    const baseCm: ConfigMap = {
      metadata: { namespace: 'kube-system', name: 'base' },
      data: { kubelet: 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 50\n' },
    };
    const out = renderRollout('r1', layers, () => baseCm, kubeletVersion('1.22'));
    assert.ok('configMap' in out);
    const owned: ConfigMap = {
      ...out.configMap,
      metadata: {
        ...out.configMap.metadata,
        ownerReferences: [{ apiVersion: 'dkc.io/v1alpha1', kind: 'NodeConfigRollout', name: 'r1', uid: 'r1-uid' }],
      },
    };
    const name = owned.metadata.name!;
    assert.equal(renderedDistrust(layered(name), owned), undefined);
    const coredns: ConfigMap = { metadata: { namespace: 'kube-system', name: COREDNS }, data: { Corefile: '.:53' } };
    assert.match(
      renderedDistrust(layered(COREDNS), coredns) ?? '',
      /^status\.renderedConfigMap names dkc-configs\/coredns, which is not/,
    );
    const edited = { ...owned, data: { kubelet: 'maxPods: 1000\n' } };
    assert.notEqual(renderedDistrust(layered(name), edited), undefined, 'content not its name');
    const unowned = { ...owned, metadata: { ...owned.metadata, ownerReferences: [] } };
    assert.notEqual(renderedDistrust(layered(name), unowned), undefined, 'not owned by this rollout');
    const mutable = { ...owned, immutable: false };
    assert.notEqual(renderedDistrust(layered(name), mutable), undefined, 'not immutable');
    assert.equal(renderedDistrust(layered(name), undefined), undefined, 'missing: ConfigMapNotFound says so');
  });
});
