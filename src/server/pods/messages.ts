// The user-visible strings of the Pod rules, in kube-apiserver's words (pkg/apis/core/validation, the pod
// registry's strategy and its binding and eviction subresources).

export const podText = {
  updatableFields:
    'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
  tolerationModified: 'existing toleration can not be modified except its tolerationSeconds',
  tolerationKeyEmpty: 'operator must be Exists when `key` is empty, which means "match all values and all keys"',
  tolerationSecondsEffect: "effect must be 'NoExecute' when `tolerationSeconds` is set",
  tolerationExistsValue: "value must be empty when `operator` is 'Exists'",
  deadlineRange: (min: number) => `must be between ${min} and 2147483647, inclusive`,
  deadlineIncreased: 'must be less than or equal to previous value',
  deadlineRemoved: 'must not update from a positive integer to nil value',
  nonNegative: 'must be greater than or equal to 0',
  requestOverLimit: (resource: string, limit: string) => `must be less than or equal to ${resource} limit of ${limit}`,
  notStandardResource: 'must be a standard resource type or fully qualified',
  notContainerResource: 'must be a standard resource for containers',
  undecodable: (message: string) => `Pod in version "v1" cannot be handled as a Pod: ${message}`,
  bindingNameMismatch: 'name in URL does not match name in Binding object',
  bindingDeleting: (pod: string) => `pod ${pod} is being deleted, cannot be assigned to a host`,
  bindingAssigned: (pod: string, node: string) => `pod ${pod} is already assigned to node ${JSON.stringify(node)}`,
  bindingGated: (pod: string) => `pod ${pod} has non-empty .spec.schedulingGates`,
  preconditionUid: (want: string, have: string) =>
    `Precondition failed: UID in precondition: ${want}, UID in object meta: ${have}`,
  preconditionRv: (want: string, have: string) =>
    `Precondition failed: ResourceVersion in precondition: ${want}, ResourceVersion in object meta: ${have}`,
} as const;

/** The Eviction API's answers (pkg/registry/core/pod/storage/eviction.go). */
export const evictionText = {
  violates: "Cannot evict pod as it would violate the pod's disruption budget.",
  processing: (pdb: string) => `The disruption budget ${pdb} is still being processed by the server.`,
  needs: (pdb: string, desired: number, current: number) =>
    `The disruption budget ${pdb} needs ${desired} healthy pods and has ${current} currently`,
  negative: 'pdb disruptions allowed is negative',
  tooMany: 'DisruptedPods map too big - too many evictions not confirmed by PDB controller',
  multiple: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
  nameMismatch: 'name in URL does not match name in Eviction object',
  targetReason: 'EvictionByEvictionAPI',
  targetMessage: 'Eviction API: evicting',
} as const;

export const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
export const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
export const TOLERATION_OPERATORS = ['Equal', 'Exists'];
export const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
