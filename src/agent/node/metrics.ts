// The agent's Prometheus registry, served on /metrics. prom-client's entry point loads every metric type,
// the pushgateway and, through the default process metrics, @opentelemetry/api: ~40-60 ms on this machine,
// against ~3 ms for the registry and gauge alone. The agent restarts on every config change, so only those
// two files are loaded unless default process metrics are asked for; the package's types are used as
// they are, since the deep files are the very classes the entry point re-exports.

import { createRequire } from 'node:module';
import type { Gauge, Registry } from 'prom-client';

export type MetricsRegistry = Registry;
export type { Gauge };

interface PromParts {
  Registry: typeof Registry;
  Gauge: typeof Gauge;
}

type CollectDefaultMetrics = (config?: { register?: Registry; prefix?: string }) => void;

const require = createRequire(import.meta.url);
let parts: PromParts | undefined;
let loadMillis = 0;

function load(): PromParts {
  if (parts !== undefined) return parts;
  const start = performance.now();
  try {
    parts = {
      Registry: require('prom-client/lib/registry') as typeof Registry,
      Gauge: require('prom-client/lib/gauge') as typeof Gauge,
    };
  } catch {
    // A prom-client whose file layout moved: the entry point has the same classes, only slower to load.
    const full = require('prom-client') as typeof import('prom-client');
    parts = { Registry: full.Registry, Gauge: full.Gauge };
  }
  loadMillis = performance.now() - start;
  return parts;
}

/** Milliseconds spent loading prom-client in this process (0 until the first registry is created). */
export function promClientLoadMillis(): number {
  return loadMillis;
}

export interface MetricsRegistryOptions {
  /** Also collect prom-client's process_* and nodejs_* metrics (costs tens of ms of start-up). */
  defaultMetrics?: boolean;
  /** Prefix for the default metrics' names. */
  defaultMetricsPrefix?: string;
}

/** A new registry of its own (never prom-client's global one, so simulated nodes in one process stay apart). */
export function createMetricsRegistry(options: MetricsRegistryOptions = {}): MetricsRegistry {
  const { Registry: RegistryClass } = load();
  const registry = new RegistryClass();
  if (options.defaultMetrics === true) {
    const start = performance.now();
    let collect: CollectDefaultMetrics;
    try {
      collect = require('prom-client/lib/defaultMetrics') as CollectDefaultMetrics;
    } catch {
      collect = (require('prom-client') as typeof import('prom-client')).collectDefaultMetrics as CollectDefaultMetrics;
    }
    loadMillis += performance.now() - start;
    const config: { register: Registry; prefix?: string } = { register: registry };
    if (options.defaultMetricsPrefix !== undefined) config.prefix = options.defaultMetricsPrefix;
    collect(config);
  }
  return registry;
}

/** A gauge registered in `registry` only. */
export function gauge<T extends string = string>(registry: MetricsRegistry, name: string, help: string, labelNames: readonly T[] = []): Gauge<T> {
  const { Gauge: GaugeClass } = load();
  return new GaugeClass<T>({ name, help, labelNames, registers: [registry] });
}

/** The Prometheus text exposition of `registry` and its Content-Type. */
export async function renderMetrics(registry: MetricsRegistry): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}
