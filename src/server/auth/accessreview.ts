// authorization.k8s.io/v1 access reviews: SelfSubjectAccessReview (may I?), SubjectAccessReview (may they? — what
// agents ask about callers of their endpoints) and LocalSubjectAccessReview (may they, in this namespace?). They are
// create-only and never stored: the answer comes from the same authorizer chain that guards every request.

import { errors } from '../../api/errors.js';
import { field, type FieldError } from '../../api/field.js';
import type { KubeObject } from '../../api/types.js';
import { fieldSelectorAttributes, type AuthorizationAttributes, type Authorizer, type UserInfo } from '../authz.js';
import type { ResourceDef } from '../resourcedef.js';

export const AUTHORIZATION_GROUP = 'authorization.k8s.io';

/** A create-only kind answered at once and never stored (the access, rules and self reviews). */
export function reviewDef(group: string, kind: string, plural: string, namespaced: boolean): ResourceDef {
  return {
    group,
    version: 'v1',
    plural,
    singular: kind.toLowerCase(),
    kind,
    namespaced,
    shortNames: [],
    verbs: ['create'],
    statusSubresource: false,
    proxySubresource: false,
    fields: {},
    columns: [],
    row: () => [],
  };
}

export const accessReviewResources: ResourceDef[] = [
  reviewDef(AUTHORIZATION_GROUP, 'SelfSubjectAccessReview', 'selfsubjectaccessreviews', false),
  reviewDef(AUTHORIZATION_GROUP, 'SubjectAccessReview', 'subjectaccessreviews', false),
  reviewDef(AUTHORIZATION_GROUP, 'LocalSubjectAccessReview', 'localsubjectaccessreviews', true),
];

export function isAccessReview(def: ResourceDef): boolean {
  return def.group === AUTHORIZATION_GROUP && accessReviewResources.some((d) => d.plural === def.plural);
}

type Obj = Record<string, unknown>;

export function obj(v: unknown): Obj | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;
}

export function s(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** A review's body must name its own kind and version, when it names one. */
export function checkReviewTypeMeta(def: ResourceDef, body: Obj): void {
  const apiVersion = `${def.group}/${def.version}`;
  if (
    (body['kind'] !== undefined && body['kind'] !== def.kind) ||
    (body['apiVersion'] !== undefined && body['apiVersion'] !== apiVersion)
  ) {
    throw errors.badRequest(
      `the API version in the data (${s(body['apiVersion'])}) does not match the expected API version (${apiVersion}) or the kind in the data (${s(body['kind'])}) does not match the expected kind (${def.kind})`,
    );
  }
}

/** The request attributes a review's spec describes. */
export function reviewAttributes(spec: Obj, user: UserInfo): AuthorizationAttributes {
  const ra = obj(spec['resourceAttributes']);
  if (ra) {
    const attrs: AuthorizationAttributes = {
      user,
      verb: s(ra['verb']),
      isResourceRequest: true,
      path: '',
      apiGroup: s(ra['group']),
      apiVersion: s(ra['version']),
      resource: s(ra['resource']),
      subresource: s(ra['subresource']),
      namespace: s(ra['namespace']),
      name: s(ra['name']),
    };
    const fs = obj(ra['fieldSelector']);
    const fieldSelector = fs ? fieldSelectorAttributes(s(fs['rawSelector'])) : undefined;
    if (fieldSelector) attrs.fieldSelector = fieldSelector;
    return attrs;
  }
  const nra = obj(spec['nonResourceAttributes']) ?? {};
  return {
    user,
    verb: s(nra['verb']),
    isResourceRequest: false,
    path: s(nra['path']),
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    namespace: '',
    name: '',
  };
}

function validate(def: ResourceDef, spec: Obj, namespace: string): FieldError[] {
  const errs: FieldError[] = [];
  const ra = spec['resourceAttributes'];
  const nra = spec['nonResourceAttributes'];
  if (ra && nra)
    errs.push(
      field.invalid('spec.nonResourceAttributes', nra, 'cannot be specified in combination with resourceAttributes'),
    );
  if (!ra && !nra)
    errs.push(
      field.required(
        'spec.resourceAttributes',
        'exactly one of nonResourceAttributes or resourceAttributes must be specified',
      ),
    );
  if (
    def.kind !== 'SelfSubjectAccessReview' &&
    !s(spec['user']) &&
    !(Array.isArray(spec['groups']) && spec['groups'].length)
  ) {
    errs.push(field.invalid('spec.user', s(spec['user']), '`spec.user` or `spec.groups` must be specified'));
  }
  if (def.kind === 'LocalSubjectAccessReview') {
    const attrNs = s(obj(ra)?.['namespace']);
    if (nra) errs.push(field.invalid('spec.nonResourceAttributes', nra, 'disallowed on this kind of request'));
    if (ra && attrNs !== namespace)
      errs.push(field.invalid('spec.resourceAttributes.namespace', attrNs, 'must match metadata.namespace'));
  }
  return errs;
}

/** Answers one review; `requester` is who asked (the subject of a SelfSubjectAccessReview). */
export async function answerAccessReview(
  def: ResourceDef,
  namespace: string,
  body: Obj,
  requester: UserInfo,
  authorizer: Authorizer,
): Promise<KubeObject> {
  const apiVersion = `${AUTHORIZATION_GROUP}/v1`;
  checkReviewTypeMeta(def, body);
  const spec = obj(body['spec']) ?? {};
  const errs = validate(def, spec, namespace);
  if (errs.length) throw errors.invalid({ group: AUTHORIZATION_GROUP, name: def.kind }, '', errs);
  let subject: UserInfo;
  if (def.kind === 'SelfSubjectAccessReview') {
    subject = requester;
  } else {
    const groups = Array.isArray(spec['groups'])
      ? spec['groups'].filter((g): g is string => typeof g === 'string')
      : [];
    subject = { name: s(spec['user']), groups, ...(s(spec['uid']) ? { uid: s(spec['uid']) } : {}) };
  }
  const attrs = reviewAttributes(spec, subject);
  const decision = await authorizer.authorize(attrs);
  const status: Obj = { allowed: decision.decision === 'allow' };
  if (decision.reason) status['reason'] = decision.reason;
  const metadata = { ...(obj(body['metadata']) ?? {}), creationTimestamp: null } as KubeObject['metadata'];
  const outSpec: Obj = { ...spec };
  if (def.kind === 'SelfSubjectAccessReview') {
    delete outSpec['user'];
    delete outSpec['groups'];
  }
  return { kind: def.kind, apiVersion, metadata, spec: outSpec, status };
}
