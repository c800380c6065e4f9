// Server-side apply and managedFields for the served resources: one FieldManager per resource, typed from the one
// schema source (built-in kinds) or from the CRD version's schema (custom kinds).

import { systemClock, type Clock } from '../../util/clock.js';
import type { ResourceDef } from '../resourcedef.js';
import { FieldManager } from './manager.js';
import { builtinKindType, customKindType } from './types.js';

export { ApplyError, FieldManager, LAST_APPLIED, type FieldManagerConfig } from './manager.js';
export type { ManagedFieldsEntry } from './managed.js';

const managersByClock = new WeakMap<Clock, WeakMap<ResourceDef, FieldManager>>();

/** The field manager of a served resource on `clock` (built once per resource definition and clock). */
export function fieldManagerFor(def: ResourceDef, clock: Clock = systemClock): FieldManager {
  let managers = managersByClock.get(clock);
  if (!managers) managersByClock.set(clock, (managers = new WeakMap()));
  let fm = managers.get(def);
  if (fm) return fm;
  const apiVersion = def.group ? `${def.group}/${def.version}` : def.version;
  const type = def.custom ? customKindType(def.custom.openapi.schema) : builtinKindType(def.kind);
  fm = new FieldManager({
    type,
    group: def.group,
    version: def.version,
    kind: def.kind,
    statusSubresource: def.statusSubresource,
    emptyObject: () => {
      const o: Record<string, unknown> = { apiVersion, kind: def.kind, metadata: {} };
      for (const f of def.structFields ?? []) o[f] = {};
      return o;
    },
    clock,
  });
  managers.set(def, fm);
  return fm;
}
