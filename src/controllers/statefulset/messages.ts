// The StatefulSet controller's user-visible strings, in kube-controller-manager's words
// (k8s:pkg/controller/statefulset/stateful_set_control.go, stateful_pod_control.go).

export const RECREATING_FAILED_POD = 'RecreatingFailedPod';
export const RECREATING_TERMINATED_POD = 'RecreatingTerminatedPod';

export const events = {
  recreatingFailed: (namespace: string, set: string, pod: string) =>
    `StatefulSet ${namespace}/${set} is recreating failed Pod ${pod}`,
  recreatingTerminated: (namespace: string, set: string, pod: string) =>
    `StatefulSet ${namespace}/${set} is recreating terminated Pod ${pod}`,
};

export const logs = {
  badSelector: (namespace: string, name: string, why: string) =>
    `error converting StatefulSet ${namespace}/${name} selector: ${why}`,
};
