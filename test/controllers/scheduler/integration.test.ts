// The scheduler inside `dkc server`, against its API: Pods with no node are bound through pods/binding to nodes that
// fit, spread over them; one that fits nowhere stays Pending with PodScheduled=False and kube's FailedScheduling text,
// and is bound once a node makes room for it.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Event } from '../../../src/api/types.js';
import type { Pod } from '../../../src/api/workloads.js';
import { RestClient } from '../../../src/client/index.js';
import { readyNode } from '../../helpers/cluster.js';
import { startServer, type RunningServer } from '../../helpers/server.js';
import { waitFor } from '../../helpers/wait.js';

const PODS = '/api/v1/namespaces/default/pods';

let server: RunningServer;
let admin: RestClient;

before(async () => {
  server = await startServer(['--controllers=scheduler']);
  admin = await RestClient.fromKubeconfig(server.kubeconfig, { timeoutMs: 5_000 });
});
after(async () => {
  admin?.close();
  await server?.cleanup();
});

const node = (name: string, cpu: string, unschedulable = false) => readyNode(admin, name, { unschedulable }, cpu);
const pod = (name: string, cpu: string) =>
  admin.create<Pod>(PODS, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: [{ name: 'c', image: 'pause', resources: { requests: { cpu } } }] },
  });
const get = (name: string) => admin.get<Pod>(`${PODS}/${name}`);

describe('scheduler', () => {
  it('binds Pods to fitting nodes, spread; one that fits nowhere waits with the reason, then goes', async () => {
    await node('s-1', '1');
    await node('s-2', '1');
    await node('s-3', '8', true);
    for (let i = 1; i <= 4; i++) await pod(`small-${i}`, '100m');
    const placed = await waitFor(
      'the four small Pods bound',
      async () => {
        const nodes = await Promise.all([1, 2, 3, 4].map(async (i) => (await get(`small-${i}`)).spec?.nodeName));
        return nodes.every((n) => n) ? nodes : undefined;
      },
      15_000,
      50,
    );
    assert.deepEqual(
      [...placed].sort(),
      ['s-1', 's-1', 's-2', 's-2'],
      'spread over the two schedulable nodes, never the cordoned one',
    );
    const scheduled = (await get('small-1')).status?.conditions?.find((c) => c.type === 'PodScheduled');
    assert.equal(scheduled?.status, 'True');

    await pod('big', '4');
    const waiting = await waitFor(
      'big unschedulable',
      async () => {
        const c = (await get('big')).status?.conditions?.find((x) => x.type === 'PodScheduled');
        return c?.status === 'False' ? c : undefined;
      },
      15_000,
      50,
    );
    assert.equal(waiting.reason, 'Unschedulable');
    assert.match(
      waiting.message ?? '',
      /^0\/3 nodes are available: 1 node\(s\) were unschedulable, 2 Insufficient cpu\./,
    );
    // Events are sent beside the writes, not before them: waited for.
    const events = () => admin.list<{ items: Event[] }>('/api/v1/namespaces/default/events').then((l) => l.items);
    await waitFor(
      'the FailedScheduling and Scheduled events',
      async () => {
        const all = await events();
        const failed = all.some((e) => e.reason === 'FailedScheduling' && e.message === waiting.message);
        const scheduled = all.some(
          (e) =>
            e.reason === 'Scheduled' && /^Successfully assigned default\/small-\d to s-[12]$/.test(e.message ?? ''),
        );
        return failed && scheduled ? true : undefined;
      },
      10_000,
      50,
    );

    await admin.patch('/api/v1/nodes/s-3', 'merge', { spec: { unschedulable: false } });
    await waitFor(
      'big bound to s-3',
      async () => ((await get('big')).spec?.nodeName === 's-3' ? true : undefined),
      15_000,
      50,
    );
  });
});
