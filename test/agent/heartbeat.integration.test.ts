// The kubelet's heartbeats (node status and the Lease) go through their own client, which kubeAPIQPS does not
// throttle. With the smallest API budget (--kube-api-qps=1 --kube-api-burst=1), a throttled Lease could be created
// no sooner than 2 s after the Node (its GET and POST each wait for a token after registration's POST took one);
// the agent must create it at once. Times are the server's audit log's, not the test's polling.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHarness, type Harness } from './dynamicconfig/integration/harness.js';
import { waitFor } from '../helpers/wait.js';

interface AuditEvent {
  verb: string;
  user: { username: string };
  objectRef?: { resource: string; name?: string };
  responseStatus: { code: number };
  requestReceivedTimestamp: string;
}

describe('heartbeats are not throttled by kubeAPIQPS', { timeout: 120_000 }, () => {
  let h: Harness;
  let dir: string;
  let auditLog: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dkc-heartbeat-'));
    auditLog = join(dir, 'audit.log');
    h = await startHarness({
      nodes: 1,
      agentArgs: ['--kube-api-qps=1', '--kube-api-burst=1'],
      serverArgs: ['--audit-log-path', auditLog],
    });
  });
  after(async () => {
    await h?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** When node-1 first succeeded in creating a `resource` object, by the audit log. */
  async function createdAt(resource: string): Promise<number | undefined> {
    const lines = (await readFile(auditLog, 'utf8').catch(() => '')).split('\n').filter((l) => l.trim() !== '');
    const ev = lines
      .map((l) => JSON.parse(l) as AuditEvent)
      .find(
        (e) =>
          e.verb === 'create' &&
          e.user.username === 'system:node:node-1' &&
          e.objectRef?.resource === resource &&
          e.responseStatus.code === 201,
      );
    return ev ? Date.parse(ev.requestReceivedTimestamp) : undefined;
  }

  it('creates the Lease right after registering the Node, with a 1 QPS / burst 1 API budget', async () => {
    const node = await waitFor(
      () => 'node-1 never created its Node',
      () => createdAt('nodes'),
    );
    const lease = await waitFor(
      () => 'node-1 never created its Lease',
      () => createdAt('leases'),
    );
    assert.ok(lease - node < 1_500, `the Lease was created ${lease - node} ms after the Node`);
  });
});
