// The controllers' names and the defaults of their flags: the one list `dkc server`, `dkc controller` and the
// manager read. No imports, so the CLI can take it without loading a controller.

export const CONTROLLER_NAMES = [
  'rollout',
  'nodelifecycle',
  'tainteviction',
  'scheduler',
  'namespace',
  'garbagecollector',
  'disruption',
  'replicaset',
  'deployment',
  'daemonset',
  'statefulset',
] as const;
export type ControllerName = (typeof CONTROLLER_NAMES)[number];

/** `--controllers` when not given: all of them. */
export const DEFAULT_CONTROLLERS = CONTROLLER_NAMES.join(',');

/** kube-controller-manager's --node-monitor-grace-period default. */
export const DEFAULT_NODE_MONITOR_GRACE_PERIOD = '40s';
/** kube-controller-manager's --namespace-sync-period default. */
export const DEFAULT_NAMESPACE_SYNC_PERIOD = '5m';
