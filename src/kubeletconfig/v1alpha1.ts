// kubeletconfig/v1alpha1, the KubeletConfiguration of the 1.8 alpha of dynamic kubelet config, read as
// kubelet.config.k8s.io/v1beta1: the document tree is converted field by field before the v1beta1 decoder sees it,
// so the usual typed decode, defaults and validation follow. Fields that were renamed are moved under their v1beta1
// names; fields 1.8 wrote as one string (eviction thresholds, feature gates, the manifest URL header) become the maps
// v1beta1 has; fields v1beta1 dropped, and fields v1alpha1 never had, are left out with a warning (1.8's decoder was
// lenient too).
// Pure: a tree in, a tree and warnings out.

import type { JNode } from './text.js';

export const V1ALPHA1_GROUP = 'kubeletconfig';
export const V1ALPHA1_VERSION = 'v1alpha1';

export interface ConversionWarning {
  readonly code: 'DroppedField' | 'UnknownField';
  readonly path: string;
  readonly message: string;
}

/** v1alpha1 names that v1beta1 spells differently. */
const RENAMED: ReadonlyMap<string, string> = new Map([
  ['podManifestPath', 'staticPodPath'],
  ['manifestURL', 'staticPodURL'],
  ['manifestURLHeader', 'staticPodURLHeader'],
  ['experimentalQOSReserved', 'qosReserved'],
]);

/**
 * Every field the v1alpha1 KubeletConfiguration had, from its 1.8 shape to its last (pkg/kubelet/apis/kubeletconfig/
 * v1alpha1/types.go). Those v1beta1 also has are kept; the others have no counterpart and are warned about.
 */
const V1ALPHA1_FIELDS: ReadonlySet<string> = new Set([
  'configTrialDuration',
  'crashLoopThreshold',
  'podManifestPath',
  'syncFrequency',
  'fileCheckFrequency',
  'httpCheckFrequency',
  'manifestURL',
  'manifestURLHeader',
  'enableServer',
  'address',
  'port',
  'readOnlyPort',
  'tlsCertFile',
  'tlsPrivateKeyFile',
  'tlsCipherSuites',
  'tlsMinVersion',
  'authentication',
  'authorization',
  'seccompProfileRoot',
  'allowPrivileged',
  'hostNetworkSources',
  'hostPIDSources',
  'hostIPCSources',
  'registryPullQPS',
  'registryBurst',
  'eventRecordQPS',
  'eventBurst',
  'enableDebuggingHandlers',
  'enableContentionProfiling',
  'minimumGCAge',
  'maxPerPodContainerCount',
  'maxContainerCount',
  'cAdvisorPort',
  'healthzPort',
  'healthzBindAddress',
  'oomScoreAdj',
  'registerNode',
  'clusterDomain',
  'masterServiceNamespace',
  'clusterDNS',
  'streamingConnectionIdleTimeout',
  'nodeStatusUpdateFrequency',
  'imageMinimumGCAge',
  'imageGCHighThresholdPercent',
  'imageGCLowThresholdPercent',
  'volumeStatsAggPeriod',
  'volumePluginDir',
  'kubeletCgroups',
  'runtimeCgroups',
  'systemCgroups',
  'cgroupRoot',
  'cgroupsPerQOS',
  'cgroupDriver',
  'cpuManagerPolicy',
  'cpuManagerReconcilePeriod',
  'containerRuntime',
  'remoteRuntimeEndpoint',
  'remoteImageEndpoint',
  'runtimeRequestTimeout',
  'experimentalMounterPath',
  'lockFilePath',
  'exitOnLockContention',
  'hairpinMode',
  'maxPods',
  'podCIDR',
  'resolvConf',
  'cpuCFSQuota',
  'containerized',
  'maxOpenFiles',
  'registerSchedulable',
  'registerWithTaints',
  'contentType',
  'kubeAPIQPS',
  'kubeAPIBurst',
  'serializeImagePulls',
  'nodeLabels',
  'nonMasqueradeCIDR',
  'enableCustomMetrics',
  'evictionHard',
  'evictionSoft',
  'evictionSoftGracePeriod',
  'evictionPressureTransitionPeriod',
  'evictionMaxPodGracePeriod',
  'evictionMinimumReclaim',
  'experimentalKernelMemcgNotification',
  'podsPerCore',
  'enableControllerAttachDetach',
  'experimentalQOSReserved',
  'protectKernelDefaults',
  'makeIPTablesUtilChains',
  'iptablesMasqueradeBit',
  'iptablesDropBit',
  'allowedUnsafeSysctls',
  'featureGates',
  'failSwapOn',
  'experimentalCheckNodeCapabilitiesBeforeMount',
  'keepTerminatedPodVolumes',
  'systemReserved',
  'kubeReserved',
  'systemReservedCgroup',
  'kubeReservedCgroup',
  'enforceNodeAllocatable',
  'experimentalNodeAllocatableIgnoreEvictionThreshold',
]);

/** 1.8 wrote these as `signal<quantity,…` or `signal=value,…`; v1beta1 has maps. */
const THRESHOLD_STRINGS: ReadonlyMap<string, '<' | '='> = new Map([
  ['evictionHard', '<'],
  ['evictionSoft', '<'],
  ['evictionSoftGracePeriod', '='],
  ['evictionMinimumReclaim', '='],
]);

function str(v: string): JNode {
  return { t: 'str', v };
}

/** `a<1,b<2` (or `a=1,b=2`) as the map v1beta1 holds; a piece without the operator keeps the whole piece as key. */
function splitPairs(text: string, op: '<' | '='): JNode {
  const entries: (readonly [string, JNode])[] = [];
  for (const piece of text.split(',')) {
    const p = piece.trim();
    if (p === '') continue;
    const i = p.indexOf(op);
    entries.push(i < 0 ? [p, str('')] : [p.slice(0, i).trim(), str(p.slice(i + 1).trim())]);
  }
  return { t: 'obj', entries };
}

/** `A=true,B=false` (1.8's feature gate string) as a map of booleans; a value that is no bool stays a string. */
function featureGateMap(text: string): JNode {
  const entries: (readonly [string, JNode])[] = [];
  for (const piece of text.split(',')) {
    const p = piece.trim();
    if (p === '') continue;
    const i = p.indexOf('=');
    const key = (i < 0 ? p : p.slice(0, i)).trim();
    const raw = i < 0 ? '' : p.slice(i + 1).trim();
    const lower = raw.toLowerCase();
    entries.push([key, lower === 'true' || lower === 'false' ? { t: 'bool', v: lower === 'true' } : str(raw)]);
  }
  return { t: 'obj', entries };
}

/** 1.8's manifestURLHeader, `key:value[,key:value…]`, as v1beta1's map of header names to values. */
function headerMap(text: string): JNode {
  const values = new Map<string, JNode[]>();
  for (const piece of text.split(',')) {
    const i = piece.indexOf(':');
    if (piece.trim() === '') continue;
    const key = (i < 0 ? piece : piece.slice(0, i)).trim();
    values.set(key, [...(values.get(key) ?? []), str(i < 0 ? '' : piece.slice(i + 1).trim())]);
  }
  return { t: 'obj', entries: [...values].map(([k, items]) => [k, { t: 'arr', items }] as const) };
}

function convertValue(key: string, value: JNode): JNode {
  if (value.t !== 'str') return value;
  const op = THRESHOLD_STRINGS.get(key);
  if (op !== undefined) return splitPairs(value.v, op);
  if (key === 'featureGates') return featureGateMap(value.v);
  if (key === 'manifestURLHeader') return headerMap(value.v);
  return value;
}

function convertField(
  key: string,
  value: JNode,
  v1beta1Fields: ReadonlySet<string>,
  warnings: ConversionWarning[],
): readonly [string, JNode] | undefined {
  if (!V1ALPHA1_FIELDS.has(key)) {
    warnings.push({
      code: 'UnknownField',
      path: key,
      message: `unknown field ${JSON.stringify(key)} in kubeletconfig/v1alpha1 is ignored`,
    });
    return undefined;
  }
  const name = RENAMED.get(key) ?? key;
  if (v1beta1Fields.has(name)) return [name, convertValue(key, value)];
  warnings.push({
    code: 'DroppedField',
    path: key,
    message: `field ${JSON.stringify(key)} of kubeletconfig/v1alpha1 has no kubelet.config.k8s.io/v1beta1 counterpart and is ignored`,
  });
  return undefined;
}

/**
 * The v1beta1 document for a v1alpha1 one: kind and apiVersion rewritten, every top-level field converted. Nested
 * structs (authentication, authorization) kept their shape, so the v1beta1 decoder checks them as usual.
 */
export function convertV1alpha1(
  tree: JNode,
  apiVersion: string,
  v1beta1Fields: ReadonlySet<string>,
): { tree: JNode; warnings: ConversionWarning[] } {
  const warnings: ConversionWarning[] = [];
  if (tree.t !== 'obj') return { tree, warnings };
  const entries: (readonly [string, JNode])[] = [];
  for (const [key, value] of tree.entries) {
    if (key === 'kind') entries.push([key, value]);
    else if (key === 'apiVersion') entries.push([key, str(apiVersion)]);
    else {
      const converted = convertField(key, value, v1beta1Fields, warnings);
      if (converted) entries.push(converted);
    }
  }
  return { tree: { t: 'obj', entries }, warnings };
}
