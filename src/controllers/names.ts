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

/** `dkc server`'s `--controllers` when not given: all of them, each with the identity it needs (./host.ts). */
export const DEFAULT_CONTROLLERS = CONTROLLER_NAMES.join(',');

/**
 * `dkc controller`'s: it runs every controller as the one identity its kubeconfig names, so by default only those
 * whose rights deploy/controller/rbac.yaml gives that identity. The others read Pods or every resource: each is asked
 * for by name, as a process of its own with an identity of its own.
 */
export const STANDALONE_DEFAULT_CONTROLLERS = ['rollout', 'nodelifecycle'].join(',');

/** kube-controller-manager's --node-monitor-grace-period default. */
export const DEFAULT_NODE_MONITOR_GRACE_PERIOD = '40s';
/** kube-controller-manager's --namespace-sync-period default. */
export const DEFAULT_NAMESPACE_SYNC_PERIOD = '5m';
