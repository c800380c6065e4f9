// A DaemonSet's status after a sync (k8s:pkg/controller/daemon/daemon_controller.go updateDaemonSetStatus,
// storeDaemonSetStatus; workloads.md §7.3): per node that should run the daemon, whether a Pod is there and
// whether the oldest one is ready, available and of the current revision; per node that should not, whether one
// is there anyway.

import { type DaemonSet, type DaemonSetStatus } from '../../api/apps.js';
import { isPodAvailable, isPodReady } from '../../api/pods.js';
import type { Node } from '../../api/types.js';
import { isPodUpdated, oldestFirst, templateGeneration } from './decide.js';
import { nodeShouldRunDaemonPod, type DaemonPodView } from './placement.js';

export function daemonSetStatus(
  ds: DaemonSet,
  nodes: readonly Node[],
  byNode: ReadonlyMap<string, readonly DaemonPodView[]>,
  hash: string,
  nowMs: number,
): DaemonSetStatus {
  const s: DaemonSetStatus = {
    currentNumberScheduled: 0,
    numberMisscheduled: 0,
    desiredNumberScheduled: 0,
    numberReady: 0,
    observedGeneration: ds.metadata.generation ?? 0,
    updatedNumberScheduled: 0,
    numberAvailable: 0,
    numberUnavailable: 0,
  };
  const generation = templateGeneration(ds);
  const minReady = ds.spec.minReadySeconds ?? 0;
  let updated = 0;
  let available = 0;
  for (const node of nodes) {
    const pods = byNode.get(node.metadata.name ?? '') ?? [];
    if (!nodeShouldRunDaemonPod(node, ds.spec.template).shouldRun) {
      if (pods.length > 0) s.numberMisscheduled++;
      continue;
    }
    s.desiredNumberScheduled++;
    if (pods.length === 0) continue;
    s.currentNumberScheduled++;
    const pod = [...pods].sort(oldestFirst)[0]!;
    if (isPodReady(pod)) {
      s.numberReady++;
      if (isPodAvailable(pod, minReady, nowMs)) available++;
    }
    if (isPodUpdated(pod, hash, generation)) updated++;
  }
  s.updatedNumberScheduled = updated;
  s.numberAvailable = available;
  s.numberUnavailable = s.desiredNumberScheduled - available;
  if (ds.status?.collisionCount !== undefined) s.collisionCount = ds.status.collisionCount;
  if (ds.status?.conditions?.length) s.conditions = ds.status.conditions.map((c) => ({ ...c }));
  return s;
}

/** Sync again after minReadySeconds while ready Pods are not yet available (kube's guard against clock skew). */
export function requeueAfterSeconds(ds: DaemonSet, status: DaemonSetStatus): number | undefined {
  const minReady = ds.spec.minReadySeconds ?? 0;
  return minReady > 0 && status.numberReady !== status.numberAvailable ? minReady : undefined;
}
