// What the workload controllers' shared pieces say, in kube-controller-manager's words
// (k8s:pkg/controller/controller_ref_manager.go RecheckDeletionTimestamp and the controllers' canAdoptFunc;
// controller_utils.go RealPodControl's events, the same for every controller that creates and deletes Pods).

export const adoptionTexts = {
  gone: (kind: string, namespace: string, name: string, got: string, wanted: string) =>
    `original ${kind} ${namespace}/${name} is gone: got uid ${got}, wanted ${wanted}`,
  justDeleted: (namespace: string, name: string, at: string) => `${namespace}/${name} has just been deleted at ${at}`,
};

export const podEvents = {
  successfulCreate: 'SuccessfulCreate',
  created: (pod: string) => `Created pod: ${pod}`,
  failedCreate: 'FailedCreate',
  createError: (why: string) => `Error creating: ${why}`,
  successfulDelete: 'SuccessfulDelete',
  deleted: (pod: string) => `Deleted pod: ${pod}`,
  failedDelete: 'FailedDelete',
  deleteError: (why: string) => `Error deleting: ${why}`,
};
