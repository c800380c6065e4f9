// Validation of CustomResourceDefinition objects, with apiextensions-apiserver's field paths and messages.
// The version schemas' own rules (structural schemas) are the schema module's.

import { field, type FieldError } from '../../api/field.js';
import type { KubeObject } from '../../api/types.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../api/validation/objectmeta.js';
import { isDNS1123Label, isDNS1123Subdomain, regexError } from '../../api/validation/names.js';
import { validateSimpleJsonPath, validateStructural } from './schema.js';
import type { Crd, CrdVersion, PrinterColumn } from './types.js';
import { msg } from './messages.js';
import { validateApproval } from './approval.js';

const SCOPES = ['Cluster', 'Namespaced'];
const COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const dns1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

function isDNS1035Label(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push('must be no more than 63 characters');
  if (!dns1035.test(v)) errs.push(regexError(msg.dns1035, '[a-z]([-a-z0-9]*[a-z0-9])?', 'my-name', 'abc-123'));
  return errs;
}

const s = (v: unknown): string => (typeof v === 'string' ? v : '');

function validateNames(crd: Crd): FieldError[] {
  const names = crd.spec.names ?? {};
  const path = 'spec.names';
  const errs: FieldError[] = [];
  const plural = s(names.plural);
  if (!plural) errs.push(field.required(`${path}.plural`));
  else for (const m of isDNS1123Label(plural)) errs.push(field.invalid(`${path}.plural`, plural, m));
  if (names.singular)
    for (const m of isDNS1123Label(names.singular)) errs.push(field.invalid(`${path}.singular`, names.singular, m));
  if (!s(names.kind)) errs.push(field.required(`${path}.kind`));
  else if (names.kind === names.listKind)
    errs.push(field.invalid(`${path}.listKind`, names.listKind, msg.kindIsListKind));
  (names.shortNames ?? []).forEach((n, i) => {
    for (const m of isDNS1123Label(s(n))) errs.push(field.invalid(`${path}.shortNames[${i}]`, n, m));
  });
  return errs;
}

function validateColumns(columns: PrinterColumn[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  (columns ?? []).forEach((c, i) => {
    const p = `${path}[${i}]`;
    if (!s(c.name)) errs.push(field.required(`${p}.name`));
    if (!s(c.type)) errs.push(field.required(`${p}.type`));
    else if (!COLUMN_TYPES.includes(c.type!)) errs.push(field.notSupported(`${p}.type`, c.type, COLUMN_TYPES));
    if (!s(c.jsonPath)) errs.push(field.required(`${p}.jsonPath`));
    else errs.push(...validateSimpleJsonPath(c.jsonPath!, `${p}.jsonPath`));
  });
  return errs;
}

function validateVersion(v: CrdVersion, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = s(v.name);
  if (!name) errs.push(field.required(`${path}.name`));
  else for (const m of isDNS1035Label(name)) errs.push(field.invalid(`${path}.name`, name, m));
  const schema = v.schema?.openAPIV3Schema;
  if (schema === undefined || schema === null)
    errs.push(field.required(`${path}.schema.openAPIV3Schema`, msg.schemaRequired));
  else errs.push(...validateStructural(schema, `${path}.schema.openAPIV3Schema`));
  errs.push(...validateColumns(v.additionalPrinterColumns, `${path}.additionalPrinterColumns`));
  return errs;
}

function validateVersions(crd: Crd): FieldError[] {
  const versions = crd.spec.versions ?? [];
  if (!Array.isArray(versions) || versions.length === 0) return [field.required('spec.versions', msg.versionsRequired)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    errs.push(...validateVersion(v ?? {}, `spec.versions[${i}]`));
    if (v?.name && seen.has(v.name)) errs.push(field.duplicate(`spec.versions[${i}].name`, v.name));
    if (v?.name) seen.add(v.name);
  });
  if (versions.filter((v) => v?.storage === true).length !== 1)
    errs.push(field.invalid('spec.versions', versions, msg.oneStorageVersion));
  if (!versions.some((v) => v?.served === true))
    errs.push(field.invalid('spec.versions', versions, msg.oneServedVersion));
  return errs;
}

function validateSpec(crd: Crd): FieldError[] {
  const errs: FieldError[] = [];
  const group = s(crd.spec.group);
  if (!group) errs.push(field.required('spec.group'));
  else {
    for (const m of isDNS1123Subdomain(group)) errs.push(field.invalid('spec.group', group, m));
    if (group.split('.').length < 2) errs.push(field.invalid('spec.group', group, msg.groupNeedsDot));
  }
  const scope = s(crd.spec.scope);
  if (!scope) errs.push(field.required('spec.scope'));
  else if (!SCOPES.includes(scope)) errs.push(field.notSupported('spec.scope', scope, SCOPES));
  errs.push(...validateNames(crd), ...validateVersions(crd));
  const strategy = crd.spec.conversion?.strategy;
  if (strategy !== undefined && strategy !== 'None')
    errs.push(field.notSupported('spec.conversion.strategy', strategy, ['None']));
  return errs;
}

function validateName(crd: Crd): FieldError[] {
  const want = `${s(crd.spec.names?.plural)}.${s(crd.spec.group)}`;
  return crd.metadata.name === want
    ? []
    : [field.invalid('metadata.name', crd.metadata.name ?? '', msg.nameIsPluralGroup)];
}

export function validateCrdCreate(obj: KubeObject): FieldError[] {
  const crd = obj as unknown as Crd;
  crd.spec ??= {};
  const meta = validateObjectMeta(obj.metadata, false, (n) => isDNS1123Subdomain(n));
  return [
    ...meta,
    ...validateName(crd),
    ...validateSpec(crd),
    ...validateApproval(s(crd.spec.group), obj.metadata.annotations),
  ];
}

export function validateCrdUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const crd = obj as unknown as Crd;
  const prev = old as unknown as Crd;
  crd.spec ??= {};
  const errs = [
    ...validateObjectMeta(obj.metadata, false, (n) => isDNS1123Subdomain(n)),
    ...validateObjectMetaUpdate(obj.metadata, old.metadata),
    ...validateName(crd),
    ...validateSpec(crd),
    ...validateApproval(s(crd.spec.group), obj.metadata.annotations, old.metadata.annotations ?? {}),
  ];
  if (crd.spec.group !== prev.spec?.group) errs.push(field.invalid('spec.group', crd.spec.group, msg.immutable));
  const stored = prev.status?.storedVersions ?? [];
  if (stored.length && crd.spec.scope !== prev.spec?.scope)
    errs.push(field.invalid('spec.scope', crd.spec.scope, msg.immutable));
  const versions = new Set((crd.spec.versions ?? []).map((v) => v?.name));
  for (const v of crd.status?.storedVersions ?? []) {
    if (!versions.has(v))
      errs.push(field.invalid('status.storedVersions', crd.status?.storedVersions, msg.storedVersionMissing(v)));
  }
  return errs;
}
