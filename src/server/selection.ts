// Which objects a list or watch selects: namespace, label selector and field selector compiled once into a
// predicate. Field names are checked against what the resource supports (metadata.name, metadata.namespace and the
// registry's extra fields), with kube-apiserver's `field label not supported` error for others.

import { errors } from '../api/errors.js';
import {
  checkSupportedFields,
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
  SelectorError,
} from '../api/selectors.js';
import type { KubeObject } from '../api/types.js';
import type { ResourceDef } from './resourcedef.js';

export interface Selection {
  matches(obj: KubeObject): boolean;
  /**
   * The one name a `metadata.name=` field selector pins the selection to, if it has one (upstream's MatchesSingle):
   * a list then reads that key only instead of every object of the resource and filtering them.
   */
  readonly name?: string;
}

export function buildSelection(
  def: ResourceDef,
  labelSelector: string | undefined,
  fieldSelector: string | undefined,
  namespace: string,
): Selection {
  try {
    const labels = labelSelector ? parseLabelSelector(labelSelector) : [];
    const fields = fieldSelector ? parseFieldSelector(fieldSelector) : [];
    checkSupportedFields(fields, ['metadata.name', 'metadata.namespace', ...Object.keys(def.fields)]);
    const ns = def.namespaced ? namespace : '';
    const getter = (obj: KubeObject) => (path: string) => {
      if (path === 'metadata.name') return obj.metadata.name ?? '';
      if (path === 'metadata.namespace') return obj.metadata.namespace ?? '';
      return def.fields[path]?.(obj);
    };
    const name = fields.find((f) => f.field === 'metadata.name' && f.operator === '=')?.value;
    return {
      ...(name !== undefined ? { name } : {}),
      matches(obj) {
        if (ns && obj.metadata.namespace !== ns) return false;
        if (labels.length && !matchesLabels(labels, obj.metadata.labels)) return false;
        if (fields.length && !matchesFields(fields, getter(obj))) return false;
        return true;
      },
    };
  } catch (err) {
    if (err instanceof SelectorError) throw errors.badRequest(err.message);
    throw err;
  }
}
