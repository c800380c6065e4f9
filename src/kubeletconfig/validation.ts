// The two validation stages: ValidateKubeletConfiguration (validate), whose verdict decides between running
// a config and falling back to last-known-good, and the checks a kubelet only makes while starting up
// (validateStartup). Both never throw.
//
// The feature gates these rules consult (and the precedence merge accumulates) are defined here as well.

import { aggregate, distinct, FeatureGateError, QuantityError } from './errors.js';
import type { KubeletConfiguration } from './types.js';
import { Duration, goFloatG, goMapString, goQuote, goSliceString, goParseBool, Quantity } from './values.js';

// =========================================================================================================
// The feature gates a 1.22 kubelet process knows (kube gates, the generic apiserver gates registered in the
// same process, AllAlpha/AllBeta), with defaults, stages and locks, and component-base's SetFromMap
// semantics: unknown names and locked gates are errors, explicit keys win, AllAlpha/AllBeta fill only gates
// not set yet. States are immutable values, so "the process-wide gate" is just the state a caller passes on.

export type FeatureStage = 'Alpha' | 'Beta' | 'GA' | 'Deprecated';

export interface FeatureSpec {
  readonly name: string;
  readonly default: boolean;
  readonly stage: FeatureStage;
  /** A locked gate cannot be set to anything but its default. */
  readonly locked: boolean;
}

// name:default(t/f):stage(A/B/G/D)[:L]
const TABLE = `
AppArmor:t:B DynamicKubeletConfig:f:D ExperimentalHostUserNamespaceDefaulting:f:B DevicePlugins:t:B
RotateKubeletServerCertificate:t:B LocalStorageCapacityIsolation:t:B Sysctls:t:G:L EphemeralContainers:f:A
QOSReserved:f:A ExpandPersistentVolumes:t:B ExpandInUsePersistentVolumes:t:B ExpandCSIVolumes:t:B CPUManager:t:B
MemoryManager:t:B CustomCPUCFSQuotaPeriod:f:A TopologyManager:t:B StorageObjectInUseProtection:t:G
SupportPodPidsLimit:t:G:L SupportNodePidsLimit:t:G:L BoundServiceAccountTokenVolume:t:G:L
ServiceAccountIssuerDiscovery:t:G:L CSIMigration:t:B CSIMigrationGCE:f:B InTreePluginGCEUnregister:f:A
CSIMigrationAWS:f:B InTreePluginAWSUnregister:f:A CSIMigrationAzureDisk:f:B InTreePluginAzureDiskUnregister:f:A
CSIMigrationAzureFile:f:B InTreePluginAzureFileUnregister:f:A CSIMigrationvSphere:f:B
InTreePluginvSphereUnregister:f:A CSIMigrationOpenStack:t:B InTreePluginOpenStackUnregister:f:A VolumeSubpath:t:G
ConfigurableFSGroupPolicy:t:B CSIInlineVolume:t:B CSIStorageCapacity:t:B CSIServiceAccountToken:t:G:L
GenericEphemeralVolume:t:B CSIVolumeFSGroupPolicy:t:B RuntimeClass:t:G:L NodeLease:t:G:L NetworkPolicyEndPort:t:B
ProcMountType:f:A TTLAfterFinished:t:B IndexedJob:t:B JobTrackingWithFinalizers:f:A KubeletPodResources:t:B
LocalStorageCapacityIsolationFSQuotaMonitoring:f:A NonPreemptingPriority:t:B PodOverhead:t:B IPv6DualStack:t:B
EndpointSlice:t:G:L EndpointSliceProxying:t:G:L EndpointSliceTerminatingCondition:t:B ProxyTerminatingEndpoints:f:A
EndpointSliceNodeName:t:G:L WindowsEndpointSliceProxying:t:G:L StartupProbe:t:G:L AllowInsecureBackendProxy:t:G:L
PodDisruptionBudget:t:G:L CronJobControllerV2:t:G:L DaemonSetUpdateSurge:t:B ImmutableEphemeralVolumes:t:G:L
HugePageStorageMediumSize:t:G:L DownwardAPIHugePages:f:B AnyVolumeDataSource:f:A DefaultPodTopologySpread:t:B
SetHostnameAsFQDN:t:G:L WinOverlay:t:B WinDSR:f:A DisableAcceleratorUsageMetrics:t:B HPAContainerMetrics:f:A
SizeMemoryBackedVolumes:t:B ExecProbeTimeout:t:G KubeletCredentialProviders:f:A GracefulNodeShutdown:t:B
ServiceLBNodePortControl:t:B MixedProtocolLBService:f:A VolumeCapacityPriority:f:A PreferNominatedNode:t:B
ProbeTerminationGracePeriod:f:B NodeSwap:f:A PodDeletionCost:t:B TopologyAwareHints:f:A
PodAffinityNamespaceSelector:t:B ServiceLoadBalancerClass:t:B IngressClassNamespacedParams:t:B
ServiceInternalTrafficPolicy:t:B LogarithmicScaleDown:t:B SuspendJob:t:B KubeletPodResourcesGetAllocatable:f:A
NamespaceDefaultLabelName:t:G:L CSIVolumeHealth:f:A WindowsHostProcessContainers:f:A DisableCloudProviders:f:A
StatefulSetMinReadySeconds:f:A ExpandedDNSConfig:f:A SeccompDefault:f:A PodSecurity:f:A ReadWriteOncePod:f:A
CSRDuration:t:B DelegateFSGroupToCSIDriver:f:A KubeletInUserNamespace:f:A MemoryQoS:f:A CPUManagerPolicyOptions:f:A
ControllerManagerLeaderMigration:t:B HPAScaleToZero:f:A
StreamingProxyRedirects:f:D ValidateProxyRedirects:t:D AdvancedAuditing:t:G APIResponseCompression:t:B
APIListChunking:t:B DryRun:t:G ServerSideApply:t:G APIPriorityAndFairness:t:B WarningHeaders:t:G:L
RemainingItemCount:t:B StorageVersionHash:t:B StorageVersionAPI:f:A WatchBookmark:t:G:L RemoveSelfLink:t:B
SelectorIndex:t:G:L EfficientWatchResumption:t:B APIServerIdentity:f:A APIServerTracing:f:A
AllAlpha:f:A AllBeta:f:B
`;

const STAGES: Record<string, FeatureStage> = { A: 'Alpha', B: 'Beta', G: 'GA', D: 'Deprecated' };

/** Every gate known to a 1.22 kubelet, in registration order. */
export const KNOWN_FEATURES: ReadonlyMap<string, FeatureSpec> = new Map(
  TABLE.trim()
    .split(/\s+/)
    .map((entry) => {
      const [name, def, stage, lock] = entry.split(':') as [string, string, string, string | undefined];
      return [name, { name, default: def === 't', stage: STAGES[stage]!, locked: lock === 'L' }] as const;
    }),
);

export interface SetFeatureGatesResult {
  gates: FeatureGates;
  /** The kubelet's log lines for setting deprecated or GA gates. */
  warnings: string[];
}

/** An immutable feature-gate state: 1.22 defaults plus the gates set so far. */
export class FeatureGates {
  private readonly explicit: ReadonlyMap<string, boolean>;
  /** The gates this kubelet registers: 1.22's unless another minor's table was given. */
  private readonly known: ReadonlyMap<string, FeatureSpec>;

  private constructor(
    explicit: ReadonlyMap<string, boolean>,
    known: ReadonlyMap<string, FeatureSpec> = KNOWN_FEATURES,
  ) {
    this.explicit = explicit;
    this.known = known;
  }

  /** The defaults of the 1.22 gates, or of the gates `known` lists (another kubelet minor's). */
  static defaults(known?: ReadonlyMap<string, FeatureSpec>): FeatureGates {
    return new FeatureGates(new Map(), known);
  }

  /** Whether this kubelet registers the gate at all. */
  knows(name: string): boolean {
    return this.known.has(name);
  }

  /**
   * Whether a gate is on, where a gate this kubelet no longer registers counts as on: upstream removes a gate once
   * its feature is GA and always on. The rules of every minor ask through this.
   */
  on(name: string): boolean {
    return this.known.has(name) ? this.enabled(name) : true;
  }

  /** Whether a gate is on. Unknown names throw, as asking about an unregistered gate is a programming error. */
  enabled(name: string): boolean {
    const spec = this.known.get(name);
    if (!spec) throw new FeatureGateError(`feature ${JSON.stringify(name)} is not registered in FeatureGate`);
    return this.explicit.get(name) ?? spec.default;
  }

  /** The gates set explicitly (including those filled in by AllAlpha/AllBeta). */
  toMap(): Record<string, boolean> {
    const out: Record<string, boolean> = {};
    for (const k of [...this.explicit.keys()].sort()) out[k] = this.explicit.get(k)!;
    return out;
  }

  /**
   * SetFromMap. Keys are applied in sorted order (Go iterates a map randomly; only the choice among several
   * errors could depend on it). Throws FeatureGateError with component-base's messages.
   */
  setFromMap(m: Readonly<Record<string, boolean>> | undefined): SetFeatureGatesResult {
    const enabled = new Map(this.explicit);
    const warnings: string[] = [];
    for (const name of Object.keys(m ?? {}).sort()) {
      const value = m![name]!;
      const spec = this.known.get(name);
      if (!spec) throw new FeatureGateError(`unrecognized feature gate: ${name}`);
      if (spec.locked && spec.default !== value) {
        throw new FeatureGateError(`cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`);
      }
      enabled.set(name, value);
      if (name === 'AllAlpha' || name === 'AllBeta') {
        const stage: FeatureStage = name === 'AllAlpha' ? 'Alpha' : 'Beta';
        for (const s of this.known.values()) {
          if (s.stage === stage && !enabled.has(s.name)) enabled.set(s.name, value);
        }
      }
      if (spec.stage === 'Deprecated')
        warnings.push(`Setting deprecated feature gate ${name}=${value}. It will be removed in a future release.`);
      else if (spec.stage === 'GA')
        warnings.push(`Setting GA feature gate ${name}=${value}. It will be removed in a future release.`);
    }
    return { gates: new FeatureGates(enabled, this.known), warnings };
  }
}

/** Gates on top of the 1.22 defaults, or the SetFromMap error message. Never throws. */
export function effectiveFeatureGates(
  m: Readonly<Record<string, boolean>> | undefined,
  base: FeatureGates = FeatureGates.defaults(),
): { gates: FeatureGates; warnings: string[] } | { error: string } {
  try {
    return base.setFromMap(m);
  } catch (e) {
    if (e instanceof FeatureGateError) return { error: e.message };
    throw e;
  }
}

// =========================================================================================================
// ValidateKubeletConfiguration of Kubernetes 1.22: the function whose verdict decides between "run this
// config" and "fall back to last-known-good". The rules run in upstream's source order on the defaulted
// config, against the feature gates the config will actually run with (the process gates plus the config's
// own featureGates), and every failure is collected. Messages are upstream's format strings rendered with
// Go's verbs. It never throws: a bad config is an answer, not an exception.

export interface ValidateOptions {
  /** Gates of the process before the config's own featureGates are applied; defaults to 1.22's defaults. */
  featureGates?: FeatureGates;
  /** Windows builds add two rules (V46, V47). Default linux. */
  platform?: 'linux' | 'windows';
  /** Names of klog flags given non-default values on the command line (rule V49). */
  nonDefaultLoggingFlags?: readonly string[];
  /** Log formats the binary registers (rule V50). Default: text and json. */
  logFormats?: readonly string[];
  /** The kubelet's own version, for showHiddenMetricsForVersion (rule V48). Default 1.22. */
  version?: { major: number; minor: number };
}

export interface ValidationResult {
  /** Distinct messages in the order the rules produced them; empty when valid. */
  errors: string[];
  /** The aggregate as the kubelet logs it: '' when valid, the message alone, or `[a, b, …]`. */
  message: string;
}

const IC = 'invalid configuration:';
const MICROSECOND = 1000n;
const MILLISECOND = 1_000_000n;
const SECOND = 1_000_000_000n;
const DEFAULT_CFS_PERIOD = 100_000_000n;

function ns(d: Duration | undefined): bigint {
  return d instanceof Duration ? d.nanoseconds : 0n;
}

function durText(d: Duration | undefined): string {
  return (d instanceof Duration ? d : Duration.zero).toString();
}

const outside = (v: number, lo: number, hi: number) => !(v >= lo && v <= hi);

/** strconv.Atoi with Go's error texts. */
function atoi(s: string): { v: bigint } | { err: string } {
  if (!/^[+-]?[0-9]+$/.test(s)) return { err: `strconv.Atoi: parsing ${goQuote(s)}: invalid syntax` };
  const v = BigInt(s);
  if (v > (1n << 63n) - 1n || v < -(1n << 63n))
    return { err: `strconv.Atoi: parsing ${goQuote(s)}: value out of range` };
  return { v };
}

/**
 * cpuset.Parse's verdict on a CPU list such as "0-3,8"; undefined when it parses. From 1.27 a reversed range says
 * `>` where it said `>=` (the kubelet's cpuset package at k8s v1.26.7 and v1.27.7, which 1.28 moved to k8s.io/utils).
 */
export function cpuSetError(s: string, minor = 22): string | undefined {
  if (s === '') return undefined;
  for (const r of s.split(',')) {
    const bounds = r.split('-');
    if (bounds.length === 1) {
      const e = atoi(bounds[0]!);
      if ('err' in e) return e.err;
    } else if (bounds.length === 2) {
      const a = atoi(bounds[0]!);
      if ('err' in a) return a.err;
      const b = atoi(bounds[1]!);
      if ('err' in b) return b.err;
      if (a.v > b.v) return `invalid range ${goQuote(r)} (${a.v} ${minor >= 27 ? '>' : '>='} ${b.v})`;
    }
    // three or more dashes: upstream silently ignores the element
  }
  return undefined;
}

function validateReservedMemory(kc: KubeletConfiguration): string[] {
  const errors: string[] = [];
  const seen = new Map<number, Set<string>>();
  for (const r of kc.reservedMemory ?? []) {
    const node = r.numaNode;
    if (!seen.has(node)) seen.set(node, new Set());
    const limits = r.limits ?? {};
    // Go walks the map in random order; sorted keeps the message order stable.
    for (const name of Object.keys(limits).sort()) {
      const q = limits[name]!;
      if (name !== 'memory' && !name.startsWith('hugepages-')) {
        errors.push(
          `the limit type ${goQuote(name)} for NUMA node ${node} is not supported, only [memory hugepages-<HugePageSize>] is accepted`,
        );
      }
      if (q.isZero())
        errors.push(`reserved memory may not be zero for NUMA node ${node} and resource ${goQuote(name)}`);
      if (seen.get(node)!.has(name))
        errors.push(`the reserved memory has a duplicate value for NUMA node ${node} and resource ${goQuote(name)}`);
      seen.get(node)!.add(name);
    }
  }
  return errors;
}

const TOPOLOGY_POLICIES = ['none', 'best-effort', 'restricted', 'single-numa-node'];

/**
 * topologyManagerPolicy and topologyManagerScope. 1.24 reworded the value checks (kubernetes/kubernetes#105360); 1.27,
 * where TopologyManager went GA and locked on, dropped the gate checks (kubernetes/kubernetes#116093).
 */
function topologyRules(kc: KubeletConfiguration, on: (gate: string) => boolean, minor: number): string[] {
  const e: string[] = [];
  const policy = kc.topologyManagerPolicy;
  const scope = kc.topologyManagerScope;
  const gated = minor < 27 && !on('TopologyManager');
  if (gated && policy !== 'none') e.push(`${IC} topologyManagerPolicy ${policy} requires feature gate TopologyManager`);
  if (!TOPOLOGY_POLICIES.includes(policy)) {
    e.push(
      minor >= 24
        ? `${IC} topologyManagerPolicy (--topology-manager-policy) ${goQuote(policy)} must be one of: [${TOPOLOGY_POLICIES.map(goQuote).join(' ')}]`
        : `${IC} topologyManagerPolicy non-allowable value: ${policy}`,
    );
  }
  if (gated && scope !== 'container')
    e.push(`${IC} topologyManagerScope ${scope} requires feature gate TopologyManager`);
  if (scope !== 'container' && scope !== 'pod') {
    e.push(
      minor >= 24
        ? `${IC} topologyManagerScope (--topology-manager-scope) ${goQuote(scope)} must be one of: "container", or "pod"`
        : `${IC} topologyManagerScope non-allowable value: ${scope}`,
    );
  }
  return e;
}

/**
 * shutdownGracePeriod and shutdownGracePeriodCriticalPods. Until 1.23 one message covers the signs and the order;
 * from 1.24 each check has its own, with the fields' JSON names (kubernetes/kubernetes#105360).
 */
function shutdownRules(kc: KubeletConfiguration, on: (gate: string) => boolean, minor: number): string[] {
  const e: string[] = [];
  const total = ns(kc.shutdownGracePeriod);
  const critical = ns(kc.shutdownGracePeriodCriticalPods);
  const t = durText(kc.shutdownGracePeriod);
  const c = durText(kc.shutdownGracePeriodCriticalPods);
  const belowSecond = (d: bigint) => d > 0n && d < SECOND;
  if (on('GracefulNodeShutdown') && minor >= 24) {
    if (critical > total) e.push(`${IC} shutdownGracePeriodCriticalPods ${c} must be <= shutdownGracePeriod ${t}`);
    if (total < 0n || belowSecond(total))
      e.push(`${IC} shutdownGracePeriod ${t} must be either zero or otherwise >= 1 sec`);
    if (critical < 0n || belowSecond(critical))
      e.push(`${IC} shutdownGracePeriodCriticalPods ${c} must be either zero or otherwise >= 1 sec`);
  } else if (on('GracefulNodeShutdown')) {
    if (total < 0n || critical < 0n || critical > total) {
      e.push(
        `${IC} ShutdownGracePeriod ${t} must be >= 0, ShutdownGracePeriodCriticalPods ${c} must be >= 0, and ShutdownGracePeriodCriticalPods ${c} must be <= ShutdownGracePeriod ${t}`,
      );
    }
    if (belowSecond(total)) e.push(`${IC} ShutdownGracePeriod ${t} must be either zero or otherwise >= 1 sec`);
    if (belowSecond(critical))
      e.push(`${IC} ShutdownGracePeriodCriticalPods ${c} must be either zero or otherwise >= 1 sec`);
  }
  if (!on('GracefulNodeShutdown') && (total > 0n || critical > 0n)) {
    e.push(
      minor >= 24
        ? `${IC} specifying shutdownGracePeriod or shutdownGracePeriodCriticalPods requires feature gate GracefulNodeShutdown`
        : `${IC} Specifying ShutdownGracePeriod or ShutdownGracePeriodCriticalPods requires feature gate GracefulNodeShutdown`,
    );
  }
  return e;
}

/** The 1.22 rules; later minors (rules.ts) run them too, with `o.version` naming the minor. */
export function rules(kc: KubeletConfiguration, gates: FeatureGates, o: ValidateOptions): string[] {
  const e: string[] = [];
  const on = (g: string) => gates.on(g);
  const minor = o.version?.minor ?? 22;
  // 1.24 reworded several messages: flag and value added, lowercase field names (kubernetes/kubernetes#105360).
  const reworded = minor >= 24;
  const enforce = kc.enforceNodeAllocatable ?? [];

  if (!(kc.nodeLeaseDurationSeconds > 0)) e.push(`${IC} nodeLeaseDurationSeconds must be greater than 0`);
  if (!kc.cgroupsPerQOS && enforce.length > 0) {
    e.push(
      `${IC} enforceNodeAllocatable (--enforce-node-allocatable) is not supported unless cgroupsPerQOS (--cgroups-per-qos) is set to true`,
    );
  }
  if (kc.systemCgroups !== '' && kc.cgroupRoot === '') {
    e.push(`${IC} systemCgroups (--system-cgroups) was specified and cgroupRoot (--cgroup-root) was not specified`);
  }
  if (kc.eventBurst < 0) e.push(`${IC} eventBurst (--event-burst) ${kc.eventBurst} must not be a negative number`);
  if (kc.eventRecordQPS < 0)
    e.push(`${IC} eventRecordQPS (--event-qps) ${kc.eventRecordQPS} must not be a negative number`);
  if (kc.healthzPort !== 0 && outside(kc.healthzPort, 1, 65535)) {
    e.push(`${IC} healthzPort (--healthz-port) ${kc.healthzPort} must be between 1 and 65535, inclusive`);
  }
  const cfs = ns(kc.cpuCFSQuotaPeriod);
  if (!on('CustomCPUCFSQuotaPeriod') && cfs !== DEFAULT_CFS_PERIOD) {
    const flag = reworded ? ' (--cpu-cfs-quota-period)' : '';
    e.push(
      `${IC} cpuCFSQuotaPeriod${flag} ${durText(kc.cpuCFSQuotaPeriod)} requires feature gate CustomCPUCFSQuotaPeriod`,
    );
  }
  // 1.26 raised the minimum from 1µs to 1ms, and the message with it (kubernetes/kubernetes#112123, CHANGELOG-1.26).
  const cfsMin = minor >= 26 ? MILLISECOND : MICROSECOND;
  if (on('CustomCPUCFSQuotaPeriod') && (cfs < cfsMin || cfs > SECOND)) {
    const range = minor >= 26 ? '1ms' : '1usec';
    e.push(
      `${IC} cpuCFSQuotaPeriod (--cpu-cfs-quota-period) ${durText(kc.cpuCFSQuotaPeriod)} must be between ${range} and 1sec, inclusive`,
    );
  }
  if (outside(kc.imageGCHighThresholdPercent, 0, 100)) {
    e.push(
      `${IC} imageGCHighThresholdPercent (--image-gc-high-threshold) ${kc.imageGCHighThresholdPercent} must be between 0 and 100, inclusive`,
    );
  }
  if (outside(kc.imageGCLowThresholdPercent, 0, 100)) {
    e.push(
      `${IC} imageGCLowThresholdPercent (--image-gc-low-threshold) ${kc.imageGCLowThresholdPercent} must be between 0 and 100, inclusive`,
    );
  }
  if (kc.imageGCLowThresholdPercent >= kc.imageGCHighThresholdPercent) {
    e.push(
      `${IC} imageGCLowThresholdPercent (--image-gc-low-threshold) ${kc.imageGCLowThresholdPercent} must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) ${kc.imageGCHighThresholdPercent}`,
    );
  }
  if (outside(kc.iptablesDropBit, 0, 31))
    e.push(`${IC} iptablesDropBit (--iptables-drop-bit) ${kc.iptablesDropBit} must be between 0 and 31, inclusive`);
  if (outside(kc.iptablesMasqueradeBit, 0, 31)) {
    e.push(
      `${IC} iptablesMasqueradeBit (--iptables-masquerade-bit) ${kc.iptablesMasqueradeBit} must be between 0 and 31, inclusive`,
    );
  }
  if (kc.kubeAPIBurst < 0)
    e.push(`${IC} kubeAPIBurst (--kube-api-burst) ${kc.kubeAPIBurst} must not be a negative number`);
  if (kc.kubeAPIQPS < 0) e.push(`${IC} kubeAPIQPS (--kube-api-qps) ${kc.kubeAPIQPS} must not be a negative number`);
  if (kc.nodeStatusMaxImages < -1) {
    const value = reworded ? ` ${kc.nodeStatusMaxImages}` : '';
    e.push(`${IC} nodeStatusMaxImages (--node-status-max-images)${value} must be -1 or greater`);
  }
  if (kc.maxOpenFiles < 0)
    e.push(`${IC} maxOpenFiles (--max-open-files) ${kc.maxOpenFiles} must not be a negative number`);
  if (kc.maxPods < 0) e.push(`${IC} maxPods (--max-pods) ${kc.maxPods} must not be a negative number`);
  if (outside(kc.oomScoreAdj, -1000, 1000))
    e.push(`${IC} oomScoreAdj (--oom-score-adj) ${kc.oomScoreAdj} must be between -1000 and 1000, inclusive`);
  if (kc.podsPerCore < 0) e.push(`${IC} podsPerCore (--pods-per-core) ${kc.podsPerCore} must not be a negative number`);
  if (outside(kc.port, 1, 65535)) e.push(`${IC} port (--port) ${kc.port} must be between 1 and 65535, inclusive`);
  if (kc.readOnlyPort !== 0 && outside(kc.readOnlyPort, 1, 65535)) {
    e.push(`${IC} readOnlyPort (--read-only-port) ${kc.readOnlyPort} must be between 0 and 65535, inclusive`);
  }
  if (kc.registryBurst < 0)
    e.push(`${IC} registryBurst (--registry-burst) ${kc.registryBurst} must not be a negative number`);
  if (kc.registryPullQPS < 0)
    e.push(`${IC} registryPullQPS (--registry-qps) ${kc.registryPullQPS} must not be a negative number`);
  if (kc.serverTLSBootstrap && !on('RotateKubeletServerCertificate')) {
    e.push(`${IC} serverTLSBootstrap ${kc.serverTLSBootstrap} requires feature gate RotateKubeletServerCertificate`);
  }
  e.push(...topologyRules(kc, on, minor));
  e.push(...shutdownRules(kc, on, minor));
  const swap = kc.memorySwap?.swapBehavior ?? '';
  if (minor >= 30) {
    // 1.30 replaced UnlimitedSwap with NoSwap (CHANGELOG-1.30, KEP-2400); the wording is upstream's newest.
    if (on('NodeSwap') && !['', 'NoSwap', 'LimitedSwap'].includes(swap)) {
      e.push(`${IC} memorySwap.swapBehavior ${goQuote(swap)} must be one of: "", "LimitedSwap" or "NoSwap"`);
    } else if (!on('NodeSwap') && swap !== '') {
      e.push(`${IC} memorySwap.swapBehavior cannot be set when NodeSwap feature flag is disabled`);
    }
  } else if (on('NodeSwap')) {
    if (!['', 'LimitedSwap', 'UnlimitedSwap'].includes(swap)) {
      e.push(
        reworded
          ? `${IC} memorySwap.swapBehavior ${goQuote(swap)} must be one of: "", "LimitedSwap", or "UnlimitedSwap"`
          : `${IC} MemorySwap.SwapBehavior ${swap} must be one of: LimitedSwap, UnlimitedSwap`,
      );
    }
  } else if (swap !== '') {
    e.push(
      `${IC} ${reworded ? 'memorySwap.swapBehavior' : 'MemorySwap.SwapBehavior'} cannot be set when NodeSwap feature flag is disabled`,
    );
  }
  // 1.24 quotes the enforcement keys Go's way (kubernetes/kubernetes#105360).
  const key = (k: string) => (reworded ? goQuote(k) : `'${k}'`);
  for (const val of enforce) {
    switch (val) {
      case 'pods':
        break;
      case 'system-reserved':
        if (kc.systemReservedCgroup === '') {
          e.push(
            `${IC} systemReservedCgroup (--system-reserved-cgroup) must be specified when ${key('system-reserved')} contained in enforceNodeAllocatable (--enforce-node-allocatable)`,
          );
        }
        break;
      case 'kube-reserved':
        if (kc.kubeReservedCgroup === '') {
          e.push(
            `${IC} kubeReservedCgroup (--kube-reserved-cgroup) must be specified when ${key('kube-reserved')} contained in enforceNodeAllocatable (--enforce-node-allocatable)`,
          );
        }
        break;
      case 'none':
        if (enforce.length > 1) {
          e.push(
            `${IC} enforceNodeAllocatable (--enforce-node-allocatable) may not contain additional enforcements when ${key('none')} is specified`,
          );
        }
        break;
      default:
        e.push(
          `${IC} option ${goQuote(val)} specified for enforceNodeAllocatable (--enforce-node-allocatable). Valid options are "pods", "system-reserved", "kube-reserved", or "none"`,
        );
    }
  }
  if (!['none', 'hairpin-veth', 'promiscuous-bridge'].includes(kc.hairpinMode)) {
    e.push(
      `${IC} option ${goQuote(kc.hairpinMode)} specified for hairpinMode (--hairpin-mode). Valid options are "none", "hairpin-veth" or "promiscuous-bridge"`,
    );
  }
  if (kc.reservedSystemCPUs !== '') {
    if (kc.systemReservedCgroup !== '' || kc.kubeReservedCgroup !== '') {
      e.push(
        `${reworded ? `${IC} ` : ''}can't use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup (--system-reserved-cgroup) or kubeReservedCgroup (--kube-reserved-cgroup)`,
      );
    }
    const cpuErr = cpuSetError(kc.reservedSystemCPUs, minor);
    if (cpuErr !== undefined) {
      e.push(
        reworded
          ? `${IC} unable to parse reservedSystemCPUs (--reserved-cpus) ${kc.reservedSystemCPUs}, error: ${cpuErr}`
          : `unable to parse reservedSystemCPUs (--reserved-cpus), error: ${cpuErr}`,
      );
    }
  }
  e.push(...validateReservedMemory(kc));
  if (o.platform === 'windows') {
    const msg = (field: string, flag: string, value: string) =>
      `${IC} ${field} (${flag}) ${value} is not supported on Windows`;
    if (kc.cgroupsPerQOS) e.push(msg('CgroupsPerQOS', '--cgroups-per-qos', String(kc.cgroupsPerQOS)));
    if (enforce.length > 0) e.push(msg('EnforceNodeAllocatable', '--enforce-node-allocatable', goSliceString(enforce)));
  }
  const version = o.version ?? { major: 1, minor: 22 };
  const hiddenMetrics = `${version.major}.${version.minor - 1}`;
  if (kc.showHiddenMetricsForVersion !== '' && kc.showHiddenMetricsForVersion !== hiddenMetrics) {
    e.push(
      `--show-hidden-metrics-for-version must be omitted or have the value '${hiddenMetrics}'. Only the previous minor version is allowed`,
    );
  }
  const format = kc.logging?.format ?? '';
  if (format !== 'text') {
    for (const flag of o.nonDefaultLoggingFlags ?? []) {
      e.push(`logging.format: Invalid value: ${goQuote(format)}: Non-default format doesn't honor flag: ${flag}`);
    }
  }
  if (!(o.logFormats ?? ['text', 'json']).includes(format)) {
    e.push(`logging.format: Invalid value: ${goQuote(format)}: Unsupported log format`);
  }
  if (on('MemoryQoS') && kc.memoryThrottlingFactor === undefined) {
    e.push(`${IC} memoryThrottlingFactor is required when MemoryQoS feature flag is enabled`);
  }
  const mtf = kc.memoryThrottlingFactor;
  if (mtf !== undefined && !(mtf > 0 && mtf <= 1.0)) {
    // Upstream formats the *float64 itself and so prints a pointer address; the value is what helps.
    e.push(`${IC} memoryThrottlingFactor ${goFloatG(mtf)} must be greater than 0 and less than or equal to 1.0`);
  }
  return e;
}

/**
 * ValidateKubeletConfiguration. A feature-gate error (unknown or locked gate) is returned alone, as upstream
 * returns it before running any rule.
 */
export function validate(config: KubeletConfiguration, options: ValidateOptions = {}): ValidationResult {
  try {
    const g = effectiveFeatureGates(config.featureGates, options.featureGates);
    if ('error' in g) return { errors: [g.error], message: g.error };
    const errors = distinct(rules(config, g.gates, options));
    return { errors, message: aggregate(errors) };
  } catch (e) {
    const msg = `invalid configuration: cannot be validated: ${(e as Error)?.message ?? String(e)}`;
    return { errors: [msg], message: msg };
  }
}

// =========================================================================================================
// The second validation stage: checks a 1.22 kubelet only makes while starting up (TLS options, the
// authorization mode, reserved resources, manager policies), after ValidateKubeletConfiguration has passed.
// Upstream stops at the first of them and exits; an agent that restarts to change config wants to know
// before it exits, and an operator before a rollout, so every failure is reported. Checks that need the
// machine (online CPUs, cgroups) are not here.

/** Cipher suite names crypto/tls (Go 1.16) knows, plus component-base's two legacy aliases. */
const SECURE_CIPHERS = [
  'TLS_RSA_WITH_3DES_EDE_CBC_SHA',
  'TLS_RSA_WITH_AES_128_CBC_SHA',
  'TLS_RSA_WITH_AES_256_CBC_SHA',
  'TLS_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305',
  'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305',
];
const INSECURE_CIPHERS = [
  'TLS_RSA_WITH_RC4_128_SHA',
  'TLS_RSA_WITH_AES_128_CBC_SHA256',
  'TLS_ECDHE_ECDSA_WITH_RC4_128_SHA',
  'TLS_ECDHE_RSA_WITH_RC4_128_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256',
];
export const TLS_CIPHER_SUITES: ReadonlySet<string> = new Set([...SECURE_CIPHERS, ...INSECURE_CIPHERS]);
export const INSECURE_TLS_CIPHER_SUITES: ReadonlySet<string> = new Set(INSECURE_CIPHERS);
export const TLS_VERSIONS: ReadonlySet<string> = new Set([
  'VersionTLS10',
  'VersionTLS11',
  'VersionTLS12',
  'VersionTLS13',
]);

export interface StartupOptions {
  /** Gates of the process before the config's own featureGates; defaults to 1.22's defaults. */
  featureGates?: FeatureGates;
  /** The kubelet minor whose checks run (default 1.22). */
  version?: { major: number; minor: number };
}

export interface StartupCheckResult {
  errors: string[];
  /** Things the kubelet only logs (insecure cipher suites). */
  warnings: string[];
}

/** parseResourceList for --system-reserved / --kube-reserved: the first failure, as upstream returns it. */
function reservedError(m: Readonly<Record<string, string>> | undefined): string | undefined {
  for (const k of Object.keys(m ?? {}).sort()) {
    const v = m![k]!;
    if (!['cpu', 'memory', 'ephemeral-storage', 'pid'].includes(k)) return `cannot reserve ${goQuote(k)} resource`;
    let q: Quantity;
    try {
      q = Quantity.parse(v);
    } catch (e) {
      if (e instanceof QuantityError) return e.message;
      throw e;
    }
    if (q.sign() < 0) return `resource quantity for ${goQuote(k)} cannot be negative: ${v}`;
  }
  return undefined;
}

/** A hard eviction threshold: an absolute quantity or a fraction of capacity (float32, as the kubelet holds it). */
export type EvictionThreshold = { quantity: Quantity } | { percentage: number };

/** The signals the eviction manager knows (evictionapi's signal table). */
export const EVICTION_SIGNALS: ReadonlySet<string> = new Set([
  'memory.available',
  'allocatableMemory.available',
  'nodefs.available',
  'nodefs.inodesFree',
  'imagefs.available',
  'imagefs.inodesFree',
  'pid.available',
]);

/**
 * One evictionHard entry as the eviction manager parses it at start-up (ParseThresholdConfig): `0%` and
 * `100%` disable the threshold (no threshold), other percentages become a float32 fraction, anything else a
 * positive quantity. The one parser both the agent's start-up and `dkc config validate` use.
 */
export function parseEvictionThreshold(
  signal: string,
  value: string,
): { threshold?: EvictionThreshold; error?: string } {
  if (!EVICTION_SIGNALS.has(signal)) return { error: `unsupported eviction signal ${signal}` };
  if (value.endsWith('%')) {
    if (value === '0%' || value === '100%') return {};
    const text = value.replace(/%+$/, '');
    const n = Number(text);
    if (text.trim() === '' || text.trim() !== text || !Number.isFinite(n)) {
      return { error: `strconv.ParseFloat: parsing ${goQuote(text)}: invalid syntax` };
    }
    if (n < 0) return { error: `eviction percentage threshold ${signal} must be >= 0%: ${value}` };
    if (n > 100) return { error: `eviction percentage threshold ${signal} must be <= 100%: ${value}` };
    // strconv.ParseFloat(s, 32) then float32(v)/100: the fraction is a float32, and so is its rounding.
    return { threshold: { percentage: Math.fround(Math.fround(n) / 100) } };
  }
  let q: Quantity;
  try {
    q = Quantity.parse(value);
  } catch (e) {
    if (e instanceof QuantityError) return { error: e.message };
    throw e;
  }
  if (q.sign() <= 0) return { error: `eviction threshold ${signal} must be positive: ${q.toString()}` };
  return { threshold: { quantity: q } };
}

/** The first evictionHard entry start-up refuses, in key order. */
function evictionHardError(m: Readonly<Record<string, string>> | undefined): string | undefined {
  for (const signal of Object.keys(m ?? {}).sort()) {
    const r = parseEvictionThreshold(signal, m![signal]!);
    if (r.error !== undefined) return r.error;
  }
  return undefined;
}

/** Start-up checks on a config that already passed validate(). Never throws. */
export function validateStartup(config: KubeletConfiguration, options: StartupOptions = {}): StartupCheckResult {
  const errors: string[] = [];
  const warnings: string[] = [];
  const g = effectiveFeatureGates(config.featureGates, options.featureGates);
  if ('error' in g) return { errors: [g.error], warnings };
  const on = (name: string) => g.gates.on(name);
  const minor = options.version?.minor ?? 22;

  for (const name of config.tlsCipherSuites ?? []) {
    if (!TLS_CIPHER_SUITES.has(name)) {
      errors.push(`Cipher suite ${name} not supported or doesn't exist`);
      break;
    }
  }
  if (errors.length === 0) {
    for (const name of config.tlsCipherSuites ?? []) {
      if (INSECURE_TLS_CIPHER_SUITES.has(name))
        warnings.push(`Use of insecure cipher detected. cipher=${goQuote(name)}`);
    }
  }
  if (config.tlsMinVersion !== '' && !TLS_VERSIONS.has(config.tlsMinVersion)) {
    errors.push(`unknown tls version ${goQuote(config.tlsMinVersion)}`);
  }

  const mode = config.authorization?.mode ?? '';
  if (mode === '') errors.push('no authorization mode specified');
  else if (mode !== 'AlwaysAllow' && mode !== 'Webhook') errors.push(`unknown authorization mode ${mode}`);

  const kubeReserved = reservedError(config.kubeReserved);
  if (kubeReserved) errors.push(kubeReserved);
  const systemReserved = reservedError(config.systemReserved);
  if (systemReserved) errors.push(systemReserved);
  const eviction = evictionHardError(config.evictionHard);
  if (eviction) errors.push(eviction);

  if (on('CPUManager')) {
    const opts = config.cpuManagerPolicyOptions;
    if (!on('CPUManagerPolicyOptions') && opts !== undefined) {
      errors.push(
        `CPU Manager policy options ${goMapString(opts)} require feature gates "CPUManager", "CPUManagerPolicyOptions" enabled`,
      );
    }
    if (config.cpuManagerPolicy !== 'none' && config.cpuManagerPolicy !== 'static') {
      errors.push(`unknown policy: "${config.cpuManagerPolicy}"`);
    } else if (config.cpuManagerPolicy === 'static' && on('CPUManagerPolicyOptions') && minor === 22) {
      // Later minors add options (and gates for them) this library has no table of; it checks 1.22's alone.
      for (const k of Object.keys(opts ?? {}).sort()) {
        const v = opts![k]!;
        if (k !== 'full-pcpus-only') {
          errors.push(`unsupported cpumanager option: ${goQuote(k)} (${v})`);
          break;
        }
        if (goParseBool(v) === undefined) {
          errors.push(`bad value for option ${goQuote(k)}: strconv.ParseBool: parsing ${goQuote(v)}: invalid syntax`);
          break;
        }
      }
    }
  }
  if (on('MemoryManager') && config.memoryManagerPolicy !== 'None' && config.memoryManagerPolicy !== 'Static') {
    errors.push(`unknown policy: "${config.memoryManagerPolicy}"`);
  }
  if (config.seccompDefault && !on('SeccompDefault')) {
    errors.push('the SeccompDefault feature gate must be enabled in order to use the SeccompDefault configuration');
  }
  const strategy = config.configMapAndSecretChangeDetectionStrategy;
  if (strategy !== 'Get' && strategy !== 'Cache' && strategy !== 'Watch') {
    errors.push(`unknown configmap and secret manager mode: ${strategy}`);
  }
  return { errors, warnings };
}
