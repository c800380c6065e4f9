// The JSON shapes of the objects the server serves: meta/v1, core/v1 (Node, ConfigMap, Namespace,
// Event, a minimal Pod), coordination.k8s.io/v1 Lease and the meta.k8s.io/v1 Table family.
// Field names and optionality follow the Go types' JSON tags (omitempty → optional), so an object
// that round-trips through the server keeps the shape kubectl and client-node expect.

/** RFC 3339 timestamp with second precision (metav1.Time). */
export type Time = string;
/** RFC 3339 timestamp with microsecond precision (metav1.MicroTime). */
export type MicroTime = string;
/** A resource.Quantity in its canonical string form ("4", "8Gi", "100m"). */
export type Quantity = string;

export interface TypeMeta {
  apiVersion?: string;
  kind?: string;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** Server-side-apply bookkeeping; kept opaque because dkc stores it but never interprets it. */
export type ManagedFieldsEntry = Record<string, unknown>;

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  selfLink?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: Time | null;
  deletionTimestamp?: Time | null;
  deletionGracePeriodSeconds?: number | null;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
}

export interface ListMeta {
  selfLink?: string;
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

/** Any object the server stores: what the generic registry, storage and watch code handle. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [k: string]: unknown;
}

export interface KubeList<T> {
  apiVersion?: string;
  kind?: string;
  metadata: ListMeta;
  items: T[];
}

// ---- meta.k8s.io/v1 Table -------------------------------------------------------------------

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface PartialObjectMetadata {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

export interface TableRowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface TableRow {
  cells: unknown[];
  conditions?: TableRowCondition[];
  /** A full object or a PartialObjectMetadata, depending on includeObject. */
  object?: PartialObjectMetadata | KubeObject;
}

export interface Table {
  apiVersion?: string;
  kind?: string;
  metadata: ListMeta;
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

// ---- core/v1 shared pieces ------------------------------------------------------------------

export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

// ---- core/v1 Node ---------------------------------------------------------------------------

export type TaintEffect = 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';

export interface Taint {
  key: string;
  value?: string;
  /** Typed loosely because the server must accept, then reject, unknown effects. */
  effect: TaintEffect | string;
  timeAdded?: Time | null;
}

export interface ConfigMapNodeConfigSource {
  namespace: string;
  name: string;
  uid?: string;
  resourceVersion?: string;
  kubeletConfigKey: string;
}

export interface NodeConfigSource {
  /**
   * The 1.8-alpha form (an ObjectReference with name, namespace and uid, the payload under the key `kubelet`),
   * removed upstream in 1.22 and served here so the older task's workflow keeps working; configMap supersedes it.
   */
  configMapRef?: ObjectReference | null;
  configMap?: ConfigMapNodeConfigSource | null;
}

export interface NodeConfigStatus {
  assigned?: NodeConfigSource | null;
  active?: NodeConfigSource | null;
  lastKnownGood?: NodeConfigSource | null;
  error?: string;
}

export interface NodeSpec {
  podCIDR?: string;
  podCIDRs?: string[];
  providerID?: string;
  unschedulable?: boolean;
  taints?: Taint[];
  configSource?: NodeConfigSource | null;
  /** Deprecated upstream; carried so old clients' objects round-trip. */
  externalID?: string;
}

export interface NodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown' | string;
  lastHeartbeatTime?: Time | null;
  lastTransitionTime?: Time | null;
  reason?: string;
  message?: string;
}

export interface NodeAddress {
  type: 'Hostname' | 'InternalIP' | 'ExternalIP' | 'InternalDNS' | 'ExternalDNS' | string;
  address: string;
}

export interface DaemonEndpoint {
  Port: number;
}

export interface NodeDaemonEndpoints {
  kubeletEndpoint?: DaemonEndpoint;
}

export interface NodeSystemInfo {
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  containerRuntimeVersion: string;
  kubeletVersion: string;
  kubeProxyVersion: string;
  operatingSystem: string;
  architecture: string;
}

export interface ContainerImage {
  names?: string[];
  sizeBytes?: number;
}

export interface AttachedVolume {
  name: string;
  devicePath: string;
}

export interface NodeStatus {
  capacity?: Record<string, Quantity>;
  allocatable?: Record<string, Quantity>;
  phase?: string;
  conditions?: NodeCondition[];
  addresses?: NodeAddress[];
  daemonEndpoints?: NodeDaemonEndpoints;
  nodeInfo?: NodeSystemInfo;
  images?: ContainerImage[];
  volumesInUse?: string[];
  volumesAttached?: AttachedVolume[];
  config?: NodeConfigStatus | null;
}

export interface Node extends KubeObject {
  spec?: NodeSpec;
  status?: NodeStatus;
}

// ---- core/v1 ConfigMap ----------------------------------------------------------------------

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
  /** Values are base64 in JSON, as for []byte in Go. */
  binaryData?: Record<string, string>;
  immutable?: boolean | null;
}

// ---- core/v1 Namespace ----------------------------------------------------------------------

export interface NamespaceCondition {
  type: string;
  status: string;
  lastTransitionTime?: Time | null;
  reason?: string;
  message?: string;
}

export interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: 'Active' | 'Terminating' | string; conditions?: NamespaceCondition[] };
}

// ---- core/v1 Event --------------------------------------------------------------------------

export interface EventSource {
  component?: string;
  host?: string;
}

export interface EventSeries {
  count?: number;
  lastObservedTime?: MicroTime;
}

export interface Event extends KubeObject {
  involvedObject: ObjectReference;
  reason?: string;
  message?: string;
  source?: EventSource;
  firstTimestamp?: Time | null;
  lastTimestamp?: Time | null;
  count?: number;
  type?: string;
  eventTime?: MicroTime | null;
  series?: EventSeries | null;
  action?: string;
  related?: ObjectReference | null;
  reportingComponent?: string;
  reportingInstance?: string;
}

// ---- core/v1 Pod (only what `describe node` and the node authorizer look at) ------------------

export interface Pod extends KubeObject {
  spec?: { nodeName?: string; [k: string]: unknown };
  status?: { phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown' | string; [k: string]: unknown };
}

// ---- coordination.k8s.io/v1 Lease -----------------------------------------------------------

export interface LeaseSpec {
  holderIdentity?: string | null;
  leaseDurationSeconds?: number | null;
  acquireTime?: MicroTime | null;
  renewTime?: MicroTime | null;
  leaseTransitions?: number | null;
}

export interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

/** Where each node's heartbeat Lease lives, named after the node (core/v1 NamespaceNodeLease). */
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
