// Comparing two configs the way a node runs them. A KubeletConfiguration flag on the agent's command line beats any
// dynamic config (upstream's precedence), so the field it sets keeps the flag's value whatever is assigned: a change
// of that field in a ConfigMap is no change on the node. The agent records its config flags on its Node in one
// annotation (written with its registration, so it costs no request of its own; only the node itself may write it —
// NodeConfigPolicy admission), and everyone who compares a node's config with a target — policy admission, the
// agent judging an assignment, `dkc config diff` and `lint --against node/N`, the web view's node page — compares
// effectiveChange(running, target, flags): both sides with the flags applied. A flag whose value may be a credential
// (--manifest-url-header) is named but its value withheld; its field is held equal on both sides. Pure.

import {
  applyKubeletFlags,
  diffConfigs,
  KUBELET_FLAGS,
  parseKubeletFlags,
  type FieldChange,
  type KubeletConfiguration,
  type ParsedKubeletFlags,
} from '../kubeletconfig/index.js';

export const CONFIG_FLAGS_ANNOTATION = 'dkc.io/config-flags';

/** Flags whose values may be credentials (request headers): published by name only. */
const WITHHELD_FLAGS: ReadonlySet<string> = new Set(['manifest-url-header']);

/** A node's config flags as the server reads them from its annotation. */
export interface NodeConfigFlags {
  /** The flags whose values are published, in command-line order. */
  readonly given: ParsedKubeletFlags;
  /** The dotted field paths set by flags whose values are withheld. */
  readonly withheld: readonly string[];
}

/** The annotation's JSON form. */
interface FlagsRecord {
  flags: string[];
  withheld?: string[];
}

/** The annotation value an agent started with these config flags writes on its Node. */
export function configFlagsAnnotation(flags: ParsedKubeletFlags): string {
  const record: FlagsRecord = { flags: [] };
  const withheld = new Set<string>();
  for (const f of flags.given) {
    if (WITHHELD_FLAGS.has(f.name)) withheld.add(`--${f.name}`);
    else record.flags.push(`--${f.name}=${f.value}`);
  }
  if (withheld.size > 0) record.withheld = [...withheld];
  return JSON.stringify(record);
}

/** The flags of the agent itself, for its own judgements: every value is known to it. */
export function ownConfigFlags(flags: ParsedKubeletFlags): NodeConfigFlags {
  return { given: flags, withheld: [] };
}

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/**
 * A node's config flags from its annotations; undefined when there is no record or it cannot be read (then no field
 * is held by a flag, and a comparison lists more changes, never fewer).
 */
export function readConfigFlags(
  annotations: Readonly<Record<string, string>> | undefined,
): NodeConfigFlags | undefined {
  const text = annotations?.[CONFIG_FLAGS_ANNOTATION];
  if (text === undefined) return undefined;
  try {
    const record = JSON.parse(text) as Partial<FlagsRecord> | null;
    if (!record || !isStringArray(record.flags) || (record.withheld !== undefined && !isStringArray(record.withheld)))
      return undefined;
    const given = parseKubeletFlags(record.flags);
    if (given.rest.length > 0) return undefined;
    const withheld: string[] = [];
    for (const name of record.withheld ?? []) {
      const spec = KUBELET_FLAGS.get(name.replace(/^--/, ''));
      if (!spec) return undefined;
      withheld.push(spec.field);
    }
    return { given: { given: given.given, rest: [] }, withheld };
  } catch {
    return undefined;
  }
}

type Obj = Record<string, unknown>;

/** The value at a dotted path, or undefined. */
function valueAt(config: KubeletConfiguration, path: string): unknown {
  let v: unknown = config;
  for (const k of path.split('.')) v = v !== null && typeof v === 'object' ? (v as Obj)[k] : undefined;
  return v;
}

function setAt(config: KubeletConfiguration, path: string, value: unknown): void {
  const keys = path.split('.');
  let obj = config as unknown as Obj;
  for (const k of keys.slice(0, -1)) {
    if (obj[k] === null || typeof obj[k] !== 'object') obj[k] = {};
    obj = obj[k] as Obj;
  }
  const last = keys[keys.length - 1]!;
  if (value === undefined) delete obj[last];
  else obj[last] = structuredClone(value);
}

/** What a node runs with its flags over `config`; a withheld flag's field keeps `held`'s value. */
function underFlags(
  config: KubeletConfiguration,
  flags: NodeConfigFlags | undefined,
  held?: KubeletConfiguration,
): KubeletConfiguration {
  if (!flags) return config;
  const out = applyKubeletFlags(config, flags.given);
  if (held) for (const path of flags.withheld) setAt(out, path, valueAt(held, path));
  return out;
}

export interface EffectiveChange {
  /** What the node runs: `running` with its flags applied. */
  readonly before: KubeletConfiguration;
  /** What it would run given `target`: the flags applied, withheld fields as before. */
  readonly after: KubeletConfiguration;
}

/**
 * The one comparison of a node's config with a target: both as the node runs them, flags applied to both (applying
 * them again to an effective config, such as a /configz answer, changes nothing). Without flags (no record), the
 * configs as they are.
 */
export function effectiveChange(
  running: KubeletConfiguration,
  target: KubeletConfiguration,
  flags: NodeConfigFlags | undefined,
): EffectiveChange {
  const before = underFlags(running, flags);
  return { before, after: underFlags(target, flags, before) };
}

/** The changed leaves of effectiveChange, as `dkc config diff` lists them; `schema` is a kubelet minor's (the 1.22 one by default). */
export function configChanges(
  running: KubeletConfiguration,
  target: KubeletConfiguration,
  flags: NodeConfigFlags | undefined,
  schema?: Parameters<typeof diffConfigs>[2],
): FieldChange[] {
  const { before, after } = effectiveChange(running, target, flags);
  return diffConfigs(before, after, schema);
}
