// The API server's /metrics: kube-apiserver's request, inflight, long-running and storage metrics under their names,
// label sets and label values (verb LIST/WATCH/APPLY/CONNECT, scope resource/namespace/cluster), so dashboards and
// alerts written for kube-apiserver read dkc server as they are. One registry per server, never prom-client's
// global one.
//
// The request path pays for one map lookup and a counter and histogram update per request: the prom-client children
// are cached per label set, so no label hashing happens per request. Object counts and inflight maxima are read at
// scrape time only.

import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  newRegistry,
  promPart,
  renderMetrics,
  type Counter,
  type Gauge,
  type Histogram,
  type Registry,
} from '../util/prom.js';
import type { RequestInfo } from './requestinfo.js';
import { systemClock, type Clock } from '../util/clock.js';

/** kube-apiserver's apiserver_request_duration_seconds buckets (an SLO metric: chosen to resolve both fast and slow calls). */
export const REQUEST_DURATION_BUCKETS = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];

const COMPONENT = 'apiserver';
/** The verbs kube-apiserver reports; any other becomes "other". */
const VALID_VERBS = new Set([
  'APPLY',
  'CONNECT',
  'CREATE',
  'DELETE',
  'DELETECOLLECTION',
  'GET',
  'LIST',
  'PATCH',
  'POST',
  'PROXY',
  'PUT',
  'UPDATE',
  'WATCH',
  'WATCHLIST',
]);
/** Subresources kube-apiserver serves by CONNECT, reported as such whatever the HTTP method. */
const CONNECT_SUBRESOURCES = new Set(['log', 'exec', 'portforward', 'attach', 'proxy']);
const APPLY_PATCH = 'application/apply-patch+yaml';

export type RequestKind = 'readOnly' | 'mutating';

/** The labels apiserver_request_total and apiserver_request_duration_seconds share (all but code). */
export interface RequestLabels {
  verb: string;
  dry_run: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  scope: string;
  component: string;
}

/** kube-apiserver's CleanScope: a named object (or a create) is "resource", then "namespace", then "cluster". */
export function metricsScope(info: Pick<RequestInfo, 'name' | 'verb' | 'namespace' | 'isResourceRequest'>): string {
  if (info.name !== '' || info.verb === 'create') return 'resource';
  if (info.namespace !== '') return 'namespace';
  return info.isResourceRequest ? 'cluster' : '';
}

/**
 * kube-apiserver's reported verb: the HTTP method upper-cased, GET of a collection as LIST, any watch as WATCH, a
 * server-side apply patch as APPLY, proxy and the other connect subresources as CONNECT.
 */
export function metricsVerb(
  method: string,
  info: Pick<RequestInfo, 'verb' | 'subresource' | 'isResourceRequest'>,
  scope: string,
  contentType: string | undefined,
): string {
  let verb = method.toUpperCase();
  if ((verb === 'GET' || verb === 'HEAD') && scope !== 'resource' && scope !== '') verb = 'LIST';
  else if (verb === 'HEAD') verb = 'GET';
  if (info.verb === 'watch') verb = 'WATCH';
  if (verb === 'PATCH' && contentType === APPLY_PATCH) verb = 'APPLY';
  if (info.isResourceRequest && CONNECT_SUBRESOURCES.has(info.subresource)) verb = 'CONNECT';
  return VALID_VERBS.has(verb) ? verb : 'other';
}

/** kube-apiserver's dry_run label: '' when absent, the sorted distinct values, "invalid" for any but All. */
export function dryRunLabel(query: URLSearchParams): string {
  const values = query.getAll('dryRun');
  if (values.length === 0) return '';
  if (values.some((v) => v !== 'All')) return 'invalid';
  return 'All';
}

/** Watches and connect subresources hold their connection; kube-apiserver counts them apart from the inflight limit. */
export function isLongRunning(info: Pick<RequestInfo, 'verb' | 'subresource'>): boolean {
  return info.verb === 'watch' || CONNECT_SUBRESOURCES.has(info.subresource);
}

export function requestKind(info: Pick<RequestInfo, 'verb'>): RequestKind {
  return info.verb === 'get' || info.verb === 'list' || info.verb === 'watch' ? 'readOnly' : 'mutating';
}

export function requestLabels(
  method: string,
  info: RequestInfo,
  query: URLSearchParams,
  contentType: string | undefined,
): RequestLabels {
  const scope = metricsScope(info);
  return {
    verb: metricsVerb(method, info, scope, contentType),
    dry_run: dryRunLabel(query),
    group: info.apiGroup,
    version: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    scope,
    component: COMPONENT,
  };
}

/**
 * The highest count seen in the last whole second and in the current one: kube-apiserver's inflight gauge reports
 * the maximum of the last second, since the instantaneous value at scrape time says little.
 */
export class Watermark {
  current = 0;
  private second = -1;
  private maxThisSecond = 0;
  private maxLastSecond = 0;

  constructor(private readonly clock: Clock) {}

  add(delta: number): void {
    this.roll();
    this.current += delta;
    if (this.current > this.maxThisSecond) this.maxThisSecond = this.current;
  }

  read(): number {
    this.roll();
    return Math.max(this.maxThisSecond, this.maxLastSecond, this.current);
  }

  private roll(): void {
    const s = Math.floor(this.clock.monotonicMs() / 1000);
    if (s === this.second) return;
    this.maxLastSecond = s === this.second + 1 ? this.maxThisSecond : this.current;
    this.maxThisSecond = this.current;
    this.second = s;
  }
}

type RequestLabelName = keyof RequestLabels;
const REQUEST_LABELS: RequestLabelName[] = [
  'verb',
  'dry_run',
  'group',
  'version',
  'resource',
  'subresource',
  'scope',
  'component',
];
const LONG_RUNNING_LABELS = ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;

interface Series {
  duration: { observe(v: number): void };
  longRunning?: { inc(): void; dec(): void };
  byCode: Map<number, { inc(): void }>;
}

export interface ApiMetricsOptions {
  /** Stored objects per resource ("nodes", "leases.coordination.k8s.io"), read at scrape time. */
  objectCounts: () => Iterable<readonly [resource: string, count: number]>;
  /** Times requests and rolls the in-flight watermarks on its monotonic side; the system clock by default. */
  clock?: Clock;
}

export class ApiMetrics {
  readonly registry: Registry;
  private readonly requests: Counter<RequestLabelName | 'code'>;
  private readonly durations: Histogram<RequestLabelName>;
  private readonly longRunning: Gauge<(typeof LONG_RUNNING_LABELS)[number]>;
  private readonly inflight: Record<RequestKind, Watermark>;
  private readonly series = new Map<string, Series>();
  private readonly clock: Clock;

  constructor(options: ApiMetricsOptions) {
    this.clock = options.clock ?? systemClock;
    this.registry = newRegistry();
    const registers = [this.registry];
    const Counter = promPart('Counter');
    const Histogram = promPart('Histogram');
    const Gauge = promPart('Gauge');
    this.requests = new Counter({
      name: 'apiserver_request_total',
      help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      labelNames: [...REQUEST_LABELS, 'code'],
      registers,
    });
    this.durations = new Histogram({
      name: 'apiserver_request_duration_seconds',
      help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      labelNames: REQUEST_LABELS,
      buckets: REQUEST_DURATION_BUCKETS,
      registers,
    });
    this.longRunning = new Gauge({
      name: 'apiserver_longrunning_requests',
      help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
      labelNames: LONG_RUNNING_LABELS,
      registers,
    });
    this.inflight = { readOnly: new Watermark(this.clock), mutating: new Watermark(this.clock) };
    const inflight = this.inflight;
    new Gauge({
      name: 'apiserver_current_inflight_requests',
      help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
      labelNames: ['request_kind'],
      registers,
      collect() {
        this.set({ request_kind: 'readOnly' }, inflight.readOnly.read());
        this.set({ request_kind: 'mutating' }, inflight.mutating.read());
      },
    });
    const counts = options.objectCounts;
    new Gauge({
      name: 'apiserver_storage_objects',
      help: 'Number of stored objects at the time of last check split by kind.',
      labelNames: ['resource'],
      registers,
      collect() {
        this.reset();
        for (const [resource, n] of counts()) this.set({ resource }, n);
      },
    });
  }

  /**
   * Follows one request to its end (the response's close): counts it, observes its duration, and holds it in the
   * inflight or long-running gauges meanwhile. `startedMs` is when the request arrived, on this instance's clock.
   */
  track(req: IncomingMessage, res: ServerResponse, info: RequestInfo, query: URLSearchParams, startedMs: number): void {
    const labels = requestLabels(req.method ?? 'GET', info, query, req.headers['content-type']);
    const series = this.seriesOf(labels, isLongRunning(info));
    let release: () => void;
    if (series.longRunning) {
      const g = series.longRunning;
      g.inc();
      release = () => g.dec();
    } else {
      const w = this.inflight[requestKind(info)];
      w.add(1);
      release = () => w.add(-1);
    }
    res.once('close', () => {
      release();
      let counter = series.byCode.get(res.statusCode);
      if (counter === undefined) {
        counter = this.requests.labels({ ...labels, code: String(res.statusCode) });
        series.byCode.set(res.statusCode, counter);
      }
      counter.inc();
      series.duration.observe((this.clock.monotonicMs() - startedMs) / 1000);
    });
  }

  /** The current time on the clock `track` expects. */
  now(): number {
    return this.clock.monotonicMs();
  }

  render(): Promise<{ contentType: string; body: string }> {
    return renderMetrics(this.registry);
  }

  private seriesOf(labels: RequestLabels, longRunning: boolean): Series {
    const key = `${labels.verb} ${labels.dry_run} ${labels.group} ${labels.version} ${labels.resource} ${labels.subresource} ${labels.scope}`;
    let s = this.series.get(key);
    if (s === undefined) {
      s = { duration: this.durations.labels(labels), byCode: new Map() };
      if (longRunning) {
        const { dry_run: _d, ...lr } = labels;
        s.longRunning = this.longRunning.labels(lr);
      }
      this.series.set(key, s);
    }
    return s;
  }
}
