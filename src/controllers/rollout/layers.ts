// A layered rollout's one ConfigMap: the layers (first = base, then drop-ins, with the kubelet's --config-dir
// merge) rendered into an immutable ConfigMap in dkc-configs, named `<rollout>-<hash>` by kubectl's --append-hash
// hash of its content, so the same layers always give the same name and creating it twice is harmless. Nodes are
// then assigned that ConfigMap like any other: they receive one whole object, as with upstream's configSource.
//
// The layers are decoded as the newest kubelet minor among the selected nodes decodes them, so that no field a
// selected kubelet knows is dropped, and the ConfigMap holds only what the layers set, never a minor's defaults:
// each kubelet defaults it as its own minor, as it does its own --config file. A node whose minor does not know a
// field the layers set is then incompatible with the rendered ConfigMap, and is judged so (ADR 28). Pure.

import type { ConfigMap, Node, NodeConfigSource } from '../../api/types.js';
import {
  KUBELET_VERSIONS,
  KubeletConfigError,
  LayerError,
  kubeletVersion,
  type KubeletVersion,
  type Layer,
} from '../../kubeletconfig/index.js';
import { nodeKubeletVersion } from '../../nodepolicy/kubelet.js';
import { configMapHash } from './confighash.js';
import { conditionMessages, conditionReasons } from './messages.js';
import type { LayerRef, NodeConfigRollout } from '../../api/dkc/rollout.js';
import { CONFIG_NAMESPACE } from '../../api/dkc/identity.js';

/** dkc's config namespace, the one nodes may read on a real cluster. */
export const RENDERED_NAMESPACE = CONFIG_NAMESPACE;
/** The key of the rendered ConfigMap that holds the KubeletConfiguration. */
export const RENDERED_KEY = 'kubelet';
/** Names the rollout that rendered a ConfigMap; a rollout re-created under the same name with the same layers finds it again. */
export const RENDERED_BY_LABEL = 'dkc.io/rendered-by';

export type RenderOutcome = { configMap: ConfigMap } | { failure: { reason: string; message: string } };

export function layersOf(r: NodeConfigRollout): readonly LayerRef[] {
  return r.spec?.layers ?? [];
}

export function isLayered(r: NodeConfigRollout): boolean {
  return layersOf(r).length > 0;
}

/** The configSource of a rendered ConfigMap, as it goes onto the nodes. */
export function renderedSource(name: string): NodeConfigSource {
  return { configMap: { namespace: RENDERED_NAMESPACE, name, kubeletConfigKey: RENDERED_KEY } };
}

function layerName(ref: LayerRef): string {
  const cm = ref.configMap;
  return `cm/${cm.namespace}/${cm.name}:${cm.kubeletConfigKey}`;
}

/** The layers' bytes, or why one cannot be read. */
function readLayers(
  refs: readonly LayerRef[],
  get: (namespace: string, name: string) => ConfigMap | undefined,
): Layer[] | RenderOutcome {
  const layers: Layer[] = [];
  for (const ref of refs) {
    const { namespace, name, kubeletConfigKey } = ref.configMap;
    const cm = get(namespace, name);
    if (!cm)
      return {
        failure: { reason: conditionReasons.layerNotFound, message: conditionMessages.layerNotFound(namespace, name) },
      };
    const bytes = cm.data?.[kubeletConfigKey];
    if (bytes === undefined) {
      return {
        failure: {
          reason: conditionReasons.layerNotFound,
          message: conditionMessages.layerKeyNotFound(namespace, name, kubeletConfigKey),
        },
      };
    }
    layers.push({ bytes, name: layerName(ref) });
  }
  return layers;
}

/**
 * The kubelet minor that renders the layers for these (selected) nodes: the newest among them; with none selected,
 * the newest the library knows.
 */
export function renderingKubelet(nodes: readonly Node[]): KubeletVersion {
  let newest: KubeletVersion | undefined;
  for (const n of nodes) {
    const kv = nodeKubeletVersion(n);
    if (!newest || kv.minor > newest.minor) newest = kv;
  }
  return newest ?? kubeletVersion(KUBELET_VERSIONS[KUBELET_VERSIONS.length - 1]);
}

/**
 * The ConfigMap `rollout`'s layers render to as `kubelet` decodes them (renderingKubelet), looked up with `get` (the
 * controller's informer cache), or the reason it cannot be rendered: a missing layer or key, or a layer that does
 * not decode.
 */
export function renderRollout(
  rollout: string,
  refs: readonly LayerRef[],
  get: (namespace: string, name: string) => ConfigMap | undefined,
  kubelet: KubeletVersion,
): RenderOutcome {
  const layers = readLayers(refs, get);
  if (!Array.isArray(layers)) return layers;
  let text: string;
  try {
    text = kubelet.encode(kubelet.mergeLayers(layers).config, 'yaml');
  } catch (err) {
    if (!(err instanceof KubeletConfigError)) throw err;
    const source = err instanceof LayerError ? err.source : '';
    return {
      failure: { reason: conditionReasons.renderFailed, message: conditionMessages.renderFailed(source, err.message) },
    };
  }
  const content: ConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: rollout },
    data: { [RENDERED_KEY]: text },
    immutable: true,
  };
  const name = `${rollout}-${configMapHash(content)}`;
  return {
    configMap: {
      ...content,
      metadata: { name, namespace: RENDERED_NAMESPACE, labels: { [RENDERED_BY_LABEL]: rollout } },
    },
  };
}

/**
 * The ConfigMaps a deleted rollout rendered that some node still runs or is assigned: before its finalizer goes they
 * lose their owner reference to it, so the garbage collector does not delete a config from under the nodes (a node
 * whose source is gone reports an error and can no longer restart onto it). Unused ones keep the reference and go
 * with the rollout. Pure: `rollout` is the rollout's uid, `configMaps` what the controller has seen in the rendered
 * namespace.
 */
export function renderedStillInUse(
  rolloutUid: string,
  configMaps: readonly ConfigMap[],
  nodes: readonly Node[],
): ConfigMap[] {
  const used = new Set<string>();
  for (const n of nodes) {
    for (const src of [n.spec?.configSource, n.status?.config?.active, n.status?.config?.lastKnownGood]) {
      const ref = src?.configMap;
      if (ref?.namespace === RENDERED_NAMESPACE) used.add(ref.name);
    }
  }
  return configMaps.filter(
    (cm) =>
      cm.metadata.namespace === RENDERED_NAMESPACE &&
      used.has(cm.metadata.name ?? '') &&
      (cm.metadata.ownerReferences ?? []).some((r) => r.uid === rolloutUid),
  );
}
