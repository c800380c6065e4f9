// The rollout controller on the NodeConfig channel (an API server from 1.24 on, which drops the Node's fields): it
// assigns by writing each node's NodeConfig (creating it, owned by the Node, when there is none), reads status.config
// from it, never writes a Node, and keeps health, batches, the revert record and undo as on the Node channel. The
// channel is found once at start, and a cluster whose assignments live on both channels is refused.

import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { NodeConfig } from '../../../src/api/dkc/nodeconfig.js';
import type { Node, NodeConfigSource } from '../../../src/api/types.js';
import type { RestClient } from '../../../src/client/index.js';
import { assignmentView, createdNodeConfig } from '../../../src/controllers/rollout/assignment.js';
import { RolloutController } from '../../../src/controllers/rollout/controller.js';
import { findChannel } from '../../../src/controllers/rollout/findchannel.js';
import { rolloutControllerOn } from '../../../src/controllers/rollout/index.js';
import { ROLLOUT_ANNOTATION, type NodeConfigRollout, type RolloutSpec } from '../../../src/api/dkc/rollout.js';
import { systemClock } from '../../../src/util/clock.js';
import { FakeApi } from './fakeapi.js';
import { NEW, OLD, OLD_ACTIVE, lease, node, pinnedOf, rollout } from './fixtures.js';

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
const V131 = { major: '1', minor: '31', gitVersion: 'v1.31.0' };

/** A node as kube-apiserver 1.31 keeps it: no spec.configSource, no status.config. */
function modernNode(name: string, labels: Record<string, string> = { pool: 'blue' }): Node {
  const n = node(name, { labels, source: null, active: null });
  n.metadata.uid = `${name}-uid`;
  delete n.status!.config;
  return n;
}

function nodeConfig(
  name: string,
  source: NodeConfigSource | null,
  active: NodeConfigSource | null,
  annotations?: Record<string, string>,
): NodeConfig {
  return {
    apiVersion: 'dkc.io/v1alpha1',
    kind: 'NodeConfig',
    metadata: {
      name,
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid: `${name}-uid` }],
      ...(annotations ? { annotations } : {}),
    },
    spec: source ? { configSource: source } : {},
    status: active ? { config: { assigned: active, active } } : {},
  };
}

/** Agents on the NodeConfig channel: each reports on its NodeConfig's status what it runs; `bad` configs are refused. */
function simulateAgents(api: FakeApi, bad: (src: NodeConfigSource) => boolean = () => false): void {
  api.onNodeConfigChange = (o) => {
    const nc = o as unknown as NodeConfig;
    const cm = nc.spec?.configSource?.configMap;
    const assigned = nc.status?.config?.assigned?.configMap;
    if ((cm?.name ?? null) === (assigned?.name ?? null)) return;
    setImmediate(() => {
      const current = api.read('nodeconfigs', nc.metadata.name!) as unknown as NodeConfig;
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
      let config: NonNullable<NonNullable<NodeConfig['status']>['config']>;
      if (!src) config = {};
      else if (bad(src))
        config = {
          assigned: src,
          active: current.status?.config?.active ?? null,
          error: 'failed to validate config, see Kubelet log for details',
        };
      else config = { assigned: src, active: src };
      api.put('nodeconfigs', { ...current, status: { ...current.status, config } } as never);
    });
  };
}

/**
 * A 1.31 cluster: `n` blue nodes with fresh Leases, and a green one; node-1 has a NodeConfig assigning OLD (and running
 * it), the others none yet. Rollout r1 with `spec`.
 */
function cluster(n: number, spec: RolloutSpec = {}): FakeApi {
  const api = new FakeApi();
  api.version = V131;
  api.put('configmaps', CM_NEW);
  // What the nodes ran before, which an undo puts them back on (they report it active once they run it).
  api.put('configmaps', { ...CM_NEW, metadata: { name: 'old', namespace: 'kube-system', uid: 'old-uid' } });
  for (let i = 1; i <= n; i++) api.put('nodes', modernNode(`node-${i}`) as never);
  api.put('nodes', modernNode('green-1', { pool: 'green' }) as never);
  for (const name of [...Array.from({ length: n }, (_, i) => `node-${i + 1}`), 'green-1'])
    api.put('leases', lease(name, new Date()) as never);
  api.put('nodeconfigs', nodeConfig('node-1', OLD, OLD_ACTIVE) as never);
  const r = rollout(spec);
  delete r.metadata.resourceVersion;
  api.put('rollouts', r as never);
  return api;
}

const phaseOf = (api: FakeApi): string | undefined =>
  (api.read('rollouts', 'r1') as NodeConfigRollout | undefined)?.status?.phase;
const nodeConfigOf = (api: FakeApi, name: string): NodeConfig | undefined => api.read('nodeconfigs', name);
const nodeWrites = (api: FakeApi): number => api.writes.filter((w) => w.path.startsWith('/api/v1/nodes')).length;

async function start(api: FakeApi): Promise<RolloutController> {
  const c = new RolloutController({
    client: api,
    clock: systemClock,
    signal: new AbortController().signal,
    retryInitialMs: 5,
    channel: 'nodeconfig',
  });
  running.push(c);
  await c.start();
  return c;
}

describe('assignmentView', () => {
  it('takes the assignment, the rollout annotation and the resourceVersion from the NodeConfig, the rest from the Node', () => {
    const n = node('node-1', { source: OLD, owner: 'from-the-node', rv: '7' });
    const nc = {
      ...nodeConfig('node-1', NEW, OLD_ACTIVE, { [ROLLOUT_ANNOTATION]: 'r1' }),
      metadata: { name: 'node-1', resourceVersion: '42', annotations: { [ROLLOUT_ANNOTATION]: 'r1' } },
    };
    const v = assignmentView(n, nc);
    assert.deepEqual(v.spec?.configSource, NEW);
    assert.deepEqual(v.status?.config, { assigned: OLD_ACTIVE, active: OLD_ACTIVE });
    assert.equal(v.metadata.annotations?.[ROLLOUT_ANNOTATION], 'r1');
    assert.equal(v.metadata.resourceVersion, '42');
    assert.deepEqual(v.metadata.labels, n.metadata.labels);
    assert.deepEqual(v.status?.conditions, n.status?.conditions);
  });

  it('without a NodeConfig the node is assigned nothing, held by no rollout, whatever its Node says', () => {
    const v = assignmentView(node('node-1', { source: OLD, owner: 'r1' }), undefined);
    assert.equal(v.spec?.configSource, undefined);
    assert.equal(v.status?.config, undefined);
    assert.equal(v.metadata.annotations?.[ROLLOUT_ANNOTATION], undefined);
    assert.equal(v.metadata.resourceVersion, undefined);
  });

  it('a NodeConfig created for a patch is owned by its Node and carries the patch’s source and annotation, not its nulls', () => {
    const nc = createdNodeConfig(modernNode('node-2'), {
      metadata: {
        resourceVersion: '',
        annotations: { [ROLLOUT_ANNOTATION]: 'r1', 'dkc.io/previous-config-source': null },
      },
      spec: { configSource: NEW },
    });
    assert.deepEqual(nc.metadata, {
      name: 'node-2',
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'node-2', uid: 'node-2-uid' }],
      annotations: { [ROLLOUT_ANNOTATION]: 'r1' },
    });
    assert.deepEqual(nc.spec, { configSource: NEW });
  });
});

describe('RolloutController on the NodeConfig channel', () => {
  it('rolls out through NodeConfigs (canary, batches): creates the missing ones, never writes a Node, ends Succeeded', async () => {
    const api = cluster(4, { strategy: { canary: 1, maxUnavailable: 2 } });
    simulateAgents(api);
    await start(api);
    await api.waitFor(() => phaseOf(api) === 'Succeeded', 'Succeeded');
    for (let i = 1; i <= 4; i++) {
      const nc = nodeConfigOf(api, `node-${i}`);
      const pinned = pinnedOf(api.read('rollouts', 'r1'));
      assert.deepEqual(nc?.spec?.configSource, pinned, `node-${i} assigned through its NodeConfig`);
      assert.equal(nc?.metadata.annotations?.[ROLLOUT_ANNOTATION], 'r1');
      assert.equal(nc?.status?.config?.active?.configMap?.name, pinned.configMap?.name);
    }
    const creates = api.writes
      .filter((w) => w.method === 'POST' && w.path === '/apis/dkc.io/v1alpha1/nodeconfigs')
      .map((w) => (w.body as NodeConfig).metadata.name);
    assert.deepEqual(creates.sort(), ['node-2', 'node-3', 'node-4']);
    assert.deepEqual(nodeConfigOf(api, 'node-3')?.metadata.ownerReferences, [
      { apiVersion: 'v1', kind: 'Node', name: 'node-3', uid: 'node-3-uid' },
    ]);
    assert.equal(nodeConfigOf(api, 'green-1'), undefined, 'a node the selector leaves out gets nothing');
    assert.equal(nodeWrites(api), 0, 'no Node written');
    const r = api.read('rollouts', 'r1') as NodeConfigRollout;
    assert.deepEqual([r.status?.targetNodes, r.status?.succeededNodes, r.status?.failedNodes], [4, 4, 0]);
    assert.deepEqual(
      r.status?.nodes?.['node-1']?.previous,
      { configSource: OLD },
      'the revert record, in the rollout’s status',
    );
    assert.deepEqual(r.status?.nodes?.['node-2']?.previous, { configSource: {} });
    // Its guarded copy, which an undo must agree with, in each NodeConfig's status (the controller's alone to write).
    assert.deepEqual(nodeConfigOf(api, 'node-1')?.status?.previous, { configSource: OLD });
    assert.deepEqual(nodeConfigOf(api, 'node-2')?.status?.previous, { configSource: {} });
    const batches = Object.values(r.status?.nodes ?? {}).map((p) => p.batch);
    assert.deepEqual(batches.sort(), [0, 1, 1, 2]);
  });

  it('reverts a config the canary refuses: its NodeConfig back on its exact previous source, the error reported there', async () => {
    const api = cluster(3);
    simulateAgents(api, (src) => src.configMap?.name !== 'old');
    await start(api);
    await api.waitFor(() => phaseOf(api) === 'Reverted', 'Reverted');
    const canary = nodeConfigOf(api, 'node-1');
    assert.deepEqual(canary?.spec?.configSource, OLD);
    assert.equal(canary?.metadata.annotations?.[ROLLOUT_ANNOTATION], undefined);
    assert.equal(canary?.status?.previous ?? null, null, 'restored and held by nobody: no record left');
    assert.equal(nodeConfigOf(api, 'node-2'), undefined, 'no other node touched');
    const r = api.read('rollouts', 'r1') as NodeConfigRollout;
    assert.deepEqual(
      r.status?.failures?.map((f) => [f.node, f.reason, f.message]),
      [['node-1', 'ConfigError', 'failed to validate config, see Kubelet log for details']],
    );
    assert.equal(nodeWrites(api), 0);
  });

  it('an undo puts a node that had no NodeConfig back on its local config', async () => {
    const api = cluster(2, { strategy: { canary: 2 } });
    simulateAgents(api);
    await start(api);
    await api.waitFor(() => phaseOf(api) === 'Succeeded', 'Succeeded');
    const r = api.read('rollouts', 'r1') as NodeConfigRollout;
    api.put('rollouts', { ...r, metadata: { ...r.metadata, generation: 2 }, spec: { ...r.spec, revert: true } });
    await api.waitFor(() => phaseOf(api) === 'Reverted', 'Reverted');
    assert.deepEqual(nodeConfigOf(api, 'node-1')?.spec?.configSource, OLD);
    assert.equal(nodeConfigOf(api, 'node-2')?.spec?.configSource, undefined);
    assert.equal(nodeWrites(api), 0);
  });
});

describe('the channel, found at start', () => {
  const client = (api: FakeApi): RestClient => api as unknown as RestClient;

  it('is the Node below 1.24 and the NodeConfig from 1.24 on; --config-channel forces it', async () => {
    const api = new FakeApi();
    assert.equal(await findChannel(client(api)), 'node');
    assert.equal(await findChannel(client(api), 'nodeconfig'), 'nodeconfig');
    api.version = V131;
    assert.equal(await findChannel(client(api)), 'nodeconfig');
    await assert.rejects(
      findChannel(client(api), 'node'),
      /--config-channel=node, but the API server \(v1\.31\.0\) drops Node\.spec\.configSource/,
    );
  });

  it('refuses a cluster whose assignments live on both channels', async () => {
    const api = new FakeApi();
    api.put('nodes', node('node-1') as never);
    api.put('nodeconfigs', nodeConfig('node-2', NEW, null) as never);
    await assert.rejects(findChannel(client(api)), {
      message:
        "refusing to mix config channels: this cluster's channel is Node, but 1 NodeConfig(s) carry spec.configSource (nodeconfig/node-2); move every assignment to one channel first",
    });
    api.version = V131;
    await assert.rejects(findChannel(client(api)), {
      message:
        /^refusing to mix config channels: this cluster's channel is NodeConfig, but 1 Node\(s\) carry spec\.configSource \(node\/node-1\)/,
    });
  });

  it('a host that found none leaves it to the controller, which assigns through NodeConfigs on a 1.31 server', async () => {
    const api = cluster(1);
    simulateAgents(api);
    const c = await rolloutControllerOn()({
      client: client(api),
      clock: systemClock,
      signal: new AbortController().signal,
    });
    running.push(c);
    await api.waitFor(() => phaseOf(api) === 'Succeeded', 'Succeeded');
    assert.deepEqual(nodeConfigOf(api, 'node-1')?.spec?.configSource, pinnedOf(api.read('rollouts', 'r1')));
    assert.equal(nodeWrites(api), 0);
  });
});
