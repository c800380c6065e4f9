// dkc's REST client for the Kubernetes API: JSON over HTTP/1.1 with keep-alive, TLS credentials from a
// kubeconfig, client-side rate limiting, and watch streams. Built on node:http(s) alone because the
// agent restarts on every configuration change and must be talking to the server within milliseconds;
// one client (one connection pool) is meant to be shared by everything in a process.

import * as http from 'node:http';
import * as https from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { createSecureContext } from 'node:tls';
import { ApiError, ClientError, statusFromResponse } from './errors.js';
import { loadKubeconfig, type ClientConfig, type LoadKubeconfigOptions } from './kubeconfig.js';
import type { RateLimiter } from './ratelimit.js';
import { WatchStream } from './watch.js';

export type QueryValue = string | number | boolean | undefined | readonly string[];
export type Query = Record<string, QueryValue>;

export interface RequestOptions {
  method: string;
  /** Absolute API path, e.g. /api/v1/namespaces/default/configmaps/x. */
  path: string;
  query?: Query;
  /** A string or bytes are sent as they are; anything else as JSON. */
  body?: unknown;
  contentType?: string;
  accept?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Overrides the client's timeout for this request; 0 waits forever. */
  timeoutMs?: number;
}

export interface Response<T = unknown> {
  status: number;
  headers: IncomingHttpHeaders;
  /** Decoded JSON when the server sent JSON, otherwise the text; undefined for an empty body. */
  body: T;
}

export interface CallOptions {
  query?: Query;
  signal?: AbortSignal;
}

/** A list's query; an undefined field is left out of it. */
export interface ListOptions extends CallOptions {
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  limit?: number | undefined;
  continue?: string | undefined;
  resourceVersion?: string | undefined;
}

export interface WatchOptions {
  resourceVersion?: string;
  labelSelector?: string;
  fieldSelector?: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  signal?: AbortSignal;
  query?: Query;
}

/** `apply` is server-side apply: the body is the applier's whole intent (JSON is YAML), query fieldManager required. */
export type PatchType = 'merge' | 'strategic' | 'json' | 'apply';

export const PATCH_CONTENT_TYPES: Readonly<Record<PatchType, string>> = {
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  json: 'application/json-patch+json',
  apply: 'application/apply-patch+yaml',
};

export interface RestClientOptions {
  /** Consulted before every request except watches, which client-go does not throttle either (they are long-lived). */
  rateLimiter?: RateLimiter;
  /** Per-request timeout for everything but watches; 60 s when omitted, 0 disables. */
  timeoutMs?: number;
  userAgent?: string;
  /** Upper bound on open connections to the server; unbounded when omitted (each watch holds one). */
  maxSockets?: number;
  /**
   * Connections shared with other clients (from connectionPool()), which then must not authenticate per connection:
   * the pool carries no client certificate, and each client's token goes with each request. close() ends only this
   * client's requests and watches, and leaves the pool to its owner.
   */
  pool?: ConnectionPool;
}

export interface ConnectionPool {
  transport: typeof http | typeof https;
  agent: http.Agent;
  /** Watches' connections, when requests' are bounded (a watch holds its connection for minutes); default `agent`. */
  watchAgent?: http.Agent;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const CERT_OVER_SHARED_POOL = 'a client certificate authenticates a connection: it cannot go over a shared pool';

function isBytes(v: unknown): v is Uint8Array {
  return v instanceof Uint8Array;
}

function isJsonType(contentType: string | undefined): boolean {
  return contentType !== undefined && /[/+]json\b/i.test(contentType);
}

/** Agent options for `config`'s server over TLS: its CA, client certificate and server name, one secure context. */
function tlsAgentOptions(config: ClientConfig): https.AgentOptions {
  const agentOptions: https.AgentOptions = { keepAlive: true };
  if (config.ca !== undefined) agentOptions.ca = config.ca;
  if (config.cert !== undefined) agentOptions.cert = config.cert;
  if (config.key !== undefined) agentOptions.key = config.key;
  if (config.tlsServerName !== undefined) agentOptions.servername = config.tlsServerName;
  agentOptions.rejectUnauthorized = config.insecureSkipTLSVerify !== true;
  // Without a context of its own the agent builds one per connection (parsing the CA, certificate and key each
  // time: about a millisecond, and the bulk of a simulated fleet's start-up); one per pool is enough.
  agentOptions.secureContext = createSecureContext({
    ...(config.ca !== undefined ? { ca: config.ca } : {}),
    ...(config.cert !== undefined ? { cert: config.cert } : {}),
    ...(config.key !== undefined ? { key: config.key } : {}),
  });
  return agentOptions;
}

/**
 * The connections to `config`'s server with its credentials: TLS with the kubeconfig's CA, client certificate and
 * server name, kept alive. Shared by RestClient and by what streams requests through as they come (`dkc ui`'s proxy).
 */
export function connectionPool(config: ClientConfig, maxSockets?: number): ConnectionPool {
  const bound: https.AgentOptions = maxSockets !== undefined ? { maxSockets } : {};
  if (new URL(config.server).protocol !== 'https:')
    return { transport: http, agent: new http.Agent({ keepAlive: true, ...bound }) };
  return { transport: https, agent: new https.Agent({ ...tlsAgentOptions(config), ...bound }) };
}

/**
 * Connections for many clients that authenticate per request (tokens): requests share at most `requestSockets`
 * connections, kept open and queued for when all are busy, while each watch has one of its own for as long as it
 * lasts. Without the bound, every burst of requests opened connections (a TLS handshake on each side) that the next
 * idle moment closed again.
 */
export function sharedConnectionPool(config: ClientConfig, requestSockets: number): ConnectionPool {
  if (config.cert !== undefined || config.key !== undefined) {
    throw new ClientError('DKC_CLIENT_INVALID_ARGUMENT', CERT_OVER_SHARED_POOL);
  }
  const bound = { maxSockets: requestSockets, maxFreeSockets: requestSockets };
  if (new URL(config.server).protocol !== 'https:') {
    return {
      transport: http,
      agent: new http.Agent({ keepAlive: true, ...bound }),
      watchAgent: new http.Agent({ keepAlive: true }),
    };
  }
  const options = tlsAgentOptions(config);
  return { transport: https, agent: new https.Agent({ ...options, ...bound }), watchAgent: new https.Agent(options) };
}

export class RestClient {
  readonly config: ClientConfig;
  private readonly base: URL;
  private readonly pool: ConnectionPool;
  private readonly rateLimiter: RateLimiter | undefined;
  private readonly timeoutMs: number;
  private readonly userAgent: string;
  /** This client's open requests, when its connections are another's (`pool`): what close() ends. */
  private readonly ownRequests: Set<http.ClientRequest> | undefined;

  /** `shared` is for withOptions only: the connections and own requests of the client being derived from. */
  constructor(
    config: ClientConfig,
    options: RestClientOptions = {},
    shared?: { pool: ConnectionPool; ownRequests: Set<http.ClientRequest> | undefined },
  ) {
    let base: URL;
    try {
      base = new URL(config.server);
    } catch (err) {
      throw new ClientError('DKC_CLIENT_INVALID_ARGUMENT', `server ${JSON.stringify(config.server)} is not a URL`, {
        cause: err,
      });
    }
    if (base.protocol !== 'https:' && base.protocol !== 'http:') {
      throw new ClientError('DKC_CLIENT_INVALID_ARGUMENT', `server ${config.server} must be an http(s) URL`);
    }
    this.config = config;
    this.base = base;
    this.rateLimiter = options.rateLimiter;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.userAgent = options.userAgent ?? `dkc/0.1.0 (${process.platform}/${process.arch})`;
    if (options.pool && (config.cert !== undefined || config.key !== undefined))
      throw new ClientError('DKC_CLIENT_INVALID_ARGUMENT', CERT_OVER_SHARED_POOL);
    // A client over another's connections ends only its own requests when closed; one with its own pool, the pool.
    this.pool = shared?.pool ?? options.pool ?? connectionPool(config, options.maxSockets);
    this.ownRequests = shared ? shared.ownRequests : options.pool ? new Set() : undefined;
  }

  /** A client for the kubeconfig at `path` (its current context unless `kubeconfig.context` says otherwise). */
  static async fromKubeconfig(
    path: string,
    options: RestClientOptions & { kubeconfig?: LoadKubeconfigOptions } = {},
  ): Promise<RestClient> {
    return new RestClient(await loadKubeconfig(path, options.kubeconfig), options);
  }

  /**
   * A client for the same server and credentials over the same connections, with its own rate limit and timeout
   * (the kubelet's API, event and heartbeat clients differ only in these). Closing either closes the connections.
   */
  withOptions(options: Pick<RestClientOptions, 'rateLimiter' | 'timeoutMs'>): RestClient {
    return new RestClient(
      this.config,
      { ...options, userAgent: this.userAgent },
      { pool: this.pool, ownRequests: this.ownRequests },
    );
  }

  /** Closes idle connections and refuses to reuse the others; open watches are cut. Over a shared pool: ends this client's requests. */
  close(): void {
    if (this.ownRequests) for (const r of this.ownRequests) r.destroy();
    else {
      this.pool.agent.destroy();
      this.pool.watchAgent?.destroy();
    }
  }

  /** The full URL for an API path, keeping any path prefix of the server URL. */
  url(path: string, query?: Query): URL {
    if (!path.startsWith('/'))
      throw new ClientError('DKC_CLIENT_INVALID_ARGUMENT', `path must start with "/": ${path}`);
    const u = new URL(this.base.href);
    u.pathname = this.base.pathname.replace(/\/+$/, '') + path;
    u.search = '';
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v === undefined) continue;
      if (Array.isArray(v)) for (const item of v as readonly string[]) u.searchParams.append(k, item);
      else u.searchParams.append(k, String(v));
    }
    return u;
  }

  private async open(
    req: RequestOptions,
    signal: AbortSignal | undefined,
    describe: () => ClientError,
    watch = false,
  ): Promise<IncomingMessage> {
    if (!watch && this.rateLimiter) await this.rateLimiter.acquire(signal);
    const url = this.url(req.path, req.query);
    const headers: Record<string, string> = {
      accept: req.accept ?? 'application/json',
      'user-agent': this.userAgent,
      ...req.headers,
    };
    if (this.config.token !== undefined) headers['authorization'] = `Bearer ${this.config.token}`;
    let payload: Uint8Array | undefined;
    if (req.body !== undefined) {
      if (typeof req.body === 'string') payload = Buffer.from(req.body, 'utf8');
      else if (isBytes(req.body)) payload = req.body;
      else payload = Buffer.from(JSON.stringify(req.body), 'utf8');
      headers['content-type'] = req.contentType ?? 'application/json';
      headers['content-length'] = String(payload.byteLength);
    }
    return new Promise<IncomingMessage>((resolve, reject) => {
      const options: http.RequestOptions = {
        method: req.method,
        headers,
        agent: watch ? (this.pool.watchAgent ?? this.pool.agent) : this.pool.agent,
      };
      if (signal) options.signal = signal;
      const r = this.pool.transport.request(url, options, resolve);
      r.on('error', (err) => reject(signal?.aborted ? describe() : connectionError(req, url, err)));
      if (this.ownRequests) {
        const open = this.ownRequests;
        open.add(r);
        r.once('close', () => open.delete(r));
      }
      r.end(payload);
    });
  }

  /** One request/response exchange. Non-2xx answers throw ApiError. */
  async request<T = unknown>(req: RequestOptions): Promise<Response<T>> {
    const timeoutMs = req.timeoutMs ?? this.timeoutMs;
    const timeout = timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined;
    const signal = timeout && req.signal ? AbortSignal.any([timeout, req.signal]) : (timeout ?? req.signal);
    const describe = (): ClientError =>
      timeout?.aborted && !req.signal?.aborted
        ? new ClientError('DKC_CLIENT_TIMEOUT', `${req.method} ${req.path}: no response within ${timeoutMs} ms`)
        : new ClientError('DKC_CLIENT_ABORTED', `${req.method} ${req.path}: aborted`, { cause: req.signal?.reason });
    if (signal?.aborted) throw describe();
    const res = await this.open(req, signal, describe);
    let raw: Buffer;
    try {
      const chunks: Buffer[] = [];
      for await (const c of res) chunks.push(c as Buffer);
      raw = Buffer.concat(chunks);
    } catch (err) {
      if (signal?.aborted) throw describe();
      throw connectionError(req, this.url(req.path, req.query), err as Error);
    }
    const status = res.statusCode ?? 0;
    const contentType = res.headers['content-type'];
    const text = raw.toString('utf8');
    let body: unknown = text.length === 0 ? undefined : text;
    if (text.length > 0 && isJsonType(contentType)) {
      try {
        body = JSON.parse(text);
      } catch (err) {
        if (status >= 200 && status < 300) {
          throw new ClientError('DKC_CLIENT_RESPONSE_DECODE', `${req.method} ${req.path}: response is not valid JSON`, {
            cause: err,
          });
        }
      }
    }
    if (status < 200 || status >= 300) {
      throw new ApiError(statusFromResponse(status, body, headerValue(res.headers['retry-after'])));
    }
    return { status, headers: res.headers, body: body as T };
  }

  async get<T = unknown>(path: string, options: CallOptions = {}): Promise<T> {
    return (await this.request<T>({ method: 'GET', path, ...callParts(options) })).body;
  }

  async list<T = unknown>(path: string, options: ListOptions = {}): Promise<T> {
    const query: Query = {
      ...options.query,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      limit: options.limit,
      continue: options.continue,
      resourceVersion: options.resourceVersion,
    };
    return (await this.request<T>({ method: 'GET', path, ...callParts({ ...options, query }) })).body;
  }

  async create<T = unknown>(path: string, body: unknown, options: CallOptions = {}): Promise<T> {
    return (await this.request<T>({ method: 'POST', path, body, ...callParts(options) })).body;
  }

  async update<T = unknown>(path: string, body: unknown, options: CallOptions = {}): Promise<T> {
    return (await this.request<T>({ method: 'PUT', path, body, ...callParts(options) })).body;
  }

  async patch<T = unknown>(path: string, type: PatchType, patch: unknown, options: CallOptions = {}): Promise<T> {
    const contentType = PATCH_CONTENT_TYPES[type];
    if (!contentType) throw new ClientError('DKC_CLIENT_INVALID_ARGUMENT', `unknown patch type ${String(type)}`);
    return (await this.request<T>({ method: 'PATCH', path, body: patch, contentType, ...callParts(options) })).body;
  }

  /** DELETE, optionally with a DeleteOptions body (preconditions, propagationPolicy). */
  async delete<T = unknown>(path: string, options: CallOptions & { body?: unknown } = {}): Promise<T> {
    const req: RequestOptions = { method: 'DELETE', path, ...callParts(options) };
    if (options.body !== undefined) req.body = options.body;
    return (await this.request<T>(req)).body;
  }

  /**
   * Opens a watch on a collection path. Resolves once the server has accepted it (a refusal, e.g.
   * 410 for a too-old resourceVersion, rejects with ApiError); the events then come from the stream.
   */
  async watch<T = unknown>(path: string, options: WatchOptions = {}): Promise<WatchStream<T>> {
    const query: Query = {
      ...options.query,
      watch: 'true',
      resourceVersion: options.resourceVersion,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      allowWatchBookmarks: options.allowWatchBookmarks ? 'true' : undefined,
      timeoutSeconds: options.timeoutSeconds,
    };
    const req: RequestOptions = { method: 'GET', path, query };
    const signal = options.signal;
    const describe = (): ClientError =>
      new ClientError('DKC_CLIENT_ABORTED', `watch ${path}: aborted`, { cause: signal?.reason });
    if (signal?.aborted) throw describe();
    const res = await this.open(req, signal, describe, true);
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) {
      // A refused watch answers with an ordinary (short) response body.
      const chunks: Buffer[] = [];
      try {
        for await (const c of res) chunks.push(c as Buffer);
      } catch (err) {
        if (signal?.aborted) throw describe();
        throw connectionError(req, this.url(path, query), err as Error);
      }
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      if (isJsonType(res.headers['content-type'])) {
        try {
          body = JSON.parse(text);
        } catch {
          // keep the text; statusFromResponse words a generic Status around it
        }
      }
      throw new ApiError(statusFromResponse(status, body, headerValue(res.headers['retry-after'])));
    }
    return new WatchStream<T>(res, signal);
  }
}

function callParts(options: CallOptions): Pick<RequestOptions, 'query' | 'signal'> {
  const parts: Pick<RequestOptions, 'query' | 'signal'> = {};
  if (options.query !== undefined) parts.query = options.query;
  if (options.signal !== undefined) parts.signal = options.signal;
  return parts;
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function connectionError(req: RequestOptions, url: URL, err: Error): ClientError {
  return new ClientError('DKC_CLIENT_CONNECTION', `${req.method} ${url.origin}${url.pathname}: ${err.message}`, {
    cause: err,
  });
}
