// The StatefulSet controller's user-visible strings, in kube-controller-manager's words
// (k8s:pkg/controller/statefulset/stateful_set_control.go, stateful_pod_control.go).

export const RECREATING_FAILED_POD = 'RecreatingFailedPod';
export const RECREATING_TERMINATED_POD = 'RecreatingTerminatedPod';

export const events = {
  component: 'statefulset-controller',
  /** recordPodEvent: `Successful<Verb>` and `Failed<Verb>`, the verb Create, Update or Delete. */
  succeeded: (verb: PodVerb) => `Successful${verb}`,
  failed: (verb: PodVerb) => `Failed${verb}`,
  podSucceeded: (verb: PodVerb, pod: string, set: string) =>
    `${verb.toLowerCase()} Pod ${pod} in StatefulSet ${set} successful`,
  podFailed: (verb: PodVerb, pod: string, set: string, why: string) =>
    `${verb.toLowerCase()} Pod ${pod} in StatefulSet ${set} failed error: ${why}`,
  recreatingFailed: (namespace: string, set: string, pod: string) =>
    `StatefulSet ${namespace}/${set} is recreating failed Pod ${pod}`,
  recreatingTerminated: (namespace: string, set: string, pod: string) =>
    `StatefulSet ${namespace}/${set} is recreating terminated Pod ${pod}`,
};

export type PodVerb = 'Create' | 'Update' | 'Delete';

export const logs = {
  syncFailed: (key: string, why: string) => `error syncing StatefulSet ${JSON.stringify(key)}: ${why}`,
  badSelector: (namespace: string, name: string, why: string) =>
    `error converting StatefulSet ${namespace}/${name} selector: ${why}`,
};

/** kubectl's StatefulSetStatusViewer (kubectl:pkg/polymorphichelpers/rollout_status.go). */
export const rolloutStatus = {
  onlyRollingUpdate: 'rollout status is only available for RollingUpdate strategy type',
  specUpdate: 'Waiting for statefulset spec update to be observed...',
  ready: (missing: number) => `Waiting for ${missing} pods to be ready...`,
  partitioned: (updated: number, want: number) =>
    `Waiting for partitioned roll out to finish: ${updated} out of ${want} new pods have been updated...`,
  partitionedDone: (updated: number) => `partitioned roll out complete: ${updated} new pods have been updated...`,
  rolling: (updated: number, revision: string) =>
    `waiting for statefulset rolling update to complete ${updated} pods at revision ${revision}...`,
  done: (current: number, revision: string) =>
    `statefulset rolling update complete ${current} pods at revision ${revision}...`,
};
