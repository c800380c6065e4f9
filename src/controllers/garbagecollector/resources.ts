// Which resources the garbage collector watches, from the server's discovery documents: every resource, built-in or
// custom, cluster-scoped or namespaced, in each group's preferred version, that can be listed, watched and deleted —
// less Events, which kube's collector ignores too. And where an owner reference's kind lives. Pure.

import type { DiscoveredResource, ResourceList } from '../../client/discovery.js';

export interface GcResource {
  group: string;
  version: string;
  /** The resource name (plural). */
  resource: string;
  kind: string;
  namespaced: boolean;
}

const IGNORED = new Set(['/events', 'events.k8s.io/events']);
const NEEDED_VERBS = ['list', 'watch', 'delete'];

/** The collectable resources of one group version's APIResourceList. */
export function collectable(group: string, version: string, resources: readonly DiscoveredResource[]): GcResource[] {
  return resources
    .filter(
      (r) =>
        !r.name.includes('/') && !IGNORED.has(`${group}/${r.name}`) && NEEDED_VERBS.every((v) => r.verbs.includes(v)),
    )
    .map((r) => ({ group, version, resource: r.name, kind: r.kind ?? '', namespaced: r.namespaced }));
}

/** The collectable resources of the preferred resource lists (client-go's ServerPreferredResources). */
export function collectableResources(lists: readonly ResourceList[]): GcResource[] {
  return lists.flatMap((l) => {
    const slash = l.groupVersion.indexOf('/');
    const [group, version] =
      slash < 0 ? ['', l.groupVersion] : [l.groupVersion.slice(0, slash), l.groupVersion.slice(slash + 1)];
    return collectable(group, version, l.resources);
  });
}

function prefix(r: GcResource): string {
  return r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
}

/** The collection across all namespaces, as an informer lists and watches it. */
export function collectionPath(r: GcResource): string {
  return `${prefix(r)}/${r.resource}`;
}

/** One object of `r`. */
export function objectPath(r: GcResource, namespace: string, name: string): string {
  const ns = r.namespaced ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${prefix(r)}${ns}/${r.resource}/${encodeURIComponent(name)}`;
}

/** The group of an apiVersion (`v1` → '', `dkc.io/v1alpha1` → 'dkc.io'). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** Resources by group and kind: an owner reference names a kind in any served version of its group. */
export class ResourceMap {
  private readonly byKind = new Map<string, GcResource>();

  constructor(readonly resources: readonly GcResource[]) {
    for (const r of resources) this.byKind.set(`${r.group}/${r.kind}`, r);
  }

  forKind(apiVersion: string, kind: string): GcResource | undefined {
    return this.byKind.get(`${groupOf(apiVersion)}/${kind}`);
  }
}

/** The parts of a CustomResourceDefinition that say which resource it serves. */
export interface CrdNames {
  spec?: { group?: string; names?: { plural?: string } };
}

/**
 * Whether discovery already found the resource a CustomResourceDefinition serves (its group and plural): the
 * informer's first list hands over every CRD that discovery has just seen, and those need no discovery again.
 */
export function discovered(resources: readonly GcResource[], crd: CrdNames): boolean {
  const group = crd.spec?.group;
  const plural = crd.spec?.names?.plural;
  return (
    group !== undefined && plural !== undefined && resources.some((r) => r.group === group && r.resource === plural)
  );
}
