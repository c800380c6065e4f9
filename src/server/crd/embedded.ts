// Objects embedded in a custom resource (x-kubernetes-embedded-resource) carry their own TypeMeta and
// ObjectMeta, checked as apiextensions-apiserver's objectmeta.Validate checks them: apiVersion and kind
// required and well-formed, metadata valid as any object's (a missing name is not an error here).
// The resource's own root metadata is the serving side's to check.

import { field, type FieldError } from '../../api/field.js';
import type { ObjectMeta } from '../../api/types.js';
import { maxLenError, regexError, validatePathSegmentName, validateObjectMeta } from '../../api/validation/index.js';
import { goRendered } from './gotext.js';
import { embeddedText as text } from './messages.js';
import { additionalOf, ANY_VALUE, isEmbedded, isPlainObject, itemsOf, propertiesOf, type SchemaNode } from './nodes.js';

const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';

function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(value) > 63) errs.push(maxLenError(63));
  if (!DNS1035_LABEL.test(value)) errs.push(regexError(text.dns1035, DNS1035_FMT, 'my-name', 'abc-123'));
  return errs;
}

function apiVersionErrors(v: unknown, path: string): FieldError[] {
  if (typeof v !== 'string') return [field.invalid(path, v, text.mustBeString)];
  if (v === '') return [field.required(path)];
  if (v.split('/').length > 2) return [field.invalid(path, v, text.groupVersion(v))];
  return [];
}

function kindErrors(v: unknown, path: string): FieldError[] {
  if (typeof v !== 'string') return [field.invalid(path, v, text.mustBeString)];
  if (v === '') return [field.required(path)];
  const errs = isDNS1035Label(v.toLowerCase());
  return errs.length ? [field.invalid(path, v, `${text.mixedCase}${errs.join(',')}`)] : [];
}

function embeddedErrors(x: Record<string, unknown>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!('apiVersion' in x)) errs.push(field.required(`${path}.apiVersion`));
  if (!('kind' in x)) errs.push(field.required(`${path}.kind`));
  if ('apiVersion' in x) errs.push(...apiVersionErrors(x['apiVersion'], `${path}.apiVersion`));
  if ('kind' in x) errs.push(...kindErrors(x['kind'], `${path}.kind`));
  const meta = x['metadata'];
  if (isPlainObject(meta)) {
    const m = {
      ...meta,
      name: typeof meta['name'] === 'string' && meta['name'] ? meta['name'] : 'fakename',
    } as ObjectMeta;
    const namespaced = typeof meta['namespace'] === 'string' && meta['namespace'] !== '';
    errs.push(...validateObjectMeta(m, namespaced, validatePathSegmentName, `${path}.metadata`));
  }
  return errs;
}

function walk(x: unknown, s: SchemaNode | undefined, path: string, out: FieldError[], depth: number): void {
  if (!s || depth > 64) return;
  if (Array.isArray(x)) {
    x.forEach((v, i) => walk(v, itemsOf(s), `${path}[${i}]`, out, depth + 1));
    return;
  }
  if (!isPlainObject(x)) return;
  if (isEmbedded(s) && path !== '') out.push(...embeddedErrors(x, path));
  const props = propertiesOf(s) ?? {};
  const additional = additionalOf(s);
  for (const [k, v] of Object.entries(x)) {
    const prop = props[k];
    if (prop) walk(v, prop, path ? `${path}.${k}` : k, out, depth + 1);
    else if (additional && additional !== ANY_VALUE) walk(v, additional, `${path}[${k}]`, out, depth + 1);
  }
}

/** The TypeMeta and ObjectMeta errors of every embedded resource in `obj` (its root excluded). */
export function validateEmbedded(obj: unknown, root: SchemaNode): FieldError[] {
  const out: FieldError[] = [];
  walk(obj, root, '', out, 0);
  return out.map(goRendered);
}
