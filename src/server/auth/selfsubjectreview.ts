// authentication.k8s.io/v1 SelfSubjectReview (`kubectl auth whoami`): the requesting user as the server
// authenticated her — name, uid, groups, extra — after impersonation, so `--as` shows who the request acts as.
// Every authenticated user may ask (system:basic-user).

import type { KubeObject } from '../../api/types.js';
import type { UserInfo } from '../authz.js';
import type { ResourceDef } from '../resourcedef.js';
import { reviewDef } from './accessreview.js';
import { formatTime } from '../../util/clock.js';

export const AUTHENTICATION_GROUP = 'authentication.k8s.io';

export const selfSubjectReviews: ResourceDef = reviewDef(
  AUTHENTICATION_GROUP,
  'SelfSubjectReview',
  'selfsubjectreviews',
  false,
);

export function answerSelfSubjectReview(requester: UserInfo, now: Date): KubeObject {
  const extra = requester.extra ?? {};
  const userInfo = {
    ...(requester.name ? { username: requester.name } : {}),
    ...(requester.uid ? { uid: requester.uid } : {}),
    ...(requester.groups.length ? { groups: requester.groups } : {}),
    ...(Object.keys(extra).length ? { extra } : {}),
  };
  return {
    kind: selfSubjectReviews.kind,
    apiVersion: `${AUTHENTICATION_GROUP}/v1`,
    metadata: { creationTimestamp: formatTime(now) },
    status: { userInfo },
  };
}
