// kubeletconfig/v1alpha1, the KubeletConfiguration of the 1.8 alpha of dynamic kubelet config, read as
// kubelet.config.k8s.io/v1beta1: the document tree is converted field by field before the v1beta1 decoder sees it,
// so the usual typed decode, defaults and validation follow. Fields that were renamed are moved under their v1beta1
// names; fields 1.8 wrote as one string (eviction thresholds, feature gates) become the maps v1beta1 has; fields
// v1beta1 dropped, and fields v1alpha1 never had, are left out with a warning (1.8's decoder was lenient too).
// Pure: a tree in, a tree and warnings out.

import type { JNode } from './text.js';

export const V1ALPHA1_GROUP = 'kubeletconfig';
export const V1ALPHA1_VERSION = 'v1alpha1';

export interface ConversionWarning {
  readonly code: 'DroppedField' | 'UnknownField';
  readonly path: string;
  readonly message: string;
}

/** v1alpha1 names that v1beta1 spells differently (the static pod source was renamed in 1.10). */
const RENAMED: ReadonlyMap<string, string> = new Map([
  ['podManifestPath', 'staticPodPath'],
  ['manifestURL', 'staticPodURL'],
  ['manifestURLHeader', 'staticPodURLHeader'],
]);

/** Fields of v1alpha1 that v1beta1 kept under the same name and shape. */
const KEPT = new Set([
  'syncFrequency', 'fileCheckFrequency', 'httpCheckFrequency', 'enableServer', 'address', 'port', 'readOnlyPort',
  'tlsCertFile', 'tlsPrivateKeyFile', 'tlsCipherSuites', 'tlsMinVersion', 'authentication', 'authorization',
  'registryPullQPS', 'registryBurst', 'eventRecordQPS', 'eventBurst', 'enableDebuggingHandlers',
  'enableContentionProfiling', 'healthzPort', 'healthzBindAddress', 'oomScoreAdj', 'clusterDomain', 'clusterDNS',
  'streamingConnectionIdleTimeout', 'nodeStatusUpdateFrequency', 'imageMinimumGCAge', 'imageGCHighThresholdPercent',
  'imageGCLowThresholdPercent', 'volumeStatsAggPeriod', 'kubeletCgroups', 'systemCgroups', 'cgroupRoot',
  'cgroupsPerQOS', 'cgroupDriver', 'cpuManagerPolicy', 'cpuManagerReconcilePeriod', 'runtimeRequestTimeout',
  'hairpinMode', 'maxPods', 'podCIDR', 'resolvConf', 'cpuCFSQuota', 'maxOpenFiles', 'contentType', 'kubeAPIQPS',
  'kubeAPIBurst', 'serializeImagePulls', 'evictionPressureTransitionPeriod', 'evictionMaxPodGracePeriod',
  'podsPerCore', 'enableControllerAttachDetach', 'protectKernelDefaults', 'makeIPTablesUtilChains',
  'iptablesMasqueradeBit', 'iptablesDropBit', 'failSwapOn', 'systemReserved', 'kubeReserved', 'systemReservedCgroup',
  'kubeReservedCgroup', 'enforceNodeAllocatable',
]);

/** 1.8 wrote these as `signal<quantity,…` or `signal=value,…`; v1beta1 has maps. */
const THRESHOLD_STRINGS: ReadonlyMap<string, '<' | '='> = new Map([
  ['evictionHard', '<'],
  ['evictionSoft', '<'],
  ['evictionSoftGracePeriod', '='],
  ['evictionMinimumReclaim', '='],
]);

/** Fields of v1alpha1 with no v1beta1 counterpart (dropped when v1beta1 was cut, or moved to flags). */
const DROPPED = new Set([
  'configTrialDuration', 'crashLoopThreshold', 'seccompProfileRoot', 'allowPrivileged', 'hostNetworkSources',
  'hostPIDSources', 'hostIPCSources', 'cAdvisorPort', 'containerRuntime', 'remoteRuntimeEndpoint',
  'remoteImageEndpoint', 'experimentalMounterPath', 'lockFilePath', 'exitOnLockContention', 'dockerDisableSharedPID',
  'volumePluginDir', 'runtimeCgroups', 'allowedUnsafeSysctls', 'experimentalNodeAllocatableIgnoreEvictionThreshold',
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

function convertField(key: string, value: JNode, warnings: ConversionWarning[]): readonly [string, JNode] | undefined {
  const renamed = RENAMED.get(key);
  if (renamed !== undefined) return [renamed, value];
  if (KEPT.has(key)) return [key, value];
  const op = THRESHOLD_STRINGS.get(key);
  if (op !== undefined) return [key, value.t === 'str' ? splitPairs(value.v, op) : value];
  if (key === 'featureGates') return [key, value.t === 'str' ? featureGateMap(value.v) : value];
  if (DROPPED.has(key)) {
    warnings.push({ code: 'DroppedField', path: key, message: `field ${JSON.stringify(key)} of kubeletconfig/v1alpha1 has no kubelet.config.k8s.io/v1beta1 counterpart and is ignored` });
    return undefined;
  }
  warnings.push({ code: 'UnknownField', path: key, message: `unknown field ${JSON.stringify(key)} in kubeletconfig/v1alpha1 is ignored` });
  return undefined;
}

/**
 * The v1beta1 document for a v1alpha1 one: kind and apiVersion rewritten, every top-level field converted. Nested
 * structs (authentication, authorization) kept their shape, so the v1beta1 decoder checks them as usual.
 */
export function convertV1alpha1(tree: JNode, apiVersion: string): { tree: JNode; warnings: ConversionWarning[] } {
  const warnings: ConversionWarning[] = [];
  if (tree.t !== 'obj') return { tree, warnings };
  const entries: (readonly [string, JNode])[] = [];
  for (const [key, value] of tree.entries) {
    if (key === 'kind') entries.push([key, value]);
    else if (key === 'apiVersion') entries.push([key, str(apiVersion)]);
    else {
      const converted = convertField(key, value, warnings);
      if (converted) entries.push(converted);
    }
  }
  return { tree: { t: 'obj', entries }, warnings };
}
