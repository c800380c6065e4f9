// The words the fleet view shows for a node's state and for config sources: one catalogue, shared by the page and
// its tests. Every state has a word as well as a colour, so colour is never the only signal.

export const issueLabels = {
  'not-active': 'Assigned ≠ active',
  error: 'Config error',
  'not-ready': 'NotReady',
  unknown: 'Unknown',
} as const;

export const sourceText = {
  local: 'local config (no ConfigMap)',
  legacy: (ns: string, name: string) => `${ns}/${name} (configMapRef)`,
  configMap: (ns: string, name: string, key: string) => `${ns}/${name}:${key}`,
  noReadyCondition: 'the node has not reported a Ready condition',
  notActive: (assigned: string, active: string) => `assigned ${assigned}, active ${active}`,
} as const;

export const stateFilterLabels = {
  all: 'All nodes',
  attention: 'Needing attention',
  'not-active': issueLabels['not-active'],
  error: issueLabels.error,
  'not-ready': 'NotReady or Unknown',
} as const;
