// The `scale` subresource of the replicated kinds (Deployments, ReplicaSets, StatefulSets): an autoscaling/v1 Scale
// read from the object (spec.replicas, status.replicas, the selector's string form) and a written Scale turned back
// into the object's spec.replicas, as kube's scale REST storage does. Pure; the handler is in apiserver.ts.

import { errors } from '../api/errors.js';
import { field, type FieldError } from '../api/field.js';
import type { KubeObject } from '../api/types.js';
import { IS_NEGATIVE_ERROR_MSG } from '../api/validation/index.js';
import { labelSelectorString, objectSelectorRequirements } from '../api/selectors.js';

export const SCALE_SUBRESOURCE = 'scale';
export const SCALE_GROUP = 'autoscaling';
export const SCALE_VERSION = 'v1';
export const SCALE_KIND = 'Scale';

type Json = Record<string, unknown>;

const specOf = (o: KubeObject): Json => (o['spec'] as Json | undefined) ?? {};

/** metav1.LabelSelectorAsSelector(...).String(): requirements sorted by key; undefined when it does not convert. */
export function selectorString(sel: unknown): string | undefined {
  if (sel === undefined || sel === null) return '';
  try {
    const reqs = objectSelectorRequirements(sel);
    return labelSelectorString([...reqs].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)));
  } catch {
    return undefined;
  }
}

/** The Scale of an object: its identity, the desired and observed replicas, and its Pods' selector. */
export function scaleOf(obj: KubeObject): KubeObject {
  const m = obj.metadata;
  const meta: Json = { name: m.name };
  for (const k of ['namespace', 'uid', 'resourceVersion', 'creationTimestamp'] as const)
    if (m[k] !== undefined) meta[k] = m[k];
  const replicas = specOf(obj)['replicas'];
  const status = (obj['status'] as Json | undefined) ?? {};
  const selector = selectorString(specOf(obj)['selector']);
  return {
    kind: SCALE_KIND,
    apiVersion: `${SCALE_GROUP}/${SCALE_VERSION}`,
    metadata: meta,
    // ScaleSpec.replicas is omitempty: a Scale to 0 has an empty spec.
    spec: typeof replicas === 'number' && replicas !== 0 ? { replicas } : {},
    status: {
      replicas: typeof status['replicas'] === 'number' ? status['replicas'] : 0,
      ...(selector ? { selector } : {}),
    },
  };
}

/** ValidateScale: the desired replicas are not negative. */
export function validateScale(scale: KubeObject): FieldError[] {
  const replicas = specOf(scale)['replicas'];
  return typeof replicas === 'number' && replicas < 0
    ? [field.invalid('spec.replicas', replicas, IS_NEGATIVE_ERROR_MSG)]
    : [];
}

/**
 * The object with the Scale's replicas, as the write that stores it: the Scale's resourceVersion (when it names one)
 * is the write's precondition. A Scale that fails validation is a 422 on the Scale kind.
 */
export function applyScale(current: KubeObject, scale: KubeObject, name: string): KubeObject {
  const bodyName = scale.metadata?.name;
  if (bodyName && bodyName !== name)
    throw errors.badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${name})`);
  const errs = validateScale(scale);
  if (errs.length) throw errors.invalid({ group: SCALE_GROUP, name: SCALE_KIND }, name, errs);
  const replicas = specOf(scale)['replicas'];
  const next: KubeObject = {
    ...current,
    spec: { ...specOf(current), replicas: typeof replicas === 'number' ? replicas : 0 },
  };
  const pinned = scale.metadata?.resourceVersion;
  next.metadata = { ...current.metadata };
  if (pinned) next.metadata.resourceVersion = pinned;
  else delete next.metadata.resourceVersion;
  return next;
}
