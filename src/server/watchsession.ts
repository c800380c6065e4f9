// One watch, from its request to its end: the request read into what to send (`parseWatchRequest`, before any
// byte is written, so a bad one is a 400), and a WatchSession that owns the stream's lifecycle — its admission by the
// watch budget, the cache registration, the timeout and bookmark timers — and undoes all of it in one place, end(),
// however the watch ends: the client leaves, the timeout, a slow client dropped, the server stopping.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors, toStatusError, type StatusError } from '../api/errors.js';
import type { KubeObject } from '../api/types.js';
import type { Clock } from '../util/clock.js';
import { klog } from '../util/klog.js';
import type { RequestInfo } from './requestinfo.js';
import type { ResourceStorage } from './resources.js';
import { apiVersionOf, type ResourceDef } from './resourcedef.js';
import { buildSelection, type Selection } from './selection.js';
import { boolParam, firstQuery } from './params.js';
import { tableRow, wantsTable } from './tables.js';
import type { EventType } from './watchcache.js';
import { encodeWatchEvent, type WatchEntry, type WatchLimits } from './watchlimits.js';

const JSON_TYPE = 'application/json';

export interface WatchRequest {
  selection: Selection;
  /** The revision to start after; undefined for "now" (no resourceVersion, or 0). */
  from: number | undefined;
  table: boolean;
  bookmarks: boolean;
  timeoutSeconds: number;
}

/** What a watch request asks for; a resourceVersion that is not a revision is a 400. */
export function parseWatchRequest(
  q: URLSearchParams,
  info: RequestInfo,
  def: ResourceDef,
  accept: string | undefined,
  minRequestTimeoutSeconds: number,
): WatchRequest {
  const namespace = def.namespaced ? info.namespace : '';
  let fieldSelector = firstQuery(q, 'fieldSelector');
  if (info.name)
    fieldSelector = fieldSelector ? `${fieldSelector},metadata.name=${info.name}` : `metadata.name=${info.name}`;
  const selection = buildSelection(def, firstQuery(q, 'labelSelector'), fieldSelector, namespace);
  const rvParam = q.get('resourceVersion');
  let from: number | undefined;
  if (rvParam && rvParam !== '0') {
    from = Number(rvParam);
    if (!/^\d+$/.test(rvParam) || !Number.isSafeInteger(from)) {
      throw errors.badRequest(
        `resourceVersion: Invalid value: ${JSON.stringify(rvParam)}: must be a non-negative integer`,
      );
    }
  }
  const timeoutParam = q.get('timeoutSeconds');
  const timeoutSeconds =
    timeoutParam !== null && /^\d+$/.test(timeoutParam) && Number(timeoutParam) > 0
      ? Number(timeoutParam)
      : minRequestTimeoutSeconds * (1 + Math.random());
  return { selection, from, table: wantsTable(accept), bookmarks: boolParam(q, 'allowWatchBookmarks'), timeoutSeconds };
}

/** What a session needs of its server. */
export interface WatchServer {
  limits: WatchLimits;
  /** The end() of every running watch, for the server's stop. */
  active: Set<() => void>;
  /** Bytes a client may fall behind before it is dropped. */
  bufferLimit: number;
  bookmarkIntervalMs: number;
  /** Wall time, for the table rows' ages. */
  clock: Clock;
}

type Sent = { type: EventType; object: KubeObject; rv: number };

export class WatchSession {
  private ended = false;
  private firstRow = true;
  private lastRv: number;
  private slot: WatchEntry | undefined;
  private handle: { cancel(): void } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private bookmarkTimer: NodeJS.Timeout | undefined;
  private res: ServerResponse | undefined;
  private readonly endFromServer = (): void => this.end();

  constructor(
    private readonly server: WatchServer,
    private readonly def: ResourceDef,
    private readonly storage: ResourceStorage,
    private readonly w: WatchRequest,
  ) {
    this.lastRv = w.from ?? 0;
  }

  /** Streams until the watch ends; returns once it is registered (or already ended). */
  async run(req: IncomingMessage, res: ServerResponse, user: string): Promise<void> {
    // A client that saw a newer revision on another replica waits for this cache to catch up (504 after 3 s).
    if (this.w.from !== undefined) await this.storage.cache.waitForRevision(this.w.from);
    this.slot = this.server.limits.admit(user, () => {
      klog.warning(
        `dropping a watcher of ${this.def.plural} that holds ${this.slot?.buffered ?? 0} bytes: watch buffers are over their budget`,
      );
      this.end(
        res,
        errors.expired("watch of a slow client dropped: the server's watch buffers are full; the client must relist"),
      );
    });
    res.writeHead(200, {
      'Content-Type': JSON_TYPE,
      'Cache-Control': 'no-cache, private',
      'Transfer-Encoding': 'chunked',
    });
    res.flushHeaders();
    this.res = res;
    this.startTimers();
    req.on('close', () => this.end());
    res.on('error', () => this.end());
    this.register();
  }

  private startTimers(): void {
    // A bookmark just before the timeout lets the client resume from the newest revision, not its last event's.
    this.timer = setTimeout(() => {
      if (this.w.bookmarks && !this.ended) this.bookmark();
      this.end();
    }, this.w.timeoutSeconds * 1000);
    this.server.active.add(this.endFromServer);
  }

  private register(): void {
    const sink = {
      ...(this.w.selection.name !== undefined ? { name: this.w.selection.name } : {}),
      matches: (o: KubeObject) => this.w.selection.matches(o),
      deliver: (events: Sent[]) => this.deliver(events),
      terminate: (err?: StatusError) => this.end(undefined, err),
    };
    try {
      this.handle = this.storage.cache.watch(this.w.from, sink);
    } catch (err) {
      this.end(undefined, toStatusError(err));
      return;
    }
    // The initial events may already have ended the watch (a client too slow for its own initial state), before
    // `handle` existed for end() to cancel: the cache must not keep the watcher.
    if (this.ended) {
      this.handle.cancel();
      return;
    }
    if (this.w.bookmarks) {
      this.bookmarkTimer = setInterval(() => {
        if (!this.ended) this.bookmark();
      }, this.server.bookmarkIntervalMs);
    }
  }

  private deliver(events: Sent[]): void {
    const res = this.res;
    if (this.ended || !res) return;
    let chunk = '';
    for (const e of events) {
      chunk += this.encodeObject(e.type, e.object);
      if (e.rv > this.lastRv) this.lastRv = e.rv;
    }
    res.write(chunk);
    if (res.writableLength > this.server.bufferLimit) {
      klog.warning(`dropping a watcher of ${this.def.plural} that fell ${res.writableLength} bytes behind`);
      this.end(undefined, errors.expired('watch of a slow client dropped; the client must relist'));
      return;
    }
    if (this.slot) this.server.limits.update(this.slot, res.writableLength);
  }

  private encodeObject(type: EventType, obj: KubeObject): string {
    const typed = obj.kind ? obj : { apiVersion: apiVersionOf(this.def), kind: this.def.kind, ...obj };
    if (!this.w.table) return encodeWatchEvent(type, obj, typed);
    const t = {
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: typed.metadata.resourceVersion },
      columnDefinitions: this.firstRow ? this.def.columns : [],
      rows: [tableRow(this.def, typed, this.server.clock.now().getTime())],
    };
    this.firstRow = false;
    return encodeEvent(type, t);
  }

  /** Everything up to this revision has been sent: the cache's newest, or what the client already has. */
  private bookmark(): void {
    const rv = Math.max(this.storage.cache.currentRevision, this.lastRv);
    const obj = { kind: this.def.kind, apiVersion: apiVersionOf(this.def), metadata: { resourceVersion: String(rv) } };
    this.res?.write(encodeEvent('BOOKMARK', obj));
  }

  /** Ends the watch once, whatever ended it, undoing everything run() set up; an error is sent as an ERROR event. */
  private end(res: ServerResponse | undefined = this.res, err?: StatusError): void {
    if (this.ended) return;
    this.ended = true;
    if (this.slot) this.server.limits.release(this.slot);
    this.handle?.cancel();
    clearTimeout(this.timer);
    if (this.bookmarkTimer) clearInterval(this.bookmarkTimer);
    this.server.active.delete(this.endFromServer);
    if (!res) return;
    if (err && !res.destroyed) res.write(encodeEvent('ERROR', err.status));
    res.end();
  }
}

const encodeEvent = (type: EventType | 'BOOKMARK' | 'ERROR', object: unknown): string =>
  JSON.stringify({ type, object }) + '\n';
