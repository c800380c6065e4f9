// The status manager: the one writer of Node.status.config and of the four kubelet_node_config_* gauges. It
// publishes the whole status.config, coalesces updates, patches only when what it would publish changed,
// retries a failed patch, and keeps the gauges equal to what it would publish.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  ConfigStatusManager,
  type ConfigGauges,
  type LabelledGauge,
  type NodeConfigStatus,
} from '../../../src/agent/dynamicconfig/status.js';
import type { NodeConfigSource } from '../../../src/agent/dynamicconfig/source.js';

const src = (name: string, rv: string): NodeConfigSource => ({
  configMap: { namespace: 'kube-system', name, uid: `uid-${name}`, resourceVersion: rv, kubeletConfigKey: 'kubelet' },
});
const LOCAL = {
  node_config_source: 'local',
  node_config_uid: '',
  node_config_resource_version: '',
  node_config_kubelet_key: '',
};
const labelsOf = (s: NodeConfigSource) => ({
  node_config_source: `/api/v1/namespaces/kube-system/configmaps/${s.configMap!.name}`,
  node_config_uid: s.configMap!.uid!,
  node_config_resource_version: s.configMap!.resourceVersion!,
  node_config_kubelet_key: 'kubelet',
});

/** A gauge as prom-client keeps it: the series currently set. */
class FakeGauge implements LabelledGauge {
  series: Array<{ labels: Record<string, string>; value: number }> = [];
  set(labels: Record<string, string>, value: number): void {
    this.series = this.series.filter((s) => JSON.stringify(s.labels) !== JSON.stringify(labels));
    this.series.push({ labels, value });
  }
  reset(): void {
    this.series = [];
  }
}

function gauges() {
  let error = -1;
  const g = {
    assigned: new FakeGauge(),
    active: new FakeGauge(),
    lastKnownGood: new FakeGauge(),
    error: { set: (v: number) => void (error = v) },
  } satisfies ConfigGauges;
  return { g, error: () => error };
}

/** Records every publish; fails the next `failures` of them. */
class Recorder {
  published: NodeConfigStatus[] = [];
  failures = 0;
  async publish(config: NodeConfigStatus): Promise<void> {
    await Promise.resolve();
    if (this.failures > 0) {
      this.failures--;
      throw new Error('connection refused');
    }
    this.published.push(structuredClone(config));
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

describe('ConfigStatusManager', () => {
  it('publishes once on start, even an empty status, and every gauge reads local', async () => {
    const { g, error } = gauges();
    const m = new ConfigStatusManager(g);
    const rec = new Recorder();
    m.start(rec);
    await withTimeout(m.flushed(), 2_000, 'first publish');
    m.stop();
    assert.deepEqual(rec.published, [{}]);
    for (const gauge of [g.assigned, g.active, g.lastKnownGood])
      assert.deepEqual(gauge.series, [{ labels: LOCAL, value: 1 }]);
    assert.equal(error(), 0);
  });

  it('coalesces updates made in one turn into one patch of the whole status.config', async () => {
    const { g } = gauges();
    const m = new ConfigStatusManager(g);
    const rec = new Recorder();
    m.start(rec);
    const a = src('a', '1');
    m.setAssigned(a);
    m.setActive(a);
    m.setLastKnownGood(a);
    await withTimeout(m.flushed(), 2_000, 'publish');
    m.stop();
    assert.deepEqual(rec.published, [{ assigned: a, active: a, lastKnownGood: a }]);
  });

  it('patches only on change: setting the same values again publishes nothing', async () => {
    const { g } = gauges();
    const m = new ConfigStatusManager(g);
    const rec = new Recorder();
    const a = src('a', '1');
    m.setAssigned(a);
    m.start(rec);
    await withTimeout(m.flushed(), 2_000, 'first publish');
    m.setAssigned(src('a', '1'));
    m.setErrorOverride('');
    m.setError('');
    await withTimeout(m.flushed(), 2_000, 'unchanged');
    assert.equal(rec.published.length, 1);
    const b = src('b', '2');
    m.setActive(b);
    await withTimeout(m.flushed(), 2_000, 'changed');
    m.stop();
    assert.deepEqual(rec.published, [{ assigned: a }, { assigned: a, active: b }]);
  });

  it('a sync error hides the base error until cleared, and the error gauge follows what is published', async () => {
    const { g, error } = gauges();
    const m = new ConfigStatusManager(g);
    const rec = new Recorder();
    m.setError('failed to load config, see Kubelet log for details');
    m.start(rec);
    await withTimeout(m.flushed(), 2_000, 'base error');
    assert.equal(error(), 1);
    m.setErrorOverride('failed to sync: failed to download config, see Kubelet log for details');
    await withTimeout(m.flushed(), 2_000, 'override');
    m.setErrorOverride('');
    await withTimeout(m.flushed(), 2_000, 'cleared');
    m.setError('');
    await withTimeout(m.flushed(), 2_000, 'no error');
    m.stop();
    assert.deepEqual(
      rec.published.map((s) => s.error),
      [
        'failed to load config, see Kubelet log for details',
        'failed to sync: failed to download config, see Kubelet log for details',
        'failed to load config, see Kubelet log for details',
        undefined,
      ],
    );
    assert.equal(error(), 0);
  });

  it('keeps exactly one series per gauge, labelled with the current source', () => {
    const { g } = gauges();
    const m = new ConfigStatusManager(g);
    const a = src('a', '1');
    const b = src('b', '7');
    m.setAssigned(a);
    m.setAssigned(b);
    m.setActive(a);
    m.setLastKnownGood(undefined);
    assert.deepEqual(g.assigned.series, [{ labels: labelsOf(b), value: 1 }]);
    assert.deepEqual(g.active.series, [{ labels: labelsOf(a), value: 1 }]);
    assert.deepEqual(g.lastKnownGood.series, [{ labels: LOCAL, value: 1 }]);
    assert.deepEqual(m.current(), { assigned: b, active: a });
  });

  it('retries a failed patch after the retry interval, and retryNow retries at once', async () => {
    const { g } = gauges();
    const m = new ConfigStatusManager(g, 60_000);
    const rec = new Recorder();
    rec.failures = 1;
    const a = src('a', '1');
    m.setActive(a);
    m.start(rec);
    // The first attempt fails; with a one-minute retry timer only retryNow can publish within the test.
    for (let i = 0; i < 100 && rec.failures > 0; i++) await new Promise((r) => setImmediate(r));
    assert.equal(rec.failures, 0, 'the first publish was attempted');
    assert.deepEqual(rec.published, []);
    m.retryNow();
    await withTimeout(m.flushed(), 2_000, 'retry');
    m.stop();
    assert.deepEqual(rec.published, [{ active: a }]);
  });

  it('publishes nothing after stop', async () => {
    const { g } = gauges();
    const m = new ConfigStatusManager(g);
    const rec = new Recorder();
    m.start(rec);
    await withTimeout(m.flushed(), 2_000, 'first publish');
    m.stop();
    m.setActive(src('a', '1'));
    for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
    assert.deepEqual(rec.published, [{}]);
  });
});
