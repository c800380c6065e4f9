// The ReplicaSet controller's user-visible strings, in kube-controller-manager's words.

export const REPLICA_FAILURE = 'ReplicaFailure';
export const FAILED_CREATE = 'FailedCreate';
export const FAILED_DELETE = 'FailedDelete';

export const logs = {
  badSelector: (namespace: string, name: string, why: string) =>
    `error converting pod selector to selector for rs ${namespace}/${name}: ${why}`,
};

/** The controller's events' source; the events are RealPodControl's (../workload/messages.ts). */
export const events = {
  component: 'replicaset-controller',
};

/** The controller's log lines and errors. */
export const texts = {
  syncFailed: (key: string, why: string) => `error syncing ReplicaSet ${JSON.stringify(key)}: ${why}`,
  eventFailed: (why: string) => `failed to send event, error: ${why}`,
};
