// The KubeletConfiguration codec: the v1beta1 field schema, decoding (strict, then lenient with warnings),
// SetDefaults, loading a payload (decode + defaults + relative paths) and encoding back to YAML/JSON and
// /configz. One module because the kubelet's own codec is one pipeline, and because every module file costs
// start-up time on each agent restart.

import { DecodeError, DurationError, EncodeError, ErrorCodes, QuantityError } from './errors.js';
import {
  childPath,
  firstChar,
  type JNode,
  JSONSyntaxError,
  jsonTypeName,
  parseJSON,
  parseYAML,
  writeJSON,
  writeYAML,
  YAMLSyntaxError,
} from './text.js';
import { suggestName } from './suggest.js';
import { convertV1alpha1, V1ALPHA1_GROUP, V1ALPHA1_VERSION } from './v1alpha1.js';
import type { JSONValue, KubeletConfiguration, MemoryReservation, PartialKubeletConfiguration } from './types.js';
import { compareGoStrings, Duration, goJSONFloat, goQuote, LEADING_GO_SPACE, Quantity, setOwn } from './values.js';
import { errorMessage } from '../util/errors.js';

// =========================================================================================================
// The field schema of v1beta1.KubeletConfiguration: JSON name, Go field name, value kind and the two Go
// facts that change behaviour — whether the field is a pointer (null means nil, an explicit zero survives
// defaulting and is encoded) and whether its tag lacks omitempty. Decode and encode are driven by this one
// table, in Go struct order, so the two cannot disagree about a field.

export const GROUP = 'kubelet.config.k8s.io';
export const VERSION = 'v1beta1';
export const API_VERSION = `${GROUP}/${VERSION}`;
export const KIND = 'KubeletConfiguration';

export type FieldKind =
  | 'bool'
  | 'int32'
  | 'int64'
  | 'float64'
  | 'string'
  | 'duration'
  | 'strings'
  | 'stringMap'
  | 'stringsMap'
  | 'boolMap'
  | 'quantityMap'
  | 'struct'
  | 'reservedMemory'
  // Kinds only later minors' fields have (src/kubeletconfig/versions.ts builds their schemas from the tables):
  | 'uint32'
  | 'int32s'
  | 'structList'
  /** Kept as the JSON it was written as (TimeOrMetaDuration, QuantityValue, metav1.Time, vmodule lists). */
  | 'json';

export interface FieldSpec {
  readonly json: string;
  readonly go: string;
  readonly kind: FieldKind;
  readonly ptr: boolean;
  /** json tag without omitempty: emitted even when zero or nil. */
  readonly always: boolean;
  readonly struct?: StructSpec;
}

/** Builds a field of a schema (versions.ts builds later minors' schemas with it). */
export function fieldSpec(
  json: string,
  go: string,
  kind: FieldKind,
  o: { ptr?: boolean; always?: boolean; struct?: StructSpec } = {},
): FieldSpec {
  return f(json, go, kind, o);
}

/** Builds a struct of a schema. */
export function structSpec(goType: string, fields: FieldSpec[]): StructSpec {
  return struct(goType, fields);
}

export interface StructSpec {
  /** Go type as json-iterator names it in error paths, e.g. `v1beta1.KubeletConfiguration`. */
  readonly goType: string;
  readonly fields: readonly FieldSpec[];
  readonly byJson: ReadonlyMap<string, FieldSpec>;
}

interface Opts {
  ptr?: boolean;
  always?: boolean;
  struct?: StructSpec;
}

function f(json: string, go: string, kind: FieldKind, o: Opts = {}): FieldSpec {
  const spec: FieldSpec = { json, go, kind, ptr: o.ptr ?? false, always: o.always ?? false };
  return o.struct ? { ...spec, struct: o.struct } : spec;
}

function struct(goType: string, fields: FieldSpec[]): StructSpec {
  return { goType, fields, byJson: new Map(fields.map((x) => [x.json, x])) };
}

const PTR = { ptr: true };

const authenticationSpec = struct('v1beta1.KubeletAuthentication', [
  f('x509', 'X509', 'struct', {
    struct: struct('v1beta1.KubeletX509Authentication', [f('clientCAFile', 'ClientCAFile', 'string')]),
  }),
  f('webhook', 'Webhook', 'struct', {
    struct: struct('v1beta1.KubeletWebhookAuthentication', [
      f('enabled', 'Enabled', 'bool', PTR),
      f('cacheTTL', 'CacheTTL', 'duration'),
    ]),
  }),
  f('anonymous', 'Anonymous', 'struct', {
    struct: struct('v1beta1.KubeletAnonymousAuthentication', [f('enabled', 'Enabled', 'bool', PTR)]),
  }),
]);

const authorizationSpec = struct('v1beta1.KubeletAuthorization', [
  f('mode', 'Mode', 'string'),
  f('webhook', 'Webhook', 'struct', {
    struct: struct('v1beta1.KubeletWebhookAuthorization', [
      f('cacheAuthorizedTTL', 'CacheAuthorizedTTL', 'duration'),
      f('cacheUnauthorizedTTL', 'CacheUnauthorizedTTL', 'duration'),
    ]),
  }),
]);

const memoryReservationSpec = struct('v1beta1.MemoryReservation', [
  f('numaNode', 'NumaNode', 'int32', { always: true }),
  f('limits', 'Limits', 'quantityMap', { always: true }),
]);

export const kubeletConfigurationSpec = struct('v1beta1.KubeletConfiguration', [
  f('enableServer', 'EnableServer', 'bool', PTR),
  f('staticPodPath', 'StaticPodPath', 'string'),
  f('syncFrequency', 'SyncFrequency', 'duration'),
  f('fileCheckFrequency', 'FileCheckFrequency', 'duration'),
  f('httpCheckFrequency', 'HTTPCheckFrequency', 'duration'),
  f('staticPodURL', 'StaticPodURL', 'string'),
  f('staticPodURLHeader', 'StaticPodURLHeader', 'stringsMap'),
  f('address', 'Address', 'string'),
  f('port', 'Port', 'int32'),
  f('readOnlyPort', 'ReadOnlyPort', 'int32'),
  f('tlsCertFile', 'TLSCertFile', 'string'),
  f('tlsPrivateKeyFile', 'TLSPrivateKeyFile', 'string'),
  f('tlsCipherSuites', 'TLSCipherSuites', 'strings'),
  f('tlsMinVersion', 'TLSMinVersion', 'string'),
  f('rotateCertificates', 'RotateCertificates', 'bool'),
  f('serverTLSBootstrap', 'ServerTLSBootstrap', 'bool'),
  f('authentication', 'Authentication', 'struct', { struct: authenticationSpec, always: true }),
  f('authorization', 'Authorization', 'struct', { struct: authorizationSpec, always: true }),
  f('registryPullQPS', 'RegistryPullQPS', 'int32', PTR),
  f('registryBurst', 'RegistryBurst', 'int32'),
  f('eventRecordQPS', 'EventRecordQPS', 'int32', PTR),
  f('eventBurst', 'EventBurst', 'int32'),
  f('enableDebuggingHandlers', 'EnableDebuggingHandlers', 'bool', PTR),
  f('enableContentionProfiling', 'EnableContentionProfiling', 'bool'),
  f('healthzPort', 'HealthzPort', 'int32', PTR),
  f('healthzBindAddress', 'HealthzBindAddress', 'string'),
  f('oomScoreAdj', 'OOMScoreAdj', 'int32', PTR),
  f('clusterDomain', 'ClusterDomain', 'string'),
  f('clusterDNS', 'ClusterDNS', 'strings'),
  f('streamingConnectionIdleTimeout', 'StreamingConnectionIdleTimeout', 'duration'),
  f('nodeStatusUpdateFrequency', 'NodeStatusUpdateFrequency', 'duration'),
  f('nodeStatusReportFrequency', 'NodeStatusReportFrequency', 'duration'),
  f('nodeLeaseDurationSeconds', 'NodeLeaseDurationSeconds', 'int32'),
  f('imageMinimumGCAge', 'ImageMinimumGCAge', 'duration'),
  f('imageGCHighThresholdPercent', 'ImageGCHighThresholdPercent', 'int32', PTR),
  f('imageGCLowThresholdPercent', 'ImageGCLowThresholdPercent', 'int32', PTR),
  f('volumeStatsAggPeriod', 'VolumeStatsAggPeriod', 'duration'),
  f('kubeletCgroups', 'KubeletCgroups', 'string'),
  f('systemCgroups', 'SystemCgroups', 'string'),
  f('cgroupRoot', 'CgroupRoot', 'string'),
  f('cgroupsPerQOS', 'CgroupsPerQOS', 'bool', PTR),
  f('cgroupDriver', 'CgroupDriver', 'string'),
  f('cpuManagerPolicy', 'CPUManagerPolicy', 'string'),
  f('cpuManagerPolicyOptions', 'CPUManagerPolicyOptions', 'stringMap'),
  f('cpuManagerReconcilePeriod', 'CPUManagerReconcilePeriod', 'duration'),
  f('memoryManagerPolicy', 'MemoryManagerPolicy', 'string'),
  f('topologyManagerPolicy', 'TopologyManagerPolicy', 'string'),
  f('topologyManagerScope', 'TopologyManagerScope', 'string'),
  f('qosReserved', 'QOSReserved', 'stringMap'),
  f('runtimeRequestTimeout', 'RuntimeRequestTimeout', 'duration'),
  f('hairpinMode', 'HairpinMode', 'string'),
  f('maxPods', 'MaxPods', 'int32'),
  f('podCIDR', 'PodCIDR', 'string'),
  f('podPidsLimit', 'PodPidsLimit', 'int64', PTR),
  f('resolvConf', 'ResolverConfig', 'string'),
  f('runOnce', 'RunOnce', 'bool'),
  f('cpuCFSQuota', 'CPUCFSQuota', 'bool', PTR),
  f('cpuCFSQuotaPeriod', 'CPUCFSQuotaPeriod', 'duration', PTR),
  f('nodeStatusMaxImages', 'NodeStatusMaxImages', 'int32', PTR),
  f('maxOpenFiles', 'MaxOpenFiles', 'int64'),
  f('contentType', 'ContentType', 'string'),
  f('kubeAPIQPS', 'KubeAPIQPS', 'int32', PTR),
  f('kubeAPIBurst', 'KubeAPIBurst', 'int32'),
  f('serializeImagePulls', 'SerializeImagePulls', 'bool', PTR),
  f('evictionHard', 'EvictionHard', 'stringMap'),
  f('evictionSoft', 'EvictionSoft', 'stringMap'),
  f('evictionSoftGracePeriod', 'EvictionSoftGracePeriod', 'stringMap'),
  f('evictionPressureTransitionPeriod', 'EvictionPressureTransitionPeriod', 'duration'),
  f('evictionMaxPodGracePeriod', 'EvictionMaxPodGracePeriod', 'int32'),
  f('evictionMinimumReclaim', 'EvictionMinimumReclaim', 'stringMap'),
  f('podsPerCore', 'PodsPerCore', 'int32'),
  f('enableControllerAttachDetach', 'EnableControllerAttachDetach', 'bool', PTR),
  f('protectKernelDefaults', 'ProtectKernelDefaults', 'bool'),
  f('makeIPTablesUtilChains', 'MakeIPTablesUtilChains', 'bool', PTR),
  f('iptablesMasqueradeBit', 'IPTablesMasqueradeBit', 'int32', PTR),
  f('iptablesDropBit', 'IPTablesDropBit', 'int32', PTR),
  f('featureGates', 'FeatureGates', 'boolMap'),
  f('failSwapOn', 'FailSwapOn', 'bool', PTR),
  f('memorySwap', 'MemorySwap', 'struct', {
    struct: struct('v1beta1.MemorySwapConfiguration', [f('swapBehavior', 'SwapBehavior', 'string')]),
  }),
  f('containerLogMaxSize', 'ContainerLogMaxSize', 'string'),
  f('containerLogMaxFiles', 'ContainerLogMaxFiles', 'int32', PTR),
  f('configMapAndSecretChangeDetectionStrategy', 'ConfigMapAndSecretChangeDetectionStrategy', 'string'),
  f('systemReserved', 'SystemReserved', 'stringMap'),
  f('kubeReserved', 'KubeReserved', 'stringMap'),
  f('reservedSystemCPUs', 'ReservedSystemCPUs', 'string'),
  f('showHiddenMetricsForVersion', 'ShowHiddenMetricsForVersion', 'string'),
  f('systemReservedCgroup', 'SystemReservedCgroup', 'string'),
  f('kubeReservedCgroup', 'KubeReservedCgroup', 'string'),
  f('enforceNodeAllocatable', 'EnforceNodeAllocatable', 'strings'),
  f('allowedUnsafeSysctls', 'AllowedUnsafeSysctls', 'strings'),
  f('volumePluginDir', 'VolumePluginDir', 'string'),
  f('providerID', 'ProviderID', 'string'),
  f('kernelMemcgNotification', 'KernelMemcgNotification', 'bool'),
  f('logging', 'Logging', 'struct', {
    struct: struct('v1alpha1.LoggingConfiguration', [
      f('format', 'Format', 'string'),
      f('sanitization', 'Sanitization', 'bool'),
    ]),
  }),
  f('enableSystemLogHandler', 'EnableSystemLogHandler', 'bool', PTR),
  f('shutdownGracePeriod', 'ShutdownGracePeriod', 'duration'),
  f('shutdownGracePeriodCriticalPods', 'ShutdownGracePeriodCriticalPods', 'duration'),
  f('reservedMemory', 'ReservedMemory', 'reservedMemory', { struct: memoryReservationSpec }),
  f('enableProfilingHandler', 'EnableProfilingHandler', 'bool', PTR),
  f('enableDebugFlagsHandler', 'EnableDebugFlagsHandler', 'bool', PTR),
  f('seccompDefault', 'SeccompDefault', 'bool', PTR),
  f('memoryThrottlingFactor', 'MemoryThrottlingFactor', 'float64', PTR),
]);

/** JSON names of all 102 fields, in Go struct order. */
export const FIELD_NAMES: readonly string[] = kubeletConfigurationSpec.fields.map((x) => x.json);
const V1BETA1_FIELDS: ReadonlySet<string> = new Set(FIELD_NAMES);

// =========================================================================================================
// Decoding a KubeletConfiguration payload (a --config file or a checkpointed ConfigMap key) exactly as the
// 1.22 kubelet's codec does: JSON when the text starts with `{`, YAML otherwise; kind and apiVersion sniffed
// case-insensitively first and checked against the scheme with apimachinery's messages; then a
// case-sensitive typed decode whose type errors are fatal. Unknown and duplicate fields only fail the
// kubelet's strict pass, after which it decodes leniently and logs — so here they become warnings.

export interface DecodeWarning {
  /** DroppedField: a kubeletconfig/v1alpha1 field v1beta1 no longer has. */
  readonly code: 'UnknownField' | 'DuplicateField' | 'DroppedField';
  /** Dotted JSON path, e.g. `authentication.webhook.foo` or `reservedMemory[0].limits`. */
  readonly path: string;
  readonly message: string;
  /** For an unknown field: the known field (dotted path) it most likely meant. */
  readonly suggestion?: string;
}

export interface DecodeResult {
  config: PartialKubeletConfiguration;
  warnings: DecodeWarning[];
}

export interface DecodeOptions {
  /** Names the data (a file, `cm/NS/NAME:KEY`) in the messages that would otherwise have to quote it. */
  source?: string;
  /**
   * Leave out object members whose value is null, at any depth, as a JSON merge patch does with a member its
   * target lacks: how the kubelet reads a --config-dir drop-in, where a null neither sets nor deletes anything.
   */
  dropNulls?: boolean;
}

function withoutNulls(node: JNode): JNode {
  if (node.t === 'arr') return { ...node, items: node.items.map(withoutNulls) };
  if (node.t !== 'obj') return node;
  return {
    ...node,
    entries: node.entries.filter(([, v]) => v.t !== 'null').map(([k, v]) => [k, withoutNulls(v)] as const),
  };
}

/** The scheme name apimachinery derives from the call site of runtime.NewScheme() in the kubelet. */
const SCHEME_NAME = 'pkg/kubelet/apis/config/scheme/scheme.go:32';
const SNIFF_STRUCT =
  'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

class TypeErr extends Error {}

/** encoding/json's case folding for the kind/apiVersion sniff, including its Kelvin-sign and long-s rules. */
function foldKey(k: string): string {
  return k
    .replace(/\u212a/g, 'k')
    .replace(/\u017f/g, 's')
    .replace(/[A-Z]/g, (c) => c.toLowerCase());
}

function sniff(node: JNode): { kind: string; apiVersion: string } {
  let kind = '';
  let apiVersion = '';
  if (node.t === 'null') return { kind, apiVersion };
  if (node.t !== 'obj') {
    throw new DecodeError(
      ErrorCodes.Syntax,
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonTypeName(node)} into Go value of type ${SNIFF_STRUCT}`,
    );
  }
  for (const [k, v] of node.entries) {
    // Folding keeps the length, so only 4- and 10-character keys can be kind or apiVersion.
    if (k.length !== 4 && k.length !== 10) continue;
    const folded = foldKey(k);
    const field = folded === 'kind' ? 'kind' : folded === 'apiversion' ? 'apiVersion' : undefined;
    if (!field || v.t === 'null') continue;
    if (v.t !== 'str') {
      throw new DecodeError(
        ErrorCodes.Syntax,
        `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonTypeName(v)} into Go struct field .${field} of type string`,
      );
    }
    if (field === 'kind') kind = v.v;
    else apiVersion = v.v;
  }
  return { kind, apiVersion };
}

// A decode error never quotes the document: it may be any ConfigMap's data, and the error reaches events, rollout
// conditions and logs that people who may not read that ConfigMap read. Its declared kind and apiVersion are named
// only when they have the shape of a Kubernetes type (`Pod`, `apps/v1`) — the answer to "what did I point at?" —
// and otherwise stand as NOT_SHOWN.
const KIND_SHAPE = /^[A-Z][A-Za-z0-9]{0,62}$/;
const API_VERSION_SHAPE =
  /^(?:[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?)*\/)?v[0-9]+(?:(?:alpha|beta)[0-9]+)?$/;
const NOT_SHOWN = '(not shown)';

function shownTypeMeta(value: string, shape: RegExp): string {
  return shape.test(value) ? goQuote(value) : NOT_SHOWN;
}

function parseGroupVersion(gv: string): { group: string; version: string } {
  if (gv === '' || gv === '/') return { group: '', version: '' };
  const slashes = gv.split('/').length - 1;
  if (slashes === 0) return { group: '', version: gv };
  if (slashes === 1) {
    const i = gv.indexOf('/');
    return { group: gv.slice(0, i), version: gv.slice(i + 1) };
  }
  throw new DecodeError(
    ErrorCodes.BadGroupVersion,
    `unexpected GroupVersion string: ${shownTypeMeta(gv, API_VERSION_SHAPE)}`,
  );
}

// ---------------------------------------------------------------------------------------------------------
// Typed decode. Error texts follow json-iterator's shape (`<Type>.<Field>: <reader>: <detail>`), without its
// byte-offset context suffix and without the value that failed: the field path says where, and a config may come
// from a ConfigMap that whoever reads the error (an event, a rollout's condition, a log) may not read.

const MAX = { 32: (1n << 31n) - 1n, 64: (1n << 63n) - 1n } as const;

function decodeInt(node: JNode, bits: 32 | 64, unsigned = false): number {
  const reader = bits === 32 ? 'readUint32' : 'readUint64';
  if (node.t !== 'num') throw new TypeErr(`${reader}: unexpected character: \ufffd`);
  const m = /^-?\d+/.exec(node.raw)!;
  if (m[0].length !== node.raw.length) throw new TypeErr(`${reader}: unexpected character: ${node.raw[m[0].length]}`);
  const v = BigInt(node.raw);
  if (unsigned && (v < 0n || v > (1n << 32n) - 1n)) throw new TypeErr(`${reader}: overflow`);
  if (v > MAX[bits] || v < -MAX[bits] - 1n) throw new TypeErr(`${reader}: overflow`);
  if (bits === 64 && (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER))) {
    throw new TypeErr(`${reader}: the value is beyond the exactly representable range ±(2^53-1)`);
  }
  return Number(v);
}

function decodeString(node: JNode): string {
  if (node.t === 'null') return '';
  if (node.t !== 'str') throw new TypeErr(`ReadString: expects " or n, but found ${firstChar(node)}`);
  return node.v;
}

function decodeBool(node: JNode): boolean {
  if (node.t === 'null') return false;
  if (node.t !== 'bool') throw new TypeErr(`ReadBool: expect t or f, but found ${firstChar(node)}`);
  return node.v;
}

function decodeDuration(node: JNode): Duration {
  const text = node.t === 'null' ? '' : node.t === 'str' ? node.v : undefined;
  if (text === undefined) {
    throw new TypeErr(`unmarshalerDecoder: json: cannot unmarshal ${jsonTypeName(node)} into Go value of type string`);
  }
  try {
    return Duration.parse(text);
  } catch (e) {
    if (e instanceof DurationError) throw new TypeErr(`unmarshalerDecoder: ${e.unquoted}`);
    throw e;
  }
}

function decodeQuantity(node: JNode): Quantity {
  if (node.t === 'null') return Quantity.zero();
  const token =
    node.t === 'num'
      ? node.raw
      : node.t === 'str'
        ? `"${node.raw ?? node.v}"`
        : node.t === 'bool'
          ? String(node.v)
          : firstChar(node);
  try {
    return Quantity.fromJSONToken(token);
  } catch (e) {
    if (e instanceof QuantityError) throw new TypeErr(`unmarshalerDecoder: ${e.message}`);
    throw e;
  }
}

function decodeList<T>(node: JNode, goType: string, item: (n: JNode, i: number) => T): T[] {
  try {
    if (node.t !== 'arr') throw new TypeErr(`ReadArrayCB: expect [ or n, but found ${firstChar(node)}`);
    return node.items.map(item);
  } catch (e) {
    if (e instanceof TypeErr) throw new TypeErr(`${goType}: ${e.message}`);
    throw e;
  }
}

function decodeMap<T>(node: JNode, existing: Record<string, T> | undefined, item: (n: JNode) => T): Record<string, T> {
  if (node.t !== 'obj') throw new TypeErr(`ReadMapCB: expect { or n, but found ${firstChar(node)}`);
  // A repeated JSON key decodes into the map already there, as Go does.
  const out: Record<string, T> = existing ?? {};
  for (const [k, v] of node.entries) setOwn(out, k, item(v));
  return out;
}

type Target = Record<string, unknown>;

/** The warning for a key the schema does not know, naming the field it most likely meant. */
function unknownField(spec: StructSpec, path: string, key: string, top: boolean): DecodeWarning {
  const p = childPath(path, key);
  const known = path === '' && top ? ['kind', 'apiVersion', ...spec.byJson.keys()] : spec.byJson.keys();
  const meant = suggestName(key, known);
  if (meant === undefined) return { code: 'UnknownField', path: p, message: `unknown field ${goQuote(p)}` };
  const suggestion = childPath(path, meant);
  return {
    code: 'UnknownField',
    path: p,
    message: `unknown field ${goQuote(p)}, did you mean ${goQuote(suggestion)}?`,
    suggestion,
  };
}

function decodeStruct(
  spec: StructSpec,
  node: JNode,
  target: Target,
  path: string,
  warnings: DecodeWarning[],
  top: boolean,
): void {
  if (node.t === 'null') return;
  if (node.t !== 'obj') throw new TypeErr(`readObjectStart: expect { or n, but found ${firstChar(node)}`);
  for (const [k, v] of node.entries) {
    const f = spec.byJson.get(k);
    if (!f) {
      if (top && (k === 'kind' || k === 'apiVersion')) continue; // TypeMeta, already sniffed
      warnings.push(unknownField(spec, path, k, top));
      continue;
    }
    try {
      decodeField(f, v, target, childPath(path, k), warnings);
    } catch (e) {
      if (e instanceof TypeErr) throw new TypeErr(`${spec.goType}.${f.go}: ${e.message}`);
      throw e;
    }
  }
}

function decodeField(f: FieldSpec, v: JNode, target: Target, path: string, warnings: DecodeWarning[]): void {
  const key = f.json;
  const isNull = v.t === 'null';
  const clear = () => {
    delete target[key];
  };
  switch (f.kind) {
    case 'bool':
      if (isNull) return f.ptr ? clear() : undefined;
      target[key] = decodeBool(v);
      return;
    case 'int32':
    case 'int64':
    case 'uint32':
      if (isNull) return f.ptr ? clear() : undefined;
      target[key] = decodeInt(v, f.kind === 'int64' ? 64 : 32, f.kind === 'uint32');
      return;
    case 'int32s':
      if (isNull) return clear();
      target[key] = decodeList(v, '[]int32', (x) => decodeInt(x, 32));
      return;
    case 'json':
      if (isNull) return f.ptr ? clear() : undefined;
      target[key] = toPlain(v);
      return;
    case 'structList':
      if (isNull) return clear();
      target[key] = decodeList(v, `[]${f.struct!.goType}`, (item, i) => {
        const entry: Target = {};
        decodeStruct(f.struct!, item, entry, `${path}[${i}]`, warnings, false);
        return entry;
      });
      return;
    case 'float64': {
      if (isNull) return f.ptr ? clear() : undefined;
      const x = v.t === 'num' ? Number(v.raw) : NaN;
      if (!Number.isFinite(x)) throw new TypeErr(`readFloat64: unexpected character: ${firstChar(v)}`);
      target[key] = x;
      return;
    }
    case 'string':
      if (isNull) return clear();
      target[key] = decodeString(v);
      return;
    case 'duration':
      if (isNull && f.ptr) return clear();
      target[key] = decodeDuration(v);
      return;
    case 'strings':
      if (isNull) return clear();
      target[key] = decodeList(v, '[]string', decodeString);
      return;
    case 'stringMap':
      if (isNull) return clear();
      target[key] = decodeMap(v, target[key] as Record<string, string> | undefined, decodeString);
      return;
    case 'stringsMap':
      if (isNull) return clear();
      target[key] = decodeMap(v, target[key] as Record<string, string[]> | undefined, (x) =>
        x.t === 'null' ? [] : decodeList(x, '[]string', decodeString),
      );
      return;
    case 'boolMap':
      if (isNull) return clear();
      target[key] = decodeMap(v, target[key] as Record<string, boolean> | undefined, decodeBool);
      return;
    case 'quantityMap':
      if (isNull) return clear();
      target[key] = decodeMap(v, target[key] as Record<string, Quantity> | undefined, decodeQuantity);
      return;
    case 'struct': {
      if (isNull) return f.ptr ? clear() : undefined;
      const existing = (target[key] as Target | undefined) ?? {};
      decodeStruct(f.struct!, v, existing, path, warnings, false);
      target[key] = existing;
      return;
    }
    case 'reservedMemory':
      if (isNull) return clear();
      target[key] = decodeList(v, `[]${f.struct!.goType}`, (item, i) => {
        const entry: Target = {};
        decodeStruct(f.struct!, item, entry, `${path}[${i}]`, warnings, false);
        const r: MemoryReservation = { numaNode: (entry['numaNode'] as number | undefined) ?? 0 };
        if (entry['limits'] !== undefined) r.limits = entry['limits'] as Record<string, Quantity>;
        return r;
      });
      return;
  }
}

/** The text of the payload, kept byte-faithful enough for the kubelet's "missing in '…'" messages. */
function toText(data: Uint8Array | string): string {
  return typeof data === 'string' ? data : utf8.decode(data);
}

/**
 * Decodes a KubeletConfiguration without applying defaults. Throws DecodeError (message as the kubelet's
 * codec words it); unknown and duplicate fields come back as warnings.
 */
export function decode(data: Uint8Array | string, options: DecodeOptions = {}): DecodeResult {
  return decodeAs(kubeletConfigurationSpec, data, options);
}

/** decode() against another minor's schema (src/kubeletconfig/versions.ts). */
export function decodeAs(schema: StructSpec, data: Uint8Array | string, options: DecodeOptions = {}): DecodeResult {
  const text = toText(data);
  if (text.length === 0) {
    throw new DecodeError(ErrorCodes.EmptyData, `kubelet config file ${goQuote(options.source ?? '')} was empty`, {
      prefix: false,
    });
  }
  const isJSON = text[LEADING_GO_SPACE.exec(text)![0].length] === '{';
  let tree: JNode;
  let duplicates: string[];
  try {
    ({ node: tree, duplicates } = isJSON ? parseJSON(text) : parseYAML(text));
  } catch (e) {
    if (e instanceof JSONSyntaxError)
      throw new DecodeError(ErrorCodes.Syntax, `couldn't get version/kind; json parse error: ${e.message}`, {
        cause: e,
      });
    if (e instanceof YAMLSyntaxError)
      throw new DecodeError(ErrorCodes.Syntax, `error converting YAML to JSON: ${e.message}`, { cause: e });
    // Pathological nesting exhausts the stack; report it as the syntax error it is rather than crash.
    if (e instanceof RangeError) {
      const detail = isJSON
        ? "couldn't get version/kind; json parse error: exceeded max depth"
        : 'error converting YAML to JSON: yaml: exceeded max depth';
      throw new DecodeError(ErrorCodes.Syntax, detail, { cause: e });
    }
    throw e;
  }

  const { kind, apiVersion } = sniff(tree);
  let gv = parseGroupVersion(apiVersion);
  const converted: DecodeWarning[] = [];
  if (gv.group === V1ALPHA1_GROUP && gv.version === V1ALPHA1_VERSION && kind === KIND) {
    // The 1.8 alpha's type, read as the v1beta1 it became.
    const c = convertV1alpha1(tree, API_VERSION, V1BETA1_FIELDS);
    tree = c.tree;
    converted.push(...c.warnings);
    gv = { group: GROUP, version: VERSION };
  }
  // apimachinery quotes the whole document here; the source's name stands in for it (see shownTypeMeta).
  const where = options.source ? ` in ${goQuote(options.source)}` : '';
  if (kind === '') throw new DecodeError(ErrorCodes.MissingKind, `Object 'Kind' is missing${where}`);
  if (gv.version === '') throw new DecodeError(ErrorCodes.MissingVersion, `Object 'apiVersion' is missing${where}`);
  const registered =
    gv.group === GROUP && gv.version === VERSION && (kind === KIND || kind === 'SerializedNodeConfigSource');
  if (!registered) {
    const gvText = gv.group ? `${gv.group}/${gv.version}` : gv.version;
    throw new DecodeError(
      ErrorCodes.NotRegistered,
      `no kind ${shownTypeMeta(kind, KIND_SHAPE)} is registered for version ${shownTypeMeta(gvText, API_VERSION_SHAPE)} in scheme ${goQuote(SCHEME_NAME)}`,
    );
  }
  if (kind !== KIND) {
    throw new DecodeError(
      ErrorCodes.WrongKind,
      `failed to cast object to ${KIND}, unexpected type: ${GROUP}/${VERSION}, Kind=${kind}`,
    );
  }

  if (options.dropNulls) tree = withoutNulls(tree);
  const warnings: DecodeWarning[] = duplicates.map((p) => ({
    code: 'DuplicateField',
    path: p,
    message: `duplicate field ${goQuote(p)}`,
  }));
  warnings.push(...converted);
  const config: Target = {};
  try {
    decodeStruct(schema, tree, config, '', warnings, true);
  } catch (e) {
    if (e instanceof TypeErr) throw new DecodeError(ErrorCodes.FieldType, e.message, { cause: e });
    throw e;
  }
  return { config: config, warnings };
}

// =========================================================================================================
// SetDefaults_KubeletConfiguration of Kubernetes 1.22 (Linux build), followed by the generated
// SetObjectDefaults step that rounds reservedMemory limits up to milli precision. Go's pointer rules decide
// what "unset" means: a pointer field is defaulted only when nil, so an explicit `eventRecordQPS: 0`
// survives; a value field is defaulted when it holds its zero value, so `port: 0` becomes 10250 and a
// Duration of "0s" counts as unset. The only non-filling rule is podPidsLimit: any negative value becomes -1.

// Durations are immutable, so each default is parsed once and shared.
const parsed = new Map<string, Duration>();
const d = (s: string): Duration => {
  let v = parsed.get(s);
  if (v === undefined) parsed.set(s, (v = Duration.parse(s)));
  return v;
};

/** Constants behind the defaults (ports.KubeletPort, qos.KubeletOOMScoreAdj, …). */
export const KubeletDefaults = {
  port: 10250,
  readOnlyPort: 10255,
  healthzPort: 10248,
  oomScoreAdj: -999,
  resolvConf: '/etc/resolv.conf',
  iptablesMasqueradeBit: 14,
  iptablesDropBit: 15,
  volumePluginDir: '/usr/libexec/kubernetes/kubelet-plugins/volume/exec/',
  memoryThrottlingFactor: 0.8,
  enforceNodeAllocatable: ['pods'] as readonly string[],
  /** defaults_linux.go; other platforms omit nodefs.inodesFree. */
  evictionHard: {
    'memory.available': '100Mi',
    'nodefs.available': '10%',
    'nodefs.inodesFree': '5%',
    'imagefs.available': '15%',
  } as Readonly<Record<string, string>>,
} as const;

function str(v: string | undefined, def: string): string {
  return v === undefined || v === '' ? def : v;
}

function num(v: number | undefined, def: number): number {
  return v === undefined || v === 0 ? def : v;
}

function dur(v: Duration | undefined, def: string): Duration {
  return v === undefined || v.isZero() ? d(def) : v;
}

/** Deep copy of plain data; Duration and Quantity are immutable and shared. */
function deepCopy<T>(v: T): T {
  if (v === null || typeof v !== 'object' || v instanceof Duration || v instanceof Quantity) return v;
  if (Array.isArray(v)) return v.map((x: unknown) => deepCopy(x)) as T;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) setOwn(out, k, deepCopy((v as Record<string, unknown>)[k]));
  return out as T;
}

function roundReservedMemory(list: MemoryReservation[] | undefined): MemoryReservation[] | undefined {
  if (list === undefined) return undefined;
  return list.map((r) => {
    const out: MemoryReservation = { numaNode: r.numaNode };
    if (r.limits !== undefined) {
      const limits: Record<string, Quantity> = {};
      for (const k of Object.keys(r.limits)) setOwn(limits, k, r.limits[k]!.roundUp(-3));
      out.limits = limits;
    }
    return out;
  });
}

/**
 * Applies the kubelet's defaults to a decoded (partial) configuration and returns a new, complete one.
 * The input is not modified.
 */
export function setDefaults(c: PartialKubeletConfiguration): KubeletConfiguration {
  const authn = c.authentication ?? {};
  const authz = c.authorization ?? {};
  // nodeStatusReportFrequency is decided before nodeStatusUpdateFrequency gets its own default.
  const update = c.nodeStatusUpdateFrequency;
  const report =
    c.nodeStatusReportFrequency !== undefined && !c.nodeStatusReportFrequency.isZero()
      ? c.nodeStatusReportFrequency
      : update !== undefined && !update.isZero()
        ? update
        : d('5m');

  const out: KubeletConfiguration = {
    enableServer: c.enableServer ?? true,
    staticPodPath: c.staticPodPath ?? '',
    syncFrequency: dur(c.syncFrequency, '1m'),
    fileCheckFrequency: dur(c.fileCheckFrequency, '20s'),
    httpCheckFrequency: dur(c.httpCheckFrequency, '20s'),
    staticPodURL: c.staticPodURL ?? '',
    address: str(c.address, '0.0.0.0'),
    port: num(c.port, KubeletDefaults.port),
    readOnlyPort: c.readOnlyPort ?? 0,
    tlsCertFile: c.tlsCertFile ?? '',
    tlsPrivateKeyFile: c.tlsPrivateKeyFile ?? '',
    tlsMinVersion: c.tlsMinVersion ?? '',
    rotateCertificates: c.rotateCertificates ?? false,
    serverTLSBootstrap: c.serverTLSBootstrap ?? false,
    authentication: {
      x509: { clientCAFile: authn.x509?.clientCAFile ?? '' },
      webhook: {
        enabled: authn.webhook?.enabled ?? true,
        cacheTTL: dur(authn.webhook?.cacheTTL, '2m'),
      },
      anonymous: { enabled: authn.anonymous?.enabled ?? false },
    },
    authorization: {
      mode: str(authz.mode, 'Webhook'),
      webhook: {
        cacheAuthorizedTTL: dur(authz.webhook?.cacheAuthorizedTTL, '5m'),
        cacheUnauthorizedTTL: dur(authz.webhook?.cacheUnauthorizedTTL, '30s'),
      },
    },
    registryPullQPS: c.registryPullQPS ?? 5,
    registryBurst: num(c.registryBurst, 10),
    eventRecordQPS: c.eventRecordQPS ?? 5,
    eventBurst: num(c.eventBurst, 10),
    enableDebuggingHandlers: c.enableDebuggingHandlers ?? true,
    enableContentionProfiling: c.enableContentionProfiling ?? false,
    healthzPort: c.healthzPort ?? KubeletDefaults.healthzPort,
    healthzBindAddress: str(c.healthzBindAddress, '127.0.0.1'),
    oomScoreAdj: c.oomScoreAdj ?? KubeletDefaults.oomScoreAdj,
    clusterDomain: c.clusterDomain ?? '',
    streamingConnectionIdleTimeout: dur(c.streamingConnectionIdleTimeout, '4h'),
    nodeStatusUpdateFrequency: dur(update, '10s'),
    nodeStatusReportFrequency: report,
    nodeLeaseDurationSeconds: num(c.nodeLeaseDurationSeconds, 40),
    imageMinimumGCAge: dur(c.imageMinimumGCAge, '2m'),
    imageGCHighThresholdPercent: c.imageGCHighThresholdPercent ?? 85,
    imageGCLowThresholdPercent: c.imageGCLowThresholdPercent ?? 80,
    volumeStatsAggPeriod: dur(c.volumeStatsAggPeriod, '1m'),
    kubeletCgroups: c.kubeletCgroups ?? '',
    systemCgroups: c.systemCgroups ?? '',
    cgroupRoot: c.cgroupRoot ?? '',
    cgroupsPerQOS: c.cgroupsPerQOS ?? true,
    cgroupDriver: str(c.cgroupDriver, 'cgroupfs'),
    cpuManagerPolicy: str(c.cpuManagerPolicy, 'none'),
    cpuManagerReconcilePeriod: dur(c.cpuManagerReconcilePeriod, '10s'),
    memoryManagerPolicy: str(c.memoryManagerPolicy, 'None'),
    topologyManagerPolicy: str(c.topologyManagerPolicy, 'none'),
    topologyManagerScope: str(c.topologyManagerScope, 'container'),
    runtimeRequestTimeout: dur(c.runtimeRequestTimeout, '2m'),
    hairpinMode: str(c.hairpinMode, 'promiscuous-bridge'),
    maxPods: num(c.maxPods, 110),
    podCIDR: c.podCIDR ?? '',
    podPidsLimit: c.podPidsLimit === undefined || c.podPidsLimit < 0 ? -1 : c.podPidsLimit,
    resolvConf: str(c.resolvConf, KubeletDefaults.resolvConf),
    runOnce: c.runOnce ?? false,
    cpuCFSQuota: c.cpuCFSQuota ?? true,
    cpuCFSQuotaPeriod: c.cpuCFSQuotaPeriod ?? d('100ms'),
    nodeStatusMaxImages: c.nodeStatusMaxImages ?? 50,
    maxOpenFiles: num(c.maxOpenFiles, 1000000),
    contentType: str(c.contentType, 'application/vnd.kubernetes.protobuf'),
    kubeAPIQPS: c.kubeAPIQPS ?? 5,
    kubeAPIBurst: num(c.kubeAPIBurst, 10),
    serializeImagePulls: c.serializeImagePulls ?? true,
    evictionHard: deepCopy(c.evictionHard) ?? { ...KubeletDefaults.evictionHard },
    evictionPressureTransitionPeriod: dur(c.evictionPressureTransitionPeriod, '5m'),
    evictionMaxPodGracePeriod: c.evictionMaxPodGracePeriod ?? 0,
    podsPerCore: c.podsPerCore ?? 0,
    enableControllerAttachDetach: c.enableControllerAttachDetach ?? true,
    protectKernelDefaults: c.protectKernelDefaults ?? false,
    makeIPTablesUtilChains: c.makeIPTablesUtilChains ?? true,
    iptablesMasqueradeBit: c.iptablesMasqueradeBit ?? KubeletDefaults.iptablesMasqueradeBit,
    iptablesDropBit: c.iptablesDropBit ?? KubeletDefaults.iptablesDropBit,
    failSwapOn: c.failSwapOn ?? true,
    memorySwap: { swapBehavior: c.memorySwap?.swapBehavior ?? '' },
    containerLogMaxSize: str(c.containerLogMaxSize, '10Mi'),
    containerLogMaxFiles: c.containerLogMaxFiles ?? 5,
    configMapAndSecretChangeDetectionStrategy: str(c.configMapAndSecretChangeDetectionStrategy, 'Watch'),
    reservedSystemCPUs: c.reservedSystemCPUs ?? '',
    showHiddenMetricsForVersion: c.showHiddenMetricsForVersion ?? '',
    systemReservedCgroup: c.systemReservedCgroup ?? '',
    kubeReservedCgroup: c.kubeReservedCgroup ?? '',
    enforceNodeAllocatable: c.enforceNodeAllocatable
      ? [...c.enforceNodeAllocatable]
      : [...KubeletDefaults.enforceNodeAllocatable],
    volumePluginDir: str(c.volumePluginDir, KubeletDefaults.volumePluginDir),
    providerID: c.providerID ?? '',
    kernelMemcgNotification: c.kernelMemcgNotification ?? false,
    logging: { format: str(c.logging?.format, 'text'), sanitization: c.logging?.sanitization ?? false },
    enableSystemLogHandler: c.enableSystemLogHandler ?? true,
    shutdownGracePeriod: c.shutdownGracePeriod ?? Duration.zero,
    shutdownGracePeriodCriticalPods: c.shutdownGracePeriodCriticalPods ?? Duration.zero,
    enableProfilingHandler: c.enableProfilingHandler ?? true,
    enableDebugFlagsHandler: c.enableDebugFlagsHandler ?? true,
    seccompDefault: c.seccompDefault ?? false,
    memoryThrottlingFactor: c.memoryThrottlingFactor ?? KubeletDefaults.memoryThrottlingFactor,
  };
  const maps = {
    staticPodURLHeader: deepCopy(c.staticPodURLHeader),
    tlsCipherSuites: c.tlsCipherSuites && [...c.tlsCipherSuites],
    clusterDNS: c.clusterDNS && [...c.clusterDNS],
    cpuManagerPolicyOptions: deepCopy(c.cpuManagerPolicyOptions),
    qosReserved: deepCopy(c.qosReserved),
    evictionSoft: deepCopy(c.evictionSoft),
    evictionSoftGracePeriod: deepCopy(c.evictionSoftGracePeriod),
    evictionMinimumReclaim: deepCopy(c.evictionMinimumReclaim),
    featureGates: deepCopy(c.featureGates),
    systemReserved: deepCopy(c.systemReserved),
    kubeReserved: deepCopy(c.kubeReserved),
    allowedUnsafeSysctls: c.allowedUnsafeSysctls && [...c.allowedUnsafeSysctls],
    reservedMemory: roundReservedMemory(c.reservedMemory),
  };
  for (const [k, v] of Object.entries(maps)) {
    if (v !== undefined) (out as unknown as Record<string, unknown>)[k] = v;
  }
  return out;
}

/**
 * The configuration a kubelet started without --config runs with: the same defaults plus the legacy
 * command-line behaviour of NewKubeletConfiguration (anonymous auth on, token webhook off, AlwaysAllow,
 * read-only port 10255). None of this applies once a config file is used.
 */
export function flagsOnlyDefaults(): KubeletConfiguration {
  const c = setDefaults({});
  c.authentication.anonymous.enabled = true;
  c.authentication.webhook.enabled = false;
  c.authorization.mode = 'AlwaysAllow';
  c.readOnlyPort = KubeletDefaults.readOnlyPort;
  return c;
}

/** A deep copy (Durations and Quantities are immutable and shared). */
export function cloneConfig(c: KubeletConfiguration): KubeletConfiguration {
  return deepCopy(c);
}

// =========================================================================================================
// Loading a config file or checkpointed payload the way the kubelet's loader does: decode (strict, then
// lenient with warnings), apply defaults, then resolve relative paths against the directory the payload
// came from (the --config file's directory, or a checkpoint's directory for a dynamic config), as
// KubeletConfigurationPathRefs + filepath.Join do. Pure string work with Go's Clean rules: the caller reads
// the bytes; nothing here touches the file system.

export interface LoadOptions {
  /** Directory holding the payload; relative path fields are joined onto it. Omit to leave paths as written. */
  dir?: string;
  /** File name for the "was empty" message. */
  source?: string;
}

export interface LoadResult {
  config: KubeletConfiguration;
  warnings: DecodeWarning[];
}

/** decode + setDefaults + resolveRelativePaths. Throws DecodeError. */
export function load(data: Uint8Array | string, options: LoadOptions = {}): LoadResult {
  const opts = options.source === undefined ? {} : { source: options.source };
  const { config, warnings } = decode(data, opts);
  const defaulted = setDefaults(config);
  return { config: options.dir === undefined ? defaulted : resolveRelativePaths(defaulted, options.dir), warnings };
}

/** Go's path.Clean for slash-separated paths. */
export function cleanPath(p: string): string {
  if (p === '') return '.';
  const rooted = p.startsWith('/');
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!rooted) out.push('..');
      continue;
    }
    out.push(part);
  }
  const body = out.join('/');
  if (rooted) return '/' + body;
  return body === '' ? '.' : body;
}

/** Go's filepath.Join: empty elements ignored, result cleaned. */
export function joinPath(...elems: string[]): string {
  const parts = elems.filter((e) => e !== '');
  return parts.length === 0 ? '' : cleanPath(parts.join('/'));
}

/** The JSON paths of the fields KubeletConfigurationPathRefs lists. */
export const PATH_FIELDS = [
  'staticPodPath',
  'authentication.x509.clientCAFile',
  'tlsCertFile',
  'tlsPrivateKeyFile',
  'resolvConf',
  'volumePluginDir',
] as const;

/** Returns a copy whose relative path fields are joined onto `dir`; empty and absolute paths are kept. */
export function resolveRelativePaths(config: KubeletConfiguration, dir: string): KubeletConfiguration {
  const fix = (p: string) => (p !== '' && !p.startsWith('/') ? joinPath(dir, p) : p);
  return {
    ...config,
    staticPodPath: fix(config.staticPodPath),
    tlsCertFile: fix(config.tlsCertFile),
    tlsPrivateKeyFile: fix(config.tlsPrivateKeyFile),
    resolvConf: fix(config.resolvConf),
    volumePluginDir: fix(config.volumePluginDir),
    authentication: {
      ...config.authentication,
      x509: { ...config.authentication.x509, clientCAFile: fix(config.authentication.x509.clientCAFile) },
    },
  };
}

// =========================================================================================================
// Encoding a config back to JSON or YAML as the kubelet's codec would write v1beta1: Go struct order for
// JSON, omitempty honoured (zero value fields omitted, pointer fields written whenever set, Durations and
// nested structs always written), Durations in Go syntax, Quantities in canonical form, map keys sorted.
// One deliberate difference: a map or list that is present but empty is written as {} / [], because for
// evictionHard, enforceNodeAllocatable and cpuManagerPolicyOptions empty and absent mean different things
// and a round trip must not change a config's meaning.

export type EncodeFormat = 'yaml' | 'json';

type Obj = Record<string, unknown>;

const strNode = (v: string): JNode => ({ t: 'str', v });

function mapNode<T>(m: Record<string, T>, value: (x: T) => JNode): JNode {
  return {
    t: 'obj',
    entries: Object.keys(m)
      .sort(compareGoStrings)
      .map((k) => [k, value(m[k]!)] as const),
  };
}

function numNode(v: number): JNode {
  try {
    return { t: 'num', raw: goJSONFloat(v) };
  } catch (e) {
    throw new EncodeError(errorMessage(e), { cause: e });
  }
}

function fieldNode(f: FieldSpec, v: unknown): JNode | undefined {
  if (v === undefined) return f.always && f.kind === 'quantityMap' ? { t: 'null' } : undefined;
  switch (f.kind) {
    case 'bool':
      return !f.ptr && v === false && !f.always ? undefined : { t: 'bool', v: v as boolean };
    case 'int32':
    case 'int64':
    case 'uint32':
      return !f.ptr && v === 0 && !f.always ? undefined : numNode(v as number);
    case 'int32s':
      return { t: 'arr', items: (v as number[]).map(numNode) };
    case 'json':
      return fromPlain(v as JSONValue);
    case 'structList':
      return { t: 'arr', items: (v as Obj[]).map((r) => structNode(f.struct!, r)) };
    case 'float64':
      return !f.ptr && v === 0 ? undefined : numNode(v as number);
    case 'string':
      return v === '' ? undefined : strNode(v as string);
    case 'duration':
      return strNode((v as Duration).toString());
    case 'strings':
      return { t: 'arr', items: (v as string[]).map(strNode) };
    case 'stringMap':
      return mapNode(v as Record<string, string>, strNode);
    case 'stringsMap':
      return mapNode(v as Record<string, string[]>, (list) => ({ t: 'arr', items: list.map(strNode) }));
    case 'boolMap':
      return mapNode(v as Record<string, boolean>, (b) => ({ t: 'bool', v: b }));
    case 'quantityMap':
      return mapNode(v as Record<string, Quantity>, (q) => strNode(q.toString()));
    case 'struct':
      return structNode(f.struct!, v as Obj);
    case 'reservedMemory':
      return { t: 'arr', items: (v as Obj[]).map((r) => structNode(f.struct!, r)) };
  }
}

function structNode(spec: StructSpec, o: Obj): JNode {
  const entries: Array<readonly [string, JNode]> = [];
  for (const f of spec.fields) {
    const n = fieldNode(f, o[f.json]);
    if (n !== undefined) entries.push([f.json, n]);
  }
  return { t: 'obj', entries };
}

/** The document tree of a config, optionally with the kind/apiVersion envelope. */
function toTree(
  config: KubeletConfiguration | PartialKubeletConfiguration,
  envelope: boolean,
  schema: StructSpec = kubeletConfigurationSpec,
): JNode {
  const body = structNode(schema, config as unknown as Obj);
  if (!envelope || body.t !== 'obj') return body;
  return { t: 'obj', entries: [['kind', strNode(KIND)], ['apiVersion', strNode(API_VERSION)], ...body.entries] };
}

/** The config as a file the kubelet reads back to the same config: YAML (default) or indented JSON. */
export function encode(
  config: KubeletConfiguration | PartialKubeletConfiguration,
  format: EncodeFormat = 'yaml',
  schema: StructSpec = kubeletConfigurationSpec,
): string {
  const tree = toTree(config, true, schema);
  return format === 'json' ? writeJSON(tree, 2) + '\n' : writeYAML(tree);
}

/**
 * The JSON the kubelet serves for its config on /configz: the v1beta1 object without kind/apiVersion,
 * compact. (Upstream wraps it as {"kubeletconfig": …}; that envelope is the HTTP handler's business.)
 */
export function toConfigzJSON(config: KubeletConfiguration, schema: StructSpec = kubeletConfigurationSpec): string {
  return writeJSON(toTree(config, false, schema));
}

function fromPlain(v: JSONValue): JNode {
  if (v === null) return { t: 'null' };
  if (typeof v === 'boolean') return { t: 'bool', v };
  if (typeof v === 'number') return numNode(v);
  if (typeof v === 'string') return strNode(v);
  if (Array.isArray(v)) return { t: 'arr', items: v.map(fromPlain) };
  return { t: 'obj', entries: Object.keys(v).map((k) => [k, fromPlain(v[k]!)] as const) };
}

function toPlain(n: JNode): JSONValue {
  switch (n.t) {
    case 'null':
      return null;
    case 'bool':
      return n.v;
    case 'num':
      return Number(n.raw);
    case 'str':
      return n.v;
    case 'arr':
      return n.items.map(toPlain);
    case 'obj': {
      const o: { [key: string]: JSONValue } = {};
      for (const [k, v] of n.entries)
        Object.defineProperty(o, k, { value: toPlain(v), enumerable: true, writable: true, configurable: true });
      return o;
    }
  }
}

/** The encoded form as a plain JSON value (Durations and Quantities as strings), with the envelope. */
export function toJSONObject(
  config: KubeletConfiguration | PartialKubeletConfiguration,
  schema: StructSpec = kubeletConfigurationSpec,
): { [key: string]: JSONValue } {
  return toPlain(toTree(config, true, schema)) as { [key: string]: JSONValue };
}
