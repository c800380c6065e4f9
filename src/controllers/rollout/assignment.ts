// Where the rollout controller reads and writes a node's assignment: the Node itself (spec.configSource,
// status.config and the dkc.io/rollout annotation on the Node), or the node's NodeConfig (the same three on the
// NodeConfig named after it) where the API server drops the Node's fields. One interface, two implementations, chosen
// once at start: the plan sees every node as a Node whose assignment fields come from the channel's record
// (`assignmentView`), and hands back assignments the channel writes where it keeps them. Health (the Node's conditions,
// its Lease), labels and everything else stay the Node's.

import {
  DKC_API_VERSION,
  NODE_CONFIGS_PATH,
  NODE_CONFIG_KIND,
  newNodeConfig,
  nodeConfigName,
  type KubeletReport,
  type NodeConfig,
  type PreviousAssignment,
} from '../../api/dkc/nodeconfig.js';
import { deepEqual } from '../../api/equal.js';
import type { Node } from '../../api/types.js';
import type { ConfigChannel } from '../../client/channel.js';
import type { RestClient } from '../../client/index.js';
import type { InformerLike, SharedInformerFactory } from '../../client/sharedinformers.js';
import type { NodeAssignment } from './plan/index.js';
import { channelMessages as messages } from './messages.js';
import {
  LEGACY_PREVIOUS_SOURCE_ANNOTATION,
  REVERT_RECORD_ANNOTATION,
  ROLLOUT_ANNOTATION,
} from '../../api/dkc/rollout.js';
import { WrittenObjects } from './written.js';
import { FIELD_MANAGER, appliedAssignment, applyAssignment, assignmentPatch, type AssignmentPatch } from './apply.js';

export const NODES_PATH = '/api/v1/nodes';

/** An API object as the client's informer holds it (its metadata open to fields the client does not name). */
export type Cached<T extends { metadata: object }> = T & { metadata: T['metadata'] & { [k: string]: unknown } };
type CachedNode = Cached<Node>;
type CachedNodeConfig = Cached<NodeConfig>;

export type AssignmentClient = Pick<RestClient, 'list' | 'watch' | 'patch' | 'create'>;

/** What the controller needs of a channel. */
export interface AssignmentWriter {
  readonly channel: ConfigChannel;
  /** The informers the channel reads besides the Nodes' (started, synced and stopped with the controller's). */
  readonly informers: readonly InformerLike<{ metadata: { name?: string } }>[];
  /**
   * Calls `changed` with the node's name whenever an assignment record changes (beyond the Node events the
   * controller follows itself).
   */
  onChange(changed: (node: string) => void): void;
  /** The node as the plan sees it: its assignment fields, rollout annotation and resourceVersion from the channel's record. */
  view(node: Node): Node;
  /**
   * Writes one of the plan's node assignments where the channel keeps them, conditioned on the view's
   * resourceVersion; `node` is the informer's Node now (undefined once it is gone: the write then fails, and the
   * rollout is looked at again).
   */
  write(a: NodeAssignment, node: Node | undefined, signal: AbortSignal): Promise<void>;
  /** The node is gone: what was written about it no longer matters. */
  forget(node: string): void;
  /** What the node's daemon reports of its kubelet (NodeConfig status.kubelet); undefined where it reports nothing. */
  kubelet(node: string): KubeletReport | undefined;
}

/** The annotations the controller owns on an assignment record; on the NodeConfig channel a Node's copies mean nothing. */
const OWN_ANNOTATIONS = [ROLLOUT_ANNOTATION, LEGACY_PREVIOUS_SOURCE_ANNOTATION];

/**
 * The Node as the plan sees it on the NodeConfig channel: spec.configSource, status.config, the controller's
 * annotations (the guarded revert record from status.previous) and the resourceVersion a write is conditioned on are the NodeConfig's (nothing assigned, no
 * resourceVersion, when the node has none yet); labels, conditions and the rest are the Node's. Pure.
 */
export function assignmentView(node: Node, nc: NodeConfig | undefined): Node {
  const annotations: Record<string, string> = { ...(node.metadata.annotations ?? {}) };
  for (const k of OWN_ANNOTATIONS) {
    delete annotations[k];
    const v = nc?.metadata.annotations?.[k];
    if (v !== undefined) annotations[k] = v;
  }
  // The guarded revert record is the NodeConfig's status.previous here; the Node's annotation means nothing.
  delete annotations[REVERT_RECORD_ANNOTATION];
  const record = nc?.status?.previous;
  if (record !== undefined && record !== null) annotations[REVERT_RECORD_ANNOTATION] = JSON.stringify(record);
  const metadata = { ...node.metadata, annotations };
  delete metadata.resourceVersion;
  if (nc?.metadata.resourceVersion !== undefined) metadata.resourceVersion = nc.metadata.resourceVersion;
  const spec = { ...(node.spec ?? {}) };
  delete spec.configSource;
  const source = nc?.spec?.configSource;
  if (source) spec.configSource = source;
  const status = { ...(node.status ?? {}) };
  delete status.config;
  const config = nc?.status?.config;
  if (config) status.config = config;
  return { ...node, metadata, spec, status };
}

/**
 * The NodeConfig an assignment's patch creates when the node has none: the node's own (owned by it), assigned the
 * patch's source and annotated as the patch says (a null, a removal, is simply left out). Pure.
 */
export function createdNodeConfig(node: Node, p: AssignmentPatch): NodeConfig {
  const nc = newNodeConfig(node);
  const annotations = Object.fromEntries(
    Object.entries(p.metadata.annotations).filter((e): e is [string, string] => e[1] !== null),
  );
  if (Object.keys(annotations).length > 0) nc.metadata.annotations = annotations;
  nc.spec = p.spec?.configSource ? { configSource: p.spec.configSource } : {};
  return nc;
}

/** The Node channel: the plan's assignments go to the Node, as they always have. */
export class NodeChannel implements AssignmentWriter {
  readonly channel = 'node' as const;
  readonly informers = [];
  private readonly written = new WrittenObjects<CachedNode>();

  constructor(private readonly client: AssignmentClient) {}

  onChange(): void {
    // Every change is a Node change, which the controller follows itself.
  }

  view(node: Node): Node {
    return this.written.view(node.metadata.name ?? '', node as CachedNode) ?? node;
  }

  async write(a: NodeAssignment, seen: Node | undefined, signal: AbortSignal): Promise<void> {
    const p = assignmentPatch(a, 'Node');
    const config = appliedAssignment({ apiVersion: 'v1', kind: 'Node', name: a.node }, p, seen && this.view(seen));
    const answer = await applyAssignment<CachedNode>(
      this.client,
      `${NODES_PATH}/${encodeURIComponent(a.node)}`,
      config,
      a.node,
      p,
      signal,
    );
    this.written.record(a.node, answer, seen as CachedNode | undefined);
  }

  forget(node: string): void {
    this.written.forget(node);
  }

  kubelet(): undefined {
    // A node daemon reports on its NodeConfig only.
    return undefined;
  }
}

/** The NodeConfig channel: the plan's assignments go to the node's NodeConfig, created when it has none. */
export class NodeConfigChannel implements AssignmentWriter {
  readonly channel = 'nodeconfig' as const;
  readonly informers: readonly InformerLike<{ metadata: { name?: string } }>[];
  private readonly nodeConfigs: InformerLike<CachedNodeConfig>;
  private readonly written = new WrittenObjects<CachedNodeConfig>();

  constructor(
    private readonly client: AssignmentClient,
    informers: SharedInformerFactory,
  ) {
    this.nodeConfigs = informers.informer<CachedNodeConfig>(NODE_CONFIGS_PATH);
    this.nodeConfigs.on('delete', (nc) => this.written.forget(nc.metadata.name ?? ''));
    this.informers = [this.nodeConfigs];
  }

  onChange(changed: (node: string) => void): void {
    const byName = (nc: CachedNodeConfig): void => changed(nc.metadata.name ?? '');
    this.nodeConfigs.on('add', byName);
    this.nodeConfigs.on('update', (_old, nc) => byName(nc));
    this.nodeConfigs.on('delete', byName);
  }

  kubelet(node: string): KubeletReport | undefined {
    return this.current(node)?.status?.kubelet ?? undefined;
  }

  private current(node: string): CachedNodeConfig | undefined {
    const name = nodeConfigName(node);
    const seen = this.nodeConfigs.store.get(name);
    // One we created that the informer has not delivered yet exists all the same.
    return seen === undefined ? this.written.peek(name) : this.written.view(name, seen);
  }

  view(node: Node): Node {
    return assignmentView(node, this.current(node.metadata.name ?? ''));
  }

  async write(a: NodeAssignment, node: Node | undefined, signal: AbortSignal): Promise<void> {
    const name = nodeConfigName(a.node);
    const seen = this.nodeConfigs.store.get(name);
    // No NodeConfig yet (the view has no resourceVersion): create it, owned by the Node; one created meanwhile
    // answers 409, and the rollout is looked at again.
    if (a.resourceVersion === '' && !node) throw new Error(messages.nodeGone(a.node));
    const { status, ...rest } = assignmentPatch(a, 'NodeConfig');
    // The record goes first, in the status: a change whose record is not written is never made.
    const p = status === undefined ? rest : await this.writeRecord(a.node, rest, status.previous, node, signal);
    const current = this.current(a.node);
    // The owner reference is applied with the rest: one the controller stopped applying would go.
    const owners =
      current?.metadata.ownerReferences ?? (node ? newNodeConfig(node).metadata.ownerReferences : undefined);
    const config = appliedAssignment(
      { apiVersion: DKC_API_VERSION, kind: NODE_CONFIG_KIND, name },
      p,
      current,
      owners ? { ownerReferences: owners } : {},
    );
    const answer =
      p.metadata.resourceVersion === '' && node
        ? await this.client.create<CachedNodeConfig>(NODE_CONFIGS_PATH, createdNodeConfig(node, p), {
            signal,
            query: { fieldManager: FIELD_MANAGER },
          })
        : await applyAssignment<CachedNodeConfig>(
            this.client,
            `${NODE_CONFIGS_PATH}/${encodeURIComponent(name)}`,
            config,
            a.node,
            p,
            signal,
          );
    this.written.record(name, answer, seen);
  }

  /**
   * Writes `node`'s status.previous (creating the NodeConfig, unassigned, when there is none), conditioned on the
   * plan's resourceVersion; the patch `p` then follows on the version this write made.
   */
  private async writeRecord(
    nodeName: string,
    p: AssignmentPatch,
    record: PreviousAssignment | null,
    node: Node | undefined,
    signal: AbortSignal,
  ): Promise<AssignmentPatch> {
    const name = nodeConfigName(nodeName);
    if (deepEqual(this.current(nodeName)?.status?.previous ?? null, record)) return p;
    let rv = p.metadata.resourceVersion;
    if (rv === '') {
      if (record === null || !node) return p;
      const created = await this.client.create<CachedNodeConfig>(NODE_CONFIGS_PATH, newNodeConfig(node), {
        signal,
        query: { fieldManager: FIELD_MANAGER },
      });
      this.written.record(name, created, this.nodeConfigs.store.get(name));
      rv = created.metadata.resourceVersion ?? '';
    }
    const answer = await this.client.patch<CachedNodeConfig>(
      `${NODE_CONFIGS_PATH}/${encodeURIComponent(name)}/status`,
      'merge',
      { metadata: { resourceVersion: rv }, status: { previous: record } },
      { signal, query: { fieldManager: FIELD_MANAGER } },
    );
    this.written.record(name, answer, this.nodeConfigs.store.get(name));
    return { ...p, metadata: { ...p.metadata, resourceVersion: answer.metadata.resourceVersion ?? '' } };
  }

  forget(node: string): void {
    this.written.forget(nodeConfigName(node));
  }
}
