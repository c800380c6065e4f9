// KubeletConfiguration (kubelet.config.k8s.io/v1beta1) as a Kubernetes 1.22 kubelet reads, defaults,
// validates and writes it. Pure: no I/O; callers pass bytes and the directory they came from.
//
// What the node agent uses:
//
//   load(bytes, { dir, source })            decode + defaults + relative paths → { config, warnings }
//                                           (throws DecodeError whose .message is the kubelet's text)
//   decode(bytes)                           without defaults → { config: PartialKubeletConfiguration, warnings }
//   setDefaults(partial)                    SetDefaults_KubeletConfiguration → KubeletConfiguration
//   validate(config, { featureGates })      → { errors: string[], message } (message = upstream aggregate)
//   validateStartup(config, { featureGates }) second stage: TLS, authorization mode, reservations, policies
//   effectiveConfig({ file, dynamic, flags }) the precedence merge + validation used at boot and by
//                                           `dkc config validate`; returns the config or the errors
//   parseKubeletFlags(argv) / applyKubeletFlags(config, parsed)
//   FeatureGates.defaults().setFromMap(m), effectiveFeatureGates(m, base)
//   resolveRelativePaths(config, dir)
//   encode(config, 'yaml' | 'json'), toConfigzJSON(config) (the /configz body, no kind/apiVersion)
//   FIELD_SAFETY / safetyOf(path)           safe | disruptive | dangerous, with a reason, for every field (safety)
//   diffConfigs(a, b)                       the changed leaves between two defaulted configs (diff)
//   changeNeeds(from, to)                   restart | drain | drainAndReset (which checkpoints) per field (disruption)
//   kubeletVersion('1.31')                  the same as another kubelet minor (1.22 … newest): decode, setDefaults,
//                                           validate, validateStartup, effectiveConfig, encode, featureGates, and
//                                           check(bytes) → { ok, errors, unknownFields } for admission (versions)
//   render(base, dropIns)                   a base with --config-dir drop-ins merged over it (dropin)
//   Duration, Quantity                      exact value objects (bigint inside)
//
// Every thrown error is a KubeletConfigError with a stable `code` (see ErrorCodes).
//
// Modules: values (Duration, Quantity, Go renderings), text (JSON/YAML), codec (schema, decode, defaults,
// load, encode), safety, diff, dropin, suggest ("did you mean" for unknown fields), validation (feature gates and both stages), flags (flags and
// effectiveConfig), errors. The build packs them into one script loaded with a V8 code cache (scripts/bundle.mjs,
// docs/adr/0006-library-code-cache.md): the agent pays start-up on every restart (bench/kubeletconfig-startup.ts).

export { Duration, Quantity, type QuantityFormat } from './values.js';
export {
  ErrorCodes,
  KubeletConfigError,
  DecodeError,
  DurationError,
  QuantityError,
  FlagError,
  FeatureGateError,
  EncodeError,
  LayerError,
  aggregate,
  type ErrorCode,
} from './errors.js';
export type {
  KubeletConfiguration,
  PartialKubeletConfiguration,
  PartialKubeletAuthentication,
  PartialKubeletAuthorization,
  KubeletAuthentication,
  KubeletAuthorization,
  KubeletX509Authentication,
  KubeletWebhookAuthentication,
  KubeletAnonymousAuthentication,
  KubeletWebhookAuthorization,
  MemoryReservation,
  MemorySwapConfiguration,
  LoggingConfiguration,
  JSONValue,
} from './types.js';
export {
  API_VERSION,
  GROUP,
  KIND,
  VERSION,
  FIELD_NAMES,
  decode,
  load,
  setDefaults,
  flagsOnlyDefaults,
  cloneConfig,
  KubeletDefaults,
  resolveRelativePaths,
  joinPath,
  cleanPath,
  PATH_FIELDS,
  encode,
  toConfigzJSON,
  toJSONObject,
  type DecodeOptions,
  type DecodeResult,
  type DecodeWarning,
  type LoadOptions,
  type LoadResult,
  type EncodeFormat,
} from './codec.js';
export {
  FIELD_SAFETY,
  LATER_FIELD_SAFETY,
  SAFETY_CLASSES,
  safetyOf,
  fieldsBySafetyClass,
  type SafetyClass,
  type FieldSafety,
} from './safety.js';
export { diffConfigs, diffEncoded, formatPath, type FieldChange } from './diff.js';
export {
  changeNeeds,
  CPU_MANAGER_STATE,
  MEMORY_MANAGER_STATE,
  type ChangeNeed,
  type ChangeNeeds,
  type FieldNeed,
} from './disruption.js';
export {
  render,
  mergeLayers,
  applyDropIn,
  DROPIN_EXTENSION,
  type Layer,
  type LayerWarning,
  type MergeResult,
  type RenderResult,
} from './dropin.js';
export { suggestName } from './suggest.js';
export {
  validate,
  validateStartup,
  parseEvictionThreshold,
  EVICTION_SIGNALS,
  type EvictionThreshold,
  FeatureGates,
  KNOWN_FEATURES,
  effectiveFeatureGates,
  type FeatureSpec,
  type FeatureStage,
  type SetFeatureGatesResult,
  cpuSetError,
  TLS_CIPHER_SUITES,
  INSECURE_TLS_CIPHER_SUITES,
  TLS_VERSIONS,
  type ValidateOptions,
  type ValidationResult,
  type StartupOptions,
  type StartupCheckResult,
} from './validation.js';
export {
  KUBELET_MINORS,
  KUBELET_VERSIONS,
  NEWEST_KUBELET_VERSION,
  BASE_KUBELET_VERSION,
  KubeletVersion,
  KubeletVersionError,
  kubeletVersion,
  parseKubeletVersion,
  type FieldInfo,
  type ConfigCheck,
} from './versions.js';
export type { AnyKubeletConfiguration } from './rules.js';
export type { VersionTable, FieldRow, GateRow, TableKind } from './versions/table.js';
export {
  parseKubeletFlags,
  applyKubeletFlags,
  effectiveConfig,
  KUBELET_FLAGS,
  kubeletFlagStanding,
  kubeletFlagsOf,
  type FlagStanding,
  isIP,
  type GivenFlag,
  type KubeletFlagSpec,
  type ParsedKubeletFlags,
  type ConfigSource,
  type ConfigLayer,
  type ConfigWarning,
  type EffectiveConfigInput,
  type EffectiveConfigResult,
  type EffectiveConfigSuccess,
  type EffectiveConfigFailure,
  type KubeletBehaviour,
} from './flags.js';

/**
 * How this library's code was loaded, for start-up diagnostics: 'none' when tsc's output is imported directly;
 * after `npm run build` the generated loader (scripts/bundle.mjs) reports 'accepted' (bytecode from V8's code
 * cache), or 'rejected' / 'absent' (compiled as usual: the cache did not fit this node binary, or is missing).
 */
export const codeCache: CodeCacheState = 'none';

export type CodeCacheState = 'accepted' | 'rejected' | 'absent' | 'none';

/**
 * The same for the full YAML reader (the `yaml` package), which is loaded only when a document needs it (anchors,
 * block scalars, …): 'unused' until then; 'none' when tsc's output is imported directly.
 */
export function yamlCodeCache(): CodeCacheState | 'unused' {
  return 'none';
}
