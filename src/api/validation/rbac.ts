// Validation of rbac.authorization.k8s.io/v1 objects (pkg/apis/rbac/validation): the shapes RBAC evaluation
// relies on — rules with verbs and either resources or non-resource URLs, bindings with a roleRef of the right kind
// and subjects it can match. Names are path segments (`system:node`), as upstream allows.

import { field, type FieldError } from '../field.js';
import type { KubeObject } from '../types.js';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function validateRule(rule: unknown, path: string, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (rule === null || typeof rule !== 'object' || Array.isArray(rule))
    return [field.invalid(path, rule, 'must be an object')];
  const r = rule as Record<string, unknown>;
  if (strings(r['verbs']).length === 0)
    errs.push(field.required(`${path}.verbs`, 'verbs must contain at least one value'));
  const urls = strings(r['nonResourceURLs']);
  if (urls.length) {
    if (namespaced) {
      errs.push(field.invalid(`${path}.nonResourceURLs`, urls, 'namespaced rules cannot apply to non-resource URLs'));
      return errs;
    }
    if (strings(r['apiGroups']).length || strings(r['resources']).length || strings(r['resourceNames']).length) {
      errs.push(
        field.forbidden(
          `${path}.nonResourceURLs`,
          'rules cannot apply to both regular resources and non-resource URLs',
        ),
      );
    }
    return errs;
  }
  if (strings(r['apiGroups']).length === 0)
    errs.push(field.required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  if (strings(r['resources']).length === 0)
    errs.push(field.required(`${path}.resources`, 'resource rules must supply at least one resource'));
  return errs;
}

function validateRules(obj: KubeObject, namespaced: boolean): FieldError[] {
  const rules = obj['rules'];
  if (rules === undefined || rules === null) return [];
  if (!Array.isArray(rules)) return [field.invalid('rules', rules, 'must be a list')];
  return rules.flatMap((r, i) => validateRule(r, `rules[${i}]`, namespaced));
}

function validateRoleRef(obj: KubeObject, kinds: string[]): FieldError[] {
  const errs: FieldError[] = [];
  const ref = (obj['roleRef'] ?? {}) as Record<string, unknown>;
  const group = typeof ref['apiGroup'] === 'string' ? ref['apiGroup'] : '';
  if (group !== RBAC_GROUP) errs.push(field.notSupported('roleRef.apiGroup', group, [RBAC_GROUP]));
  const kind = typeof ref['kind'] === 'string' ? ref['kind'] : '';
  if (!kinds.includes(kind)) errs.push(field.notSupported('roleRef.kind', kind, kinds));
  if (typeof ref['name'] !== 'string' || ref['name'] === '') errs.push(field.required('roleRef.name'));
  return errs;
}

function validateSubjects(obj: KubeObject, clusterScoped: boolean): FieldError[] {
  const subjects = obj['subjects'];
  if (subjects === undefined || subjects === null) return [];
  if (!Array.isArray(subjects)) return [field.invalid('subjects', subjects, 'must be a list')];
  const errs: FieldError[] = [];
  subjects.forEach((s: unknown, i) => {
    const path = `subjects[${i}]`;
    const subj = (s ?? {}) as Record<string, unknown>;
    const kind = typeof subj['kind'] === 'string' ? subj['kind'] : '';
    const name = typeof subj['name'] === 'string' ? subj['name'] : '';
    const group = typeof subj['apiGroup'] === 'string' ? subj['apiGroup'] : '';
    if (!name) errs.push(field.required(`${path}.name`));
    switch (kind) {
      case 'ServiceAccount':
        if (group !== '') errs.push(field.notSupported(`${path}.apiGroup`, group, ['']));
        if (clusterScoped && !subj['namespace']) errs.push(field.required(`${path}.namespace`));
        break;
      case 'User':
      case 'Group':
        if (group !== '' && group !== RBAC_GROUP)
          errs.push(field.notSupported(`${path}.apiGroup`, group, [RBAC_GROUP]));
        break;
      default:
        errs.push(field.notSupported(`${path}.kind`, kind, ['ServiceAccount', 'User', 'Group']));
    }
  });
  return errs;
}

export function validateRole(obj: KubeObject): FieldError[] {
  return validateRules(obj, true);
}

export function validateClusterRole(obj: KubeObject): FieldError[] {
  return validateRules(obj, false);
}

export function validateRoleBinding(obj: KubeObject): FieldError[] {
  return [...validateRoleRef(obj, ['Role', 'ClusterRole']), ...validateSubjects(obj, false)];
}

export function validateClusterRoleBinding(obj: KubeObject): FieldError[] {
  return [...validateRoleRef(obj, ['ClusterRole']), ...validateSubjects(obj, true)];
}

/** roleRef is immutable: a binding means one role for its whole life, as upstream enforces. */
export function validateBindingUpdate(
  obj: KubeObject,
  old: KubeObject,
  create: (o: KubeObject) => FieldError[],
): FieldError[] {
  const errs = create(obj);
  if (JSON.stringify(obj['roleRef'] ?? null) !== JSON.stringify(old['roleRef'] ?? null)) {
    errs.push(field.invalid('roleRef', obj['roleRef'], 'cannot change roleRef'));
  }
  return errs;
}
