// A fleet's nodes judge configs by the NodeConfigPolicies that govern them with the same agent code as `dkc agent`,
// from one watch shared by the fleet: against an API server that judges no policy at admission, a ConfigMap assigned
// to every node runs on the ungoverned ones and is refused by the governed ones, with the policy named.

import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import type { Node } from '../../src/api/types.js';
import { RestClient } from '../../src/client/index.js';
import { startFleet, type Fleet } from '../../src/fleet/index.js';
import { startCluster, type Cluster } from '../../src/up/cluster.js';
import { configureLogging } from '../../src/util/klog.js';
import { kubectl, type Kubectl } from '../helpers/kubectl.js';
import { kubeletConfigMap, kubeletSource } from '../helpers/nodeconfig.js';
import { waitFor } from '../helpers/wait.js';
import { stopFleetCluster } from './teardown.js';

const NODES = ['sim-1', 'sim-2', 'sim-3', 'sim-4'];
const GOVERNED = new Set(['sim-1', 'sim-2']);
const POOL = 'node-restriction.kubernetes.io/pool';

let work = '';
let cluster: Cluster | undefined;
let fleet: Fleet | undefined;
let admin: RestClient;
let k: Kubectl | undefined;

/** Active policy watches, from the server's apiserver_longrunning_requests. */
async function policyWatches(): Promise<number> {
  const text = (await admin.request<string>({ method: 'GET', path: '/metrics', accept: 'text/plain' })).body;
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith('apiserver_longrunning_requests{') &&
        l.includes('verb="WATCH"') &&
        l.includes('resource="nodeconfigpolicies"'),
    );
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'dkc-fleet-policy-'));
  configureLogging({ sink: (line) => void (line.startsWith('I') ? undefined : process.stderr.write(line)) });
  cluster = await startCluster({
    dataDir: join(work, 'cluster'),
    nodes: 0,
    port: 0,
    serverArgs: ['--disable-admission-plugins=NodeConfigPolicy'],
  });
  admin = await RestClient.fromKubeconfig(cluster.kubeconfig);
  k = await kubectl('1.32', cluster.kubeconfig);
  await k.ok(['apply', '-f', '-'], {
    input: `apiVersion: dkc.io/v1alpha1\nkind: NodeConfigPolicy\nmetadata: {name: blue-deny}\nspec:\n  nodeSelector: {matchLabels: {${POOL}: blue}}\n  allowedFields: [eventRecordQPS]\n`,
  });
});

after(async () => {
  await k?.cleanup();
  await stopFleetCluster({ fleet, admin, cluster, work });
});

it('governed simulated nodes refuse a denied config with the policy named; the others run it; one watch for the fleet', async () => {
  const watchesBefore = await policyWatches();
  fleet = await startFleet({
    kubeconfig: cluster!.kubeconfig,
    nodes: NODES.length,
    dataDir: join(work, 'fleet'),
    port: 0,
  });
  assert.equal(await fleet.ready(60_000), true);
  for (const n of GOVERNED) await k!.ok(['label', 'node', n, `${POOL}=blue`]);
  const local = await readFile(join(work, 'fleet', 'config.yaml'), 'utf8');
  await kubeletConfigMap(admin, local, 'denied', 'eventRecordQPS: 7\ncontainerLogMaxFiles: 7');
  for (const n of NODES)
    await admin.patch(`/api/v1/nodes/${n}`, 'merge', { spec: { configSource: kubeletSource('denied') } });
  for (const n of NODES) {
    await waitFor(
      `${n} deciding`,
      async () => {
        const s = (await admin.get<Node>(`/api/v1/nodes/${n}`)).status?.config;
        if (GOVERNED.has(n))
          return s?.assigned?.configMap?.name === 'denied' &&
            s.error === 'config denied by NodeConfigPolicy "blue-deny", see Kubelet log for details' &&
            !s.active
            ? true
            : undefined;
        return s?.active?.configMap?.name === 'denied' && !s.error ? true : undefined;
      },
      60_000,
      100,
    );
  }
  assert.equal(await policyWatches(), watchesBefore + 1, 'the fleet shares one watch on NodeConfigPolicies');
});
