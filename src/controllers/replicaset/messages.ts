// The ReplicaSet controller's user-visible strings, in kube-controller-manager's words.

export const REPLICA_FAILURE = 'ReplicaFailure';
export const FAILED_CREATE = 'FailedCreate';
export const FAILED_DELETE = 'FailedDelete';

export const logs = {
  badSelector: (namespace: string, name: string, why: string) =>
    `error converting pod selector to selector for rs ${namespace}/${name}: ${why}`,
};
