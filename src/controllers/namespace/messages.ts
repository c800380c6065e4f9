// The namespace controller's log lines, in kube-controller-manager's words where it has them (operators grep for them).

export const logs = {
  deletionFailed: (namespace: string, why: string) => `deletion of namespace ${namespace} failed: ${why}`,
  contentRemaining: (namespace: string, waitSeconds: number) =>
    `Content remaining in namespace ${namespace}, looking again in ${waitSeconds}s`,
  conditionsFailed: (namespace: string, why: string) =>
    `couldn't update status condition for namespace ${JSON.stringify(namespace)}: ${why}`,
  finalized: (namespace: string, left: readonly string[]) =>
    `namespace ${namespace}: content removed, finalizer kubernetes removed${left.length ? ` (spec.finalizers left: ${left.join(', ')})` : ''}`,
};
