// Workloads on a `dkc up` cluster of three nodes (real agent processes, the controllers in the server), with real
// kubectl 1.32 and 1.20: a Deployment created by `kubectl create deployment` rolls out, scales and is listed with its
// nodes and IPs; a DaemonSet runs one Pod per node; `kubectl drain --ignore-daemonsets` evicts the Deployment's Pods,
// which come back Running on the other nodes, and leaves the DaemonSet's; a Pod with local storage is refused
// without --delete-emptydir-data; a PodDisruptionBudget made with `kubectl create pdb` holds a drain until --timeout.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RestClient } from '../../src/client/index.js';
import type { Pod } from '../../src/api/workloads.js';
import { startCluster, type Cluster } from '../../src/up/cluster.js';
import { kubectl, type Kubectl } from '../helpers/kubectl.js';
import { DEFAULT_PODS } from '../helpers/pods.js';
import { waitFor } from '../helpers/wait.js';
import { repoRoot } from '../helpers/paths.js';

const IMAGE = 'registry.k8s.io/pause:3.9';
const DAEMONSET = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: node-agent
spec:
  selector:
    matchLabels: { app: node-agent }
  template:
    metadata:
      labels: { app: node-agent }
    spec:
      containers: [{ name: agent, image: ${IMAGE} }]
`;

const lines = (out: string) => out.split('\n').filter((l) => l !== '');

describe('workloads (dkc up, three nodes)', { concurrency: false, timeout: 180_000 }, () => {
  let work = '';
  let cluster: Cluster | undefined;
  let admin: RestClient;
  let k32: Kubectl;
  let k20: Kubectl;

  /** The default namespace's Pods with `app`, Running and not terminating, by node. */
  async function runningByNode(app: string): Promise<Record<string, string[]>> {
    const list = await admin.list<{ items: Pod[] }>(DEFAULT_PODS, { labelSelector: `app=${app}` });
    const out: Record<string, string[]> = {};
    for (const p of list.items) {
      if (p.status?.phase !== 'Running' || p.metadata.deletionTimestamp) continue;
      (out[p.spec?.nodeName ?? ''] ??= []).push(p.metadata.name ?? '');
    }
    return out;
  }
  const count = (byNode: Record<string, string[]>) => Object.values(byNode).flat().length;

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'dkc-workloads-'));
    cluster = await startCluster({ dataDir: join(work, 'cluster'), nodes: 3, port: 0 });
    admin = await RestClient.fromKubeconfig(cluster.kubeconfig);
    k32 = await kubectl('1.32', cluster.kubeconfig);
    k20 = await kubectl('1.20', cluster.kubeconfig);
    await waitFor(
      'three nodes Ready',
      async () => {
        const nodes = await admin.list<{ items: { status?: { conditions?: { type: string; status: string }[] } }[] }>(
          '/api/v1/nodes',
        );
        const ready = nodes.items.filter((n) =>
          n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        );
        return ready.length === 3 ? true : undefined;
      },
      30_000,
    );
  });
  after(async () => {
    await k32?.cleanup();
    await k20?.cleanup();
    admin?.close();
    await cluster?.stop(5_000);
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('the documented demo workload is accepted by the server as it stands', async () => {
    const demo = join(repoRoot, 'deploy', 'examples', 'workloads-demo.yaml');
    assert.deepEqual(lines(await k32.ok(['apply', '--dry-run=server', '-f', demo])), [
      'deployment.apps/web created (server dry run)',
      'poddisruptionbudget.policy/web created (server dry run)',
      'daemonset.apps/node-agent created (server dry run)',
    ]);
  });

  it('kubectl create deployment rolls out six replicas, spread, listed with nodes and IPs; scale', async () => {
    assert.equal(
      await k32.ok(['create', 'deployment', 'web', `--image=${IMAGE}`, '--replicas=6']),
      'deployment.apps/web created\n',
    );
    assert.match(
      await k32.ok(['rollout', 'status', 'deployment/web', '--timeout=60s']),
      /deployment "web" successfully rolled out\n$/,
    );
    const byNode = await runningByNode('web');
    assert.equal(count(byNode), 6);
    assert.equal(Object.keys(byNode).length, 3, `spread over the three nodes: ${JSON.stringify(byNode)}`);
    const wide = lines(await k32.ok(['get', 'pods', '-o', 'wide', '-l', 'app=web']));
    assert.match(wide[0]!, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES$/);
    for (const row of wide.slice(1))
      assert.match(row, /^web-[a-z0-9]+-[a-z0-9]{5}\s+1\/1\s+Running\s+0\s+\S+\s+10\.\d+\.\d+\.\d+\s+node-[123]\s/);

    assert.equal(await k20.ok(['scale', 'deployment/web', '--replicas=4']), 'deployment.apps/web scaled\n');
    assert.match(
      await k20.ok(['rollout', 'status', 'deployment/web', '--timeout=60s']),
      /deployment "web" successfully rolled out\n$/,
    );
    await waitFor('four web Pods', async () => (count(await runningByNode('web')) === 4 ? true : undefined), 30_000);
  });

  it('a DaemonSet runs one Pod per node', async () => {
    const file = join(work, 'daemonset.yaml');
    await writeFile(file, DAEMONSET);
    assert.equal(await k20.ok(['apply', '-f', file]), 'daemonset.apps/node-agent created\n');
    assert.match(
      await k32.ok(['rollout', 'status', 'daemonset/node-agent', '--timeout=60s']),
      /daemon set "node-agent" successfully rolled out\n$/,
    );
    const byNode = await runningByNode('node-agent');
    assert.deepEqual(Object.keys(byNode).sort(), ['node-1', 'node-2', 'node-3']);
    assert.ok(
      Object.values(byNode).every((names) => names.length === 1),
      JSON.stringify(byNode),
    );
  });

  it("a Pod with local storage is refused without --delete-emptydir-data, in kubectl's words", async () => {
    await admin.create('/apis/apps/v1/namespaces/default/deployments', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'scratch' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'scratch' } },
        template: {
          metadata: { labels: { app: 'scratch' } },
          spec: { containers: [{ name: 'c', image: IMAGE }], volumes: [{ name: 'tmp', emptyDir: {} }] },
        },
      },
    });
    const [node, [name]] = await waitFor('the scratch Pod Running', async () => {
      const entries = Object.entries(await runningByNode('scratch'));
      return entries.length === 1 ? entries[0]! : undefined;
    });
    const r = await k32.run(['drain', node, '--ignore-daemonsets', '--timeout=10s']);
    assert.equal(r.code, 1, r.stdout);
    assert.match(
      r.stderr,
      new RegExp(`cannot delete Pods with local storage \\(use --delete-emptydir-data to override\\): default/${name}`),
    );
    assert.deepEqual(Object.keys(await runningByNode('scratch')), [node], 'it stays');
    await k32.ok(['uncordon', node]);
    await k32.ok(['delete', 'deployment', 'scratch']);
  });

  it('kubectl create pdb holds a drain until --timeout; with room, the drained Pods come back on the other nodes', async () => {
    assert.equal(
      await k32.ok(['create', 'pdb', 'web', '--selector=app=web', '--min-available=4']),
      'poddisruptionbudget.policy/web created\n',
    );
    await waitFor('the budget allows no disruption', async () => {
      const pdb = await admin.get<{ status?: { currentHealthy?: number; disruptionsAllowed?: number } }>(
        '/apis/policy/v1/namespaces/default/poddisruptionbudgets/web',
      );
      return pdb.status?.currentHealthy === 4 && pdb.status.disruptionsAllowed === 0 ? true : undefined;
    });
    const node = Object.keys(await runningByNode('web')).sort()[0]!;
    const held = await k32.run(['drain', node, '--ignore-daemonsets', '--timeout=8s']);
    assert.notEqual(held.code, 0);
    assert.match(
      held.stderr,
      /error when evicting pods\/"web-[a-z0-9-]+" -n "default" \(will retry after 5s\): Cannot evict pod as it would violate the pod's disruption budget\./,
    );
    assert.equal(count(await runningByNode('web')), 4, 'the budget kept them all');

    await k32.ok(['patch', 'pdb', 'web', '--type=merge', '-p', '{"spec":{"minAvailable":2}}']);
    const drained = await k20.run(['drain', node, '--ignore-daemonsets', '--timeout=60s']);
    assert.equal(drained.code, 0, drained.stderr);
    assert.match(drained.stdout, /^pod\/web-[a-z0-9-]+ evicted$/m);
    const daemon = (await runningByNode('node-agent'))[node]![0]!;
    assert.match(drained.stderr, new RegExp(`ignoring DaemonSet-managed Pods: default/${daemon}`));
    const after = await waitFor(
      'four web Pods Running again, none on the drained node',
      async () => {
        const byNode = await runningByNode('web');
        return count(byNode) === 4 && !byNode[node] ? byNode : undefined;
      },
      60_000,
    );
    assert.equal(Object.keys(after).length, 2, `on the two other nodes: ${JSON.stringify(after)}`);
    assert.deepEqual(
      (await runningByNode('node-agent'))[node],
      [daemon],
      'the DaemonSet Pod stays on the drained node',
    );
    await k20.ok(['uncordon', node]);
  });
});
