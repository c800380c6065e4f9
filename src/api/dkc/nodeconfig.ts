// NodeConfig (dkc.io/v1alpha1): the per-node assignment record that survives kube-apiserver 1.24 and later, which
// drop Node.spec.configSource and Node.status.config. One cluster-scoped object per node, named after it, owned by
// its Node. `spec.configSource` and `status.config` are upstream's NodeConfigSource and NodeConfigStatus unchanged;
// `status.previous` is the revert record, which only the rollout controller writes.

import type { KubeObject, NodeConfigSource, NodeConfigStatus, ObjectMeta, OwnerReference } from '../types.js';

export const DKC_GROUP = 'dkc.io';
export const DKC_VERSION = 'v1alpha1';
export const DKC_API_VERSION = `${DKC_GROUP}/${DKC_VERSION}`;

export const NODE_CONFIG_KIND = 'NodeConfig';
export const NODE_CONFIGS = 'nodeconfigs';
export const NODE_CONFIG_SHORT_NAME = 'nc';
/** The CustomResourceDefinition's name (deploy/crds/nodeconfigs.dkc.io.yaml). */
export const NODE_CONFIG_CRD = `${NODE_CONFIGS}.${DKC_GROUP}`;
/** The collection's path on an API server. */
export const NODE_CONFIGS_PATH = `/apis/${DKC_API_VERSION}/${NODE_CONFIGS}`;

/** What a node is assigned: upstream's NodeConfigSource, of which only `configMap` exists in the served schema. */
export interface NodeConfigSpec {
  configSource?: NodeConfigSource | null;
}

/**
 * The revert record: the source the node had before the rollout controller changed it (`{}` for its local config)
 * and the rollout that held the node then. The shape of a NodeConfigRollout's `status.nodes[<node>].previous`.
 */
export interface PreviousAssignment {
  configSource?: NodeConfigSource;
  rollout?: string;
}

export interface NodeConfigObjectStatus {
  /** Written by the node, as it writes Node.status.config where the Node keeps it. */
  config?: NodeConfigStatus | null;
  /** Written only by the rollout controller. */
  previous?: PreviousAssignment | null;
  /** Written by the node daemon: what it sees of the kubelet beyond what status.config says. */
  kubelet?: KubeletReport | null;
}

/** A field of the assigned config that a node-local drop-in sorting after dkc's sets otherwise. */
export interface LocalOverride {
  /** The field's path in the KubeletConfiguration, dotted (`evictionHard.memory.available`). */
  field: string;
  /** The drop-in file (its base name) whose value the kubelet runs instead. */
  file: string;
}

/**
 * What the node daemon sees of the kubelet that upstream's status.config has no place for. Each part is absent when
 * there is nothing to say.
 */
export interface KubeletReport {
  /** Restarts of the kubelet the daemon did not cause, since the active config was last started by the daemon. */
  unexpectedRestarts?: number;
  /** When the last of those restarts was seen (RFC 3339). */
  lastUnexpectedRestart?: string;
  /** Fields of the assigned config that the kubelet does not run because a local drop-in overrides them. */
  localOverrides?: LocalOverride[];
  /** The last time the daemon found one of its files edited by another hand (and put it back). */
  lastDrift?: { time: string; file: string };
}

export interface NodeConfig extends KubeObject {
  apiVersion?: typeof DKC_API_VERSION;
  kind?: typeof NODE_CONFIG_KIND;
  metadata: ObjectMeta;
  spec?: NodeConfigSpec;
  status?: NodeConfigObjectStatus;
}

/** The NodeConfig of a node is named after it. */
export const nodeConfigName = (nodeName: string): string => nodeName;

/** The single owner reference a NodeConfig carries: its Node, which the garbage collector follows. */
export function nodeOwnerReference(node: { metadata: ObjectMeta }): OwnerReference {
  return { apiVersion: 'v1', kind: 'Node', name: node.metadata.name ?? '', uid: node.metadata.uid ?? '' };
}

/** A node's NodeConfig as created when absent: nothing assigned yet, owned by the node. */
export function newNodeConfig(node: { metadata: ObjectMeta }): NodeConfig {
  return {
    apiVersion: DKC_API_VERSION,
    kind: NODE_CONFIG_KIND,
    metadata: { name: nodeConfigName(node.metadata.name ?? ''), ownerReferences: [nodeOwnerReference(node)] },
    spec: {},
  };
}
