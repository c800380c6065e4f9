// Where the page reads a node's assignment: the Node itself, or — where the API server drops the Node's fields — the
// node's NodeConfig (its spec.configSource and status.config), which `dkc ui` found once at start and tells the page
// on /ui/channel. Pure, so that the fleet and node pages group and judge a node the same way on either channel.

import type { NodeConfig } from '../../api/dkc/nodeconfig.js';
import type { Node } from '../../api/types.js';

export type UiChannel = 'node' | 'nodeconfig';

/** The answer of /ui/channel. */
export interface ChannelAnswer {
  channel: UiChannel;
}

/** The node with its NodeConfig's assignment (none when it has no NodeConfig yet); everything else its own. */
export function withNodeConfig(node: Node, nc: NodeConfig | undefined): Node {
  const spec = { ...(node.spec ?? {}) };
  const status = { ...(node.status ?? {}) };
  delete spec.configSource;
  delete status.config;
  if (nc?.spec?.configSource) spec.configSource = nc.spec.configSource;
  if (nc?.status?.config) status.config = nc.status.config;
  return { ...node, spec, status };
}

/** Every node of `nodes` as the page shows it on `channel`; the NodeConfigs keyed as the watch keys them (by name). */
export function assignedNodes(
  channel: UiChannel,
  nodes: ReadonlyMap<string, Node>,
  nodeConfigs: ReadonlyMap<string, NodeConfig>,
): ReadonlyMap<string, Node> {
  if (channel === 'node') return nodes;
  const byName = new Map([...nodeConfigs.values()].map((nc) => [nc.metadata.name ?? '', nc]));
  const out = new Map<string, Node>();
  for (const [key, n] of nodes) out.set(key, withNodeConfig(n, byName.get(n.metadata.name ?? '')));
  return out;
}
