// Validation of coordination.k8s.io/v1 Lease (pkg/apis/coordination/validation). Node agents renew
// a Lease per node as their heartbeat, so only the spec's numeric invariants matter here.

import { field, type FieldError } from '../field.js';
import type { Lease, LeaseSpec } from '../types.js';
import { nameIsDNSSubdomain } from './names.js';
import { IS_NEGATIVE_ERROR_MSG, validateCoreObjectMeta, validateCoreObjectMetaUpdate } from './objectmeta.js';

export function validateLeaseSpec(spec: LeaseSpec | undefined, path = 'spec'): FieldError[] {
  const errs: FieldError[] = [];
  const duration = spec?.leaseDurationSeconds;
  if (typeof duration === 'number' && duration <= 0) {
    errs.push(field.invalid(`${path}.leaseDurationSeconds`, duration, 'must be greater than 0'));
  }
  const transitions = spec?.leaseTransitions;
  if (typeof transitions === 'number' && transitions < 0) {
    errs.push(field.invalid(`${path}.leaseTransitions`, transitions, IS_NEGATIVE_ERROR_MSG));
  }
  return errs;
}

export function validateLease(lease: Lease): FieldError[] {
  return [...validateCoreObjectMeta(lease.metadata, true, nameIsDNSSubdomain), ...validateLeaseSpec(lease.spec)];
}

export function validateLeaseUpdate(lease: Lease, old: Lease): FieldError[] {
  return [...validateCoreObjectMetaUpdate(lease.metadata, old.metadata), ...validateLeaseSpec(lease.spec)];
}
