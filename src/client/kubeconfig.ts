// Reading a kubeconfig into what RestClient needs: the server URL and the TLS and bearer credentials of
// one context (the current one unless told otherwise). Supports what kubeconfigs written by dkc,
// kubeadm and kind contain: embedded *-data fields, and file paths resolved against the kubeconfig's own
// directory, as client-go resolves them. Plugins (exec, auth-provider) are refused rather than ignored,
// so a user never gets an anonymous client by surprise.

import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ClientError } from './errors.js';
import { errorMessage } from '../util/errors.js';

export interface ClientConfig {
  /** Base URL of the API server (http: or https:), possibly with a path prefix. */
  server: string;
  /** PEM of the CA(s) that verify the server; absent → the system's roots. */
  ca?: string | undefined;
  /** PEM client certificate (chain) and its key, for TLS client authentication. */
  cert?: string;
  key?: string;
  /** Bearer token. */
  token?: string;
  insecureSkipTLSVerify?: boolean;
  /** Name to verify the server's certificate against (and send as SNI) instead of the URL's host. */
  tlsServerName?: string;
  /** The context's default namespace, when it names one. */
  namespace?: string;
  /** The context these settings came from. */
  contextName?: string;
}

export interface LoadKubeconfigOptions {
  /** Use this context instead of current-context. */
  context?: string;
}

type Dict = Record<string, unknown>;

function invalid(path: string, message: string): ClientError {
  return new ClientError('DKC_CLIENT_KUBECONFIG_INVALID', `invalid kubeconfig ${path}: ${message}`);
}

function isDict(v: unknown): v is Dict {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function named(doc: Dict, listKey: string, itemKey: string, name: string, path: string): Dict {
  const list = doc[listKey];
  if (list !== undefined && list !== null && !Array.isArray(list)) throw invalid(path, `${listKey} must be a list`);
  const entry = (list ?? []).find((e: unknown) => isDict(e) && e['name'] === name) as Dict | undefined;
  if (!entry) throw invalid(path, `${itemKey} ${JSON.stringify(name)} not found`);
  const body = entry[itemKey] ?? {};
  if (!isDict(body)) throw invalid(path, `${listKey}[${JSON.stringify(name)}].${itemKey} must be a mapping`);
  return body;
}

function str(d: Dict, key: string, where: string, path: string): string | undefined {
  const v = d[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw invalid(path, `${where}.${key} must be a string`);
  return v;
}

async function readReferenced(file: string, baseDir: string, what: string): Promise<string> {
  const full = resolve(baseDir, file);
  try {
    return await readFile(full, 'utf8');
  } catch (err) {
    throw new ClientError('DKC_CLIENT_KUBECONFIG_READ', `cannot read ${what} ${full}: ${errorMessage(err)}`, {
      cause: err,
    });
  }
}

function decodeData(value: string, where: string, path: string): string {
  const text = Buffer.from(value, 'base64').toString('utf8');
  if (!text) throw invalid(path, `${where} is not valid base64`);
  return text;
}

/** `*-data` wins over the file path, as in client-go. */
async function dataOrFile(
  d: Dict,
  key: string,
  where: string,
  path: string,
  baseDir: string,
): Promise<string | undefined> {
  const data = str(d, `${key}-data`, where, path);
  if (data !== undefined) return decodeData(data, `${where}.${key}-data`, path);
  const file = str(d, key, where, path);
  return file === undefined ? undefined : readReferenced(file, baseDir, key);
}

/**
 * Resolves a parsed kubeconfig document. `baseDir` is where relative file references point (the
 * kubeconfig's directory); `path` only names the file in error messages.
 */
export async function resolveKubeconfig(
  doc: unknown,
  baseDir: string,
  path: string,
  options: LoadKubeconfigOptions = {},
): Promise<ClientConfig> {
  if (!isDict(doc)) throw invalid(path, 'not a mapping');
  const contextName = options.context ?? str(doc, 'current-context', 'kubeconfig', path);
  if (!contextName) throw invalid(path, 'no current-context is set and no context was given');
  const context = named(doc, 'contexts', 'context', contextName, path);
  const clusterName = str(context, 'cluster', `context ${contextName}`, path);
  if (!clusterName) throw invalid(path, `context ${JSON.stringify(contextName)} names no cluster`);
  const cluster = named(doc, 'clusters', 'cluster', clusterName, path);
  const userName = str(context, 'user', `context ${contextName}`, path);
  const user = userName ? named(doc, 'users', 'user', userName, path) : {};
  const cw = `cluster ${clusterName}`;
  const uw = `user ${userName ?? ''}`;

  const server = str(cluster, 'server', cw, path);
  if (!server) throw invalid(path, `${cw} has no server`);
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw invalid(path, `${cw} server ${JSON.stringify(server)} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid(path, `${cw} server must be an http(s) URL`);

  for (const plugin of ['exec', 'auth-provider', 'username', 'password']) {
    if (user[plugin] !== undefined && user[plugin] !== null) {
      throw new ClientError(
        'DKC_CLIENT_KUBECONFIG_UNSUPPORTED',
        `kubeconfig ${path}: ${uw} uses ${plugin}, which dkc does not support`,
      );
    }
  }

  const cfg: ClientConfig = { server, contextName };
  const ca = await dataOrFile(cluster, 'certificate-authority', cw, path, baseDir);
  if (ca !== undefined) cfg.ca = ca;
  if (cluster['insecure-skip-tls-verify'] === true) cfg.insecureSkipTLSVerify = true;
  const sni = str(cluster, 'tls-server-name', cw, path);
  if (sni !== undefined) cfg.tlsServerName = sni;
  const cert = await dataOrFile(user, 'client-certificate', uw, path, baseDir);
  const key = await dataOrFile(user, 'client-key', uw, path, baseDir);
  if ((cert === undefined) !== (key === undefined))
    throw invalid(path, `${uw} has a client certificate without a key, or a key without a certificate`);
  if (cert !== undefined && key !== undefined) {
    cfg.cert = cert;
    cfg.key = key;
  }
  let token = str(user, 'token', uw, path);
  if (token === undefined) {
    const tokenFile = str(user, 'tokenFile', uw, path);
    if (tokenFile !== undefined) token = (await readReferenced(tokenFile, baseDir, 'tokenFile')).trim();
  }
  if (token !== undefined) cfg.token = token;
  const ns = str(context, 'namespace', `context ${contextName}`, path);
  if (ns !== undefined) cfg.namespace = ns;
  return cfg;
}

/** Reads the kubeconfig at `path` and resolves its current context (or `options.context`). */
export async function loadKubeconfig(path: string, options: LoadKubeconfigOptions = {}): Promise<ClientConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new ClientError('DKC_CLIENT_KUBECONFIG_READ', `cannot read kubeconfig ${path}: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  let doc: unknown;
  try {
    // JSON is valid YAML; parsing it natively spares the agent loading the YAML parser at start-up.
    if (text.trimStart().startsWith('{')) doc = JSON.parse(text);
    else doc = (await import('yaml')).parse(text);
  } catch (err) {
    throw new ClientError('DKC_CLIENT_KUBECONFIG_INVALID', `invalid kubeconfig ${path}: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  return resolveKubeconfig(doc, dirname(resolve(path)), path, options);
}
