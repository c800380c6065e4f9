// The self-healing checkpoint store (beyond upstream, where each of these stops the kubelet for good): a real agent
// process whose store is damaged behind its back — garbage in meta/assigned, every checkpoint deleted — comes back on
// its own, downloading again what the API server still has, instead of crash-looping until someone edits the node.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClusterNode } from '../../../../src/up/cluster.js';
import { waitFor } from '../../../helpers/wait.js';
import { payloadFor, sourceOf, startHarness, waitForNewProcess, type Harness, type Source } from './harness.js';

function crashesOf(h: Harness, node: ClusterNode, since: number): number {
  return h.exits.slice(since).filter((e) => e.name === node.name && e.outcome === 'crash').length;
}

describe('a damaged checkpoint store heals itself', { timeout: 180_000 }, () => {
  let h: Harness;
  let node: ClusterNode;
  let a: Source;
  let b: Source;
  let meta: string;

  before(async () => {
    h = await startHarness({
      nodes: 1,
      agentArgs: ['--dynamic-config-trial-duration=1s'],
      backoff: { initialMs: 50, maxMs: 500 },
    });
    node = h.node('node-1');
    meta = join(node.dynamicConfigDir, 'store', 'meta');
    a = sourceOf(await h.createConfigMap('heal-a', { kubelet: await payloadFor(node, 'maxPods: 161') }));
    await h.assign(node, { name: 'heal-a' });
    await h.expectState(node, { assigned: a, active: a, lastKnownGood: a }, 161);
    b = sourceOf(await h.createConfigMap('heal-b', { kubelet: await payloadFor(node, 'maxPods: 162') }));
    await h.assign(node, { name: 'heal-b' });
    await h.expectState(node, { assigned: b, active: b, lastKnownGood: a }, 162);
  });
  after(async () => {
    await h?.stop();
  });

  it('garbage in meta/assigned: set aside, the agent boots and syncs the assignment back', async () => {
    const exitsBefore = h.exits.length;
    // Every sync writes the assigned record again (as upstream's does), so the running agent may overwrite the garbage
    // between this write and its exit; the new process then finds a good record. Then the garbage goes in once more.
    const setAside = async (): Promise<boolean> => (await readdir(meta)).some((n) => n.startsWith('assigned.corrupt-'));
    for (let attempt = 1; ; attempt++) {
      await writeFile(join(meta, 'assigned'), '\u0000\u0001 not a record {{{');
      const pid = h.pid(node);
      assert.ok(pid);
      process.kill(pid, 'SIGTERM');
      await waitForNewProcess(h, node, pid);
      // The Node's status still shows b from before: first see the new process set the garbage aside, so that the
      // state checked below is the one it synced back, not the old one.
      const ok = await waitFor(
        'the unreadable record set aside',
        async () => ((await setAside()) ? true : undefined),
        10_000,
      ).then(
        () => true,
        () => false,
      );
      if (ok) break;
      assert.ok(attempt < 3, 'the unreadable record was never set aside');
    }
    // With no assigned record the boot runs the local config; the sync records the Node's assignment again and
    // restarts into it.
    await h.expectState(node, { assigned: b, active: b, lastKnownGood: a }, 162);
    assert.equal(crashesOf(h, node, exitsBefore), 0);
    const kept = (await readdir(meta)).filter((n) => n.startsWith('assigned.corrupt-'));
    assert.equal(kept.length, 1);
    assert.equal(await readFile(join(meta, kept[0]!), 'utf8'), '\u0000\u0001 not a record {{{');
    assert.match(
      await readFile(node.logFile, 'utf8'),
      /kubelet config controller: the assigned record is unreadable and is treated as absent/,
    );
  });

  it('every checkpoint deleted: the assigned one is downloaded again at boot, the unreachable last-known-good is dropped', async () => {
    const exitsBefore = h.exits.length;
    // The running agent may be writing a checkpoint meanwhile: a directory that fills again is removed again.
    await rm(join(node.dynamicConfigDir, 'store', 'checkpoints'), { recursive: true, maxRetries: 5, retryDelay: 50 });
    const pid = h.pid(node);
    assert.ok(pid);
    process.kill(pid, 'SIGTERM');
    await waitForNewProcess(h, node, pid);
    // The node may read only the ConfigMap its Node names (heal-b): heal-a's checkpoint cannot come back, so the
    // last-known-good goes, and the trial promotes heal-b again.
    await h.expectState(node, { assigned: b, active: b, lastKnownGood: b }, 162);
    assert.equal(crashesOf(h, node, exitsBefore), 0);
    const log = await readFile(node.logFile, 'utf8');
    assert.match(
      log,
      /the checkpoint of \/api\/v1\/namespaces\/default\/configmaps\/heal-b, .* was missing; downloaded it again/,
    );
    assert.match(
      log,
      /the last-known-good checkpoint of \/api\/v1\/namespaces\/default\/configmaps\/heal-a, .* is missing; falling back to the local config instead/,
    );
  });
});
