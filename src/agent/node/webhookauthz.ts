// `authorization.mode: Webhook` for the agent's HTTPS endpoints, as the kubelet does it: each caller's request is put
// to the API server as a SubjectAccessReview (verb and nodes/<subresource> of this node), and the answer is cached —
// allowed answers for cacheAuthorizedTTL (5 min by default), refusals for cacheUnauthorizedTTL (30 s) — so a scrape
// every few seconds costs the API server one review per TTL, not one per request.

import type { RestClient } from '../../client/index.js';
import { systemClock, type Clock } from '../../util/clock.js';
import type { RequestAttributes, RequestUser } from './httpserver.js';

export interface WebhookAuthorizerOptions {
  client: Pick<RestClient, 'create'>;
  authorizedTTLMs: number;
  unauthorizedTTLMs: number;
  /** Expires cached decisions on its monotonic side; the system clock by default. */
  clock?: Clock;
  /** Bound on cached decisions; the oldest go first. */
  maxEntries?: number;
}

const MASTERS_GROUP = 'system:masters';

interface SubjectAccessReviewStatus {
  status?: { allowed?: boolean; denied?: boolean; reason?: string };
}

export class WebhookAuthorizer {
  private readonly cache = new Map<string, { allowed: boolean; expires: number }>();
  private readonly clock: Clock;
  private readonly maxEntries: number;

  constructor(private readonly options: WebhookAuthorizerOptions) {
    this.clock = options.clock ?? systemClock;
    this.maxEntries = options.maxEntries ?? 4096;
  }

  async authorize(user: RequestUser, attrs: RequestAttributes): Promise<boolean> {
    // The API server allows system:masters everything before any authorizer is consulted, so the answer is known
    // without asking — and stays available while the control plane is down, which is when an operator most needs
    // /configz directly. (The API server's node-proxy identity is not in this group: RBAC's system:kubelet-api-admin
    // is what lets it through.)
    if (user.groups.includes(MASTERS_GROUP)) return true;
    const key = JSON.stringify([
      user.name,
      [...user.groups].sort(),
      attrs.verb,
      attrs.resource,
      attrs.subresource,
      attrs.name,
    ]);
    const hit = this.cache.get(key);
    const now = this.clock.monotonicMs();
    if (hit && hit.expires > now) return hit.allowed;
    const review = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: user.name,
        groups: user.groups,
        resourceAttributes: {
          verb: attrs.verb,
          group: '',
          version: 'v1',
          resource: attrs.resource,
          subresource: attrs.subresource,
          name: attrs.name,
        },
      },
    };
    // A failed review is not cached: the next request asks again instead of being refused for a TTL.
    const answer = await this.options.client.create<SubjectAccessReviewStatus>(
      '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      review,
    );
    const allowed = answer?.status?.allowed === true;
    const ttl = allowed ? this.options.authorizedTTLMs : this.options.unauthorizedTTLMs;
    if (ttl > 0) {
      this.cache.delete(key);
      this.cache.set(key, { allowed, expires: now + ttl });
      if (this.cache.size > this.maxEntries) {
        const oldest = this.cache.keys().next();
        if (!oldest.done) this.cache.delete(oldest.value);
      }
    }
    return allowed;
  }
}
