// The event recorder of the node agent (events about its Node) and the controllers: core/v1 Events written the way
// the kubelet's recorder writes them (name `<object>.<hex unix nanos>`, source kubelet/<host> unless another
// component is named, count 1). Recording never blocks or fails the caller: beyond eventRecordQPS/eventBurst an
// event is dropped, as are events that find the server down. An event that must not be lost — the one written just
// before the agent exits to restart — goes through createEventDirectly instead, outside the rate limit.

import type { Event, ObjectReference } from '../api/types.js';
import { formatTime, systemClock, type Clock } from '../util/clock.js';
import { klog } from '../util/klog.js';
import { TokenBucket } from './ratelimit.js';
import type { RestClient } from './rest.js';
import { errorMessage } from '../util/errors.js';

export type EventType = 'Normal' | 'Warning';

/** What posting an event needs of the API client. */
export type EventSink = Pick<RestClient, 'create'>;

/** The reference the kubelet uses for its own Node: uid is the node name, namespace empty. */
export function nodeReference(nodeName: string): ObjectReference {
  return { kind: 'Node', name: nodeName, uid: nodeName, namespace: '' };
}

export interface EventSpec {
  involvedObject: ObjectReference;
  type: EventType;
  reason: string;
  message: string;
  /** source.host (the node name). */
  host: string;
  /** source.component; `kubelet` unless given. */
  component?: string;
  now: Date;
  /** Unix nanoseconds that name the event; derived from `now` when omitted. */
  unixNanos?: bigint;
}

/** The namespace an event about `ref` lives in: the object's own, or `default` for cluster-scoped ones. */
export function eventNamespace(ref: ObjectReference): string {
  return ref.namespace ? ref.namespace : 'default';
}

/** The Event object for `spec`. Pure. */
export function buildEvent(spec: EventSpec): Event {
  const nanos = spec.unixNanos ?? BigInt(spec.now.getTime()) * 1_000_000n;
  const ts = formatTime(spec.now);
  const namespace = eventNamespace(spec.involvedObject);
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${spec.involvedObject.name ?? ''}.${nanos.toString(16)}`, namespace },
    involvedObject: { ...spec.involvedObject },
    reason: spec.reason,
    message: spec.message,
    source: { component: spec.component ?? 'kubelet', host: spec.host },
    firstTimestamp: ts,
    lastTimestamp: ts,
    count: 1,
    type: spec.type,
  };
}

function eventsPath(namespace: string): string {
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`;
}

/** Strictly increasing nanosecond names, even for several events within one millisecond. */
class NanoNamer {
  private last = 0n;
  next(now: Date): bigint {
    let n = BigInt(now.getTime()) * 1_000_000n;
    if (n <= this.last) n = this.last + 1n;
    this.last = n;
    return n;
  }
}

const directNamer = new NanoNamer();

/**
 * Creates the event at once, bypassing any recorder and its rate limit, and resolves with what the server
 * stored. Rejects with the client's error; callers about to exit log it and carry on, as the kubelet does.
 */
export async function createEventDirectly(
  client: EventSink,
  spec: Omit<EventSpec, 'now' | 'unixNanos'> & { now?: Date },
  options: { signal?: AbortSignal } = {},
): Promise<Event> {
  const now = spec.now ?? systemClock.now();
  const event = buildEvent({ ...spec, now, unixNanos: directNamer.next(now) });
  return client.create<Event>(
    eventsPath(event.metadata.namespace!),
    event,
    options.signal ? { signal: options.signal } : {},
  );
}

export interface EventRecorderOptions {
  client: EventSink;
  /** source.host: the node name. */
  host: string;
  component?: string;
  /** eventRecordQPS; 0 means no limit, as the kubelet treats it. */
  qps: number;
  /** eventBurst; used only when qps > 0. */
  burst: number;
  /** Stamps the events (wall side) and drives the token bucket's refill (monotonic side). */
  clock?: Clock;
  /** Events posting at once; more are dropped rather than queued without bound while the server is slow. */
  maxInFlight?: number;
}

/** A controller's recorder: its component as the source, no host, no rate limit of its own (the client has one). */
export function controllerEventRecorder(client: EventSink, component: string, clock: Clock): EventRecorder {
  return new EventRecorder({ client, host: '', component, qps: 0, burst: 0, clock });
}

/**
 * Records events asynchronously. `record` returns at once: true when the event was handed to the API
 * client, false when it was dropped (rate limit, too many in flight, recorder stopped).
 */
export class EventRecorder {
  private readonly client: EventSink;
  private readonly host: string;
  private readonly component: string;
  private readonly limiter: TokenBucket | undefined;
  private readonly clock: Clock;
  private readonly maxInFlight: number;
  private readonly namer = new NanoNamer();
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;
  private droppedCount = 0;
  private failedCount = 0;

  constructor(options: EventRecorderOptions) {
    this.client = options.client;
    this.host = options.host;
    this.component = options.component ?? 'kubelet';
    this.clock = options.clock ?? systemClock;
    this.maxInFlight = options.maxInFlight ?? 100;
    this.limiter =
      options.qps > 0 ? new TokenBucket(options.qps, Math.max(1, Math.trunc(options.burst)), this.clock) : undefined;
  }

  /** Events dropped so far (rate limit, in-flight cap, after stop). */
  get dropped(): number {
    return this.droppedCount;
  }

  /** Events the server did not take (unreachable, refused). */
  get failed(): number {
    return this.failedCount;
  }

  record(involvedObject: ObjectReference, type: EventType, reason: string, message: string): boolean {
    const drop = (why: string): false => {
      this.droppedCount++;
      klog.v(2, `Dropping event (${why})`, { object: involvedObject.name ?? '', type, reason, message });
      return false;
    };
    if (this.stopped) return drop('recorder stopped');
    if (this.limiter !== undefined && !this.limiter.tryAcquire()) return drop('rate limit exceeded');
    if (this.inFlight.size >= this.maxInFlight) return drop('too many events in flight');
    const now = this.clock.now();
    const event = buildEvent({
      involvedObject,
      type,
      reason,
      message,
      host: this.host,
      component: this.component,
      now,
      unixNanos: this.namer.next(now),
    });
    const p: Promise<void> = this.client
      .create(eventsPath(event.metadata.namespace!), event)
      .then(
        () => undefined,
        (err: unknown) => {
          this.failedCount++;
          klog.v(2, `Unable to write event (will not retry): ${errorMessage(err)}`, { event: event.metadata.name });
        },
      )
      .finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
    return true;
  }

  /** Resolves when every event handed over so far has been answered (or has failed). */
  async flush(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /** Stops accepting events and waits for those in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.flush();
  }
}
