// Registration, status reporting, the Lease and events against a real `dkc server`.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Event, KubeList, Lease, Node } from '../../../src/api/types.js';
import { ApiError, ClientError, RestClient } from '../../../src/client/index.js';
import { Duration, Quantity, setDefaults } from '../../../src/kubeletconfig/index.js';
import {
  buildNodeStatus,
  computeAllocatable,
  computeCapacity,
  isNodeAgentError,
  LeaseRenewer,
  leasePath,
  NodeStatusReporter,
  registerNode,
  statusSource,
  type HostSystemInfo,
  type StatusClient,
} from '../../../src/agent/node/index.js';
import { formatMicroTime } from '../../../src/util/clock.js';
import { createEventDirectly, EventRecorder, nodeReference } from '../../../src/client/events.js';
import { startServer, type RunningServer } from '../../helpers/server.js';
import { FakeClock, TimerCountingClock } from '../../helpers/fakeclock.js';
import { freePort } from './netutil.js';
import { waitFor } from '../../helpers/wait.js';

let server: RunningServer;
let client: RestClient;
let dead: RestClient;

const system: HostSystemInfo = {
  machineID: 'm',
  systemUUID: 'u',
  bootID: 'b',
  kernelVersion: '6.1.0',
  osImage: 'Test OS',
  operatingSystem: 'linux',
  architecture: 'amd64',
};
const config = setDefaults({
  nodeStatusUpdateFrequency: Duration.parse('10s'),
  nodeStatusReportFrequency: Duration.parse('1m'),
});
const capacity = computeCapacity({ cpu: Quantity.parse('4'), memory: Quantity.parse('8Gi') }, config);
const inputs = {
  config,
  capacity,
  allocatable: computeAllocatable(capacity, config),
  nodeIP: '127.0.0.1',
  hostname: 'h',
  system,
};

const nodePath = (name: string): string => `/api/v1/nodes/${name}`;

before(async () => {
  server = await startServer();
  client = await RestClient.fromKubeconfig(server.kubeconfig);
  // Nothing listens here: every request fails to connect.
  dead = new RestClient(
    { server: `https://127.0.0.1:${await freePort()}`, insecureSkipTLSVerify: true },
    { timeoutMs: 2000 },
  );
});

after(async () => {
  client?.close();
  dead?.close();
  await server?.cleanup();
});

describe('registerNode', () => {
  it('creates the Node with the default labels and --node-labels, and no configSource', async () => {
    const status = buildNodeStatus({ ...inputs, now: new Date(), ready: true });
    const created = await registerNode(client, {
      nodeName: 'reg-a',
      labels: { 'node-role.kubernetes.io/worker': '', 'example.com/zone': 'a' },
      os: 'linux',
      arch: 'amd64',
      status,
    });
    assert.ok(created.metadata.uid);
    const node = await client.get<Node>(nodePath('reg-a'));
    assert.deepEqual(node.metadata.labels, {
      'beta.kubernetes.io/arch': 'amd64',
      'beta.kubernetes.io/os': 'linux',
      'kubernetes.io/arch': 'amd64',
      'kubernetes.io/hostname': 'reg-a',
      'kubernetes.io/os': 'linux',
      'node-role.kubernetes.io/worker': '',
      'example.com/zone': 'a',
    });
    assert.equal(node.metadata.annotations?.['volumes.kubernetes.io/controller-managed-attach-detach'], 'true');
    assert.equal(node.spec?.configSource, undefined);
  });

  it('re-registration reconciles its labels and leaves other labels alone', async () => {
    const before = await client.get<Node>(nodePath('reg-a'));
    await client.patch(nodePath('reg-a'), 'merge', {
      metadata: { labels: { 'kubernetes.io/hostname': 'wrong', 'example.com/team': 'x' } },
    });
    const node = await registerNode(client, {
      nodeName: 'reg-a',
      labels: { 'example.com/zone': 'b' },
      os: 'linux',
      arch: 'amd64',
    });
    assert.equal(node.metadata.uid, before.metadata.uid);
    const labels = (await client.get<Node>(nodePath('reg-a'))).metadata.labels!;
    assert.equal(labels['kubernetes.io/hostname'], 'reg-a');
    assert.equal(labels['example.com/zone'], 'b');
    assert.equal(labels['example.com/team'], 'x');
  });

  it('refuses at once what the server rejects as invalid', async () => {
    await assert.rejects(
      registerNode(client, { nodeName: 'reg-bad', labels: { 'not a label': 'x' }, maxAttempts: 50, initialDelayMs: 1 }),
      (err: unknown) => isNodeAgentError(err, 'DKC_NODE_REGISTRATION_REJECTED') && /reg-bad/.test(err.message),
    );
  });

  it('retries while the server is unreachable: bounded by maxAttempts, ended by the signal', async () => {
    const t0 = Date.now();
    await assert.rejects(
      registerNode(dead, { nodeName: 'reg-x', initialDelayMs: 10, maxDelayMs: 20, maxAttempts: 3 }),
      (err: unknown) => err instanceof ClientError && err.code === 'DKC_CLIENT_CONNECTION',
    );
    assert.ok(Date.now() - t0 >= 30, 'waited between attempts');
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    await assert.rejects(
      registerNode(dead, { nodeName: 'reg-x', initialDelayMs: 10, maxDelayMs: 20, signal: ac.signal }),
      (err: unknown) => isNodeAgentError(err, 'DKC_NODE_ABORTED'),
    );
  });
});

describe('NodeStatusReporter', () => {
  const configStatus = {
    active: {
      configMap: {
        namespace: 'kube-system',
        name: 'cfg',
        uid: 'uid-1',
        resourceVersion: '7',
        kubeletConfigKey: 'kubelet',
      },
    },
    assigned: {
      configMap: {
        namespace: 'kube-system',
        name: 'cfg',
        uid: 'uid-1',
        resourceVersion: '7',
        kubeletConfigKey: 'kubelet',
      },
    },
    error: '',
  };

  it('patches on change, heartbeats every nodeStatusReportFrequency, and never touches status.config', async () => {
    await registerNode(client, { nodeName: 'rep-a' });
    await client.patch(`${nodePath('rep-a')}/status`, 'merge', { status: { config: configStatus } });
    const stored = (await client.get<Node>(nodePath('rep-a'))).status?.config;
    assert.ok(stored?.active);

    const clock = new FakeClock();
    let readiness: { ok: boolean; reason?: string } = { ok: true };
    let patches = 0;
    const counting: StatusClient = {
      get: (p, o) => client.get(p, o),
      patch: (p, t, b, o) => {
        patches++;
        return client.patch(p, t, b, o);
      },
    };
    const reporter = new NodeStatusReporter({
      client: counting,
      nodeName: 'rep-a',
      config,
      status: statusSource(inputs, () => readiness),
      clock,
    });
    try {
      const t0 = clock.now();
      assert.equal(await reporter.syncNow(), 'patched');
      let node = await client.get<Node>(nodePath('rep-a'));
      assert.deepEqual(node.status?.config, stored);
      assert.deepEqual(node.status?.capacity, { cpu: '4', memory: '8Gi', pods: '110' });
      assert.deepEqual(node.status?.daemonEndpoints, { kubeletEndpoint: { Port: 10250 } });
      const ready = () => node.status!.conditions!.find((c) => c.type === 'Ready')!;
      assert.equal(ready().lastHeartbeatTime, '2024-01-15T10:00:00Z');

      clock.advance(10_000);
      assert.equal(await reporter.syncNow(), 'unchanged');

      readiness = { ok: false, reason: 'health check failed' };
      assert.equal(await reporter.syncNow(), 'patched');
      node = await client.get<Node>(nodePath('rep-a'));
      assert.deepEqual(
        [ready().status, ready().message, ready().lastTransitionTime],
        ['False', 'health check failed', '2024-01-15T10:00:10Z'],
      );

      clock.advance(30_000);
      assert.equal(await reporter.syncNow(), 'unchanged');
      clock.advance(30_000);
      assert.equal(await reporter.syncNow(), 'patched', 'heartbeat after nodeStatusReportFrequency');
      node = await client.get<Node>(nodePath('rep-a'));
      assert.equal(ready().lastHeartbeatTime, '2024-01-15T10:01:10Z');
      assert.equal(ready().lastTransitionTime, '2024-01-15T10:00:10Z');
      assert.deepEqual(node.status?.config, stored, 'status.config survived every patch');
      assert.equal(patches, 3);
      assert.ok(reporter.lastReportTime!.getTime() > t0.getTime());
    } finally {
      await reporter.stop();
    }
    assert.equal(await reporter.syncNow(), 'stopped');
  });

  it("reads its Node from the server's cache (resourceVersion 0) as the kubelet does, and from storage when that fails", async () => {
    await registerNode(client, { nodeName: 'rep-cached' });
    // The cache follows the store a moment later; a read of a Node it does not have yet goes to storage (below).
    await waitFor('the new Node in the server cache', () =>
      client.get<Node>(nodePath('rep-cached'), { query: { resourceVersion: '0' } }).then(
        () => true,
        () => false,
      ),
    );
    const reads: (string | undefined)[] = [];
    let cacheFails = false;
    const recording: StatusClient = {
      get: (p, o) => {
        const rv = o?.query?.['resourceVersion'];
        reads.push(typeof rv === 'string' ? rv : undefined);
        if (rv === '0' && cacheFails) return Promise.reject(new Error('the cached read failed'));
        return client.get(p, o);
      },
      patch: (p, t, b, o) => client.patch(p, t, b, o),
    };
    const reporter = new NodeStatusReporter({
      client: recording,
      nodeName: 'rep-cached',
      config,
      status: statusSource(inputs, () => ({ ok: true })),
      clock: new FakeClock(),
    });
    try {
      assert.equal(await reporter.syncNow(), 'patched');
      assert.deepEqual(reads, ['0']);
      cacheFails = true;
      assert.equal(await reporter.syncNow(), 'unchanged');
      assert.deepEqual(reads, ['0', '0', undefined]);
    } finally {
      await reporter.stop();
    }
  });

  it('runs on its own timer and stops cleanly', async () => {
    await registerNode(client, { nodeName: 'rep-b' });
    const fast = setDefaults({
      nodeStatusUpdateFrequency: Duration.parse('40ms'),
      nodeStatusReportFrequency: Duration.parse('120ms'),
    });
    let patches = 0;
    const counting: StatusClient = {
      get: (p, o) => client.get(p, o),
      patch: (p, t, b, o) => {
        patches++;
        return client.patch(p, t, b, o);
      },
    };
    const clock = new TimerCountingClock();
    const reporter = new NodeStatusReporter({
      client: counting,
      nodeName: 'rep-b',
      config: fast,
      status: statusSource(inputs),
      clock,
    });
    reporter.start();
    try {
      await waitFor(
        () => `heartbeats, got ${patches} patches`,
        () => patches >= 3,
        { timeoutMs: 5000 },
      );
    } finally {
      await reporter.stop();
    }
    assert.equal(clock.pending.size, 0, 'no timer left after stop: no patch can follow');
  });

  it("compares with the server's copy, so conditions someone else changed are restored by the next report", async () => {
    await registerNode(client, { nodeName: 'rep-c' });
    const clock = new FakeClock();
    const reporter = new NodeStatusReporter({ client, nodeName: 'rep-c', config, status: statusSource(inputs), clock });
    try {
      assert.equal(await reporter.syncNow(), 'patched');
      // What the node lifecycle controller writes when the Lease goes stale.
      const node = await client.get<Node>(nodePath('rep-c'));
      const unknown = node.status!.conditions!.map((c) => ({
        ...c,
        status: 'Unknown',
        reason: 'NodeStatusUnknown',
        message: 'Kubelet stopped posting node status.',
      }));
      await client.update(`${nodePath('rep-c')}/status`, { ...node, status: { ...node.status, conditions: unknown } });
      // The reporter reads the server's cache, as the kubelet does: the next report after the cache has the change.
      await waitFor('the change in the server cache', async () => {
        const cached = await client.get<Node>(nodePath('rep-c'), { query: { resourceVersion: '0' } });
        return cached.status?.conditions?.every((c) => c.status === 'Unknown') ? true : undefined;
      });
      clock.advance(10_000);
      assert.equal(
        await reporter.syncNow(),
        'patched',
        'no heartbeat is due: only the comparison with the server finds the change',
      );
      const after = await client.get<Node>(nodePath('rep-c'));
      const ready = after.status!.conditions!.find((c) => c.type === 'Ready')!;
      assert.deepEqual(
        [ready.status, ready.reason, ready.lastTransitionTime],
        ['True', 'KubeletReady', '2024-01-15T10:00:10Z'],
      );
      assert.ok(after.status!.conditions!.every((c) => c.status !== 'Unknown'));
    } finally {
      await reporter.stop();
    }
  });

  it('tolerates the server being down', async () => {
    const reporter = new NodeStatusReporter({
      client: dead,
      nodeName: 'rep-a',
      config,
      status: statusSource(inputs),
      clock: new FakeClock(),
    });
    assert.equal(await reporter.syncNow(), 'failed');
    await reporter.stop();
  });
});

describe('LeaseRenewer', () => {
  it('creates the Lease owned by the Node, then advances renewTime every renewal', async () => {
    const node = await registerNode(client, { nodeName: 'lease-a' });
    const clock = new FakeClock();
    const renewer = new LeaseRenewer({ client, nodeName: 'lease-a', leaseDurationSeconds: 40, clock });
    assert.equal(renewer.renewIntervalMs, 10_000);
    try {
      assert.equal(await renewer.renewNow(), 'renewed');
      let lease = await client.get<Lease>(leasePath('lease-a'));
      assert.equal(lease.metadata.namespace, 'kube-node-lease');
      assert.equal(lease.spec?.holderIdentity, 'lease-a');
      assert.equal(lease.spec?.leaseDurationSeconds, 40);
      assert.equal(lease.spec?.renewTime, '2024-01-15T10:00:00.000000Z');
      assert.deepEqual(lease.metadata.ownerReferences, [
        { apiVersion: 'v1', kind: 'Node', name: 'lease-a', uid: node.metadata.uid },
      ]);

      clock.advance(10_000);
      assert.equal(await renewer.renewNow(), 'renewed');
      lease = await client.get<Lease>(leasePath('lease-a'));
      assert.equal(lease.spec?.renewTime, formatMicroTime(clock.now()));
      assert.equal(lease.spec?.renewTime, '2024-01-15T10:00:10.000000Z');
    } finally {
      await renewer.stop();
    }
  });

  it('re-reads the Lease after a conflicting write and renews on top of it', async () => {
    const clock = new FakeClock();
    const renewer = new LeaseRenewer({ client, nodeName: 'lease-a', leaseDurationSeconds: 40, clock });
    try {
      assert.equal(await renewer.renewNow(), 'renewed');
      // Someone else writes the Lease: the renewer's copy is now stale.
      const current = await client.get<Lease>(leasePath('lease-a'));
      current.metadata.labels = { touched: 'yes' };
      await client.update(leasePath('lease-a'), current);
      clock.advance(10_000);
      assert.equal(await renewer.renewNow(), 'renewed');
      const lease = await client.get<Lease>(leasePath('lease-a'));
      assert.equal(lease.metadata.labels?.['touched'], 'yes');
      assert.equal(lease.spec?.renewTime, '2024-01-15T10:00:10.000000Z');
    } finally {
      await renewer.stop();
    }
  });

  it('recreates a deleted Lease', async () => {
    const renewer = new LeaseRenewer({ client, nodeName: 'lease-a', leaseDurationSeconds: 40, clock: new FakeClock() });
    try {
      assert.equal(await renewer.renewNow(), 'renewed');
      await client.delete(leasePath('lease-a'));
      assert.equal(await renewer.renewNow(), 'renewed');
      const lease = await client.get<Lease>(leasePath('lease-a'));
      assert.equal(lease.spec?.holderIdentity, 'lease-a');
    } finally {
      await renewer.stop();
    }
  });

  it('renews on its own timer (short interval) and tolerates the server being down', async () => {
    await registerNode(client, { nodeName: 'lease-b' });
    const renewer = new LeaseRenewer({ client, nodeName: 'lease-b', leaseDurationSeconds: 40, renewIntervalMs: 30 });
    const seen = new Set<string>();
    renewer.start();
    try {
      await waitFor(
        () => `three renewals; renewTime values seen: ${[...seen].join(', ')}`,
        async () => {
          const l = await client.get<Lease>(leasePath('lease-b')).catch(() => undefined);
          if (l?.spec?.renewTime) seen.add(l.spec.renewTime);
          return seen.size >= 3;
        },
        { timeoutMs: 5000 },
      );
    } finally {
      await renewer.stop();
    }
    const down = new LeaseRenewer({
      client: dead,
      nodeName: 'lease-b',
      leaseDurationSeconds: 40,
      clock: new FakeClock(),
    });
    assert.equal(await down.renewNow(), 'failed');
    await down.stop();
  });
});

describe('events against the server', () => {
  it('records node events and creates the restart event directly', async () => {
    const recorder = new EventRecorder({ client, host: 'ev-a', qps: 5, burst: 2 });
    assert.equal(
      recorder.record(nodeReference('ev-a'), 'Normal', 'NodeReady', 'Node ev-a status is now: NodeReady'),
      true,
    );
    assert.equal(
      recorder.record(
        nodeReference('ev-a'),
        'Normal',
        'NodeHasSufficientMemory',
        'Node ev-a status is now: NodeHasSufficientMemory',
      ),
      true,
    );
    assert.equal(recorder.record(nodeReference('ev-a'), 'Normal', 'Dropped', 'beyond the burst'), false);
    await recorder.stop();
    assert.equal(recorder.failed, 0);
    await createEventDirectly(client, {
      involvedObject: nodeReference('ev-a'),
      type: 'Normal',
      reason: 'KubeletConfigChanged',
      message: 'Kubelet restarting to use local config',
      host: 'ev-a',
    });
    const list = await client.list<KubeList<Event>>('/api/v1/namespaces/default/events');
    const mine = list.items.filter((e) => e.involvedObject.name === 'ev-a');
    assert.deepEqual(mine.map((e) => e.reason).sort(), [
      'KubeletConfigChanged',
      'NodeHasSufficientMemory',
      'NodeReady',
    ]);
    for (const e of mine) {
      assert.match(e.metadata.name!, /^ev-a\.[0-9a-f]+$/);
      assert.deepEqual(e.source, { component: 'kubelet', host: 'ev-a' });
      assert.deepEqual(e.involvedObject, { kind: 'Node', name: 'ev-a', uid: 'ev-a', namespace: '' });
      assert.equal(e.count, 1);
    }
  });
});

describe('registration while the server restarts', () => {
  it('keeps retrying until the server is back', async () => {
    await server.stop();
    const pending = registerNode(client, {
      nodeName: 'reg-late',
      initialDelayMs: 50,
      maxDelayMs: 200,
      maxAttempts: 200,
    });
    await server.restart();
    const node = await pending;
    assert.equal(node.metadata.name, 'reg-late');
    const got = await client.get<Node>(nodePath('reg-late'));
    assert.equal(got.metadata.labels?.['kubernetes.io/hostname'], 'reg-late');
    await assert.rejects(
      client.get(nodePath('never-registered')),
      (err: unknown) => err instanceof ApiError && err.code === 404,
    );
  });
});
