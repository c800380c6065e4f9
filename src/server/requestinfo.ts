// Turns a request's method and URL into Kubernetes request attributes (kube-apiserver's RequestInfo):
// API group and version, namespace, resource, name, subresource, verb. Authorization, admission, audit and
// the handlers all work from these attributes rather than from raw paths.

import { boolParam } from './params.js';

export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  verb: string;
  apiPrefix: 'api' | 'apis' | '';
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** Path segments after the subresource (the node proxy's target path). */
  rest: string[];
  /** For `nodes/<name>:<port>/proxy`. */
  port?: string;
  /**
   * The target path of the pre-1.10 proxy form `/api/v1/proxy/nodes/<name>/<path>`, as sent (still encoded). That
   * form is read as `nodes/<name>/proxy/<path>`, so it is authorized exactly as the subresource is.
   */
  legacyProxyPath?: string;
}

const LEGACY_NODE_PROXY = /^\/api\/v1\/proxy\/nodes\/([^/]+)(\/.*)?$/;

const namespaceSubresources = new Set(['status', 'finalize']);

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export function parseRequestInfo(method: string, pathname: string, query: URLSearchParams): RequestInfo {
  const info: RequestInfo = {
    isResourceRequest: false,
    path: pathname,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    rest: [],
  };
  const parts = pathname
    .split('/')
    .filter((s) => s !== '')
    .map(decodeSegment);
  let i = 0;
  if (parts[0] === 'api') {
    info.apiPrefix = 'api';
    if (parts.length < 2) return info;
    info.apiVersion = parts[1]!;
    i = 2;
  } else if (parts[0] === 'apis') {
    info.apiPrefix = 'apis';
    if (parts.length < 3) {
      if (parts.length === 2) info.apiGroup = parts[1]!;
      return info;
    }
    info.apiGroup = parts[1]!;
    info.apiVersion = parts[2]!;
    i = 3;
  } else {
    return info;
  }
  let rest = parts.slice(i);
  if (rest.length === 0) return info;
  info.isResourceRequest = true;
  const legacyProxy = LEGACY_NODE_PROXY.exec(pathname);
  if (legacyProxy) {
    rest = ['nodes', rest[2]!, 'proxy', ...rest.slice(3)];
    info.legacyProxyPath = legacyProxy[2] ?? '';
  }
  // The deprecated `/api/v1/watch/<resource>...` form, still used by older clients: the same as `?watch=true`.
  const legacyWatch = rest[0] === 'watch' && rest.length > 1;
  if (legacyWatch) rest = rest.slice(1);

  let segs = rest;
  if (segs[0] === 'namespaces' && segs.length > 1) {
    info.namespace = segs[1]!;
    // `namespaces/<ns>/<resource>...` addresses a namespaced resource; `namespaces/<ns>[/status|/finalize]`
    // the namespace object itself.
    if (segs.length > 2 && !namespaceSubresources.has(segs[2]!)) segs = segs.slice(2);
  }
  info.resource = segs[0] ?? '';
  if (segs.length >= 2) info.name = segs[1]!;
  if (segs.length >= 3) info.subresource = segs[2]!;
  if (segs.length >= 4) info.rest = segs.slice(3);

  const isWatch = legacyWatch || boolParam(query, 'watch');
  switch (info.verb) {
    case 'get':
    case 'head':
      info.verb = info.name ? (isWatch ? 'watch' : 'get') : isWatch ? 'watch' : 'list';
      break;
    case 'post':
      info.verb = 'create';
      break;
    case 'put':
      info.verb = 'update';
      break;
    case 'patch':
      info.verb = 'patch';
      break;
    case 'delete':
      info.verb = info.name ? 'delete' : 'deletecollection';
      break;
    default:
      break;
  }
  // Proxy requests keep the HTTP verb's own name for authorization, as kube-apiserver does.
  if (info.subresource === 'proxy' && info.name.includes(':')) {
    const idx = info.name.lastIndexOf(':');
    info.port = info.name.slice(idx + 1);
    info.name = info.name.slice(0, idx);
  }
  return info;
}
