// Which kubeconfig a command uses, by kubectl's loading rules (client-go's clientcmd.ClientConfigLoadingRules):
// --kubeconfig names one file, which must exist; otherwise KUBECONFIG lists files (':'-separated) that are merged —
// files that do not exist are skipped, the first file to define a cluster, user or context (or current-context)
// wins — and otherwise ~/.kube/config. Relative paths inside each file stay relative to that file.

import { readFile } from 'node:fs/promises';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { ClientError } from './errors.js';
import { loadKubeconfig, resolveKubeconfig, type ClientConfig } from './kubeconfig.js';
import { errorMessage } from '../util/errors.js';

export interface LoadingRules {
  /** --kubeconfig. */
  explicitPath?: string | undefined;
  /** The KUBECONFIG environment variable. */
  env?: string | undefined;
  /** The home directory, for ~/.kube/config. */
  home: string;
  /** --context. */
  context?: string | undefined;
}

type Dict = Record<string, unknown>;

const isDict = (v: unknown): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The files to read, in precedence order: the explicit one, else KUBECONFIG's list, else ~/.kube/config. */
export function kubeconfigPaths(rules: LoadingRules): string[] {
  if (rules.explicitPath) return [rules.explicitPath];
  const fromEnv = (rules.env ?? '').split(delimiter).filter((p) => p !== '');
  if (fromEnv.length > 0) return [...new Set(fromEnv)];
  return [join(rules.home, '.kube', 'config')];
}

const FILE_FIELDS: Readonly<Record<string, readonly string[]>> = {
  clusters: ['certificate-authority'],
  users: ['client-certificate', 'client-key', 'tokenFile'],
};

/** Makes the file references of one kubeconfig absolute, so that it can be merged with files from elsewhere. */
function absolutize(doc: Dict, dir: string): void {
  for (const [list, fields] of Object.entries(FILE_FIELDS)) {
    const item = list === 'clusters' ? 'cluster' : 'user';
    for (const entry of Array.isArray(doc[list]) ? (doc[list] as unknown[]) : []) {
      const body = isDict(entry) ? entry[item] : undefined;
      if (!isDict(body)) continue;
      for (const f of fields)
        if (typeof body[f] === 'string' && body[f] !== '' && !isAbsolute(body[f])) body[f] = resolve(dir, body[f]);
    }
  }
}

/** client-go's merge: the first file to name an entry keeps it; the first non-empty current-context wins. */
export function mergeKubeconfigs(docs: readonly Dict[]): Dict {
  const merged: Dict = { apiVersion: 'v1', kind: 'Config', clusters: [], users: [], contexts: [] };
  for (const doc of docs) {
    if (!merged['current-context'] && typeof doc['current-context'] === 'string' && doc['current-context'])
      merged['current-context'] = doc['current-context'];
    for (const list of ['clusters', 'users', 'contexts']) {
      const into = merged[list] as Dict[];
      for (const entry of Array.isArray(doc[list]) ? (doc[list] as unknown[]) : []) {
        if (isDict(entry) && !into.some((e) => e['name'] === entry['name'])) into.push(entry);
      }
    }
  }
  return merged;
}

async function readDoc(path: string): Promise<Dict | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ClientError('DKC_CLIENT_KUBECONFIG_READ', `cannot read kubeconfig ${path}: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  let doc: unknown;
  try {
    doc = (await import('yaml')).parse(text);
  } catch (err) {
    throw new ClientError('DKC_CLIENT_KUBECONFIG_INVALID', `invalid kubeconfig ${path}: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  if (doc === null || doc === undefined) return {};
  if (!isDict(doc)) throw new ClientError('DKC_CLIENT_KUBECONFIG_INVALID', `invalid kubeconfig ${path}: not a mapping`);
  absolutize(doc, dirname(resolve(path)));
  return doc;
}

/** The client configuration kubectl would use under the same flags and environment. */
export async function loadClientConfig(rules: LoadingRules): Promise<ClientConfig> {
  const options = rules.context ? { context: rules.context } : {};
  if (rules.explicitPath) return loadKubeconfig(rules.explicitPath, options);
  const paths = kubeconfigPaths(rules);
  const docs: Dict[] = [];
  const found: string[] = [];
  for (const p of paths) {
    const doc = await readDoc(p);
    if (doc === undefined) continue;
    docs.push(doc);
    found.push(p);
  }
  if (docs.length === 0) {
    const where = rules.env ? `KUBECONFIG=${rules.env}` : paths[0]!;
    throw new ClientError(
      'DKC_CLIENT_KUBECONFIG_READ',
      `no kubeconfig found (${where}): pass --kubeconfig or set KUBECONFIG`,
    );
  }
  return resolveKubeconfig(mergeKubeconfigs(docs), process.cwd(), found.join(delimiter), options);
}
