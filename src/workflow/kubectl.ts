// What the operator's commands (`dkc config`, `dkc rollout`) share when they talk to the API the way kubectl does:
// the one line a failure prints, and reading a ConfigMap by name with the words kubectl users know.

import type { ConfigMap } from '../api/types.js';
import { isApiError, type RestClient } from '../client/index.js';

const q = (s: string): string => JSON.stringify(s);

export const configMapMessages = {
  notFound: (ns: string, name: string) => `configmap ${q(name)} not found in namespace ${q(ns)}`,
  noKey: (ns: string, name: string, key: string, keys: readonly string[]) =>
    `configmap ${ns}/${name} has no key ${q(key)}` +
    (keys.length ? ` (it has: ${keys.join(', ')})` : ' (it has no data)'),
} as const;

/** The ConfigMap, or undefined when the server answers 404; other failures are thrown as they came. */
export async function getConfigMap(
  client: RestClient,
  namespace: string,
  name: string,
): Promise<ConfigMap | undefined> {
  try {
    return await client.get<ConfigMap>(
      `/api/v1/namespaces/${encodeURIComponent(namespace)}/configmaps/${encodeURIComponent(name)}`,
    );
  } catch (err) {
    if (isApiError(err, 404)) return undefined;
    throw err;
  }
}

/** Every key of a ConfigMap, data and binaryData alike, sorted. */
export function configMapKeys(cm: Pick<ConfigMap, 'data' | 'binaryData'>): string[] {
  return [...Object.keys(cm.data ?? {}), ...Object.keys(cm.binaryData ?? {})].sort();
}

/**
 * The one line a failure prints, as kubectl words it: `Error from server (Reason): …` for the server's refusals,
 * `error: …` otherwise. `flatten` keeps a multi-line message on one line.
 */
export function errorLine(err: unknown, flatten: (message: string) => string): string {
  const e = err as { name?: unknown; reason?: unknown; message?: unknown };
  const message = flatten(typeof e?.message === 'string' ? e.message : String(err));
  if (e?.name === 'ApiError' && typeof e.reason === 'string') return `Error from server (${e.reason}): ${message}`;
  return `error: ${message}`;
}
