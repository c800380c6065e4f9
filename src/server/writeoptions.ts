// Who makes a write, as managedFields records it: the `fieldManager` of a create, update or patch, checked as
// kube-apiserver's ValidateCreateOptions, ValidateUpdateOptions and ValidatePatchOptions check it (required for
// server-side apply, at most 128 bytes, printable), and for a write that names none the program name of its user
// agent (`kubectl/v1.32.0 (linux/amd64) …` → `kubectl`). `force` is server-side apply's alone.

import { errors } from '../api/errors.js';
import { field, type FieldError } from '../api/field.js';
import { optionsText } from './fieldmanager/messages.js';
import type { PatchContentType } from './patch/index.js';
import { boolParam } from './params.js';

export const FIELD_MANAGER_MAX_LENGTH = 128;

export interface WriteOptions {
  fieldManager: string;
  force: boolean;
}

const OPTIONS_KIND = { create: 'CreateOptions', update: 'UpdateOptions', patch: 'PatchOptions' } as const;

/** Printable as Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** The user agent's text before its first "/", unprintable characters left out, cut at 128 bytes. */
export function managerFromUserAgent(userAgent: string | undefined): string {
  let out = '';
  for (const ch of (userAgent ?? '').split('/')[0]!) {
    if (!PRINTABLE.test(ch)) continue;
    if (byteLength(out) + byteLength(ch) > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
  }
  return out;
}

function managerErrors(manager: string): FieldError[] {
  const out: FieldError[] = [];
  if (byteLength(manager) > FIELD_MANAGER_MAX_LENGTH) out.push(field.tooLong('fieldManager', FIELD_MANAGER_MAX_LENGTH));
  let position = 0;
  for (const ch of manager) {
    if (!PRINTABLE.test(ch))
      out.push(field.invalid('fieldManager', manager, optionsText.invalidCharacter(ch, position)));
    position += byteLength(ch);
  }
  return out;
}

/** The options of a write, or the 422 kube-apiserver answers for them. */
export function writeOptions(
  verb: 'create' | 'update' | 'patch',
  patchType: PatchContentType | undefined,
  query: URLSearchParams,
  userAgent: string | undefined,
): WriteOptions {
  const requested = query.get('fieldManager') ?? '';
  const errs: FieldError[] = [];
  if (verb === 'patch' && patchType !== 'apply' && query.has('force'))
    errs.push(field.forbidden('force', optionsText.forceNonApply));
  if (patchType === 'apply' && requested === '') errs.push(field.required('fieldManager', optionsText.required));
  errs.push(...managerErrors(requested));
  if (errs.length > 0) throw errors.invalid({ group: 'meta.k8s.io', name: OPTIONS_KIND[verb] }, '', errs);
  return {
    fieldManager: requested || managerFromUserAgent(userAgent),
    force: patchType === 'apply' && boolParam(query, 'force'),
  };
}
