// Watch streams: the API server answers `?watch=true` with one JSON event per line, for as long as it
// keeps the response open. Lines arrive in arbitrary chunks (one event split over several chunks, or
// several events in one chunk, or a multi-byte character cut in half), so decoding buffers text until a
// newline and only then parses. ERROR events are handed to the consumer like any other event: whether
// a 410 means "relist" is the informer's decision, not the transport's.

import type { IncomingMessage } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import type { Status } from '../api/errors.js';
import { ClientError } from './errors.js';
import { errorMessage } from '../util/errors.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export type WatchEvent<T> =
  { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; object: T } | { type: 'ERROR'; object: Status };

const TYPES: ReadonlySet<string> = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

function decodeLine<T>(line: string): WatchEvent<T> {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (err) {
    throw new ClientError('DKC_CLIENT_WATCH_DECODE', `watch stream: not JSON: ${line.slice(0, 200)}`, { cause: err });
  }
  const ev = v as { type?: unknown; object?: unknown };
  if (typeof v !== 'object' || v === null || typeof ev.type !== 'string' || !TYPES.has(ev.type)) {
    throw new ClientError('DKC_CLIENT_WATCH_DECODE', `watch stream: not a watch event: ${line.slice(0, 200)}`);
  }
  if (typeof ev.object !== 'object' || ev.object === null) {
    throw new ClientError('DKC_CLIENT_WATCH_DECODE', `watch stream: ${ev.type} event without an object`);
  }
  return v as WatchEvent<T>;
}

/** Incremental decoder of a newline-delimited watch stream. */
export class WatchDecoder<T = unknown> {
  private pending = '';
  private readonly utf8 = new StringDecoder('utf8');

  /** Feeds one chunk; returns the events completed by it, in order. */
  push(chunk: Uint8Array | string): WatchEvent<T>[] {
    const text = this.pending + (typeof chunk === 'string' ? chunk : this.utf8.write(chunk));
    const events: WatchEvent<T>[] = [];
    let start = 0;
    for (let nl = text.indexOf('\n', start); nl !== -1; nl = text.indexOf('\n', start)) {
      const line = text.slice(start, nl).trim();
      start = nl + 1;
      if (line) events.push(decodeLine<T>(line));
    }
    this.pending = text.slice(start);
    return events;
  }

  /** Flushes at end of stream: a last event without a trailing newline still counts. */
  end(): WatchEvent<T>[] {
    const line = (this.pending + this.utf8.end()).trim();
    this.pending = '';
    return line ? [decodeLine<T>(line)] : [];
  }
}

/**
 * An open watch. Iterate it once with `for await`; the iteration ends when the server closes the
 * stream or when `close()` is called (or the request's signal fires), and throws ClientError
 * WATCH_STREAM if the connection breaks off.
 */
export class WatchStream<T> implements AsyncIterable<WatchEvent<T>> {
  private closed = false;
  private iterated = false;
  private readonly res: IncomingMessage;
  private readonly signal: AbortSignal | undefined;

  /** @internal Created by RestClient.watch once the server has answered 200. */
  constructor(res: IncomingMessage, signal?: AbortSignal) {
    this.res = res;
    this.signal = signal;
  }

  /** Ends the watch; an iteration in progress finishes normally. */
  close(): void {
    this.closed = true;
    this.res.destroy();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<WatchEvent<T>, void, undefined> {
    if (this.iterated) throw new ClientError('DKC_CLIENT_INVALID_ARGUMENT', 'a watch stream can be iterated only once');
    this.iterated = true;
    const decoder = new WatchDecoder<T>();
    try {
      try {
        for await (const chunk of this.res) {
          for (const ev of decoder.push(chunk as Buffer)) yield ev;
        }
      } catch (err) {
        if (this.closed || this.signal?.aborted) return;
        throw new ClientError('DKC_CLIENT_WATCH_STREAM', `watch stream broke off: ${errorMessage(err)}`, {
          cause: err,
        });
      }
      if (this.closed || this.signal?.aborted) return;
      for (const ev of decoder.end()) yield ev;
    } finally {
      this.closed = true;
      this.res.destroy();
    }
  }
}
