// Who dkc's controllers are to the API: the user their client certificate names (RBAC's default roles grant it
// exactly what they use, admission knows it) and the Lease they elect a leader on. Constants only.

export const CONTROLLER_USER = 'system:dkc:controller';
/**
 * The garbage collector's own user inside `dkc server` (as kube-controller-manager's generic-garbage-collector with
 * --use-service-account-credentials): it reads and deletes any object, rights no other controller may hold.
 */
export const GARBAGE_COLLECTOR_USER = 'system:dkc:controller:generic-garbage-collector';
/**
 * The namespace controller's own user inside `dkc server` (as kube-controller-manager's namespace-controller): it lists
 * and deletes objects of any kind in a namespace being deleted, rights no other controller may hold.
 */
export const NAMESPACE_CONTROLLER_USER = 'system:dkc:controller:namespace-controller';
/**
 * The taint eviction controller's own user inside `dkc server` (as kube-controller-manager's
 * taint-eviction-controller): it reads Nodes and Pods, marks a Pod's status and deletes it, rights the rollout
 * controller does not hold.
 */
export const TAINT_EVICTION_USER = 'system:dkc:controller:taint-eviction-controller';
/**
 * The disruption controller's own user inside `dkc server` (as kube-controller-manager's disruption-controller): it
 * reads PodDisruptionBudgets, Pods and the scale of their controllers, and writes the budgets' status.
 */
export const DISRUPTION_CONTROLLER_USER = 'system:dkc:controller:disruption-controller';
/**
 * The ReplicaSet controller's own user inside `dkc server` (as kube-controller-manager's replicaset-controller): it
 * reads ReplicaSets, creates, adopts and deletes their Pods, and writes the ReplicaSets' status.
 */
export const REPLICASET_CONTROLLER_USER = 'system:dkc:controller:replicaset-controller';
/**
 * The Deployment controller's own user inside `dkc server` (as kube-controller-manager's deployment-controller): it
 * reads Deployments and their Pods, creates, scales and deletes ReplicaSets, and writes the Deployments' status.
 */
export const DEPLOYMENT_CONTROLLER_USER = 'system:dkc:controller:deployment-controller';
/**
 * The DaemonSet controller's own user inside `dkc server` (as kube-controller-manager's daemon-set-controller): it
 * reads DaemonSets and Nodes, creates, adopts and deletes daemon Pods, and writes the DaemonSets' status.
 */
export const DAEMON_SET_CONTROLLER_USER = 'system:dkc:controller:daemon-set-controller';
/**
 * The StatefulSet controller's own user inside `dkc server` (as kube-controller-manager's statefulset-controller): it
 * reads StatefulSets, keeps their ControllerRevisions, creates, adopts, relabels and deletes their Pods, and writes
 * their status.
 */
export const STATEFUL_SET_CONTROLLER_USER = 'system:dkc:controller:statefulset-controller';
/** The scheduler's user inside `dkc server`, kube-scheduler's own name: it reads Nodes and Pods and binds Pods. */
export const SCHEDULER_USER = 'system:kube-scheduler';
export const LEADER_LEASE_NAMESPACE = 'kube-system';
export const LEADER_LEASE_NAME = 'dkc-controller';
/**
 * The namespace of dkc's kubelet configs: the documented home of the ConfigMaps a fleet is assigned, and where the
 * rollout controller renders layered ones. On a real cluster nodes may read ConfigMaps here and nowhere else
 * (deploy/node-daemon/rbac.yaml), so a rollout that names a ConfigMap elsewhere gets a warning at admission.
 */
export const CONFIG_NAMESPACE = 'dkc-configs';
