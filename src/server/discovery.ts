// Discovery documents (/api, /apis, /api/v1, /apis/<group>/<version>) and /version, built from the registry.
// kubectl learns short names and scopes only from here.

import { gitVersion, type KubeVersion } from './emulation/version.js';
import type { Registry } from './registry.js';
import { apiVersionOf, type ResourceDef } from './resourcedef.js';
import { SCALE_GROUP, SCALE_KIND, SCALE_VERSION } from './scale.js';

export const KUBERNETES_VERSION = { major: '1', minor: '22', gitVersion: gitVersion(undefined) };

/** /version: dkc's default release, or the one `--emulated-version` names. */
export function versionInfo(emulated?: KubeVersion): Record<string, string> {
  return {
    major: emulated ? String(emulated.major) : KUBERNETES_VERSION.major,
    minor: emulated ? String(emulated.minor) : KUBERNETES_VERSION.minor,
    gitVersion: gitVersion(emulated),
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'tsc',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}

export function apiVersions(serverAddress: string): object {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

/** A group's entry: its versions in the registry's order, the first preferred (policy: v1, then v1beta1). */
function groupEntry(registry: Registry, group: string): { name: string; versions: object[]; preferredVersion: object } {
  const versions = registry
    .groupVersions()
    .filter((gv) => gv.group === group)
    .map((gv) => ({ groupVersion: `${gv.group}/${gv.version}`, version: gv.version }));
  return { name: group, versions, preferredVersion: versions[0]! };
}

export function apiGroupList(registry: Registry): object {
  const names = new Set(registry.groupVersions().map((gv) => gv.group));
  names.delete('');
  const groups = [...names].map((g) => groupEntry(registry, g));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

export function apiGroup(registry: Registry, group: string): object | undefined {
  if (!group || !registry.groupVersions().some((gv) => gv.group === group)) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(registry, group) };
}

function resourceEntries(def: ResourceDef): object[] {
  const main: Record<string, unknown> = {
    name: def.plural,
    singularName: def.singular,
    namespaced: def.namespaced,
    kind: def.kind,
    verbs: def.verbs,
  };
  if (def.shortNames.length) main['shortNames'] = def.shortNames;
  if (def.categories?.length) main['categories'] = def.categories;
  return [main, ...subresourceEntries(def)];
}

/** One subresource's entry; `groupVersion` when it serves a kind of another group (a Scale, an Eviction). */
function subresource(
  def: ResourceDef,
  name: string,
  kind: string,
  verbs: string[],
  groupVersion: { group?: string; version?: string } = {},
): object {
  return {
    name: `${def.plural}/${name}`,
    singularName: '',
    namespaced: def.namespaced,
    ...(groupVersion.group !== undefined ? { group: groupVersion.group } : {}),
    ...(groupVersion.version !== undefined ? { version: groupVersion.version } : {}),
    kind,
    verbs,
  };
}

/** A resource's subresources as discovery lists them after it: proxy, actions, scale, finalize, status. */
function subresourceEntries(def: ResourceDef): object[] {
  const out: object[] = [];
  if (def.proxySubresource)
    out.push(subresource(def, 'proxy', `${def.kind}ProxyOptions`, ['create', 'delete', 'get', 'patch', 'update']));
  for (const [name, action] of Object.entries(def.actions ?? {}))
    if (name) out.push(subresource(def, name, action.kind, ['create'], action));
  if (def.scaleSubresource)
    out.push(
      subresource(def, 'scale', SCALE_KIND, ['get', 'patch', 'update'], { group: SCALE_GROUP, version: SCALE_VERSION }),
    );
  if (def.finalizeSubresource) out.push(subresource(def, 'finalize', def.kind, ['update']));
  if (def.statusSubresource)
    out.push(subresource(def, 'status', def.kind, def.verbs.includes('update') ? ['get', 'patch', 'update'] : ['get']));
  return out;
}

export function apiResourceList(registry: Registry, group: string, version: string): object | undefined {
  const defs = registry.inGroupVersion(group, version);
  if (!defs.length) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: apiVersionOf(defs[0]!),
    resources: defs.flatMap(resourceEntries),
  };
}
