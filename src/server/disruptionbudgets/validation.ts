// A PodDisruptionBudget's validation (kube's ValidatePodDisruptionBudget and its status update): object metadata,
// minAvailable and maxUnavailable (not both; a count ≥ 0 or a percentage ≤ 100%), the selector, the unhealthy-pod
// eviction policy, and the status counts. Pure.

import { field, type FieldError } from '../../api/field.js';
import type { KubeObject } from '../../api/types.js';
import type { IntOrString, PodDisruptionBudget } from '../../api/workloads.js';
import {
  isValidLabelValue,
  nameIsDNSSubdomain,
  validateCoreObjectMeta,
  validateCoreObjectMetaUpdate,
  validateLabelName,
  validateLabels,
} from '../../api/validation/index.js';
import { invalidGo } from '../../api/validation/goprint.js';
import { budgetText, UNHEALTHY_POD_EVICTION_POLICIES } from './messages.js';

/** %#v of an intstr.IntOrString. */
export function goIntOrString(v: IntOrString): string {
  return typeof v === 'number'
    ? `intstr.IntOrString{Type:0, IntVal:${v}, StrVal:""}`
    : `intstr.IntOrString{Type:1, IntVal:0, StrVal:${JSON.stringify(v)}}`;
}

const isPercent = (v: IntOrString): v is string => typeof v === 'string' && /^[0-9]+%$/.test(v);

/** ValidatePositiveIntOrPercent: a count not negative, or a percentage. */
export function positiveIntOrPercent(v: IntOrString, path: string): FieldError[] {
  if (typeof v === 'number') return v < 0 ? [field.invalid(path, v, budgetText.negative)] : [];
  return isPercent(v) ? [] : [invalidGo(path, v, goIntOrString(v), budgetText.notPercent)];
}

/** IsNotMoreThan100Percent: a percentage is at most 100%. */
export function notMoreThan100Percent(v: IntOrString, path: string): FieldError[] {
  return isPercent(v) && Number(v.slice(0, -1)) > 100 ? [invalidGo(path, v, goIntOrString(v), budgetText.over100)] : [];
}

/** ValidatePositiveIntOrPercent and IsNotMoreThan100Percent. */
export function validateIntOrPercent(v: IntOrString, path: string): FieldError[] {
  const errs = positiveIntOrPercent(v, path);
  return errs.length ? errs : notMoreThan100Percent(v, path);
}

interface SelectorRequirement {
  key?: string;
  operator?: string;
  values?: string[] | null;
}

function validateRequirement(r: SelectorRequirement, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const values = r.values ?? [];
  if (r.operator === 'In' || r.operator === 'NotIn') {
    if (values.length === 0) errs.push(field.required(`${path}.values`, budgetText.valuesRequired));
  } else if (r.operator === 'Exists' || r.operator === 'DoesNotExist') {
    if (values.length > 0) errs.push(field.forbidden(`${path}.values`, budgetText.valuesForbidden));
  } else errs.push(field.invalid(`${path}.operator`, r.operator ?? '', budgetText.badOperator));
  errs.push(...validateLabelName(r.key ?? '', `${path}.key`));
  values.forEach((v, i) => errs.push(...isValidLabelValue(v).map((m) => field.invalid(`${path}.values[${i}]`, v, m))));
  return errs;
}

/** ValidateLabelSelector. */
export function validateSelector(
  selector: { matchLabels?: unknown; matchExpressions?: SelectorRequirement[] | null } | null | undefined,
  path: string,
): FieldError[] {
  if (!selector) return [];
  const errs = validateLabels(selector.matchLabels, `${path}.matchLabels`);
  (selector.matchExpressions ?? []).forEach((r, i) =>
    errs.push(...validateRequirement(r, `${path}.matchExpressions[${i}]`)),
  );
  return errs;
}

function validateSpec(pdb: PodDisruptionBudget): FieldError[] {
  const spec = pdb.spec ?? {};
  const errs: FieldError[] = [];
  const min = spec.minAvailable ?? undefined;
  const max = spec.maxUnavailable ?? undefined;
  if (min !== undefined && max !== undefined)
    errs.push(invalidGo('spec', spec, budgetText.specGoText, budgetText.bothSet));
  if (min !== undefined) errs.push(...validateIntOrPercent(min, 'spec.minAvailable'));
  if (max !== undefined) errs.push(...validateIntOrPercent(max, 'spec.maxUnavailable'));
  errs.push(...validateSelector(spec.selector, 'spec.selector'));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (policy !== undefined && policy !== null && !UNHEALTHY_POD_EVICTION_POLICIES.includes(policy))
    errs.push(field.notSupported('spec.unhealthyPodEvictionPolicy', policy, UNHEALTHY_POD_EVICTION_POLICIES));
  return errs;
}

const COUNTS = ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'] as const;

/** ValidatePodDisruptionBudgetStatusUpdate's counts (policy/v1): none negative. */
export function validateStatus(pdb: PodDisruptionBudget): FieldError[] {
  const status = pdb.status;
  if (!status) return [];
  return COUNTS.filter((k) => (status[k] ?? 0) < 0).map((k) =>
    field.invalid(`status.${k}`, status[k], budgetText.negative),
  );
}

export function validateBudget(obj: KubeObject): FieldError[] {
  const pdb = obj as PodDisruptionBudget;
  return [...validateCoreObjectMeta(pdb.metadata, true, nameIsDNSSubdomain), ...validateSpec(pdb)];
}

export function validateBudgetUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const pdb = obj as PodDisruptionBudget;
  return [...validateCoreObjectMetaUpdate(pdb.metadata, old.metadata), ...validateSpec(pdb), ...validateStatus(pdb)];
}
