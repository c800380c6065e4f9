// The rollout controller's metrics, from the rollouts it watches: how many nodes are in each state and which phase
// each rollout is in (one series per phase, 1 for the current one, as kube-state-metrics reports phases).

import type { Registry } from '../../util/prom.js';
import { collectedGauge, type Sample } from '../metrics.js';
import type { NodeConfigRollout, NodeState, Phase } from '../../api/dkc/rollout.js';

export const NODE_STATES: readonly NodeState[] = [
  'Pending',
  'InFlight',
  'Succeeded',
  'Failed',
  'Reverted',
  'Overridden',
];
export const PHASES: readonly Phase[] = [
  'Pending',
  'Progressing',
  'Paused',
  'Succeeded',
  'Halted',
  'Reverting',
  'Reverted',
];

/** dkc_rollout_nodes: every state of every rollout, zeros included, so a ratio of two states is always defined. */
export function rolloutNodeSamples(rollouts: readonly NodeConfigRollout[]): Sample<'rollout' | 'state'>[] {
  const out: Sample<'rollout' | 'state'>[] = [];
  for (const r of rollouts) {
    const counts = new Map<NodeState, number>(NODE_STATES.map((s) => [s, 0]));
    for (const p of Object.values(r.status?.nodes ?? {})) counts.set(p.state, (counts.get(p.state) ?? 0) + 1);
    for (const [state, n] of counts) out.push([{ rollout: r.metadata.name ?? '', state }, n]);
  }
  return out;
}

/** dkc_rollout_phase: 1 for the rollout's phase (Pending before the controller first wrote one), 0 for the others. */
export function rolloutPhaseSamples(rollouts: readonly NodeConfigRollout[]): Sample<'rollout' | 'phase'>[] {
  const out: Sample<'rollout' | 'phase'>[] = [];
  for (const r of rollouts) {
    const current = r.status?.phase ?? 'Pending';
    for (const phase of PHASES) out.push([{ rollout: r.metadata.name ?? '', phase }, phase === current ? 1 : 0]);
  }
  return out;
}

export function registerRolloutMetrics(registry: Registry, rollouts: () => readonly NodeConfigRollout[]): () => void {
  const removeNodes = collectedGauge(
    registry,
    'dkc_rollout_nodes',
    'Nodes of each NodeConfigRollout by state.',
    ['rollout', 'state'],
    () => rolloutNodeSamples(rollouts()),
  );
  const removePhase = collectedGauge(
    registry,
    'dkc_rollout_phase',
    'The phase of each NodeConfigRollout: 1 for the current phase, 0 for the others.',
    ['rollout', 'phase'],
    () => rolloutPhaseSamples(rollouts()),
  );
  return () => {
    removeNodes();
    removePhase();
  };
}
