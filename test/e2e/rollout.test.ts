// NodeConfigRollouts on a real local cluster (`dkc up` with 6 agents, node-1..3 labelled pool=blue): a good config
// rolls out to exactly the blue nodes and never has more in flight than the strategy allows; a config the agents
// refuse (kubeAPIQPS: -1) is reverted, each node back on its exact previous source and held again by the rollout
// that held it before, or halted; pause and resume;
// a conflicting rollout halts touching nothing; a node labelled blue mid-rollout joins; a node patched by hand
// mid-rollout is Overridden; a crash-looping config, rolled back by the agent, fails as ConfigError. The rollout
// controller is the one inside `dkc server` (leader-elected, as system:dkc:controller with its ClusterRole).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigMap, Event, Node } from '../../src/api/types.js';
import { RestClient } from '../../src/client/index.js';
import {
  ROLLOUT_ANNOTATION,
  ROLLOUTS_PATH,
  newRollout,
  type NodeConfigRollout,
  type RolloutSpec,
} from '../../src/api/dkc/rollout.js';
import { defaultLocalConfig } from '../../src/agent/clusterconfig.js';
import { startCluster, type Cluster } from '../../src/up/cluster.js';
import { waitFor } from '../helpers/wait.js';
import { kubeletConfigMap, kubeletSource } from '../helpers/nodeconfig.js';

let work = '';
let cluster: Cluster | undefined;
let admin: RestClient;
let localConfig = '';

const BLUE = ['node-1', 'node-2', 'node-3'];
const OTHERS = ['node-4', 'node-5', 'node-6'];

const source = kubeletSource;

const configMap = (name: string, extra: string): Promise<ConfigMap> =>
  kubeletConfigMap(admin, localConfig, name, extra);

async function getNode(name: string): Promise<Node> {
  return admin.get<Node>(`/api/v1/nodes/${name}`);
}

async function getRollout(name: string): Promise<NodeConfigRollout> {
  return admin.get<NodeConfigRollout>(`${ROLLOUTS_PATH}/${name}`);
}

async function createRollout(name: string, spec: RolloutSpec): Promise<void> {
  await admin.create(ROLLOUTS_PATH, newRollout(name, spec));
}

async function patchRollout(name: string, spec: RolloutSpec): Promise<void> {
  await admin.patch(`${ROLLOUTS_PATH}/${name}`, 'merge', { spec });
}

/** Waits for `phase`, sampling the status every 50 ms; returns the samples. */
async function untilPhase(name: string, phase: string, ms = 30_000): Promise<NodeConfigRollout[]> {
  const samples: NodeConfigRollout[] = [];
  await waitFor(
    `rollout ${name} ${phase}`,
    async () => {
      const r = await getRollout(name);
      samples.push(r);
      return r.status?.phase === phase ? true : undefined;
    },
    ms,
  );
  return samples;
}

/** Each node's spec.configSource and the rollout annotations on it. */
async function specsOf(names: readonly string[]): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const n of names) {
    const node = await getNode(n);
    const ours = Object.entries(node.metadata.annotations ?? {}).filter(([k]) => k.startsWith('dkc.io/'));
    out[n] = { source: node.spec?.configSource ?? null, annotations: Object.fromEntries(ours) };
  }
  return out;
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'dkc-rollout-e2e-'));
  // Quick restarts after crashes, so that the crash-looping config is rolled back by the agent within seconds; Leases
  // renewed every 2 s, so that a soak, over at the node's first heartbeat after it, is over within seconds too.
  cluster = await startCluster({
    dataDir: join(work, 'cluster'),
    nodes: 6,
    port: 0,
    backoff: { initialMs: 50, maxMs: 500 },
    localConfig: (ctx) => `${defaultLocalConfig(ctx)}nodeLeaseDurationSeconds: 8
`,
  });
  admin = await RestClient.fromKubeconfig(cluster.kubeconfig);
  localConfig = await readFile(cluster.nodes[0]!.config, 'utf8');
  await waitFor(
    'six nodes Ready',
    async () => {
      const list = await admin.list<{ items: Node[] }>('/api/v1/nodes');
      const ready = list.items.filter((n) =>
        n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
      );
      return ready.length === 6 ? true : undefined;
    },
    30_000,
  );
  for (const n of BLUE) await admin.patch(`/api/v1/nodes/${n}`, 'merge', { metadata: { labels: { pool: 'blue' } } });
  await configMap('good', 'eventRecordQPS: 7');
  await configMap('good-2', 'eventRecordQPS: 8');
  await configMap('good-3', 'eventRecordQPS: 9');
  await configMap('bad', 'kubeAPIQPS: -1');
  // Decodes and validates, but the HTTPS listener cannot start: the agent crash-loops until it rolls back.
  await configMap(
    'crashloop',
    'tlsCertFile: /nonexistent/dkc-e2e/serving.crt\ntlsPrivateKeyFile: /nonexistent/dkc-e2e/serving.key',
  );
});

after(async () => {
  admin?.close();
  await cluster?.stop(5_000);
  if (work) await rm(work, { recursive: true, force: true });
});

describe('NodeConfigRollout on a 6-node cluster', { concurrency: false }, () => {
  it('a good config reaches exactly the blue nodes, one at a time, and Succeeds', async () => {
    const untouched = await specsOf(OTHERS);
    await createRollout('good', {
      configSource: source('good'),
      nodeSelector: { matchLabels: { pool: 'blue' } },
      strategy: { canary: 1, maxUnavailable: 1, soakSeconds: 2 },
    });
    const samples = await untilPhase('good', 'Succeeded');
    for (const s of samples) {
      const flying = Object.values(s.status?.nodes ?? {}).filter((p) => p.state === 'InFlight').length;
      assert.ok(flying <= 1, `at most one node in flight, saw ${flying}`);
    }
    const cm = await admin.get<ConfigMap>('/api/v1/namespaces/kube-system/configmaps/good');
    const r = await getRollout('good');
    for (const n of BLUE) {
      const node = await getNode(n);
      assert.deepEqual(node.status?.config?.active, {
        configMap: { ...source('good').configMap!, uid: cm.metadata.uid, resourceVersion: cm.metadata.resourceVersion },
      });
      assert.equal(node.metadata.annotations?.[ROLLOUT_ANNOTATION], 'good');
      assert.deepEqual(
        r.status?.nodes?.[n]?.previous,
        { configSource: {} },
        `${n}: its local config, recorded in the rollout's status`,
      );
    }
    assert.deepEqual(await specsOf(OTHERS), untouched);
    assert.deepEqual(
      [r.status?.targetNodes, r.status?.updatedNodes, r.status?.succeededNodes, r.status?.failedNodes],
      [3, 3, 3, 0],
    );
    const reasons = await waitFor('the RolloutSucceeded event', async () => {
      const list = await admin.list<{ items: Event[] }>('/api/v1/namespaces/default/events');
      const ours = list.items.filter(
        (e) => e.involvedObject.kind === 'NodeConfigRollout' && e.involvedObject.name === 'good',
      );
      for (const e of ours) assert.equal(e.source?.component, 'dkc-rollout-controller');
      const seen = ours.map((e) => e.reason ?? '');
      return seen.includes('RolloutSucceeded') ? seen : undefined;
    });
    for (const want of ['RolloutStarted', 'BatchStarted', 'NodeSucceeded'])
      assert.ok(reasons.includes(want), `event ${want}`);
    assert.equal(reasons.filter((x) => x === 'BatchStarted').length, 3, 'a batch per node with maxUnavailable 1');
  });

  it('a config the canary refuses (kubeAPIQPS: -1) with Revert: Reverted, the canary back on its exact previous source', async () => {
    const before = await specsOf(BLUE);
    await createRollout('bad-revert', {
      configSource: source('bad'),
      nodeSelector: { matchLabels: { pool: 'blue' } },
      failurePolicy: 'Revert',
    });
    await untilPhase('bad-revert', 'Reverted');
    const r = await getRollout('bad-revert');
    assert.deepEqual(
      r.status?.failures?.map((f) => [f.node, f.reason]),
      [['node-1', 'ConfigError']],
    );
    const after = await specsOf(BLUE);
    assert.deepEqual(
      after['node-1'],
      before['node-1'],
      'the canary restored, and held again by the rollout that held it before',
    );
    assert.deepEqual(
      [after['node-2'], after['node-3']],
      [before['node-2'], before['node-3']],
      'the other blue nodes untouched',
    );
  });

  it('the same with Halt: Halted, the canary left on the bad config, nothing else touched; undo restores it', async () => {
    const before = await specsOf(BLUE);
    await createRollout('bad-halt', {
      configSource: source('bad'),
      nodeSelector: { matchLabels: { pool: 'blue' } },
      failurePolicy: 'Halt',
    });
    await untilPhase('bad-halt', 'Halted');
    const canary = await getNode('node-1');
    assert.deepEqual(canary.spec?.configSource, source('bad'));
    assert.equal(canary.metadata.annotations?.[ROLLOUT_ANNOTATION], 'bad-halt');
    const after = await specsOf(['node-2', 'node-3']);
    assert.deepEqual(after, { 'node-2': before['node-2'], 'node-3': before['node-3'] });
    await patchRollout('bad-halt', { revert: true });
    await untilPhase('bad-halt', 'Reverted');
    const restored = await specsOf(BLUE);
    assert.deepEqual(restored['node-1'], before['node-1']);
  });

  it('a crash-looping config: the agent rolls back, the canary fails with ConfigError, the rollout reverts', async () => {
    const before = await specsOf(BLUE);
    await createRollout('crashloop', {
      configSource: source('crashloop'),
      nodeSelector: { matchLabels: { pool: 'blue' } },
    });
    await untilPhase('crashloop', 'Reverted', 60_000);
    const r = await getRollout('crashloop');
    assert.deepEqual(
      r.status?.failures?.map((f) => [f.node, f.reason]),
      [['node-1', 'ConfigError']],
    );
    assert.match(r.status?.failures?.[0]?.message ?? '', /failed to start with assigned config/);
    const after = await specsOf(BLUE);
    assert.deepEqual(after['node-1'], before['node-1']);
  });

  it('pause after the canary, a conflicting rollout halts touching nothing, a node labelled blue joins, resume finishes', async () => {
    await createRollout('paused', {
      configSource: source('good-2'),
      nodeSelector: { matchLabels: { pool: 'blue' } },
      strategy: { canary: 1, maxUnavailable: 2, pauseAfterCanary: true },
    });
    await untilPhase('paused', 'Paused');
    assert.equal((await getRollout('paused')).spec?.paused, true);
    assert.equal(
      (await getNode('node-2')).metadata.annotations?.[ROLLOUT_ANNOTATION],
      'good',
      'nothing started after the canary',
    );

    const before = await specsOf([...BLUE, ...OTHERS]);
    await createRollout('conflict', {
      configSource: source('good-3'),
      nodeSelector: { matchLabels: { pool: 'blue' } },
    });
    await untilPhase('conflict', 'Halted');
    const failed = (await getRollout('conflict')).status?.conditions?.find((c) => c.type === 'Failed');
    assert.equal(failed?.reason, 'Conflict');
    assert.match(failed?.message ?? '', /\bpaused\b/);
    assert.deepEqual(await specsOf([...BLUE, ...OTHERS]), before, 'the conflicting rollout touched nothing');

    await admin.patch('/api/v1/nodes/node-4', 'merge', { metadata: { labels: { pool: 'blue' } } });
    await patchRollout('paused', { paused: false });
    // Four nodes restart onto the config in batches after the resume, each judged only once it runs it: on a machine
    // busy with other clusters that takes longer than one rollout's 30 s.
    await untilPhase('paused', 'Succeeded', 60_000);
    const r = await getRollout('paused');
    assert.deepEqual(Object.keys(r.status?.nodes ?? {}).sort(), [...BLUE, 'node-4']);
    for (const n of [...BLUE, 'node-4']) assert.deepEqual((await getNode(n)).spec?.configSource, source('good-2'));
  });

  it('a node patched by hand mid-rollout is Overridden and left alone', async () => {
    await createRollout('override', {
      configSource: source('good-3'),
      nodeSelector: { matchLabels: { pool: 'blue' } },
      strategy: { canary: 1, maxUnavailable: 1, soakSeconds: 1 },
      maxFailures: 1,
    });
    await waitFor('the canary to succeed', async () =>
      (await getRollout('override')).status?.nodes?.['node-1']?.state === 'Succeeded' ? true : undefined,
    );
    await admin.patch('/api/v1/nodes/node-1', 'merge', { spec: { configSource: source('good') } });
    await untilPhase('override', 'Succeeded');
    const r = await getRollout('override');
    assert.equal(r.status?.nodes?.['node-1']?.state, 'Overridden');
    assert.deepEqual(
      r.status?.failures?.map((f) => [f.node, f.reason]),
      [['node-1', 'Overridden']],
    );
    assert.deepEqual((await getNode('node-1')).spec?.configSource, source('good'), 'the hand-made change stands');
  });
});
