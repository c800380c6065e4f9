// Table responses (meta.k8s.io/v1 Table), which `kubectl get` asks for: the registry's columns and cells, with
// each row carrying the object's metadata as PartialObjectMetadata so `--show-labels` and `-L` work.

import type { KubeObject } from '../api/types.js';
import type { ResourceDef } from './resourcedef.js';

export function wantsTable(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((part) => {
    const p = part.replace(/\s+/g, '');
    return p.includes('as=Table') && p.includes('g=meta.k8s.io');
  });
}

/** One row; `now` is the wall time in epoch milliseconds that ages (the AGE column) count from. */
export function tableRow(def: ResourceDef, obj: KubeObject, now: number): object {
  const { managedFields: _mf, ...metadata } = obj.metadata as KubeObject['metadata'] & { managedFields?: unknown };
  return {
    cells: def.row(obj, now),
    object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata },
  };
}

export function toTable(
  def: ResourceDef,
  objects: KubeObject[],
  listMeta: { resourceVersion?: string; continue?: string },
  now: number,
  includeColumns = true,
): object {
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta,
    columnDefinitions: includeColumns ? def.columns : [],
    rows: objects.map((o) => tableRow(def, o, now)),
  };
}
