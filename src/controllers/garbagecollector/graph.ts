// The owner graph the garbage collector keeps from its informers (kube's GraphBuilder in small): every object it has
// seen by uid, and for every uid that is named as an owner, the objects naming it. An owner that was never seen
// still has its dependents recorded, so its absence can be confirmed and they collected. Pure data: no I/O.

import type { OwnerReference } from '../../api/types.js';
import type { ObjectMetaView } from './decide.js';
import type { GcResource } from './resources.js';

export interface GraphNode {
  uid: string;
  resource: GcResource;
  namespace: string;
  name: string;
  resourceVersion: string;
  meta: ObjectMetaView & { ownerReferences: readonly OwnerReference[] };
}

export class OwnerGraph {
  private readonly nodes = new Map<string, GraphNode>();
  private readonly dependents = new Map<string, Set<string>>();

  get(uid: string): GraphNode | undefined {
    return this.nodes.get(uid);
  }

  get size(): number {
    return this.nodes.size;
  }

  all(): IterableIterator<GraphNode> {
    return this.nodes.values();
  }

  /** Records `node`; returns the node it replaces. */
  upsert(node: GraphNode): GraphNode | undefined {
    const prev = this.nodes.get(node.uid);
    for (const ref of prev?.meta.ownerReferences ?? []) this.dependents.get(ref.uid)?.delete(node.uid);
    for (const ref of node.meta.ownerReferences) {
      let set = this.dependents.get(ref.uid);
      if (!set) this.dependents.set(ref.uid, (set = new Set()));
      set.add(node.uid);
    }
    for (const ref of prev?.meta.ownerReferences ?? [])
      if (this.dependents.get(ref.uid)?.size === 0) this.dependents.delete(ref.uid);
    this.nodes.set(node.uid, node);
    return prev;
  }

  /** Forgets the object; its dependents keep naming it (they are what the collector looks at next). */
  remove(uid: string): GraphNode | undefined {
    const prev = this.nodes.get(uid);
    if (!prev) return undefined;
    this.nodes.delete(uid);
    for (const ref of prev.meta.ownerReferences) {
      const set = this.dependents.get(ref.uid);
      set?.delete(uid);
      if (set?.size === 0) this.dependents.delete(ref.uid);
    }
    return prev;
  }

  /** The seen objects that name `uid` as an owner. */
  dependentsOf(uid: string): GraphNode[] {
    return [...(this.dependents.get(uid) ?? [])].flatMap((d) => this.nodes.get(d) ?? []);
  }

  hasDependents(uid: string): boolean {
    return (this.dependents.get(uid)?.size ?? 0) > 0;
  }
}
