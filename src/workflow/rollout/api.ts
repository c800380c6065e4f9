// The requests `dkc rollout` makes, through dkc's REST client: the rollout object itself, and the checks made before
// creating one (the ConfigMap and its key exist, the selector matches a node), so that a typo is refused at once
// instead of becoming a rollout that fails on its canary.

import { isApiError, type RestClient } from '../../client/index.js';
import type { ConfigMap, Node } from '../../api/types.js';
import { NODE_CONFIGS_PATH, type KubeletReport, type NodeConfig } from '../../api/dkc/nodeconfig.js';
import { configMapKeys, getConfigMap } from '../kubectl.js';
import { messages, RolloutError } from './errors.js';
import { collectionPath, objectPath, type ConfigMapRef, type NodeConfigRollout, type RolloutSpec } from './types.js';

/** The ConfigMap `ref` names, refused when it or its key is missing. */
export async function checkConfigMap(client: RestClient, ref: ConfigMapRef): Promise<ConfigMap> {
  const cm = await getConfigMap(client, ref.namespace, ref.name);
  if (!cm)
    throw new RolloutError('DKC_ROLLOUT_CONFIGMAP_NOT_FOUND', messages.configMapNotFound(ref.namespace, ref.name));
  const keys = configMapKeys(cm);
  if (!keys.includes(ref.kubeletConfigKey)) {
    throw new RolloutError(
      'DKC_ROLLOUT_CONFIGMAP_KEY_MISSING',
      messages.configMapKeyMissing(ref.namespace, ref.name, ref.kubeletConfigKey, keys),
    );
  }
  return cm;
}

/** The names of the nodes `selector` matches, sorted; refused when it matches none. */
export async function matchingNodes(client: RestClient, selector: string): Promise<string[]> {
  const list = await client.list<{ items?: Node[] }>('/api/v1/nodes', { labelSelector: selector || undefined });
  const names = (list.items ?? []).map((n) => n.metadata.name ?? '').sort();
  if (names.length === 0) throw new RolloutError('DKC_ROLLOUT_NO_MATCHING_NODES', messages.noMatchingNodes(selector));
  return names;
}

/** Each node's daemon report (NodeConfig status.kubelet), by node name; none where NodeConfigs are not served. */
export async function kubeletReports(client: RestClient): Promise<Map<string, KubeletReport>> {
  let items: NodeConfig[];
  try {
    items = (await client.list<{ items?: NodeConfig[] }>(NODE_CONFIGS_PATH)).items ?? [];
  } catch (err) {
    if (isApiError(err) && err.status.code === 404) return new Map();
    throw err;
  }
  const out = new Map<string, KubeletReport>();
  for (const nc of items) if (nc.status?.kubelet) out.set(nc.metadata.name ?? '', nc.status.kubelet);
  return out;
}

/** Refuses a selector (kubectl syntax, "" for every node) that matches no node now. */
export async function checkNodes(client: RestClient, selector: string): Promise<void> {
  const list = await client.list<{ items?: unknown[] }>('/api/v1/nodes', {
    labelSelector: selector || undefined,
    limit: 1,
  });
  if ((list.items ?? []).length === 0)
    throw new RolloutError('DKC_ROLLOUT_NO_MATCHING_NODES', messages.noMatchingNodes(selector));
}

export function getRollout(client: RestClient, name: string): Promise<NodeConfigRollout> {
  return client.get<NodeConfigRollout>(objectPath(name));
}

export function createRollout(client: RestClient, rollout: NodeConfigRollout): Promise<NodeConfigRollout> {
  return client.create<NodeConfigRollout>(collectionPath(), rollout);
}

export async function listRollouts(client: RestClient): Promise<NodeConfigRollout[]> {
  return (await client.list<{ items?: NodeConfigRollout[] }>(collectionPath())).items ?? [];
}

/** A merge patch of the spec: the server answers 404 NotFound for an unknown rollout, in its own words. */
export function patchSpec(client: RestClient, name: string, spec: Partial<RolloutSpec>): Promise<NodeConfigRollout> {
  return client.patch<NodeConfigRollout>(objectPath(name), 'merge', { spec });
}
