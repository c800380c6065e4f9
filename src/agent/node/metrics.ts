// The agent's Prometheus registry, served on /metrics. Only the registry and gauge files of prom-client are loaded
// (src/util/prom.ts) unless default process metrics are asked for: the agent restarts on every config change.

import { collectDefaultMetrics, newRegistry, promPart, type Gauge, type Registry } from '../../util/prom.js';

export { promClientLoadMillis, renderMetrics } from '../../util/prom.js';
export type MetricsRegistry = Registry;
export type { Gauge };

export interface MetricsRegistryOptions {
  /** Also collect prom-client's process_* and nodejs_* metrics (costs tens of ms of start-up). */
  defaultMetrics?: boolean;
  /** Prefix for the default metrics' names. */
  defaultMetricsPrefix?: string;
}

/** A new registry of its own (never prom-client's global one, so simulated nodes in one process stay apart). */
export function createMetricsRegistry(options: MetricsRegistryOptions = {}): MetricsRegistry {
  const registry = newRegistry();
  if (options.defaultMetrics === true) collectDefaultMetrics(registry, options.defaultMetricsPrefix);
  return registry;
}

/** A gauge registered in `registry` only. */
export function gauge<T extends string = string>(
  registry: MetricsRegistry,
  name: string,
  help: string,
  labelNames: readonly T[] = [],
): Gauge<T> {
  const GaugeClass = promPart('Gauge');
  return new GaugeClass<T>({ name, help, labelNames, registers: [registry] });
}
