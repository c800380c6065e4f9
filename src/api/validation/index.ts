// One entry point per verb so the server's resource registry can validate any kind it serves
// without knowing the kind. It reproduces the order of kube-apiserver's generic registry: on create
// the kind's own rules first and the common metadata rules only if those passed; on update the
// common metadata rules first, then the kind's update rules.

import type { FieldError } from '../field.js';
import type { Event, KubeObject } from '../types.js';
import { validateLease, validateLeaseUpdate } from './coordination.js';
import {
  validateConfigMap,
  validateConfigMapUpdate,
  validateEvent,
  validateEventUpdate,
  validateNamespace,
  validateNamespaceUpdate,
  nodeWarnings,
  validateNode,
  validateNodeUpdate,
  validatePod,
  validatePodUpdate,
} from './core.js';
import { validatePathSegmentName } from './names.js';
import {
  validateBindingUpdate,
  validateClusterRole,
  validateClusterRoleBinding,
  validateRole,
  validateRoleBinding,
} from './rbac.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { CodedError } from '../../util/errors.js';

export * from './names.js';
export * from './objectmeta.js';
export * from './core.js';
export * from './coordination.js';
export { GoValueFieldError, goStringSlice, goTimeString } from './goprint.js';

export type ValidatedKind =
  | 'Node'
  | 'ConfigMap'
  | 'Namespace'
  | 'Event'
  | 'Lease'
  | 'Pod'
  | 'Role'
  | 'ClusterRole'
  | 'RoleBinding'
  | 'ClusterRoleBinding';

export interface UpdateOptions {
  /** `status` selects the status strategy (for Node: ValidateNodeUpdate alone, without ValidateNode). */
  subresource?: 'status';
}

interface KindRules {
  namespaced: boolean;
  create(obj: KubeObject): FieldError[];
  update(obj: KubeObject, old: KubeObject, opts: UpdateOptions): FieldError[];
}

const rules: Record<ValidatedKind, KindRules> = {
  Node: {
    namespaced: false,
    create: (o) => validateNode(o),
    update: (o, old, opts) =>
      opts.subresource === 'status' ? validateNodeUpdate(o, old) : [...validateNode(o), ...validateNodeUpdate(o, old)],
  },
  ConfigMap: {
    namespaced: true,
    create: (o) => validateConfigMap(o),
    update: (o, old) => validateConfigMapUpdate(o, old),
  },
  Namespace: {
    namespaced: false,
    create: (o) => validateNamespace(o),
    update: (o, old) => [...validateNamespace(o), ...validateNamespaceUpdate(o, old)],
  },
  Event: {
    namespaced: true,
    create: (o) => validateEvent(o as Event),
    update: (o, old) => validateEventUpdate(o as Event, old as Event),
  },
  Lease: {
    namespaced: true,
    create: (o) => validateLease(o),
    update: (o, old) => validateLeaseUpdate(o, old),
  },
  Pod: {
    namespaced: true,
    create: (o) => validatePod(o),
    update: (o, old) => [...validatePod(o), ...validatePodUpdate(o, old)],
  },
  Role: { namespaced: true, create: validateRole, update: (o) => validateRole(o) },
  ClusterRole: { namespaced: false, create: validateClusterRole, update: (o) => validateClusterRole(o) },
  RoleBinding: {
    namespaced: true,
    create: validateRoleBinding,
    update: (o, old) => validateBindingUpdate(o, old, validateRoleBinding),
  },
  ClusterRoleBinding: {
    namespaced: false,
    create: validateClusterRoleBinding,
    update: (o, old) => validateBindingUpdate(o, old, validateClusterRoleBinding),
  },
};

/** Thrown when the registry asks for a kind that has no rules: a wiring mistake, not a client error. */
export class UnknownKindError extends CodedError<'DKC_API_UNKNOWN_KIND'> {
  override name = 'UnknownKindError';
  constructor(readonly kind: string) {
    super('DKC_API_UNKNOWN_KIND', `no validation rules for kind ${JSON.stringify(kind)}`);
  }
}

function rulesFor(kind: string): KindRules {
  if (!Object.prototype.hasOwnProperty.call(rules, kind)) throw new UnknownKindError(kind);
  return rules[kind as ValidatedKind];
}

export function isValidatedKind(kind: string): kind is ValidatedKind {
  return Object.prototype.hasOwnProperty.call(rules, kind);
}

export function isNamespacedKind(kind: string): boolean {
  return rulesFor(kind).namespaced;
}

/**
 * The same check may be reached twice (e.g. labels by the common rules and by the kind's rules).
 * kube-apiserver's message already collapses such repeats; removing them here also keeps the
 * Status causes (one kubectl line each) free of duplicates.
 */
function dedupe(errs: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errs.filter((e) => {
    const k = `${e.type}\u0000${e.toString()}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Validation of a create, after the server has defaulted the object and generated its name. */
export function validateCreate(kind: string, obj: KubeObject): FieldError[] {
  const r = rulesFor(kind);
  const errs = r.create(obj);
  if (errs.length) return dedupe(errs);
  return dedupe(validateObjectMeta(obj.metadata, r.namespaced, validatePathSegmentName));
}

/**
 * Validation of an update. Expects the server to have done what rest.BeforeUpdate does first:
 * carry over uid, creationTimestamp and deletionTimestamp from the stored object when absent, and
 * fill metadata.resourceVersion for an unconditional update; otherwise those read as changes.
 */
export function validateUpdate(kind: string, obj: KubeObject, old: KubeObject, opts: UpdateOptions = {}): FieldError[] {
  const r = rulesFor(kind);
  const common = [
    ...validateObjectMeta(obj.metadata, r.namespaced, validatePathSegmentName),
    ...validateObjectMetaUpdate(obj.metadata, old.metadata),
  ];
  return dedupe([...common, ...r.update(obj, old, opts)]);
}

/** Warnings (not errors) for an object about to be stored, for the response's `Warning` headers. */
export function warningsFor(kind: string, obj: KubeObject): string[] {
  return kind === 'Node' ? nodeWarnings(obj) : [];
}
