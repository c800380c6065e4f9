// The workload controllers' shared user-visible strings: the events of kube's RealPodControl
// (k8s:pkg/controller/controller_utils.go), the same for every controller that creates and deletes Pods.

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
