import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Event } from '../../../src/api/types.js';
import { Duration, setDefaults } from '../../../src/kubeletconfig/index.js';
import {
  buildEvent,
  createEventDirectly,
  EventRecorder,
  nodeReference,
  type EventSink,
} from '../../../src/client/events.js';
import { eventRateLimits, heartbeatTimeoutMs, kubeAPIRateLimiter } from '../../../src/agent/node/index.js';
import { FakeClock } from '../../helpers/fakeclock.js';

/** Records every create; answers at once unless told to hang. */
class FakeSink {
  readonly created: Array<{ path: string; body: Event }> = [];
  hang = false;
  fail = false;
  private release: Array<() => void> = [];
  readonly sink: EventSink = {
    create: <T>(path: string, body: unknown): Promise<T> => {
      this.created.push({ path, body: body as Event });
      if (this.fail) return Promise.reject(new Error('connection refused'));
      if (this.hang) return new Promise<T>((resolve) => this.release.push(() => resolve(body as T)));
      return Promise.resolve(body as T);
    },
  };
  releaseAll(): void {
    for (const r of this.release.splice(0)) r();
  }
}

describe('EventRecorder', () => {
  it('writes node events the way the kubelet does', async () => {
    const clock = new FakeClock(Date.UTC(2024, 0, 15, 10, 0, 0, 5));
    const fake = new FakeSink();
    const rec = new EventRecorder({
      client: fake.sink,
      host: 'node-a',
      qps: 5,
      burst: 10,
      clock,
    });
    assert.equal(
      rec.record(nodeReference('node-a'), 'Normal', 'NodeReady', 'Node node-a status is now: NodeReady'),
      true,
    );
    assert.equal(rec.record(nodeReference('node-a'), 'Normal', 'NodeReady', 'again'), true);
    await rec.flush();
    const [first, second] = fake.created;
    assert.equal(first!.path, '/api/v1/namespaces/default/events');
    const nanos = BigInt(Date.UTC(2024, 0, 15, 10, 0, 0, 5)) * 1_000_000n;
    assert.deepEqual(first!.body, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `node-a.${nanos.toString(16)}`, namespace: 'default' },
      involvedObject: { kind: 'Node', name: 'node-a', uid: 'node-a', namespace: '' },
      reason: 'NodeReady',
      message: 'Node node-a status is now: NodeReady',
      source: { component: 'kubelet', host: 'node-a' },
      firstTimestamp: '2024-01-15T10:00:00Z',
      lastTimestamp: '2024-01-15T10:00:00Z',
      count: 1,
      type: 'Normal',
    });
    // Two events within one millisecond still get distinct names.
    assert.equal(second!.body.metadata.name, `node-a.${(nanos + 1n).toString(16)}`);
  });

  it('passes a burst, drops beyond it, and refills at qps', async () => {
    const clock = new FakeClock();
    const fake = new FakeSink();
    const rec = new EventRecorder({ client: fake.sink, host: 'n', qps: 2, burst: 3, clock });
    const results = Array.from({ length: 6 }, (_, i) => rec.record(nodeReference('n'), 'Normal', 'R', `m${i}`));
    assert.deepEqual(results, [true, true, true, false, false, false]);
    assert.equal(rec.dropped, 3);
    clock.advance(500);
    assert.deepEqual(
      [rec.record(nodeReference('n'), 'Normal', 'R', 'a'), rec.record(nodeReference('n'), 'Normal', 'R', 'b')],
      [true, false],
    );
    await rec.flush();
    assert.deepEqual(
      fake.created.map((c) => c.body.message),
      ['m0', 'm1', 'm2', 'a'],
    );
  });

  it('treats eventRecordQPS 0 as unlimited', async () => {
    const fake = new FakeSink();
    const limits = eventRateLimits(setDefaults({ eventRecordQPS: 0 }));
    assert.deepEqual(limits, { qps: 0, burst: 10 });
    const rec = new EventRecorder({ client: fake.sink, host: 'n', ...limits });
    for (let i = 0; i < 50; i++) assert.equal(rec.record(nodeReference('n'), 'Warning', 'R', `m${i}`), true);
    await rec.flush();
    assert.equal(fake.created.length, 50);
    assert.equal(rec.dropped, 0);
  });

  it('never blocks the caller: a hanging server fills the in-flight cap, then events drop', async () => {
    const fake = new FakeSink();
    fake.hang = true;
    const rec = new EventRecorder({ client: fake.sink, host: 'n', qps: 0, burst: 1, maxInFlight: 3 });
    const results = Array.from({ length: 5 }, () => rec.record(nodeReference('n'), 'Normal', 'R', 'x'));
    assert.deepEqual(results, [true, true, true, false, false]);
    fake.releaseAll();
    await rec.stop();
    assert.equal(rec.record(nodeReference('n'), 'Normal', 'R', 'late'), false);
  });

  it('counts failures without throwing', async () => {
    const fake = new FakeSink();
    fake.fail = true;
    const rec = new EventRecorder({ client: fake.sink, host: 'n', qps: 0, burst: 1 });
    assert.equal(rec.record(nodeReference('n'), 'Normal', 'R', 'x'), true);
    await rec.flush();
    assert.equal(rec.failed, 1);
  });

  it('createEventDirectly bypasses any limit and reports failure to the caller', async () => {
    const fake = new FakeSink();
    const now = new Date(Date.UTC(2024, 0, 15));
    const spec = {
      involvedObject: nodeReference('n'),
      type: 'Normal' as const,
      reason: 'KubeletConfigChanged',
      message: 'Kubelet restarting to use local config',
      host: 'n',
      now,
    };
    const ev = await createEventDirectly(fake.sink, spec);
    assert.equal(ev.reason, 'KubeletConfigChanged');
    assert.equal(ev.metadata.namespace, 'default');
    fake.fail = true;
    await assert.rejects(createEventDirectly(fake.sink, spec), /connection refused/);
  });

  it('builds events in the involved object namespace when it has one', () => {
    const ev = buildEvent({
      involvedObject: { kind: 'ConfigMap', name: 'c', namespace: 'kube-system' },
      type: 'Warning',
      reason: 'R',
      message: 'M',
      host: 'n',
      now: new Date(0),
    });
    assert.equal(ev.metadata.namespace, 'kube-system');
    assert.equal(ev.metadata.name, 'c.0');
  });
});

describe('kubeAPIRateLimiter', () => {
  it('uses kubeAPIQPS/kubeAPIBurst, with client-go defaults for zero', () => {
    const a = kubeAPIRateLimiter(setDefaults({ kubeAPIQPS: 50, kubeAPIBurst: 100 }));
    assert.deepEqual([a.qps, a.burst], [50, 100]);
    const b = kubeAPIRateLimiter(setDefaults({ kubeAPIQPS: 0 }));
    assert.deepEqual([b.qps, b.burst], [5, 10]);
  });
});

describe('heartbeatTimeoutMs', () => {
  it('is nodeStatusUpdateFrequency, capped at the lease duration', () => {
    assert.equal(heartbeatTimeoutMs(setDefaults({})), 10_000);
    assert.equal(
      heartbeatTimeoutMs(
        setDefaults({ nodeStatusUpdateFrequency: Duration.parse('1m'), nodeLeaseDurationSeconds: 40 }),
      ),
      40_000,
    );
    assert.equal(heartbeatTimeoutMs(setDefaults({ nodeStatusUpdateFrequency: Duration.parse('2s500ms') })), 2_500);
  });
});
