// What `kubectl rollout status deployment/<name>` prints for a Deployment (kubectl:pkg/polymorphichelpers/
// rollout_status.go DeploymentStatusViewer, the same in kubectl 1.20 and 1.32; workloads.md §7.2): one line per
// status it sees, done when the rollout has finished, an error when the progress deadline has passed. kubectl
// prints each message followed by a newline.

import type { Deployment } from '../../api/apps.js';
import { PROGRESSING, reasons } from './messages.js';

export interface RolloutStatusLine {
  message: string;
  done: boolean;
  /** Set instead of a message when kubectl gives up with an error. */
  error?: string;
}

const q = (s: string): string => JSON.stringify(s);

export function rolloutStatusMessage(d: Deployment): RolloutStatusLine {
  const name = d.metadata.name ?? '';
  const s = d.status ?? {};
  if ((d.metadata.generation ?? 0) > (s.observedGeneration ?? 0)) {
    return { message: 'Waiting for deployment spec update to be observed...', done: false };
  }
  const progressing = s.conditions?.find((c) => c.type === PROGRESSING);
  if (progressing?.reason === reasons.progressDeadlineExceeded) {
    return { message: '', done: false, error: `deployment ${q(name)} exceeded its progress deadline` };
  }
  const updated = s.updatedReplicas ?? 0;
  const replicas = s.replicas ?? 0;
  const available = s.availableReplicas ?? 0;
  const wait = (what: string): RolloutStatusLine => ({
    message: `Waiting for deployment ${q(name)} rollout to finish: ${what}...`,
    done: false,
  });
  if (d.spec.replicas !== undefined && updated < d.spec.replicas) {
    return wait(`${updated} out of ${d.spec.replicas} new replicas have been updated`);
  }
  if (replicas > updated) return wait(`${replicas - updated} old replicas are pending termination`);
  if (available < updated) return wait(`${available} of ${updated} updated replicas are available`);
  return { message: `deployment ${q(name)} successfully rolled out`, done: true };
}
