// The Node authorizer's view of which ConfigMap each node may read: the edge configmap → node from
// `Node.spec.configSource.configMap`, as upstream's graph populator keeps it (at most one direct ConfigMap per node).
// A second graph of the same kind follows NodeConfigs (dkc.io), which name their ConfigMap in the same field.
//
// Two feeds keep it current. The node watch cache gives every replica every change, but a moment late; the writing
// replica also applies its own successful node writes synchronously, so a reassignment is in force for the very next
// request. Each node's entry remembers the resourceVersion it came from and never goes back to an older one, so the
// late cache cannot undo a newer synchronous update.

import type { KubeObject } from '../../api/types.js';

export interface ConfigMapRef {
  namespace: string;
  name: string;
}

interface Entry {
  rv: number;
  /** Absent when the node has no ConfigMap source, or was deleted (a tombstone until the cache catches up). */
  ref?: ConfigMapRef;
  deleted: boolean;
}

/** The node objects as the watch cache holds them, at a revision that grows with every change. */
export interface NodeSource {
  revision(): number;
  nodes(): KubeObject[];
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

export class NodeGraph {
  private readonly entries = new Map<string, Entry>();
  private syncedRevision = -1;

  constructor(private readonly source?: NodeSource) {}

  /** Applies a node as written (or deleted) at its resourceVersion; older news than what we hold is ignored. */
  observe(node: KubeObject, deleted = false): void {
    const name = node.metadata?.name;
    if (!name) return;
    const rv = rvOf(node);
    const cur = this.entries.get(name);
    if (cur && cur.rv > rv) return;
    const ref = deleted ? undefined : configMapRefOf(node);
    this.entries.set(name, ref ? { rv, ref, deleted } : { rv, deleted });
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
    for (const n of this.source!.nodes()) {
      const name = n.metadata?.name;
      if (!name) continue;
      seen.add(name);
      this.observe(n);
    }
    // Absent from the cache at this revision and not written since: the node is gone.
    for (const [name, e] of this.entries) {
      if (!seen.has(name) && e.rv <= revision) this.entries.delete(name);
    }
  }

  /** The ConfigMap the node's spec names now, if any. */
  configMapOf(nodeName: string): ConfigMapRef | undefined {
    this.refresh();
    return this.entries.get(nodeName)?.ref;
  }

  /** Is there a path from the ConfigMap `namespace/name` to the node? */
  hasConfigMapPath(nodeName: string, namespace: string, name: string): boolean {
    const ref = this.configMapOf(nodeName);
    return !!ref && ref.namespace === namespace && ref.name === name;
  }
}
