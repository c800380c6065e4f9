// The user-visible strings of the apps/v1 kinds as served, in kube-apiserver's words (pkg/apis/apps/validation, the
// registry strategies' immutable selector, the printers' column descriptions).

export const appsText = {
  selectorMismatch: '`selector` does not match template `labels`',
  /** ValidateReplicaSetSpec says "deployment" too: upstream's wording. */
  emptySelector: (kind: 'deployment' | 'daemonset' | 'statefulset') => `empty selector is invalid for ${kind}`,
  deadlineForbidden: (kind: 'ReplicaSet' | 'DaemonSet' | 'StatefulSet') =>
    `activeDeadlineSeconds in ${kind} is not Supported`,
  bothZero: 'may not be 0 when `maxSurge` is 0',
  recreateRollingUpdate: "may not be specified when strategy `type` is 'Recreate'",
  rollingUpdateNil: 'this should be defaulted and never be nil',
  progressDeadline: 'must be greater than minReadySeconds',
  dsSurgeAndUnavailable: 'may not be set when maxUnavailable is non-zero',
  dsNeitherSurgeNorUnavailable: 'cannot be 0 when maxSurge is 0',
  stsPolicy: "must be 'OrderedReady' or 'Parallel'",
  stsStrategy: "must be 'RollingUpdate' or 'OnDelete'",
  stsRollingOnly: "only allowed for updateStrategy 'RollingUpdate'",
  stsMaxUnavailableZero: 'cannot be 0',
  stsSpecForbidden:
    "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
  revisionDataRequired: 'data is mandatory',
} as const;

export const DEPLOYMENT_STRATEGIES = ['Recreate', 'RollingUpdate'];
export const DAEMONSET_STRATEGIES = ['RollingUpdate', 'OnDelete'];
export const RETENTION_POLICIES = ['Retain', 'Delete'];
export const TEMPLATE_RESTART_POLICIES = ['Always'];

// The printers' column descriptions (pkg/printers/internalversion/printers.go, with the swagger text they quote).
export const columnText = {
  ready: 'Number of the pod with ready state',
  containers: 'Names of each container in the template.',
  images: 'Images referenced by each container in the template.',
  deployUpdated: 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
  deployAvailable: 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
  deploySelector:
    'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.',
  rsDesired:
    'Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller',
  rsCurrent:
    'Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller',
  rsReady: 'The number of ready replicas for this replica set.',
  rsSelector:
    'Selector is a label query over pods that should match the replica count. If the selector is empty, it is defaulted to the labels present on the pod template. Label keys and values that must match in order to be controlled by this replica set. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
  dsDesired:
    'The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/',
  dsCurrent:
    'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/',
  dsReady:
    'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.',
  dsUpdated: 'The total number of nodes that are running updated daemon pod',
  dsAvailable:
    'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)',
  dsNodeSelector:
    "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/",
  dsSelector:
    'A label query over pods that are managed by the daemon set. Must match in order to be controlled. If empty, defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
  revisionController: 'Controller of the object',
  revision: 'revision indicates the revision of the state represented by Data.',
  none: '<none>',
  error: '<error>',
  invalid: '<invalid>',
} as const;
