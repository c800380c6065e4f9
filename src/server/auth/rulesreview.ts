// authorization.k8s.io/v1 SelfSubjectRulesReview (`kubectl auth can-i --list`): what the requesting user may do in a
// namespace, as the union of what each authorizer of the chain can list — RBAC its bound rules, AlwaysAllow
// everything; the Node authorizer cannot list a node's graph-dependent rights and marks the answer incomplete. Every
// authenticated user may ask (system:basic-user), about herself only; impersonation makes "herself" the one named.

import { errors } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import { aggregate } from '../../kubeletconfig/errors.js';
import type { Authorizer, RuleSet, UserInfo } from '../authz.js';
import type { ResourceDef } from '../resourcedef.js';
import { AUTHORIZATION_GROUP, obj, reviewDef, s } from './accessreview.js';
import { messages } from './messages.js';

export const selfSubjectRulesReviews: ResourceDef = reviewDef(
  AUTHORIZATION_GROUP,
  'SelfSubjectRulesReview',
  'selfsubjectrulesreviews',
  false,
);

const nonEmpty = <K extends string>(key: K, list: string[]): Partial<Record<K, string[]>> =>
  list.length ? ({ [key]: list } as Record<K, string[]>) : {};

/** The review's status as upstream serializes it: empty lists left out of each rule, the errors as one aggregate. */
export function rulesReviewStatus(set: RuleSet): Record<string, unknown> {
  return {
    resourceRules: set.resourceRules.map((r) => ({
      verbs: r.verbs,
      ...nonEmpty('apiGroups', r.apiGroups),
      ...nonEmpty('resources', r.resources),
      ...nonEmpty('resourceNames', r.resourceNames),
    })),
    nonResourceRules: set.nonResourceRules.map((r) => ({
      verbs: r.verbs,
      ...nonEmpty('nonResourceURLs', r.nonResourceURLs),
    })),
    incomplete: set.incomplete,
    ...(set.errors.length ? { evaluationError: aggregate(set.errors) } : {}),
  };
}

export async function answerRulesReview(
  body: Record<string, unknown>,
  requester: UserInfo,
  authorizer: Authorizer,
): Promise<KubeObject> {
  const namespace = s(obj(body['spec'])?.['namespace']);
  if (!namespace) throw errors.badRequest(messages.noNamespace);
  const set: RuleSet = (await authorizer.rulesFor?.(requester, namespace)) ?? {
    resourceRules: [],
    nonResourceRules: [],
    incomplete: true,
    errors: [],
  };
  return {
    kind: selfSubjectRulesReviews.kind,
    apiVersion: `${AUTHORIZATION_GROUP}/v1`,
    metadata: { creationTimestamp: null } as unknown as KubeObject['metadata'],
    spec: {},
    status: rulesReviewStatus(set),
  };
}
