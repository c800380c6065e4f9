// NodeConfigPolicy objects (deploy/crds/nodeconfigpolicies.dkc.io.yaml) read into typed values. The CRD's schema
// has already checked the shape; what is left here is tolerance of the odd object (a field of the wrong type is
// treated as absent) and one choice: a selector that cannot be parsed governs every node, so that a mistake in a
// policy makes it stricter, never silently void. Pure.

import { objectSelectorRequirements, type LabelRequirement } from '../api/selectors.js';
import type { KubeObject } from '../api/types.js';
import type { Bound, BoundValue, Enforcement } from '../api/dkc/policy.js';

export interface NodeConfigPolicy {
  name: string;
  /** Requirements every governed node's labels meet; empty governs every node. */
  selector: LabelRequirement[];
  /** Field paths (and `a.*`, `*`) a change may touch; undefined: any. */
  allowedFields?: readonly string[];
  /** By field path. */
  bounds: Readonly<Record<string, Bound>>;
  enforcement: Enforcement;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isBoundValue = (v: unknown): v is BoundValue =>
  (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'string';

function readBounds(raw: unknown): Record<string, Bound> {
  const out: Record<string, Bound> = {};
  if (!isRecord(raw)) return out;
  for (const [path, b] of Object.entries(raw)) {
    if (!isRecord(b)) continue;
    const bound: Bound = {};
    if (isBoundValue(b['minimum'])) bound.minimum = b['minimum'];
    if (isBoundValue(b['maximum'])) bound.maximum = b['maximum'];
    out[path] = bound;
  }
  return out;
}

function readSelector(raw: unknown): LabelRequirement[] {
  try {
    return objectSelectorRequirements(isRecord(raw) ? raw : undefined);
  } catch {
    return [];
  }
}

/** One stored NodeConfigPolicy as the decision reads it. */
export function readPolicy(obj: KubeObject): NodeConfigPolicy {
  const spec = isRecord(obj['spec']) ? obj['spec'] : {};
  const fields = spec['allowedFields'];
  const policy: NodeConfigPolicy = {
    name: obj.metadata.name ?? '',
    selector: readSelector(spec['nodeSelector']),
    bounds: readBounds(spec['bounds']),
    enforcement: spec['enforcement'] === 'Warn' ? 'Warn' : 'Deny',
  };
  if (Array.isArray(fields)) policy.allowedFields = fields.filter((f): f is string => typeof f === 'string');
  return policy;
}
