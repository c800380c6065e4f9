// Crash-loop rollback and the health-gated trial (dkc beyond upstream). A config can decode and validate and still
// keep the agent from running — here a tlsCertFile/tlsPrivateKeyFile pair that does not exist, so the HTTPS listener
// never starts and the process exits 1. Once the assigned config has started --dynamic-config-crash-loop-threshold
// times (default 3) without becoming healthy, the next boot treats it like a validation failure: back to the
// last-known-good, with `failed to start with assigned config, …` in status.config.error. Restarts the controller asks
// for (exit 0 to apply a new config) come after the agent became healthy, so they never count; a threshold of 1 makes
// any such miscount visible at once.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { ClusterNode } from '../../../../src/up/cluster.js';
import {
  CrashLoopError,
  LOCAL_MAX_PODS,
  payloadFor,
  restartMessage,
  sourceOf,
  startHarness,
  ValidateError,
  waitForNewProcess,
  type ConfigStatus,
  type Harness,
  type Source,
} from './harness.js';
import { waitFor } from '../../../helpers/wait.js';

const BACKOFF = { initialMs: 50, maxMs: 500 };
const TRIAL_MS = 2_000;
const MISSING = ['tlsCertFile: /nonexistent/dkc-it/serving.crt', 'tlsPrivateKeyFile: /nonexistent/dkc-it/serving.key'];

function crashesOf(h: Harness, node: ClusterNode, since: number): number {
  return h.exits.slice(since).filter((e) => e.name === node.name && e.outcome === 'crash').length;
}

/**
 * Observes status.config for `ms` and fails if it ever differs from `expected` (the trial must not promote). A soak in
 * wall time (the trial runs in the agent process, on its own clock); the pause paces the samples.
 */
async function holds(h: Harness, node: ClusterNode, expected: ConfigStatus, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    assert.deepEqual(await h.configStatus(node), expected);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('crash-loop rollback, default threshold (3)', { timeout: 180_000 }, () => {
  let h: Harness;
  let node: ClusterNode;
  let good: Source;

  before(async () => {
    h = await startHarness({
      nodes: 1,
      agentArgs: [`--dynamic-config-trial-duration=${TRIAL_MS}ms`],
      backoff: BACKOFF,
    });
    node = h.node('node-1');
  });
  after(async () => {
    await h?.stop();
  });

  it('a healthy assigned config is promoted only after a whole trial of health', async () => {
    const cm = await h.createConfigMap('cl-good', { kubelet: await payloadFor(node, 'maxPods: 131') });
    good = sourceOf(cm);
    const startsBefore = h.starts.length;
    await h.assign(node, { name: 'cl-good' });
    await h.expectState(node, { assigned: good, active: good }, 131);
    const started = h.starts.slice(startsBefore).find((e) => e.name === node.name);
    assert.ok(started, 'the controller restarts the agent for the new config');
    const startedAt = Date.now();
    await h.expectState(node, { assigned: good, active: good, lastKnownGood: good }, 131);
    // The agent became healthy after it started, so the promotion is at least a trial after the state above.
    assert.ok(
      Date.now() - startedAt >= TRIAL_MS - 500,
      `promoted after ${Date.now() - startedAt} ms, trial is ${TRIAL_MS} ms`,
    );
  });

  it('a config that keeps the agent from starting is rolled back after exactly 3 failed starts', async () => {
    const cm = await h.createConfigMap('cl-crash', { kubelet: await payloadFor(node, 'maxPods: 132', ...MISSING) });
    const bad = sourceOf(cm);
    const exitsBefore = h.exits.length;
    const logOffset = (await readFile(node.logFile, 'utf8')).length;
    await h.assign(node, { name: 'cl-crash' });
    await h.waitForNewestEvent(node, restartMessage(bad));
    const expected: ConfigStatus = { assigned: bad, active: good, lastKnownGood: good, error: CrashLoopError };
    await h.expectState(node, expected, 131);
    assert.equal(crashesOf(h, node, exitsBefore), 3, 'three starts with the assigned config, each failing');
    const log = (await readFile(node.logFile, 'utf8')).slice(logOffset);
    assert.match(log, /failed to start the kubelet endpoints/);
    assert.match(
      log,
      /kubelet config controller: failed to start with assigned config, see Kubelet log for details, error: the assigned config started 3 times without becoming healthy/,
    );
    assert.match(
      log,
      /kubelet config controller: using last-known-good config \/api\/v1\/namespaces\/default\/configmaps\/cl-good/,
    );

    // Health-gated trial: the crashing config never ran healthy, so a whole trial later it is still not last-known-good.
    await holds(h, node, expected, TRIAL_MS + 1_000);
    assert.equal(crashesOf(h, node, exitsBefore), 3, 'running on the last-known-good, the agent no longer crashes');
  });

  it('the rollback survives restarts of the agent: the crashing config gets no new tries', async () => {
    const exitsBefore = h.exits.length;
    const pid = h.pid(node);
    assert.ok(pid);
    process.kill(pid, 'SIGTERM');
    await waitForNewProcess(h, node, pid);
    const s = await h.configStatus(node);
    await h.expectState(node, s, 131);
    assert.equal(crashesOf(h, node, exitsBefore), 0);
  });

  it('fixing the ConfigMap in place assigns a new resourceVersion that starts, clears the error and graduates', async () => {
    const cm = await h.admin.get<{
      metadata: { name: string; namespace: string; uid: string; resourceVersion: string };
    }>('/api/v1/namespaces/default/configmaps/cl-crash');
    const fixed = await h.updateConfigMap(cm, { data: { kubelet: await payloadFor(node, 'maxPods: 133') } });
    const f = sourceOf(fixed);
    await h.waitForNewestEvent(node, restartMessage(f));
    await h.expectState(node, { assigned: f, active: f, lastKnownGood: good }, 133);
    await h.expectState(node, { assigned: f, active: f, lastKnownGood: f }, 133);
  });
});

describe('crash-loop rollback, --dynamic-config-crash-loop-threshold=1', { timeout: 180_000 }, () => {
  let h: Harness;
  let node: ClusterNode;

  before(async () => {
    h = await startHarness({
      nodes: 1,
      agentArgs: [`--dynamic-config-trial-duration=${TRIAL_MS}ms`, '--dynamic-config-crash-loop-threshold=1'],
      backoff: BACKOFF,
    });
    node = h.node('node-1');
  });
  after(async () => {
    await h?.stop();
  });

  it('restarts the controller asks for, and clean restarts of a healthy agent, never count as failed starts', async () => {
    let cm = await h.createConfigMap('t1-good', { kubelet: await payloadFor(node, 'maxPods: 141') });
    await h.assign(node, { name: 't1-good' });
    await h.expectState(node, { assigned: sourceOf(cm), active: sourceOf(cm) }, 141);
    // Each in-place update is a new resourceVersion: a checkpoint, an event, and an exit(0) the controller asks for.
    for (const maxPods of [142, 143, 144]) {
      const pid = h.pid(node);
      cm = await h.updateConfigMap(cm, { data: { kubelet: await payloadFor(node, `maxPods: ${maxPods}`) } });
      await waitForNewProcess(h, node, pid);
      await h.waitForNewestEvent(node, restartMessage(sourceOf(cm)));
      await h.expectState(node, { assigned: sourceOf(cm), active: sourceOf(cm) }, maxPods);
    }
    // And restarts from outside (a clean stop, as systemd would restart it) of an agent that became healthy.
    for (let i = 0; i < 2; i++) {
      const pid = h.pid(node);
      assert.ok(pid);
      process.kill(pid, 'SIGTERM');
      await waitForNewProcess(h, node, pid);
      await h.expectState(node, { assigned: sourceOf(cm), active: sourceOf(cm) }, 144);
    }
    await h.expectState(node, { assigned: sourceOf(cm), active: sourceOf(cm), lastKnownGood: sourceOf(cm) }, 144);
  });

  it('the flag is honoured: one failed start is enough to roll back', async () => {
    const good = (await h.configStatus(node)).active!;
    const cm = await h.createConfigMap('t1-crash', { kubelet: await payloadFor(node, 'maxPods: 145', ...MISSING) });
    const bad = sourceOf(cm);
    const exitsBefore = h.exits.length;
    await h.assign(node, { name: 't1-crash' });
    await h.expectState(node, { assigned: bad, active: good, lastKnownGood: good, error: CrashLoopError }, 144);
    assert.equal(crashesOf(h, node, exitsBefore), 1);
  });

  it('without a last-known-good the rollback goes to the local config', async () => {
    const pid = h.pid(node);
    await h.assign(node, undefined);
    await waitForNewProcess(h, node, pid);
    await h.expectState(node, {}, LOCAL_MAX_PODS);
    const cm = await h.createConfigMap('t1-crash-2', { kubelet: await payloadFor(node, 'maxPods: 146', ...MISSING) });
    const bad = sourceOf(cm);
    const exitsBefore = h.exits.length;
    await h.assign(node, { name: 't1-crash-2' });
    await h.expectState(node, { assigned: bad, error: CrashLoopError }, LOCAL_MAX_PODS);
    assert.equal(crashesOf(h, node, exitsBefore), 1);
  });
});

describe('a config that validates but fails the start-up, and what counts as healthy', { timeout: 180_000 }, () => {
  let h: Harness;
  let node: ClusterNode;

  before(async () => {
    h = await startHarness({ nodes: 1, backoff: BACKOFF });
    node = h.node('node-1');
  });
  after(async () => {
    await h?.stop();
  });

  it('an eviction signal start-up refuses is rolled back like a validation failure, and a new assignment is still picked up', async () => {
    const cm = await h.createConfigMap('crash-evict', {
      kubelet: await payloadFor(node, 'evictionHard:', '  foo.bar: "10%"'),
    });
    const bad = sourceOf(cm);
    const exitsBefore = h.exits.length;
    await h.assign(node, { name: 'crash-evict' });
    await h.waitForNewestEvent(node, restartMessage(bad));
    await h.expectState(node, { assigned: bad, error: ValidateError }, LOCAL_MAX_PODS);
    assert.equal(crashesOf(h, node, exitsBefore), 0, 'the agent never crashes on it');
    const log = await readFile(node.logFile, 'utf8');
    assert.match(
      log,
      /kubelet config controller: failed to validate config, see Kubelet log for details, error: unsupported eviction signal foo\.bar/,
    );

    // The agent runs and syncs: a fixed config reaches it.
    const fixed = await h.createConfigMap('fixed-evict', {
      kubelet: await payloadFor(node, 'maxPods: 151', 'evictionHard:', '  memory.available: "10%"'),
    });
    await h.assign(node, { name: 'fixed-evict' });
    await h.expectState(node, { assigned: sourceOf(fixed), active: sourceOf(fixed) }, 151);
  });

  it('starts that die before the agent registered never reset the crash count: the config is rolled back', async () => {
    const active = (await h.configStatus(node)).active;
    assert.ok(active, 'an assigned config is running');
    // Without the API server the agent binds its listeners but cannot finish its start-up; each start is killed.
    const d = await h.detach();
    d.startAgent(node);
    let pid: number | undefined;
    for (let i = 0; i < 4; i++) {
      pid = await waitForNewProcess(h, node, pid);
      // Its listeners answer: bootstrap (and the start ledger) are done, registration cannot be.
      await waitFor(
        () => h.logTail(node),
        async () => ((await h.directConfigz(node).catch(() => undefined)) ? true : undefined),
        { timeoutMs: 20_000 },
      );
      if (i < 3) process.kill(pid, 'SIGKILL');
    }
    await d.startServer();
    await h.expectState(node, { assigned: active, error: CrashLoopError }, LOCAL_MAX_PODS);
    const log = await readFile(node.logFile, 'utf8');
    assert.match(log, /the assigned config started 3 times without becoming healthy/);
  });
});
