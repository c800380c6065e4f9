// What kube-apiserver does with the CEL in dkc's manifests, evaluated offline with @bufbuild/cel (a CEL evaluator
// conformant with cel-spec): a ValidatingAdmissionPolicy's matchConstraints, matchConditions, variables and validations against
// an admission request, and a CustomResourceDefinition's x-kubernetes-validations against an object, rendered as
// kube-apiserver renders their failures. Only what the manifests use is modelled (resourceRules by group, resource and
// operation; rules on object-typed schema nodes); an evaluation error counts as a failure, as failurePolicy Fail does.

import { isCelError, run, type CelInput } from '@bufbuild/cel';
import { anyText } from '../../src/util/text.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = Record<string, unknown>;

/** JSON as CEL sees a decoded Kubernetes object: objects are maps, whole numbers ints. */
export function celValue(v: unknown): CelInput {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return v.map(celValue);
  if (typeof v === 'object') return new Map(Object.entries(v as Obj).map(([k, x]) => [k, celValue(x)]));
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  return v as CelInput;
}

/** True, false, or the evaluation error's message. */
export function evaluate(expression: string, bindings: Record<string, unknown>): boolean | string {
  const celBindings = Object.fromEntries(Object.entries(bindings).map(([k, v]) => [k, celValue(v)]));
  const r = run(expression, celBindings);
  if (isCelError(r)) return r.message;
  if (typeof r !== 'boolean') return `not a boolean: ${anyText(r)}`;
  return r;
}

export interface AdmissionRequest {
  userInfo: { username: string; groups: string[] };
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  /** nodeconfigs, with its group (nodes in the core group ''). */
  resource: { group: string; resource: string };
  subResource: string;
  name: string;
  object: Json;
  oldObject: Json;
}

interface Policy {
  metadata: { name: string };
  spec: {
    matchConstraints: { resourceRules: { apiGroups: string[]; resources: string[]; operations: string[] }[] };
    matchConditions?: { name: string; expression: string }[];
    variables?: { name: string; expression: string }[];
    validations: { expression: string; message: string }[];
  };
}

const matchesOne = (list: string[], value: string): boolean => list.includes('*') || list.includes(value);

/** The policy's verdict: not matched, allowed, or denied with kube-apiserver's message (binding named as the policy). */
export function admit(
  policy: Policy,
  binding: string,
  req: AdmissionRequest,
): { matched: false } | { matched: true; denied?: string } {
  const resource = req.subResource ? `${req.resource.resource}/${req.subResource}` : req.resource.resource;
  const matched = policy.spec.matchConstraints.resourceRules.some(
    (r) =>
      matchesOne(r.apiGroups, req.resource.group) &&
      matchesOne(r.resources, resource) &&
      matchesOne(r.operations, req.operation),
  );
  if (!matched) return { matched: false };
  const bindings: Record<string, unknown> = {
    request: {
      userInfo: req.userInfo,
      operation: req.operation,
      name: req.name,
      subResource: req.subResource,
      resource: { ...req.resource, version: 'v1alpha1' },
    },
    object: req.object,
    oldObject: req.oldObject,
  };
  for (const c of policy.spec.matchConditions ?? []) {
    const r = evaluate(c.expression, bindings);
    if (r === false) return { matched: false };
    if (r !== true) throw new Error(`matchCondition ${c.name}: ${r}`);
  }
  // Variables in order, each seeing those before it (kube-apiserver evaluates them lazily; these never fail).
  const variables: Record<string, unknown> = {};
  for (const v of policy.spec.variables ?? []) {
    const r = evaluate(v.expression, { ...bindings, variables });
    if (typeof r === 'string') throw new Error(`variable ${v.name}: ${r}`);
    variables[v.name] = r;
  }
  bindings['variables'] = variables;
  for (const v of policy.spec.validations) {
    const r = evaluate(v.expression, bindings);
    if (r === true) continue;
    const message = r === false ? v.message : `expression '${v.expression}' resulted in error: ${r}`;
    return {
      matched: true,
      denied: `ValidatingAdmissionPolicy '${policy.metadata.name}' with binding '${binding}' denied request: ${message}`,
    };
  }
  return { matched: true };
}

interface Rule {
  rule: string;
  message: string;
  fieldPath?: string;
  reason?: 'FieldValueRequired' | 'FieldValueForbidden' | 'FieldValueInvalid';
}

const TYPE_TEXT = {
  FieldValueRequired: 'Required value',
  FieldValueForbidden: 'Forbidden',
  FieldValueInvalid: 'Invalid value',
} as const;

/**
 * The errors a CRD's x-kubernetes-validations give `obj`, as kube-apiserver prints them: `<path>: Required value:
 * <message>`, `<path>: Forbidden: <message>`, or `<path>: Invalid value: "object": <message>`. Every schema node with
 * rules is visited where the object has a value.
 */
export function crdRuleErrors(schema: Obj, obj: unknown, path = ''): string[] {
  const out: string[] = [];
  if (obj === null || obj === undefined) return out;
  for (const r of (schema['x-kubernetes-validations'] as Rule[] | undefined) ?? []) {
    const ok = evaluate(r.rule, { self: obj });
    if (ok === true) continue;
    if (ok !== false) throw new Error(`rule ${r.rule} at ${path}: ${ok}`);
    const reason = r.reason ?? 'FieldValueInvalid';
    const at = `${path}${r.fieldPath ?? ''}`;
    out.push(
      reason === 'FieldValueInvalid'
        ? `${at}: ${TYPE_TEXT[reason]}: "object": ${r.message}`
        : `${at}: ${TYPE_TEXT[reason]}: ${r.message}`,
    );
  }
  const props = (schema['properties'] as Record<string, Obj> | undefined) ?? {};
  if (typeof obj === 'object' && !Array.isArray(obj)) {
    for (const [k, sub] of Object.entries(props))
      out.push(...crdRuleErrors(sub, (obj as Obj)[k], path ? `${path}.${k}` : k));
  }
  return out;
}
