// A list-then-watch of one collection, in the page (web APIs only, so that node runs it in tests too), with the informer's rules (src/client/informer.ts): list, then
// watch from the list's resourceVersion; a watch the server ends is resumed from the last resourceVersion seen;
// 410 Gone, or a connection lost (the server restarted, the network dropped), starts again with a fresh list after a
// capped, jittered backoff. There is no polling loop: the page changes when an event arrives.

import { backoffDelay } from '../../util/backoff.js';
import { failure, HttpError, withQuery } from './http.js';
import { errorMessage } from '../../util/errors.js';

export interface Meta {
  metadata: { name?: string; namespace?: string; resourceVersion?: string };
}

interface List<T> {
  metadata?: { resourceVersion?: string };
  items?: T[];
}

interface WatchEvent<T> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T & { code?: number; message?: string };
}

export type Connection = { state: 'connecting' } | { state: 'live' } | { state: 'retrying'; why: string };

export interface WatchHandlers<T> {
  /** The whole collection, after each batch of events. */
  items(items: ReadonlyMap<string, T>): void;
  connection(c: Connection): void;
}

const BACKOFF = { initialMs: 250, maxMs: 5_000, jitter: 0.2 };
/** Events arriving together are shown together. */
const FLUSH_MS = 16;

const keyOf = (o: Meta): string => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

/** Starts the list-watch; the returned function stops it. */
export function listWatch<T extends Meta>(
  path: string,
  query: Record<string, string | undefined>,
  handlers: WatchHandlers<T>,
  /** The page's fetch; tests pass one bound to a server's URL. */
  fetch: typeof globalThis.fetch = globalThis.fetch,
): () => void {
  const abort = new AbortController();
  const items = new Map<string, T>();
  let flushTimer: ReturnType<typeof setTimeout> | undefined;
  const flush = (): void => {
    flushTimer = undefined;
    if (!abort.signal.aborted) handlers.items(items);
  };
  const changed = (): void => {
    flushTimer ??= setTimeout(flush, FLUSH_MS);
  };

  async function list(): Promise<string> {
    const res = await fetch(withQuery(path, query), { headers: { accept: 'application/json' }, signal: abort.signal });
    if (!res.ok) throw await failure(res);
    const body = (await res.json()) as List<T>;
    items.clear();
    for (const item of body.items ?? []) items.set(keyOf(item), item);
    changed();
    return body.metadata?.resourceVersion ?? '';
  }

  /** Watches until the server ends the stream (→ the last resourceVersion) or says 410 (→ undefined: relist). */
  async function watch(from: string): Promise<string | undefined> {
    const url = withQuery(path, { ...query, watch: '1', resourceVersion: from, allowWatchBookmarks: 'true' });
    const res = await fetch(url, { headers: { accept: 'application/json' }, signal: abort.signal });
    if (res.status === 410) return undefined;
    if (!res.ok || !res.body) throw await failure(res);
    handlers.connection({ state: 'live' });
    let rv = from;
    for await (const event of events<T>(res.body)) {
      if (event.type === 'ERROR') {
        if (event.object.code === 410) return undefined;
        throw new HttpError(event.object.code ?? 500, event.object.message ?? 'watch error');
      }
      rv = event.object.metadata.resourceVersion ?? rv;
      if (event.type === 'BOOKMARK') continue;
      if (event.type === 'DELETED') items.delete(keyOf(event.object));
      else items.set(keyOf(event.object), event.object);
      changed();
    }
    return rv;
  }

  async function run(): Promise<void> {
    let rv: string | undefined;
    let failures = 0;
    while (!abort.signal.aborted) {
      try {
        rv ??= await list();
        rv = await watch(rv);
        failures = 0;
      } catch (err) {
        if (abort.signal.aborted) return;
        // A watch cut short may have missed events the server no longer holds: list again once it is back.
        rv = undefined;
        failures++;
        handlers.connection({ state: 'retrying', why: errorMessage(err) });
        await delay(backoffDelay(BACKOFF, failures), abort.signal);
      }
    }
  }

  handlers.connection({ state: 'connecting' });
  void run();
  return () => {
    abort.abort();
    if (flushTimer !== undefined) clearTimeout(flushTimer);
  };
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });
}

/** The stream's JSON lines as watch events. */
async function* events<T>(body: ReadableStream<Uint8Array>): AsyncGenerator<WatchEvent<T>> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffered += decoder.decode(value, { stream: true });
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (line) yield JSON.parse(line) as WatchEvent<T>;
    }
  }
}
