// Every outcome of upstream's boot decision and trial (pkg/kubelet/kubeletconfig/controller.go: Bootstrap,
// loadConfig, checkTrial) and every step of its sync algorithm (pkg/kubelet/kubeletconfig/configsync.go:
// syncConfigSource), walked through by one agent against a real API server, on either host — a real agent process
// under dkc's supervisor (states*.test.ts) or a simulated node of a fleet (states-fleet*.test.ts) — and on either
// assignment channel: the Node (dkc server's default) or the node's NodeConfig (`dkc server --emulated-version 1.31`,
// which drops the Node's fields). All four run these same cases and must give the same observations. Each step
// changes what the operator controls (a ConfigMap, spec.configSource of the Node or the NodeConfig) and then asserts
// everything an operator can observe: status.config (where the channel keeps it), the four kubelet_node_config_*
// gauges (exactly one series each), /configz, the newest KubeletConfigChanged event (about the Node on both channels,
// as upstream's), and whether the agent restarted (a new process, or a new instance in the fleet). The steps build on
// each other (last-known-good carries over), so they run in order on one node.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  LoadError,
  LOCAL_MAX_PODS,
  payloadFor,
  restartMessage,
  sourceOf,
  startHarness,
  SyncDownloadError,
  ValidateError,
  waitForNewProcess,
  type ConfigMapObject,
  type Harness,
  type HarnessOptions,
  type Source,
} from './harness.js';
import type { ClusterNode } from '../../../../src/up/cluster.js';
import type { ConfigChannel } from '../../../../src/client/channel.js';
import { isApiError } from '../../../../src/client/index.js';
import { waitFor } from '../../../helpers/wait.js';

const TRIAL = '2s';

/** The state table on the agent host `host` and the assignment channel `channel` (see HarnessOptions). */
export function stateTableSuite(title: string, host: HarnessOptions['host'], channel: ConfigChannel = 'node'): void {
  describe(
    `dynamic config state table, real server and ${title}, ${channel === 'node' ? 'Node' : 'NodeConfig'} channel`,
    { timeout: 240_000 },
    () => {
      let h: Harness;
      let node: ClusterNode;
      // The state carried between steps.
      let good: Source;
      let goodCM: ConfigMapObject;

      before(async () => {
        // A small crash backoff: the fatal row below has the agent exit 1 until its checkpoint is repaired.
        h = await startHarness({
          host,
          channel,
          nodes: 1,
          agentArgs: [`--dynamic-config-trial-duration=${TRIAL}`],
          backoff: { initialMs: 50, maxMs: 500 },
        });
        node = h.node('node-1');
      });
      after(async () => {
        await h?.stop();
      });

      /** Assigns and waits for the restart the controller asks for; returns the new pid. */
      async function assignAndRestart(ref: { name: string; key?: string } | undefined): Promise<number> {
        const before = h.pid(node);
        await h.assign(node, ref);
        return waitForNewProcess(h, node, before);
      }

      /** The node restarts into `cm`, runs it on trial and promotes it: from then on it is the last-known-good. */
      async function restartsAndPromotes(cm: ConfigMapObject, s: Source, maxPods: number): Promise<void> {
        await h.waitForNewestEvent(node, restartMessage(s));
        await h.expectState(node, { assigned: s, active: s, lastKnownGood: good }, maxPods);
        await h.expectState(node, { assigned: s, active: s, lastKnownGood: s }, maxPods);
        good = s;
        goodCM = cm;
      }

      it('no assigned record: local config, status.config is published empty, all gauges local', async () => {
        await h.expectState(node, {}, LOCAL_MAX_PODS);
        assert.equal(await h.newestConfigChangedEvent(node), undefined);
        // Bootstrap created the store layout even for the local config.
        assert.equal(await readFile(join(node.dynamicConfigDir, 'store', 'meta', 'assigned'), 'utf8'), '');
        assert.equal(await readFile(join(node.dynamicConfigDir, 'store', 'meta', 'last-known-good'), 'utf8'), '');
      });

      it('the agent says in one log line which channel it found; on the NodeConfig channel it created its NodeConfig, owned by its Node', async () => {
        const said = (await readFile(node.logFile, 'utf8')).split('\n').filter((l) => l.includes('] config channel: '));
        assert.equal(said.length, 1, said.join('\n'));
        assert.equal(
          /^I.*\] config channel: (\S+) /.exec(said[0]!)?.[1],
          channel === 'node' ? 'Node' : 'NodeConfig',
          said[0],
        );
        const nodeConfig = h.admin.get<{ metadata: { ownerReferences?: unknown[] } }>(
          `/apis/dkc.io/v1alpha1/nodeconfigs/${node.name}`,
        );
        if (channel === 'node') {
          await assert.rejects(nodeConfig, (err) => isApiError(err, 404));
          return;
        }
        const owner = await h.admin.get<{ metadata: { uid: string } }>(`/api/v1/nodes/${node.name}`);
        assert.deepEqual((await nodeConfig).metadata.ownerReferences, [
          { apiVersion: 'v1', kind: 'Node', name: node.name, uid: owner.metadata.uid },
        ]);
      });

      it('assigned loads and validates: A active, LKG nil, then A promoted to last-known-good after the trial', async () => {
        const cm = await h.createConfigMap('valid-a', { kubelet: await payloadFor(node, 'maxPods: 111') });
        const a = sourceOf(cm);
        const started = Date.now();
        await assignAndRestart({ name: 'valid-a' });
        // The restart message names the uid and resourceVersion just downloaded.
        await h.waitForNewestEvent(node, restartMessage(a));
        await h.expectState(node, { assigned: a, active: a }, 111);
        // The payload was checkpointed under checkpoints/<uid>/<resourceVersion>/<key>, byte for byte.
        const file = join(
          node.dynamicConfigDir,
          'store',
          'checkpoints',
          a.configMap.uid,
          a.configMap.resourceVersion,
          'kubelet',
        );
        assert.equal(await readFile(file, 'utf8'), cm.data!['kubelet']);

        await h.expectState(node, { assigned: a, active: a, lastKnownGood: a }, 111);
        assert.ok(Date.now() - started >= 2_000, 'promotion must not come before the trial has passed');
        good = a;
        goodCM = cm;
      });

      it('assigned fails to decode, LKG loads: active = LKG, LoadError', async () => {
        const cm = await h.createConfigMap('undecodable', { kubelet: '{0xdeadbeef}' });
        const b = sourceOf(cm);
        await assignAndRestart({ name: 'undecodable' });
        await h.waitForNewestEvent(node, restartMessage(b));
        await h.expectState(node, { assigned: b, active: good, lastKnownGood: good, error: LoadError }, 111);
      });

      it('assigned fails validation, LKG loads: active = LKG, ValidateError', async () => {
        const cm = await h.createConfigMap('invalid', {
          kubelet: await payloadFor(node, 'maxPods: 120', 'kubeAPIQPS: -1'),
        });
        const c = sourceOf(cm);
        await assignAndRestart({ name: 'invalid' });
        await h.waitForNewestEvent(node, restartMessage(c));
        await h.expectState(node, { assigned: c, active: good, lastKnownGood: good, error: ValidateError }, 111);
      });

      it('wrong kubeletConfigKey: the key change alone restarts, then LoadError and fall back to LKG', async () => {
        const wrong = sourceOf(goodCM, 'no-such-key');
        await assignAndRestart({ name: goodCM.metadata.name, key: 'no-such-key' });
        await h.waitForNewestEvent(node, restartMessage(wrong));
        await h.expectState(node, { assigned: wrong, active: good, lastKnownGood: good, error: LoadError }, 111);
      });

      it('a failed assigned config is never promoted, however long it is assigned', async () => {
        const s = await h.configStatus(node);
        const assignedSince = Date.now();
        // Observe across more than a whole trial: the last-known-good must stay A. A soak in wall time (the trial runs in
        // the agent process, on its own clock); the pause paces the samples.
        while (Date.now() - assignedSince < 3_000) {
          assert.deepEqual((await h.configStatus(node)).lastKnownGood, good);
          await new Promise((r) => setTimeout(r, 200));
        }
        assert.deepEqual(await h.configStatus(node), s);
      });

      it('a new valid config replaces a non-nil last-known-good after its trial', async () => {
        const cm = await h.createConfigMap('valid-d', { kubelet: await payloadFor(node, 'maxPods: 112') });
        const d = sourceOf(cm);
        await assignAndRestart({ name: 'valid-d' });
        await restartsAndPromotes(cm, d, 112);
      });

      it('in-place ConfigMap update: new resourceVersion, checkpoint and restart', async () => {
        const updated = await h.updateConfigMap(goodCM, { data: { kubelet: await payloadFor(node, 'maxPods: 113') } });
        const d2 = sourceOf(updated);
        assert.notEqual(d2.configMap.resourceVersion, good.configMap.resourceVersion);
        await restartsAndPromotes(updated, d2, 113);
      });

      it('deleted ConfigMap: download error override, nothing else changes, the agent keeps running', async () => {
        const pid = h.pid(node);
        const event = await h.newestConfigChangedEvent(node);
        await h.deleteConfigMap(goodCM.metadata.name);
        await h.expectState(node, { assigned: good, active: good, lastKnownGood: good, error: SyncDownloadError }, 113);
        assert.equal(h.pid(node), pid, 'the agent must keep running on its checkpointed config');
        assert.deepEqual(await h.newestConfigChangedEvent(node), event);
      });

      it('re-created ConfigMap (new uid): restart, error cleared', async () => {
        const cm = await h.createConfigMap(goodCM.metadata.name, { kubelet: await payloadFor(node, 'maxPods: 114') });
        const d3 = sourceOf(cm);
        assert.notEqual(d3.configMap.uid, good.configMap.uid);
        await restartsAndPromotes(cm, d3, 114);
      });

      it('reset to local: restart with the local message, both records cleared', async () => {
        await assignAndRestart(undefined);
        await h.waitForNewestEvent(node, restartMessage(undefined));
        await h.expectState(node, {}, LOCAL_MAX_PODS);
        assert.equal(await readFile(join(node.dynamicConfigDir, 'store', 'meta', 'assigned'), 'utf8'), '');
        assert.equal(await readFile(join(node.dynamicConfigDir, 'store', 'meta', 'last-known-good'), 'utf8'), '');
      });

      it('assigned fails, LKG nil: local config runs, active nil, LoadError', async () => {
        const cm = await h.createConfigMap('undecodable-2', { kubelet: 'kind: [' });
        const b = sourceOf(cm);
        await assignAndRestart({ name: 'undecodable-2' });
        await h.waitForNewestEvent(node, restartMessage(b));
        await h.expectState(node, { assigned: b, error: LoadError }, LOCAL_MAX_PODS);
      });

      it('assigned fails validation, LKG nil: local config runs, ValidateError', async () => {
        const cm = await h.createConfigMap('invalid-2', { kubelet: await payloadFor(node, 'kubeAPIQPS: -1') });
        const c = sourceOf(cm);
        await assignAndRestart({ name: 'invalid-2' });
        await h.waitForNewestEvent(node, restartMessage(c));
        await h.expectState(node, { assigned: c, error: ValidateError }, LOCAL_MAX_PODS);
      });

      it('assigned fails and the last-known-good fails to load: the agent exits fatally, until the checkpoint is readable', async () => {
        const cm = await h.createConfigMap('valid-e', { kubelet: await payloadFor(node, 'maxPods: 115') });
        const e = sourceOf(cm);
        await assignAndRestart({ name: 'valid-e' });
        await h.expectState(node, { assigned: e, active: e, lastKnownGood: e }, 115);

        const file = join(
          node.dynamicConfigDir,
          'store',
          'checkpoints',
          e.configMap.uid,
          e.configMap.resourceVersion,
          'kubelet',
        );
        const original = await readFile(file, 'utf8');
        await writeFile(file, '{0xdeadbeef}');
        const bad = sourceOf(await h.createConfigMap('undecodable-3', { kubelet: '{0xdeadbeef}' }));
        const exitsBefore = h.exits.length;
        const logOffset = (await readFile(node.logFile, 'utf8')).length;
        await h.assign(node, { name: 'undecodable-3' });
        await h.waitForNewestEvent(node, restartMessage(bad));
        await waitFor(
          async () => `the agent did not exit 1 twice\n${await h.logTail(node)}`,
          async () =>
            h.exits.slice(exitsBefore).filter((x) => x.name === node.name && x.code === 1).length >= 2
              ? true
              : undefined,
        );
        const log = (await readFile(node.logFile, 'utf8')).slice(logOffset);
        assert.match(
          log,
          /failed to determine a valid configuration, error: failed to load config, see Kubelet log for details, error: /,
        );
        // Nothing ran the sync loop, so nothing published: the status still shows the last running config.
        assert.deepEqual(await h.configStatus(node), { assigned: e, active: e, lastKnownGood: e });

        await writeFile(file, original);
        await h.expectState(node, { assigned: bad, active: e, lastKnownGood: e, error: LoadError }, 115);
      });
    },
  );
}
