// The node lifecycle controller's view of node health as Prometheus sees it: kube-state-metrics'
// kube_node_status_condition (one series per condition and status, 1 for the node's current status), so the
// NotReady alerts written for kube-state-metrics work unchanged. This controller is the one that turns a silent
// node's Ready to Unknown, so the series it reports follow the same cache it decides from.

import type { Node } from '../../api/types.js';
import type { Registry } from '../../util/prom.js';
import { collectedGauge, type Sample } from '../metrics.js';

const STATUSES = ['true', 'false', 'unknown'] as const;

export function nodeConditionSamples(nodes: readonly Node[]): Sample<'node' | 'condition' | 'status'>[] {
  const out: Sample<'node' | 'condition' | 'status'>[] = [];
  for (const n of nodes) {
    for (const c of n.status?.conditions ?? []) {
      const current = String(c.status).toLowerCase();
      for (const status of STATUSES)
        out.push([{ node: n.metadata?.name ?? '', condition: c.type, status }, status === current ? 1 : 0]);
    }
  }
  return out;
}

export function registerNodeMetrics(registry: Registry, nodes: () => readonly Node[]): () => void {
  return collectedGauge(
    registry,
    'kube_node_status_condition',
    'The condition of a cluster node.',
    ['node', 'condition', 'status'],
    () => nodeConditionSamples(nodes()),
  );
}
