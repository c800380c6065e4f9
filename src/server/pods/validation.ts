// kube-apiserver's ValidatePodCreate and ValidatePodUpdate for the fields a Pod commonly carries: metadata,
// containers (name required, a DNS label, unique; image required; resource names and quantities, requests within
// limits), restartPolicy, dnsPolicy, nodeSelector, serviceAccountName, nodeName, activeDeadlineSeconds and
// tolerations; on update, a spec that may change only in the images, activeDeadlineSeconds (set or shortened),
// added tolerations and a grace period once negative. Field errors in upstream's order and words. Pure.

import { deepEqual } from '../../api/equal.js';
import { field, type FieldError } from '../../api/field.js';
import {
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  nameIsDNSSubdomain,
  validateCoreObjectMeta,
  validateCoreObjectMetaUpdate,
  validateLabelName,
  validateLabels,
  validateNodeName,
} from '../../api/validation/index.js';
import { quantity } from './defaults.js';
import { DNS_POLICIES, podText, RESTART_POLICIES, TAINT_EFFECTS, TOLERATION_OPERATORS } from './messages.js';
import type { Container, PodObject, PodSpec, ResourceRequirements, Toleration } from './types.js';

const MAX_INT32 = 2147483647;
const CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);
const STANDARD_RESOURCES = new Set([...CONTAINER_RESOURCES, 'storage', 'pods', 'services', 'configmaps', 'secrets']);

function resourceNameErrors(name: string, path: string): FieldError[] {
  const errs = isQualifiedName(name).map((m) => field.invalid(path, name, m));
  if (errs.length || name.includes('/')) return errs;
  const huge = name.startsWith('hugepages-');
  if (!huge && !STANDARD_RESOURCES.has(name)) return [field.invalid(path, name, podText.notStandardResource)];
  if (!huge && !CONTAINER_RESOURCES.has(name)) return [field.invalid(path, name, podText.notContainerResource)];
  return [];
}

function resourceListErrors(list: Record<string, unknown> | null | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [name, raw] of Object.entries(list ?? {})) {
    const p = `${path}[${name}]`;
    errs.push(...resourceNameErrors(name, p));
    const q = quantity(raw);
    if (q.sign() < 0) errs.push(field.invalid(p, q.toString(), podText.nonNegative));
  }
  return errs;
}

function resourcesErrors(r: ResourceRequirements | null | undefined, path: string): FieldError[] {
  const errs = [
    ...resourceListErrors(r?.limits, `${path}.limits`),
    ...resourceListErrors(r?.requests, `${path}.requests`),
  ];
  for (const [name, raw] of Object.entries(r?.requests ?? {})) {
    const limit = r?.limits?.[name];
    if (limit === undefined) continue;
    const q = quantity(raw);
    const l = quantity(limit);
    if (q.cmp(l) > 0)
      errs.push(field.invalid(`${path}.requests`, q.toString(), podText.requestOverLimit(name, l.toString())));
  }
  return errs;
}

function containerErrors(c: Container, path: string, names: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const name = typeof c.name === 'string' ? c.name : '';
  if (name === '') errs.push(field.required(`${path}.name`));
  else {
    for (const m of isDNS1123Label(name)) errs.push(field.invalid(`${path}.name`, name, m));
    if (names.has(name)) errs.push(field.duplicate(`${path}.name`, name));
    names.add(name);
  }
  if (typeof c.image !== 'string' || c.image === '') errs.push(field.required(`${path}.image`));
  errs.push(...resourcesErrors(c.resources, `${path}.resources`));
  return errs;
}

function containersErrors(spec: PodSpec, base: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  (spec.initContainers ?? []).forEach((c, i) =>
    errs.push(...containerErrors(c ?? {}, `${base}.initContainers[${i}]`, names)),
  );
  const containers = spec.containers ?? [];
  if (containers.length === 0) errs.push(field.required(`${base}.containers`));
  containers.forEach((c, i) => errs.push(...containerErrors(c ?? {}, `${base}.containers[${i}]`, names)));
  return errs;
}

function tolerationErrors(t: Toleration, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const key = t.key ?? '';
  if (key !== '') errs.push(...validateLabelName(key, `${path}.key`));
  if (key === '' && t.operator !== 'Exists')
    errs.push(field.invalid(`${path}.operator`, t.operator ?? '', podText.tolerationKeyEmpty));
  if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && t.effect !== 'NoExecute')
    errs.push(field.invalid(`${path}.effect`, t.effect ?? '', podText.tolerationSecondsEffect));
  const op = t.operator ?? '';
  if (op === 'Equal' || op === '') {
    const m = isValidLabelValue(t.value ?? '');
    if (m.length) errs.push(field.invalid(`${path}.operator`, t.value ?? '', m.join(';')));
  } else if (op === 'Exists') {
    if (t.value) errs.push(field.invalid(`${path}.operator`, t, podText.tolerationExistsValue));
  } else errs.push(field.notSupported(`${path}.operator`, op, TOLERATION_OPERATORS));
  if (t.effect && !TAINT_EFFECTS.includes(t.effect))
    errs.push(field.notSupported(`${path}.effect`, t.effect, TAINT_EFFECTS));
  return errs;
}

function tolerationsErrors(list: Toleration[] | null | undefined, base: string): FieldError[] {
  return (list ?? []).flatMap((t, i) => tolerationErrors(t ?? {}, `${base}.tolerations[${i}]`));
}

/** ValidatePodSpec for the fields above, under `base` (`spec` for a Pod, `spec.template.spec` for a template). */
export function validatePodSpec(spec: PodSpec, base = 'spec'): FieldError[] {
  const errs = containersErrors(spec, base);
  if (spec.restartPolicy !== undefined && !RESTART_POLICIES.includes(spec.restartPolicy))
    errs.push(field.notSupported(`${base}.restartPolicy`, spec.restartPolicy, RESTART_POLICIES));
  if (spec.dnsPolicy !== undefined && !DNS_POLICIES.includes(spec.dnsPolicy))
    errs.push(field.notSupported(`${base}.dnsPolicy`, spec.dnsPolicy, DNS_POLICIES));
  errs.push(...validateLabels(spec.nodeSelector, `${base}.nodeSelector`));
  const sa = spec.serviceAccountName ?? '';
  if (sa !== '') for (const m of isDNS1123Subdomain(sa)) errs.push(field.invalid(`${base}.serviceAccountName`, sa, m));
  const nodeName = spec.nodeName ?? '';
  if (nodeName !== '')
    for (const m of validateNodeName(nodeName, false)) errs.push(field.invalid(`${base}.nodeName`, nodeName, m));
  const deadline = spec.activeDeadlineSeconds;
  if (typeof deadline === 'number' && (deadline < 1 || deadline > MAX_INT32))
    errs.push(field.invalid(`${base}.activeDeadlineSeconds`, deadline, podText.deadlineRange(1)));
  errs.push(...tolerationsErrors(spec.tolerations, base));
  return errs;
}

/** ValidatePodCreate. */
export function validatePod(pod: PodObject): FieldError[] {
  return [...validateCoreObjectMeta(pod.metadata, true, nameIsDNSSubdomain), ...validatePodSpec(pod.spec ?? {})];
}

function deadlineUpdateErrors(next: PodSpec, old: PodSpec): FieldError[] {
  const n = next.activeDeadlineSeconds;
  const o = old.activeDeadlineSeconds;
  const path = 'spec.activeDeadlineSeconds';
  if (typeof n === 'number') {
    if (n < 0 || n > MAX_INT32) return [field.invalid(path, n, podText.deadlineRange(0))];
    if (typeof o === 'number' && o < n) return [field.invalid(path, n, podText.deadlineIncreased)];
  } else if (typeof o === 'number') return [field.invalid(path, null, podText.deadlineRemoved)];
  return [];
}

/** validateOnlyAddedTolerations: every old toleration is still there, but for its tolerationSeconds. */
function tolerationUpdateErrors(next: Toleration[], old: Toleration[]): FieldError[] {
  for (const o of old) {
    const found = next.some((n) => deepEqual({ ...o, tolerationSeconds: n.tolerationSeconds }, n));
    if (!found) return [field.forbidden('spec.tolerations', podText.tolerationModified)];
  }
  return [];
}

/** The changed top-level fields of a spec, one `- old` / `+ new` pair each, after the Forbidden message. */
function specDiff(old: PodSpec, next: PodSpec): string {
  const keys = [...new Set([...Object.keys(old), ...Object.keys(next)])].sort();
  const lines: string[] = [];
  for (const k of keys) {
    if (deepEqual(old[k], next[k])) continue;
    if (old[k] !== undefined) lines.push(`-  ${k}: ${JSON.stringify(old[k])}`);
    if (next[k] !== undefined) lines.push(`+  ${k}: ${JSON.stringify(next[k])}`);
  }
  return lines.join('\n');
}

/** The old spec with what an update may change taken from the new one (ValidatePodUpdate's mungedPodSpec). */
function mungedSpec(next: PodSpec, old: PodSpec): PodSpec {
  const munged: PodSpec = structuredClone(old);
  const images = (list: Container[] | null | undefined, from: Container[] | null | undefined) =>
    (list ?? []).forEach((c, i) => {
      const image = from?.[i]?.image;
      if (!c) return;
      if (image === undefined) delete c.image;
      else c.image = image;
    });
  if ((next.containers ?? []).length === (old.containers ?? []).length) images(munged.containers, next.containers);
  if ((next.initContainers ?? []).length === (old.initContainers ?? []).length)
    images(munged.initContainers, next.initContainers);
  for (const k of ['activeDeadlineSeconds', 'tolerations'] as const) {
    if (next[k] === undefined) delete munged[k];
    else munged[k] = structuredClone(next[k]) as never;
  }
  const oldGrace = old.terminationGracePeriodSeconds;
  if (typeof oldGrace === 'number' && oldGrace < 0 && next.terminationGracePeriodSeconds === 1)
    munged.terminationGracePeriodSeconds = 1;
  return munged;
}

/** ValidatePodUpdate (the main resource; a status write keeps the stored spec). */
export function validatePodUpdate(pod: PodObject, old: PodObject): FieldError[] {
  const errs = validateCoreObjectMetaUpdate(pod.metadata, old.metadata);
  const next = pod.spec ?? {};
  const prev = old.spec ?? {};
  errs.push(...validatePodSpec(next));
  const deadline = deadlineUpdateErrors(next, prev);
  if (deadline.length) return [...errs, ...deadline];
  errs.push(...tolerationUpdateErrors(next.tolerations ?? [], prev.tolerations ?? []));
  const munged = mungedSpec(next, prev);
  if (!deepEqual(munged, next))
    errs.push(field.forbidden('spec', `${podText.updatableFields}\n${specDiff(munged, next)}`));
  return errs;
}
