// A mixed fleet from one command: startCluster (dkc up) cycles --kubelet-version over its agents, each agent starts as
// that kubelet (1.30 and 1.36 no longer register DynamicKubeletConfig, so they run dkc's dynamic config without it)
// and reports the version in status.nodeInfo.kubeletVersion, read here through kubectl.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultLocalConfig } from '../../src/agent/clusterconfig.js';
import { startCluster, type Cluster } from '../../src/up/cluster.js';
import { kubectl, type Kubectl } from '../helpers/kubectl.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

let server: RunningServer;
let cluster: Cluster | undefined;
let k: Kubectl | undefined;

before(async () => {
  server = await startServer();
  k = await kubectl('1.32', server.kubeconfig);
});

after(async () => {
  await cluster?.stop(0);
  await k?.cleanup();
  await server?.cleanup();
});

test('dkc up --kubelet-version 1.22,1.30,1.36: each node runs as its kubelet and reports it', async () => {
  cluster = await startCluster({
    dataDir: server.dataDir,
    nodes: 3,
    port: 0,
    externalServerURL: server.url,
    nodeNames: ['kv-1', 'kv-2', 'kv-3'],
    kubeletVersions: ['1.22', '1.30', '1.36'],
    localConfig: defaultLocalConfig,
  });
  const gated = cluster.nodes.map((n) => n.args.includes('--feature-gates=DynamicKubeletConfig=true'));
  assert.deepEqual(gated, [true, false, false]);
  const versions = await waitFor('three Ready nodes with their kubelet versions', async () => {
    const r = await k!.run([
      'get',
      'nodes',
      '-o',
      'jsonpath={range .items[*]}{.metadata.name}={.status.nodeInfo.kubeletVersion}={.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}',
    ]);
    const lines = r.stdout
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('kv-'));
    return lines.length === 3 && lines.every((l) => l.endsWith('=True')) ? lines.sort() : undefined;
  });
  assert.deepEqual(versions, ['kv-1=v1.22.0=True', 'kv-2=v1.30.0=True', 'kv-3=v1.36.0=True']);
});
