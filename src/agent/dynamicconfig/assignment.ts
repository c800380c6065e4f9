// The assignment channel: where the node's assigned config source comes from and where its status.config goes. On the
// Node channel the node's own Node carries both (spec.configSource, status.config), as kube-apiserver before 1.24 and
// dkc server by default keep them; on the NodeConfig channel the node's NodeConfig (dkc.io/v1alpha1, named after the
// node, owned by it) carries the same two fields, which every kube-apiserver keeps. The controller talks to one
// AssignmentChannel, chosen once at start (findchannel.ts): its sync, boot decision, status, events and metrics are
// the same on both.

import { NODE_CONFIGS_PATH, newNodeConfig, nodeConfigName } from '../../api/dkc/nodeconfig.js';
import type { ObjectMeta } from '../../api/types.js';
import type { ConfigChannel } from '../../client/channel.js';
import { isApiError } from '../../client/errors.js';
import { Informer, type KubeObject, type ListWatcher } from '../../client/informer.js';
import type { CallOptions, PatchType } from '../../client/rest.js';
import { fieldSelectorValue, type MaybeSource, type NodeConfigSource } from './source.js';
import type { NodeConfigStatus } from './status.js';

/** The object that carries an assignment: a Node and a NodeConfig both hold it in `spec.configSource`. */
export interface AssignmentObject extends KubeObject {
  spec?: { configSource?: NodeConfigSource | null };
}

/** What the controller hears about the object that carries the node's assignment. */
export interface AssignmentHandlers {
  /** The object is there: listed for the first time, or created. */
  added(source: MaybeSource): void;
  updated(before: MaybeSource, after: MaybeSource): void;
  /** The object was deleted. */
  deleted(): void;
  /** A list or watch of the object failed (it is retried). */
  failed(err: unknown): void;
}

export interface AssignmentWatch {
  /** The object, as log lines name it: `Node "node-1"`, `NodeConfig "node-1"`. */
  readonly what: string;
  /** The assigned source (undefined: the local config); throws while the object is not in the cache. */
  source(): NodeConfigSource | undefined;
  /** The object that carries the assignment, as the cache holds it (undefined: not there). */
  object(): AssignmentObject | undefined;
  hasSynced(): boolean;
  /** Resolves true once the object's collection has been listed, false when stopped first. */
  whenSynced(): Promise<boolean>;
  stop(): Promise<void>;
}

/** What a channel asks of the API server. */
export interface AssignmentClient {
  get<T = unknown>(path: string, options?: CallOptions): Promise<T>;
  create<T = unknown>(path: string, body: unknown, options?: CallOptions): Promise<T>;
  patch<T = unknown>(path: string, type: PatchType, patch: unknown, options?: CallOptions): Promise<T>;
}

export interface AssignmentChannel {
  readonly kind: ConfigChannel;
  /**
   * Follows the node's assignment through `handlers`. `node` is the controller's informer on the node's own Node, which
   * it keeps on either channel (the node's labels decide its policies) and whose failures and deletion it reports
   * itself: the Node channel reads the assignment from it, the NodeConfig channel watches the node's NodeConfig.
   */
  watch(
    client: ListWatcher,
    nodeName: string,
    node: Informer<AssignmentObject>,
    handlers: AssignmentHandlers,
  ): AssignmentWatch;
  /** Writes status.config (every field; an absent one as null) through the status subresource of the object. */
  publish(client: Pick<AssignmentClient, 'patch'>, nodeName: string, config: NodeConfigStatus): Promise<void>;
  /**
   * Once the node's Node is registered: what else the channel needs before an assignment can reach the node. The
   * NodeConfig channel creates the node's NodeConfig when it is absent.
   */
  registered(
    client: Pick<AssignmentClient, 'create'>,
    node: { metadata: ObjectMeta },
    options?: CallOptions,
  ): Promise<void>;
}

export const messages = {
  node: (name: string) => `Node ${JSON.stringify(name)}`,
  nodeConfig: (name: string) => `NodeConfig ${JSON.stringify(name)}`,
  notCached: (what: string) => `could not find ${what} in the informer's cache`,
};

function sourceOf(o: AssignmentObject | undefined): NodeConfigSource | undefined {
  const src = o?.spec?.configSource;
  return src ? structuredClone(src) : undefined;
}

/** status.config as both channels write it: the whole object, absent fields as null. */
function statusBody(config: NodeConfigStatus): unknown {
  return {
    status: {
      config: {
        assigned: config.assigned ?? null,
        active: config.active ?? null,
        lastKnownGood: config.lastKnownGood ?? null,
        error: config.error ?? null,
      },
    },
  };
}

/** An AssignmentWatch over an informer whose cache holds the object under `key`; `owned` informers are started and stopped here. */
function informerWatch(
  informer: Informer<AssignmentObject>,
  key: string,
  what: string,
  handlers: AssignmentHandlers,
  owned: boolean,
): AssignmentWatch {
  const off = [
    informer.on('add', (o) => handlers.added(sourceOf(o))),
    informer.on('update', (a, b) => handlers.updated(sourceOf(a), sourceOf(b))),
    ...(owned
      ? [informer.on('delete', () => handlers.deleted()), informer.on('error', (err) => handlers.failed(err))]
      : []),
  ];
  if (owned) informer.start();
  return {
    what,
    source() {
      const o = informer.store.get(key);
      if (!o) throw new Error(messages.notCached(what));
      return sourceOf(o);
    },
    object: () => informer.store.get(key),
    hasSynced: () => informer.hasSynced(),
    whenSynced: () => informer.whenSynced(),
    async stop() {
      for (const f of off) f();
      if (owned) await informer.stop();
    },
  };
}

/** The Node channel: the node's own Node, as upstream's kubelet. */
export const nodeChannel: AssignmentChannel = {
  kind: 'node',
  watch: (_client, nodeName, node, handlers) => informerWatch(node, nodeName, messages.node(nodeName), handlers, false),
  publish: async (client, nodeName, config) => {
    await client.patch(`/api/v1/nodes/${encodeURIComponent(nodeName)}/status`, 'merge', statusBody(config));
  },
  registered: async () => {},
};

/** The NodeConfig channel: the node's NodeConfig, read through a watch pinned to its name (all a node may read). */
export const nodeConfigChannel: AssignmentChannel = {
  kind: 'nodeconfig',
  watch: (client, nodeName, _node, handlers) => {
    const name = nodeConfigName(nodeName);
    const informer = new Informer<AssignmentObject>(client, NODE_CONFIGS_PATH, {
      fieldSelector: `metadata.name=${fieldSelectorValue(name)}`,
    });
    return informerWatch(informer, name, messages.nodeConfig(name), handlers, true);
  },
  publish: async (client, nodeName, config) => {
    await client.patch(
      `${NODE_CONFIGS_PATH}/${encodeURIComponent(nodeConfigName(nodeName))}/status`,
      'merge',
      statusBody(config),
    );
  },
  registered: async (client, node, options) => {
    try {
      await client.create(NODE_CONFIGS_PATH, newNodeConfig(node), options);
    } catch (err) {
      // Created by an earlier start of this node (or by an operator assigning ahead of it).
      if (!isApiError(err, 409)) throw err;
    }
  },
};

export const assignmentChannels: Readonly<Record<ConfigChannel, AssignmentChannel>> = {
  node: nodeChannel,
  nodeconfig: nodeConfigChannel,
};
