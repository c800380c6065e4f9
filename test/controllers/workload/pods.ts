// Pods as a workload controller lists them, for the controllers' tests: owned by a controller of the given kind,
// created and ready some time before NOW.

import type { PodView } from '../../../src/api/pods.js';

export const NOW = Date.parse('2024-01-01T01:00:00Z');
export const iso = (msAgo: number): string => new Date(NOW - msAgo).toISOString();

export interface WorkloadPodOpts {
  labels: Record<string, string>;
  /** The controller: kind, name and uid. */
  owner: { kind: string; name: string; uid: string };
  phase?: string;
  ready?: boolean;
  readyAgo?: number;
  createdAgo?: number;
  deleting?: boolean;
}

export function workloadPod(name: string, o: WorkloadPodOpts, spec: NonNullable<PodView['spec']>): PodView {
  const ref = { apiVersion: 'apps/v1', ...o.owner, controller: true };
  return {
    metadata: {
      name,
      uid: name,
      namespace: 'ns',
      labels: o.labels,
      creationTimestamp: iso(o.createdAgo ?? 3_600_000),
      ...(o.deleting ? { deletionTimestamp: iso(0) } : {}),
      ownerReferences: [ref],
    },
    spec,
    status: {
      phase: o.phase ?? 'Running',
      conditions: [
        { type: 'Ready', status: o.ready === false ? 'False' : 'True', lastTransitionTime: iso(o.readyAgo ?? 600_000) },
      ],
    },
  };
}
