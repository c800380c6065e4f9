// ObjectMeta validation for create and update, as k8s.io/apimachinery/pkg/api/validation does it
// (plus the extra finalizer-name rule that pkg/apis/core/validation layers on top). Every kind's
// validator starts here, so the order of checks and the paths match kube-apiserver's output.

import { field, type FieldError } from '../field.js';
import type { ObjectMeta, OwnerReference } from '../types.js';
import { goStringSlice, goTimeString, invalidGo } from './goprint.js';
import { byteLength, isDNS1123Label, isQualifiedName, isValidLabelValue, type NameValidator } from './names.js';

export const TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * 1024;
export const FIELD_IMMUTABLE_ERROR_MSG = 'field is immutable';
export const IS_NEGATIVE_ERROR_MSG = 'must be greater than or equal to 0';

const FINALIZER_ORPHAN = 'orphan';
const FINALIZER_FOREGROUND = 'foregroundDeletion';
const STANDARD_FINALIZERS = new Set(['kubernetes', FINALIZER_ORPHAN, FINALIZER_FOREGROUND]);

/** Decoded JSON is untrusted: a wrongly typed field reads as its zero value, as Go's decoder would leave it. */
export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function stringMap(v: unknown): Array<[string, string]> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return [];
  return Object.entries(v as Record<string, unknown>).map(([k, val]) => [k, str(val)]);
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.map(str) : [];
}

export function validateLabelName(key: string, path: string): FieldError[] {
  return isQualifiedName(key).map((m) => field.invalid(path, key, m));
}

/** Upstream reports every label problem at `metadata.labels`, without the key in the path. */
export function validateLabels(labels: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of stringMap(labels)) {
    errs.push(...validateLabelName(k, path));
    for (const m of isValidLabelValue(v)) errs.push(field.invalid(path, v, m));
  }
  return errs;
}

export function validateAnnotations(annotations: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of stringMap(annotations)) {
    // Annotation keys are qualified names compared case-insensitively.
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(field.invalid(path, k, m));
    total += byteLength(k) + byteLength(v);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT_B) errs.push(field.tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT_B));
  return errs;
}

function apiVersionHasVersion(apiVersion: string): boolean {
  // schema.ParseGroupVersion: "v1" → version v1; "g/v" → version v; more slashes → unparseable.
  if (apiVersion === '') return false;
  const parts = apiVersion.split('/');
  if (parts.length === 1) return true;
  if (parts.length === 2) return parts[1] !== '';
  return false;
}

export function validateOwnerReferences(refs: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(refs)) return errs;
  let firstController = '';
  for (const raw of refs as Array<Partial<OwnerReference> | null>) {
    const ref = raw ?? {};
    const apiVersion = str(ref.apiVersion);
    const kind = str(ref.kind);
    if (!apiVersionHasVersion(apiVersion))
      errs.push(field.invalid(`${path}.apiVersion`, apiVersion, 'version must not be empty'));
    if (kind === '') errs.push(field.invalid(`${path}.kind`, kind, 'kind must not be empty'));
    if (str(ref.name) === '') errs.push(field.invalid(`${path}.name`, str(ref.name), 'name must not be empty'));
    if (str(ref.uid) === '') errs.push(field.invalid(`${path}.uid`, str(ref.uid), 'uid must not be empty'));
    if (ref.controller === true) {
      const current = `${kind}/${str(ref.name)}`;
      if (firstController !== '') {
        errs.push(
          field.invalid(
            path,
            refs,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}

/** The generic (apimachinery) finalizer checks: qualified names, and not both deletion policies. */
export function validateFinalizers(finalizers: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = stringList(finalizers);
  for (const f of list) for (const m of isQualifiedName(f)) errs.push(field.invalid(path, f, m));
  if (list.includes(FINALIZER_ORPHAN) && list.includes(FINALIZER_FOREGROUND)) {
    errs.push(
      invalidGo(
        path,
        list,
        goStringSlice(list),
        `finalizer ${FINALIZER_ORPHAN} and ${FINALIZER_FOREGROUND} cannot be both set`,
      ),
    );
  }
  return errs;
}

/** core's addition: an unprefixed finalizer must be one Kubernetes itself defines. */
export function validateKubeFinalizerName(name: string, path: string): FieldError[] {
  if (!name.includes('/') && !STANDARD_FINALIZERS.has(name)) {
    return [field.invalid(path, name, 'name is neither a standard finalizer name nor is it fully qualified')];
  }
  return [];
}

/** core's validateFinalizerName, used for Namespace spec.finalizers. */
export function validateFinalizerName(name: string, path: string): FieldError[] {
  return [...isQualifiedName(name).map((m) => field.invalid(path, name, m)), ...validateKubeFinalizerName(name, path)];
}

export function validateNamespaceNameValue(ns: string, path: string): FieldError[] {
  return isDNS1123Label(ns).map((m) => field.invalid(path, ns, m));
}

/**
 * apimachinery's ValidateObjectMeta. An empty name is reported even with generateName set, because
 * the server turns generateName into a name before validating.
 */
export function validateObjectMeta(
  meta: ObjectMeta | undefined,
  requiresNamespace: boolean,
  nameFn: NameValidator,
  path = 'metadata',
): FieldError[] {
  const m = meta ?? {};
  const errs: FieldError[] = [];
  const generateName = str(m.generateName);
  const name = str(m.name);
  const namespace = str(m.namespace);
  if (generateName !== '') {
    for (const msg of nameFn(generateName, true)) errs.push(field.invalid(`${path}.generateName`, generateName, msg));
  }
  if (name === '') {
    errs.push(field.required(`${path}.name`, 'name or generateName is required'));
  } else {
    for (const msg of nameFn(name, false)) errs.push(field.invalid(`${path}.name`, name, msg));
  }
  if (requiresNamespace) {
    if (namespace === '') errs.push(field.required(`${path}.namespace`));
    else errs.push(...validateNamespaceNameValue(namespace, `${path}.namespace`));
  } else if (namespace !== '') {
    errs.push(field.forbidden(`${path}.namespace`, 'not allowed on this type'));
  }
  if (typeof m.generation === 'number' && m.generation < 0) {
    errs.push(field.invalid(`${path}.generation`, m.generation, IS_NEGATIVE_ERROR_MSG));
  }
  errs.push(...validateLabels(m.labels, `${path}.labels`));
  errs.push(...validateAnnotations(m.annotations, `${path}.annotations`));
  errs.push(...validateOwnerReferences(m.ownerReferences, `${path}.ownerReferences`));
  errs.push(...validateFinalizers(m.finalizers, `${path}.finalizers`));
  return errs;
}

/** core's ValidateObjectMeta: the generic checks plus Kubernetes' finalizer-name rule. */
export function validateCoreObjectMeta(
  meta: ObjectMeta | undefined,
  requiresNamespace: boolean,
  nameFn: NameValidator,
  path = 'metadata',
): FieldError[] {
  const errs = validateObjectMeta(meta, requiresNamespace, nameFn, path);
  for (const f of stringList(meta?.finalizers)) errs.push(...validateKubeFinalizerName(f, `${path}.finalizers`));
  return errs;
}

function sameTime(a: string | null | undefined, b: string | null | undefined): boolean {
  const ea = a === null || a === undefined || a === '';
  const eb = b === null || b === undefined || b === '';
  if (ea || eb) return ea === eb;
  const ta = Date.parse(a);
  const tb = Date.parse(b);
  if (Number.isNaN(ta) || Number.isNaN(tb)) return a === b;
  // Semantic equality of metav1.Time is at second precision in practice; compare instants.
  return ta === tb;
}

function optNumber(v: unknown): number | undefined {
  return typeof v === 'number' ? v : undefined;
}

/** apimachinery's ValidateObjectMetaUpdate. */
export function validateObjectMetaUpdate(
  newMeta: ObjectMeta | undefined,
  oldMeta: ObjectMeta | undefined,
  path = 'metadata',
): FieldError[] {
  const n = newMeta ?? {};
  const o = oldMeta ?? {};
  const errs: FieldError[] = [];

  if (o.deletionTimestamp) {
    const old = new Set(stringList(o.finalizers));
    const extra = [...new Set(stringList(n.finalizers).filter((f) => !old.has(f)))].sort();
    if (extra.length) {
      errs.push(
        field.forbidden(
          `${path}.finalizers`,
          `no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(extra)}`,
        ),
      );
    }
  }
  const rv = str(n.resourceVersion);
  if (rv === '') errs.push(field.invalid(`${path}.resourceVersion`, rv, 'must be specified for an update'));

  const newGen = optNumber(n.generation) ?? 0;
  if (newGen < (optNumber(o.generation) ?? 0))
    errs.push(field.invalid(`${path}.generation`, newGen, 'must not be decremented'));

  for (const key of ['name', 'namespace', 'uid'] as const) {
    if (str(n[key]) !== str(o[key])) errs.push(field.invalid(`${path}.${key}`, str(n[key]), FIELD_IMMUTABLE_ERROR_MSG));
  }
  if (!sameTime(n.creationTimestamp, o.creationTimestamp)) {
    errs.push(
      invalidGo(
        `${path}.creationTimestamp`,
        n.creationTimestamp,
        goTimeString(n.creationTimestamp),
        FIELD_IMMUTABLE_ERROR_MSG,
      ),
    );
  }
  if (!sameTime(n.deletionTimestamp, o.deletionTimestamp)) {
    const text = n.deletionTimestamp ? goTimeString(n.deletionTimestamp) : 'null';
    errs.push(invalidGo(`${path}.deletionTimestamp`, n.deletionTimestamp ?? null, text, FIELD_IMMUTABLE_ERROR_MSG));
  }
  const newGrace = optNumber(n.deletionGracePeriodSeconds);
  if (newGrace !== optNumber(o.deletionGracePeriodSeconds)) {
    errs.push(field.invalid(`${path}.deletionGracePeriodSeconds`, newGrace ?? null, FIELD_IMMUTABLE_ERROR_MSG));
  }

  errs.push(...validateLabels(n.labels, `${path}.labels`));
  errs.push(...validateAnnotations(n.annotations, `${path}.annotations`));
  errs.push(...validateOwnerReferences(n.ownerReferences, `${path}.ownerReferences`));
  return errs;
}

/** core's ValidateObjectMetaUpdate: the generic checks plus the finalizer-name rule. */
export function validateCoreObjectMetaUpdate(
  newMeta: ObjectMeta | undefined,
  oldMeta: ObjectMeta | undefined,
  path = 'metadata',
): FieldError[] {
  const errs = validateObjectMetaUpdate(newMeta, oldMeta, path);
  for (const f of stringList(newMeta?.finalizers)) errs.push(...validateKubeFinalizerName(f, `${path}.finalizers`));
  return errs;
}
