// Controller metrics: the rollout and node samples as pure functions of the cached objects, a registered gauge that
// reads its cache at each scrape and goes when its controller stops (never taking a newer controller's with it), and
// `dkc controller --metrics-bind-address` parsing and serving.

import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, it } from 'node:test';
import type { Node } from '../../src/api/types.js';
import { collectedGauge } from '../../src/controllers/metrics.js';
import { parseBindAddress, serveMetrics } from '../../src/controllers/metricsserver.js';
import { nodeConditionSamples } from '../../src/controllers/nodelifecycle/metrics.js';
import { rolloutNodeSamples, rolloutPhaseSamples } from '../../src/controllers/rollout/metrics.js';
import type { NodeConfigRollout } from '../../src/api/dkc/rollout.js';
import { newRegistry } from '../../src/util/prom.js';

const rollout: NodeConfigRollout = {
  metadata: { name: 'r1' },
  status: {
    phase: 'Progressing',
    nodes: { a: { state: 'Succeeded' }, b: { state: 'Succeeded' }, c: { state: 'InFlight' }, d: { state: 'Failed' } },
  },
};

describe('controller metric samples', () => {
  it("counts a rollout's nodes by state, zeros included", () => {
    const byState = Object.fromEntries(rolloutNodeSamples([rollout]).map(([l, v]) => [l.state, v]));
    assert.deepEqual(byState, { Pending: 0, InFlight: 1, Succeeded: 2, Failed: 1, Reverted: 0, Overridden: 0 });
  });

  it('reports 1 for the current phase and 0 for the others; Pending before any status', () => {
    const phases = (r: NodeConfigRollout) =>
      rolloutPhaseSamples([r])
        .filter(([, v]) => v === 1)
        .map(([l]) => l.phase);
    assert.deepEqual(phases(rollout), ['Progressing']);
    assert.deepEqual(phases({ metadata: { name: 'new' } }), ['Pending']);
    assert.equal(rolloutPhaseSamples([rollout]).length, 7);
  });

  it('reports node conditions as kube-state-metrics does', () => {
    const node = { metadata: { name: 'n1' }, status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } } as Node;
    const samples = nodeConditionSamples([node]).map(([l, v]) => `${l.node} ${l.condition} ${l.status} ${v}`);
    assert.deepEqual(samples, ['n1 Ready true 0', 'n1 Ready false 0', 'n1 Ready unknown 1']);
  });
});

describe('collected gauges', () => {
  it('reads the cache at each scrape and is removed by its own controller only', async () => {
    const registry = newRegistry();
    let value = 1;
    const removeOld = collectedGauge(registry, 'x_total_things', 'help', ['k'], () => [[{ k: 'a' }, value]]);
    assert.match(await registry.metrics(), /x_total_things\{k="a"\} 1/);
    value = 2;
    assert.match(await registry.metrics(), /x_total_things\{k="a"\} 2/);
    const removeNew = collectedGauge(registry, 'x_total_things', 'help', ['k'], () => [[{ k: 'b' }, 3]]);
    removeOld();
    assert.match(
      await registry.metrics(),
      /x_total_things\{k="b"\} 3/,
      "a stopping controller of an earlier term leaves the new one's gauge",
    );
    removeNew();
    assert.doesNotMatch(await registry.metrics(), /x_total_things/);
  });
});

describe('dkc controller --metrics-bind-address', () => {
  it('parses host:port and 0', () => {
    assert.equal(parseBindAddress('0'), undefined);
    assert.deepEqual(parseBindAddress('127.0.0.1:10257'), { host: '127.0.0.1', port: 10257 });
    assert.deepEqual(parseBindAddress(':8080'), { host: '0.0.0.0', port: 8080 });
    assert.deepEqual(parseBindAddress('[::1]:9'), { host: '::1', port: 9 });
    assert.throws(
      () => parseBindAddress('localhost'),
      /invalid --metrics-bind-address "localhost": must be host:port, or 0 for none/,
    );
  });

  it('serves the registry on /metrics', async () => {
    const registry = newRegistry();
    collectedGauge(registry, 'dkc_rollout_phase', 'help', ['rollout', 'phase'], () => [
      [{ rollout: 'r', phase: 'Paused' }, 1],
    ]);
    const server = await serveMetrics(registry, { host: '127.0.0.1', port: 0 });
    try {
      const get = (path: string) =>
        new Promise<{ code: number; body: string }>((resolve, reject) => {
          request({ host: '127.0.0.1', port: server.address.port, path }, (res) => {
            let body = '';
            res.on('data', (d: Buffer) => (body += d.toString()));
            res.on('end', () => resolve({ code: res.statusCode ?? 0, body }));
          })
            .on('error', reject)
            .end();
        });
      const ok = await get('/metrics');
      assert.equal(ok.code, 200);
      assert.match(ok.body, /dkc_rollout_phase\{rollout="r",phase="Paused"\} 1/);
      assert.equal((await get('/other')).code, 404);
    } finally {
      await server.close();
    }
  });
});
