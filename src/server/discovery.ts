// Discovery documents (/api, /apis, /api/v1, /apis/<group>/<version>) and /version, built from the registry.
// kubectl learns short names and scopes only from here.

import { gitVersion, type KubeVersion } from './emulation/version.js';
import type { Registry } from './registry.js';
import { apiVersionOf, type ResourceDef } from './resourcedef.js';

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

export function apiGroupList(registry: Registry): object {
  const groups = registry
    .groupVersions()
    .filter((gv) => gv.group !== '')
    .map((gv) => {
      const version = { groupVersion: `${gv.group}/${gv.version}`, version: gv.version };
      return { name: gv.group, versions: [version], preferredVersion: version };
    });
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

export function apiGroup(registry: Registry, group: string): object | undefined {
  const gvs = registry.groupVersions().filter((gv) => gv.group === group);
  if (!gvs.length || !group) return undefined;
  const versions = gvs.map((gv) => ({ groupVersion: `${gv.group}/${gv.version}`, version: gv.version }));
  return { kind: 'APIGroup', apiVersion: 'v1', name: group, versions, preferredVersion: versions[0] };
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
  const out: object[] = [main];
  if (def.proxySubresource) {
    out.push({
      name: `${def.plural}/proxy`,
      singularName: '',
      namespaced: def.namespaced,
      kind: `${def.kind}ProxyOptions`,
      verbs: ['create', 'delete', 'get', 'patch', 'update'],
    });
  }
  for (const [name, action] of Object.entries(def.actions ?? {})) {
    if (!name) continue;
    out.push({
      name: `${def.plural}/${name}`,
      singularName: '',
      namespaced: def.namespaced,
      ...(action.group !== undefined ? { group: action.group } : {}),
      ...(action.version !== undefined ? { version: action.version } : {}),
      kind: action.kind,
      verbs: ['create'],
    });
  }
  if (def.finalizeSubresource) {
    out.push({
      name: `${def.plural}/finalize`,
      singularName: '',
      namespaced: def.namespaced,
      kind: def.kind,
      verbs: ['update'],
    });
  }
  if (def.statusSubresource && def.verbs.includes('update')) {
    out.push({
      name: `${def.plural}/status`,
      singularName: '',
      namespaced: def.namespaced,
      kind: def.kind,
      verbs: ['get', 'patch', 'update'],
    });
  } else if (def.statusSubresource) {
    out.push({
      name: `${def.plural}/status`,
      singularName: '',
      namespaced: def.namespaced,
      kind: def.kind,
      verbs: ['get'],
    });
  }
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
