// The agent's listeners: HTTPS on address:port (/configz, /healthz, /metrics, /pods, /logs/) behind the kubelet's
// authentication rules (a client certificate verified against authentication.x509.clientCAFile, or
// anonymous when authentication.anonymous.enabled), the plain-HTTP read-only port (/healthz, /metrics) and
// the healthz port (/healthz). Starting fails with a NodeAgentError naming the cause, because the dynamic
// config controller's crash-loop rollback relies on a bad port or address failing the start visibly.

import { readFile } from 'node:fs/promises';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SecureVersion, TLSSocket } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import type { KubeletConfiguration } from '../../kubeletconfig/index.js';
import { klog } from '../../util/klog.js';
import { NodeAgentError } from './errors.js';
import { LOGS_PREFIX, logsRoute } from './logs.js';
import { renderMetrics, type MetricsRegistry } from './metrics.js';
import { loadOrCreateServingCert } from './servingcert.js';
import { errorMessage } from '../../util/errors.js';

export type AgentServerConfig = Pick<
  KubeletConfiguration,
  | 'address'
  | 'port'
  | 'readOnlyPort'
  | 'healthzPort'
  | 'healthzBindAddress'
  | 'tlsCertFile'
  | 'tlsPrivateKeyFile'
  | 'tlsMinVersion'
> & {
  authentication: { anonymous: { enabled: boolean }; x509: { clientCAFile: string } };
  /** `Webhook` asks `authorize` about every request on the HTTPS port; `AlwaysAllow` lets every authenticated caller in. */
  authorization?: { mode: string };
};

/** The caller of an HTTPS endpoint, from its verified client certificate (CN = user, O = groups). */
export interface RequestUser {
  name: string;
  groups: string[];
}

/** What a request asks to do, in the terms of a SubjectAccessReview's resourceAttributes. */
export interface RequestAttributes {
  verb: string;
  resource: 'nodes';
  subresource: string;
  name: string;
}

/** True to let the request through; a rejection answers 500 (the decision could not be made). */
export type AgentAuthorize = (user: RequestUser, attrs: RequestAttributes) => Promise<boolean>;

export interface HealthzResult {
  ok: boolean;
  reason?: string;
}

export interface AgentServersOptions {
  config: AgentServerConfig;
  /** Where the self-signed serving pair lives when no tlsCertFile is configured. */
  certDir: string;
  nodeName: string;
  /** Extra IP SANs for a self-signed certificate (the node's InternalIP). */
  nodeIPs?: readonly string[];
  /**
   * The running configuration for /configz: an object, or the JSON text of one (toConfigzJSON), which is
   * spliced in unchanged so Go's number formatting survives.
   */
  configz: () => object | string;
  healthz: () => HealthzResult;
  /** The Pods /pods lists (a core/v1 PodList's items); none when absent. */
  pods?: () => readonly object[];
  metrics: MetricsRegistry;
  /**
   * Backs `authorization.mode: Webhook`. Without it (a standalone agent has no API server to ask) every
   * authenticated caller is let in, as before authorization existed.
   */
  authorize?: AgentAuthorize;
  /** The directory served at /logs/ (the agent's --log-file's); without it /logs/ is not found. */
  logDir?: string;
}

export interface AgentServerPorts {
  https: number;
  /** Present when readOnlyPort > 0. */
  readOnly?: number;
  /** Present when healthzPort > 0. */
  healthz?: number;
}

export interface AgentServers {
  /** The bound ports (useful when the config asked for port 0). */
  ports: AgentServerPorts;
  /** The address the HTTPS endpoints answer on (a wildcard when the config binds every address). */
  address: string;
  certFile: string;
  keyFile: string;
  /** True when this start minted the self-signed serving certificate. */
  certGenerated: boolean;
  /**
   * Whether the HTTPS listener still takes connections, for the health-gated trial; when absent the agent connects to
   * it over TCP. A host whose listener is in the same process (a fleet's) answers without a connection.
   */
  probe?(): Promise<void>;
  stop(): Promise<void>;
}

/** Go's http.Error: text, a newline, nosniff. */
function textError(res: http.ServerResponse, code: number, text: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end(text + '\n');
}

function notFound(res: http.ServerResponse): void {
  textError(res, 404, '404 page not found');
}

function pathOf(req: http.IncomingMessage): string {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>;

function healthzRoute(healthz: () => HealthzResult): Route {
  return (_req, res) => {
    let result: HealthzResult;
    try {
      result = healthz();
    } catch (err) {
      result = { ok: false, reason: errorMessage(err) };
    }
    if (result.ok) {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
      res.end('ok');
      return;
    }
    textError(res, 500, `healthz check failed: ${result.reason ?? 'unknown reason'}`);
  };
}

function metricsRoute(registry: MetricsRegistry): Route {
  return async (_req, res) => {
    const { contentType, body } = await renderMetrics(registry);
    res.writeHead(200, { 'Content-Type': contentType });
    res.end(body);
  };
}

function configzRoute(configz: () => object | string): Route {
  return (_req, res) => {
    const value = configz();
    const inner = typeof value === 'string' ? value : JSON.stringify(value);
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(`{"kubeletconfig":${inner}}`);
  };
}

function podsRoute(pods: () => readonly object[]): Route {
  return (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items: pods() }));
  };
}

const VERBS: Record<string, string> = {
  GET: 'get',
  HEAD: 'get',
  POST: 'create',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

function isSubpath(path: string, base: string): boolean {
  return path === base || path.startsWith(`${base}/`);
}

/** The kubelet's mapping of a request to node subresource attributes (server/auth.go GetRequestAttributes). */
export function requestAttributes(method: string, path: string, nodeName: string): RequestAttributes {
  let subresource = 'proxy';
  if (isSubpath(path, '/stats')) subresource = 'stats';
  else if (isSubpath(path, '/metrics')) subresource = 'metrics';
  else if (isSubpath(path, '/logs')) subresource = 'log';
  else if (isSubpath(path, '/spec')) subresource = 'spec';
  else if (isSubpath(path, '/checkpoint')) subresource = 'checkpoint';
  return { verb: VERBS[method.toUpperCase()] ?? method.toLowerCase(), resource: 'nodes', subresource, name: nodeName };
}

/** The verified client certificate's identity; undefined for an anonymous or unverified caller. */
function certificateUser(req: http.IncomingMessage): RequestUser | undefined {
  const socket = req.socket as TLSSocket;
  if (socket.authorized !== true) return undefined;
  const subject = socket.getPeerCertificate()?.subject as Record<string, string | string[]> | undefined;
  const cn = subject?.['CN'];
  const name = Array.isArray(cn) ? cn[0] : cn;
  if (!name) return undefined;
  const o = subject?.['O'];
  return { name, groups: o === undefined ? [] : Array.isArray(o) ? [...o] : [o] };
}

type Gate = (req: http.IncomingMessage, res: http.ServerResponse) => boolean | Promise<boolean>;

/** Serves the paths no exact route names (a tree such as /logs/); undefined leaves them not found. */
type Fallback = ((req: http.IncomingMessage, res: http.ServerResponse, path: string) => Promise<void>) | undefined;

function logsFallback(dir: string | undefined): Fallback {
  if (dir === undefined) return undefined;
  const logs = logsRoute(dir);
  return async (req, res, path) => {
    if (path === LOGS_PREFIX.slice(0, -1)) {
      res.writeHead(301, { Location: 'logs/' });
      res.end();
    } else if (path.startsWith(LOGS_PREFIX)) await logs(req, res, path);
    else notFound(res);
  };
}

function dispatch(
  routes: Record<string, Route>,
  name: string,
  authenticate?: (req: http.IncomingMessage) => boolean,
  authorize?: Gate,
  fallback?: Fallback,
): http.RequestListener {
  return (req, res) => {
    if (authenticate !== undefined && !authenticate(req)) {
      textError(res, 401, 'Unauthorized');
      return;
    }
    if (authorize === undefined) {
      serve(routes, name, req, res, fallback);
      return;
    }
    Promise.resolve()
      .then(() => authorize(req, res))
      .then(
        (ok) => {
          if (ok) serve(routes, name, req, res, fallback);
        },
        (err: unknown) => {
          klog.error(`${name}: authorizing ${req.method ?? 'GET'} ${pathOf(req)} failed: ${errorMessage(err)}`);
          if (!res.headersSent) textError(res, 500, 'Internal Server Error');
        },
      );
  };
}

function serve(
  routes: Record<string, Route>,
  name: string,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  fallback?: Fallback,
): void {
  const path = pathOf(req);
  let route = Object.prototype.hasOwnProperty.call(routes, path) ? routes[path] : undefined;
  if (route === undefined && fallback !== undefined) route = (rq, rs) => fallback(rq, rs, path);
  if (route === undefined) {
    notFound(res);
    return;
  }
  Promise.resolve()
    .then(() => route(req, res))
    .catch((err: unknown) => {
      klog.error(`${name}: ${req.method ?? 'GET'} ${pathOf(req)} failed: ${errorMessage(err)}`);
      if (!res.headersSent) textError(res, 500, 'Internal Server Error');
      else res.destroy();
    });
}

function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Go's net error words for the usual bind failures, so the log reads like the kubelet's. */
function listenError(what: string, host: string, port: number, err: NodeJS.ErrnoException): NodeAgentError {
  const where = `listen tcp ${hostPort(host, port)}`;
  switch (err.code) {
    case 'EADDRINUSE':
      return new NodeAgentError('DKC_NODE_LISTEN_ADDRESS_IN_USE', `${what}: ${where}: bind: address already in use`, {
        cause: err,
      });
    case 'EADDRNOTAVAIL':
      return new NodeAgentError(
        'DKC_NODE_LISTEN_ADDRESS_NOT_AVAILABLE',
        `${what}: ${where}: bind: cannot assign requested address`,
        { cause: err },
      );
    case 'EACCES':
      return new NodeAgentError('DKC_NODE_LISTEN_FAILED', `${what}: ${where}: bind: permission denied`, { cause: err });
    default:
      return new NodeAgentError('DKC_NODE_LISTEN_FAILED', `${what}: ${where}: ${err.message}`, { cause: err });
  }
}

function listen(server: http.Server, what: string, host: string, port: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => reject(listenError(what, host, port, err));
    server.once('error', onError);
    try {
      server.listen(port, host, () => {
        server.off('error', onError);
        server.on('error', (err) => klog.error(`${what}: ${err.message}`));
        resolve((server.address() as AddressInfo).port);
      });
    } catch (err) {
      // Synchronous refusals: an out-of-range port, a malformed address.
      server.off('error', onError);
      reject(
        new NodeAgentError(
          'DKC_NODE_LISTEN_FAILED',
          `${what}: listen tcp ${hostPort(host, port)}: ${errorMessage(err)}`,
          { cause: err },
        ),
      );
    }
  });
}

function close(server: http.Server): Promise<void> {
  return new Promise<void>((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

const TLS_VERSIONS: Record<string, SecureVersion> = {
  VersionTLS10: 'TLSv1',
  VersionTLS11: 'TLSv1.1',
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3',
};

async function readClientCA(file: string): Promise<string | undefined> {
  if (file === '') return undefined;
  let pem: string;
  try {
    pem = await readFile(file, 'utf8');
  } catch (err) {
    throw new NodeAgentError('DKC_NODE_CLIENT_CA_INVALID', `cannot read clientCAFile ${file}: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new NodeAgentError('DKC_NODE_CLIENT_CA_INVALID', `clientCAFile ${file} holds no PEM certificate`);
  }
  return pem;
}

/** What one node's HTTPS endpoints need besides where they listen. */
export type AgentHandlerOptions = Omit<AgentServersOptions, 'certDir' | 'nodeIPs'> & {
  /**
   * The client CA the TLS handshake verified callers against, when the listener is not the node's own (a fleet's
   * shared one). A caller then counts as authenticated only if the node's own clientCAFile also signed its
   * certificate, so each node keeps its own authentication rules.
   */
  handshakeCA?: string;
};

/** The PEM certificates of a bundle, as X509Certificate objects (unparsable blocks are left out). */
function parseBundle(pem: string): X509Certificate[] {
  const out: X509Certificate[] = [];
  for (const m of pem.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g)) {
    try {
      out.push(new X509Certificate(m[0]));
    } catch {
      // A bundle may hold blocks node cannot read; they verify nothing.
    }
  }
  return out;
}

/**
 * The request listener of one node's HTTPS endpoints (/configz, /healthz, /metrics, /pods) behind the kubelet's
 * authentication and authorization rules, for a listener of the node's own or one shared by many nodes.
 */
export async function createAgentHandler(
  options: AgentHandlerOptions,
): Promise<{ handler: http.RequestListener; clientCA: string | undefined }> {
  const { config } = options;
  const clientCA = await readClientCA(config.authentication.x509.clientCAFile);
  const anonymous = config.authentication.anonymous.enabled;
  const ownCAs =
    clientCA !== undefined && options.handshakeCA !== undefined && clientCA !== options.handshakeCA
      ? parseBundle(clientCA)
      : undefined;
  const signedByOwnCA = (req: http.IncomingMessage): boolean => {
    if (ownCAs === undefined) return true;
    const peer = (req.socket as TLSSocket).getPeerX509Certificate();
    return peer !== undefined && ownCAs.some((ca) => peer.checkIssued(ca) && peer.verify(ca.publicKey));
  };
  const authenticate = (req: http.IncomingMessage): boolean => {
    if (anonymous) return true;
    return clientCA !== undefined && (req.socket as TLSSocket).authorized === true && signedByOwnCA(req);
  };
  const ask = options.authorize;
  const authorizeRequest: Gate | undefined =
    config.authorization?.mode !== 'Webhook' || ask === undefined
      ? undefined
      : async (req, res) => {
          const user = (signedByOwnCA(req) ? certificateUser(req) : undefined) ?? {
            name: 'system:anonymous',
            groups: ['system:unauthenticated'],
          };
          const attrs = requestAttributes(req.method ?? 'GET', pathOf(req), options.nodeName);
          const shown = `user=${user.name}, verb=${attrs.verb}, resource=${attrs.resource}, subresource=${attrs.subresource}`;
          let allowed: boolean;
          try {
            allowed = await ask(user, attrs);
          } catch (err) {
            klog.error(`Authorization error (${shown}): ${errorMessage(err)}`);
            textError(res, 500, `Authorization error (${shown})`);
            return false;
          }
          if (!allowed) textError(res, 403, `Forbidden (${shown})`);
          return allowed;
        };
  const healthz = healthzRoute(options.healthz);
  const metrics = metricsRoute(options.metrics);
  const pods = podsRoute(options.pods ?? (() => []));
  const handler = dispatch(
    {
      '/configz': configzRoute(options.configz),
      '/healthz': healthz,
      '/metrics': metrics,
      '/pods': pods,
      '/pods/': pods,
    },
    'kubelet server',
    authenticate,
    authorizeRequest,
    logsFallback(options.logDir),
  );
  return { handler, clientCA };
}

/**
 * Starts the HTTPS server and, when configured, the read-only and healthz ports. Rejects with a
 * NodeAgentError (LISTEN_*, SERVING_CERT_*, CLIENT_CA_INVALID) and leaves nothing listening when any
 * of them cannot start.
 */
export async function startAgentServers(options: AgentServersOptions): Promise<AgentServers> {
  const { config } = options;
  const cert = await loadOrCreateServingCert({
    tlsCertFile: config.tlsCertFile,
    tlsPrivateKeyFile: config.tlsPrivateKeyFile,
    certDir: options.certDir,
    hostnames: [options.nodeName],
    ips: options.nodeIPs ?? [],
  });
  const { handler, clientCA } = await createAgentHandler(options);

  const tlsOptions: https.ServerOptions = { cert: cert.certPem, key: cert.keyPem };
  const minVersion = TLS_VERSIONS[config.tlsMinVersion];
  if (minVersion !== undefined) tlsOptions.minVersion = minVersion;
  if (clientCA !== undefined) {
    // Ask for a certificate but let the request through unverified: whether that is acceptable depends on
    // anonymous authentication, which is decided per request, not during the handshake.
    tlsOptions.requestCert = true;
    tlsOptions.rejectUnauthorized = false;
    tlsOptions.ca = clientCA;
  }
  const healthz = healthzRoute(options.healthz);
  const metrics = metricsRoute(options.metrics);
  const secure = https.createServer(tlsOptions, handler);
  const started: http.Server[] = [];
  const stopAll = async (): Promise<void> => {
    await Promise.all(started.map(close));
  };
  try {
    started.push(secure);
    const ports: AgentServerPorts = { https: await listen(secure, 'kubelet server', config.address, config.port) };
    if (config.readOnlyPort > 0) {
      const readOnly = http.createServer(dispatch({ '/healthz': healthz, '/metrics': metrics }, 'read-only server'));
      started.push(readOnly);
      ports.readOnly = await listen(readOnly, 'read-only server', config.address, config.readOnlyPort);
    }
    if (config.healthzPort > 0) {
      const hz = http.createServer(dispatch({ '/healthz': healthz }, 'healthz server'));
      started.push(hz);
      ports.healthz = await listen(hz, 'healthz server', config.healthzBindAddress, config.healthzPort);
    }
    klog.info('Started kubelet server', { address: config.address, ...ports });
    let stopping: Promise<void> | undefined;
    return {
      ports,
      address: config.address,
      certFile: cert.certFile,
      keyFile: cert.keyFile,
      certGenerated: cert.generated,
      stop: () => (stopping ??= stopAll()),
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
