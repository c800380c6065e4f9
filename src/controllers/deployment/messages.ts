// The Deployment controller's reasons and messages, in kube-controller-manager's words
// (k8s:pkg/controller/deployment/util/deployment_util.go, sync.go, rolling.go; workloads.md §7.1).

export const AVAILABLE = 'Available';
export const PROGRESSING = 'Progressing';
export const REPLICA_FAILURE = 'ReplicaFailure';

export const reasons = {
  minimumReplicasAvailable: 'MinimumReplicasAvailable',
  minimumReplicasUnavailable: 'MinimumReplicasUnavailable',
  newReplicaSetCreated: 'NewReplicaSetCreated',
  foundNewReplicaSet: 'FoundNewReplicaSet',
  replicaSetUpdated: 'ReplicaSetUpdated',
  newReplicaSetAvailable: 'NewReplicaSetAvailable',
  progressDeadlineExceeded: 'ProgressDeadlineExceeded',
  deploymentPaused: 'DeploymentPaused',
  deploymentResumed: 'DeploymentResumed',
  replicaSetCreateError: 'ReplicaSetCreateError',
  scalingReplicaSet: 'ScalingReplicaSet',
} as const;

const q = (s: string): string => JSON.stringify(s);

export const messages = {
  minimumAvailable: 'Deployment has minimum availability.',
  minimumUnavailable: 'Deployment does not have minimum availability.',
  created: (rs: string) => `Created new replica set ${q(rs)}`,
  found: (rs: string) => `Found new replica set ${q(rs)}`,
  progressing: (rs: string) => `ReplicaSet ${q(rs)} is progressing.`,
  deploymentProgressing: (d: string) => `Deployment ${q(d)} is progressing.`,
  progressed: (rs: string) => `ReplicaSet ${q(rs)} has successfully progressed.`,
  deploymentProgressed: (d: string) => `Deployment ${q(d)} has successfully progressed.`,
  timedOut: (rs: string) => `ReplicaSet ${q(rs)} has timed out progressing.`,
  deploymentTimedOut: (d: string) => `Deployment ${q(d)} has timed out progressing.`,
  paused: 'Deployment is paused',
  resumed: 'Deployment is resumed',
  createFailed: (rs: string, why: string) => `Failed to create new replica set ${q(rs)}: ${why}`,
  scaledNew: (rs: string, to: number) => `Scaled up replica set ${rs} to ${to}`,
  scaled: (op: 'up' | 'down', rs: string, to: number, from: number) =>
    `Scaled ${op} replica set ${rs} to ${to} from ${from}`,
  badSelector: (namespace: string, name: string, why: string) =>
    `error converting selector to selector for deployment ${namespace}/${name}: ${why}`,
};

/** The controller's events, log lines and errors (deployment_controller.go, sync.go) and its events' source. */
export const texts = {
  component: 'deployment-controller',
  syncFailed: (key: string, why: string) => `error syncing deployment ${JSON.stringify(key)}: ${why}`,
};
