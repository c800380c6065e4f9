// Whether a config suits the kubelet of each node it would reach. A node is incompatible when its kubelet minor
// does not know a field the config sets that another minor knows (its kubelet would ignore it, or refuse it under
// strict decoding), or when its minor refuses the config while another minor accepts it (a rule or a gate that
// arrived or went). A config no minor accepts is not a matter of versions: it is just invalid, and goes the way of
// every invalid config (the node reports it, a rollout reverts). Pure; each minor is asked once.

import {
  KUBELET_VERSIONS,
  kubeletVersion,
  type ConfigCheck,
  type KubeletVersion,
  type Layer,
} from '../kubeletconfig/index.js';
import { errorMessage } from '../util/errors.js';

export interface NodeKubelet {
  node: string;
  kubelet: KubeletVersion;
}

export interface Incompatibility {
  node: string;
  /** The node's kubelet minor, `1.30`. */
  version: string;
  /** Fields the config sets that this minor does not know and another does. */
  unknownFields: readonly string[];
  /** This minor's refusal, when another minor accepts the config. */
  errors: readonly string[];
}

/** A config as one minor answers for it. */
export type VersionCheck = (version: string) => ConfigCheck;

/** The check of layers merged as the kubelet merges --config-dir drop-ins (the first is the base), as one minor. */
function checkLayers(layers: readonly Layer[], version: string): ConfigCheck {
  const kv = kubeletVersion(version);
  if (layers.length === 1) return kv.check(layers[0]!.bytes, { source: layers[0]!.name });
  let rendered;
  try {
    rendered = kv.render(layers[0]!, layers.slice(1));
  } catch (e) {
    return { ok: false, errors: [errorMessage(e)], warnings: [], unknownFields: [] };
  }
  const unknownFields = rendered.warnings.filter((w) => w.code === 'UnknownField').map((w) => w.path);
  const warnings = rendered.warnings.map((w) => w.message);
  const v = kv.validate(rendered.config);
  const errors = v.errors.length > 0 ? v.errors : kv.validateStartup(rendered.config).errors;
  return { ok: errors.length === 0, errors, warnings, unknownFields };
}

/** Per-minor answers for one config (its layers, or its bytes), each minor checked at most once. */
export function checksOf(config: string | readonly Layer[]): VersionCheck {
  const layers = typeof config === 'string' ? [{ name: 'config', bytes: config }] : config;
  const seen = new Map<string, ConfigCheck>();
  return (version) => {
    let c = seen.get(version);
    if (!c) seen.set(version, (c = checkLayers(layers, version)));
    return c;
  };
}

/** The nodes of `nodes` whose kubelet the config does not suit, in the order given. */
export function incompatibleNodes(
  config: string | readonly Layer[] | VersionCheck,
  nodes: readonly NodeKubelet[],
): Incompatibility[] {
  const check = typeof config === 'function' ? config : checksOf(config);
  const newest = check(KUBELET_VERSIONS[KUBELET_VERSIONS.length - 1]!);
  // A field no minor knows is a typo, not a version matter: the newest minor knows every field that exists.
  const knownSomewhere = (field: string): boolean =>
    !newest.unknownFields.includes(field) || KUBELET_VERSIONS.some((v) => !check(v).unknownFields.includes(field));
  let acceptedSomewhere: boolean | undefined;
  const accepted = (): boolean => (acceptedSomewhere ??= KUBELET_VERSIONS.some((v) => check(v).ok));
  const out: Incompatibility[] = [];
  for (const { node, kubelet } of nodes) {
    const c = check(kubelet.version);
    const unknownFields = c.unknownFields.filter(knownSomewhere);
    const errors = !c.ok && accepted() ? c.errors : [];
    if (unknownFields.length > 0 || errors.length > 0)
      out.push({ node, version: kubelet.version, unknownFields, errors });
  }
  return out;
}

const MAX_NAMED = 10;

function names(list: readonly string[]): string {
  const shown = list.slice(0, MAX_NAMED).join(', ');
  return list.length > MAX_NAMED ? `${shown} and ${list.length - MAX_NAMED} more` : shown;
}

/** What one node's kubelet lacks or refuses, for people: `unknown field singleProcessOOMKill`, then its refusals. */
export function reasonOf(i: Incompatibility): string {
  const n = i.unknownFields.length;
  return [...(n > 0 ? [`unknown field${n > 1 ? 's' : ''} ${i.unknownFields.join(', ')}`] : []), ...i.errors].join('; ');
}

/**
 * One line for people: per kubelet minor (oldest first), the nodes and what their kubelet lacks, e.g.
 * `kubelet 1.22 (node-1): unknown field imageMaximumGCAge; kubelet 1.30 (node-2, node-3): unknown field …`.
 */
export function describeIncompatible(list: readonly Incompatibility[]): string {
  const byVersion = new Map<string, Incompatibility[]>();
  for (const i of list) byVersion.set(i.version, [...(byVersion.get(i.version) ?? []), i]);
  const minor = (v: string): number => Number(v.split('.')[1]);
  return [...byVersion.entries()]
    .sort(([a], [b]) => minor(a) - minor(b))
    .map(([version, items]) => {
      return `kubelet ${version} (${names(items.map((i) => i.node))}): ${reasonOf(items[0]!)}`;
    })
    .join('; ');
}
