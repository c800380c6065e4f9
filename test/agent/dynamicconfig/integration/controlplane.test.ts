// The control plane goes away: an agent that restarts while the API server is down must boot on what it
// checkpointed (the assigned config, or the last-known-good when the assigned one fails), serve it on /configz, and
// publish Node.status.config as soon as the server is back. status.config is cleared by hand before the server
// stops, so what the test finds afterwards can only have come from the restarted agent.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { ClusterNode } from '../../../../src/up/cluster.js';
import {
  payloadFor,
  sourceOf,
  startHarness,
  ValidateError,
  waitForNewProcess,
  type ConfigStatus,
  type Detached,
  type Harness,
} from './harness.js';
import { waitFor } from '../../../helpers/wait.js';

describe('dynamic config while the control plane is down', { timeout: 180_000 }, () => {
  let h: Harness;
  let node: ClusterNode;
  let detached: Detached;

  before(async () => {
    h = await startHarness({ nodes: 1, agentArgs: ['--dynamic-config-trial-duration=2s'] });
    node = h.node('node-1');
  });
  after(async () => {
    await h?.stop();
  });

  async function clearPublishedStatus(): Promise<void> {
    await h.admin.patch(`/api/v1/nodes/${node.name}/status`, 'merge', { status: { config: null } });
    assert.deepEqual(await h.configStatus(node), {});
  }

  /** Log lines written since `offset` bytes into the agent's log. */
  async function logSince(offset: number): Promise<string> {
    return (await readFile(node.logFile, 'utf8')).slice(offset);
  }

  async function waitForDirectConfigz(maxPods: number): Promise<void> {
    let last: unknown;
    await waitFor(
      async () =>
        `the agent's own /configz: expected maxPods ${maxPods}, last saw ${String(last)}\n${await h.logTail(node)}`,
      async () => {
        const kc = await h.directConfigz(node);
        last = kc['maxPods'];
        return kc['maxPods'] === maxPods ? true : undefined;
      },
    );
  }

  /** Restarts the agent (SIGTERM: a clean stop, which its supervisor follows with a start) and waits for the new process. */
  async function restartAgent(): Promise<void> {
    const pid = h.pid(node);
    assert.ok(pid, 'the agent must be running');
    process.kill(pid, 'SIGTERM');
    await waitForNewProcess(h, node, pid);
  }

  it('boots on the checkpointed assigned config without the server, and publishes status once it returns', async () => {
    const cm = await h.createConfigMap('cp-a', { kubelet: await payloadFor(node, 'maxPods: 121') });
    const a = sourceOf(cm);
    await h.assign(node, { name: 'cp-a' });
    const expected: ConfigStatus = { assigned: a, active: a, lastKnownGood: a };
    await h.expectState(node, expected, 121);

    await clearPublishedStatus();
    detached = await h.detach();
    const logOffset = (await readFile(node.logFile, 'utf8')).length;
    detached.startAgent(node);
    await waitForDirectConfigz(121);
    assert.match(
      await logSince(logOffset),
      /kubelet config controller: using assigned config \/api\/v1\/namespaces\/default\/configmaps\/cp-a/,
    );

    // A restart with the server still away: the checkpoint is all the agent has, and all it needs.
    await restartAgent();
    await waitForDirectConfigz(121);
    const pid = h.pid(node);

    await detached.startServer();
    await h.expectState(node, expected, 121);
    assert.equal(h.pid(node), pid, 'the server coming back must not restart the agent');
  });

  it('boots on the last-known-good when the assigned config fails, without the server', async () => {
    const good = (await h.configStatus(node)).active!;
    const cm = await h.createConfigMap('cp-invalid', {
      kubelet: await payloadFor(node, 'maxPods: 122', 'kubeAPIQPS: -1'),
    });
    const b = sourceOf(cm);
    await h.assign(node, { name: 'cp-invalid' });
    const expected: ConfigStatus = { assigned: b, active: good, lastKnownGood: good, error: ValidateError };
    await h.expectState(node, expected, 121);

    await clearPublishedStatus();
    await detached.stopServer();
    const logOffset = (await readFile(node.logFile, 'utf8')).length;
    await restartAgent();
    await waitForDirectConfigz(121);
    const log = await logSince(logOffset);
    assert.match(log, /kubelet config controller: failed to validate config, see Kubelet log for details, error: /);
    assert.match(
      log,
      /kubelet config controller: using last-known-good config \/api\/v1\/namespaces\/default\/configmaps\/cp-a/,
    );

    await detached.startServer();
    await h.expectState(node, expected, 121);
  });
});
