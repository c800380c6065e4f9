// The catalogue of the resources the server serves: the built-in ones (src/server/builtins.ts, RBAC's, the reviews,
// CustomResourceDefinitions), and the Registry that holds them with the custom resources added at run time.
// Handlers, discovery, OpenAPI and the watch caches are generic over these descriptions.

import { reviewResources } from './auth/reviews.js';
import { rbacResources } from './auth/rbacresources.js';
import { customResourceDefinitions } from './crd/definition.js';
import { bindings, configmaps, events, leases, namespaces, nodes, pods } from './builtins.js';
import type { ResourceDef } from './resourcedef.js';
import { podDisruptionBudgets, podDisruptionBudgetsV1beta1 } from './disruptionbudgets/definition.js';
import { appsResources } from './apps/definition.js';

export class Registry {
  private defs: ResourceDef[];
  private readonly byKey = new Map<string, ResourceDef>();
  constructor(defs: ResourceDef[]) {
    this.defs = [...defs];
    for (const d of defs) this.byKey.set(`${d.group}/${d.version}/${d.plural}`, d);
  }
  /** Every served resource; a new array after each add or remove, so a caller may iterate while it changes. */
  get all(): readonly ResourceDef[] {
    return this.defs;
  }
  /** Serves a resource from now on (a custom resource of an established CRD). */
  add(def: ResourceDef): void {
    const key = `${def.group}/${def.version}/${def.plural}`;
    const old = this.byKey.get(key);
    this.defs = [...this.defs.filter((d) => d !== old), def];
    this.byKey.set(key, def);
  }
  remove(def: ResourceDef): void {
    const key = `${def.group}/${def.version}/${def.plural}`;
    if (this.byKey.get(key) === def) this.byKey.delete(key);
    this.defs = this.defs.filter((d) => d !== def);
  }
  lookup(group: string, version: string, plural: string): ResourceDef | undefined {
    return this.byKey.get(`${group}/${version}/${plural}`);
  }
  groupVersions(): { group: string; version: string }[] {
    const seen = new Map<string, { group: string; version: string }>();
    for (const d of this.all) seen.set(`${d.group}/${d.version}`, { group: d.group, version: d.version });
    return [...seen.values()];
  }
  inGroupVersion(group: string, version: string): ResourceDef[] {
    return this.all.filter((d) => d.group === group && d.version === version);
  }
}

/** The built-in resources; `nodeDef` stands in for `nodes` when an emulated release treats Nodes differently. */
export function defaultRegistry(nodeDef: ResourceDef = nodes): Registry {
  return new Registry([
    namespaces,
    nodeDef,
    configmaps,
    events,
    pods,
    bindings,
    leases,
    podDisruptionBudgets,
    podDisruptionBudgetsV1beta1,
    ...appsResources,
    ...rbacResources,
    ...reviewResources,
    customResourceDefinitions,
  ]);
}
