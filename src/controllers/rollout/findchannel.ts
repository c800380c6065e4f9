// The rollout controller's channel, found once at start: the server's release and whether it serves NodeConfigs
// decide (src/client/channel.ts), `--config-channel` may force it, one log line says which, and a cluster whose
// assignments live on both channels is refused — a controller assigning on one would never see what the other says.

import { NODE_CONFIGS_PATH, type NodeConfig } from '../../api/dkc/nodeconfig.js';
import type { Node } from '../../api/types.js';
import {
  discoverChannel,
  mixedChannels,
  type AssignmentsSeen,
  type ChannelChoice,
  type ConfigChannel,
} from '../../client/channel.js';
import { isApiError, type RestClient } from '../../client/index.js';
import { klog } from '../../util/klog.js';
import { NODES_PATH } from './assignment.js';

type Lister = Pick<RestClient, 'get' | 'list'>;

/** The names of the objects that carry a spec.configSource. Pure. */
export function assignedNames(
  items: readonly { metadata: { name?: string }; spec?: { configSource?: unknown } | null }[],
): string[] {
  return items
    .filter((o) => o.spec?.configSource !== undefined && o.spec.configSource !== null)
    .map((o) => o.metadata.name ?? '');
}

/** The Nodes and NodeConfigs that carry an assignment now (no NodeConfigs where the kind is not served). */
export async function assignmentsSeen(client: Lister, signal?: AbortSignal): Promise<AssignmentsSeen> {
  const options = signal ? { signal } : {};
  const nodes = await client.list<{ items?: Node[] }>(NODES_PATH, options);
  let nodeConfigs: NodeConfig[] = [];
  try {
    nodeConfigs = (await client.list<{ items?: NodeConfig[] }>(NODE_CONFIGS_PATH, options)).items ?? [];
  } catch (err) {
    if (!isApiError(err) || err.code !== 404) throw err;
  }
  return { nodes: assignedNames(nodes.items ?? []), nodeConfigs: assignedNames(nodeConfigs) };
}

/** Finds the channel, says it in one log line, and refuses (a ConfigChannelError) a cluster that mixes channels. */
export async function findChannel(
  client: RestClient,
  choice: ChannelChoice = 'auto',
  signal?: AbortSignal,
): Promise<ConfigChannel> {
  const decision = await discoverChannel(client, choice, signal);
  klog.info(decision.says);
  const mixed = mixedChannels(decision.channel, await assignmentsSeen(client, signal));
  if (mixed) throw mixed;
  return decision.channel;
}
