// The server's discovery documents as client-go's discovery client reads them: the groups (/api, /apis), then each
// group version's APIResourceList, and the resources in each group's preferred version
// (ServerPreferredResources). The garbage collector and the namespace controller both find what to watch and delete
// here. The fetch is the I/O; choosing the preferred resources is pure.

import type { RestClient } from './rest.js';

/** An APIGroup of /apis (the core group: name '' with the versions of /api). */
export interface DiscoveredGroup {
  name: string;
  versions: { groupVersion: string; version: string }[];
  preferredVersion?: { groupVersion: string; version: string };
}

/** An APIResource of an APIResourceList. */
export interface DiscoveredResource {
  name: string;
  kind?: string;
  namespaced: boolean;
  verbs: string[];
}

/** An APIResourceList. */
export interface ResourceList {
  groupVersion: string;
  resources: DiscoveredResource[];
}

/** The APIResourceLists read, by groupVersion. */
export type ResourceLists = Map<string, ResourceList>;

export interface Discovery {
  groups: DiscoveredGroup[];
  lists: ResourceLists;
  /** The group versions whose list could not be read, with why (client-go's ErrGroupDiscoveryFailed). */
  failed: Map<string, unknown>;
}

const listPath = (groupVersion: string): string =>
  groupVersion.includes('/') ? `/apis/${groupVersion}` : `/api/${groupVersion}`;

/** Every group and every group version's resources (ServerGroupsAndResources); a failed group version is recorded. */
export async function discover(client: RestClient, signal?: AbortSignal): Promise<Discovery> {
  const opts = signal ? { signal } : {};
  const core = await client.get<{ versions?: string[] }>('/api', opts);
  const apis = await client.get<{ groups?: DiscoveredGroup[] }>('/apis', opts);
  const versions = (core.versions ?? []).map((v) => ({ groupVersion: v, version: v }));
  const groups = [
    { name: '', versions, ...(versions[0] ? { preferredVersion: versions[0] } : {}) },
    ...(apis.groups ?? []),
  ];
  const lists: ResourceLists = new Map();
  const failed = new Map<string, unknown>();
  await Promise.all(
    groups
      .flatMap((g) => g.versions.map((v) => v.groupVersion))
      .map(async (gv) => {
        try {
          const list = await client.get<{ resources?: DiscoveredResource[] }>(listPath(gv), opts);
          lists.set(gv, { groupVersion: gv, resources: list.resources ?? [] });
        } catch (err) {
          failed.set(gv, err);
        }
      }),
  );
  return { groups, lists, failed };
}

/**
 * Each resource in its group's preferred version (one served only in another version taken from the first version
 * listing it), subresources left out, grouped by group version in discovery's order (ServerPreferredResources).
 */
export function preferredResources(groups: readonly DiscoveredGroup[], lists: ResourceLists): ResourceList[] {
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
    resources: [...chosen.values()].filter((c) => c.groupVersion === groupVersion).map((c) => c.resource),
  }));
}
