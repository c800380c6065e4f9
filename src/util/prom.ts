// prom-client, loaded by its parts. The entry point loads every metric type, the pushgateway and, through the
// default process metrics, @opentelemetry/api: ~40-60 ms on this machine, against a few ms for the classes a process
// actually uses. The agent restarts on every config change, so every process loads only the files it needs; the
// package's types are used as they are, since the deep files are the very classes the entry point re-exports.

import { createRequire } from 'node:module';
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { systemClock } from './clock.js';

export type { Counter, Gauge, Histogram, Registry };

export interface PromParts {
  Registry: typeof Registry;
  Gauge: typeof Gauge;
  Counter: typeof Counter;
  Histogram: typeof Histogram;
}

type CollectDefaultMetrics = (config?: { register?: Registry; prefix?: string }) => void;

const require = createRequire(import.meta.url);
let loaded: Partial<PromParts> = {};
let loadMillis = 0;

const FILES: Record<keyof PromParts, string> = {
  Registry: 'prom-client/lib/registry',
  Gauge: 'prom-client/lib/gauge',
  Counter: 'prom-client/lib/counter',
  Histogram: 'prom-client/lib/histogram',
};

/** One class of prom-client, loaded from its own file on first use. */
export function promPart<K extends keyof PromParts>(name: K): PromParts[K] {
  const have = loaded[name];
  if (have !== undefined) return have;
  const start = systemClock.monotonicMs();
  let part: PromParts[K];
  try {
    part = require(FILES[name]) as PromParts[K];
  } catch {
    // A prom-client whose file layout moved: the entry point has the same classes, only slower to load.
    part = (require('prom-client') as PromParts)[name];
  }
  loadMillis += systemClock.monotonicMs() - start;
  loaded = { ...loaded, [name]: part };
  return part;
}

/** prom-client's process_* and nodejs_* collectors (tens of ms to load). */
export function collectDefaultMetrics(registry: Registry, prefix?: string): void {
  const start = systemClock.monotonicMs();
  let collect: CollectDefaultMetrics;
  try {
    collect = require('prom-client/lib/defaultMetrics') as CollectDefaultMetrics;
  } catch {
    collect = (require('prom-client') as { collectDefaultMetrics: CollectDefaultMetrics }).collectDefaultMetrics;
  }
  loadMillis += systemClock.monotonicMs() - start;
  collect(prefix === undefined ? { register: registry } : { register: registry, prefix });
}

/** Milliseconds spent loading prom-client in this process (0 until the first part is used). */
export function promClientLoadMillis(): number {
  return loadMillis;
}

/** A new registry of its own (never prom-client's global one, so several servers or nodes in one process stay apart). */
export function newRegistry(): Registry {
  return new (promPart('Registry'))();
}

/** The Prometheus text exposition of `registry` and its Content-Type. */
export async function renderMetrics(registry: Registry): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}
