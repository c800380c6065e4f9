// Layered configs: a base KubeletConfiguration with drop-ins merged over it in order, as the kubelet's
// `--config-dir` does (KEP-3983). The kubelet loads the base as usual (decode, defaults, relative paths resolved
// against its directory), then merges each drop-in's fields — only what the drop-in says, never its defaults —
// over the result, in lexical file order, and does not default again. A drop-in replaces:
//   - a scalar or a Duration outright, zero values included (`maxPods: 0` is 0, not 110);
//   - a list whole (`clusterDNS`, `tlsCipherSuites`, `reservedMemory`);
// and merges key by key:
//   - nested structs (`authorization.webhook.cacheAuthorizedTTL` alone leaves `authorization.mode`);
//   - maps (`featureGates`, `evictionHard`, …); for a map of lists (`staticPodURLHeader`) a key's list is replaced.
// A drop-in must be a whole KubeletConfiguration document (kind and apiVersion), decoded as strictly as the base.
// Its relative paths stay as written: the kubelet resolves only the base file's. A null in a drop-in changes
// nothing, as with the kubelet, whose merge cannot delete what the base set.

import {
  decode,
  kubeletConfigurationSpec,
  load,
  type DecodeOptions,
  type DecodeResult,
  type DecodeWarning,
  type LoadOptions,
  type LoadResult,
  type StructSpec,
} from './codec.js';
import { KubeletConfigError, LayerError } from './errors.js';
import type { KubeletConfiguration, PartialKubeletConfiguration } from './types.js';

/** The extension the kubelet reads in its --config-dir; other files there are ignored. */
export const DROPIN_EXTENSION = '.conf';

export interface Layer {
  bytes: Uint8Array | string;
  /** Names the layer in messages and warnings (a file path, `cm/NS/NAME:KEY`). */
  name: string;
  /** Directory the base's relative paths resolve against; ignored for drop-ins. */
  dir?: string;
}

export interface LayerWarning extends DecodeWarning {
  readonly source: string;
}

export interface RenderResult {
  config: KubeletConfiguration;
  warnings: LayerWarning[];
}

type Obj = Record<string, unknown>;

const MAP_KINDS = new Set(['stringMap', 'stringsMap', 'boolMap', 'quantityMap']);

function copy<T>(v: T): T {
  if (Array.isArray(v)) return v.map((x: unknown) => copy(x)) as T;
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const out: Obj = {};
    for (const [k, x] of Object.entries(v as Obj))
      Object.defineProperty(out, k, { value: copy(x), enumerable: true, writable: true, configurable: true });
    return out as T;
  }
  return v; // scalars, and the immutable Duration and Quantity values
}

/** `over`'s fields merged into a copy of `under`, by the rules above. */
export function mergeStruct(spec: StructSpec, under: Obj, over: Obj): Obj {
  const out: Obj = { ...under };
  for (const f of spec.fields) {
    const v = over[f.json];
    if (v === undefined) continue;
    if (f.kind === 'struct') out[f.json] = mergeStruct(f.struct!, (under[f.json] as Obj | undefined) ?? {}, v as Obj);
    else if (MAP_KINDS.has(f.kind))
      out[f.json] = { ...copy((under[f.json] as Obj | undefined) ?? {}), ...copy(v as Obj) };
    else out[f.json] = copy(v);
  }
  return out;
}

/** A drop-in over a loaded config; `schema` is another kubelet minor's (versions.ts). */
export function applyDropIn(
  config: KubeletConfiguration,
  dropIn: PartialKubeletConfiguration,
  schema: StructSpec = kubeletConfigurationSpec,
): KubeletConfiguration {
  return mergeStruct(schema, config as unknown as Obj, dropIn) as unknown as KubeletConfiguration;
}

/** How another kubelet minor loads and decodes (kubeletVersion(v).render passes its own); 1.22's by default. */
export interface RenderAs {
  load(bytes: Uint8Array | string, options: LoadOptions): LoadResult;
  decode(bytes: Uint8Array | string, options: DecodeOptions): DecodeResult;
  schema: StructSpec;
}

function layerError(layer: Layer, e: unknown): never {
  if (e instanceof KubeletConfigError) throw new LayerError(layer.name, e);
  throw e;
}

/** The effective config of a base and its drop-ins, in the order given. Throws LayerError naming the bad layer. */
export function render(
  base: Layer,
  dropIns: readonly Layer[],
  as: RenderAs = { load, decode, schema: kubeletConfigurationSpec },
): RenderResult {
  const warnings: LayerWarning[] = [];
  const note = (layer: Layer, ws: readonly DecodeWarning[]) =>
    warnings.push(...ws.map((w) => ({ ...w, source: layer.name })));
  let config: KubeletConfiguration;
  try {
    const loaded = as.load(
      base.bytes,
      base.dir === undefined ? { source: base.name } : { dir: base.dir, source: base.name },
    );
    note(base, loaded.warnings);
    config = loaded.config;
  } catch (e) {
    layerError(base, e);
  }
  for (const layer of dropIns) {
    try {
      const d = as.decode(layer.bytes, { source: layer.name, dropNulls: true });
      note(layer, d.warnings);
      config = applyDropIn(config, d.config, as.schema);
    } catch (e) {
      layerError(layer, e);
    }
  }
  return { config, warnings };
}

/** What the layers set, merged by the rules above: no layer is defaulted, and no relative path resolved. */
export interface MergeResult {
  config: PartialKubeletConfiguration;
  warnings: LayerWarning[];
}

/**
 * The layers merged in order with nothing added: only what they say, each decoded as `as` decodes (a null sets
 * nothing), for a config that each kubelet then defaults as its own minor, as it would its own --config file.
 * Throws LayerError naming the bad layer.
 */
export function mergeLayers(
  layers: readonly Layer[],
  as: Pick<RenderAs, 'decode' | 'schema'> = { decode, schema: kubeletConfigurationSpec },
): MergeResult {
  const warnings: LayerWarning[] = [];
  let config: Obj = {};
  for (const layer of layers) {
    try {
      const d = as.decode(layer.bytes, { source: layer.name, dropNulls: true });
      warnings.push(...d.warnings.map((w) => ({ ...w, source: layer.name })));
      config = mergeStruct(as.schema, config, d.config);
    } catch (e) {
      layerError(layer, e);
    }
  }
  return { config, warnings };
}
