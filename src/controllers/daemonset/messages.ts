// The DaemonSet controller's user-visible strings, in kube-controller-manager's and kubectl's words
// (k8s:pkg/controller/daemon/daemon_controller.go; kubectl:pkg/polymorphichelpers/rollout_status.go,
// workloads.md §7.2).

export const FAILED_DAEMON_POD = 'FailedDaemonPod';

const q = (s: string): string => JSON.stringify(s);

export const events = {
  component: 'daemonset-controller',
  failedPod: (namespace: string, pod: string, node: string) =>
    `Found failed daemon pod ${namespace}/${pod} on node ${node}, will try to kill it`,
};

export const logs = {
  badSelector: (namespace: string, name: string, why: string) =>
    `error converting pod selector to selector for daemon set ${namespace}/${name}: ${why}`,
  badRollingUpdate: (namespace: string, name: string, why: string) =>
    `invalid value for rolling update of daemon set ${namespace}/${name}: ${why}`,
  surgeUnsupported: (namespace: string, name: string, surge: number) =>
    `daemon set ${namespace}/${name} asks for maxSurge ${surge}; Pods are replaced in place (maxSurge 0)`,
};

/** The controller's log lines and errors. */
export const texts = {
  syncFailed: (key: string, why: string) => `error syncing daemon set ${JSON.stringify(key)}: ${why}`,
};

export const rolloutStatus = {
  onlyRollingUpdate: 'rollout status is only available for RollingUpdate strategy type',
  specUpdate: 'Waiting for daemon set spec update to be observed...',
  updated: (name: string, updated: number, desired: number) =>
    `Waiting for daemon set ${q(name)} rollout to finish: ${updated} out of ${desired} new pods have been updated...`,
  available: (name: string, available: number, desired: number) =>
    `Waiting for daemon set ${q(name)} rollout to finish: ${available} of ${desired} updated pods are available...`,
  done: (name: string) => `daemon set ${q(name)} successfully rolled out`,
};
