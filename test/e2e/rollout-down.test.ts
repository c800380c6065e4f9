// Rollouts and nodes that are down, on a real local cluster (`startCluster`, as `dkc up` runs it: a server and three
// agents whose Leases last 8 s, renewed every 2 s), driven through `dkc rollout` and kubectl 1.32:
// - a Node created with kubectl, with no agent, labelled into the selector mid-rollout is held (waiting, NotReady),
//   never changed and never blamed; the healthy nodes finish; the rollout does not claim success until the node
//   leaves the selector, and says so after the progress deadline (Progressing=False, NodesNotReady);
// - an agent frozen with SIGSTOP in the middle of its soak is never counted as succeeded although its Ready stays
//   True (the node lifecycle controller's grace period is 40 s): it fails NotReady at the deadline, its heartbeat
//   stale, and the rollout reverts it;
// - the server restarted in the middle of a soak, its agents heartbeating on: the soak starts again with the new
//   controller, which did not watch the time before it started;
// - the whole cluster stopped and started again in the middle of a soak: the soak starts again with the restarted
//   controller, so the node succeeds only after a full soak of health observed since the restart.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Event, Node } from '../../src/api/types.js';
import { RestClient } from '../../src/client/index.js';
import { ROLLOUT_ANNOTATION, type NodeConfigRollout } from '../../src/api/dkc/rollout.js';
import { defaultLocalConfig } from '../../src/agent/clusterconfig.js';
import { startCluster, type Cluster } from '../../src/up/cluster.js';
import { runDkc } from '../helpers/dkc.js';
import { kubectl, type Kubectl } from '../helpers/kubectl.js';
import { kubeletConfigMap, kubeletSource } from '../helpers/nodeconfig.js';
import { waitFor } from '../helpers/wait.js';

const NODES = ['node-1', 'node-2', 'node-3'];
/** Each agent's Lease: renewed every 2 s, fresh for 4 s. */
const LEASE_SECONDS = 8;

let work = '';
let cluster: Cluster | undefined;
let admin: RestClient;
let k: Kubectl;
let localConfig = '';
/** An agent this test froze (SIGSTOP), to resume whatever happens. */
let frozen: number | undefined;

function resume(): void {
  if (frozen === undefined) return;
  try {
    process.kill(frozen, 'SIGCONT');
  } catch {
    // it has gone
  }
  frozen = undefined;
}

async function up(port = 0): Promise<Cluster> {
  return startCluster({
    dataDir: join(work, 'cluster'),
    nodes: NODES.length,
    port,
    localConfig: (ctx) => `${defaultLocalConfig(ctx)}nodeLeaseDurationSeconds: ${LEASE_SECONDS}\n`,
  });
}

async function allReady(): Promise<void> {
  await waitFor(
    'every node Ready with a fresh Lease',
    async () => {
      for (const n of NODES) {
        const node = await admin.get<Node>(`/api/v1/nodes/${n}`);
        if (node.status?.conditions?.find((c) => c.type === 'Ready')?.status !== 'True') return undefined;
        const lease = await admin.get<{ spec?: { renewTime?: string } }>(
          `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${n}`,
        );
        if (Date.now() - Date.parse(lease.spec?.renewTime ?? '') > 2_000) return undefined;
      }
      return true;
    },
    60_000,
  );
}

async function dkc(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runDkc(['rollout', ...args, '--kubeconfig', cluster!.kubeconfig], { timeoutMs: 90_000 });
}

async function rolloutJson(name: string): Promise<NodeConfigRollout> {
  return JSON.parse(await k.ok(['get', 'nodeconfigrollout', name, '-o', 'json'])) as NodeConfigRollout;
}

async function nodeJson(name: string): Promise<Node> {
  return JSON.parse(await k.ok(['get', 'node', name, '-o', 'json'])) as Node;
}

/** The rollout's events as kubectl lists them: reason and message, oldest first. */
async function eventsOf(name: string): Promise<{ reason: string; message: string }[]> {
  const list = JSON.parse(
    await k.ok(['get', 'events', '-n', 'default', '--field-selector', `involvedObject.name=${name}`, '-o', 'json']),
  ) as { items: Event[] };
  return list.items
    .filter((e) => e.involvedObject.kind === 'NodeConfigRollout')
    .sort((a, b) => Date.parse(a.firstTimestamp ?? '') - Date.parse(b.firstTimestamp ?? ''))
    .map((e) => ({ reason: e.reason ?? '', message: e.message ?? '' }));
}

/** Waits for `phase`; fails at once on another final phase. */
async function untilPhase(name: string, phase: string, ms = 60_000): Promise<NodeConfigRollout> {
  const r = await waitFor(
    `rollout ${name} ${phase}`,
    async () => {
      const got = await rolloutJson(name);
      return ['Succeeded', 'Halted', 'Reverted'].includes(got.status?.phase ?? '') ? got : undefined;
    },
    ms,
    200,
  );
  assert.equal(r.status?.phase, phase, `rollout ${name}: ${JSON.stringify(r.status)}`);
  return r;
}

/** Polls the rollout until it succeeds; returns every sample seen. */
async function samplesUntilSucceeded(name: string): Promise<NodeConfigRollout[]> {
  const samples: NodeConfigRollout[] = [];
  await waitFor(
    `rollout ${name} to succeed`,
    async () => {
      const r = await rolloutJson(name);
      samples.push(r);
      return r.status?.phase === 'Succeeded' ? true : undefined;
    },
    90_000,
    200,
  );
  return samples;
}

/** The soaks of `node` other than `before` the samples show, each begun at or after `sinceMs` (to the second, as recorded). */
function soaksSince(samples: readonly NodeConfigRollout[], node: string, before: string, sinceMs: number): string[] {
  const all = samples
    .map((s) => s.status?.nodes?.[node]?.readySince)
    .filter((t): t is string => t !== undefined && t !== before);
  for (const t of all)
    assert.ok(Date.parse(t) >= Math.floor(sinceMs / 1000) * 1000, `a soak from ${t}, before the restart`);
  return [...new Set(all)];
}

/** Each node's spec.configSource and the dkc.io annotations on it. */
async function sourcesOf(names: readonly string[]): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const n of names) {
    const node = await nodeJson(n);
    const ours = Object.entries(node.metadata.annotations ?? {}).filter(([key]) => key.startsWith('dkc.io/'));
    out[n] = { source: node.spec?.configSource ?? null, annotations: Object.fromEntries(ours) };
  }
  return out;
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'dkc-rollout-down-'));
  cluster = await up();
  admin = await RestClient.fromKubeconfig(cluster.kubeconfig);
  k = await kubectl('1.32', cluster.kubeconfig);
  localConfig = await readFile(cluster.nodes[0]!.config, 'utf8');
  await allReady();
  const configs = [
    ['blue', 'eventRecordQPS: 7'],
    ['frozen', 'eventRecordQPS: 8'],
    ['server-restart', 'eventRecordQPS: 9'],
    ['restart', 'eventRecordQPS: 10'],
  ];
  for (const [name, extra] of configs) {
    await kubeletConfigMap(admin, localConfig, name!, extra!);
  }
});

after(async () => {
  resume();
  await k?.run(['delete', 'node', 'ghost', '--ignore-not-found']).catch(() => undefined);
  await k?.cleanup();
  admin?.close();
  await cluster?.stop(5_000);
  if (work) await rm(work, { recursive: true, force: true });
});

describe('rollouts and nodes that are down', { concurrency: false }, () => {
  it(
    'a node that was never Ready, labelled in mid-rollout, is held and never changed; the rollout does not claim it',
    { timeout: 180_000 },
    async () => {
      for (const n of NODES) await k.ok(['label', 'node', n, 'pool=blue', '--overwrite']);
      const started = await dkc(
        'start',
        'blue',
        '--configmap',
        'kube-system/blue',
        '--selector',
        'pool=blue',
        '--canary',
        '1',
        '--max-unavailable',
        '2',
        '--soak',
        '2s',
        '--deadline',
        '15s',
      );
      assert.equal(started.code, 0, started.stderr);
      await waitFor(
        'the canary to start',
        async () => ((await rolloutJson('blue')).status?.nodes?.['node-1']?.state === 'InFlight' ? true : undefined),
        30_000,
      );
      // A Node object with no agent behind it: no Ready condition, no Lease.
      await k.ok(['create', '-f', '-'], {
        input: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'ghost' } }),
      });
      await k.ok(['label', 'node', 'ghost', 'pool=blue']);

      const r = await waitFor(
        'the healthy nodes to succeed and the rollout to stall on ghost',
        async () => {
          const got = await rolloutJson('blue');
          const c = got.status?.conditions?.find((x) => x.type === 'Progressing');
          return c?.reason === 'NodesNotReady' ? got : undefined;
        },
        120_000,
        200,
      );
      assert.equal(r.status?.phase, 'Progressing');
      assert.deepEqual(
        [r.status?.targetNodes, r.status?.succeededNodes, r.status?.failedNodes, r.status?.waitingNodes],
        [4, 3, 0, 1],
      );
      assert.equal(r.status?.nodes?.['ghost']?.state, 'Pending');
      assert.equal(r.status?.nodes?.['ghost']?.waitingReason, 'NotReady');
      assert.equal(r.status?.conditions?.find((c) => c.type === 'Progressing')?.status, 'False');
      assert.equal(r.status?.conditions?.find((c) => c.type === 'Complete')?.status, 'False');
      assert.deepEqual((await sourcesOf(['ghost']))['ghost'], { source: null, annotations: {} }, 'ghost never changed');
      const wide = await k.ok(['get', 'nodeconfigrollout', 'blue', '-o', 'wide']);
      assert.match(wide.split('\n')[0]!, /\bWAITING\b/);
      assert.match(wide.split('\n')[1]!, /^blue\s+Progressing\s+4\s+3\s+3\s+0\s+1\s/);

      // `dkc rollout status` says what it waits for, and that it has not finished.
      const status = await dkc('status', 'blue');
      assert.equal(status.code, 2, status.stderr);
      assert.match(
        status.stdout,
        /^node ghost waiting \(NotReady\): left unchanged until it is Ready with a fresh heartbeat$/m,
      );

      await k.ok(['label', 'node', 'ghost', 'pool-']);
      const done = await untilPhase('blue', 'Succeeded');
      assert.deepEqual(
        [done.status?.targetNodes, done.status?.succeededNodes, done.status?.failedNodes, done.status?.waitingNodes],
        [3, 3, 0, 0],
      );
      const sources = await sourcesOf([...NODES, 'ghost']);
      for (const n of NODES)
        assert.deepEqual((sources[n] as { source: unknown }).source, kubeletSource('blue'), `${n} on the new config`);
      assert.deepEqual(sources['ghost'], { source: null, annotations: {} });
      const events = await waitFor('the RolloutSucceeded event', async () => {
        const ev = await eventsOf('blue');
        return ev.some((e) => e.reason === 'RolloutSucceeded') ? ev : undefined;
      });
      const reasons = events.map((e) => e.reason);
      assert.deepEqual(
        events.filter((e) => e.reason === 'NodeWaiting').map((e) => e.message),
        ['Node ghost is not Ready: it waits, unchanged, until it is Ready with a fresh heartbeat'],
      );
      assert.equal(reasons.filter((x) => x === 'NodeSucceeded').length, 3);
      for (const never of ['NodeFailed', 'RolloutReverted', 'RolloutHalted'])
        assert.ok(!reasons.includes(never), `no ${never} event`);
      await k.ok(['delete', 'node', 'ghost']);
    },
  );

  it(
    'an agent frozen (SIGSTOP) during its soak is not counted as succeeded: NotReady at the deadline, reverted',
    { timeout: 180_000 },
    async () => {
      await allReady();
      for (const n of ['node-2', 'node-3']) await k.ok(['label', 'node', n, 'pool=frozen', '--overwrite']);
      const before = await sourcesOf(NODES);
      const started = await dkc(
        'start',
        'frozen',
        '--configmap',
        'kube-system/frozen',
        '--selector',
        'pool=frozen',
        '--canary',
        '1',
        '--soak',
        '6s',
        // Past the restart, the freeze at the soak's start and the 4 s a heartbeat stays fresh, with room for a slow
        // machine; the frozen node fails at it.
        '--deadline',
        '15s',
      );
      assert.equal(started.code, 0, started.stderr);
      await waitFor(
        'node-2 to start its soak',
        async () =>
          (await rolloutJson('frozen')).status?.nodes?.['node-2']?.readySince !== undefined ? true : undefined,
        60_000,
        100,
      );
      frozen = cluster!.supervisor.pidOf('node-2');
      assert.ok(frozen !== undefined, 'node-2 agent is running');
      process.kill(frozen, 'SIGSTOP');
      try {
        const r = await untilPhase('frozen', 'Reverted', 90_000);
        // It failed NotReady (its NodeFailed event, below, says so); frozen, it cannot take back its old config either,
        // and counts as restored only once it runs it: NotRestored, never having acknowledged the assignment.
        assert.deepEqual(
          r.status?.failures?.map((f) => [f.node, f.reason]),
          [['node-2', 'NotActive']],
        );
        assert.match(
          r.status?.failures?.[0]?.message ?? '',
          /^not restored: the node did not acknowledge the assignment/,
        );
        // The node lifecycle controller's grace period (40 s) has not run out: Ready=True is still what the node says.
        assert.equal((await nodeJson('node-2')).status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
        const after = await sourcesOf(NODES);
        for (const n of NODES)
          assert.deepEqual(
            (after[n] as { source: unknown }).source,
            (before[n] as { source: unknown }).source,
            `${n} on its exact previous source`,
          );
        assert.deepEqual(
          [after['node-1'], after['node-3']],
          [before['node-1'], before['node-3']],
          'nothing else touched',
        );
        assert.notEqual(
          (after['node-2'] as { annotations: Record<string, string> }).annotations[ROLLOUT_ANNOTATION],
          'frozen',
        );
        const events = await waitFor('the RolloutReverted event', async () => {
          const ev = await eventsOf('frozen');
          return ev.some((e) => e.reason === 'RolloutReverted') ? ev : undefined;
        });
        assert.deepEqual(
          events
            .filter((e) => e.reason === 'NodeFailed')
            .map((e) => e.message.replace(/renewed at \S+\)/, 'renewed at T)')),
          [
            'Node node-2 failed (NotReady): node stopped heartbeating after the change (its Lease was last renewed at T)',
          ],
        );
        assert.ok(!events.some((e) => e.reason === 'NodeSucceeded'), 'no NodeSucceeded event');
        assert.match(
          events.find((e) => e.reason === 'RolloutReverted')?.message ?? '',
          /^Rollout reverted: 0 nodes restored to their previous config source, 1 not restored\b/,
        );
      } finally {
        resume();
      }
      await allReady();
    },
  );

  it(
    'the server restarted mid-soak, the agents heartbeating on: the new controller starts the soak again',
    { timeout: 180_000 },
    async () => {
      await allReady();
      const SOAK = 8;
      const started = await dkc(
        'start',
        'server-restart',
        '--configmap',
        'kube-system/server-restart',
        '--selector',
        'kubernetes.io/hostname=node-3',
        '--soak',
        `${SOAK}s`,
        '--deadline',
        '90s',
      );
      assert.equal(started.code, 0, started.stderr);
      const soaking = await waitFor(
        'node-3 to start its soak',
        async () => (await rolloutJson('server-restart')).status?.nodes?.['node-3']?.readySince ?? undefined,
        60_000,
        100,
      );
      // Half the soak watched by the first controller: were it trusted, the new one would be done 4 s after it starts.
      await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(soaking) + (SOAK / 2) * 1000 - Date.now())));
      const server = cluster!.supervisor.pidOf('server');
      assert.ok(server !== undefined);
      // SIGTERM: a clean exit, which the supervisor follows with a new server at once, as systemd's Restart=always would.
      const restartedAt = Date.now();
      process.kill(server, 'SIGTERM');
      await waitFor(
        'a new server',
        async () => {
          const pid = cluster!.supervisor.pidOf('server');
          return pid !== undefined && pid !== server ? true : undefined;
        },
        30_000,
      );
      const samples = await samplesUntilSucceeded('server-restart');
      const succeededAfter = Date.now() - restartedAt;
      assert.ok(
        succeededAfter >= SOAK * 1000,
        `succeeded ${succeededAfter} ms after the restart, less than the ${SOAK} s soak`,
      );
      assert.ok(
        soaksSince(samples, 'node-3', soaking, restartedAt).length > 0,
        `the soak was recorded again after the restart (it began at ${soaking})`,
      );
      assert.deepEqual((await nodeJson('node-3')).spec?.configSource, kubeletSource('server-restart'));
    },
  );

  it(
    'a cluster stopped and started again mid-soak: the soak starts again, the node succeeds on health seen since',
    { timeout: 180_000 },
    async () => {
      await allReady();
      const SOAK = 8;
      const started = await dkc(
        'start',
        'restart',
        '--configmap',
        'kube-system/restart',
        '--selector',
        'kubernetes.io/hostname=node-1',
        '--soak',
        `${SOAK}s`,
        '--deadline',
        '90s',
      );
      assert.equal(started.code, 0, started.stderr);
      const soaking = await waitFor(
        'node-1 to start its soak',
        async () => (await rolloutJson('restart')).status?.nodes?.['node-1']?.readySince ?? undefined,
        60_000,
        100,
      );
      const port = Number(new URL(cluster!.serverURL).port);
      await k.cleanup();
      admin.close();
      await cluster!.stop(5_000);
      cluster = undefined;
      // Down for longer than a heartbeat stays fresh (4 s); the soak would have been over (8 s) before it is back. The
      // outage's length in wall time is the input under test (the controller runs in the cluster, on its own clock).
      await new Promise((r) => setTimeout(r, 6_000));
      const restartedAt = Date.now();
      cluster = await up(port);
      admin = await RestClient.fromKubeconfig(cluster.kubeconfig);
      k = await kubectl('1.32', cluster.kubeconfig);
      const samples = await samplesUntilSucceeded('restart');
      const succeededAfter = Date.now() - restartedAt;
      assert.ok(
        succeededAfter >= SOAK * 1000,
        `succeeded ${succeededAfter} ms after the restart, less than the ${SOAK} s soak`,
      );
      assert.ok(
        soaksSince(samples, 'node-1', soaking, restartedAt).length > 0,
        `the soak was recorded again after the restart (it began at ${soaking})`,
      );
      const done = samples.at(-1)!;
      assert.deepEqual([done.status?.succeededNodes, done.status?.failedNodes], [1, 0]);
      assert.deepEqual((await nodeJson('node-1')).spec?.configSource, kubeletSource('restart'));
      const events = await waitFor('the RolloutSucceeded event', async () => {
        const ev = await eventsOf('restart');
        return ev.some((e) => e.reason === 'RolloutSucceeded') ? ev : undefined;
      });
      assert.deepEqual(
        events.map((e) => e.reason),
        ['RolloutStarted', 'BatchStarted', 'NodeSucceeded', 'RolloutSucceeded'],
      );
    },
  );
});
