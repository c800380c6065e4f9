// The controller over an in-memory API with simulated agents: it drives a rollout to Succeeded within the strategy's
// bounds, reverts a bad config, survives being stopped between a node patch and the status write without patching
// any node twice, honours soak on its clock and only while the node heartbeats (its Lease), holds a node that is not
// Ready instead of changing it, pauses after the canary, and stops writing when its signal fires.

import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, NodeConfigSource } from '../../../src/api/types.js';
import { rolloutController } from '../../../src/controllers/rollout/index.js';
import { RolloutController } from '../../../src/controllers/rollout/controller.js';
import { RENDERED_NAMESPACE } from '../../../src/controllers/rollout/layers.js';
import {
  LEGACY_PREVIOUS_SOURCE_ANNOTATION,
  ROLLOUT_ANNOTATION,
  type NodeConfigRollout,
} from '../../../src/api/dkc/rollout.js';
import type { RestClient } from '../../../src/client/index.js';
import { systemClock } from '../../../src/util/clock.js';
import { FakeClock } from '../../helpers/fakeclock.js';
import { FakeApi } from './fakeapi.js';
import {
  NEW,
  OLD,
  OLD_ACTIVE,
  at,
  iso,
  lease,
  node,
  pinnedOf,
  rollout,
  switched,
  type SpecFields,
} from './fixtures.js';

const running: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of running.splice(0)) await c.stop();
});

const CM_NEW = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'new', namespace: 'kube-system', uid: 'cm-uid' },
  data: { kubelet: '{}' },
};

/** Agents that take any config but `bad`, which they refuse as the kubelet does (error set, previous config kept). */
function simulateAgents(api: FakeApi, bad: (src: NodeConfigSource) => boolean = () => false): void {
  api.onNodeChange = (n) => {
    const node = n as unknown as Node;
    const cm = node.spec?.configSource?.configMap;
    const assigned = node.status?.config?.assigned?.configMap;
    if ((cm?.name ?? null) === (assigned?.name ?? null)) return;
    setImmediate(() => {
      const current = api.read('nodes', node.metadata.name!) as unknown as Node;
      const stored = cm ? api.read('configmaps', `${cm.namespace}/${cm.name}`) : undefined;
      const src =
        cm && stored
          ? {
              configMap: {
                ...cm,
                uid: stored.metadata['uid'] as string,
                resourceVersion: stored.metadata.resourceVersion!,
              },
            }
          : undefined;
      let config: NonNullable<NonNullable<Node['status']>['config']>;
      if (!src) config = {};
      else if (bad(src))
        config = {
          assigned: src,
          active: current.status?.config?.active ?? null,
          error: 'failed to validate config, see Kubelet log for details',
        };
      else config = { assigned: src, active: src };
      api.put('nodes', { ...current, status: { ...current.status, config } } as never);
    });
  };
}

/** The node's agent renews its Lease at `when`. */
function beat(api: FakeApi, name: string, when: Date): void {
  api.put('leases', lease(name, when) as never);
}

/** `n` blue nodes and a green one, each with its Lease renewed at `renewed`, and rollout r1 with `spec`. */
function cluster(n: number, spec: SpecFields = {}, renewed = new Date()): FakeApi {
  const api = new FakeApi();
  api.put('configmaps', CM_NEW);
  // What the nodes ran before, which an undo puts them back on (they report it active once they run it).
  api.put('configmaps', { ...CM_NEW, metadata: { name: 'old', namespace: 'kube-system', uid: 'old-uid' } });
  for (let i = 1; i <= n; i++) api.put('nodes', node(`node-${i}`) as never);
  api.put('nodes', node('green-1', { labels: { pool: 'green' } }) as never);
  for (let i = 1; i <= n; i++) beat(api, `node-${i}`, renewed);
  beat(api, 'green-1', renewed);
  const r = rollout(spec);
  delete r.metadata.resourceVersion;
  api.put('rollouts', r as never);
  return api;
}

const phaseOf = (api: FakeApi): string | undefined =>
  (api.read('rollouts', 'r1') as NodeConfigRollout | undefined)?.status?.phase;

async function start(api: FakeApi, clock = systemClock): Promise<RolloutController> {
  const ac = new AbortController();
  const c = new RolloutController({ client: api, clock, signal: ac.signal, retryInitialMs: 5 });
  running.push(c);
  await c.start();
  return c;
}

const readySince = (api: FakeApi, name = 'node-1'): string | undefined =>
  (api.read('rollouts', 'r1') as NodeConfigRollout).status?.nodes?.[name]?.readySince;

/** Moves `clock` on to `seconds` (from T0) in steps of at most 10 s, node-1 renewing its Lease after each, as an agent does. */
async function heartbeatsUntil(api: FakeApi, clock: FakeClock, seconds: number): Promise<void> {
  while (clock.now().getTime() < at(seconds).getTime()) {
    clock.advance(Math.min(10_000, at(seconds).getTime() - clock.now().getTime()));
    beat(api, 'node-1', clock.now());
    await settle();
  }
}

/** Lets whatever a timer set off run to its end (informer deliveries and the worker's step are a few turns each). */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

/** The most nodes in flight in any status the controller wrote. */
function maxInFlight(api: FakeApi): number {
  let max = 0;
  for (const w of api.writes) {
    if (!w.path.endsWith('/status')) continue;
    const nodes = (w.body as NodeConfigRollout).status?.nodes ?? {};
    max = Math.max(max, Object.values(nodes).filter((p) => p.state === 'InFlight').length);
  }
  return max;
}

const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
const LAYERS = [
  { configMap: { namespace: 'default', name: 'base', kubeletConfigKey: 'kubelet' } },
  { configMap: { namespace: 'default', name: 'pool', kubeletConfigKey: 'kubelet' } },
];
const layer = (name: string, text: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', uid: `${name}-uid` },
  data: { kubelet: HEADER + text },
});
const renderedCreates = (api: FakeApi) =>
  api.writes.filter((w) => w.method === 'POST' && w.path === '/api/v1/namespaces/dkc-configs/configmaps');

describe('RolloutController with layers', () => {
  it('renders the layers into one ConfigMap, rolls it out and records it', async () => {
    const api = cluster(2, { configSource: undefined, layers: LAYERS });
    api.put('configmaps', layer('base', 'maxPods: 50\n'));
    api.put('configmaps', layer('pool', 'maxPods: 80\n'));
    simulateAgents(api);
    await start(api);
    await api.waitFor(() => phaseOf(api) === 'Succeeded', 'Succeeded');
    const r = api.read('rollouts', 'r1') as NodeConfigRollout;
    const name = r.status?.renderedConfigMap ?? '';
    assert.match(name, /^r1-[0-9a-z]{10}$/);
    assert.equal(renderedCreates(api).length, 1);
    const cm = api.read('configmaps', `dkc-configs/${name}`)!;
    assert.equal(cm['immutable'], true);
    assert.match((cm['data'] as Record<string, string>)['kubelet'] ?? '', /maxPods: 80/);
    for (const n of ['node-1', 'node-2']) {
      assert.deepEqual((api.read('nodes', n) as unknown as Node).spec?.configSource, {
        configMap: { namespace: 'dkc-configs', name, kubeletConfigKey: 'kubelet' },
      });
    }
  });

  it("renders as the selected nodes' kubelet minor: a field newer than 1.22 reaches 1.32 nodes", async () => {
    const api = cluster(2, { configSource: undefined, layers: LAYERS });
    for (const n of ['node-1', 'node-2']) {
      const current = api.read('nodes', n) as unknown as Node;
      api.put('nodes', { ...current, status: { ...current.status, nodeInfo: { kubeletVersion: 'v1.32.4' } } } as never);
    }
    api.put('configmaps', layer('base', 'maxPods: 50\n'));
    api.put('configmaps', layer('pool', 'singleProcessOOMKill: true\n'));
    simulateAgents(api);
    await start(api);
    await api.waitFor(() => phaseOf(api) === 'Succeeded', 'Succeeded');
    const name = (api.read('rollouts', 'r1') as NodeConfigRollout).status?.renderedConfigMap ?? '';
    const text = (api.read('configmaps', `dkc-configs/${name}`)!['data'] as Record<string, string>)['kubelet'] ?? '';
    assert.match(text, /^singleProcessOOMKill: true$/m);
    assert.doesNotMatch(text, /eventRecordQPS/, 'no default of any minor is written');
  });

  it('a missing layer halts the rollout with LayerNotFound and changes no node', async () => {
    const api = cluster(2, { configSource: undefined, layers: LAYERS });
    api.put('configmaps', layer('base', 'maxPods: 50\n'));
    await start(api);
    await api.waitFor(() => phaseOf(api) === 'Halted', 'Halted');
    const r = api.read('rollouts', 'r1') as NodeConfigRollout;
    const failed = r.status?.conditions?.find((c) => c.type === 'Failed');
    assert.equal(failed?.reason, 'LayerNotFound');
    assert.equal(failed?.message, 'layer ConfigMap default/pool not found: the layers cannot be rendered');
    assert.equal(api.nodePatches('node-1').length + api.nodePatches('node-2').length, 0);
    assert.equal(renderedCreates(api).length, 0);
  });

  it('a status naming a ConfigMap it did not render as the rendered one (written by someone else) halts the rollout and assigns it to no node', async () => {
    const api = cluster(2, { configSource: undefined, layers: LAYERS });
    api.put('configmaps', layer('base', 'maxPods: 50\n'));
    api.put('configmaps', layer('pool', 'maxPods: 80\n'));
    api.put('configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'coredns', namespace: RENDERED_NAMESPACE, uid: 'coredns-uid' },
      data: { kubelet: HEADER + 'authentication: {anonymous: {enabled: true}}\n' },
    });
    const r = api.read('rollouts', 'r1') as NodeConfigRollout;
    api.put('rollouts', {
      ...r,
      status: { phase: 'Progressing', startTime: iso(0), renderedConfigMap: 'coredns' },
    } as never);
    simulateAgents(api);
    await start(api);
    await api.waitFor(() => phaseOf(api) === 'Halted', 'Halted');
    const failed = (api.read('rollouts', 'r1') as NodeConfigRollout).status?.conditions?.find(
      (c) => c.type === 'Failed',
    );
    assert.equal(failed?.reason, 'RenderedConfigMapNotVerified');
    assert.equal(api.nodePatches('node-1').length + api.nodePatches('node-2').length, 0);
  });
});

describe('RolloutController', () => {
  it('a node that names another unfinished rollout in its dkc.io/rollout (as a node may write it) halts nothing', async () => {
    const api = cluster(2);
    const hold = rollout({ nodeSelector: { matchLabels: { pool: 'green' } }, paused: true }, undefined, {
      name: 'r-hold',
      creationTimestamp: iso(0),
    });
    delete hold.metadata.resourceVersion;
    api.put('rollouts', hold as never);
    const n1 = api.read('nodes', 'node-1') as unknown as Node;
    api.put('nodes', { ...n1, metadata: { ...n1.metadata, annotations: { [ROLLOUT_ANNOTATION]: 'r-hold' } } });
    simulateAgents(api);
    await start(api);
    await api.waitFor(() => phaseOf(api) === 'Succeeded', 'Succeeded');
    for (const n of ['node-1', 'node-2'])
      assert.deepEqual(
        (api.read('nodes', n) as unknown as Node).spec?.configSource,
        pinnedOf(api.read('rollouts', 'r1')),
        `${n} on the new config`,
      );
  });

  it('drives a good config to Succeeded: each selected node patched once, within maxUnavailable, others untouched', async () => {
    const api = cluster(5, { strategy: { canary: 1, maxUnavailable: 2 } });
    simulateAgents(api);
    await start(api);
    await api.waitFor(() => phaseOf(api) === 'Succeeded', 'Succeeded');
    for (let i = 1; i <= 5; i++) {
      assert.equal(api.nodePatches(`node-${i}`).length, 1, `node-${i} patched once`);
      const n = api.read('nodes', `node-${i}`) as unknown as Node;
      assert.deepEqual(n.spec?.configSource, pinnedOf(api.read('rollouts', 'r1')));
      assert.equal(n.metadata.annotations?.[ROLLOUT_ANNOTATION], 'r1');
      assert.equal(n.metadata.annotations?.[LEGACY_PREVIOUS_SOURCE_ANNOTATION], undefined);
    }
    assert.equal(api.nodePatches('green-1').length, 0);
    assert.ok(maxInFlight(api) <= 2, `at most 2 in flight, saw ${maxInFlight(api)}`);
    const r = api.read('rollouts', 'r1') as NodeConfigRollout;
    assert.deepEqual(
      [r.status?.targetNodes, r.status?.updatedNodes, r.status?.succeededNodes, r.status?.failedNodes],
      [5, 5, 5, 0],
    );
    for (let i = 1; i <= 5; i++)
      assert.deepEqual(
        r.status?.nodes?.[`node-${i}`]?.previous,
        { configSource: OLD },
        `node-${i}: what it ran, in the status`,
      );
    await api.waitFor(() => api.events.some((e) => e['reason'] === 'RolloutSucceeded'), 'the RolloutSucceeded event');
    const reasons = new Set(api.events.map((e) => e['reason']));
    for (const want of ['RolloutStarted', 'BatchStarted', 'NodeSucceeded', 'RolloutSucceeded'])
      assert.ok(reasons.has(want), `event ${want}`);
    const ev = api.events[0]!;
    assert.deepEqual(ev['involvedObject'], {
      kind: 'NodeConfigRollout',
      apiVersion: 'dkc.io/v1alpha1',
      name: 'r1',
      uid: 'r1-uid',
      resourceVersion: (ev['involvedObject'] as { resourceVersion: string }).resourceVersion,
    });
    assert.equal((ev['source'] as { component: string }).component, 'dkc-rollout-controller');
    assert.equal(ev.metadata.namespace, 'default');
  });

  it('reverts a config the canary refuses: the canary is back on its exact previous source, no other node touched', async () => {
    const api = cluster(3);
    simulateAgents(api, (src) => src.configMap?.name !== 'old');
    await start(api);
    await api.waitFor(() => phaseOf(api) === 'Reverted', 'Reverted');
    const canary = api.read('nodes', 'node-1') as unknown as Node;
    assert.deepEqual(canary.spec?.configSource, OLD);
    assert.equal(canary.metadata.annotations?.[ROLLOUT_ANNOTATION], undefined);
    assert.equal(canary.metadata.annotations?.[LEGACY_PREVIOUS_SOURCE_ANNOTATION], undefined);
    assert.equal(api.nodePatches('node-1').length, 2);
    assert.equal(api.nodePatches('node-2').length, 0);
    const r = api.read('rollouts', 'r1') as NodeConfigRollout;
    assert.deepEqual(
      r.status?.failures?.map((f) => [f.node, f.reason]),
      [['node-1', 'ConfigError']],
    );
  });

  it('stopped between a node patch and the status write, the next controller carries on without patching that node again', async () => {
    const api = cluster(3, { strategy: { canary: 1, maxUnavailable: 1 } });
    simulateAgents(api);
    // The first status write that would record node-2 in flight never lands: the controller is stopped there.
    let held: (() => void) | undefined;
    const reached = new Promise<void>((resolve) => {
      api.beforeWrite = (w) => {
        const nodes = (w.body as NodeConfigRollout | undefined)?.status?.nodes;
        if (w.path.endsWith('/status') && nodes?.['node-2']?.state === 'InFlight' && held === undefined) {
          resolve();
          return new Promise<void>((r) => (held = r));
        }
        return undefined;
      };
    });
    const first = await start(api);
    await reached;
    assert.equal(api.nodePatches('node-2').length, 1);
    const stopping = first.stop();
    held!();
    await stopping;
    api.beforeWrite = () => undefined;
    await start(api);
    await api.waitFor(() => phaseOf(api) === 'Succeeded', 'Succeeded after the restart');
    for (const n of ['node-1', 'node-2', 'node-3']) assert.equal(api.nodePatches(n).length, 1, `${n} patched once`);
  });

  it('pins what it rolls out: an immutable copy of the ConfigMap, so an edit of the source in place changes no node', async () => {
    const api = cluster(2, { strategy: { canary: 1, maxUnavailable: 1 } });
    simulateAgents(api);
    await start(api);
    await api.waitFor(() => phaseOf(api) === 'Succeeded', 'Succeeded');
    const pinned = pinnedOf(api.read('rollouts', 'r1'));
    const copy = api.read('configmaps', `${RENDERED_NAMESPACE}/${pinned.configMap!.name}`)!;
    assert.equal(copy['immutable'], true);
    assert.deepEqual(copy['data'], CM_NEW.data);
    assert.deepEqual(
      (copy.metadata['ownerReferences'] as { kind: string; name: string }[]).map((o) => [o.kind, o.name]),
      [['NodeConfigRollout', 'r1']],
    );
    const patches = api.writes.length;
    api.put('configmaps', { ...CM_NEW, data: { kubelet: '{"maxPods": 7}' } });
    await settle();
    await new Promise((r) => setTimeout(r, 50));
    for (const n of ['node-1', 'node-2'])
      assert.deepEqual((api.read('nodes', n) as unknown as Node).spec?.configSource, pinned, `${n} still on the copy`);
    assert.deepEqual(api.read('configmaps', `${RENDERED_NAMESPACE}/${pinned.configMap!.name}`)!['data'], CM_NEW.data);
    const written = api.writes.slice(patches).filter((w) => !w.path.endsWith('/events'));
    assert.deepEqual(written, [], 'nothing written: the rollout is done, its nodes on what it rolled out');
    assert.equal(phaseOf(api), 'Succeeded');
  });

  it('a status naming a ConfigMap it did not pin as its copy (written by someone else) halts the rollout and assigns it to no node', async () => {
    const api = cluster(2, { strategy: { canary: 1, maxUnavailable: 1 } });
    // Anyone who may write ConfigMaps in the copies' namespace could make this one: mutable, owned by nobody.
    api.put('configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'r1-forged', namespace: RENDERED_NAMESPACE, uid: 'forged-uid' },
      data: { kubelet: HEADER + 'authentication: {anonymous: {enabled: true}}\n' },
    });
    const r = api.read('rollouts', 'r1') as NodeConfigRollout;
    api.put('rollouts', {
      ...r,
      status: { phase: 'Progressing', startTime: iso(0), renderedConfigMap: 'r1-forged' },
    } as never);
    simulateAgents(api);
    await start(api);
    await api.waitFor(() => phaseOf(api) === 'Halted', 'Halted');
    const failed = (api.read('rollouts', 'r1') as NodeConfigRollout).status?.conditions?.find(
      (c) => c.type === 'Failed',
    );
    assert.equal(failed?.reason, 'RenderedConfigMapNotVerified');
    assert.equal(api.nodePatches('node-1').length + api.nodePatches('node-2').length, 0);
  });

  it('a Succeeded rollout notices a node that fell back: Degraded, counted and named, and again when it is back', async () => {
    const api = cluster(2, { strategy: { canary: 1, maxUnavailable: 1 } });
    simulateAgents(api);
    await start(api);
    await api.waitFor(() => phaseOf(api) === 'Succeeded', 'Succeeded');
    // Until the looks its own writes prompted are over: only the node's change may prompt the next.
    const quiet = (): Promise<void> => new Promise((r) => setTimeout(r, 100));
    await quiet();
    const rolloutNow = (): NodeConfigRollout => api.read('rollouts', 'r1') as NodeConfigRollout;
    const running = api.read('nodes', 'node-2') as unknown as Node;
    // The node's agent rolled back to what it ran before (its status says so); its spec still names the rollout's copy.
    api.put('nodes', {
      ...running,
      status: { ...running.status, config: { ...running.status!.config, active: OLD_ACTIVE } },
    } as never);
    await api.waitFor(() => rolloutNow().status?.degradedNodes === 1, 'the rollout Degraded');
    assert.deepEqual(
      rolloutNow().status?.degraded?.map((d) => [d.node, d.reason]),
      [['node-2', 'NotActive']],
    );
    await api.waitFor(() => api.events.some((e) => e['reason'] === 'NodesDegraded'), 'the NodesDegraded event');
    await quiet();
    api.put('nodes', running as never);
    await api.waitFor(() => rolloutNow().status?.degradedNodes === 0, 'the rollout whole again');
    assert.equal(rolloutNow().status?.conditions?.find((c) => c.type === 'Degraded')?.status, 'False');
  });

  it('a node counts as succeeded after soakSeconds on the controller’s clock: at the end when it renewed in the last renewal interval, else at its next heartbeat', async () => {
    const clock = new FakeClock(Date.parse(iso(0)));
    const api = cluster(1, { strategy: { canary: 1, soakSeconds: 30 } }, at(0));
    simulateAgents(api);
    await start(api, clock);
    await api.waitFor(() => readySince(api) !== undefined, 'the soak to start');
    assert.equal(phaseOf(api), 'Progressing');
    await heartbeatsUntil(api, clock, 19);
    assert.equal(phaseOf(api), 'Progressing');
    clock.advance(11_000); // t=30: the last renewal (t=19) is older than one renewal interval (10 s of 40 s)
    await settle();
    assert.equal(phaseOf(api), 'Progressing', 'the soak is over, but no heartbeat has come in its last 10 s');
    beat(api, 'node-1', clock.now());
    await api.waitFor(() => phaseOf(api) === 'Succeeded', 'Succeeded at the first heartbeat after the soak');
  });

  it('a soak ends at its end on the controller’s timer, not at the next renewal', async () => {
    const clock = new FakeClock(Date.parse(iso(0)));
    const api = cluster(1, { strategy: { canary: 1, soakSeconds: 30 } }, at(0));
    simulateAgents(api);
    await start(api, clock);
    await api.waitFor(() => readySince(api) !== undefined, 'the soak to start');
    await heartbeatsUntil(api, clock, 25);
    clock.advance(5_000); // t=30, no renewal since t=25
    await api.waitFor(() => phaseOf(api) === 'Succeeded', 'Succeeded at the soak’s end');
  });

  it('a lapse of the heartbeat restarts the soak (Ready=True all along)', async () => {
    const clock = new FakeClock(Date.parse(iso(0)));
    const api = cluster(1, { strategy: { canary: 1, soakSeconds: 30 } }, at(0));
    simulateAgents(api);
    await start(api, clock);
    await api.waitFor(() => readySince(api) === iso(0), 'the soak to start');
    await heartbeatsUntil(api, clock, 10);
    clock.advance(21_000); // t=31: the last renewal (t=10) is more than 20 s (half the Lease's 40 s) old
    await api.waitFor(() => readySince(api) === undefined, 'the soak to stop');
    assert.equal(phaseOf(api), 'Progressing');
    beat(api, 'node-1', clock.now());
    await api.waitFor(() => readySince(api) === iso(31), 'the soak to start again');
    await heartbeatsUntil(api, clock, 60);
    assert.equal(phaseOf(api), 'Progressing', '29 s into the new soak');
    await heartbeatsUntil(api, clock, 61);
    await api.waitFor(() => phaseOf(api) === 'Succeeded', 'Succeeded 30 s after the heartbeat came back');
  });

  it('a frozen agent (Lease no longer renewed, Ready still True) never passes its soak: NotReady at the deadline, reverted', async () => {
    const clock = new FakeClock(Date.parse(iso(0)));
    const api = cluster(2, { strategy: { canary: 1, soakSeconds: 15 }, progressDeadlineSeconds: 60 }, at(0));
    simulateAgents(api);
    await start(api, clock);
    await api.waitFor(() => readySince(api) === iso(0), 'the soak to start');
    clock.advance(16_000);
    await settle();
    assert.equal(phaseOf(api), 'Progressing', 'no heartbeat since the soak began: not succeeded');
    clock.advance(45_000);
    await api.waitFor(() => phaseOf(api) === 'Reverted', 'Reverted at the deadline');
    const r = api.read('rollouts', 'r1') as NodeConfigRollout;
    assert.deepEqual(r.status?.failures, [
      {
        node: 'node-1',
        reason: 'NotReady',
        message: `node stopped heartbeating after the change (its Lease was last renewed at ${at(0).toISOString()})`,
      },
    ]);
    assert.equal((api.read('nodes', 'node-1') as unknown as Node).status?.conditions?.[0]?.status, 'True');
    assert.deepEqual((api.read('nodes', 'node-1') as unknown as Node).spec?.configSource, OLD);
    assert.equal(api.nodePatches('node-2').length, 0);
  });

  it('a soak recorded before the controller started counts for nothing: it starts again', async () => {
    const clock = new FakeClock(Date.parse(iso(0)));
    const api = cluster(1, { strategy: { canary: 1, soakSeconds: 30 } }, at(0));
    // The last leader changed node-1 and saw it healthy from t=-100 (a soak over at t=-70), then stopped.
    const cm = api.read('configmaps', 'kube-system/new')!;
    const active = { configMap: { ...NEW.configMap!, uid: 'cm-uid', resourceVersion: cm.metadata.resourceVersion! } };
    api.put('nodes', switched('node-1', { active, readyTransition: iso(-120) }) as never);
    const r = api.read('rollouts', 'r1') as NodeConfigRollout;
    const status = {
      phase: 'Progressing' as const,
      startTime: iso(-110),
      currentBatch: 0,
      nodes: { 'node-1': { state: 'InFlight' as const, batch: 0, updatedAt: iso(-110), readySince: iso(-100) } },
    };
    api.put('rollouts', { ...r, status } as never);
    simulateAgents(api);
    await start(api, clock);
    await api.waitFor(() => readySince(api) === iso(0), 'the soak to start again at the controller’s start');
    assert.equal(phaseOf(api), 'Progressing');
    await heartbeatsUntil(api, clock, 29);
    assert.equal(phaseOf(api), 'Progressing');
    await heartbeatsUntil(api, clock, 30);
    await api.waitFor(() => phaseOf(api) === 'Succeeded', 'Succeeded 30 s after the controller started');
  });

  it('a node that was never Ready is held, unchanged and waiting; the others go on; the rollout finishes once it leaves', async () => {
    const api = cluster(3, { strategy: { canary: 1, maxUnavailable: 2 } });
    // A Node object with no agent: no Ready condition, no Lease. By name it would be the canary.
    const ghost = node('ghost');
    delete ghost.status;
    api.put('nodes', ghost as never);
    simulateAgents(api);
    await start(api);
    const status = (): NodeConfigRollout['status'] => (api.read('rollouts', 'r1') as NodeConfigRollout).status;
    await api.waitFor(
      () => ['node-1', 'node-2', 'node-3'].every((n) => status()?.nodes?.[n]?.state === 'Succeeded'),
      'the three healthy nodes to succeed',
    );
    await settle();
    const s = status()!;
    assert.equal(s.phase, 'Progressing');
    assert.deepEqual([s.targetNodes, s.succeededNodes, s.failedNodes, s.waitingNodes], [4, 3, 0, 1]);
    assert.deepEqual(s.nodes?.['ghost'], {
      state: 'Pending',
      waitingReason: 'NotReady',
      waitingSince: s.nodes?.['ghost']?.waitingSince,
    });
    assert.equal(api.nodePatches('ghost').length, 0);
    assert.ok(maxInFlight(api) <= 1, 'the waiting node takes one of the two places maxUnavailable allows');
    const reasons = api.events.map((e) => e['reason']);
    assert.ok(reasons.includes('NodeWaiting'));
    assert.ok(!reasons.includes('NodeFailed'));
    api.put('nodes', {
      ...api.read('nodes', 'ghost')!,
      metadata: { ...api.read('nodes', 'ghost')!.metadata, labels: {} },
    });
    await api.waitFor(() => phaseOf(api) === 'Succeeded', 'Succeeded once the waiting node left the selector');
    assert.deepEqual([status()?.targetNodes, status()?.succeededNodes, status()?.waitingNodes], [3, 3, 0]);
    assert.equal(api.nodePatches('ghost').length, 0);
  });

  /**
   * A rollout of 20 nodes at once whose every status write takes 100 ms of `clock` (and every node write
   * `nodeWriteMs`): its first look writes its status twice (what the nodes run, then the batch in flight), so its looks
   * are batched by 800 ms.
   */
  async function batchedRollout(
    clock: FakeClock,
    nodeWriteMs = 0,
  ): Promise<{ api: FakeApi; statusWrites: () => number }> {
    const api = cluster(20, { strategy: { canary: 0, maxUnavailable: 20, soakSeconds: 0 } }, clock.now());
    api.beforeWrite = (w) => {
      if (w.path.endsWith('/status')) clock.advance(100);
      else if (w.path.startsWith('/api/v1/nodes/')) clock.advance(nodeWriteMs);
    };
    simulateAgents(api);
    await start(api, clock);
    const statusWrites = (): number => api.writes.filter((w) => w.path.endsWith('/status')).length;
    await api.waitFor(() => statusWrites() > 1, 'the first look');
    await settle();
    return { api, statusWrites };
  }

  it('looks again after node changes only once the batch period (4× the last look) has passed', async () => {
    const clock = new FakeClock(Date.parse(iso(0)));
    const { api, statusWrites } = await batchedRollout(clock);
    assert.equal(statusWrites(), 2, 'the agents answered within the batch period: no second look yet');
    assert.equal(phaseOf(api), 'Progressing');
    clock.advance(799);
    await settle();
    assert.equal(statusWrites(), 2);
    clock.advance(1);
    await api.waitFor(() => phaseOf(api) === 'Succeeded', 'Succeeded once the batch period passed');
  });

  it('does not count the time of the node assignments a look writes towards the batch period', async () => {
    const clock = new FakeClock(Date.parse(iso(0)));
    const { api, statusWrites } = await batchedRollout(clock, 50);
    assert.equal(statusWrites(), 2, 'no second look yet');
    clock.advance(799); // the look took 1,200 ms, 1,000 of them the 20 node writes: the period is 4 × 200 ms
    await settle();
    assert.equal(statusWrites(), 2);
    clock.advance(1);
    await api.waitFor(() => phaseOf(api) === 'Succeeded', 'Succeeded once the batch period passed');
  });

  it('looks at a user’s change of the rollout at once, within the batch period', async () => {
    const clock = new FakeClock(Date.parse(iso(0)));
    const { api, statusWrites } = await batchedRollout(clock);
    const r = api.read('rollouts', 'r1') as NodeConfigRollout;
    api.put('rollouts', { ...r, metadata: { ...r.metadata, generation: 2 }, spec: { ...r.spec, paused: true } });
    await api.waitFor(() => statusWrites() > 2, 'a look without the clock moving');
  });

  it('pauseAfterCanary pauses through spec.paused once; resuming carries on', async () => {
    const api = cluster(2, { strategy: { canary: 1, pauseAfterCanary: true } });
    simulateAgents(api);
    await start(api);
    await api.waitFor(() => phaseOf(api) === 'Paused', 'Paused after the canary');
    const paused = api.read('rollouts', 'r1') as NodeConfigRollout;
    assert.equal(paused.spec?.paused, true);
    assert.equal(api.nodePatches('node-2').length, 0);
    api.put('rollouts', { ...paused, spec: { ...paused.spec, paused: false } } as never);
    await api.waitFor(() => phaseOf(api) === 'Succeeded', 'Succeeded after resume');
    assert.equal(api.nodePatches('node-2').length, 1);
  });

  it('the factory stops on its signal: no write after the abort', async () => {
    const api = cluster(3);
    // No agents: the canary stays in flight, so the controller would keep working if it did not stop.
    const ac = new AbortController();
    const handle = await rolloutController({
      client: api as unknown as RestClient,
      clock: systemClock,
      signal: ac.signal,
    });
    running.push(handle);
    await api.waitFor(() => api.nodePatches('node-1').length === 1, 'the canary patch');
    ac.abort();
    await handle.stop();
    const writes = api.writes.length;
    api.put('nodes', {
      ...(api.read('nodes', 'node-1') as object),
      status: { config: { active: OLD_ACTIVE } },
    } as never);
    await new Promise((r) => setImmediate(r));
    assert.equal(api.writes.length, writes);
  });
});

describe('RolloutController and deletions', () => {
  const rolloutOf = (api: FakeApi): NodeConfigRollout | undefined => api.read('rollouts', 'r1');
  const nodeOf = (api: FakeApi, name: string): Node => api.read('nodes', name) as unknown as Node;

  it('adds its finalizer before it changes a node; a rollout deleted mid-flight is undone, then goes', async () => {
    const api = cluster(3);
    const r = rolloutOf(api)!;
    api.put('rollouts', { ...r, metadata: { ...r.metadata, finalizers: [] } });
    // No agents: the canary stays in flight.
    await start(api);
    await api.waitFor(() => api.nodePatches('node-1').length === 1, 'the canary patch');
    const first = api.writes.findIndex((w) => w.method === 'PATCH' && w.path.endsWith('/nodeconfigrollouts/r1'));
    const canary = api.writes.findIndex((w) => w.path === '/api/v1/nodes/node-1');
    assert.ok(first >= 0 && first < canary, 'the finalizer went on before the canary changed');
    api.delete('rollouts', 'r1', iso(1));
    await api.waitFor(() => rolloutOf(api) === undefined, 'the rollout gone');
    assert.deepEqual(nodeOf(api, 'node-1').spec?.configSource, OLD);
    assert.equal(nodeOf(api, 'node-1').metadata.annotations?.[ROLLOUT_ANNOTATION], undefined);
    assert.equal(api.nodePatches('node-2').length, 0);
    await api.waitFor(() => api.events.some((e) => e['reason'] === 'RolloutReverted'), 'the RolloutReverted event');
  });

  it('a finished rollout deleted leaves its nodes on its config and lets go of them, then goes', async () => {
    const api = cluster(2, { strategy: { canary: 1, maxUnavailable: 2 } });
    simulateAgents(api);
    await start(api);
    await api.waitFor(() => phaseOf(api) === 'Succeeded', 'Succeeded');
    const pinned = pinnedOf(rolloutOf(api));
    api.delete('rollouts', 'r1', iso(1));
    await api.waitFor(() => rolloutOf(api) === undefined, 'the rollout gone');
    for (const n of ['node-1', 'node-2']) {
      assert.deepEqual(nodeOf(api, n).spec?.configSource, pinned);
      assert.equal(nodeOf(api, n).metadata.annotations?.[ROLLOUT_ANNOTATION], undefined, `${n} no longer held`);
    }
    await api.waitFor(() => api.events.some((e) => e['reason'] === 'NodesReleased'), 'the NodesReleased event');
  });

  it('a node deleted in flight is recorded Deleted with a NodeDeleted event; the others finish', async () => {
    const api = cluster(3, { strategy: { canary: 1, maxUnavailable: 1 } });
    // node-2 never takes its config: it stays in flight until it is deleted.
    simulateAgents(api);
    const agents = api.onNodeChange;
    api.onNodeChange = (n) => {
      if (n.metadata.name !== 'node-2') agents(n);
    };
    await start(api);
    await api.waitFor(() => rolloutOf(api)?.status?.nodes?.['node-2']?.state === 'InFlight', 'node-2 in flight');
    api.remove('nodes', 'node-2');
    await api.waitFor(() => phaseOf(api) === 'Succeeded', 'Succeeded');
    const s = rolloutOf(api)!.status!;
    assert.equal(s.nodes?.['node-2']?.state, 'Deleted');
    assert.deepEqual([s.targetNodes, s.succeededNodes, s.failedNodes], [3, 2, 0]);
    await api.waitFor(
      () => api.events.some((e) => e['reason'] === 'NodeDeleted' && /node-2/.test(String(e['message']))),
      'the NodeDeleted event',
    );
  });
});
