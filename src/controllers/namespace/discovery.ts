// Which resources a terminating namespace may hold, found as kube's namespace controller finds them (client-go's
// ServerPreferredNamespacedResources, then the ones that take delete): every namespaced resource of every group, built
// in or custom, in its group's preferred version, subresources left out. A group version whose discovery fails is left
// out and named in the failure; a group version that does not parse fails the whole set. Pure: the controller fetches.

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** A discovered resource with what it supports (the controller lists and deletes only what it may). */
export interface DeletableResource extends GroupVersionResource {
  verbs: string[];
}

/** An APIGroup of /apis (the core group: name '' and version v1, from /api). */
export interface DiscoveredGroup {
  name: string;
  versions: { groupVersion: string; version: string }[];
  preferredVersion?: { groupVersion: string; version: string };
}

export interface DiscoveredResource {
  name: string;
  namespaced: boolean;
  verbs: string[];
}

/** An APIResourceList, by groupVersion. */
export type ResourceLists = Map<string, { groupVersion: string; resources: DiscoveredResource[] }>;

/** "group/version, Resource=resource", as Go prints a GroupVersionResource. */
export function gvrString(gvr: GroupVersionResource): string {
  return `${gvr.group}/${gvr.version}, Resource=${gvr.resource}`;
}

/** client-go's ErrGroupDiscoveryFailed, as the namespace condition words it. */
export function discoveryFailureMessage(failed: Record<string, string>): string {
  const groups = Object.entries(failed)
    .map(([gv, why]) => `${gv}: ${why}`)
    .sort();
  return `Discovery failed for some groups, ${groups.length} failing: unable to retrieve the complete list of server APIs: ${groups.join(', ')}`;
}

/**
 * The namespaced resources in each group's preferred version (a resource served only in another version is taken
 * from the first version listing it), grouped by group version as discovered.
 */
export function preferredNamespacedResources(
  groups: readonly DiscoveredGroup[],
  lists: ResourceLists,
): { groupVersion: string; resources: DiscoveredResource[] }[] {
  const chosen = new Map<string, { groupVersion: string; resource: DiscoveredResource }>();
  const order: string[] = [];
  for (const group of groups) {
    for (const v of group.versions) {
      const list = lists.get(v.groupVersion);
      if (!list) continue;
      if (!order.includes(v.groupVersion)) order.push(v.groupVersion);
      for (const r of list.resources) {
        if (r.name.includes('/')) continue;
        const key = `${group.name}/${r.name}`;
        if (chosen.has(key) && v.version !== group.preferredVersion?.version) continue;
        chosen.set(key, { groupVersion: v.groupVersion, resource: r });
      }
    }
  }
  return order.map((groupVersion) => ({
    groupVersion,
    resources: [...chosen.values()]
      .filter((c) => c.groupVersion === groupVersion && c.resource.namespaced)
      .map((c) => c.resource),
  }));
}

/** apimachinery's ParseGroupVersion: "v1", "group/version"; more than one slash does not parse. */
export function parseGroupVersion(gv: string): { group: string; version: string } | { error: string } {
  if (gv === '' || gv === '/') return { group: '', version: '' };
  const parts = gv.split('/');
  if (parts.length === 1) return { group: '', version: gv };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return { error: `unexpected GroupVersion string: ${gv}` };
}

/**
 * The resources that take delete, with their verbs; a group version with any of them that does not parse fails them
 * all (as discovery.GroupVersionResources does).
 */
export function deletableResources(
  lists: readonly { groupVersion: string; resources: DiscoveredResource[] }[],
): { resources: DeletableResource[] } | { error: string } {
  const out: DeletableResource[] = [];
  for (const list of lists) {
    const deletable = list.resources.filter((r) => r.verbs.includes('delete'));
    if (deletable.length === 0) continue;
    const gv = parseGroupVersion(list.groupVersion);
    if ('error' in gv) return { error: gv.error };
    for (const r of deletable)
      out.push({ group: gv.group, version: gv.version, resource: r.name, verbs: [...r.verbs] });
  }
  return { resources: out };
}
