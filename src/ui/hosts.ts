// Which requests the web view's server answers: like `kubectl proxy --accept-hosts`, only requests whose Host names
// an accepted host (loopback by default), so that a page on another site cannot reach it through DNS rebinding; and
// a request a browser marks with an Origin must come from an accepted host too, so that another site cannot make
// the user's browser act with the user's credentials (CSRF). kubectl proxy's default --reject-paths apply as well.

import { errorMessage } from '../util/errors.js';
import { UiError, messages } from './errors.js';

/** kubectl proxy's default --accept-hosts. */
export const DEFAULT_ACCEPT_HOSTS = '^localhost$,^127\\.0\\.0\\.1$,^\\[::1\\]$';
/** kubectl proxy's default --reject-paths. */
export const REJECT_PATHS: readonly RegExp[] = [/^\/api\/.*\/pods\/.*\/exec/, /^\/api\/.*\/pods\/.*\/attach/];

/** Parses a comma-separated list of regular expressions, as kubectl's flag takes them. */
export function parseAcceptHosts(list: string): RegExp[] {
  return list
    .split(',')
    .filter((p) => p !== '')
    .map((p) => {
      try {
        return new RegExp(p);
      } catch (err) {
        throw new UiError('DKC_UI_INVALID_FLAG', messages.badAcceptHosts(p, errorMessage(err)), { cause: err });
      }
    });
}

/** The host part of a Host header (`[::1]:8080` → `[::1]`, `localhost:8080` → `localhost`). */
export function hostOf(hostHeader: string): string {
  if (hostHeader.startsWith('[')) {
    const end = hostHeader.indexOf(']');
    return end < 0 ? hostHeader : hostHeader.slice(0, end + 1);
  }
  const colon = hostHeader.lastIndexOf(':');
  return colon < 0 ? hostHeader : hostHeader.slice(0, colon);
}

const accepted = (host: string, accept: readonly RegExp[]): boolean => accept.some((r) => r.test(host));

/** Throws UiError('DKC_UI_HOST_REFUSED') unless Host, and Origin when there is one, name accepted hosts. */
export function checkRequest(
  headers: { host?: string | undefined; origin?: string | undefined },
  accept: readonly RegExp[],
): void {
  const host = hostOf(headers.host ?? '');
  if (!accepted(host, accept)) throw new UiError('DKC_UI_HOST_REFUSED', messages.hostRefused(host));
  const origin = headers.origin;
  if (origin === undefined) return;
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    throw new UiError('DKC_UI_HOST_REFUSED', messages.originRefused(origin));
  }
  // The page's own origin only: same host and port as the request, so another local server's page is refused too.
  if (originHost !== headers.host || !accepted(hostOf(originHost), accept))
    throw new UiError('DKC_UI_HOST_REFUSED', messages.originRefused(origin));
}

export function checkPath(path: string): void {
  if (REJECT_PATHS.some((r) => r.test(path))) throw new UiError('DKC_UI_PATH_REFUSED', messages.pathRefused(path));
}
