// How many of a DaemonSet's Pods a rolling update may take down at once (k8s:pkg/controller/daemon/update.go
// updatedDesiredNodeCounts; util/daemonset_util.go UnavailableCount, SurgeCount): maxUnavailable of the nodes
// that should run the daemon, a percentage rounded up, 1 when both it and maxSurge come to 0. Pods are replaced in
// place: a maxSurge above 0 is noted and treated as 0.

import type { DaemonSet } from '../../api/apps.js';
import { scaledValue } from '../../api/intstr.js';
import { errorMessage } from '../../util/errors.js';
import { logs } from './messages.js';

export interface RollingUpdateBudget {
  maxUnavailable: number;
  notes: string[];
  error?: string;
}

/** The apiserver's defaults: maxUnavailable 1, maxSurge 0. */
const DEFAULT_MAX_UNAVAILABLE = 1;
const DEFAULT_MAX_SURGE = 0;

export function rollingUpdateBudget(ds: DaemonSet, desired: number): RollingUpdateBudget {
  const ru = ds.spec.updateStrategy?.rollingUpdate ?? {};
  const namespace = ds.metadata.namespace ?? '';
  const name = ds.metadata.name ?? '';
  let maxUnavailable: number;
  let maxSurge: number;
  try {
    maxUnavailable = scaledValue(ru.maxUnavailable ?? DEFAULT_MAX_UNAVAILABLE, desired, true);
    maxSurge = scaledValue(ru.maxSurge ?? DEFAULT_MAX_SURGE, desired, true);
  } catch (e) {
    return { maxUnavailable: 0, notes: [], error: logs.badRollingUpdate(namespace, name, errorMessage(e)) };
  }
  const notes = maxSurge > 0 ? [logs.surgeUnsupported(namespace, name, maxSurge)] : [];
  if (desired > 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxUnavailable, notes };
}
