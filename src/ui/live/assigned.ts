// The nodes as the pages show them, live: a list-watch of the Nodes and, on the NodeConfig channel, one of the
// NodeConfigs, merged (../model/assignment.ts) each time either changes, and shown only once both have listed, so that
// a node never flashes as unassigned while its NodeConfig is on its way. Web APIs only, as ./watch.ts.

import { NODE_CONFIGS_PATH, type NodeConfig } from '../../api/dkc/nodeconfig.js';
import type { Node } from '../../api/types.js';
import { assignedNodes, type UiChannel } from '../model/assignment.js';
import { listWatch, type WatchHandlers } from './watch.js';

type Query = Record<string, string | undefined>;

/** Starts the watches; the returned function stops them. `nodeConfigQuery` narrows the NodeConfigs (by name). */
export function watchAssignedNodes(
  channel: UiChannel,
  nodeQuery: Query,
  nodeConfigQuery: Query,
  handlers: WatchHandlers<Node>,
  fetch: typeof globalThis.fetch = globalThis.fetch,
): () => void {
  let nodes: ReadonlyMap<string, Node> | undefined;
  let nodeConfigs: ReadonlyMap<string, NodeConfig> | undefined = channel === 'node' ? new Map() : undefined;
  const show = (): void => {
    if (nodes !== undefined && nodeConfigs !== undefined) handlers.items(assignedNodes(channel, nodes, nodeConfigs));
  };
  const stopNodes = listWatch<Node>(
    '/api/v1/nodes',
    nodeQuery,
    { items: (m) => ((nodes = m), show()), connection: (c) => handlers.connection(c) },
    fetch,
  );
  const stopNodeConfigs =
    channel === 'nodeconfig'
      ? listWatch<NodeConfig>(
          NODE_CONFIGS_PATH,
          nodeConfigQuery,
          { items: (m) => ((nodeConfigs = m), show()), connection: () => undefined },
          fetch,
        )
      : () => undefined;
  return () => {
    stopNodes();
    stopNodeConfigs();
  };
}
