// The Node authorizer's view of the objects related to each node, as upstream's graph populator keeps it: the edge
// configmap → node from `Node.spec.configSource.configMap` (at most one direct ConfigMap per node), the same edge from
// NodeConfigs (dkc.io), which name their ConfigMap in the same field, and the edge pod → node from `spec.nodeName`.
//
// Two feeds keep each current. The watch cache gives every replica every change, but a moment late; the writing
// replica also applies its own successful writes synchronously, so a reassignment is in force for the very next
// request. Each entry remembers the resourceVersion it came from and never goes back to an older one, so the late
// cache cannot undo a newer synchronous update.

import type { KubeObject } from '../../api/types.js';

export interface ConfigMapRef {
  namespace: string;
  name: string;
}

interface Entry<V> {
  rv: number;
  /** Absent when the object has no edge, or was deleted (a tombstone until the cache catches up). */
  edge?: V;
  deleted: boolean;
}

/** The objects of one resource as the watch cache holds them, at a revision that grows with every change. */
export interface ObjectSource {
  revision(): number;
  objects(): KubeObject[];
  /** The changes after a revision, oldest first; undefined when they are no longer known (then `nodes()` is read). */
  changesSince?(revision: number): { type: string; object: KubeObject }[] | undefined;
}

export function configMapRefOf(node: KubeObject | undefined): ConfigMapRef | undefined {
  const spec = node?.['spec'] as
    { configSource?: { configMap?: { namespace?: unknown; name?: unknown } | null } | null } | undefined;
  const cm = spec?.configSource?.configMap;
  if (!cm || typeof cm.name !== 'string' || typeof cm.namespace !== 'string' || !cm.name || !cm.namespace)
    return undefined;
  return { namespace: cm.namespace, name: cm.name };
}

function rvOf(obj: KubeObject): number {
  const n = Number(obj.metadata?.resourceVersion);
  return Number.isSafeInteger(n) ? n : 0;
}

/** Each object's edge (by key), kept current from its source and from the writes observed. */
abstract class EdgeIndex<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private syncedRevision = -1;

  constructor(private readonly source?: ObjectSource) {}

  protected abstract keyOf(obj: KubeObject): string | undefined;
  protected abstract edgeOf(obj: KubeObject): V | undefined;

  /** Applies an object as written (or deleted) at its resourceVersion; older news than what we hold is ignored. */
  observe(obj: KubeObject, deleted = false): void {
    const key = this.keyOf(obj);
    if (!key) return;
    const rv = rvOf(obj);
    const cur = this.entries.get(key);
    if (cur && cur.rv > rv) return;
    const edge = deleted ? undefined : this.edgeOf(obj);
    this.entries.set(key, edge !== undefined ? { rv, edge, deleted } : { rv, deleted });
  }

  /** The edge of the object under `key` now, if any. */
  protected edge(key: string): V | undefined {
    this.refresh();
    return this.entries.get(key)?.edge;
  }

  /**
   * Catches up with the cache: its changes since the last look when it still has them (nodes heartbeat, so the
   * revision moves all the time, and reading every node on each authorization was O(nodes) per request), else all of
   * its nodes.
   */
  private refresh(): void {
    if (!this.source) return;
    const revision = this.source.revision();
    if (revision === this.syncedRevision) return;
    const changes = this.syncedRevision < 0 ? undefined : this.source.changesSince?.(this.syncedRevision);
    if (changes) for (const c of changes) this.observe(c.object, c.type === 'DELETED');
    else this.rescan(revision);
    this.syncedRevision = revision;
  }

  private rescan(revision: number): void {
    const seen = new Set<string>();
    for (const o of this.source!.objects()) {
      const key = this.keyOf(o);
      if (!key) continue;
      seen.add(key);
      this.observe(o);
    }
    // Absent from the cache at this revision and not written since: the object is gone.
    for (const [key, e] of this.entries) {
      if (!seen.has(key) && e.rv <= revision) this.entries.delete(key);
    }
  }
}

/** configmap → node, from a Node's (or a NodeConfig's) spec.configSource, under the node's name. */
export class NodeGraph extends EdgeIndex<ConfigMapRef> {
  protected keyOf(node: KubeObject): string | undefined {
    return node.metadata?.name;
  }

  protected edgeOf(node: KubeObject): ConfigMapRef | undefined {
    return configMapRefOf(node);
  }

  /** The ConfigMap the node's spec names now, if any. */
  configMapOf(nodeName: string): ConfigMapRef | undefined {
    return this.edge(nodeName);
  }

  /** Is there a path from the ConfigMap `namespace/name` to the node? */
  hasConfigMapPath(nodeName: string, namespace: string, name: string): boolean {
    const ref = this.configMapOf(nodeName);
    return !!ref && ref.namespace === namespace && ref.name === name;
  }
}

/** pod → node, from a Pod's spec.nodeName, under `namespace/name`. */
export class PodGraph extends EdgeIndex<string> {
  protected keyOf(pod: KubeObject): string | undefined {
    const { namespace, name } = pod.metadata ?? {};
    return namespace && name ? `${namespace}/${name}` : undefined;
  }

  protected edgeOf(pod: KubeObject): string | undefined {
    const nodeName = (pod['spec'] as { nodeName?: unknown } | undefined)?.nodeName;
    return typeof nodeName === 'string' && nodeName !== '' ? nodeName : undefined;
  }

  /** Is the Pod `namespace/name` bound to the node? */
  isBoundTo(nodeName: string, namespace: string, name: string): boolean {
    return this.edge(`${namespace}/${name}`) === nodeName;
  }
}
