// The node agent's node lifecycle: capacity and allocatable, Node registration, status and Lease
// heartbeats, the event recorder, the metrics registry and the HTTPS/read-only/healthz listeners. The
// agent's main wires these together; each piece starts and stops on its own and takes its client, clock
// and config as arguments.

export { NodeAgentError, isNodeAgentError, type NodeAgentErrorCode } from './errors.js';
export {
  CAPACITY_RESOURCES,
  parseCapacityFlag,
  mergeCapacity,
  computeCapacity,
  computeAllocatable,
  allocatableReservation,
  parseReservation,
  parseEvictionThreshold,
  thresholdQuantity,
  podsFromConfig,
  formatResourceList,
  type AllocatableConfig,
  type CapacityResource,
  type EvictionThreshold,
  type MachineResources,
  type ResourceList,
} from './capacity.js';
export {
  hostCapacity,
  hostCPUAndMemory,
  ephemeralStorageOf,
  readHostSystemInfo,
  hostname,
  defaultNodeIP,
  goArch,
  goOS,
  parseOSRelease,
  type HostSystemInfo,
} from './host.js';
export {
  KUBELET_VERSION,
  kubeletUserAgent,
  KUBE_PROXY_VERSION,
  CONTAINER_RUNTIME_VERSION,
  OWN_STATUS_FIELDS,
  buildNodeStatus,
  buildConditions,
  nodeStatusChanged,
  pickOwnStatus,
  conditionEvents,
  type NodeStatusInput,
  type OwnNodeStatus,
} from './status.js';
export {
  registerNode,
  buildInitialNode,
  nodeLabels,
  reconcilePatch,
  LABEL_HOSTNAME,
  LABEL_OS,
  LABEL_ARCH,
  LABEL_OS_BETA,
  LABEL_ARCH_BETA,
  ANNOTATION_CONTROLLER_MANAGED_ATTACH_DETACH,
  type NodeIdentity,
  type RegisterNodeOptions,
  type RegistrationClient,
} from './registration.js';
export {
  NodeStatusReporter,
  statusSource,
  statusPatch,
  type NodeStatusReporterOptions,
  type StatusClient,
  type StatusSource,
  type SyncOutcome,
} from './statusreporter.js';
export {
  LeaseRenewer,
  renewedLease,
  leasePath,
  RENEW_INTERVAL_FRACTION,
  type LeaseClient,
  type LeaseRenewerOptions,
  type RenewOutcome,
} from './lease.js';
export { kubeAPIRateLimiter, eventRateLimits, heartbeatTimeoutMs } from './ratelimits.js';
export {
  createMetricsRegistry,
  gauge,
  renderMetrics,
  promClientLoadMillis,
  type MetricsRegistry,
  type MetricsRegistryOptions,
  type Gauge,
} from './metrics.js';
export {
  loadOrCreateServingCert,
  SELF_SIGNED_CERT_FILE,
  SELF_SIGNED_KEY_FILE,
  type ServingCert,
  type ServingCertOptions,
} from './servingcert.js';
export {
  startAgentServers,
  createAgentHandler,
  type AgentHandlerOptions,
  type AgentServerConfig,
  type AgentServerPorts,
  type AgentServers,
  type AgentServersOptions,
  type HealthzResult,
} from './httpserver.js';
