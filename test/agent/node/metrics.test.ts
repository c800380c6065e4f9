import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createMetricsRegistry, gauge, promClientLoadMillis, renderMetrics } from '../../../src/agent/node/index.js';
import { repoRoot } from '../../helpers/paths.js';

describe('metrics registry', () => {
  it('keeps registries apart and renders Prometheus text', async () => {
    const a = createMetricsRegistry();
    const b = createMetricsRegistry();
    const g = gauge(
      a,
      'kubelet_node_config_assigned',
      "The node's understanding of intended config. The count is always 1.",
      ['node_config_source', 'node_config_uid', 'node_config_resource_version', 'node_config_kubelet_key'],
    );
    g.set(
      {
        node_config_source: 'local',
        node_config_uid: '',
        node_config_resource_version: '',
        node_config_kubelet_key: '',
      },
      1,
    );
    // The same name in another registry is another metric, as simulated nodes in one process need.
    gauge(b, 'kubelet_node_config_assigned', 'other', ['node_config_source']).set({ node_config_source: 'x' }, 1);
    const out = await renderMetrics(a);
    assert.match(out.contentType, /^text\/plain; version=0\.0\.4/);
    assert.equal(
      out.body,
      "# HELP kubelet_node_config_assigned The node's understanding of intended config. The count is always 1.\n" +
        '# TYPE kubelet_node_config_assigned gauge\n' +
        'kubelet_node_config_assigned{node_config_source="local",node_config_uid="",node_config_resource_version="",node_config_kubelet_key=""} 1\n',
    );
    assert.throws(() => gauge(a, 'kubelet_node_config_assigned', 'dup'), /already been registered/);
    assert.ok(promClientLoadMillis() > 0);
  });

  it('adds process metrics only when asked', async () => {
    const plain = await renderMetrics(createMetricsRegistry());
    assert.equal(plain.body, '\n');
    const full = await renderMetrics(createMetricsRegistry({ defaultMetrics: true }));
    assert.match(full.body, /^process_cpu_user_seconds_total /m);
  });

  it('loads only the registry and gauge of prom-client unless default metrics are asked for', () => {
    const script = `
      const { createRequire } = await import('node:module');
      const m = await import(${JSON.stringify(join(repoRoot, 'dist/src/agent/node/metrics.js'))});
      m.createMetricsRegistry();
      const require = createRequire(${JSON.stringify(join(repoRoot, 'package.json'))});
      const loaded = Object.keys(require.cache).filter((k) => k.includes('node_modules'));
      console.log(JSON.stringify({ summary: loaded.some((k) => k.endsWith('lib/summary.js')), otel: loaded.some((k) => k.includes('@opentelemetry')), registry: loaded.some((k) => k.endsWith('lib/registry.js')) }));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(child.status, 0, child.stderr);
    assert.deepEqual(JSON.parse(child.stdout), { summary: false, otel: false, registry: true });
  });
});
