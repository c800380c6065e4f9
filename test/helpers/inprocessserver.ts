// An API server in the test's own process, over SQLite in a temporary directory, with the cluster admin's
// credentials: for tests that reach into the server (its store, its clock, its watcher count) while they talk HTTPS to
// it as a client would.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { request, type RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureClusterPKI, type ClusterPKI } from '../../src/pki/index.js';
import { ApiServer, type ApiServerOptions } from '../../src/server/apiserver.js';
import { openStore, type Store } from '../../src/storage/index.js';

export interface CallOptions {
  body?: unknown;
  accept?: string;
  /** The body's media type; JSON unless given (a patch names its type here). */
  contentType?: string;
  /** Resolve with a stream's first line and end it (a watch). */
  firstLine?: boolean;
}

export interface InProcessServer {
  readonly server: ApiServer;
  /** The store the server was given (after `wrapStore`). */
  readonly store: Store;
  readonly pki: ClusterPKI;
  readonly base: string;
  /** One request as the cluster admin. */
  call(method: string, path: string, options?: CallOptions): Promise<{ status: number; body: string }>;
  /** One request as the cluster admin that must succeed; its body parsed. */
  json<T>(method: string, path: string, options?: CallOptions): Promise<T>;
  /** Stops the server, closes the store and removes the directory. */
  close(): Promise<void>;
}

/** What kube-apiserver answers a create that makes no object of its own (a binding, an eviction). */
export const CREATED_SUCCESS = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };

export type ServerOptions = Omit<ApiServerOptions, 'store' | 'tls' | 'kubeletClient'>;

export async function startInProcessServer(
  name: string,
  options: ServerOptions = {},
  wrapStore: (store: Store) => Store = (s) => s,
): Promise<InProcessServer> {
  const dir = await mkdtemp(join(tmpdir(), `dkc-${name}-`));
  let store: Store | undefined;
  let server: ApiServer | undefined;
  const close = async (): Promise<void> => {
    await server?.close();
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const pki = await ensureClusterPKI(join(dir, 'pki'));
    store = wrapStore(await openStore({ kind: 'sqlite', path: join(dir, 'dkc.db') }));
    server = new ApiServer({
      ...options,
      store,
      tls: { caPem: pki.ca.certPem, certPem: pki.apiserver.certPem, keyPem: pki.apiserver.keyPem },
      kubeletClient: pki.apiserverKubeletClient,
    });
    await server.start();
    const addr = await server.listen(0, '127.0.0.1');
    const base = `https://127.0.0.1:${addr.port}`;
    const call = (method: string, path: string, o: CallOptions = {}) => callAsAdmin(base, pki, method, path, o);
    return {
      server,
      store,
      pki,
      base,
      call,
      async json<T>(method: string, path: string, o: CallOptions = {}): Promise<T> {
        const r = await call(method, path, o);
        assert.ok(r.status >= 200 && r.status < 300, `${method} ${path}: ${r.status} ${r.body}`);
        return JSON.parse(r.body) as T;
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** An HTTPS request to `url` as `cert` (the cluster admin unless given), trusting the cluster's CA. */
export function requestOptions(
  url: URL,
  method: string,
  pki: Pick<ClusterPKI, 'ca' | 'admin'>,
  cert: { certPem: string; keyPem: string } = pki.admin,
  headers: Record<string, string> = {},
): RequestOptions {
  return {
    host: url.hostname,
    port: url.port,
    path: url.pathname + url.search,
    method,
    ca: pki.ca.certPem,
    cert: cert.certPem,
    key: cert.keyPem,
    headers,
  };
}

function callAsAdmin(
  base: string,
  pki: ClusterPKI,
  method: string,
  path: string,
  options: CallOptions,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    // A length always: Node sends a DELETE's body neither chunked nor sized otherwise.
    const headers = {
      'content-type': options.contentType ?? 'application/json',
      ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
      ...(options.accept ? { accept: options.accept } : {}),
    };
    const req = request(
      { ...requestOptions(new URL(path, base), method, pki, pki.admin, headers), timeout: 20_000 },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => {
          text += d.toString();
          const nl = text.indexOf('\n');
          if (options.firstLine && nl >= 0) {
            resolve({ status: res.statusCode ?? 0, body: text.slice(0, nl) });
            req.destroy();
          }
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', () => undefined);
      },
    );
    req.on('error', (err) => (options.firstLine && req.destroyed ? undefined : reject(err)));
    req.end(body);
  });
}
