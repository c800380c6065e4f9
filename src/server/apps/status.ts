// The apps/v1 kinds' status as kube-apiserver validates a write of it (ValidateDeploymentStatusUpdate and its
// ReplicaSet, DaemonSet and StatefulSet siblings): counts not negative, a count not above the replicas it is part of,
// and collisionCount never decremented. Each kind's rules are data; the checks are one function. Pure.

import { field, type FieldError } from '../../api/field.js';
import type { KubeObject } from '../../api/types.js';
import { nonNegative } from './strategies.js';

type Json = Record<string, unknown>;

interface StatusRules {
  /** Counts that may not be negative, in upstream's order. */
  counts: string[];
  /** [count, bound, message]: the count may not exceed the bound. */
  bounds: [string, string, string][];
}

const OVER_REPLICAS = 'cannot be greater than status.replicas';

const rules: Record<string, StatusRules> = {
  Deployment: {
    counts: [
      'observedGeneration',
      'replicas',
      'updatedReplicas',
      'readyReplicas',
      'availableReplicas',
      'unavailableReplicas',
      'collisionCount',
    ],
    bounds: [
      ['updatedReplicas', 'replicas', OVER_REPLICAS],
      ['readyReplicas', 'replicas', OVER_REPLICAS],
      ['availableReplicas', 'replicas', OVER_REPLICAS],
      ['availableReplicas', 'readyReplicas', 'cannot be greater than readyReplicas'],
    ],
  },
  ReplicaSet: {
    counts: ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'],
    bounds: [
      ['fullyLabeledReplicas', 'replicas', OVER_REPLICAS],
      ['readyReplicas', 'replicas', OVER_REPLICAS],
      ['availableReplicas', 'replicas', OVER_REPLICAS],
      ['availableReplicas', 'readyReplicas', 'cannot be greater than readyReplicas'],
    ],
  },
  DaemonSet: {
    counts: [
      'currentNumberScheduled',
      'numberMisscheduled',
      'desiredNumberScheduled',
      'numberReady',
      'observedGeneration',
      'updatedNumberScheduled',
      'numberAvailable',
      'numberUnavailable',
      'collisionCount',
    ],
    bounds: [],
  },
  StatefulSet: {
    counts: [
      'replicas',
      'readyReplicas',
      'currentReplicas',
      'updatedReplicas',
      'availableReplicas',
      'observedGeneration',
      'collisionCount',
    ],
    bounds: [
      ['readyReplicas', 'replicas', OVER_REPLICAS],
      ['currentReplicas', 'replicas', OVER_REPLICAS],
      ['updatedReplicas', 'replicas', OVER_REPLICAS],
      ['availableReplicas', 'replicas', OVER_REPLICAS],
      ['availableReplicas', 'readyReplicas', 'cannot be greater than status.readyReplicas'],
    ],
  },
};

const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** The status errors of a write of `obj` over `old` (the stored object). */
export function statusErrors(obj: KubeObject, old: KubeObject): FieldError[] {
  const r = rules[obj.kind ?? ''];
  if (!r) return [];
  const status = (obj['status'] as Json | undefined) ?? {};
  const errs = r.counts.flatMap((k) => nonNegative(status[k], `status.${k}`));
  for (const [count, bound, message] of r.bounds)
    if (num(status[count]) > num(status[bound]))
      errs.push(field.invalid(`status.${count}`, num(status[count]), message));
  const before = ((old['status'] as Json | undefined) ?? {})['collisionCount'];
  const after = status['collisionCount'];
  // apivalidation.IsDecremented: a count that was set goes down, or is unset.
  if (typeof before === 'number' && (typeof after !== 'number' || after < before))
    errs.push(field.invalid('status.collisionCount', num(after), 'cannot be decremented'));
  return errs;
}
