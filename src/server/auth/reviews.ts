// The create-only review kinds, answered at once from the request's identity and the authorizer chain and never
// stored: access reviews (may I / may they), the rules review (what may I) and the self review (who am I).

import type { KubeObject } from '../../api/types.js';
import type { Authorizer, UserInfo } from '../authz.js';
import type { ResourceDef } from '../resourcedef.js';
import { accessReviewResources, answerAccessReview, checkReviewTypeMeta } from './accessreview.js';
import { answerRulesReview, selfSubjectRulesReviews } from './rulesreview.js';
import { answerSelfSubjectReview, selfSubjectReviews } from './selfsubjectreview.js';
import { systemClock } from '../../util/clock.js';

export const reviewResources: ResourceDef[] = [...accessReviewResources, selfSubjectRulesReviews, selfSubjectReviews];

export function isReview(def: ResourceDef): boolean {
  return reviewResources.some((d) => d.group === def.group && d.plural === def.plural);
}

/** Answers one review; `requester` is who asked (after impersonation). */
export async function answerReview(
  def: ResourceDef,
  namespace: string,
  body: Record<string, unknown>,
  requester: UserInfo,
  authorizer: Authorizer,
  now: Date = systemClock.now(),
): Promise<KubeObject> {
  if (def.group === selfSubjectRulesReviews.group && def.plural === selfSubjectRulesReviews.plural) {
    checkReviewTypeMeta(def, body);
    return answerRulesReview(body, requester, authorizer);
  }
  if (def.group === selfSubjectReviews.group && def.plural === selfSubjectReviews.plural) {
    checkReviewTypeMeta(def, body);
    return answerSelfSubjectReview(requester, now);
  }
  return answerAccessReview(def, namespace, body, requester, authorizer);
}
