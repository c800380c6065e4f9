// The Pods of a `dkc up` cluster as its e2e tests see them: a bare Pod bound to a node, whether the API still has a
// Pod, what a node's runtime runs (its runtime.json), and the Pods' watch events recorded while a test acts.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isApiError, type RestClient, type WatchEvent } from '../../src/client/index.js';
import { RUNTIME_FILE } from '../../src/agent/pods/runtime.js';
import type { RuntimeState } from '../../src/agent/pods/types.js';
import type { Pod } from '../../src/api/workloads.js';

export const DEFAULT_PODS = '/api/v1/namespaces/default/pods';

export interface BarePodOptions {
  /** The node it is bound to; default node-1. */
  nodeName?: string;
  labels?: Record<string, string>;
  /** With an emptyDir volume (local storage, for drain's filter). */
  emptyDir?: boolean;
}

/** A Pod of the default namespace with no controller, bound to a node, one pause container. */
export function barePod(name: string, options: BarePodOptions = {}): Pod {
  const { nodeName = 'node-1', labels, emptyDir = false } = options;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', ...(labels ? { labels } : {}) },
    spec: {
      nodeName,
      containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.9' }],
      ...(emptyDir ? { volumes: [{ name: 'scratch', emptyDir: {} }] } : {}),
    },
  };
}

/** true once the API answers 404 for the Pod at `path`, undefined while it has it (for `waitFor`). */
export async function podGone(client: RestClient, path: string): Promise<true | undefined> {
  try {
    await client.get<Pod>(path);
    return undefined;
  } catch (err) {
    if (isApiError(err) && err.code === 404) return true;
    throw err;
  }
}

/** What the node whose directory is `nodeDir` runs, as its runtime file says. */
export async function nodeRuntime(nodeDir: string): Promise<RuntimeState> {
  return JSON.parse(await readFile(join(nodeDir, RUNTIME_FILE), 'utf8')) as RuntimeState;
}

export interface PodEvents {
  events: WatchEvent<Pod>[];
  stop(): void;
}

/** Records every watch event of the Pods under `path` from now on, until stopped. */
export async function recordPodEvents(client: RestClient, path: string): Promise<PodEvents> {
  const now = await client.list<{ metadata: { resourceVersion: string } }>(path);
  const abort = new AbortController();
  const stream = await client.watch<Pod>(path, {
    resourceVersion: now.metadata.resourceVersion,
    signal: abort.signal,
  });
  const events: WatchEvent<Pod>[] = [];
  void (async () => {
    for await (const ev of stream) events.push(ev);
  })().catch(() => undefined);
  return { events, stop: () => (stream.close(), abort.abort()) };
}
