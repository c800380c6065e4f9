// `kubectl drain` on a `dkc up` cluster of two nodes (real agent processes), with kubectl 1.32 and 1.20: the node is
// cordoned, its bare Pods are evicted (policy/v1 from 1.32, policy/v1beta1 from 1.20), each Pod carries the
// eviction's DisruptionTarget condition while it terminates and is gone only once its node confirmed it, and the
// other node's Pod stays. Also: the refusal of Pods that declare no controller without --force, a server dry run,
// --pod-selector, and a PodDisruptionBudget that allows no disruption (kept by the disruption controller) making
// drain retry until --timeout, then letting it finish once deleted.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RestClient, type WatchEvent } from '../../src/client/index.js';
import type { Node } from '../../src/api/types.js';
import type { Pod } from '../../src/api/workloads.js';
import { startCluster, type Cluster } from '../../src/up/cluster.js';
import { kubectl, type Kubectl, type KubectlResult } from '../helpers/kubectl.js';
import {
  DEFAULT_PODS,
  barePod,
  nodeRuntime,
  podGone,
  recordPodEvents,
  type BarePodOptions,
  type PodEvents,
} from '../helpers/pods.js';
import { waitFor } from '../helpers/wait.js';

const NODE = 'node-1';
const PDBS = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';
const DRAIN = ['drain', NODE, '--force', '--ignore-daemonsets', '--delete-emptydir-data'];
const PDB_RETRY =
  `error when evicting pods/"guarded" -n "default" (will retry after 5s): ` +
  "Cannot evict pod as it would violate the pod's disruption budget.";

interface PdbStatusView {
  metadata: { generation?: number };
  status?: { observedGeneration?: number; disruptionsAllowed?: number; currentHealthy?: number };
}

const lines = (out: string) => out.split('\n').filter((l) => l !== '');
const disruptionTarget = (p: Pod) => p.status?.conditions?.find((c) => c.type === 'DisruptionTarget');

/** Runs a drain without timeout, removes the budget once drain printed its retry line; how the drain ended. */
function drainPastBudget(k: Kubectl, args: string[], removeBudget: () => Promise<void>): Promise<KubectlResult> {
  return new Promise((resolve, reject) => {
    const p = k.spawn(args);
    let stdout = '';
    let stderr = '';
    let removing: Promise<void> | undefined;
    const timer = setTimeout(() => p.kill('SIGKILL'), 20_000);
    p.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (!removing && stderr.includes(PDB_RETRY)) removing = removeBudget();
    });
    p.on('error', reject);
    p.on('close', (code) => {
      clearTimeout(timer);
      (removing ?? Promise.resolve()).then(() => resolve({ code: code ?? -1, stdout, stderr }), reject);
    });
  });
}

/** The watch events of the Pod `name`, in order. */
function eventsOf(events: readonly WatchEvent<Pod>[], name: string): { type: string; pod: Pod }[] {
  return events.flatMap((e) =>
    e.type !== 'ERROR' && e.object.metadata.name === name ? [{ type: e.type, pod: e.object }] : [],
  );
}

/**
 * An eviction marked the Pod and deleted it gracefully; its node stopped it and reported it, keeping the condition;
 * only then was it gone.
 */
function assertEvictedThenConfirmed(seen: { type: string; pod: Pod }[], name: string): void {
  const marked = seen.findIndex((e) => e.pod.metadata.deletionTimestamp && disruptionTarget(e.pod));
  assert.ok(marked >= 0, `${name}: deleted by an eviction, with its DisruptionTarget condition`);
  const target = disruptionTarget(seen[marked]!.pod);
  assert.deepEqual(
    [target?.status, target?.reason, target?.message],
    ['True', 'EvictionByEvictionAPI', 'Eviction API: evicting'],
  );
  const stopped = seen.findIndex((e) => e.pod.status?.phase === 'Succeeded');
  assert.ok(stopped > marked, `${name}: its node stopped it and reported it after the eviction`);
  assert.ok(disruptionTarget(seen[stopped]!.pod), `${name}: the condition stays while it terminates`);
  assert.equal(
    seen.findIndex((e) => e.type === 'DELETED'),
    seen.length - 1,
    `${name}: gone last`,
  );
}

/**
 * The drain lines kubectl prints on stdout, evictions in any order across Pods but each before its Pod goes. At -v=2
 * and above (the tests' -v=8 shows the Eviction bodies) 1.32 adds a `pod/<name> eviction started` line per Pod.
 */
function assertDrainLines(out: string, names: string[], last: string): void {
  const got = lines(out).filter((l) => !/^pod\/\S+ eviction started$/.test(l));
  assert.equal(got[0], `node/${NODE} cordoned`);
  assert.equal(got.at(-1), last);
  const middle = names.flatMap((n) => [`evicting pod default/${n}`, `pod/${n} evicted`]);
  assert.deepEqual(got.slice(1, -1).sort(), middle.sort(), out);
  for (const n of names) assert.ok(got.indexOf(`evicting pod default/${n}`) < got.indexOf(`pod/${n} evicted`));
}

describe('kubectl drain (dkc up, two nodes)', { concurrency: false, timeout: 120_000 }, () => {
  let work = '';
  let cluster: Cluster | undefined;
  let admin: RestClient;
  let k32: Kubectl;
  let k20: Kubectl;
  let record: PodEvents | undefined;
  let staysUid = '';
  const get = (name: string) => admin.get<Pod>(`${DEFAULT_PODS}/${name}`);

  /** Creates bare Pods and waits until their node runs them; their uids. */
  async function running(pods: [string, BarePodOptions?][]): Promise<string[]> {
    for (const [name, options] of pods) await admin.create(DEFAULT_PODS, barePod(name, options));
    return Promise.all(
      pods.map(([name]) =>
        waitFor(
          `${name} Running`,
          async () => {
            const p = await get(name);
            return p.status?.phase === 'Running' ? p.metadata.uid! : undefined;
          },
          20_000,
        ),
      ),
    );
  }

  const unschedulable = async () => (await admin.get<Node>(`/api/v1/nodes/${NODE}`)).spec?.unschedulable === true;

  async function uncordon(k: Kubectl): Promise<void> {
    assert.equal(await k.ok(['uncordon', NODE]), `node/${NODE} uncordoned\n`);
    assert.equal(await unschedulable(), false);
  }

  /** The Pods are gone from the API and from node-1's runtime, each evicted and confirmed by node-1; node-2's stays. */
  async function assertEvicted(names: string[], uids: string[]): Promise<void> {
    for (const name of names) assert.ok(await podGone(admin, `${DEFAULT_PODS}/${name}`), `${name} gone from the API`);
    const onNode = (await nodeRuntime(cluster!.nodes[0]!.dir)).pods;
    for (const uid of uids) assert.equal(onNode[uid], undefined, `nothing of ${uid} left on ${NODE}`);
    assert.ok((await nodeRuntime(cluster!.nodes[1]!.dir)).pods[staysUid], 'node-2 still runs its Pod');
    assert.equal((await get('stays')).status?.phase, 'Running');
    for (const name of names) {
      const seen = await waitFor(`${name}'s DELETED event`, () => {
        const ofPod = eventsOf(record!.events, name);
        return ofPod.at(-1)?.type === 'DELETED' ? ofPod : undefined;
      });
      assertEvictedThenConfirmed(seen, name);
      await waitFor(`${NODE} confirming the delete of ${name}`, async () =>
        (await readFile(cluster!.nodes[0]!.logFile, 'utf8')).includes(
          `Pod fully terminated and removed from etcd pod="default/${name}"`,
        ),
      );
    }
  }

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'dkc-drain-'));
    cluster = await startCluster({ dataDir: join(work, 'cluster'), nodes: 2, port: 0 });
    admin = await RestClient.fromKubeconfig(cluster.kubeconfig);
    k32 = await kubectl('1.32', cluster.kubeconfig);
    k20 = await kubectl('1.20', cluster.kubeconfig);
    staysUid = (await running([['stays', { nodeName: 'node-2' }]]))[0]!;
    record = await recordPodEvents(admin, DEFAULT_PODS);
  });
  after(async () => {
    record?.stop();
    await k32?.cleanup();
    await k20?.cleanup();
    admin?.close();
    await cluster?.stop(5_000);
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("kubectl 1.32 drains node-1 with policy/v1 evictions; node-2's Pod stays; uncordon", async () => {
    const uids = await running([['a32'], ['b32', { emptyDir: true }]]);
    const r = await k32.run([...DRAIN, '--timeout=30s', '-v=8']);
    assert.equal(r.code, 0, r.stderr);
    assertDrainLines(r.stdout, ['a32', 'b32'], `node/${NODE} drained`);
    // A later filter's warning replaces an earlier one's for the same Pod: b32 is named for no controller only.
    assert.ok(
      lines(r.stderr).includes('Warning: deleting Pods that declare no controller: default/a32, default/b32'),
      r.stderr,
    );
    assert.match(r.stderr, /"kind":"Eviction","apiVersion":"policy\/v1"/);
    assert.ok(await unschedulable(), 'cordoned');
    await assertEvicted(['a32', 'b32'], uids);
    await uncordon(k32);
  });

  it('kubectl 1.20 drains node-1 with policy/v1beta1 evictions; uncordon', async () => {
    const uids = await running([['a20'], ['b20', { emptyDir: true }]]);
    const r = await k20.run([...DRAIN, '--timeout=30s', '-v=8']);
    assert.equal(r.code, 0, r.stderr);
    // kubectl before 1.23 names the node with the verb of its last Pod, not `drained` (upstream's own slip).
    assertDrainLines(r.stdout, ['a20', 'b20'], `node/${NODE} evicted`);
    const unmanaged = 'deleting Pods not managed by ReplicationController, ReplicaSet, Job, DaemonSet or StatefulSet';
    assert.ok(lines(r.stderr).includes(`WARNING: ${unmanaged}: default/a20, default/b20`), r.stderr);
    assert.match(r.stderr, /"kind":"Eviction","apiVersion":"policy\/v1beta1"/);
    await assertEvicted(['a20', 'b20'], uids);
    await uncordon(k20);
  });

  it('without --force, a Pod that declares no controller is refused and stays', async () => {
    await running([['lone', { labels: { app: 'lone' } }]]);
    const r32 = await k32.run(['drain', NODE, '--ignore-daemonsets']);
    assert.equal(r32.code, 1);
    assert.match(
      r32.stderr,
      /^error: unable to drain node "node-1" due to error: cannot delete cannot delete Pods that declare no controller \(use --force to override\): default\/lone, continuing command\.\.\.$/m,
    );
    const r20 = await k20.run(['drain', NODE, '--ignore-daemonsets']);
    assert.equal(r20.code, 1);
    assert.match(
      r20.stderr,
      /^error: cannot delete Pods not managed by ReplicationController, ReplicaSet, Job, DaemonSet or StatefulSet \(use --force to override\): default\/lone$/m,
    );
    const lone = await get('lone');
    assert.equal(lone.metadata.deletionTimestamp, undefined);
    assert.equal(disruptionTarget(lone), undefined, 'no eviction was asked');
    await uncordon(k32);
  });

  it('--dry-run=server changes nothing: 1.32 reports the drain, 1.20 fails before evicting', async () => {
    const r32 = await k32.ok([...DRAIN, '--dry-run=server']);
    assert.deepEqual(lines(r32), [
      `node/${NODE} cordoned (server dry run)`,
      'evicting pod default/lone (server dry run)',
      `node/${NODE} drained (server dry run)`,
    ]);
    // kubectl 1.20 checks dry-run support of the Pod's empty kind, then lists apiextensions.k8s.io/v1beta1
    // CRDs, which no 1.22+ server serves (kubectl 1.21 fixed the check).
    const r20 = await k20.run([...DRAIN, '--dry-run=server']);
    assert.equal(r20.code, 1);
    assert.match(r20.stdout, /^evicting pod default\/lone \(server dry run\)$/m);
    assert.match(
      r20.stderr,
      /error when evicting pods\/"lone" -n "default": failed to check CRD: failed to list CRDs: the server could not find the requested resource/,
    );
    assert.equal(await unschedulable(), false, 'not cordoned');
    const lone = await get('lone');
    assert.equal(lone.metadata.deletionTimestamp, undefined);
    assert.equal(disruptionTarget(lone), undefined);
  });

  it('--pod-selector evicts only the Pods it selects', async () => {
    const [pickedUid] = await running([['picked', { labels: { app: 'picked' } }]]);
    const r32 = await k32.ok(['drain', NODE, '--force', '--pod-selector', 'app=picked']);
    assert.equal(r32, `node/${NODE} cordoned\nevicting pod default/picked\npod/picked evicted\nnode/${NODE} drained\n`);
    await assertEvicted(['picked'], [pickedUid!]);
    const loneUid = (await get('lone')).metadata.uid!;
    assert.ok((await nodeRuntime(cluster!.nodes[0]!.dir)).pods[loneUid], 'the unselected Pod still runs');
    const r20 = await k20.ok(['drain', NODE, '--force', '--pod-selector', 'app=lone']);
    assert.equal(
      r20,
      `node/${NODE} already cordoned\nevicting pod default/lone\npod/lone evicted\nnode/${NODE} evicted\n`,
    );
    await assertEvicted(['lone'], [loneUid]);
    await uncordon(k20);
  });

  it('a PodDisruptionBudget that allows no disruption: drain retries until --timeout; once deleted, drain finishes', async () => {
    const [guardedUid] = await running([['guarded', { labels: { app: 'guarded' } }]]);
    await admin.create(PDBS, {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'guard' },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'guarded' } } },
    });
    await waitFor('the disruption controller allows no disruption of guard', async () => {
      const pdb = await admin.get<PdbStatusView>(`${PDBS}/guard`);
      const s = pdb.status;
      return s?.observedGeneration === pdb.metadata.generation && s?.currentHealthy === 1 && s.disruptionsAllowed === 0;
    });
    const args = ['drain', NODE, '--force', '--pod-selector', 'app=guarded'];
    const stopped = await k32.run([...args, '--timeout=8s']);
    assert.notEqual(stopped.code, 0);
    assert.ok(lines(stopped.stderr).includes(PDB_RETRY), stopped.stderr);
    assert.match(stopped.stderr, /error when evicting pods\/"guarded" -n "default": global timeout reached: 8s/);
    const guarded = await get('guarded');
    assert.equal(guarded.metadata.deletionTimestamp, undefined, 'the budget kept it');
    assert.equal(guarded.status?.phase, 'Running');

    const finished = await drainPastBudget(k20, args, () => admin.delete(`${PDBS}/guard`).then(() => undefined));
    assert.equal(finished.code, 0, finished.stderr);
    assert.ok(lines(finished.stderr).includes(PDB_RETRY), finished.stderr);
    assert.deepEqual(lines(finished.stdout), [
      `node/${NODE} already cordoned`,
      'evicting pod default/guarded',
      'evicting pod default/guarded',
      'pod/guarded evicted',
      `node/${NODE} evicted`,
    ]);
    await assertEvicted(['guarded'], [guardedUid!]);
    await uncordon(k32);
  });
});
