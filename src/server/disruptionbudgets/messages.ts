// The user-visible strings of PodDisruptionBudgets as served, in kube-apiserver's words
// (pkg/apis/policy/validation, pkg/apis/apps/validation, apimachinery's IsValidPercent and ValidateLabelSelector,
// the printers' column descriptions).

export const budgetText = {
  bothSet: 'minAvailable and maxUnavailable cannot be both set',
  /** %#v of the spec: upstream prints its pointers' addresses, which mean nothing to a reader. */
  specGoText: 'policy.PodDisruptionBudgetSpec{…}',
  // The double space is upstream's.
  notPercent:
    "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
  negative: 'must be greater than or equal to 0',
  over100: 'must not be greater than 100%',
  valuesRequired: "must be specified when `operator` is 'In' or 'NotIn'",
  valuesForbidden: "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
  badOperator: 'not a valid selector operator',
} as const;

export const UNHEALTHY_POD_EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];

export const columnText = {
  minAvailable: 'The minimum number of pods that must be available.',
  maxUnavailable: 'The maximum number of pods that may be unavailable.',
  allowed: 'Calculated number of pods that may be disrupted at this time.',
  none: 'N/A',
} as const;
