// `dkc ui`'s catalogue: what the web view's server answers and logs, in one place.

import { CodedError } from '../util/errors.js';

export type UiErrorCode =
  /** The request's Host or Origin is not one of the accepted hosts (DNS rebinding, cross-site requests). */
  | 'DKC_UI_HOST_REFUSED'
  /** The path is one kubectl proxy refuses too (exec, attach). */
  | 'DKC_UI_PATH_REFUSED'
  /** A flag of `dkc ui` has a value it cannot use (--port, --accept-hosts). */
  | 'DKC_UI_INVALID_FLAG';

export class UiError extends CodedError<UiErrorCode> {
  override name = 'UiError';
}

export const messages = {
  serving: (url: string) => `Serving the fleet view on ${url}`,
  hostRefused: (host: string) =>
    `host ${JSON.stringify(host)} is not accepted: dkc ui serves loopback hosts only (see --accept-hosts)`,
  originRefused: (origin: string) =>
    `origin ${JSON.stringify(origin)} is not accepted: dkc ui answers only its own pages`,
  pathRefused: (path: string) => `path ${JSON.stringify(path)} is refused by dkc ui`,
  upstream: (why: string) => `the API server did not answer: ${why}`,
  notFound: (path: string) => `${path} not found`,
  badAcceptHosts: (pattern: string, why: string) =>
    `--accept-hosts: ${JSON.stringify(pattern)} is not a regular expression: ${why}`,
  noConfigSource: (node: string) =>
    `node ${JSON.stringify(node)} has no ConfigMap assigned (spec.configSource): it runs its local config`,
  legacySource: (node: string) =>
    `node ${JSON.stringify(node)} is assigned a configMapRef (the 1.8 alpha form): compare it with dkc config diff`,
  badPort: (port: string) => `--port: ${JSON.stringify(port)} is not a port number (0-65535)`,
  methodNotAllowed: (method: string) => `method ${method} is not allowed here`,
  channelFallback: (why: string) =>
    `config channel: Node (spec.configSource, status.config) — the channel could not be found: ${why}`,
} as const;
