// What `kubectl rollout status daemonset/<name>` prints for a DaemonSet (kubectl:pkg/polymorphichelpers/
// rollout_status.go DaemonSetStatusViewer, the same in kubectl 1.20 and 1.32; workloads.md §7.2): RollingUpdate
// only; once the spec is observed, waiting for every desired Pod to be updated, then available.

import type { DaemonSet } from '../../api/apps.js';
import type { RolloutStatusLine } from '../deployment/rolloutstatus.js';
import { isRollingUpdate } from './decide.js';
import { rolloutStatus as text } from './messages.js';

export function daemonSetRolloutStatusMessage(ds: DaemonSet): RolloutStatusLine {
  if (!isRollingUpdate(ds)) return { message: '', done: true, error: text.onlyRollingUpdate };
  const s = ds.status;
  if ((ds.metadata.generation ?? 0) > (s?.observedGeneration ?? 0)) return { message: text.specUpdate, done: false };
  const name = ds.metadata.name ?? '';
  const desired = s?.desiredNumberScheduled ?? 0;
  const updated = s?.updatedNumberScheduled ?? 0;
  const available = s?.numberAvailable ?? 0;
  if (updated < desired) return { message: text.updated(name, updated, desired), done: false };
  if (available < desired) return { message: text.available(name, available, desired), done: false };
  return { message: text.done(name), done: true };
}
