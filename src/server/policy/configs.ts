// The two configs a policy compares, read for one request: the target (the ConfigMap a configSource names, or a
// rollout's layers rendered as the rollout controller renders them) and what a node runs now (the ConfigMap its
// status.config.active names; on its local config, its own /configz; the kubelet's defaults when that does not
// answer — see docs/adr/0013-nodeconfigpolicy-baseline.md). A target that is missing or does not decode is no
// policy matter: undefined, and the agent reports it as upstream does. Every ConfigMap is read once per request; a
// ConfigMap being written is judged by its new content, given by the request rather than read. Configs are decoded
// and defaulted as the node's kubelet minor does (src/nodepolicy/kubelet.ts).

import type { ConfigMap, ConfigMapNodeConfigSource, KubeObject, Node } from '../../api/types.js';
import {
  API_VERSION,
  KIND,
  type KubeletConfiguration,
  type KubeletVersion,
  type Layer,
} from '../../kubeletconfig/index.js';
import { deepEqual } from '../../api/equal.js';
import { klog } from '../../util/klog.js';
import type { ServerReads } from '../authz.js';
import type { RunningOrigin } from '../auth/audience.js';
import { messages } from './messages.js';
import { errorMessage } from '../../util/errors.js';

/** A node's running config, and where it was read from. */
export interface Running {
  config: KubeletConfiguration;
  origin: RunningOrigin;
}

export type ConfigMapRef = Pick<ConfigMapNodeConfigSource, 'namespace' | 'name' | 'kubeletConfigKey'>;

/** How long a node's /configz may take before the defaults stand in for its local config. */
export const CONFIGZ_TIMEOUT_MS = 2000;
/** The key of the 1.8-alpha `configMapRef` form. */
const LEGACY_KEY = 'kubelet';

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The ConfigMap a Node.spec.configSource (or status.config.active) names, either form; undefined for none. */
export function configMapRefOf(source: unknown): ConfigMapRef | undefined {
  if (!isRecord(source)) return undefined;
  const cm = source['configMap'];
  if (isRecord(cm) && str(cm['name']))
    return { namespace: str(cm['namespace']), name: str(cm['name']), kubeletConfigKey: str(cm['kubeletConfigKey']) };
  const legacy = source['configMapRef'];
  if (isRecord(legacy) && str(legacy['name']))
    return { namespace: str(legacy['namespace']), name: str(legacy['name']), kubeletConfigKey: LEGACY_KEY };
  return undefined;
}

function payload(cm: ConfigMap, key: string): string | Uint8Array | undefined {
  if (cm.data && Object.hasOwn(cm.data, key)) return cm.data[key];
  if (cm.binaryData && Object.hasOwn(cm.binaryData, key)) return Buffer.from(cm.binaryData[key]!, 'base64');
  return undefined;
}

/**
 * The ConfigMap an admission request writes, when what a kubelet reads may change: a create, or an update of data or
 * binaryData (a write that keeps both, labels or annotations only, is not judged); undefined otherwise.
 */
export function kubeletPayloadWrite(object: unknown, oldObject: unknown, operation: string): ConfigMap | undefined {
  const cm = object as ConfigMap | undefined;
  if (!cm) return undefined;
  if (operation === 'UPDATE') {
    const old = oldObject as ConfigMap | undefined;
    if (deepEqual(cm.data ?? {}, old?.data ?? {}) && deepEqual(cm.binaryData ?? {}, old?.binaryData ?? {}))
      return undefined;
  }
  return cm;
}

export class ConfigReader {
  private readonly layerReads = new Map<string, Promise<Layer | undefined>>();

  constructor(private readonly reads: ServerReads) {}

  /** A ConfigMap's key as a layer; undefined when the ConfigMap or the key is missing. */
  private layer(ref: ConfigMapRef): Promise<Layer | undefined> {
    const id = `${ref.namespace}/${ref.name}:${ref.kubeletConfigKey}`;
    let p = this.layerReads.get(id);
    if (!p) {
      p = this.reads.get('', 'configmaps', ref.namespace, ref.name).then((cm) => {
        const bytes = cm ? payload(cm, ref.kubeletConfigKey) : undefined;
        return bytes === undefined ? undefined : { name: `cm/${id}`, bytes };
      });
      this.layerReads.set(id, p);
    }
    return p;
  }

  /** The layers `refs` name, as bytes (the first is the base); undefined when any ConfigMap or key is missing. */
  async layers(refs: readonly ConfigMapRef[]): Promise<Layer[] | undefined> {
    const layers = await Promise.all(refs.map((r) => this.layer(r)));
    return refs.length === 0 || layers.some((l) => l === undefined) ? undefined : (layers as Layer[]);
  }

  /** A ConfigMap object's key (one being written, not yet stored) as a layer; undefined when it has no such key. */
  static layerOf(cm: ConfigMap, key: string): Layer | undefined {
    const bytes = payload(cm, key);
    return bytes === undefined
      ? undefined
      : { name: `cm/${cm.metadata.namespace ?? ''}/${cm.metadata.name ?? ''}:${key}`, bytes };
  }

  /** The decoded, defaulted config of a ConfigMap; undefined when it is missing or does not decode. */
  async configMap(ref: ConfigMapRef, kv: KubeletVersion): Promise<KubeletConfiguration | undefined> {
    return this.rendered([ref], kv);
  }

  /** The config a ConfigMap object (one being written, not yet stored) holds under `key`; undefined as configMap(). */
  static decoded(cm: ConfigMap, key: string, kv: KubeletVersion): KubeletConfiguration | undefined {
    const bytes = payload(cm, key);
    if (bytes === undefined) return undefined;
    try {
      return kv.render({ name: `cm/${cm.metadata.namespace ?? ''}/${cm.metadata.name ?? ''}:${key}`, bytes }, [])
        .config;
    } catch {
      return undefined;
    }
  }

  /** Layers merged in order with drop-in semantics (the first is the base); undefined when any is missing or bad. */
  async rendered(refs: readonly ConfigMapRef[], kv: KubeletVersion): Promise<KubeletConfiguration | undefined> {
    const layers = await this.layers(refs);
    if (!layers) return undefined;
    try {
      const [base, ...dropIns] = layers;
      return kv.render(base!, dropIns).config;
    } catch {
      return undefined;
    }
  }

  /** What the node runs now: its active ConfigMap, else its /configz, else the defaults. */
  async current(node: Node | KubeObject, kv: KubeletVersion): Promise<KubeletConfiguration> {
    return (await this.running(node, kv)).config;
  }

  /** What the node runs now, and where that was read from (who may be told its values depends on it). */
  async running(node: Node | KubeObject, kv: KubeletVersion): Promise<Running> {
    const config = isRecord(node['status']) ? node['status']['config'] : undefined;
    const active = configMapRefOf(isRecord(config) ? config['active'] : undefined);
    const fromConfigMap = active ? await this.configMap(active, kv) : undefined;
    if (active && fromConfigMap)
      return { config: fromConfigMap, origin: { kind: 'configMap', namespace: active.namespace, name: active.name } };
    return this.configz(node, kv);
  }

  private async configz(node: KubeObject, kv: KubeletVersion): Promise<Running> {
    const name = node.metadata.name ?? '';
    try {
      const body = JSON.parse(await this.reads.nodeGet(node, '/configz', CONFIGZ_TIMEOUT_MS)) as {
        kubeletconfig?: unknown;
      };
      if (!isRecord(body.kubeletconfig)) throw new Error('no kubeletconfig object in the answer');
      const config = kv.load(JSON.stringify({ ...body.kubeletconfig, kind: KIND, apiVersion: API_VERSION })).config;
      return { config, origin: { kind: 'configz', node: name } };
    } catch (err) {
      klog.info(messages.configzFallback(name, errorMessage(err)));
      return { config: kv.defaults(), origin: { kind: 'defaults' } };
    }
  }
}
