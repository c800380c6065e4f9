// The taint eviction controller inside `dkc server`, against its API: Pods on a node with a NoExecute taint they do
// not tolerate are marked DisruptionTarget and deleted at once; tolerated for a while, when that runs out; tolerated
// for ever, never; and a taint removed in time cancels the deletion, with kube's events.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Event } from '../../../src/api/types.js';
import type { Pod } from '../../../src/api/workloads.js';
import { RestClient } from '../../../src/client/index.js';
import { startServer, type RunningServer } from '../../helpers/server.js';
import { waitFor } from '../../helpers/wait.js';

const TAINT = { key: 'example.com/maintenance', value: 'now', effect: 'NoExecute' };
const PODS = '/api/v1/namespaces/default/pods';

let server: RunningServer;
let admin: RestClient;

before(async () => {
  server = await startServer(['--controllers=tainteviction']);
  admin = await RestClient.fromKubeconfig(server.kubeconfig, { timeoutMs: 5_000 });
});
after(async () => {
  admin?.close();
  await server?.cleanup();
});

const node = (name: string) =>
  admin.create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: { taints: [TAINT] } });
const pod = (name: string, nodeName: string, tolerations: object[] = []) =>
  admin.create<Pod>(PODS, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { nodeName, tolerations, containers: [{ name: 'c', image: 'pause' }] },
  });
const get = (name: string) => admin.get<Pod>(`${PODS}/${name}`);
const deleting = async (name: string) => ((await get(name)).metadata.deletionTimestamp ? true : undefined);

describe('taint eviction controller', () => {
  it('deletes at once, after tolerationSeconds, or never, and a taint removed in time cancels', async () => {
    await node('te-a');
    await node('te-b');
    const started = Date.now();
    await pod('untolerated', 'te-a');
    await pod('two-seconds', 'te-a', [
      { key: TAINT.key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 2 },
    ]);
    await pod('for-ever', 'te-a', [{ key: TAINT.key, operator: 'Exists', effect: 'NoExecute' }]);
    await pod('cancelled', 'te-b', [{ key: TAINT.key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 3 }]);

    await waitFor('the untolerated Pod marked for deletion', () => deleting('untolerated'), 10_000, 50);
    const marked = await get('untolerated');
    const target = marked.status?.conditions?.find((c) => c.type === 'DisruptionTarget');
    assert.deepEqual(
      [target?.status, target?.reason, target?.message],
      ['True', 'DeletionByTaintManager', 'Taint manager: deleting due to NoExecute taint'],
    );
    assert.equal(marked.metadata.deletionGracePeriodSeconds, 30, "its own grace period: the node's kubelet confirms");

    // The taint on te-b goes before its Pod's three seconds run out.
    await admin.patch('/api/v1/nodes/te-b', 'merge', { spec: { taints: [] } });
    await waitFor('the two-second Pod marked', () => deleting('two-seconds'), 10_000, 50);
    assert.ok(Date.now() - started >= 1_900, 'not before its two seconds');
    await new Promise((r) => setTimeout(r, Math.max(0, started + 4_000 - Date.now())));
    assert.equal((await get('cancelled')).metadata.deletionTimestamp, undefined, 'the taint went in time');
    assert.equal((await get('for-ever')).metadata.deletionTimestamp, undefined, 'tolerated without seconds');

    // Events are sent beside the writes, not before them: waited for.
    await waitFor(
      'the Marking and Cancelling events',
      async () => {
        const events = await admin.list<{ items: Event[] }>('/api/v1/namespaces/default/events');
        const said = events.items.filter((e) => e.reason === 'TaintManagerEviction').map((e) => e.message);
        return said.includes('Marking for deletion Pod default/untolerated') &&
          said.includes('Cancelling deletion of Pod default/cancelled')
          ? true
          : undefined;
      },
      10_000,
      50,
    );
  });
});
