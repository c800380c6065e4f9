// The KubeletConfiguration of kubelet.config.k8s.io/v1beta1 as Kubernetes 1.22 defines it: 102 fields plus
// the TypeMeta envelope. `KubeletConfiguration` is the defaulted form every consumer works with (what the
// kubelet holds after decode + SetDefaults + conversion); `PartialKubeletConfiguration` is what a payload
// literally says, where an absent key and a Go nil pointer are both `undefined`. Maps and lists that Go can
// hold as nil stay optional in both forms, because nil and empty differ for some of them (evictionHard,
// enforceNodeAllocatable, cpuManagerPolicyOptions). Types only: nothing here exists at run time.

import type { Duration, Quantity } from './values.js';

export interface KubeletX509Authentication {
  /** PEM bundle of CAs whose client certificates are accepted (user = CN, groups = O). */
  clientCAFile: string;
}

export interface KubeletWebhookAuthentication {
  /** Authenticate bearer tokens through the TokenReview API. */
  enabled: boolean;
  /** How long TokenReview answers are cached. */
  cacheTTL: Duration;
}

export interface KubeletAnonymousAuthentication {
  /** Requests no other authenticator rejects run as system:anonymous. */
  enabled: boolean;
}

export interface KubeletAuthentication {
  x509: KubeletX509Authentication;
  webhook: KubeletWebhookAuthentication;
  anonymous: KubeletAnonymousAuthentication;
}

export interface KubeletWebhookAuthorization {
  cacheAuthorizedTTL: Duration;
  cacheUnauthorizedTTL: Duration;
}

export interface KubeletAuthorization {
  /** `AlwaysAllow` or `Webhook`; anything else fails at start-up, not in validation. */
  mode: string;
  webhook: KubeletWebhookAuthorization;
}

export interface MemorySwapConfiguration {
  /** "", `LimitedSwap` or `UnlimitedSwap` (needs gate NodeSwap). */
  swapBehavior: string;
}

export interface LoggingConfiguration {
  /** `text` or `json`. */
  format: string;
  /** Redact fields tagged as sensitive. */
  sanitization: boolean;
}

export interface MemoryReservation {
  numaNode: number;
  /** `memory` and `hugepages-<size>` amounts; Go encodes a nil map as `null`. */
  limits?: Record<string, Quantity>;
}

export interface KubeletConfiguration {
  enableServer: boolean;
  staticPodPath: string;
  syncFrequency: Duration;
  fileCheckFrequency: Duration;
  httpCheckFrequency: Duration;
  staticPodURL: string;
  staticPodURLHeader?: Record<string, string[]>;
  address: string;
  port: number;
  readOnlyPort: number;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  tlsCipherSuites?: string[];
  tlsMinVersion: string;
  rotateCertificates: boolean;
  serverTLSBootstrap: boolean;
  authentication: KubeletAuthentication;
  authorization: KubeletAuthorization;
  registryPullQPS: number;
  registryBurst: number;
  eventRecordQPS: number;
  eventBurst: number;
  enableDebuggingHandlers: boolean;
  enableContentionProfiling: boolean;
  healthzPort: number;
  healthzBindAddress: string;
  oomScoreAdj: number;
  clusterDomain: string;
  clusterDNS?: string[];
  streamingConnectionIdleTimeout: Duration;
  nodeStatusUpdateFrequency: Duration;
  nodeStatusReportFrequency: Duration;
  nodeLeaseDurationSeconds: number;
  imageMinimumGCAge: Duration;
  imageGCHighThresholdPercent: number;
  imageGCLowThresholdPercent: number;
  volumeStatsAggPeriod: Duration;
  kubeletCgroups: string;
  systemCgroups: string;
  cgroupRoot: string;
  cgroupsPerQOS: boolean;
  cgroupDriver: string;
  cpuManagerPolicy: string;
  cpuManagerPolicyOptions?: Record<string, string>;
  cpuManagerReconcilePeriod: Duration;
  memoryManagerPolicy: string;
  topologyManagerPolicy: string;
  topologyManagerScope: string;
  qosReserved?: Record<string, string>;
  runtimeRequestTimeout: Duration;
  hairpinMode: string;
  maxPods: number;
  podCIDR: string;
  /** int64 in Go; held as a number, so limited to ±(2^53-1) (decode rejects larger values). */
  podPidsLimit: number;
  resolvConf: string;
  runOnce: boolean;
  cpuCFSQuota: boolean;
  cpuCFSQuotaPeriod: Duration;
  nodeStatusMaxImages: number;
  /** int64 in Go; see podPidsLimit. */
  maxOpenFiles: number;
  contentType: string;
  kubeAPIQPS: number;
  kubeAPIBurst: number;
  serializeImagePulls: boolean;
  evictionHard?: Record<string, string>;
  evictionSoft?: Record<string, string>;
  evictionSoftGracePeriod?: Record<string, string>;
  evictionPressureTransitionPeriod: Duration;
  evictionMaxPodGracePeriod: number;
  evictionMinimumReclaim?: Record<string, string>;
  podsPerCore: number;
  enableControllerAttachDetach: boolean;
  protectKernelDefaults: boolean;
  makeIPTablesUtilChains: boolean;
  iptablesMasqueradeBit: number;
  iptablesDropBit: number;
  featureGates?: Record<string, boolean>;
  failSwapOn: boolean;
  memorySwap: MemorySwapConfiguration;
  containerLogMaxSize: string;
  containerLogMaxFiles: number;
  configMapAndSecretChangeDetectionStrategy: string;
  systemReserved?: Record<string, string>;
  kubeReserved?: Record<string, string>;
  reservedSystemCPUs: string;
  showHiddenMetricsForVersion: string;
  systemReservedCgroup: string;
  kubeReservedCgroup: string;
  enforceNodeAllocatable?: string[];
  allowedUnsafeSysctls?: string[];
  volumePluginDir: string;
  providerID: string;
  kernelMemcgNotification: boolean;
  logging: LoggingConfiguration;
  enableSystemLogHandler: boolean;
  shutdownGracePeriod: Duration;
  shutdownGracePeriodCriticalPods: Duration;
  reservedMemory?: MemoryReservation[];
  enableProfilingHandler: boolean;
  enableDebugFlagsHandler: boolean;
  seccompDefault: boolean;
  /** Stays a pointer in the kubelet's internal type, hence optional even after defaulting. */
  memoryThrottlingFactor?: number;
}

type Nested = 'authentication' | 'authorization' | 'memorySwap' | 'logging';

export interface PartialKubeletAuthentication {
  x509?: Partial<KubeletX509Authentication>;
  webhook?: Partial<KubeletWebhookAuthentication>;
  anonymous?: Partial<KubeletAnonymousAuthentication>;
}

export interface PartialKubeletAuthorization {
  mode?: string;
  webhook?: Partial<KubeletWebhookAuthorization>;
}

/** What a payload says, before defaulting: every field optional, nested objects partial too. */
export type PartialKubeletConfiguration = {
  [K in Exclude<keyof KubeletConfiguration, Nested>]?: KubeletConfiguration[K];
} & {
  authentication?: PartialKubeletAuthentication;
  authorization?: PartialKubeletAuthorization;
  memorySwap?: Partial<MemorySwapConfiguration>;
  logging?: Partial<LoggingConfiguration>;
};

/** A JSON-compatible value as produced by encodeToObject and configz. */
export type JSONValue = null | boolean | number | string | JSONValue[] | { [key: string]: JSONValue };
