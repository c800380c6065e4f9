// How risky it is to change each KubeletConfiguration field on a live node: one table, a class and a one-line
// reason for every v1beta1 field, for `dkc config lint` and the web view. Upstream keeps no such list in code (its
// controller validates and either applies a config or falls back); the classes distil the per-field notes of the
// 1.22 v1beta1 types and what each field does on a node that is already running pods:
//
//   safe        takes effect when the agent restarts, without touching running workloads
//   disruptive  changes how running or new workloads are treated, or needs a drain (or a reboot) to apply cleanly
//   dangerous   can cut the node off from the control plane, or open it up to more than it served before
//
// The 1.22 table is typed by the field names, so a field added to the type without a class does not compile, and a
// test compares it with the codec's field list; the later minors' fields have a table of their own, checked against
// every generated table.

import type { KubeletConfiguration } from './types.js';

export type SafetyClass = 'safe' | 'disruptive' | 'dangerous';

export const SAFETY_CLASSES: readonly SafetyClass[] = ['safe', 'disruptive', 'dangerous'];

export interface FieldSafety {
  /** The field, or the nested path an entry of its own covers (authorization.webhook). */
  readonly field: string;
  readonly class: SafetyClass;
  readonly reason: string;
}

type Entry = readonly [SafetyClass, string];

const REBOOT = 'do not change without draining and rebooting the node; keep equal to the local config';
const CPU_STATE = 'the manager keeps state for running pods; drain the node and remove its state file first';
const EVICTION = 'changes when and which running pods are evicted';
const RESERVATION = 'changes node allocatable; a larger reservation may need a cgroup resize and can trigger evictions';
const NEW_PODS_DNS = 'only pods started afterwards see it; drain so that all pods on the node agree';
const IPTABLES = 'pod networking depends on it; must match kube-proxy on the node';
const STATUS_TIMING = 'near the node monitor grace period the node turns NotReady and its pods are evicted';
const TLS =
  'the API server reaches the node over this TLS server; a mistake breaks logs, exec and /configz through the proxy';

const TABLE: Readonly<Record<keyof KubeletConfiguration, Entry>> = {
  enableServer: ['dangerous', 'without the server the API server cannot reach the node (logs, exec, /configz)'],
  staticPodPath: ['dangerous', 'every manifest in that directory runs as a pod on the node, outside the API server'],
  syncFrequency: ['safe', 'how often running pods are resynced; a longer period only slows convergence'],
  fileCheckFrequency: ['safe', 'how often static pod files are read'],
  httpCheckFrequency: ['safe', 'how often the static pod URL is read'],
  staticPodURL: ['dangerous', 'whatever that URL serves runs as pods on the node, outside the API server'],
  staticPodURLHeader: ['dangerous', 'credentials sent to the static pod URL'],
  address: ['dangerous', 'the address the API server reaches the node on; a wrong one cuts it off'],
  port: ['dangerous', 'the port the API server reaches the node on; a wrong one cuts it off'],
  readOnlyPort: ['dangerous', 'a non-zero port serves node and pod data without authentication'],
  tlsCertFile: ['dangerous', TLS],
  tlsPrivateKeyFile: ['dangerous', TLS],
  tlsCipherSuites: ['dangerous', 'clients without a common cipher suite can no longer connect'],
  tlsMinVersion: ['dangerous', 'clients below the minimum TLS version can no longer connect'],
  rotateCertificates: [
    'dangerous',
    'without rotation the client certificate expires and the node loses the API server',
  ],
  serverTLSBootstrap: [
    'dangerous',
    'the serving certificate then waits for an approved CSR; until then the server cannot start',
  ],
  authentication: [
    'dangerous',
    'who may call the node; removing clientCAFile makes /configz through the API proxy answer 401',
  ],
  authorization: ['dangerous', 'AlwaysAllow opens every endpoint of the node to anyone authenticated'],
  registryPullQPS: ['safe', 'only throttles image pulls'],
  registryBurst: ['safe', 'only throttles image pulls'],
  eventRecordQPS: ['safe', 'only throttles the events the node records'],
  eventBurst: ['safe', 'only throttles the events the node records'],
  enableDebuggingHandlers: ['dangerous', 'turns the logs, exec, attach and port-forward endpoints on or off'],
  enableContentionProfiling: ['safe', 'block profiling for the debugging handlers'],
  healthzPort: ['safe', 'local health checks must follow the new port'],
  healthzBindAddress: ['safe', 'local health checks must follow the new address'],
  oomScoreAdj: ['safe', "the agent process's own OOM score"],
  clusterDomain: ['disruptive', 'must match the rest of the cluster; only pods started afterwards see it'],
  clusterDNS: ['disruptive', NEW_PODS_DNS],
  streamingConnectionIdleTimeout: ['safe', 'idle exec and port-forward streams close sooner or later'],
  nodeStatusUpdateFrequency: ['disruptive', STATUS_TIMING],
  nodeStatusReportFrequency: ['safe', 'how often an unchanged status is reported; the Lease keeps the node alive'],
  nodeLeaseDurationSeconds: ['disruptive', STATUS_TIMING],
  imageMinimumGCAge: ['safe', 'only when unused images are garbage collected'],
  imageGCHighThresholdPercent: ['safe', 'only when unused images are garbage collected'],
  imageGCLowThresholdPercent: ['safe', 'only when unused images are garbage collected'],
  volumeStatsAggPeriod: ['safe', 'how often volume usage is measured'],
  kubeletCgroups: ['disruptive', REBOOT],
  systemCgroups: ['disruptive', REBOOT],
  cgroupRoot: ['disruptive', REBOOT],
  cgroupsPerQOS: ['disruptive', REBOOT],
  cgroupDriver: ['disruptive', REBOOT],
  cpuManagerPolicy: ['disruptive', CPU_STATE],
  cpuManagerPolicyOptions: ['disruptive', CPU_STATE],
  cpuManagerReconcilePeriod: ['safe', 'how often CPU assignments are reconciled'],
  memoryManagerPolicy: ['disruptive', CPU_STATE],
  topologyManagerPolicy: ['disruptive', 'changes where running pods may be admitted; drain the node first'],
  topologyManagerScope: ['disruptive', 'changes where running pods may be admitted; drain the node first'],
  qosReserved: ['disruptive', REBOOT],
  runtimeRequestTimeout: ['safe', 'timeout of container runtime calls'],
  hairpinMode: ['disruptive', 'changes pod networking; may need a node reboot, depending on the network plugin'],
  maxPods: ['safe', 'takes effect on restart; running pods stay even above a lower limit'],
  podCIDR: ['disruptive', 'standalone-only field: pod addresses come from it; leave it empty on a cluster node'],
  podPidsLimit: ['disruptive', 'applies to pods started afterwards; drain so that all pods agree'],
  resolvConf: ['disruptive', NEW_PODS_DNS],
  runOnce: ['dangerous', 'the agent runs its pods once and exits: the node leaves the cluster'],
  cpuCFSQuota: ['disruptive', 'changes how CPU limits of running containers are enforced'],
  cpuCFSQuotaPeriod: ['disruptive', 'changing it restarts containers'],
  nodeStatusMaxImages: ['safe', 'only how many images the node status lists'],
  maxOpenFiles: ['safe', "the agent process's own file limit"],
  contentType: ['dangerous', 'if the node can no longer talk to the API server, dynamic config cannot revert it'],
  kubeAPIQPS: ['safe', "only throttles the node's requests to the API server"],
  kubeAPIBurst: ['safe', "only throttles the node's requests to the API server"],
  serializeImagePulls: ['safe', 'only whether images are pulled one at a time'],
  evictionHard: ['disruptive', EVICTION],
  evictionSoft: ['disruptive', EVICTION],
  evictionSoftGracePeriod: ['disruptive', EVICTION],
  evictionPressureTransitionPeriod: ['disruptive', EVICTION],
  evictionMaxPodGracePeriod: ['disruptive', 'how long evicted pods get to stop'],
  evictionMinimumReclaim: ['disruptive', EVICTION],
  podsPerCore: ['safe', 'takes effect on restart; running pods stay even above a lower limit'],
  enableControllerAttachDetach: [
    'disruptive',
    'volumes attached under the old mode may not detach unless the node is drained',
  ],
  protectKernelDefaults: ['disruptive', 'the agent refuses to start when kernel tunables differ from what it expects'],
  makeIPTablesUtilChains: ['disruptive', IPTABLES],
  iptablesMasqueradeBit: ['disruptive', IPTABLES],
  iptablesDropBit: ['disruptive', IPTABLES],
  featureGates: ['disruptive', 'gates change how pods are admitted and run'],
  failSwapOn: ['disruptive', 'the agent refuses to start on a node with swap on'],
  memorySwap: ['disruptive', 'changes how much swap running containers may use'],
  containerLogMaxSize: ['safe', 'container logs rotate at another size; rotated logs beyond the limit are deleted'],
  containerLogMaxFiles: ['safe', 'container logs beyond the new count are deleted'],
  configMapAndSecretChangeDetectionStrategy: ['safe', 'only how ConfigMap and Secret updates reach pod volumes'],
  systemReserved: ['disruptive', RESERVATION],
  kubeReserved: ['disruptive', RESERVATION],
  reservedSystemCPUs: ['disruptive', RESERVATION],
  showHiddenMetricsForVersion: ['safe', 'only which metrics are served'],
  systemReservedCgroup: ['disruptive', REBOOT],
  kubeReservedCgroup: ['disruptive', REBOOT],
  enforceNodeAllocatable: ['disruptive', 'changes which cgroups are capped; can trigger evictions'],
  allowedUnsafeSysctls: ['dangerous', 'pods may then set sysctls that affect the whole node'],
  volumePluginDir: ['disruptive', 'flex volumes of running pods are looked up there'],
  providerID: ['dangerous', 'a wrong ID can make the cloud provider delete the node'],
  kernelMemcgNotification: ['safe', 'only how memory pressure is detected'],
  logging: ['safe', "only the agent's own log format"],
  enableSystemLogHandler: ['safe', 'turns /logs/ on or off; behind the same authentication as /configz'],
  shutdownGracePeriod: ['disruptive', 'how long pods get to stop when the node shuts down'],
  shutdownGracePeriodCriticalPods: ['disruptive', 'how long critical pods get to stop when the node shuts down'],
  reservedMemory: ['disruptive', CPU_STATE],
  enableProfilingHandler: ['safe', 'turns the profiling endpoints on or off; behind authentication'],
  enableDebugFlagsHandler: ['safe', 'turns the debug flags endpoint on or off; behind authentication'],
  seccompDefault: [
    'disruptive',
    'pods started afterwards run under the RuntimeDefault seccomp profile, which can break them',
  ],
  memoryThrottlingFactor: ['disruptive', 'changes memory throttling of containers started afterwards'],
};

/**
 * The fields kubelet minors after 1.22 added (versions/kubelet-1.NN.ts). A generated table with a top-level field
 * in neither table fails test/kubeletconfig/versions.test.ts.
 */
const LATER: Readonly<Record<string, Entry>> = {
  shutdownGracePeriodByPodPriority: [
    'disruptive',
    'how long pods of each priority get to stop when the node shuts down',
  ],
  registerWithTaints: [
    'disruptive',
    'taints the node registers with; only a new registration applies them, and they repel pods',
  ],
  registerNode: ['dangerous', 'without registration the node is not in the cluster'],
  tracing: ['safe', "only where the agent's own traces are sent"],
  localStorageCapacityIsolation: ['disruptive', 'turns ephemeral-storage accounting, and evictions for it, on or off'],
  topologyManagerPolicyOptions: ['disruptive', 'changes where running pods may be admitted; drain the node first'],
  maxParallelImagePulls: ['safe', 'only how many images are pulled at once'],
  enableSystemLogQuery: ['dangerous', "exposes the node's system logs through the API server's node proxy"],
  containerRuntimeEndpoint: ['dangerous', 'a wrong endpoint loses every running container from the node'],
  imageServiceEndpoint: ['dangerous', 'a wrong endpoint stops image pulls and image garbage collection'],
  imageMaximumGCAge: ['safe', 'only when unused images are garbage collected'],
  podLogsDir: ['disruptive', REBOOT],
  containerLogMaxWorkers: ['safe', 'only how many workers rotate container logs'],
  containerLogMonitorInterval: ['safe', 'only how often container logs are checked for rotation'],
  failCgroupV1: ['dangerous', 'on a cgroup v1 host the agent refuses to start'],
  singleProcessOOMKill: ['disruptive', 'changes whether an out-of-memory container loses one process or all of them'],
  crashLoopBackOff: ['disruptive', 'changes how soon crashing containers are restarted'],
  imagePullCredentialsVerificationPolicy: ['disruptive', 'pods may then be refused images already on the node'],
  preloadedImagesVerificationAllowlist: ['disruptive', 'pods may then be refused images already on the node'],
  mergeDefaultEvictionSettings: ['disruptive', EVICTION],
  userNamespaces: ['disruptive', 'changes the ID ranges of pods started afterwards; drain so that all pods agree'],
  tlsCurvePreferences: ['dangerous', 'clients without a common key exchange can no longer connect'],
  memoryReservationPolicy: ['disruptive', 'changes the memory protection of running pods'],
};

/** Nested paths whose risk differs from their field's. */
const NESTED: Readonly<Record<string, Entry>> = {
  'authorization.webhook': ['safe', 'only how long authorization answers are cached'],
};

function entry(field: string, [cls, reason]: Entry): FieldSafety {
  return { field, class: cls, reason };
}

/** The class of every 1.22 field, in the table's order (Go struct order). */
export const FIELD_SAFETY: ReadonlyMap<string, FieldSafety> = new Map(
  Object.entries(TABLE).map(([k, v]) => [k, entry(k, v)] as const),
);

/** The class of every field a minor after 1.22 added. */
export const LATER_FIELD_SAFETY: ReadonlyMap<string, FieldSafety> = new Map(
  Object.entries(LATER).map(([k, v]) => [k, entry(k, v)] as const),
);

/**
 * The class of a field or of a path inside one (`evictionHard["memory.available"]` → evictionHard,
 * `authorization.webhook.cacheAuthorizedTTL` → authorization.webhook); undefined for a field no minor has.
 */
export function safetyOf(path: string): FieldSafety | undefined {
  for (const [prefix, e] of Object.entries(NESTED)) {
    if (path === prefix || path.startsWith(prefix + '.')) return entry(prefix, e);
  }
  const field = path.split(/[.[]/)[0]!;
  return FIELD_SAFETY.get(field) ?? LATER_FIELD_SAFETY.get(field);
}

/** Field names grouped by class. */
export function fieldsBySafetyClass(): Record<SafetyClass, string[]> {
  const out: Record<SafetyClass, string[]> = { safe: [], disruptive: [], dangerous: [] };
  for (const s of FIELD_SAFETY.values()) out[s.class].push(s.field);
  return out;
}
