// The official Kubernetes client for Python (Debian's python3-kubernetes, as kopf, Ansible and many scripts use it)
// against a real dkc server: it sends `?watch=True`, which must be a watch stream, not a list; and it runs a
// Deployment and evicts one of its Pods.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { RestClient } from '../../src/client/index.js';
import { startServer, type RunningServer } from '../helpers/server.js';

const run = promisify(execFile);
const fixture = (name: string) => fileURLToPath(new URL(`../../../test/e2e/fixtures/${name}`, import.meta.url));
const script = fixture('python_client.py');
// Debian's package installs for the system interpreter, whatever python3 comes first on PATH.
const python = '/usr/bin/python3';

let server: RunningServer;
let api: RestClient;

before(async () => {
  server = await startServer();
  api = await RestClient.fromKubeconfig(server.kubeconfig);
});

after(async () => {
  api?.close();
  await server?.cleanup();
});

describe('the official Python client', () => {
  it('lists, watches, patches spec.configSource and reads the typed status.config', async () => {
    await api.create('/api/v1/nodes', { metadata: { name: 'py-node' } });
    const active = {
      configMap: {
        name: 'py-config',
        namespace: 'kube-system',
        uid: 'u-1',
        resourceVersion: '7',
        kubeletConfigKey: 'kubelet',
      },
    };
    await api.patch('/api/v1/nodes/py-node/status', 'merge', {
      status: { config: { active, assigned: active, lastKnownGood: active } },
    });
    const { stdout } = await run(python, [script, server.kubeconfig, 'py-node'], { timeout: 60_000 });
    const out = JSON.parse(stdout) as {
      listed: string[];
      events: [string, string][];
      assigned_in_spec: string;
      active: Record<string, string>;
    };
    assert.deepEqual(out.listed, ['py-node']);
    assert.deepEqual(out.events, [
      ['ADDED', 'py-node'],
      ['MODIFIED', 'py-node'],
    ]);
    assert.equal(out.assigned_in_spec, 'py-config');
    assert.deepEqual(out.active, { name: 'py-config', uid: 'u-1', resourceVersion: '7' });
    const node = await api.get<{ spec: { configSource?: { configMap?: { name: string } } } }>('/api/v1/nodes/py-node');
    assert.equal(node.spec.configSource?.configMap?.name, 'py-config');
  });

  it('creates a Deployment, watches the Pods its ReplicaSet makes, evicts one and sees it replaced', async () => {
    const { stdout } = await run(python, [fixture('python_workloads.py'), server.kubeconfig], { timeout: 60_000 });
    const out = JSON.parse(stdout) as {
      strategy: string;
      added: string[];
      owners: string[];
      deleted: string[];
      evicted: string;
    };
    assert.equal(out.strategy, 'RollingUpdate', 'defaulted by the server');
    assert.equal(out.added.length, 3, 'two, then the replacement');
    assert.deepEqual(out.owners, ['ReplicaSet', 'ReplicaSet', 'ReplicaSet']);
    assert.deepEqual(out.deleted, [out.evicted], 'an unbound Pod goes at once when evicted');
    for (const name of out.added) assert.match(name, /^py-web-[a-z0-9]+-[a-z0-9]{5}$/);
  });
});
