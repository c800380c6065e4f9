// The API server's HTTP layer: TLS, authentication, routing of Kubernetes REST paths to the generic resource
// storage, content negotiation (JSON, YAML, Table), watch streaming, discovery and OpenAPI, the node proxy, and the
// mapping of every failure to a metav1.Status. Nothing here knows a resource by name; the registry describes them.

import https from 'node:https';
import { constants as cryptoConstants } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { errors, StatusError, toStatusError } from '../api/errors.js';
import type { KubeObject } from '../api/types.js';
import type { Store } from '../storage/store.js';
import { formatTime, systemClock, type Clock } from '../util/clock.js';
import { klog } from '../util/klog.js';
import { Authenticator } from './authn.js';
import { nodeTokenKeys } from '../pki/nodetoken.js';
import {
  alwaysAllow,
  forbiddenError,
  runAdmission,
  type AdmissionPlugin,
  type AuthorizationAttributes,
  type Authorizer,
  type ServerReads,
  type UserInfo,
} from './authz.js';
import { decodeApplyBody, decodeObjectBody, decodePatchBody, readBody } from './body.js';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, versionInfo } from './discovery.js';
import { NodeProxy, nodeEndpoint } from './proxy.js';
import { defaultRegistry, type Registry } from './registry.js';
import { apiVersionOf, type ResourceDef, type SubresourceAction } from './resourcedef.js';
import { parseRequestInfo, type RequestInfo } from './requestinfo.js';
import {
  ResourceStorage,
  keyPrefix,
  patchNamesResourceVersion,
  patchedObject,
  presentCustom,
  type NamespaceLookup,
  type WriteContext,
} from './resources.js';
import { applyScale, SCALE_KIND, SCALE_SUBRESOURCE, scaleOf } from './scale.js';
import { buildSelection } from './selection.js';
import { parseFieldValidation } from './fieldvalidation.js';
import type { ServedResource } from './openapi-paths.js';
import { acceptedPatchMediaTypes, patchTypeOf, SCALE_PATCH_MEDIA_TYPES } from './patchtypes.js';
import { writeOptions } from './writeoptions.js';
import { firstQuery, int64Param, listResourceVersion, ParamError, type ListResourceVersion } from './params.js';
import { toTable, wantsTable } from './tables.js';
import { decodeObject, WatchCache } from './watchcache.js';
import { FINALIZE_SUBRESOURCE } from './namespacelifecycle.js';
import { WatchLimits } from './watchlimits.js';
import { parseWatchRequest, WatchSession } from './watchsession.js';
import { ApiMetrics } from './metrics.js';
import { answerReview, isReview } from './auth/reviews.js';
import { customResourceDefinitions } from './crd/definition.js';
import { CrdRegistrar } from './crd/registrar.js';
import type { AuditLog } from './auth/audit.js';
import { impersonate, stripImpersonationHeaders } from './auth/impersonation.js';
import { nodesAt } from './emulation/nodes.js';
import { gitVersion, type KubeVersion } from './emulation/version.js';
import { deleteOptionsOf, type DeleteOptions } from './deletion.js';

export interface ApiServerOptions {
  store: Store;
  tls: { caPem: string; certPem: string; keyPem: string };
  kubeletClient: { certPem: string; keyPem: string };
  tokens?: Map<string, UserInfo>;
  authorizer?: Authorizer;
  admission?: AdmissionPlugin[];
  /** Events kept per resource for watches that resume from a resourceVersion. */
  watchCacheSize?: number;
  /** Bytes a watcher may have buffered before it is dropped with 410. */
  watchBufferLimit?: number;
  /** Bytes all watchers together may have buffered; beyond, the furthest behind are dropped with 410. */
  watchBufferBudget?: number;
  /** Concurrent watches one user may hold (429 beyond). */
  maxWatchesPerUser?: number;
  bookmarkIntervalMs?: number;
  /** Watches without timeoutSeconds end after a random time in [t, 2t) seconds. */
  minRequestTimeoutSeconds?: number;
  registry?: Registry;
  /** Told of every successful, non-dry-run write (the Node authorizer's graph follows node writes through it). */
  afterWrite?: (def: ResourceDef, obj: KubeObject, deleted: boolean) => void;
  audit?: AuditLog;
  /** `--emulated-version`: behave as this kube-apiserver release (Nodes, /version); absent, dkc's default. */
  emulatedVersion?: KubeVersion;
  /**
   * The server's one time source: objects' creation and deletion timestamps, managedFields' and conditions' times,
   * tables' ages, node tokens' validity, the audit's request-received stamp, request metrics. The system clock by
   * default.
   */
  clock?: Clock;
}

const JSON_TYPE = 'application/json';
export const DEFAULT_MAX_WATCHES_PER_USER = 1000;
export const DEFAULT_WATCH_BUFFER_BUDGET = 256 * 1024 * 1024;
const publicPaths = new Set([
  '/healthz',
  '/livez',
  '/readyz',
  '/version',
  '/healthz/ping',
  '/livez/ping',
  '/readyz/ping',
]);

/** A served resource as the OpenAPI documents describe it, with the patch types its PATCH handler accepts. */
function servedResource(d: ResourceDef): ServedResource {
  return {
    group: d.group,
    version: d.version,
    plural: d.plural,
    kind: d.kind,
    namespaced: d.namespaced,
    verbs: d.verbs,
    subresources: [
      ...(d.statusSubresource ? ['status'] : []),
      ...(d.scaleSubresource ? [SCALE_SUBRESOURCE] : []),
      ...(d.proxySubresource ? ['proxy'] : []),
      ...(d.finalizeSubresource ? [FINALIZE_SUBRESOURCE] : []),
    ],
    patchTypes: acceptedPatchMediaTypes(d.custom !== undefined),
    ...(d.custom ? { schema: d.custom.openapi } : {}),
  };
}

/** One resource request, as the verb handlers take it. */
interface ResourceCall {
  req: IncomingMessage;
  res: ServerResponse;
  q: URLSearchParams;
  info: RequestInfo;
  def: ResourceDef;
  storage: ResourceStorage;
  /** '' for cluster-scoped kinds. */
  namespace: string;
  accept: string | undefined;
  ctx: WriteContext;
}

/** dryRun (only "All"), fieldValidation and the warnings a write collects; a bad dryRun is a 400. */
function writeContext(q: URLSearchParams, user: UserInfo): WriteContext {
  const dryRun = q.getAll('dryRun');
  for (const d of dryRun)
    if (d !== 'All')
      throw errors.badRequest(`Invalid dry run value: ${JSON.stringify(d)}, supported values are: "All"`);
  return {
    user,
    dryRun: dryRun.length > 0,
    fieldValidation: parseFieldValidation(q.get('fieldValidation')),
    warnings: [],
  };
}

/** A list of `items` as the API answers it: kind `<Kind>List`, items without their own kind and apiVersion. */
function listOf(def: ResourceDef, items: KubeObject[], metadata: object): object {
  return {
    kind: `${def.kind}List`,
    apiVersion: apiVersionOf(def),
    metadata,
    items: items.map(({ apiVersion: _a, kind: _k, ...rest }) => rest),
  };
}

export class ApiServer {
  readonly registry: Registry;
  private readonly storages = new Map<ResourceDef, ResourceStorage>();
  private caches: WatchCache[] = [];
  private readonly authn: Authenticator;
  private readonly authorizer: Authorizer;
  private readonly proxy: NodeProxy;
  private readonly server: https.Server;
  private readonly sockets = new Set<Socket>();
  private readonly activeWatches = new Set<() => void>();
  private address = '';
  private openapi?: typeof import('./openapi.js');
  private readonly watchBufferLimit: number;
  readonly watchLimits: WatchLimits;
  private readonly bookmarkIntervalMs: number;
  private readonly minRequestTimeout: number;
  private readonly crds?: CrdRegistrar;
  /** /metrics: kube-apiserver's request and storage metrics; in-process controllers add theirs to its registry. */
  readonly metrics: ApiMetrics;
  private readonly clock: Clock;

  constructor(private readonly options: ApiServerOptions) {
    this.clock = options.clock ?? systemClock;
    this.registry = options.registry ?? defaultRegistry(nodesAt(options.emulatedVersion));
    this.authn = new Authenticator(options.tokens, nodeTokenKeys(options.tls.caPem), this.clock);
    this.authorizer = options.authorizer ?? alwaysAllow;
    this.proxy = new NodeProxy(options.kubeletClient);
    this.watchBufferLimit = options.watchBufferLimit ?? 16 * 1024 * 1024;
    this.watchLimits = new WatchLimits({
      maxWatchesPerUser: options.maxWatchesPerUser ?? DEFAULT_MAX_WATCHES_PER_USER,
      bufferBudget: options.watchBufferBudget ?? DEFAULT_WATCH_BUFFER_BUDGET,
    });
    this.bookmarkIntervalMs = options.bookmarkIntervalMs ?? 60_000;
    this.minRequestTimeout = options.minRequestTimeoutSeconds ?? 1800;
    for (const def of this.registry.all) this.mount(def);
    this.metrics = new ApiMetrics({ objectCounts: () => this.objectCounts(), clock: this.clock });
    if (this.registry.all.includes(customResourceDefinitions))
      this.crds = new CrdRegistrar(this, options.store, this.clock);
    this.server = https.createServer(
      {
        ca: options.tls.caPem,
        cert: options.tls.certPem,
        key: options.tls.keyPem,
        requestCert: true,
        rejectUnauthorized: false,
        // A connection keeps the identity it was authenticated with (the authenticator caches it per connection).
        secureOptions: cryptoConstants.SSL_OP_NO_RENEGOTIATION,
        maxHeaderSize: 64 * 1024,
      },
      (req, res) => {
        this.handle(req, res).catch((err: unknown) => {
          // handle() answers every failure itself; this is the last line, so one request can never end the process.
          klog.error(`${req.method} ${req.url}: ${(err as Error)?.stack ?? String(err)}`);
          res.destroy();
        });
      },
    );
    this.server.keepAliveTimeout = 65_000;
    this.server.headersTimeout = 70_000;
    this.server.requestTimeout = 0;
    this.server.on('connection', (s: Socket) => {
      s.setNoDelay(true);
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    this.server.on('tlsClientError', () => {
      /* a client that fails the handshake is its own problem */
    });
  }

  private mount(def: ResourceDef): ResourceStorage {
    const storage = this.detachedStorage(def);
    this.caches.push(storage.cache);
    this.storages.set(def, storage);
    return storage;
  }

  /** A resource's storage, not served: its cache is never started (and never read, but by list at resourceVersion 0). */
  detachedStorage(def: ResourceDef): ResourceStorage {
    const { store } = this.options;
    const namespaces = this.registry.lookup('', 'v1', 'namespaces');
    const transform = def.custom ? (o: KubeObject) => presentCustom(def, o) : undefined;
    const cache = new WatchCache(store, keyPrefix(def), this.options.watchCacheSize ?? 1000, transform);
    const namespaceOf: NamespaceLookup = async (ns) => {
      // Without namespaces served, any namespace is taken to exist (and to be Active).
      if (!namespaces) return { metadata: { name: ns } };
      const kv = await store.get(`${keyPrefix(namespaces)}${ns}`);
      return kv ? decodeObject(kv.value, kv.modRevision) : undefined;
    };
    return new ResourceStorage(def, store, cache, this.options.admission ?? [], namespaceOf, this.clock);
  }

  /** Serves a resource from now on (an established CustomResourceDefinition's version); resolves once its cache is filled. */
  async addResource(def: ResourceDef): Promise<void> {
    if (!this.registry.all.includes(def)) this.registry.add(def);
    const storage = this.storages.get(def) ?? this.mount(def);
    if (!storage.cache.isReady) await storage.cache.start();
  }

  /** Stops serving a resource: its watches end, its cache goes. Stored objects are the caller's to delete. */
  removeResource(def: ResourceDef): void {
    this.registry.remove(def);
    const storage = this.storages.get(def);
    if (!storage) return;
    this.storages.delete(def);
    storage.cache.stop();
    this.caches = this.caches.filter((c) => c !== storage.cache);
  }

  /** Installs (creates or updates) CustomResourceDefinitions as the server itself, and serves them at once. */
  async installCrds(crds: KubeObject[]): Promise<void> {
    const { installCrds } = await import('./crd/install.js');
    await installCrds(
      { crdStorage: () => this.storages.get(customResourceDefinitions), reconcileCrd: (o) => this.crds!.reconcile(o) },
      crds,
    );
  }

  /** The generic storage of a served resource (in-process callers: the CRD registrar). */
  storageOf(def: ResourceDef): ResourceStorage | undefined {
    return this.storages.get(def);
  }

  /** Creates the built-in objects (default namespaces) and fills the watch caches. */
  async start(): Promise<void> {
    const system: WriteContext = { user: { name: 'system:apiserver', groups: ['system:masters'] }, dryRun: false };
    for (const [def, storage] of this.storages) {
      for (const obj of def.builtin ?? []) {
        try {
          await storage.get(obj.metadata.namespace ?? '', obj.metadata.name ?? '');
        } catch (err) {
          if (!(err instanceof StatusError && err.code === 404)) throw err;
          // Replicas over one etcd may start together: the one that loses the race finds the object there.
          await storage.create(obj.metadata.namespace ?? '', structuredClone(obj), system).catch((e: unknown) => {
            if (!(e instanceof StatusError && e.code === 409)) throw e;
          });
        }
      }
    }
    await Promise.all(this.caches.map((c) => c.start()));
    await this.crds?.start();
  }

  listen(port: number, host: string): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        const addr = this.server.address() as AddressInfo;
        this.proxy.setListening(addr);
        const h = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
        this.address = `${h === '0.0.0.0' || h === '[::]' ? '127.0.0.1' : h}:${addr.port}`;
        resolve(addr);
      });
    });
  }

  async close(): Promise<void> {
    for (const end of this.activeWatches) end();
    this.crds?.stop();
    for (const c of this.caches) c.stop();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      for (const s of this.sockets) s.destroy();
    });
    this.proxy.close();
  }

  /** Statistics for benchmarks and health: watchers per resource. */
  watcherCount(): number {
    return this.caches.reduce((n, c) => n + c.watcherCount(), 0);
  }

  /** Objects per served resource, named as kube-apiserver's apiserver_storage_objects names them (plural.group). */
  private *objectCounts(): Iterable<readonly [string, number]> {
    for (const [def, storage] of this.storages)
      yield [def.group ? `${def.plural}.${def.group}` : def.plural, storage.cache.size];
  }

  private served(group: string, plural: string): [ResourceDef, ResourceStorage] | undefined {
    for (const entry of this.storages) if (entry[0].group === group && entry[0].plural === plural) return entry;
    return undefined;
  }

  /** Store reads and node agent GETs for admission plugins; an unserved resource reads as empty. */
  readonly reads: ServerReads = {
    get: async (group, plural, namespace, name) => {
      const storage = this.served(group, plural)?.[1];
      try {
        return await storage?.get(namespace, name);
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) return undefined;
        throw err;
      }
    },
    list: async (group, plural) => {
      const entry = this.served(group, plural);
      if (!entry) return [];
      return (await entry[1].list('', { selection: buildSelection(entry[0], undefined, undefined, '') })).items;
    },
    nodeGet: (node, path, timeoutMs) => this.proxy.get(nodeEndpoint(node), path, timeoutMs),
  };

  /** The watch cache of a served resource, for authorizers that read RBAC objects and nodes. */
  cacheOf(group: string, plural: string): WatchCache | undefined {
    for (const [def, storage] of this.storages) if (def.group === group && def.plural === plural) return storage.cache;
    return undefined;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = this.metrics.now();
    let info: RequestInfo | undefined;
    let user: UserInfo | undefined;
    let impersonator: UserInfo | undefined;
    if (this.options.audit) {
      const audit = this.options.audit;
      const received = this.clock.now();
      res.once('close', () => {
        audit.record({
          ...(impersonator && user ? { user: impersonator, impersonatedUser: user } : user ? { user } : {}),
          ...(info ? { info } : {}),
          method: req.method ?? 'GET',
          requestURI: req.url ?? '/',
          sourceIP: (req.socket.remoteAddress ?? '').replace(/^::ffff:/, ''),
          ...(typeof req.headers['user-agent'] === 'string' ? { userAgent: req.headers['user-agent'] } : {}),
          code: res.statusCode,
          received,
        });
      });
    }
    try {
      const url = new URL(req.url ?? '/', 'https://localhost');
      user = this.authn.authenticate(req);
      if (!user && !publicPaths.has(url.pathname)) throw errors.unauthorized();
      if (user) {
        const as = await impersonate(req, user, this.authorizer);
        if (as) {
          impersonator = as.impersonator;
          user = as.user;
          stripImpersonationHeaders(req);
        }
      }
      info = parseRequestInfo(req.method ?? 'GET', url.pathname, url.searchParams);
      // Served resources only, as kube-apiserver instruments its routes: a path of no resource adds no series.
      if (info.isResourceRequest && this.registry.lookup(info.apiGroup, info.apiVersion, info.resource)) {
        this.metrics.track(req, res, info, url.searchParams, started);
      }
      if (user) await this.authorize(user, info, url.searchParams);
      if (!info.isResourceRequest) return await this.handleNonResource(req, res, url);
      await this.handleResource(req, res, url, info, user!);
    } catch (err) {
      const st = toStatusError(err);
      if (st.code >= 500) klog.error(`${req.method} ${req.url}: ${st.message}`);
      this.writeStatus(res, st);
    }
  }

  private async authorize(user: UserInfo, info: RequestInfo, query: URLSearchParams): Promise<void> {
    const attrs: AuthorizationAttributes = {
      user,
      verb: info.verb,
      isResourceRequest: info.isResourceRequest,
      path: info.path,
      apiGroup: info.apiGroup,
      apiVersion: info.apiVersion,
      resource: info.resource,
      subresource: info.subresource,
      namespace: info.namespace,
      name: info.name,
    };
    const fs = query.get('fieldSelector');
    if (fs) {
      const m = /(?:^|,)metadata\.name==?([^,]*)/.exec(fs);
      if (m?.[1] !== undefined) attrs.fieldSelectorName = m[1];
    }
    const d = await this.authorizer.authorize(attrs);
    if (d.decision !== 'allow') throw forbiddenError(attrs, d.reason);
  }

  private writeStatus(res: ServerResponse, st: StatusError): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const body = JSON.stringify(st.status);
    const retryAfter = st.status.details?.retryAfterSeconds;
    res.writeHead(st.code, {
      'Content-Type': JSON_TYPE,
      'Content-Length': Buffer.byteLength(body),
      'Cache-Control': 'no-cache, private',
      ...(retryAfter ? { 'Retry-After': String(retryAfter) } : {}),
    });
    res.end(body);
  }

  /**
   * Answers with `value` as JSON, or YAML when asked. Rendering can fail (YAML of a deeply nested value overflows
   * the stack): the returned promise then rejects, and the caller's catch answers 500 — never an unhandled rejection.
   */
  private async writeJson(
    res: ServerResponse,
    code: number,
    value: unknown,
    accept?: string,
    warnings: string[] = [],
  ): Promise<void> {
    const headers: Record<string, string | number | string[]> = { 'Cache-Control': 'no-cache, private' };
    if (warnings.length) headers['Warning'] = warnings.map((w) => `299 - ${JSON.stringify(w)}`);
    let body: string;
    let type = JSON_TYPE;
    if (accept && /^\s*application\/yaml/i.test(accept)) {
      const { stringify } = await import('yaml');
      body = stringify(value);
      type = 'application/yaml';
    } else {
      body = JSON.stringify(value);
    }
    res.writeHead(code, { ...headers, 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  }

  private checkAcceptable(accept: string | undefined): void {
    if (!accept) return;
    const ok = accept.split(',').some((p) => {
      const t = p.split(';')[0]!.trim().toLowerCase();
      return (
        t === '*/*' ||
        t === 'application/*' ||
        t === 'application/json' ||
        t === 'application/yaml' ||
        t === 'application/vnd.kubernetes.protobuf' ||
        t === ''
      );
    });
    if (!ok) {
      throw errors.notAcceptable(
        'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      );
    }
  }

  private async handleNonResource(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const p = url.pathname.replace(/\/+$/, '') || '/';
    if (req.method !== 'GET' && req.method !== 'HEAD') throw errors.notFoundPath();
    switch (p) {
      case '/healthz':
      case '/livez':
      case '/readyz':
      case '/healthz/ping':
      case '/livez/ping':
      case '/readyz/ping': {
        const ready = this.caches.every((c) => c.isReady);
        res.writeHead(ready ? 200 : 500, {
          'Content-Type': 'text/plain; charset=utf-8',
          'X-Content-Type-Options': 'nosniff',
        });
        res.end(ready ? 'ok' : 'watch caches not ready');
        return;
      }
      case '/version':
        return this.writeJson(res, 200, versionInfo(this.options.emulatedVersion));
      case '/metrics': {
        const { contentType, body } = await this.metrics.render();
        res.writeHead(200, {
          'Content-Type': contentType,
          'Content-Length': Buffer.byteLength(body),
          'Cache-Control': 'no-cache, private',
        });
        res.end(body);
        return;
      }
      case '/api':
        return this.writeJson(res, 200, apiVersions(this.address));
      case '/apis':
        return this.writeJson(res, 200, apiGroupList(this.registry));
      case '/openapi/v2':
        return this.serveOpenapiV2(req, res);
      case '/openapi/v3': {
        const oa = await this.loadOpenapi();
        return this.writeJson(
          res,
          200,
          oa.openapiV3Root(
            this.registry.groupVersions().map((gv) => (gv.group ? `${gv.group}/${gv.version}` : gv.version)),
          ),
        );
      }
      default:
        break;
    }
    if (await this.serveDocumentOf(p, res)) return;
    throw errors.notFoundPath();
  }

  /** The OpenAPI v2 document as protobuf; a client holding the current one gets 304 Not Modified, as from kube-apiserver. */
  private async serveOpenapiV2(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const oa = await this.loadOpenapi();
    const { body, etag } = oa.openapiV2Protobuf(
      this.registry.all.map(servedResource),
      gitVersion(this.options.emulatedVersion),
    );
    const held = (req.headers['if-none-match'] ?? '').split(',').map((t) => t.trim());
    if (held.includes(etag) || held.includes('*')) {
      res.writeHead(304, { ETag: etag });
      res.end();
      return;
    }
    res.writeHead(200, { 'Content-Type': oa.OPENAPI_V2_CONTENT_TYPE, 'Content-Length': body.length, ETag: etag });
    res.end(body);
  }

  /** A group version's OpenAPI v3 document or discovery (/apis/G, /apis/G/V, /api/v1); false when `p` is none. */
  private async serveDocumentOf(p: string, res: ServerResponse): Promise<boolean> {
    if (p.startsWith('/openapi/v3/')) {
      const gv = this.groupVersionOfPath(p.slice('/openapi/v3/'.length));
      if (gv) {
        const oa = await this.loadOpenapi();
        const resources = this.registry.inGroupVersion(gv.group, gv.version).map(servedResource);
        await this.writeJson(
          res,
          200,
          oa.openapiV3Document(
            gv.group ? `${gv.group}/${gv.version}` : gv.version,
            resources,
            gitVersion(this.options.emulatedVersion),
          ),
        );
        return true;
      }
    }
    const parts = p.split('/').filter(Boolean);
    let doc: object | undefined;
    if (parts[0] === 'apis' && parts.length === 2) doc = apiGroup(this.registry, parts[1]!);
    if (parts[0] === 'apis' && parts.length === 3) doc = apiResourceList(this.registry, parts[1]!, parts[2]!);
    if (p === '/api/v1') doc = apiResourceList(this.registry, '', 'v1');
    if (doc === undefined) return false;
    await this.writeJson(res, 200, doc);
    return true;
  }

  private groupVersionOfPath(gvPath: string): { group: string; version: string } | undefined {
    const parts = gvPath.split('/');
    let gv: { group: string; version: string } | undefined;
    if (parts[0] === 'api' && parts.length === 2) gv = { group: '', version: parts[1]! };
    if (parts[0] === 'apis' && parts.length === 3) gv = { group: parts[1]!, version: parts[2]! };
    if (!gv || this.registry.inGroupVersion(gv.group, gv.version).length === 0) return undefined;
    return gv;
  }

  private async loadOpenapi(): Promise<typeof import('./openapi.js')> {
    this.openapi ??= await import('./openapi.js');
    return this.openapi;
  }

  private async handleResource(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    info: RequestInfo,
    user: UserInfo,
  ): Promise<void> {
    const def = this.registry.lookup(info.apiGroup, info.apiVersion, info.resource);
    if (!def) throw errors.notFoundPath();
    if (isReview(def)) {
      if (info.verb !== 'create' || info.name || info.subresource) throw errors.methodNotAllowed(info.verb, def.kind);
      const body = await decodeObjectBody(await readBody(req), req.headers['content-type']);
      return this.writeJson(
        res,
        201,
        await answerReview(def, info.namespace, body, user, this.authorizer, this.clock.now()),
        req.headers['accept'],
      );
    }
    const storage = this.storages.get(def)!;
    if (def.namespaced === false && info.namespace && info.resource !== 'namespaces') throw errors.notFoundPath();
    if (def.namespaced && !info.namespace && info.name) throw errors.notFoundPath();
    const action = def.actions?.[info.subresource];
    if (action && !info.rest.length && (info.subresource !== '' || !info.name)) {
      if (info.verb !== 'create') throw errors.methodNotAllowed(info.verb, action.kind);
      return this.runAction(req, res, url, info, def, action, user);
    }
    if (info.subresource) {
      if (info.subresource === 'proxy' && def.proxySubresource) return this.handleProxy(req, res, url, info, storage);
      const scale = info.subresource === SCALE_SUBRESOURCE && def.scaleSubresource === true && !info.rest.length;
      if (info.subresource === FINALIZE_SUBRESOURCE && def.finalizeSubresource && !info.rest.length) {
        // PUT is the only method served there, as kube-apiserver serves it.
        if (info.verb !== 'update') throw errors.methodNotAllowedOnPath();
      } else if (!scale && (info.subresource !== 'status' || !def.statusSubresource || info.rest.length)) {
        throw errors.notFoundPath();
      }
    }
    const q = url.searchParams;
    const ctx = writeContext(q, user);
    if (info.verb === 'watch') return this.handleWatch(req, res, q, info, def, storage, user);
    const call: ResourceCall = {
      req,
      res,
      q,
      info,
      def,
      storage,
      namespace: def.namespaced ? info.namespace : '',
      accept: req.headers['accept'],
      ctx,
    };
    if (info.subresource === SCALE_SUBRESOURCE) return this.handleScale(call);
    return this.verbHandler(info.verb, def)(call);
  }

  /** `/scale`: the object's Scale read, replaced or patched; a write reaches the object's spec.replicas. */
  private async handleScale(call: ResourceCall): Promise<void> {
    const { req, res, q, def, storage, namespace, info, accept, ctx } = call;
    if (info.verb === 'get') {
      this.checkAcceptable(accept);
      return this.writeJson(
        res,
        200,
        scaleOf(await storage.get(namespace, info.name, q.get('resourceVersion') ?? undefined)),
        accept,
      );
    }
    if (info.verb !== 'update' && info.verb !== 'patch') throw errors.methodNotAllowed(info.verb, SCALE_KIND);
    const raw = await readBody(req);
    let mutate: (current: KubeObject) => KubeObject;
    if (info.verb === 'update') {
      ctx.fieldManager = writeOptions('update', undefined, q, req.headers['user-agent']).fieldManager;
      const body = (await decodeObjectBody(raw, req.headers['content-type'])) as KubeObject;
      mutate = (current) => applyScale(current, body, info.name);
    } else {
      const kind = patchTypeOf(req.headers['content-type'], false);
      if (kind === 'apply') throw errors.unsupportedMediaTypeFor(kind, [...SCALE_PATCH_MEDIA_TYPES]);
      Object.assign(ctx, writeOptions('patch', kind, q, req.headers['user-agent']));
      const patch = decodePatchBody(raw);
      const pinned = patchNamesResourceVersion(kind, patch);
      mutate = (current) => {
        const scale = patchedObject(kind, scaleOf(current), patch, SCALE_KIND);
        if (!pinned) delete scale.metadata.resourceVersion;
        return applyScale(current, scale, info.name);
      };
    }
    const written = await storage.updateFrom(namespace, info.name, SCALE_SUBRESOURCE, ctx, mutate);
    return this.writeJson(res, 200, scaleOf(await this.afterWrite(def, written, ctx)), accept, ctx.warnings);
  }

  /** A POST to an action subresource (a Pod's binding or eviction): the action's work, then 201 Success. */
  private async runAction(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    info: RequestInfo,
    def: ResourceDef,
    action: SubresourceAction,
    user: UserInfo,
  ): Promise<void> {
    const ctx = writeContext(url.searchParams, user);
    const body = (await decodeObjectBody(await readBody(req), req.headers['content-type'])) as KubeObject;
    const namespace = def.namespaced ? info.namespace : '';
    await action.run({
      namespace,
      name: info.name,
      body,
      ctx,
      storageOf: (group, version, plural) => {
        const served = this.registry.lookup(group, version, plural);
        return served && this.storages.get(served);
      },
      admit: (name) =>
        runAdmission(this.options.admission ?? [], {
          user: ctx.user,
          operation: 'CREATE',
          resource: def,
          subresource: info.subresource,
          namespace,
          name,
          object: body,
          dryRun: ctx.dryRun,
          warnings: (ctx.warnings ??= []),
        }),
      now: formatTime(this.clock.now()),
    });
    const success = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
    return this.writeJson(res, 201, success, req.headers['accept'], ctx.warnings);
  }

  /** The handler of each verb but watch (which streams: handleWatch). */
  private verbHandler(verb: string, def: ResourceDef): (call: ResourceCall) => Promise<void> {
    switch (verb) {
      case 'get':
        return (c) => this.getOne(c);
      case 'list':
        return (c) => this.listAll(c);
      case 'create':
        return (c) => this.createOne(c);
      case 'update':
        return (c) => this.updateOne(c);
      case 'patch':
        return (c) => this.patchOne(c);
      case 'delete':
        return (c) => this.deleteOne(c);
      case 'deletecollection':
        return (c) => this.deleteAll(c);
      default:
        throw errors.methodNotAllowed(verb, def.kind);
    }
  }

  private async getOne({ res, q, def, storage, namespace, info, accept }: ResourceCall): Promise<void> {
    this.checkAcceptable(accept);
    const obj = await storage.get(namespace, info.name, q.get('resourceVersion') ?? undefined);
    if (wantsTable(accept))
      return this.writeJson(
        res,
        200,
        toTable(def, [obj], { resourceVersion: obj.metadata.resourceVersion ?? '' }, this.clock.now().getTime()),
      );
    return this.writeJson(res, 200, obj, accept);
  }

  private async listAll({ res, q, def, storage, namespace, accept }: ResourceCall): Promise<void> {
    this.checkAcceptable(accept);
    const selection = buildSelection(def, firstQuery(q, 'labelSelector'), firstQuery(q, 'fieldSelector'), namespace);
    const { limit, rv } = listParams(q);
    // A list at least as fresh as a revision this replica has not reached waits for it (504 after 3 s).
    if (rv.revision !== undefined) await storage.cache.waitForRevision(rv.revision);
    const result = await storage.list(namespace, {
      selection,
      limit,
      ...(q.get('continue') ? { continueToken: q.get('continue')! } : {}),
      ...(q.get('resourceVersion') !== null ? { resourceVersion: q.get('resourceVersion')! } : {}),
      ...(rv.match === 'Exact' && rv.revision !== undefined ? { exactRevision: rv.revision } : {}),
    });
    const listMeta: { resourceVersion: string; continue?: string } = { resourceVersion: result.resourceVersion };
    if (result.continue) listMeta.continue = result.continue;
    if (wantsTable(accept))
      return this.writeJson(res, 200, toTable(def, result.items, listMeta, this.clock.now().getTime()));
    return this.writeJson(res, 200, listOf(def, result.items, listMeta), accept);
  }

  private async createOne({ req, res, q, def, storage, namespace, info, accept, ctx }: ResourceCall): Promise<void> {
    if (info.name || info.subresource) throw errors.methodNotAllowed('create', def.kind);
    ctx.fieldManager = writeOptions('create', undefined, q, req.headers['user-agent']).fieldManager;
    const body = await decodeObjectBody(await readBody(req), req.headers['content-type']);
    const created = await this.afterWrite(def, await storage.create(namespace, body as KubeObject, ctx), ctx);
    return this.writeJson(res, 201, created, accept, ctx.warnings);
  }

  private async updateOne({ req, res, q, def, storage, namespace, info, accept, ctx }: ResourceCall): Promise<void> {
    ctx.fieldManager = writeOptions('update', undefined, q, req.headers['user-agent']).fieldManager;
    const body = await decodeObjectBody(await readBody(req), req.headers['content-type']);
    const updated = await this.afterWrite(
      def,
      await storage.update(namespace, info.name, body as KubeObject, info.subresource, ctx),
      ctx,
    );
    return this.writeJson(res, 200, updated, accept, ctx.warnings);
  }

  private async patchOne({ req, res, q, def, storage, namespace, info, accept, ctx }: ResourceCall): Promise<void> {
    const kind = patchTypeOf(req.headers['content-type'], def.custom !== undefined);
    const raw = await readBody(req);
    Object.assign(ctx, writeOptions('patch', kind, q, req.headers['user-agent']));
    // Server-side apply creates a missing object, which needs create as well as patch (kube-apiserver's rule).
    if (kind === 'apply') ctx.authorizeCreate = () => this.authorize(ctx.user, { ...info, verb: 'create' }, q);
    const patch =
      kind === 'apply'
        ? await decodeApplyBody(raw, ctx.fieldValidation ?? 'Warn', (ctx.warnings ??= []))
        : decodePatchBody(raw);
    const patched = await this.afterWrite(
      def,
      await storage.patch(namespace, info.name, kind, patch, info.subresource, ctx),
      ctx,
    );
    return this.writeJson(res, ctx.created ? 201 : 200, patched, accept, ctx.warnings);
  }

  private async deleteOne({ req, res, q, def, storage, namespace, info, accept, ctx }: ResourceCall): Promise<void> {
    const options = await this.deleteOptions(req, q, ctx);
    // An object with finalizers is only marked (ctx.deleted stays unset): it goes when its last one is removed.
    const deleted = await this.afterWrite(def, await storage.delete(namespace, info.name, options, ctx), ctx);
    // As kube-apiserver: 202 for an object kept for its dependents when the client asked with orphanDependents=false.
    const code = !ctx.deleted && !ctx.dryRun && options.orphanDependents === false ? 202 : 200;
    return this.writeJson(res, code, deleted, accept);
  }

  private async deleteAll({ req, res, q, def, storage, namespace, accept, ctx }: ResourceCall): Promise<void> {
    const options = await this.deleteOptions(req, q, ctx);
    const selection = buildSelection(def, firstQuery(q, 'labelSelector'), firstQuery(q, 'fieldSelector'), namespace);
    const deleted = await storage.deleteCollection(namespace, selection, options, ctx);
    return this.writeJson(res, 200, listOf(def, deleted, {}), accept);
  }

  /** The request's DeleteOptions (body, else query); a dryRun asked for anywhere (body or query) is honoured. */
  private async deleteOptions(req: IncomingMessage, q: URLSearchParams, ctx: WriteContext): Promise<DeleteOptions> {
    const raw = await readBody(req);
    const body = raw.length ? await decodeObjectBody(raw, req.headers['content-type'] || JSON_TYPE) : undefined;
    const options = deleteOptionsOf(body, q);
    if (options.dryRun === true) ctx.dryRun = true;
    return options;
  }

  /**
   * What follows a successful write: the Node authorizer's graph learns of it, and a CRD is established (and its
   * resources served) before the client hears back, so the next request can use them.
   */
  private async afterWrite(def: ResourceDef, obj: KubeObject, ctx: WriteContext): Promise<KubeObject> {
    if (ctx.dryRun) return obj;
    if (ctx.deleted) {
      await this.afterDelete(def, obj);
      return obj;
    }
    this.options.afterWrite?.(def, obj, false);
    if (def === customResourceDefinitions && this.crds) return this.crds.reconcile(obj);
    return obj;
  }

  /**
   * What follows an object's removal from storage, by a delete or by the update that removed its last finalizer. A
   * namespace's content is not touched here: the namespace controller removed it before the namespace could go.
   */
  private async afterDelete(def: ResourceDef, obj: KubeObject): Promise<void> {
    this.options.afterWrite?.(def, obj, true);
    if (def === customResourceDefinitions) await this.crds?.deleteObjects(obj);
  }

  private async handleProxy(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    info: RequestInfo,
    storage: ResourceStorage,
  ): Promise<void> {
    const node = await storage.get('', info.name);
    const target = nodeEndpoint(node, info.port);
    const marker = '/proxy';
    const idx = url.pathname.indexOf(marker, url.pathname.indexOf(info.name));
    const rest = info.legacyProxyPath ?? (idx >= 0 ? url.pathname.slice(idx + marker.length) : '');
    await this.proxy.forward(req, res, target, rest || '/', url.search);
  }

  private async handleWatch(
    req: IncomingMessage,
    res: ServerResponse,
    q: URLSearchParams,
    info: RequestInfo,
    def: ResourceDef,
    storage: ResourceStorage,
    user: UserInfo,
  ): Promise<void> {
    const request = parseWatchRequest(q, info, def, req.headers['accept'], this.minRequestTimeout);
    const server = {
      limits: this.watchLimits,
      active: this.activeWatches,
      bufferLimit: this.watchBufferLimit,
      bookmarkIntervalMs: this.bookmarkIntervalMs,
      clock: this.clock,
    };
    await new WatchSession(server, def, storage, request).run(req, res, user.name);
  }
}

/** limit, resourceVersion and resourceVersionMatch of a list; a value kube-apiserver refuses is a 400. */
function listParams(q: URLSearchParams): { limit: number; rv: ListResourceVersion } {
  try {
    const limit = int64Param(q, 'limit') ?? 0;
    return { limit: limit > 0 ? limit : 0, rv: listResourceVersion(q) };
  } catch (err) {
    if (err instanceof ParamError) throw errors.badRequest(err.message);
    throw err;
  }
}
