// A rollout pins what it rolls out. Nodes assigned a ConfigMap follow every edit of it, all at once (upstream's
// kubelets did, and so do dkc's), so a rollout of a ConfigMap that is later edited in place would restart every node
// on it together, whatever its canary and batches, and an invalid edit would send them all back together. So before
// its first node changes, a rollout of a mutable ConfigMap copies it into an immutable ConfigMap named by its
// content, `dkc-configs/<rollout>-<hash>` (the hash `kubectl create configmap --append-hash` computes), as a layered
// rollout renders its layers (./layers.ts, with which it shares the namespace, label, owner and status field), and
// assigns the copy: an edit of the source changes nothing until a new rollout. A source already immutable is pinned
// by itself and is assigned as it is. A rollout that changed nodes before it pinned (made by an earlier controller)
// keeps its source to the end. Pure.

import type { ConfigMap, NodeConfigSource } from '../../api/types.js';
import { configMapHash } from './confighash.js';
import { RENDERED_BY_LABEL, RENDERED_NAMESPACE, isLayered, renderedSource } from './layers.js';
import { isDeleting, needsWork, type NodeConfigRollout } from '../../api/dkc/rollout.js';

/** On a pinned copy: the ConfigMap it copies (`namespace/name`). */
export const PINNED_FROM_ANNOTATION = 'dkc.io/pinned-from';

/** A rollout of spec.configSource that has not changed a node yet, and so may still choose what it assigns. */
export function mayPin(r: NodeConfigRollout): boolean {
  const status = r.status;
  return (
    !isLayered(r) &&
    r.spec?.configSource?.configMap !== undefined &&
    status?.renderedConfigMap === undefined &&
    status?.currentBatch === undefined &&
    !Object.values(status?.nodes ?? {}).some((p) => p.updatedAt !== undefined) &&
    needsWork(r) &&
    r.spec.revert !== true &&
    !isDeleting(r)
  );
}

/** The immutable copy of `source` that `rollout` assigns instead, or undefined when the source is immutable itself. */
export function pinnedCopy(rollout: string, source: ConfigMap): ConfigMap | undefined {
  if (source.immutable === true) return undefined;
  const content: ConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: rollout },
    data: { ...(source.data ?? {}) },
    immutable: true,
  };
  if (source.binaryData !== undefined && Object.keys(source.binaryData).length > 0)
    content.binaryData = { ...source.binaryData };
  const name = `${rollout}-${configMapHash(content)}`;
  const from = `${source.metadata.namespace ?? ''}/${source.metadata.name ?? ''}`;
  return {
    ...content,
    metadata: {
      name,
      namespace: RENDERED_NAMESPACE,
      labels: { [RENDERED_BY_LABEL]: rollout },
      annotations: { [PINNED_FROM_ANNOTATION]: from },
    },
  };
}

/**
 * The source a rollout that recorded (or is about to record) `name` in status.renderedConfigMap assigns: a layered
 * rollout's rendered ConfigMap, or the pinned copy of its configSource, under the source's key.
 */
export function copySource(r: NodeConfigRollout, name: string): NodeConfigSource {
  const key = r.spec?.configSource?.configMap?.kubeletConfigKey;
  if (isLayered(r) || key === undefined) return renderedSource(name);
  return { configMap: { namespace: RENDERED_NAMESPACE, name, kubeletConfigKey: key } };
}
