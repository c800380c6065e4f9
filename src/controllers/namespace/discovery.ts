// Which resources a terminating namespace may hold, found as kube's namespace controller finds them (client-go's
// ServerPreferredNamespacedResources, then the ones that take delete): every namespaced resource of every group, built
// in or custom, in its group's preferred version, subresources left out. A group version whose discovery fails is left
// out and named in the failure; a group version that does not parse fails the whole set. Pure: the controller fetches
// through src/client/discovery.ts.

import {
  preferredResources,
  type DiscoveredGroup,
  type ResourceList,
  type ResourceLists,
} from '../../client/discovery.js';

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** A discovered resource with what it supports (the controller lists and deletes only what it may). */
export interface DeletableResource extends GroupVersionResource {
  verbs: string[];
}

export type { DiscoveredGroup, DiscoveredResource, ResourceLists } from '../../client/discovery.js';

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

/** The namespaced resources in each group's preferred version, grouped by group version as discovered. */
export function preferredNamespacedResources(groups: readonly DiscoveredGroup[], lists: ResourceLists): ResourceList[] {
  return preferredResources(groups, lists).map((l) => ({ ...l, resources: l.resources.filter((r) => r.namespaced) }));
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
  lists: readonly ResourceList[],
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
