// What an undo restores, and what is left when nodes or rollouts go, on a real local cluster (`dkc up`'s five agents,
// node-4 and node-5 labelled set=b), driven as an operator does it: `dkc rollout start|status|undo` and kubectl.
// - Sequential rollouts, undone newest first: ra (m60, all five) then rc (m70, node-4/5); `undo rc` puts node-4/5
//   back on m60 and back to ra, so `undo ra` restores all five to their local config.
// - The other order: `undo ra` while rc holds node-4/5 restores node-1..3 only and reports node-4/5 Overridden (state,
//   failure reason, condition, event, `dkc rollout status`); `undo rc` then puts node-4/5 on m60, what rc found.
// - A rollout deleted mid-flight (kubectl delete) is undone before it goes; a finished one deleted leaves its nodes on
//   its config and lets go of them.
// - A Node deleted mid-flight stays in the rollout's status as Deleted, with an event, and the rollout says so.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Event, Node } from '../../src/api/types.js';
import { RestClient } from '../../src/client/index.js';
import { ROLLOUT_ANNOTATION, type NodeConfigRollout } from '../../src/api/dkc/rollout.js';
import { startCluster, type Cluster } from '../../src/up/cluster.js';
import { runDkc, type DkcRun } from '../helpers/dkc.js';
import { kubectl, type Kubectl } from '../helpers/kubectl.js';
import { kubeletConfigMap } from '../helpers/nodeconfig.js';
import { waitFor } from '../helpers/wait.js';

const NODES = ['node-1', 'node-2', 'node-3', 'node-4', 'node-5'];
const SET_B = ['node-4', 'node-5'];

let work = '';
let cluster: Cluster | undefined;
let admin: RestClient;
let k: Kubectl;

function dkc(...args: string[]): Promise<DkcRun> {
  return runDkc(['rollout', ...args, '--kubeconfig', cluster!.kubeconfig], { timeoutMs: 180_000 });
}

/** `dkc rollout status -w`: the exit code the phase means, and what it printed. */
async function finished(name: string): Promise<DkcRun> {
  return dkc('status', name, '--watch', '--timeout', '150s');
}

async function start(name: string, configMap: string, ...flags: string[]): Promise<void> {
  const r = await dkc('start', name, '--configmap', `kube-system/${configMap}`, ...flags);
  assert.equal(r.code, 0, r.stderr);
}

async function undo(name: string): Promise<DkcRun> {
  const r = await dkc('undo', name);
  assert.equal(r.code, 0, r.stderr);
  return finished(name);
}

async function rollout(name: string): Promise<NodeConfigRollout> {
  return JSON.parse(await k.ok(['get', 'ncr', name, '-o', 'json'])) as NodeConfigRollout;
}

/** Each node's spec.configSource (null: its local config) and the rollout that holds it. */
async function nodesNow(
  names: readonly string[] = NODES,
): Promise<Record<string, { source: string; holder: string | null }>> {
  const list = JSON.parse(await k.ok(['get', 'nodes', '-o', 'json'])) as { items: Node[] };
  const out: Record<string, { source: string; holder: string | null }> = {};
  for (const n of list.items) {
    const name = n.metadata.name ?? '';
    if (!names.includes(name)) continue;
    out[name] = {
      source: n.spec?.configSource?.configMap?.name ?? 'local',
      holder: n.metadata.annotations?.[ROLLOUT_ANNOTATION] ?? null,
    };
  }
  return out;
}

const expect = (
  entries: [readonly string[], string, string | null][],
): Record<string, { source: string; holder: string | null }> =>
  Object.fromEntries(entries.flatMap(([names, source, holder]) => names.map((n) => [n, { source, holder }])));

/** The rollout's events (reason → messages), waiting until `reason` is among them. */
async function eventsOf(name: string, reason: string): Promise<Map<string, string[]>> {
  return waitFor(
    `event ${reason} of ${name}`,
    async () => {
      const list = JSON.parse(await k.ok(['get', 'events', '-n', 'default', '-o', 'json'])) as { items: Event[] };
      const out = new Map<string, string[]>();
      for (const e of list.items) {
        if (e.involvedObject.kind !== 'NodeConfigRollout' || e.involvedObject.name !== name) continue;
        out.set(e.reason ?? '', [...(out.get(e.reason ?? '') ?? []), e.message ?? '']);
      }
      return out.has(reason) ? out : undefined;
    },
    30_000,
  );
}

const condition = (r: NodeConfigRollout, type: string): string | undefined =>
  r.status?.conditions?.find((c) => c.type === type)?.message;

/** Puts every node back on its local config, through kubectl, before a scenario. */
async function resetNodes(): Promise<void> {
  for (const n of NODES)
    await k.ok([
      'patch',
      'node',
      n,
      '--type=merge',
      '-p',
      JSON.stringify({ metadata: { annotations: { [ROLLOUT_ANNOTATION]: null } }, spec: { configSource: null } }),
    ]);
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'dkc-rollout-undo-'));
  cluster = await startCluster({ dataDir: join(work, 'cluster'), nodes: NODES.length, port: 0 });
  admin = await RestClient.fromKubeconfig(cluster.kubeconfig);
  k = await kubectl('1.32', cluster.kubeconfig);
  const localConfig = await readFile(cluster.nodes[0]!.config, 'utf8');
  await waitFor(
    'five nodes Ready',
    async () => {
      const list = await admin.list<{ items: Node[] }>('/api/v1/nodes');
      const ready = list.items.filter((n) =>
        n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
      );
      return ready.length === NODES.length ? true : undefined;
    },
    60_000,
  );
  for (const n of SET_B) await k.ok(['label', 'node', n, 'set=b']);
  for (const [name, qps] of [
    ['m60', 6],
    ['m70', 7],
    ['m80', 8],
  ] as const)
    await kubeletConfigMap(admin, localConfig, name, `eventRecordQPS: ${qps}`);
});

after(async () => {
  admin?.close();
  await k?.cleanup();
  await cluster?.stop(5_000);
  if (work) await rm(work, { recursive: true, force: true });
});

describe('undo after later rollouts, on a 5-node cluster', { concurrency: false }, () => {
  it('ra then rc, undone newest first: node-4/5 go back to m60 and to ra, and undo ra restores all five', async () => {
    await start('ra', 'm60', '--max-unavailable', '4');
    assert.equal((await finished('ra')).code, 0);
    await start('rc', 'm70', '--selector', 'set=b', '--max-unavailable', '2');
    assert.equal((await finished('rc')).code, 0);
    assert.deepEqual(
      await nodesNow(),
      expect([
        [['node-1', 'node-2', 'node-3'], 'm60', 'ra'],
        [SET_B, 'm70', 'rc'],
      ]),
    );

    const rc = await undo('rc');
    assert.equal(rc.code, 1, 'Reverted exits 1');
    assert.match(rc.stdout, /nodeconfigrollout "rc" reverted \(2 nodes restored\)\n$/);
    assert.deepEqual(await nodesNow(), expect([[NODES, 'm60', 'ra']]), 'node-4/5 on what rc found, held by ra again');

    const ra = await undo('ra');
    assert.match(ra.stdout, /nodeconfigrollout "ra" reverted \(5 nodes restored\)\n$/);
    assert.deepEqual(await nodesNow(), expect([[NODES, 'local', null]]), 'all five on what ra found');
    const r = await rollout('ra');
    assert.deepEqual(
      NODES.map((n) => r.status?.nodes?.[n]?.state),
      ['Reverted', 'Reverted', 'Reverted', 'Reverted', 'Reverted'],
    );
    assert.equal(condition(r, 'Progressing'), 'every node this rollout changed is back on its previous config source');
    assert.deepEqual((await eventsOf('ra', 'RolloutReverted')).get('RolloutReverted'), [
      'Rollout reverted: 5 nodes restored to their previous config source',
    ]);
  });

  it('ra2 then rc2, undone oldest first: node-4/5 are Overridden in ra2, not Reverted; undo rc2 puts them on m60', async () => {
    await resetNodes();
    await start('ra2', 'm60', '--max-unavailable', '4');
    assert.equal((await finished('ra2')).code, 0);
    await start('rc2', 'm70', '--selector', 'set=b', '--max-unavailable', '2');
    assert.equal((await finished('rc2')).code, 0);

    const ra2 = await undo('ra2');
    assert.match(
      ra2.stdout,
      /node node-4 failed \(Overridden\): not restored: spec\.configSource was changed since this rollout set it \(now ConfigMap kube-system\/m70 \(key kubelet\), rollout rc2\)\n/,
    );
    assert.match(ra2.stdout, /nodeconfigrollout "ra2" reverted \(3 nodes restored, 2 not restored\)\n$/);
    assert.deepEqual(
      await nodesNow(),
      expect([
        [['node-1', 'node-2', 'node-3'], 'local', null],
        [SET_B, 'm70', 'rc2'],
      ]),
    );
    const r = await rollout('ra2');
    assert.deepEqual(
      NODES.map((n) => r.status?.nodes?.[n]?.state),
      ['Reverted', 'Reverted', 'Reverted', 'Overridden', 'Overridden'],
    );
    assert.deepEqual(
      r.status?.failures?.map((f) => [f.node, f.reason]),
      [
        ['node-4', 'Overridden'],
        ['node-5', 'Overridden'],
      ],
    );
    assert.equal(
      condition(r, 'Progressing'),
      '3 of 5 nodes this rollout changed are back on their previous config source; 2 not (see status.nodes)',
    );
    const events = await eventsOf('ra2', 'RolloutReverted');
    assert.deepEqual(events.get('RolloutReverted'), [
      'Rollout reverted: 3 nodes restored to their previous config source, 2 not restored (see status.nodes)',
    ]);

    const rc2 = await undo('rc2');
    assert.match(rc2.stdout, /nodeconfigrollout "rc2" reverted \(2 nodes restored\)\n$/);
    assert.deepEqual(
      await nodesNow(),
      expect([
        [['node-1', 'node-2', 'node-3'], 'local', null],
        [SET_B, 'm60', null],
      ]),
      'what rc2 found; ra2 let go of them',
    );
  });

  it('a rollout deleted mid-flight (kubectl delete) is undone before it goes; a finished one deleted lets go of its nodes', async () => {
    await resetNodes();
    await start('rd', 'm80', '--soak', '5m');
    await waitFor(
      'the canary soaking',
      async () => ((await rollout('rd')).status?.nodes?.['node-1']?.state === 'InFlight' ? true : undefined),
      60_000,
    );
    assert.deepEqual((await nodesNow(['node-1']))['node-1'], { source: 'm80', holder: 'rd' });
    const uid = (await rollout('rd')).metadata.uid;
    // kubectl waits for the object to be gone: the controller undoes it and removes its finalizer.
    await k.ok(['delete', 'ncr', 'rd', '--timeout=90s']);
    assert.match((await k.run(['get', 'ncr', 'rd'])).stderr, /NotFound/);
    assert.deepEqual(await nodesNow(), expect([[NODES, 'local', null]]));
    const list = JSON.parse(await k.ok(['get', 'events', '-n', 'default', '-o', 'json'])) as { items: Event[] };
    const reverted = list.items
      .filter((e) => e.involvedObject.uid === uid && e.reason === 'RolloutReverted')
      .map((e) => e.message);
    assert.deepEqual(reverted, ['Rollout reverted: 1 node restored to their previous config source']);

    await start('re', 'm80', '--selector', 'set=b', '--max-unavailable', '2');
    assert.equal((await finished('re')).code, 0);
    await k.ok(['delete', 'ncr', 're', '--timeout=90s']);
    assert.deepEqual(await nodesNow(SET_B), expect([[SET_B, 'm80', null]]), 'on its config, no longer held');
  });

  it('a Node deleted mid-flight stays in the status as Deleted, with an event; the rollout ends 4 of 5', async () => {
    await resetNodes();
    await start('rf', 'm60', '--canary', '0', '--max-unavailable', '5', '--soak', '20s');
    await waitFor(
      'all five in flight',
      async () => {
        const nodes = (await rollout('rf')).status?.nodes ?? {};
        return NODES.every((n) => nodes[n]?.state === 'InFlight') ? true : undefined;
      },
      60_000,
    );
    await k.ok(['delete', 'node', 'node-3']);
    const rf = await finished('rf');
    assert.equal(rf.code, 0, rf.stdout + rf.stderr);
    assert.match(rf.stdout, /node node-3 was deleted during the rollout\n/);
    const r = await rollout('rf');
    assert.equal(r.status?.nodes?.['node-3']?.state, 'Deleted');
    assert.deepEqual([r.status?.targetNodes, r.status?.succeededNodes, r.status?.failedNodes], [5, 4, 0]);
    assert.equal(condition(r, 'Progressing'), '4 of 5 nodes run the new config (1 deleted during the rollout)');
    const events = await eventsOf('rf', 'NodeDeleted');
    assert.deepEqual(events.get('NodeDeleted'), ['Node node-3 was deleted during the rollout']);
    const live = NODES.filter((n) => n !== 'node-3');
    assert.deepEqual(await nodesNow(live), expect([[live, 'm60', 'rf']]));
  });
});
