// What the disruption controller says, in kube-controller-manager's words (pkg/controller/disruption/disruption.go):
// its events on a PodDisruptionBudget and on Pods, the sync errors its failSafe status carries, and the condition's
// reasons (policy/v1 types).

export const DISRUPTION_ALLOWED = 'DisruptionAllowed';

export const reasons = {
  sufficientPods: 'SufficientPods',
  insufficientPods: 'InsufficientPods',
  syncFailed: 'SyncFailed',
} as const;

export const events = {
  noPodsReason: 'NoPods',
  failedToGetPods: (why: string) => `Failed to get pods: ${why}`,
  noMatchingPods: 'No matching pods found',
  calculateFailedReason: 'CalculateExpectedPodCountFailed',
  calculateFailed: (why: string) => `Failed to calculate the number of expected pods: ${why}`,
  unmanagedReason: 'UnmanagedPods',
  unmanaged: (selector: string) =>
    `Pods selected by this PodDisruptionBudget (selector: ${selector}) were found to be unmanaged. As a result, ` +
    'the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for ' +
    'these pods please set ".spec.minAvailable" field of the PDB to an integer value.',
  multipleReason: 'MultiplePodDisruptionBudgets',
  // Two spaces before "Chose", as upstream writes it.
  multiple: (namespace: string, pod: string, chosen: string) =>
    `Pod ${JSON.stringify(namespace)}/${JSON.stringify(pod)} matches multiple PodDisruptionBudgets.  Chose ${JSON.stringify(chosen)} arbitrarily.`,
  notDeletedReason: 'NotDeleted',
  // Upstream passes the PDB's namespace twice; kept, since operators grep for the text they know.
  notDeleted: (namespace: string) => `Pod was expected by PDB ${namespace}/${namespace} to be deleted but it wasn't`,
};

export const errors = {
  noControllers: (pod: string) => `found no controllers for pod ${JSON.stringify(pod)}`,
  intOrStringInvalid: (why: string) => `invalid value for IntOrString: ${why}`,
  notAPercentage: 'invalid type: string is not a percentage',
  percentSyntax: (value: string, digits: string) =>
    `invalid value ${JSON.stringify(value)}: strconv.Atoi: parsing ${JSON.stringify(digits)}: invalid syntax`,
  /** meta.NoKindMatchError: the controllerRef's kind is not served in its version. */
  noKindMatch: (kind: string, apiVersion: string) =>
    `no matches for kind ${JSON.stringify(kind)} in version ${JSON.stringify(apiVersion)}`,
  /** The controller is found but has no scale to count its Pods by (a Job, a DaemonSet). */
  noScale: (groupResource: string) => `${groupResource} does not implement the scale subresource`,
};

/** The controller's own lines, as kube-controller-manager logs them; its events' source. */
export const logs = {
  component: 'controllermanager',
  syncFailed: (key: string, why: string) => `Failed to sync PDB ${key}: ${why}`,
  staleFailed: (key: string, why: string) => `Failed to sync stale pod disruption ${key}: ${why}`,
  staleReset: (key: string) => `Reset stale DisruptionTarget condition to False pod=${JSON.stringify(key)}`,
  eventFailed: (why: string) => `failed to send event, error: ${why}`,
};

interface SelectorView {
  matchLabels?: Readonly<Record<string, string>>;
  matchExpressions?: readonly { key: string; operator: string; values?: readonly string[] }[];
}

/** Go's `%v` of a *metav1.LabelSelector (its generated String method), as the UnmanagedPods event prints it. */
export function selectorText(sel: SelectorView | null | undefined): string {
  if (!sel) return 'nil';
  const labels = Object.keys(sel.matchLabels ?? {})
    .sort()
    .map((k) => `${k}: ${sel.matchLabels![k]},`)
    .join('');
  const exprs = (sel.matchExpressions ?? [])
    .map(
      (e) => `LabelSelectorRequirement{Key:${e.key},Operator:${e.operator},Values:[${(e.values ?? []).join(' ')}],},`,
    )
    .join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}
