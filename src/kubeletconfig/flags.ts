// Kubelet command-line flags and the precedence merge built on them: parseKubeletFlags/applyKubeletFlags
// with pflag's semantics, and effectiveConfig, the one function that decides which configuration a node
// runs (defaults ← file or dynamic config ← flags).

import {
  cloneConfig,
  type DecodeWarning,
  flagsOnlyDefaults,
  load,
  type LoadOptions,
  type LoadResult,
} from './codec.js';
import { DecodeError, DurationError, FeatureGateError, FlagError, QuantityError } from './errors.js';
import type { KubeletConfiguration, MemoryReservation } from './types.js';
import { ADDED_FLAGS, EARLIER_NON_CONFIG_FLAGS, type FlagType, REMOVED_FLAGS } from './flag-history.js';
import { FeatureGates, validate, type ValidateOptions, type ValidationResult } from './validation.js';
import { Duration, goParseBool, goQuote, Quantity, setOwn } from './values.js';
import { errorMessage } from '../util/errors.js';

// =========================================================================================================
// The kubelet command-line flags that map to KubeletConfiguration fields, parsed with pflag's rules and
// applied with each flag type's own Set semantics (a map or list flag replaces the target on its first use
// and accumulates after). Only flags actually given override anything — kubeletConfigFlagPrecedence
// re-parses the original command line onto the loaded config — and --feature-gates then gets back every
// gate of the loaded config it did not name.

export interface KubeletFlagSpec {
  /** Flag name without dashes, e.g. `event-qps`. */
  readonly name: string;
  /** Dotted JSON path of the field it sets, e.g. `eventRecordQPS` or `authentication.anonymous.enabled`. */
  readonly field: string;
  readonly type: FlagType;
}

const TABLE: ReadonlyArray<readonly [string, string, FlagType]> = [
  ['enable-server', 'enableServer', 'bool'],
  ['pod-manifest-path', 'staticPodPath', 'string'],
  ['sync-frequency', 'syncFrequency', 'duration'],
  ['file-check-frequency', 'fileCheckFrequency', 'duration'],
  ['http-check-frequency', 'httpCheckFrequency', 'duration'],
  ['manifest-url', 'staticPodURL', 'string'],
  ['manifest-url-header', 'staticPodURLHeader', 'colonMultimap'],
  ['address', 'address', 'ip'],
  ['port', 'port', 'int32'],
  ['read-only-port', 'readOnlyPort', 'int32'],
  ['tls-cert-file', 'tlsCertFile', 'string'],
  ['tls-private-key-file', 'tlsPrivateKeyFile', 'string'],
  ['tls-cipher-suites', 'tlsCipherSuites', 'stringSlice'],
  ['tls-min-version', 'tlsMinVersion', 'string'],
  ['rotate-certificates', 'rotateCertificates', 'bool'],
  ['rotate-server-certificates', 'serverTLSBootstrap', 'bool'],
  ['client-ca-file', 'authentication.x509.clientCAFile', 'string'],
  ['authentication-token-webhook', 'authentication.webhook.enabled', 'bool'],
  ['authentication-token-webhook-cache-ttl', 'authentication.webhook.cacheTTL', 'duration'],
  ['anonymous-auth', 'authentication.anonymous.enabled', 'bool'],
  ['authorization-mode', 'authorization.mode', 'string'],
  ['authorization-webhook-cache-authorized-ttl', 'authorization.webhook.cacheAuthorizedTTL', 'duration'],
  ['authorization-webhook-cache-unauthorized-ttl', 'authorization.webhook.cacheUnauthorizedTTL', 'duration'],
  ['registry-qps', 'registryPullQPS', 'int32'],
  ['registry-burst', 'registryBurst', 'int32'],
  ['event-qps', 'eventRecordQPS', 'int32'],
  ['event-burst', 'eventBurst', 'int32'],
  ['enable-debugging-handlers', 'enableDebuggingHandlers', 'bool'],
  ['contention-profiling', 'enableContentionProfiling', 'bool'],
  ['healthz-port', 'healthzPort', 'int32'],
  ['healthz-bind-address', 'healthzBindAddress', 'ip'],
  ['oom-score-adj', 'oomScoreAdj', 'int32'],
  ['cluster-domain', 'clusterDomain', 'string'],
  ['cluster-dns', 'clusterDNS', 'stringSlice'],
  ['streaming-connection-idle-timeout', 'streamingConnectionIdleTimeout', 'duration'],
  ['node-status-update-frequency', 'nodeStatusUpdateFrequency', 'duration'],
  ['minimum-image-ttl-duration', 'imageMinimumGCAge', 'duration'],
  ['image-gc-high-threshold', 'imageGCHighThresholdPercent', 'int32'],
  ['image-gc-low-threshold', 'imageGCLowThresholdPercent', 'int32'],
  ['volume-stats-agg-period', 'volumeStatsAggPeriod', 'duration'],
  ['feature-gates', 'featureGates', 'mapStringBool'],
  ['kubelet-cgroups', 'kubeletCgroups', 'string'],
  ['system-cgroups', 'systemCgroups', 'string'],
  ['provider-id', 'providerID', 'string'],
  ['cgroups-per-qos', 'cgroupsPerQOS', 'bool'],
  ['cgroup-driver', 'cgroupDriver', 'string'],
  ['cgroup-root', 'cgroupRoot', 'string'],
  ['cpu-manager-policy', 'cpuManagerPolicy', 'string'],
  ['cpu-manager-policy-options', 'cpuManagerPolicyOptions', 'mapStringStringNoSplit'],
  ['cpu-manager-reconcile-period', 'cpuManagerReconcilePeriod', 'duration'],
  ['qos-reserved', 'qosReserved', 'mapStringString'],
  ['topology-manager-policy', 'topologyManagerPolicy', 'string'],
  ['runtime-request-timeout', 'runtimeRequestTimeout', 'duration'],
  ['hairpin-mode', 'hairpinMode', 'string'],
  ['max-pods', 'maxPods', 'int32'],
  ['pod-cidr', 'podCIDR', 'string'],
  ['pod-max-pids', 'podPidsLimit', 'int64'],
  ['resolv-conf', 'resolvConf', 'string'],
  ['runonce', 'runOnce', 'bool'],
  ['cpu-cfs-quota', 'cpuCFSQuota', 'bool'],
  ['cpu-cfs-quota-period', 'cpuCFSQuotaPeriod', 'duration'],
  ['enable-controller-attach-detach', 'enableControllerAttachDetach', 'bool'],
  ['make-iptables-util-chains', 'makeIPTablesUtilChains', 'bool'],
  ['iptables-masquerade-bit', 'iptablesMasqueradeBit', 'int32'],
  ['iptables-drop-bit', 'iptablesDropBit', 'int32'],
  ['container-log-max-size', 'containerLogMaxSize', 'string'],
  ['container-log-max-files', 'containerLogMaxFiles', 'int32'],
  ['allowed-unsafe-sysctls', 'allowedUnsafeSysctls', 'stringSlice'],
  ['node-status-max-images', 'nodeStatusMaxImages', 'int32'],
  ['kernel-memcg-notification', 'kernelMemcgNotification', 'bool'],
  ['experimental-kernel-memcg-notification', 'kernelMemcgNotification', 'bool'],
  ['max-open-files', 'maxOpenFiles', 'int64'],
  ['kube-api-content-type', 'contentType', 'string'],
  ['kube-api-qps', 'kubeAPIQPS', 'int32'],
  ['kube-api-burst', 'kubeAPIBurst', 'int32'],
  ['serialize-image-pulls', 'serializeImagePulls', 'bool'],
  ['eviction-hard', 'evictionHard', 'langleMap'],
  ['eviction-soft', 'evictionSoft', 'langleMap'],
  ['eviction-soft-grace-period', 'evictionSoftGracePeriod', 'mapStringString'],
  ['eviction-pressure-transition-period', 'evictionPressureTransitionPeriod', 'duration'],
  ['eviction-max-pod-grace-period', 'evictionMaxPodGracePeriod', 'int32'],
  ['eviction-minimum-reclaim', 'evictionMinimumReclaim', 'mapStringString'],
  ['pods-per-core', 'podsPerCore', 'int32'],
  ['protect-kernel-defaults', 'protectKernelDefaults', 'bool'],
  ['reserved-cpus', 'reservedSystemCPUs', 'string'],
  ['topology-manager-scope', 'topologyManagerScope', 'string'],
  ['system-reserved', 'systemReserved', 'mapStringString'],
  ['kube-reserved', 'kubeReserved', 'mapStringString'],
  ['enforce-node-allocatable', 'enforceNodeAllocatable', 'stringSlice'],
  ['system-reserved-cgroup', 'systemReservedCgroup', 'string'],
  ['kube-reserved-cgroup', 'kubeReservedCgroup', 'string'],
  ['logging-format', 'logging.format', 'string'],
  ['experimental-logging-sanitization', 'logging.sanitization', 'bool'],
  ['memory-manager-policy', 'memoryManagerPolicy', 'string'],
  ['reserved-memory', 'reservedMemory', 'reservedMemory'],
  ['fail-swap-on', 'failSwapOn', 'bool'],
  ['volume-plugin-dir', 'volumePluginDir', 'string'],
];

/** Every config flag of the 1.22 kubelet, keyed by name. */
export const KUBELET_FLAGS: ReadonlyMap<string, KubeletFlagSpec> = new Map(
  TABLE.map(([name, field, type]) => [name, { name, field, type }] as const),
);

/** The minor whose flags apply when none is named: the library's own, 1.22. */
const BASE_MINOR = 22;

interface FlagLife {
  readonly spec: KubeletFlagSpec;
  readonly since: number;
  readonly last: number;
}

/** Every config flag of any minor, with the minors that register it (flag-history.ts). */
const FLAG_LIVES: ReadonlyMap<string, FlagLife> = (() => {
  const removed = new Map(REMOVED_FLAGS.map(([name, last]) => [name, last] as const));
  const out = new Map<string, FlagLife>();
  for (const spec of KUBELET_FLAGS.values())
    out.set(spec.name, { spec, since: BASE_MINOR, last: removed.get(spec.name) ?? Infinity });
  for (const [name, field, type, since] of ADDED_FLAGS)
    out.set(name, { spec: { name, field, type }, since, last: Infinity });
  return out;
})();

/** What kubelet 1.`minor` makes of a flag name that is a config flag of some minor. */
export type FlagStanding = 'config' | 'unknown' | 'other';

/**
 * `config`: that kubelet's config flag; `unknown`: a config flag of other minors only, which that kubelet refuses;
 * `other`: no config flag of any minor, or one that kubelet registers outside its config (left to the caller).
 */
export function kubeletFlagStanding(name: string, minor: number = BASE_MINOR): FlagStanding {
  const life = FLAG_LIVES.get(name);
  if (!life) return 'other';
  if (minor >= life.since && minor <= life.last) return 'config';
  const nonConfigUntil = EARLIER_NON_CONFIG_FLAGS.get(name);
  return nonConfigUntil !== undefined && minor <= nonConfigUntil ? 'other' : 'unknown';
}

/** The config flags kubelet 1.`minor` registers, keyed by name. */
export function kubeletFlagsOf(minor: number = BASE_MINOR): ReadonlyMap<string, KubeletFlagSpec> {
  const out = new Map<string, KubeletFlagSpec>();
  for (const [name, life] of FLAG_LIVES) if (minor >= life.since && minor <= life.last) out.set(name, life.spec);
  return out;
}

export interface GivenFlag {
  readonly name: string;
  readonly value: string;
  readonly field: string;
}

export interface ParsedKubeletFlags {
  /** Config flags in command-line order, with their raw values. */
  readonly given: readonly GivenFlag[];
  /** Everything that is not a config flag (other kubelet flags, positionals), in order. */
  readonly rest: readonly string[];
}

// ---------------------------------------------------------------------------------------------------------
// Value parsers with Go's error texts.

function parseBool(s: string): boolean {
  const v = goParseBool(s);
  if (v === undefined) throw new Error(`strconv.ParseBool: parsing ${goQuote(s)}: invalid syntax`);
  return v;
}

function underscoreOK(s: string): boolean {
  let saw = '^';
  let i = 0;
  if (s[0] === '-' || s[0] === '+') s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === '0' && 'box'.includes(s[1]!.toLowerCase())) {
    i = 2;
    saw = '0';
    hex = s[1]!.toLowerCase() === 'x';
  }
  for (; i < s.length; i++) {
    const c = s[i]!;
    if ((c >= '0' && c <= '9') || (hex && /[a-fA-F]/.test(c))) {
      saw = '0';
      continue;
    }
    if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
      continue;
    }
    if (saw === '_') return false;
    saw = '!';
  }
  return saw !== '_';
}

/** strconv.ParseInt(s, 0, bits). */
function parseInt0(s: string, bits: 32 | 64): number {
  const syntax = () => new Error(`strconv.ParseInt: parsing ${goQuote(s)}: invalid syntax`);
  let body = s;
  let neg = false;
  if (body[0] === '+' || body[0] === '-') {
    neg = body[0] === '-';
    body = body.slice(1);
  }
  if (body === '') throw syntax();
  let base = 10;
  if (body[0] === '0' && body.length > 1) {
    const p = body[1]!.toLowerCase();
    if (p === 'b' || p === 'o' || p === 'x') {
      base = p === 'b' ? 2 : p === 'o' ? 8 : 16;
      body = body.slice(2);
    } else {
      base = 8;
      body = body.slice(1);
    }
  }
  if (body.includes('_')) {
    if (!underscoreOK(s)) throw syntax();
    body = body.replace(/_/g, '');
  }
  const digits = base === 2 ? /^[01]+$/ : base === 8 ? /^[0-7]+$/ : base === 10 ? /^[0-9]+$/ : /^[0-9a-fA-F]+$/;
  if (!digits.test(body)) throw syntax();
  let v = BigInt((base === 2 ? '0b' : base === 8 ? '0o' : base === 16 ? '0x' : '') + body);
  if (neg) v = -v;
  const max = (1n << BigInt(bits - 1)) - 1n;
  if (v > max || v < -max - 1n) throw new Error(`strconv.ParseInt: parsing ${goQuote(s)}: value out of range`);
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new Error(`strconv.ParseInt: parsing ${goQuote(s)}: beyond the exactly representable range ±(2^53-1)`);
  }
  return Number(v);
}

function isIPv4(s: string): boolean {
  const parts = s.split('.');
  return parts.length === 4 && parts.every((p) => /^[0-9]{1,3}$/.test(p) && Number(p) <= 255);
}

function isIPv6(s: string): boolean {
  let body = s;
  let groupsNeeded = 8;
  const lastColon = body.lastIndexOf(':');
  if (lastColon >= 0 && body.slice(lastColon + 1).includes('.')) {
    if (!isIPv4(body.slice(lastColon + 1))) return false;
    body = body.slice(0, lastColon + 1) + '0';
    groupsNeeded = 7;
  }
  const halves = body.split('::');
  if (halves.length > 2) return false;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  const all = [...head, ...tail];
  if (!all.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return false;
  if (halves.length === 2) return all.length < groupsNeeded;
  return all.length === groupsNeeded;
}

/** Go 1.16's net.ParseIP acceptance. */
export function isIP(s: string): boolean {
  return s.includes(':') ? isIPv6(s) : isIPv4(s);
}

/** encoding/csv's reading of one record, as pflag's string slices use it. */
function readCSV(val: string): string[] {
  if (val === '') return [];
  const out: string[] = [];
  let i = 0;
  for (;;) {
    if (val[i] === '"') {
      let field = '';
      let j = i + 1;
      for (;;) {
        if (j >= val.length)
          throw new Error(`parse error on line 1, column ${j + 1}: extraneous or missing " in quoted-field`);
        if (val[j] === '"') {
          if (val[j + 1] === '"') {
            field += '"';
            j += 2;
            continue;
          }
          j++;
          break;
        }
        field += val[j];
        j++;
      }
      if (j < val.length && val[j] !== ',')
        throw new Error(`parse error on line 1, column ${j + 1}: extraneous or missing " in quoted-field`);
      out.push(field);
      if (j >= val.length) return out;
      i = j + 1;
    } else {
      const end = val.indexOf(',', i);
      const field = end < 0 ? val.slice(i) : val.slice(i, end);
      const q = field.indexOf('"');
      if (q >= 0) throw new Error(`parse error on line 1, column ${i + q + 1}: bare " in non-quoted-field`);
      out.push(field);
      if (end < 0) return out;
      i = end + 1;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Applying flag values to a config.

type Obj = Record<string, unknown>;

function parentOf(config: KubeletConfiguration, path: string): { obj: Obj; key: string } {
  const parts = path.split('.');
  let obj = config as unknown as Obj;
  for (const p of parts.slice(0, -1)) obj = obj[p] as Obj;
  return { obj, key: parts[parts.length - 1]! };
}

/** Per-parse state: which list/map flags have had their first Set (the one that replaces). */
interface SetState {
  initialized: Set<string>;
  /** ReservedMemoryVar loses its target after Set(""), and later Sets fail. */
  detached: Set<string>;
}

function setMap(
  obj: Obj,
  key: string,
  spec: KubeletFlagSpec,
  st: SetState,
  value: string,
  sep: '=' | '<' | ':',
  split: boolean,
  convert: (k: string, v: string) => unknown,
  multi = false,
): void {
  if (!st.initialized.has(spec.name) || obj[key] === undefined) {
    obj[key] = {};
    st.initialized.add(spec.name);
  }
  const target = obj[key] as Obj;
  const pairs = split ? value.split(',') : [value];
  const expect = sep === '=' && spec.type === 'mapStringBool' ? 'string=bool' : `string${sep}string`;
  for (const pair of pairs) {
    if (split && pair.length === 0) continue;
    const i = pair.indexOf(sep);
    if (i < 0) throw new Error(`malformed pair, expect ${expect}`);
    const k = pair.slice(0, i).trim();
    const v = pair.slice(i + 1).trim();
    if (multi) setOwn<unknown>(target, k, [...((target[k] as string[] | undefined) ?? []), v]);
    else setOwn<unknown>(target, k, convert(k, v));
  }
}

function setReservedMemory(obj: Obj, key: string, spec: KubeletFlagSpec, st: SetState, s: string): void {
  if (st.detached.has(spec.name)) throw new Error('no target (nil pointer to *[]MemoryReservation');
  if (s === '') {
    st.detached.add(spec.name);
    return;
  }
  if (!st.initialized.has(spec.name) || obj[key] === undefined) {
    obj[key] = [];
    st.initialized.add(spec.name);
  }
  const list = obj[key] as MemoryReservation[];
  for (const reservation of s.split(';')) {
    const parts = reservation.split(':');
    if (parts.length !== 2) {
      throw new Error(
        `the reserved memory has incorrect format, expected numaNodeID:type=quantity[,type=quantity...], got ${reservation}`,
      );
    }
    if (!/^[+-]?[0-9]+$/.test(parts[0]!) || BigInt(parts[0]!) > (1n << 63n) - 1n || BigInt(parts[0]!) < -(1n << 63n)) {
      throw new Error(`failed to convert the NUMA node ID, exptected integer, got ${parts[0]}`);
    }
    const entry: MemoryReservation = { numaNode: Number(BigInt.asIntN(32, BigInt(parts[0]!))), limits: {} };
    for (const typed of parts[1]!.split(',')) {
      const limit = typed.split('=');
      if (limit.length !== 2)
        throw new Error(`the reserved limit has incorrect value, expected type=quantatity, got ${typed}`);
      const name = limit[0]!;
      if (name !== 'memory' && !name.startsWith('hugepages-'))
        throw new Error(`memory type conversion error, unknown type: ${goQuote(name)}`);
      let q: Quantity;
      try {
        q = Quantity.parse(limit[1]!);
      } catch (e) {
        if (e instanceof QuantityError)
          throw new Error(`failed to parse the quantatity, expected quantatity, got ${limit[1]}`);
        throw e;
      }
      setOwn(entry.limits!, name, q);
    }
    list.push(entry);
  }
}

function setFlag(config: KubeletConfiguration, spec: KubeletFlagSpec, value: string, st: SetState): void {
  const { obj, key } = parentOf(config, spec.field);
  switch (spec.type) {
    case 'bool':
      obj[key] = parseBool(value);
      return;
    case 'int32':
    case 'int64':
      obj[key] = parseInt0(value, spec.type === 'int32' ? 32 : 64);
      return;
    case 'string':
      obj[key] = value;
      return;
    case 'ip':
      if (value === '') return; // IPVar ignores an empty value
      if (!isIP(value)) throw new Error(`${goQuote(value)} is not a valid IP address`);
      obj[key] = value;
      return;
    case 'duration':
      try {
        obj[key] = Duration.parse(value);
      } catch (e) {
        if (e instanceof DurationError) throw new Error(e.message);
        throw e;
      }
      return;
    case 'stringSlice': {
      const v = readCSV(value);
      obj[key] = st.initialized.has(spec.name) ? [...((obj[key] as string[] | undefined) ?? []), ...v] : v;
      st.initialized.add(spec.name);
      return;
    }
    case 'mapStringString':
      return setMap(obj, key, spec, st, value, '=', true, (_k, v) => v);
    case 'mapStringStringNoSplit':
      return setMap(obj, key, spec, st, value, '=', false, (_k, v) => v);
    case 'langleMap':
      return setMap(obj, key, spec, st, value, '<', true, (_k, v) => v);
    case 'colonMultimap':
      return setMap(obj, key, spec, st, value, ':', true, (_k, v) => v, true);
    case 'mapStringBool':
      return setMap(obj, key, spec, st, value, '=', true, (k, v) => {
        try {
          return parseBool(v);
        } catch (e) {
          throw new Error(`invalid value of ${k}=${v}, err: ${errorMessage(e)}`);
        }
      });
    case 'reservedMemory':
      return setReservedMemory(obj, key, spec, st, value);
  }
}

function applyAll(config: KubeletConfiguration, given: readonly GivenFlag[]): KubeletConfiguration {
  const out = cloneConfig(config);
  const original = config.featureGates;
  const st: SetState = { initialized: new Set(), detached: new Set() };
  for (const g of given) {
    const spec = FLAG_LIVES.get(g.name)!.spec;
    try {
      setFlag(out, spec, g.value, st);
    } catch (e) {
      throw new FlagError(
        `--${g.name}`,
        `invalid argument ${goQuote(g.value)} for ${goQuote(`--${g.name}`)} flag: ${errorMessage(e)}`,
        { cause: e },
      );
    }
  }
  if (original && out.featureGates !== original) {
    const merged = out.featureGates ?? {};
    for (const k of Object.keys(original)) if (!(k in merged)) setOwn(merged, k, original[k]!);
    out.featureGates = merged;
  }
  return out;
}

/**
 * Parses a kubelet command line with pflag's rules (`--name=value`, `--name value`, bare `--bool-flag`,
 * `_` normalised to `-`, `--` ends flags), as kubelet 1.`minor` (default 1.22). Its config flags are collected;
 * anything else is left in `rest`. Throws FlagError with pflag's message when a config flag's value is invalid or
 * missing, or when the flag is a config flag of other minors that this kubelet does not register.
 */
export function parseKubeletFlags(argv: readonly string[], minor: number = BASE_MINOR): ParsedKubeletFlags {
  const given: GivenFlag[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (!arg.startsWith('--') || arg.length === 2) {
      rest.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const rawName = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    const name = rawName.replace(/_/g, '-');
    const standing = kubeletFlagStanding(name, minor);
    if (standing === 'unknown') throw new FlagError(`--${rawName}`, `unknown flag: --${rawName}`);
    const spec = standing === 'config' ? FLAG_LIVES.get(name)?.spec : undefined;
    if (!spec) {
      rest.push(arg);
      continue;
    }
    let value: string;
    if (eq >= 0) value = arg.slice(eq + 1);
    else if (spec.type === 'bool') value = 'true';
    else if (i + 1 < argv.length) value = argv[++i]!;
    else throw new FlagError(`--${name}`, `flag needs an argument: --${name}`);
    given.push({ name, value, field: spec.field });
  }
  // Validate every value now, the way the kubelet's first parse would, so that applying cannot fail later.
  applyAll(flagsOnlyDefaults(), given);
  return { given, rest };
}

/**
 * Re-applies the given flags onto a loaded config (kubeletConfigFlagPrecedence): each given flag overrides,
 * map/list flags replace the loaded value, and feature gates are merged per key with the flag winning.
 * Returns a new config.
 */
export function applyKubeletFlags(config: KubeletConfiguration, flags: ParsedKubeletFlags): KubeletConfiguration {
  return applyAll(config, flags.given);
}

// =========================================================================================================
// The one function that decides which KubeletConfiguration a node runs, used by the agent at boot and by
// `dkc config validate`: defaults ← --config file ← flags, or, when a dynamic config is active, defaults ←
// dynamic payload ← flags (the payload replaces the file entirely). Feature gates follow the kubelet's
// process-wide gate, which accumulates: flags first, then the local config, then the dynamic one — so a
// dynamic config is validated against gates the local file enabled, exactly as 1.22 does.

export interface ConfigSource {
  bytes: Uint8Array | string;
  /** Directory holding the payload (relative paths resolve against it). */
  dir: string;
  /** File name for messages. */
  name?: string;
}

/** How a kubelet minor loads, validates and gates a config; 1.22's own functions when not given. */
export interface KubeletBehaviour {
  /** The minor (`22` for 1.22): whose flags a command line is parsed with. */
  readonly minor: number;
  load(bytes: Uint8Array | string, options: LoadOptions): LoadResult;
  validate(config: KubeletConfiguration, options: ValidateOptions): ValidationResult;
  gates(): FeatureGates;
  flagsOnlyDefaults(): KubeletConfiguration;
}

const BASE_BEHAVIOUR: KubeletBehaviour = {
  minor: BASE_MINOR,
  load,
  validate,
  gates: () => FeatureGates.defaults(),
  flagsOnlyDefaults,
};

export interface EffectiveConfigInput {
  /** The kubelet minor to act as (kubeletVersion(v).effectiveConfig sets it); 1.22 when absent. */
  kubelet?: KubeletBehaviour;
  /** The --config file, if any. */
  file?: ConfigSource;
  /** The active dynamic config (assigned or last-known-good checkpoint), if any. */
  dynamic?: ConfigSource;
  /** The kubelet command line (or its parsed form). */
  flags: readonly string[] | ParsedKubeletFlags;
  /** Passed on to validate() (platform, logging flags, …); featureGates is computed here. */
  validation?: Omit<ValidateOptions, 'featureGates'>;
}

export type ConfigLayer = 'flags' | 'file' | 'dynamic';

export interface ConfigWarning {
  layer: ConfigLayer;
  message: string;
  /** Present for decode warnings. */
  detail?: DecodeWarning;
}

export interface EffectiveConfigSuccess {
  ok: true;
  config: KubeletConfiguration;
  /** Which layer the config came from under the flags. */
  source: ConfigLayer;
  /** The process-wide gate state after all layers; pass it to validateStartup. */
  featureGates: FeatureGates;
  warnings: ConfigWarning[];
  /** Command-line arguments that are not config flags. */
  rest: readonly string[];
}

export interface EffectiveConfigFailure {
  ok: false;
  /** The layer whose config failed. */
  layer: ConfigLayer;
  /** What failed: parsing flags, setting feature gates, decoding the payload, or validation. */
  stage: 'flags' | 'featureGates' | 'decode' | 'validation';
  /** One message per error, in the kubelet's words. */
  errors: string[];
  warnings: ConfigWarning[];
}

export type EffectiveConfigResult = EffectiveConfigSuccess | EffectiveConfigFailure;

const DKC_GATE_MESSAGE =
  'the DynamicKubeletConfig feature gate must be enabled in order to use the --dynamic-config-dir flag';

/** Builds and validates the effective configuration. Never throws for bad input; returns the errors. */
export function effectiveConfig(input: EffectiveConfigInput): EffectiveConfigResult {
  const warnings: ConfigWarning[] = [];
  const fail = (
    layer: ConfigLayer,
    stage: EffectiveConfigFailure['stage'],
    errors: string[],
  ): EffectiveConfigFailure => ({
    ok: false,
    layer,
    stage,
    errors,
    warnings,
  });
  const setGates = (gates: FeatureGates, m: Record<string, boolean> | undefined, layer: ConfigLayer) => {
    const r = gates.setFromMap(m);
    for (const w of r.warnings) warnings.push({ layer, message: w });
    return r.gates;
  };

  const kubelet = input.kubelet ?? BASE_BEHAVIOUR;
  let flags: ParsedKubeletFlags;
  try {
    flags = Array.isArray(input.flags)
      ? parseKubeletFlags(input.flags, kubelet.minor)
      : (input.flags as ParsedKubeletFlags);
  } catch (e) {
    if (e instanceof FlagError) return fail('flags', 'flags', [e.message]);
    throw e;
  }

  // 1. The flags-only baseline, and the gates it sets before any file is read.
  const baseline = applyKubeletFlags(kubelet.flagsOnlyDefaults(), flags);
  let gates: FeatureGates;
  try {
    gates = setGates(kubelet.gates(), baseline.featureGates, 'flags');
  } catch (e) {
    if (e instanceof FeatureGateError) return fail('flags', 'featureGates', [e.message]);
    throw e;
  }
  // A kubelet that no longer registers the gate has no dynamic config of its own: dkc's stands in for it ungated.
  if (input.dynamic && gates.knows('DynamicKubeletConfig') && !gates.enabled('DynamicKubeletConfig'))
    return fail('flags', 'flags', [DKC_GATE_MESSAGE]);

  const layer = (src: ConfigSource, which: ConfigLayer): KubeletConfiguration | EffectiveConfigFailure => {
    try {
      const loaded = kubelet.load(
        src.bytes,
        src.name === undefined ? { dir: src.dir } : { dir: src.dir, source: src.name },
      );
      for (const w of loaded.warnings) warnings.push({ layer: which, message: w.message, detail: w });
      return applyKubeletFlags(loaded.config, flags);
    } catch (e) {
      if (e instanceof DecodeError) return fail(which, 'decode', [e.message]);
      throw e;
    }
  };

  // 2. The local config (file + flags, or flags alone) must always validate: it is the implicit last-known-good.
  const localLayer: ConfigLayer = input.file ? 'file' : 'flags';
  const local = input.file ? layer(input.file, 'file') : baseline;
  if ('ok' in local) return local;
  const baseGates = gates;
  const localCheck = kubelet.validate(local, { ...input.validation, featureGates: baseGates });
  if (localCheck.errors.length > 0) return fail(localLayer, 'validation', localCheck.errors);
  gates = setGates(baseGates, local.featureGates, localLayer);
  if (!input.dynamic)
    return { ok: true, config: local, source: localLayer, featureGates: gates, warnings, rest: flags.rest };

  // 3. A dynamic config replaces the local one, under the same flags, against the accumulated gates.
  const dynamic = layer(input.dynamic, 'dynamic');
  if ('ok' in dynamic) return dynamic;
  const dynCheck = kubelet.validate(dynamic, { ...input.validation, featureGates: gates });
  if (dynCheck.errors.length > 0) return fail('dynamic', 'validation', dynCheck.errors);
  gates = setGates(gates, dynamic.featureGates, 'dynamic');
  return { ok: true, config: dynamic, source: 'dynamic', featureGates: gates, warnings, rest: flags.rest };
}
