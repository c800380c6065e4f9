// What the benchmarks share: percentiles, and the ConfigMap create+update load through a real server.

import { RestClient } from '../src/client/index.js';

export function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

export const ms = (n: number): string => `${n.toFixed(1)} ms`;

/** `n` ConfigMaps created then updated through the API by `concurrency` clients; returns writes per second. */
export async function serverWriteRate(
  kubeconfig: string,
  n: number,
  concurrency: number,
  prefix = 'bench',
): Promise<number> {
  const clients = await Promise.all(Array.from({ length: concurrency }, () => RestClient.fromKubeconfig(kubeconfig)));
  const path = '/api/v1/namespaces/default/configmaps';
  let next = 0;
  const t0 = performance.now();
  try {
    await Promise.all(
      clients.map(async (c) => {
        for (;;) {
          const i = next++;
          if (i >= n) return;
          await c.create(path, { metadata: { name: `${prefix}-${i}` }, data: { k: 'v'.repeat(64) } });
          await c.update(`${path}/${prefix}-${i}`, {
            metadata: { name: `${prefix}-${i}` },
            data: { k: 'w'.repeat(64) },
          });
        }
      }),
    );
  } finally {
    for (const c of clients) c.close();
  }
  return (2 * n) / ((performance.now() - t0) / 1000);
}
