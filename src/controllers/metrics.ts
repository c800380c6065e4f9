// Controller metrics are read from the controllers' informer caches at scrape time: nothing is updated on the
// controllers' own paths, and a controller that stops (lost leadership) takes its series with it, so only the leader
// reports them. The host gives the registry: dkc server's own /metrics, or `dkc controller --metrics-bind-address`.

import { promPart, type Registry } from '../util/prom.js';

export type Sample<L extends string> = readonly [labels: Readonly<Record<L, string>>, value: number];

/** A gauge whose series are exactly `samples()` at each scrape; returns what removes it again. */
export function collectedGauge<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
  samples: () => Iterable<Sample<L>>,
): () => void {
  const Gauge = promPart('Gauge');
  // A controller of an earlier term that has not finished stopping gives way: the newest one's cache is current.
  registry.removeSingleMetric(name);
  const gauge = new Gauge<L>({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      for (const [labels, value] of samples()) this.set(labels as Partial<Record<L, string>>, value);
    },
  });
  return () => {
    if (registry.getSingleMetric(name) === gauge) registry.removeSingleMetric(name);
  };
}
