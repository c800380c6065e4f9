// The requests `dkc rollout` makes, through dkc's REST client: the rollout object itself, and the checks made before
// creating one (the ConfigMap and its key exist, the selector matches a node), so that a typo is refused at once
// instead of becoming a rollout that fails on its canary.

import type { RestClient } from '../../client/index.js';
import { configMapKeys, getConfigMap } from '../kubectl.js';
import { messages, RolloutError } from './errors.js';
import { collectionPath, objectPath, type ConfigMapRef, type NodeConfigRollout, type RolloutSpec } from './types.js';

export async function checkConfigMap(client: RestClient, ref: ConfigMapRef): Promise<void> {
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
