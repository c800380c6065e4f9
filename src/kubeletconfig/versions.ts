// The kubelet minors this library knows, 1.22 to the newest, and one object per minor that decodes, defaults,
// validates and encodes KubeletConfiguration as that kubelet does. 1.22 is the library's own hand-written code
// (codec.ts, validation.ts, flags.ts), unchanged; a later minor is its generated table of facts
// (versions/kubelet-1.NN.ts: fields, documented defaults, feature gates) applied by the code here, plus the
// rules rules.ts adds by hand. A table is turned into a schema only when its minor is first asked for, so a process
// that needs one minor pays for that one (bench/kubeletconfig-startup.ts).
//
// For callers that judge a config against many nodes (admission, rollouts): kubeletVersion(v).check(bytes) answers
// "is this config valid for kubelet v, and which of its fields does v not know" without throwing; the objects are
// cached, so asking again for the same minor costs nothing.

import {
  API_VERSION,
  decodeAs,
  encode,
  fieldSpec,
  FIELD_NAMES,
  kubeletConfigurationSpec,
  KubeletDefaults,
  load as load122,
  resolveRelativePaths,
  setDefaults as setDefaults122,
  structSpec,
  toConfigzJSON,
  toJSONObject,
  type DecodeOptions,
  type DecodeResult,
  type DecodeWarning,
  type EncodeFormat,
  type FieldSpec,
  type LoadOptions,
  type LoadResult,
  type StructSpec,
} from './codec.js';
import { aggregate, DecodeError, distinct, ErrorCodes, KubeletConfigError } from './errors.js';
import { mergeLayers, render, type Layer, type MergeResult, type RenderResult } from './dropin.js';
import {
  effectiveConfig as effectiveConfig122,
  type EffectiveConfigInput,
  type EffectiveConfigResult,
  type KubeletBehaviour,
} from './flags.js';
import { applyLaterDefaults, laterRules, type AnyKubeletConfiguration } from './rules.js';
import type { JSONValue, KubeletConfiguration, PartialKubeletConfiguration } from './types.js';
import {
  effectiveFeatureGates,
  FeatureGates,
  KNOWN_FEATURES,
  rules as rules122,
  validate as validate122,
  validateStartup as validateStartup122,
  type FeatureSpec,
  type StartupCheckResult,
  type StartupOptions,
  type ValidateOptions,
  type ValidationResult,
} from './validation.js';
import type { FieldRow, TableKind, VersionTable } from './versions/table.js';
import table22 from './versions/kubelet-1.22.js';
import table23 from './versions/kubelet-1.23.js';
import table24 from './versions/kubelet-1.24.js';
import table25 from './versions/kubelet-1.25.js';
import table26 from './versions/kubelet-1.26.js';
import table27 from './versions/kubelet-1.27.js';
import table28 from './versions/kubelet-1.28.js';
import table29 from './versions/kubelet-1.29.js';
import table30 from './versions/kubelet-1.30.js';
import table31 from './versions/kubelet-1.31.js';
import table32 from './versions/kubelet-1.32.js';
import table33 from './versions/kubelet-1.33.js';
import table34 from './versions/kubelet-1.34.js';
import table35 from './versions/kubelet-1.35.js';
import table36 from './versions/kubelet-1.36.js';

/** Each minor's table, as a function: the data is built only when that minor is asked for. */
const TABLES: Readonly<Record<number, () => VersionTable>> = {
  22: table22,
  23: table23,
  24: table24,
  25: table25,
  26: table26,
  27: table27,
  28: table28,
  29: table29,
  30: table30,
  31: table31,
  32: table32,
  33: table33,
  34: table34,
  35: table35,
  36: table36,
};

export const KUBELET_MINORS: readonly number[] = Object.keys(TABLES)
  .map(Number)
  .sort((a, b) => a - b);
/** The newest kubelet minor the library knows: what `dkc config` judges against unless told otherwise. */
export const NEWEST_KUBELET_VERSION = `1.${KUBELET_MINORS[KUBELET_MINORS.length - 1]!}`;
/** The minor of the library's own hand-written code, and the agent's default. */
export const BASE_KUBELET_VERSION = '1.22';
/** Every minor, oldest first (`1.22`, `1.23`, …). */
export const KUBELET_VERSIONS: readonly string[] = KUBELET_MINORS.map((n) => `1.${n}`);

/** A version the library has no table for, or text that is not a version. */
export class KubeletVersionError extends KubeletConfigError {
  constructor(message: string) {
    super(ErrorCodes.UnknownVersion, message);
    this.name = 'KubeletVersionError';
  }
}

/** `1.31`, `v1.31`, `1.31.4`, `v1.31.0` → `1.31`. Throws KubeletVersionError. */
export function parseKubeletVersion(text: string): string {
  const m = /^v?1\.(\d{1,3})(?:\.\d+)?$/.exec(text.trim());
  if (!m)
    throw new KubeletVersionError(
      `invalid kubelet version ${JSON.stringify(text)}: want 1.MINOR, e.g. ${NEWEST_KUBELET_VERSION}`,
    );
  const minor = Number(m[1]);
  if (!TABLES[minor]) {
    throw new KubeletVersionError(
      `unsupported kubelet version ${JSON.stringify(text)}: known versions are ${KUBELET_VERSIONS[0]} to ${NEWEST_KUBELET_VERSION}`,
    );
  }
  return `1.${minor}`;
}

/** One field of a minor's schema, as its table states it. */
export interface FieldInfo {
  /** JSON path; `[]` marks a list's items (`registerWithTaints[].key`). */
  readonly path: string;
  readonly go: string;
  readonly kind: TableKind;
  readonly pointer: boolean;
  /** Written even when empty (no omitempty). */
  readonly always: boolean;
  /** The minor that introduced the field. */
  readonly since: string;
  /** What its doc comment gives as the default ('' when nothing). */
  readonly documentedDefault: string;
}

/** What check() answers. */
export interface ConfigCheck {
  /** Decodes, and passes validation and the start-up checks of this minor. */
  readonly ok: boolean;
  /** The kubelet's messages, decode errors included. */
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
  /** JSON paths the payload sets that this minor does not know (its kubelet ignores them, with a warning). */
  readonly unknownFields: readonly string[];
  /** The defaulted config, when it decoded. */
  readonly config?: AnyKubeletConfiguration;
}

function schemaFrom(rows: readonly FieldRow[]): StructSpec {
  const children = new Map<string, FieldRow[]>();
  for (const r of rows) {
    const path = r[0];
    const at = path.lastIndexOf('.');
    const parent = at < 0 ? '' : path.slice(0, at);
    let list = children.get(parent);
    if (!list) children.set(parent, (list = []));
    list.push(r);
  }
  const build = (parent: string, goType: string): StructSpec => {
    const fields: FieldSpec[] = [];
    for (const r of children.get(parent) ?? []) {
      const [path, go, kind, flags, structType] = r;
      const json = path.slice(path.lastIndexOf('.') + 1);
      const ptr = flags.includes('p');
      const always = flags.includes('a');
      if (kind === 'struct')
        fields.push(fieldSpec(json, go, 'struct', { ptr, always, struct: build(path, structType) }));
      else if (kind === 'structList' || kind === 'reservedMemory')
        fields.push(fieldSpec(json, go, kind, { ptr, always, struct: build(`${path}[]`, structType) }));
      else fields.push(fieldSpec(json, go, kind, { ptr, always }));
    }
    return structSpec(goType, fields);
  };
  return build('', 'v1beta1.KubeletConfiguration');
}

/** The paths a decoded payload sets, as the table writes them (list items as `[]`). */
function pathsOf(value: unknown, prefix: string, out: string[]): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) pathsOf(item, `${prefix}[]`, out);
    return;
  }
  for (const k of Object.keys(value)) {
    const p = prefix === '' ? k : `${prefix}.${k}`;
    out.push(p);
    const v = (value as Record<string, unknown>)[k];
    if (v !== null && typeof v === 'object' && (Array.isArray(v) || Object.getPrototypeOf(v) === Object.prototype))
      pathsOf(v, p, out);
  }
}

/** A kubelet minor: its schema, defaults, gates and validation. Get one with kubeletVersion(). */
export class KubeletVersion {
  readonly version: string;
  readonly minor: number;
  /** What the node reports as status.nodeInfo.kubeletVersion. */
  readonly gitVersion: string;
  private data?: VersionTable;
  private fieldMap?: ReadonlyMap<string, FieldInfo>;
  private spec?: StructSpec;
  private gateSpecs?: ReadonlyMap<string, FeatureSpec>;

  constructor(version: string) {
    this.version = version;
    this.minor = Number(version.split('.')[1]);
    this.gitVersion = `v${version}.0`;
  }

  /** The minor of the library's own code, whose every answer is the hand-written 1.22 one. */
  get isBase(): boolean {
    return this.minor === 22;
  }

  table(): VersionTable {
    return (this.data ??= TABLES[this.minor]!());
  }

  /** Every field and nested field of this minor, by JSON path. */
  fields(): ReadonlyMap<string, FieldInfo> {
    return (this.fieldMap ??= new Map(
      this.table().fields.map(([path, go, kind, flags, , since, def]) => [
        path,
        {
          path,
          go,
          kind,
          pointer: flags.includes('p'),
          always: flags.includes('a'),
          since: `1.${since}`,
          documentedDefault: def,
        },
      ]),
    ));
  }

  /** The top-level field names, in Go struct order. */
  fieldNames(): readonly string[] {
    return this.isBase ? FIELD_NAMES : [...this.fields().keys()].filter((p) => !p.includes('.') && !p.includes('['));
  }

  /** The decode/encode schema. */
  schema(): StructSpec {
    return (this.spec ??= this.isBase ? kubeletConfigurationSpec : schemaFrom(this.table().fields));
  }

  /** The gates this kubelet registers. */
  knownFeatures(): ReadonlyMap<string, FeatureSpec> {
    return (this.gateSpecs ??= this.isBase
      ? KNOWN_FEATURES
      : new Map(
          this.table().gates.map(
            ([name, def, stage, locked]) => [name, { name, default: def, stage, locked }] as const,
          ),
        ));
  }

  /** The default gate state of this kubelet. */
  featureGates(): FeatureGates {
    return FeatureGates.defaults(this.isBase ? undefined : this.knownFeatures());
  }

  decode(data: Uint8Array | string, options: DecodeOptions = {}): DecodeResult {
    return decodeAs(this.schema(), data, options);
  }

  /** SetDefaults_KubeletConfiguration of this minor. `gates` are those the process runs with (for two fields). */
  setDefaults(given: PartialKubeletConfiguration, gates?: FeatureGates): AnyKubeletConfiguration {
    const base = setDefaults122(given) as AnyKubeletConfiguration;
    if (this.isBase) return base;
    const known = new Set(FIELD_NAMES);
    for (const k of Object.keys(given)) {
      if (!known.has(k)) base[k] = structuredCloneKeep((given as Record<string, unknown>)[k]);
    }
    const g = effectiveFeatureGates(given.featureGates, gates ?? this.featureGates());
    const on = (name: string) => ('error' in g ? this.featureGates() : g.gates).on(name);
    applyLaterDefaults(this.minor, given, base, on);
    return base;
  }

  load(data: Uint8Array | string, options: LoadOptions = {}): LoadResult & { config: AnyKubeletConfiguration } {
    if (this.isBase) return load122(data, options) as LoadResult & { config: AnyKubeletConfiguration };
    const opts = options.source === undefined ? {} : { source: options.source };
    const { config, warnings } = this.decode(data, opts);
    const defaulted = this.setDefaults(config);
    return {
      config:
        options.dir === undefined
          ? defaulted
          : (resolveRelativePaths(defaulted, options.dir) as AnyKubeletConfiguration),
      warnings,
    };
  }

  /** The defaults of this minor as a complete config (`dkc config defaults`). */
  defaults(): AnyKubeletConfiguration {
    return this.setDefaults({});
  }

  encode(config: KubeletConfiguration | PartialKubeletConfiguration, format: EncodeFormat = 'yaml'): string {
    return encode(config, format, this.schema());
  }

  toConfigzJSON(config: KubeletConfiguration): string {
    return toConfigzJSON(config, this.schema());
  }

  toJSONObject(config: KubeletConfiguration | PartialKubeletConfiguration): { [key: string]: JSONValue } {
    return toJSONObject(config, this.schema());
  }

  /** ValidateKubeletConfiguration of this minor. Never throws. */
  validate(config: KubeletConfiguration, options: ValidateOptions = {}): ValidationResult {
    const version = { major: 1, minor: this.minor };
    if (this.isBase) return validate122(config, { ...options, version: options.version ?? version });
    try {
      const g = effectiveFeatureGates(config.featureGates, options.featureGates ?? this.featureGates());
      if ('error' in g) return { errors: [g.error], message: g.error };
      const errors = distinct([
        ...rules122(config, g.gates, { ...options, version }),
        ...laterRules(this.minor, config as AnyKubeletConfiguration, g.gates),
      ]);
      return { errors, message: aggregate(errors) };
    } catch (e) {
      const msg = `invalid configuration: cannot be validated: ${(e as Error)?.message ?? String(e)}`;
      return { errors: [msg], message: msg };
    }
  }

  validateStartup(config: KubeletConfiguration, options: StartupOptions = {}): StartupCheckResult {
    return validateStartup122(config, {
      featureGates: options.featureGates ?? this.featureGates(),
      version: { major: 1, minor: this.minor },
    });
  }

  /** The precedence merge and validation of flags.ts, as this minor. */
  effectiveConfig(input: EffectiveConfigInput): EffectiveConfigResult {
    return effectiveConfig122(this.isBase ? input : { ...input, kubelet: this.behaviour() });
  }

  /** What the layers set, merged in order as this minor decodes them, without defaults (dropin.ts mergeLayers). */
  mergeLayers(layers: readonly Layer[]): MergeResult {
    return mergeLayers(layers, { decode: (b, o) => this.decode(b, o), schema: this.schema() });
  }

  /** A base and its --config-dir drop-ins merged as this minor reads them (`dkc config render`). */
  render(base: Layer, dropIns: readonly Layer[]): RenderResult {
    return this.isBase
      ? render(base, dropIns)
      : render(base, dropIns, {
          load: (b, o) => this.load(b, o),
          decode: (b, o) => this.decode(b, o),
          schema: this.schema(),
        });
  }

  /** The paths of a decoded payload (or any JSON-shaped config) this minor has no field for. */
  unknownFields(config: object): string[] {
    const paths: string[] = [];
    pathsOf(config, '', paths);
    const known = this.fields();
    return paths.filter((p) => p !== 'kind' && p !== 'apiVersion' && !known.has(p) && !isMapEntry(p, known));
  }

  /** Decode, defaults, validation and the start-up checks of this minor, as one answer. Never throws. */
  check(data: Uint8Array | string, options: { source?: string; featureGates?: FeatureGates } = {}): ConfigCheck {
    let decoded: DecodeResult;
    try {
      decoded = this.decode(data, options.source === undefined ? {} : { source: options.source });
    } catch (e) {
      if (e instanceof DecodeError) return { ok: false, errors: [e.message], warnings: [], unknownFields: [] };
      throw e;
    }
    const unknownFields = decoded.warnings.filter((w) => w.code === 'UnknownField').map((w) => w.path);
    const warnings = decoded.warnings.map((w: DecodeWarning) => w.message);
    const config = this.setDefaults(decoded.config, options.featureGates);
    const gates = options.featureGates ?? this.featureGates();
    const v = this.validate(config, { featureGates: gates });
    if (v.errors.length > 0) return { ok: false, errors: v.errors, warnings, unknownFields, config };
    const s = this.validateStartup(config, { featureGates: gates });
    return {
      ok: s.errors.length === 0,
      errors: s.errors,
      warnings: [...warnings, ...s.warnings],
      unknownFields,
      config,
    };
  }

  /** What flags.ts's effectiveConfig needs to act as this minor. */
  behaviour(): KubeletBehaviour {
    return {
      minor: this.minor,
      load: (bytes, opts) => this.load(bytes, opts),
      validate: (config, opts) => this.validate(config, opts),
      gates: () => this.featureGates(),
      flagsOnlyDefaults: () => {
        const c = this.defaults();
        c.authentication.anonymous.enabled = true;
        c.authentication.webhook.enabled = false;
        c.authorization.mode = 'AlwaysAllow';
        c.readOnlyPort = KubeletDefaults.readOnlyPort;
        return c;
      },
    };
  }
}

/** A key inside a map-valued field (`evictionHard.memory.available`) is data, not a field. */
function isMapEntry(path: string, known: ReadonlyMap<string, FieldInfo>): boolean {
  for (let at = path.lastIndexOf('.'); at > 0; at = path.lastIndexOf('.', at - 1)) {
    const f = known.get(path.slice(0, at));
    if (f) return f.kind.endsWith('Map') || f.kind === 'json';
  }
  return false;
}

/** A deep copy that keeps Durations and Quantities (immutable) as they are. */
function structuredCloneKeep<T>(v: T): T {
  if (
    v === null ||
    typeof v !== 'object' ||
    'nanoseconds' in (v as object) ||
    !(Array.isArray(v) || Object.getPrototypeOf(v) === Object.prototype)
  )
    return v;
  if (Array.isArray(v)) return v.map((x: unknown) => structuredCloneKeep(x)) as T;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v))
    Object.defineProperty(out, k, {
      value: structuredCloneKeep((v as Record<string, unknown>)[k]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out as T;
}

const cache = new Map<number, KubeletVersion>();

/** The minor `version` names (`1.31`, `v1.31.0`; default the newest). Throws KubeletVersionError. */
export function kubeletVersion(version: string = NEWEST_KUBELET_VERSION): KubeletVersion {
  const v = parseKubeletVersion(version);
  const minor = Number(v.split('.')[1]);
  let kv = cache.get(minor);
  if (!kv) cache.set(minor, (kv = new KubeletVersion(v)));
  return kv;
}

export { API_VERSION };
