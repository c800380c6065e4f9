// The manager runs the enabled controllers only while it leads, and stops them the instant leadership ends.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RestClient } from '../../src/client/index.js';
import {
  ControllerManager,
  parseControllers,
  parseDurationFlag,
  parseLeaseName,
} from '../../src/controllers/manager.js';
import type { ControllerContext, ControllerFactory } from '../../src/controllers/types.js';
import { FakeClock } from '../helpers/fakeclock.js';
import { FakeLeases } from './fakeleases.js';

async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

async function elapse(clock: FakeClock, ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 100) {
    clock.advance(100);
    await flush();
  }
}

function recording(): { factory: ControllerFactory; contexts: ControllerContext[]; stops: number[] } {
  const rec = { contexts: [] as ControllerContext[], stops: [] as number[] } as ReturnType<typeof recording>;
  rec.factory = async (ctx) => {
    rec.contexts.push(ctx);
    return { stop: async () => void rec.stops.push(rec.contexts.indexOf(ctx)) };
  };
  return rec;
}

describe('controller manager', () => {
  it('starts the controllers on leading, aborts and stops them on losing it, and starts them again on re-election', async () => {
    const clock = new FakeClock();
    const api = new FakeLeases();
    const lifecycle = recording();
    const rollout = recording();
    const manager = new ControllerManager({
      client: api as unknown as RestClient,
      controllers: ['rollout', 'nodelifecycle'],
      nodeMonitorGracePeriodMs: 40_000,
      clock,
      identity: 'host_1',
      factories: { nodelifecycle: lifecycle.factory, rollout: rollout.factory },
    });
    manager.start();
    await flush();
    assert.equal(manager.isLeader, true);
    assert.equal(lifecycle.contexts.length, 1);
    assert.equal(rollout.contexts.length, 1);
    assert.equal(lifecycle.contexts[0]!.clock, clock);
    assert.equal(lifecycle.contexts[0]!.signal.aborted, false);

    api.down = true;
    await elapse(clock, 10_200);
    assert.equal(manager.isLeader, false);
    assert.equal(lifecycle.contexts[0]!.signal.aborted, true);
    assert.deepEqual([lifecycle.stops, rollout.stops], [[0], [0]]);

    api.down = false;
    await elapse(clock, 3_000);
    assert.equal(lifecycle.contexts.length, 2, 'started again as leader');

    await manager.stop();
    assert.deepEqual(lifecycle.stops, [0, 1]);
    assert.equal(api.lease('dkc-controller')?.spec?.holderIdentity, '', 'released after the controllers stopped');
  });

  it('retries a controller that fails to start, with backoff, until it starts or leadership ends', async () => {
    const clock = new FakeClock();
    const api = new FakeLeases();
    let attempts = 0;
    const flaky: ControllerFactory = async () => {
      if (++attempts < 3) throw new Error('the server could not find the requested resource');
      return { stop: async () => undefined };
    };
    const manager = new ControllerManager({
      client: api as unknown as RestClient,
      controllers: ['rollout'],
      nodeMonitorGracePeriodMs: 40_000,
      clock,
      factories: { rollout: flaky },
    });
    manager.start();
    await flush();
    assert.equal(attempts, 1);
    await elapse(clock, 1_000);
    assert.equal(attempts, 2, 'retried after about a second');
    await elapse(clock, 2_000);
    assert.equal(attempts, 3, 'then after about two');
    await elapse(clock, 10_000);
    assert.equal(attempts, 3, 'started: no more attempts');
    await manager.stop();
  });

  it("hands a controller with an identity of its own its client, and informers opened by that client, not the others'", async () => {
    const clock = new FakeClock();
    const api = new FakeLeases();
    const gcApi = new FakeLeases();
    const [rollout, lifecycle, gc] = [recording(), recording(), recording()];
    const manager = new ControllerManager({
      client: api as unknown as RestClient,
      clients: { garbagecollector: gcApi as unknown as RestClient },
      controllers: ['rollout', 'nodelifecycle', 'garbagecollector'],
      nodeMonitorGracePeriodMs: 40_000,
      clock,
      factories: { rollout: rollout.factory, nodelifecycle: lifecycle.factory, garbagecollector: gc.factory },
    });
    manager.start();
    await flush();
    const [r, l, g] = [rollout.contexts[0]!, lifecycle.contexts[0]!, gc.contexts[0]!];
    assert.equal(r.client, api);
    assert.equal(l.client, api);
    assert.equal(g.client, gcApi, 'the garbage collector acts as its own user');
    assert.equal(r.informers, l.informers, 'controllers of one identity share informers');
    assert.notEqual(g.informers, r.informers, "the garbage collector watches with its own rights, not the manager's");
    assert.equal(gcApi.lease('dkc-controller'), undefined, 'the election is the manager’s own');
    await manager.stop();
    assert.deepEqual([rollout.stops, lifecycle.stops, gc.stops], [[0], [0], [0]]);
  });

  it('does not campaign with no controller enabled', async () => {
    const clock = new FakeClock();
    const api = new FakeLeases();
    const manager = new ControllerManager({
      client: api as unknown as RestClient,
      controllers: [],
      nodeMonitorGracePeriodMs: 40_000,
      clock,
    });
    manager.start();
    await flush();
    assert.equal(api.lease('dkc-controller'), undefined);
    await manager.stop();
  });

  it('elects on the Lease it is given, so that managers of different controllers under different identities each lead', async () => {
    const clock = new FakeClock();
    const api = new FakeLeases();
    const gc = recording();
    const rollout = recording();
    const managers = [
      new ControllerManager({
        client: api as unknown as RestClient,
        controllers: ['rollout'],
        nodeMonitorGracePeriodMs: 40_000,
        clock,
        identity: 'rollout_1',
        factories: { rollout: rollout.factory },
      }),
      new ControllerManager({
        client: api as unknown as RestClient,
        controllers: ['garbagecollector'],
        nodeMonitorGracePeriodMs: 40_000,
        clock,
        identity: 'gc_1',
        leaseName: 'dkc-garbage-collector',
        factories: { garbagecollector: gc.factory },
      }),
    ];
    for (const m of managers) m.start();
    await flush();
    assert.deepEqual(
      managers.map((m) => m.isLeader),
      [true, true],
    );
    assert.equal(api.lease('dkc-controller')?.spec?.holderIdentity, 'rollout_1');
    assert.equal(api.lease('dkc-garbage-collector')?.spec?.holderIdentity, 'gc_1');
    assert.deepEqual([rollout.contexts.length, gc.contexts.length], [1, 1]);
    for (const m of managers) await m.stop();
  });

  it('parses its flags', () => {
    assert.equal(parseLeaseName('dkc-garbage-collector'), 'dkc-garbage-collector');
    assert.throws(() => parseLeaseName('GC_lease'), /invalid --leader-elect-resource-name "GC_lease": /);
    assert.deepEqual(parseControllers('rollout,nodelifecycle'), ['rollout', 'nodelifecycle']);
    assert.deepEqual(parseControllers(''), []);
    assert.throws(
      () => parseControllers('rollout,gc'),
      /unknown controller "gc" in --controllers \(known: rollout, nodelifecycle, tainteviction, scheduler, namespace, garbagecollector, disruption, replicaset, deployment, daemonset, statefulset\)/,
    );
    assert.equal(parseDurationFlag('--node-monitor-grace-period', '40s'), 40_000);
    assert.equal(parseDurationFlag('--node-monitor-grace-period', '1m30s'), 90_000);
    assert.throws(
      () => parseDurationFlag('--node-monitor-grace-period', 'soon'),
      /invalid --node-monitor-grace-period "soon"/,
    );
    assert.throws(() => parseDurationFlag('--node-monitor-grace-period', '0s'), /must be a positive duration/);
  });
});
