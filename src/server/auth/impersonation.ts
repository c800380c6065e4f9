// Impersonation (`Impersonate-User`, `Impersonate-Group`, `Impersonate-Uid`, `Impersonate-Extra-*`), as
// kube-apiserver's WithImpersonation: each requested attribute is itself authorized (verb `impersonate` on users,
// groups, serviceaccounts, uids, userextras), and only when all pass does the request continue as the impersonated
// identity. That is what makes `kubectl auth can-i --as=system:node:node-1 --as-group=system:nodes` answer for
// the node rather than for the admin asking.

import type { IncomingMessage } from 'node:http';
import { errors } from '../../api/errors.js';
import { forbiddenError, type AuthorizationAttributes, type Authorizer, type UserInfo } from '../authz.js';

const SA_PREFIX = 'system:serviceaccount:';

export interface Impersonated {
  user: UserInfo;
  /** Who actually sent the request, for the audit log. */
  impersonator: UserInfo;
}

function headerValues(req: IncomingMessage, name: string): string[] {
  const v = req.headers[name];
  if (v === undefined) return [];
  // Node joins repeated custom headers with ", "; kubectl sends one Impersonate-Group header per group.
  return (Array.isArray(v) ? v : v.split(',')).map((x) => x.trim()).filter((x) => x !== '');
}

function attrs(
  user: UserInfo,
  resource: string,
  name: string,
  apiGroup = '',
  namespace = '',
  subresource = '',
): AuthorizationAttributes {
  return {
    user,
    verb: 'impersonate',
    isResourceRequest: true,
    path: '',
    apiGroup,
    apiVersion: '',
    resource,
    subresource,
    namespace,
    name,
  };
}

/** %-decoded as kube-apiserver does; a malformed escape keeps the key as sent (never a 500). */
function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/** The identity to serve the request as; undefined when the request asks for no impersonation. */
export async function impersonate(
  req: IncomingMessage,
  requester: UserInfo,
  authorizer: Authorizer,
): Promise<Impersonated | undefined> {
  const userHeader = req.headers['impersonate-user'];
  const userName =
    typeof userHeader === 'string'
      ? userHeader.trim()
      : Array.isArray(userHeader)
        ? (userHeader[0] ?? '').trim()
        : undefined;
  const groups = headerValues(req, 'impersonate-group');
  const uidHeader = req.headers['impersonate-uid'];
  const uid = typeof uidHeader === 'string' ? uidHeader : undefined;
  const extras: [string, string[]][] = [];
  for (const h of Object.keys(req.headers)) {
    if (h.startsWith('impersonate-extra-'))
      extras.push([unescapeExtraKey(h.slice('impersonate-extra-'.length)), headerValues(req, h)]);
  }
  if (userName === undefined) {
    if (groups.length || uid !== undefined || extras.length) {
      throw errors.badRequest('requested impersonation of groups, uid or extra fields without impersonating a user');
    }
    return undefined;
  }
  if (userName === '') throw errors.badRequest('Impersonate-User must not be empty');

  const checks: AuthorizationAttributes[] = [];
  let finalGroups = [...groups];
  if (userName.startsWith(SA_PREFIX)) {
    const [ns = '', name = ''] = userName.slice(SA_PREFIX.length).split(':');
    if (!ns || !name) throw errors.badRequest(`invalid service account name ${JSON.stringify(userName)}`);
    checks.push(attrs(requester, 'serviceaccounts', name, '', ns));
    if (groups.length === 0) finalGroups = ['system:serviceaccounts', `system:serviceaccounts:${ns}`];
  } else {
    checks.push(attrs(requester, 'users', userName));
  }
  for (const g of groups) checks.push(attrs(requester, 'groups', g));
  if (uid !== undefined) checks.push(attrs(requester, 'uids', uid, 'authentication.k8s.io'));
  for (const [key, values] of extras)
    for (const v of values) checks.push(attrs(requester, 'userextras', v, 'authentication.k8s.io', '', key));
  for (const c of checks) {
    const d = await authorizer.authorize(c);
    if (d.decision !== 'allow') throw forbiddenError(c, d.reason);
  }
  if (userName !== 'system:anonymous') {
    if (!finalGroups.includes('system:authenticated') && !finalGroups.includes('system:unauthenticated'))
      finalGroups.push('system:authenticated');
  } else if (!finalGroups.includes('system:unauthenticated')) {
    finalGroups.push('system:unauthenticated');
  }
  const extra: Record<string, string[]> = {};
  for (const [key, values] of extras) extra[key] = [...(extra[key] ?? []), ...values];
  const user: UserInfo = {
    name: userName,
    groups: finalGroups,
    ...(uid ? { uid } : {}),
    ...(extras.length ? { extra } : {}),
  };
  return { user, impersonator: requester };
}

/** Impersonation headers must not travel on to a node agent behind the proxy. */
export function stripImpersonationHeaders(req: IncomingMessage): void {
  for (const h of Object.keys(req.headers)) if (h.startsWith('impersonate-')) delete req.headers[h];
}
