// PodDisruptionBudgets and the Eviction API on a real dkc server, driven by the real kubectl: `create pdb` (1.32 on
// policy/v1, 1.20 on policy/v1beta1), `get pdb` with the printers' columns, and evictions POSTed with
// `create --raw`: 201 while the budget allows one, then 429 in kube's words.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type RunningServer } from '../helpers/server.js';
import { kubectl, type Kubectl } from '../helpers/kubectl.js';

const MERGE = ['--type=merge', '--subresource=status', '-p'];

describe('kubectl, PodDisruptionBudgets and evictions', () => {
  let server: RunningServer;
  let k: Kubectl;
  let dir: string;
  before(async () => {
    server = await startServer();
    k = await kubectl('1.32', server.kubeconfig);
    dir = await mkdtemp(join(tmpdir(), 'dkc-eviction-'));
  });
  after(async () => {
    await k?.cleanup();
    await server?.cleanup();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** POSTs `body` to `path` with kubectl create --raw. */
  async function raw(path: string, body: object) {
    const file = join(dir, 'body.json');
    await writeFile(file, JSON.stringify(body));
    return k.run(['create', '--raw', path, '-f', file]);
  }

  /** A pod labelled app=web, bound to n1, Running and Ready. */
  async function readyPod(name: string): Promise<void> {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'web' } } };
    await k.ok(['create', '-f', '-'], {
      input: JSON.stringify({ ...pod, spec: { containers: [{ name: 'app', image: 'nginx' }] } }),
    });
    const bound = await raw(`/api/v1/namespaces/default/pods/${name}/binding`, {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name },
      target: { kind: 'Node', name: 'n1' },
    });
    assert.equal(bound.code, 0, bound.stderr);
    const status = { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } };
    await k.ok(['patch', 'pod', name, ...MERGE, JSON.stringify(status)]);
  }

  it('create pdb, get pdb, then one eviction allowed and the next refused', async () => {
    await readyPod('p');
    await readyPod('q');
    assert.match(await k.ok(['create', 'pdb', 'web', '--selector=app=web', '--min-available=1']), /created/);
    // What the disruption controller would write for two ready pods and minAvailable 1.
    const status = {
      observedGeneration: 1,
      disruptionsAllowed: 1,
      currentHealthy: 2,
      desiredHealthy: 1,
      expectedPods: 2,
    };
    await k.ok(['patch', 'pdb', 'web', ...MERGE, JSON.stringify({ status })]);
    const table = (await k.ok(['get', 'pdb'])).trim().split('\n');
    assert.deepEqual(table[0]?.split(/\s{2,}/), [
      'NAME',
      'MIN AVAILABLE',
      'MAX UNAVAILABLE',
      'ALLOWED DISRUPTIONS',
      'AGE',
    ]);
    assert.deepEqual(table[1]?.split(/\s+/).slice(0, 4), ['web', '1', 'N/A', '1']);

    const eviction = (name: string) => ({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name } });
    const first = await raw('/api/v1/namespaces/default/pods/p/eviction', eviction('p'));
    assert.equal(first.code, 0, first.stderr);
    assert.equal((JSON.parse(first.stdout) as { status: string }).status, 'Success');
    const second = await raw('/api/v1/namespaces/default/pods/q/eviction', eviction('q'));
    assert.notEqual(second.code, 0);
    assert.match(
      second.stderr,
      /Error from server \(TooManyRequests\): Cannot evict pod as it would violate the pod's disruption budget\./,
    );
  });

  it('kubectl 1.20 creates a pdb through policy/v1beta1', async () => {
    const old = await kubectl('1.20', server.kubeconfig);
    try {
      assert.match(await old.ok(['create', 'pdb', 'old', '--selector=app=old', '--max-unavailable=1']), /created/);
      assert.match(await old.ok(['get', 'pdb', 'old', '-o', 'jsonpath={.spec.maxUnavailable}']), /^1$/);
    } finally {
      await old.cleanup();
    }
  });
});
