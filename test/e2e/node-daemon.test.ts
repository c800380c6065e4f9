// The node-daemon topology end to end: `dkc up --emulated-version 1.31` as it runs a modern cluster — per node, the
// agent as a plain kubelet (dynamic config off, --config and --config-dir) and a `dkc node-daemon` beside it that
// restarts it through the supervisor's control socket (`dkc restart <node>`). Rollouts go through the nodes'
// NodeConfigs: a good config reaches every kubelet (its /configz shows it), a config the kubelet refuses (it exits)
// and one it starts with but that leaves it unhealthy (its healthz moves away) both end Reverted, the node back on
// last-known-good and the error reported; a reset puts the node's own files back; a config a NodeConfigPolicy
// denies, assigned past admission (the API server enforces none, as a kube-apiserver with the CRD installed), is
// refused by the daemon as the agent refuses it and the kubelet is not touched; `--apply-as replace` replaces the
// --config file and restores it byte for byte; and `kill -9` of the daemon at random moments of its work (20 trials)
// never leaves a half-written kubelet file, never loses the node's original, and a daemon that comes back to a
// kubelet already on the right config does not restart it. Beyond healthz: a kubelet that restarts behind the daemon
// during its trial is a crash loop (counted in status.kubelet by its pid); active is never absent and a restarted daemon
// publishes its whole status at once; a burst of assignments coalesces; a restarted daemon waits for a kubelet that
// does not answer; a broken file of the node's own is named instead of the assignment.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { constants } from 'node:fs';
import { mkdtemp, open, readdir, readFile, rename, rm, stat, writeFile, type FileHandle } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE_CONFIGS_PATH, type KubeletReport, type NodeConfig } from '../../src/api/dkc/nodeconfig.js';
import { POLICY_GROUP, POLICY_PLURAL } from '../../src/api/dkc/policy.js';
import { ROLLOUTS_PATH, type NodeConfigRollout } from '../../src/api/dkc/rollout.js';
import type { ConfigMap, Node, NodeConfigSource, NodeConfigStatus } from '../../src/api/types.js';
import { RestClient } from '../../src/client/index.js';
import { startCluster, type Cluster, type ClusterNode } from '../../src/up/cluster.js';
import { readHeader } from '../../src/nodedaemon/ownership.js';
import { kubeletSource } from '../helpers/nodeconfig.js';
import { prng } from '../helpers/prng.js';
import { waitFor } from '../helpers/wait.js';
import { DEFAULT_PODS, barePod, nodeRuntime } from '../helpers/pods.js';
import type { Pod } from '../../src/api/workloads.js';

const execFileP = promisify(execFile);
const CRASH_LOOP_ERROR = 'failed to start with assigned config, see Kubelet log for details';
const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
const NODES = ['node-1', 'node-2', 'node-3'];
const NODE_FILES_ERROR = "failed to load the node's own config files, see Kubelet log for details";
const DENIED = 'config denied by NodeConfigPolicy "blue-deny", see Kubelet log for details';

async function configMap(admin: RestClient, name: string, body: string): Promise<ConfigMap> {
  return admin.create<ConfigMap>('/api/v1/namespaces/kube-system/configmaps', {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'kube-system' },
    data: { kubelet: body },
    // Assigned as it is by a rollout (a mutable one would be pinned as a copy), so nodes show the name given here.
    immutable: true,
  });
}

/** The kubelet's /configz through the API server's node proxy; empty while the kubelet is restarting. */
async function configz(admin: RestClient, node: string): Promise<Record<string, unknown>> {
  try {
    return (await admin.get<{ kubeletconfig: Record<string, unknown> }>(`/api/v1/nodes/${node}/proxy/configz`))
      .kubeletconfig;
  } catch {
    return {};
  }
}

const nodeConfig = (admin: RestClient, name: string) => admin.get<NodeConfig>(`${NODE_CONFIGS_PATH}/${name}`);

async function assign(admin: RestClient, node: string, src: NodeConfigSource | null): Promise<void> {
  await admin.patch(`${NODE_CONFIGS_PATH}/${node}`, 'merge', { spec: { configSource: src } });
}

/** Waits until the node's NodeConfig reports `cm` (or the node's own files, for undefined) active without error. */
async function waitActive(
  admin: RestClient,
  node: string,
  cm: ConfigMap | undefined,
  timeoutMs = 30_000,
): Promise<void> {
  await waitFor(
    `${node} active on ${cm?.metadata.name ?? 'its own files'}`,
    async () => {
      const cfg = (await nodeConfig(admin, node)).status?.config;
      if (cfg?.error) return undefined;
      const active = cfg?.active?.configMap;
      if (!cm) return active ? undefined : true;
      return active && active.name === cm.metadata.name && active.resourceVersion === cm.metadata.resourceVersion
        ? true
        : undefined;
    },
    timeoutMs,
    50,
  );
}

/** What `pick` reads of every write of the node's NodeConfig, from now on, until stopped. */
async function watchNodeConfig(
  admin: RestClient,
  node: string,
  pick: (nc: NodeConfig) => string,
): Promise<{ seen: string[]; stop(): void }> {
  const now = await nodeConfig(admin, node);
  const abort = new AbortController();
  const stream = await admin.watch<NodeConfig>(NODE_CONFIGS_PATH, {
    resourceVersion: now.metadata.resourceVersion!,
    fieldSelector: `metadata.name=${node}`,
    signal: abort.signal,
  });
  const seen: string[] = [];
  void (async () => {
    for await (const ev of stream) if (ev.type === 'MODIFIED') seen.push(pick(ev.object));
  })().catch(() => undefined);
  return { seen, stop: () => (stream.close(), abort.abort()) };
}

/** The active ConfigMap's name (or '(none)') of every write of the node's NodeConfig. */
const watchActives = (admin: RestClient, node: string) =>
  watchNodeConfig(admin, node, (nc) => nc.status?.config?.active?.configMap?.name ?? '(none)');

/** The assigned ConfigMap's name (or '(none)') of every write of the node's NodeConfig. */
const watchAssigned = (admin: RestClient, node: string) =>
  watchNodeConfig(admin, node, (nc) => nc.spec?.configSource?.configMap?.name ?? '(none)');

/** The payload below the daemon's header, which must name it whole. */
function payloadOf(file: Uint8Array): string {
  const own = readHeader(file);
  assert.ok(own?.intact, 'the file carries the daemon header, its digest that of the payload');
  return Buffer.from(own.payload).toString('utf8');
}

/** No temp file of an atomic write left beside the kubelet's files. */
async function noTempFiles(dir: string): Promise<void> {
  const left = (await readdir(dir)).filter((f) => f.includes('.tmp-'));
  assert.deepEqual(left, [], `temp files left in ${dir}`);
}

function startRollout(admin: RestClient, name: string, configMapName: string): Promise<unknown> {
  return admin.create(ROLLOUTS_PATH, {
    apiVersion: 'dkc.io/v1alpha1',
    kind: 'NodeConfigRollout',
    metadata: { name },
    spec: {
      configSource: kubeletSource(configMapName),
      nodeSelector: { matchLabels: {} },
      failurePolicy: 'Revert',
      // No soak: the daemon's own trial is what gates the kubelet's health here, and a rollout soak waits for the
      // next heartbeat after it (up to 10 s with the default 40 s Lease) on every batch.
      strategy: { soakSeconds: 0 },
    },
  });
}

async function waitRollout(
  admin: RestClient,
  name: string,
  phase: string,
  timeoutMs = 60_000,
): Promise<NodeConfigRollout> {
  return waitFor(
    `rollout ${name} ${phase}`,
    async () => {
      const r = await admin.get<NodeConfigRollout>(`${ROLLOUTS_PATH}/${name}`);
      return r.status?.phase === phase ? r : undefined;
    },
    timeoutMs,
    100,
  );
}

async function newCluster(
  work: string,
  applyAs: 'dropin' | 'replace',
  nodes: number,
  serverArgs: string[] = [],
): Promise<{ cluster: Cluster; admin: RestClient }> {
  const cluster = await startCluster({
    dataDir: join(work, applyAs),
    nodes,
    port: 0,
    serverArgs: ['--emulated-version', '1.31', ...serverArgs],
    kubeletVersions: ['1.31'],
    backoff: { initialMs: 50, maxMs: 500 },
    nodeDaemon: { applyAs, startTimeout: '4s', trial: '1500ms', probeInterval: '100ms' },
  });
  const admin = await RestClient.fromKubeconfig(cluster.kubeconfig);
  await waitFor(
    `${nodes} nodes Ready, each with its NodeConfig`,
    async () => {
      const ncs = (await admin.list<{ items: NodeConfig[] }>(NODE_CONFIGS_PATH)).items;
      const nodesReady = (
        await admin.list<{ items: { status?: { conditions?: { type: string; status: string }[] } }[] }>('/api/v1/nodes')
      ).items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
      return ncs.length === nodes && nodesReady.length === nodes ? true : undefined;
    },
    30_000,
  );
  return { cluster, admin };
}

let work = '';
before(async () => {
  work = await mkdtemp(join(tmpdir(), 'dkc-nd-'));
});
after(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe(
  'dkc node-daemon --apply-as dropin, three nodes on an emulated kube-apiserver 1.31',
  { concurrency: false },
  () => {
    let cluster: Cluster | undefined;
    let admin: RestClient;
    let good: ConfigMap;
    const node = (name: string): ClusterNode => cluster!.nodes.find((n) => n.name === name)!;

    before(async () => {
      // No policy admission: the daemon is what keeps a denied config from the kubelet.
      ({ cluster, admin } = await newCluster(work, 'dropin', 3, ['--disable-admission-plugins=NodeConfigPolicy']));
      good = await configMap(admin, 'good', `${HEADER}eventRecordQPS: 7\n`);
      await configMap(
        admin,
        'refused',
        `${HEADER}tlsCertFile: /nonexistent/kubelet.crt\ntlsPrivateKeyFile: /nonexistent/kubelet.key\n`,
      );
      await configMap(admin, 'unhealthy', `${HEADER}healthzBindAddress: 127.0.0.2\n`);
    });
    after(async () => {
      admin?.close();
      await cluster?.stop(5_000);
    });

    it('a good config reaches every kubelet as one drop-in over its own file, and becomes last-known-good', async () => {
      const before = await readFile(node('node-1').config, 'utf8');
      // A Pod the kubelet runs outlives the daemon's restart of it: same uid, IP and start time, still Running.
      await admin.create(DEFAULT_PODS, barePod('outlives'));
      const running = await waitFor('the Pod Running on node-1', async () => {
        const p = await admin.get<Pod>(`${DEFAULT_PODS}/outlives`);
        return p.status?.phase === 'Running' ? p : undefined;
      });
      await startRollout(admin, 'good', 'good');
      await waitRollout(admin, 'good', 'Succeeded');
      const after = await admin.get<Pod>(`${DEFAULT_PODS}/outlives`);
      assert.deepEqual(
        [after.metadata.uid, after.status?.podIP, after.status?.startTime, after.status?.phase],
        [running.metadata.uid, running.status?.podIP, running.status?.startTime, 'Running'],
      );
      assert.ok(
        (await nodeRuntime(node('node-1').dir)).pods[running.metadata.uid!],
        'the restarted kubelet found it in the runtime',
      );
      for (const n of NODES) {
        assert.equal((await configz(admin, n))['eventRecordQPS'], 7, `${n}: /configz`);
        assert.equal(
          payloadOf(await readFile(join(node(n).daemon!.configDir, '90-dkc.conf'))),
          good.data!['kubelet'],
          `${n}: the drop-in is the assigned payload under the daemon's header`,
        );
        await waitFor(
          `${n} last-known-good`,
          async () =>
            (await nodeConfig(admin, n)).status?.config?.lastKnownGood?.configMap?.name === 'good' ? true : undefined,
          15_000,
        );
      }
      assert.equal(
        await readFile(node('node-1').config, 'utf8'),
        before,
        "the node's own --config file is never touched",
      );
      const metrics = await (await fetch(`http://127.0.0.1:${node('node-1').daemon!.metricsPort}/metrics`)).text();
      assert.match(
        metrics,
        new RegExp(
          `^kubelet_node_config_active\\{node_config_source="/api/v1/namespaces/kube-system/configmaps/good",node_config_uid="${good.metadata.uid}",`,
          'm',
        ),
      );
      assert.match(metrics, /^kubelet_node_config_error 0$/m);
      const log = await readFile(node('node-1').daemon!.logFile, 'utf8');
      assert.match(log, /kubelet config controller: updated last-known-good config to /);
    });

    it("a hand edit of the daemon's drop-in is put back and reported; a later local drop-in's overrides are named", async () => {
      const n2 = node('node-2');
      const dropIn = join(n2.daemon!.configDir, '90-dkc.conf');
      const kubelet = cluster!.supervisor.pidOf('node-2');
      const own = await readFile(dropIn);
      await writeFile(dropIn, Buffer.concat([own, Buffer.from('maxPods: 12\n')]));
      const drift = await waitFor(
        'node-2 reporting the drift',
        async () => (await nodeConfig(admin, 'node-2')).status?.kubelet?.lastDrift,
        15_000,
        50,
      );
      assert.equal(drift.file, dropIn);
      assert.deepEqual(await readFile(dropIn), own, 'the daemon put its own file back');
      assert.equal(cluster!.supervisor.pidOf('node-2'), kubelet, 'the kubelet was not restarted');
      const events = await admin.list<{
        items: { type?: string; reason?: string; involvedObject?: { name?: string } }[];
      }>('/api/v1/namespaces/default/events');
      assert.ok(
        events.items.some(
          (e) => e.reason === 'KubeletConfigDrift' && e.type === 'Warning' && e.involvedObject?.name === 'node-2',
        ),
      );
      const metrics = await (await fetch(`http://127.0.0.1:${n2.daemon!.metricsPort}/metrics`)).text();
      assert.match(metrics, /^dkc_node_daemon_drifts 1$/m);

      const local = join(n2.daemon!.configDir, '95-local.conf');
      await writeFile(local, `${HEADER}eventRecordQPS: 3\n`);
      await waitFor(
        'node-2 naming the local override',
        async () => {
          const o = (await nodeConfig(admin, 'node-2')).status?.kubelet?.localOverrides;
          return JSON.stringify(o) === JSON.stringify([{ field: 'eventRecordQPS', file: '95-local.conf' }])
            ? true
            : undefined;
        },
        15_000,
        50,
      );
      await rm(local);
      await waitFor(
        'node-2 with no local override',
        async () => ((await nodeConfig(admin, 'node-2')).status?.kubelet?.localOverrides ? undefined : true),
        15_000,
        50,
      );
      assert.equal((await nodeConfig(admin, 'node-2')).status?.kubelet?.lastDrift?.file, dropIn, 'its report kept');
    });

    for (const bad of ['refused', 'unhealthy'] as const) {
      it(`a config the kubelet ${bad === 'refused' ? 'refuses (it exits)' : 'starts with but stays unhealthy on'} ends Reverted, the node on last-known-good with the error reported`, async () => {
        const seen: string[] = [];
        await startRollout(admin, bad, bad);
        const r = await waitFor(
          `rollout ${bad} Reverted`,
          async () => {
            const cfg = (await nodeConfig(admin, 'node-1')).status?.config;
            if (cfg?.assigned?.configMap?.name === bad && cfg.error) seen.push(cfg.error);
            const ro = await admin.get<NodeConfigRollout>(`${ROLLOUTS_PATH}/${bad}`);
            return ro.status?.phase === 'Reverted' ? ro : undefined;
          },
          60_000,
          50,
        );
        assert.ok(seen.includes(CRASH_LOOP_ERROR), `node-1 reported: ${JSON.stringify(seen)}`);
        assert.deepEqual(
          r.status?.failures?.map((f) => [f.node, f.reason, f.message]),
          [['node-1', 'ConfigError', CRASH_LOOP_ERROR]],
        );
        for (const n of NODES) await waitActive(admin, n, good);
        await waitFor(
          'node-1 running last-known-good again (/configz)',
          async () => ((await configz(admin, 'node-1'))['eventRecordQPS'] === 7 ? true : undefined),
          15_000,
        );
        const log = await readFile(node('node-1').daemon!.logFile, 'utf8');
        // A kubelet that exits on the config is started again by its supervisor, with a growing backoff: a crash loop
        // seen by its pid if it restarts 3 times within the start timeout, else the start timeout. One that runs but
        // never answers fails the start timeout.
        const cause =
          bad === 'refused'
            ? /the kubelet restarted 3 times during its trial without the daemon restarting it \(threshold 3\): a crash loop|the kubelet did not become healthy within 4s of its restart/
            : /the kubelet did not become healthy within 4s of its restart \(http:\/\/127\.0\.0\.1:\d+\/healthz: ECONNREFUSED\)/;
        assert.match(log, cause);
        const events = await admin.list<{
          items: { reason?: string; message?: string; involvedObject?: { name?: string } }[];
        }>('/api/v1/namespaces/default/events');
        assert.ok(
          events.items.some(
            (e) =>
              e.reason === 'KubeletConfigRejected' &&
              e.involvedObject?.name === 'node-1' &&
              e.message?.includes(`ConfigMap kube-system/${bad}`) &&
              cause.test(e.message),
          ),
          'a Warning event names the config and the cause',
        );
      });
    }

    it('a kubelet that restarts behind the daemon during its trial is a crash loop: counted on the NodeConfig, rolled back; active never absent, and a restarted daemon publishes its whole status at once', async () => {
      const flappy = await configMap(admin, 'flappy', `${HEADER}eventRecordQPS: 9\n`);
      const seen: { config?: NodeConfigStatus | null; kubelet: KubeletReport | null }[] = [];
      const list = await admin.list<{ metadata: { resourceVersion: string } }>(NODE_CONFIGS_PATH, {
        fieldSelector: 'metadata.name=node-2',
      });
      const watch = await admin.watch<NodeConfig>(NODE_CONFIGS_PATH, {
        fieldSelector: 'metadata.name=node-2',
        resourceVersion: list.metadata.resourceVersion,
      });
      const watching = (async () => {
        for await (const ev of watch) {
          if (ev.type !== 'MODIFIED') continue;
          const st = ev.object.status;
          seen.push({
            ...(st?.config ? { config: st.config } : {}),
            kubelet: st?.kubelet ?? null,
          });
        }
      })();
      try {
        await assign(admin, 'node-2', kubeletSource('flappy'));
        await waitActive(admin, 'node-2', flappy);
        // Each crash leaves healthz down for about a second, well inside the start timeout: only the pid tells. The
        // next kill waits for the daemon to have counted this one (it reads the pid at most every half second, so a
        // kill as soon as healthz answers could land before it has seen the new pid), and comes at once, well inside
        // the trial.
        const countedRestarts = async () =>
          (await readFile(node('node-2').daemon!.logFile, 'utf8')).split(
            'the kubelet restarted without the daemon restarting it',
          ).length;
        for (let kills = 0; kills < 6; kills++) {
          if ((await nodeConfig(admin, 'node-2')).status?.config?.error === CRASH_LOOP_ERROR) break;
          const before = await countedRestarts();
          process.kill(cluster!.supervisor.pidOf('node-2')!, 'SIGKILL');
          await waitFor(
            'the restart counted, or the crash loop seen',
            async () =>
              (await countedRestarts()) > before ||
              (await nodeConfig(admin, 'node-2')).status?.config?.error === CRASH_LOOP_ERROR
                ? true
                : undefined,
            15_000,
            20,
          );
        }
        const after = await waitFor(
          'node-2 back on last-known-good, flappy refused',
          async () => {
            const cfg = (await nodeConfig(admin, 'node-2')).status?.config;
            return cfg?.error === CRASH_LOOP_ERROR && cfg.active?.configMap?.name === 'good' ? cfg : undefined;
          },
          30_000,
          50,
        );
        assert.equal(after.lastKnownGood?.configMap?.name, 'good');
        const counted = seen.map((e) => e.kubelet?.unexpectedRestarts).filter((n) => typeof n === 'number');
        assert.deepEqual(
          counted.slice(0, 3),
          [1, 2, 3],
          'status.kubelet counted each restart the daemon did not cause',
        );
        assert.ok(
          seen.some((e) => typeof e.kubelet?.lastUnexpectedRestart === 'string'),
          'and when the last was seen',
        );
        assert.ok(
          seen.some((e) => e.config?.error === CRASH_LOOP_ERROR && e.config.assigned?.configMap?.name === 'flappy'),
          'the rollback reported on status.config',
        );
        assert.deepEqual(
          seen.filter((e) => !e.config?.active).map((e) => e.config),
          [],
          'active named a config throughout: the one before the restart, then the new one, then last-known-good',
        );
        const log = await readFile(node('node-2').daemon!.logFile, 'utf8');
        assert.match(log, /the kubelet restarted 3 times during its trial without the daemon restarting it/);
        assert.match(log, /the kubelet stopped being healthy \(/);
        assert.match(log, /the kubelet is healthy again/);

        // A restarted daemon: what it publishes first is the whole status, never {} or {assigned} alone. Killed once
        // the rollback's restart is journalled, healthy, so that it comes back to a kubelet already on its config.
        await waitFor(
          'the rollback journalled, the kubelet healthy on it',
          async () => {
            const journal = JSON.parse(
              await readFile(join(node('node-2').dynamicConfigDir, 'node-daemon', 'journal.json'), 'utf8'),
            ) as { restarted?: boolean; healthyAt?: number; source?: NodeConfigSource };
            return journal.restarted && journal.healthyAt && journal.source?.configMap?.name === 'good'
              ? true
              : undefined;
          },
          15_000,
          50,
        );
        seen.length = 0;
        const daemon = cluster!.supervisor.pidOf(node('node-2').daemon!.name)!;
        process.kill(daemon, 'SIGKILL');
        await waitFor(
          'the daemon back, on last-known-good',
          async () => {
            const now = cluster!.supervisor.pidOf(node('node-2').daemon!.name);
            const text = await readFile(node('node-2').daemon!.logFile, 'utf8');
            return now !== undefined &&
              now !== daemon &&
              text.includes(` ${now} `) &&
              /already runs/.test(text.split(` ${now} `).slice(1).join(''))
              ? true
              : undefined;
          },
          15_000,
        );
        await new Promise((r) => setTimeout(r, 1_000));
        assert.deepEqual(
          seen.filter((e) => !e.config?.active || !e.config.assigned).map((e) => e.config),
          [],
          'no half-known status published',
        );
        await assign(admin, 'node-2', kubeletSource('good'));
        await waitActive(admin, 'node-2', good);
      } finally {
        watch.close();
        await watching.catch(() => undefined);
      }
    });

    it('a burst of five assignments arriving while the first applies restarts the kubelet once, onto the last', async () => {
      const burst = await Promise.all(
        [1, 2, 3, 4, 5].map((i) => configMap(admin, `burst-${i}`, `${HEADER}eventRecordQPS: ${20 + i}\n`)),
      );
      let starts = 0;
      const counting = (ev: { name: string }) => void (ev.name === 'node-1' && starts++);
      cluster!.supervisor.on('start', counting);
      // The daemon reads the kubelet's flags file while it judges a config: made a FIFO, it holds the daemon inside
      // its apply of the first until the other four have arrived, so they cannot fall between two applies.
      const flagsFile = join(node('node-1').dir, 'kubelet-cmdline');
      const flags = await readFile(flagsFile);
      await rm(flagsFile);
      await execFileP('mkfifo', [flagsFile]);
      let held: FileHandle | undefined;
      try {
        await assign(admin, 'node-1', kubeletSource(burst[0]!.metadata.name!));
        // A write end opens without blocking only once a reader has the FIFO open: the daemon is then inside the apply.
        held = await waitFor(
          'node-1 daemon reading its flags file',
          () => open(flagsFile, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => undefined),
          15_000,
          20,
        );
        const seen = await watchAssigned(admin, 'node-1');
        try {
          for (const cm of burst.slice(1)) await assign(admin, 'node-1', kubeletSource(cm.metadata.name!));
          await waitFor(
            'the last assignment delivered to watchers',
            async () => seen.seen.at(-1) === 'burst-5' || undefined,
            15_000,
            20,
          );
        } finally {
          seen.stop();
        }
        // The daemon's own watch hears it as this one does; a moment more under load, then the read goes on.
        await new Promise((r) => setTimeout(r, 500));
        await writeFile(`${flagsFile}.new`, flags);
        await rename(`${flagsFile}.new`, flagsFile);
        await held.write(flags);
        await held.close();
        held = undefined;
        await waitActive(admin, 'node-1', burst[4]);
        await waitFor(
          'node-1 /configz on the last',
          async () => ((await configz(admin, 'node-1'))['eventRecordQPS'] === 25 ? true : undefined),
          15_000,
        );
        assert.equal(starts, 1, `${starts} kubelet restarts for a burst of five`);
        // Once the last is last-known-good, the checkpoints of the four it replaced are removed.
        const checkpoints = join(node('node-1').dynamicConfigDir, 'store', 'checkpoints');
        const uids = (uid: string) => readdir(join(checkpoints, uid)).catch(() => []);
        await waitFor(
          'node-1 keeping no checkpoint of the burst but the last',
          async () => {
            const kept = await Promise.all(burst.slice(0, 4).map((cm) => uids(cm.metadata.uid!)));
            return kept.every((k) => k.length === 0) && (await uids(burst[4]!.metadata.uid!)).length === 1
              ? true
              : undefined;
          },
          30_000,
          100,
        );
      } finally {
        // A daemon still waiting on the FIFO is let go, and the file put back.
        const writer =
          held ?? (await open(flagsFile, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => undefined));
        await writer?.close();
        if (!(await stat(flagsFile)).isFile()) {
          await rm(flagsFile);
          await writeFile(flagsFile, flags);
        }
        cluster!.supervisor.off('start', counting);
      }
    });

    it("a reset puts the node's own files back: the drop-in is removed and the kubelet restarted on them", async () => {
      await assign(admin, 'node-3', null);
      await waitActive(admin, 'node-3', undefined);
      await waitFor(
        'node-3 on its own files',
        async () => ((await configz(admin, 'node-3'))['eventRecordQPS'] === 50 ? true : undefined),
        15_000,
      );
      assert.deepEqual(
        (await readdir(node('node-3').daemon!.configDir)).sort(),
        [],
        'the drop-in is gone, nothing else left',
      );
    });

    it('a config a NodeConfigPolicy denies is refused as the agent refuses it, and the kubelet is not touched', async () => {
      // A forged config-flags record on the Node (anyone who may patch nodes can write it on kube-apiserver) would
      // make containerLogMaxFiles "held by a flag", so no change: the daemon reads the kubelet's flags on the host.
      await admin.patch('/api/v1/nodes/node-3', 'merge', {
        metadata: {
          labels: { pool: 'blue' },
          annotations: { 'dkc.io/config-flags': JSON.stringify({ flags: ['--container-log-max-files=7'] }) },
        },
      });
      await admin.create(`/apis/${POLICY_GROUP}/v1alpha1/${POLICY_PLURAL}`, {
        apiVersion: 'dkc.io/v1alpha1',
        kind: 'NodeConfigPolicy',
        metadata: { name: 'blue-deny' },
        spec: {
          nodeSelector: { matchLabels: { pool: 'blue' } },
          allowedFields: ['eventRecordQPS'],
          enforcement: 'Deny',
        },
      });
      // The daemon has taken the policy once it has written it down for its next start.
      const snapshot = join(node('node-3').dynamicConfigDir, 'store', 'meta', 'policies');
      await waitFor(
        'node-3 governed by blue-deny',
        async () => ((await readFile(snapshot, 'utf8').catch(() => '')).includes('"blue-deny"') ? true : undefined),
        15_000,
        50,
      );
      await configMap(admin, 'denied', `${HEADER}containerLogMaxFiles: 7\n`);
      const kubelet = cluster!.supervisor.pidOf('node-3');
      await assign(admin, 'node-3', kubeletSource('denied'));
      await waitFor(
        'node-3 refusing denied',
        async () => {
          const cfg = (await nodeConfig(admin, 'node-3')).status?.config;
          return cfg?.assigned?.configMap?.name === 'denied' && cfg.error === DENIED && !cfg.active ? true : undefined;
        },
        15_000,
        50,
      );
      const events = await admin.list<{
        items: { type?: string; reason?: string; message?: string; involvedObject?: { name?: string } }[];
      }>('/api/v1/namespaces/default/events');
      const rejected = events.items.find(
        (e) =>
          e.reason === 'KubeletConfigRejected' &&
          e.involvedObject?.name === 'node-3' &&
          e.message?.includes('kube-system/denied'),
      );
      assert.equal(rejected?.type, 'Warning');
      assert.match(
        rejected.message ?? '',
        /is denied by a NodeConfigPolicy; running the local config: NodeConfigPolicy "blue-deny": containerLogMaxFiles \(not in allowedFields\)$/,
      );
      assert.match(
        await readFile(node('node-3').daemon!.logFile, 'utf8'),
        /kubelet config controller: config denied by NodeConfigPolicy "blue-deny", see Kubelet log for details, error: NodeConfigPolicy "blue-deny": containerLogMaxFiles/,
      );
      assert.deepEqual(await readdir(node('node-3').daemon!.configDir), [], 'no drop-in written');
      assert.equal(cluster!.supervisor.pidOf('node-3'), kubelet, 'the kubelet was not restarted');
      assert.equal((await configz(admin, 'node-3'))['containerLogMaxFiles'], 5);
    });

    it('a Node deleted and made again: its NodeConfig is made again, owned by the new Node, and the kubelet is not touched', async () => {
      const n2 = node('node-2');
      const dropIn = join(n2.daemon!.configDir, '90-dkc.conf');
      const own = await readFile(dropIn);
      const kubelet = cluster!.supervisor.pidOf('node-2');
      const old = await admin.get<Node>('/api/v1/nodes/node-2');
      await admin.delete('/api/v1/nodes/node-2');
      await waitFor(
        'the NodeConfig collected with its Node',
        async () => ((await nodeConfig(admin, 'node-2').catch(() => undefined)) ? undefined : true),
        15_000,
        50,
      );
      const made = await admin.create<Node>('/api/v1/nodes', {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'node-2', labels: old.metadata.labels ?? {} },
      });
      const nc = await waitFor(
        'a NodeConfig owned by the new Node, reporting good active and no error',
        async () => {
          const c = await nodeConfig(admin, 'node-2').catch(() => undefined);
          const owner = c?.metadata.ownerReferences?.[0]?.uid;
          const cfg = c?.status?.config;
          return owner === made.metadata.uid && cfg?.active?.configMap?.name === 'good' && !cfg.error ? c : undefined;
        },
        20_000,
        50,
      );
      assert.equal(nc.status?.config?.assigned?.configMap?.name, 'good', 'the assignment it runs');
      assert.deepEqual(await readFile(dropIn), own, 'the drop-in is as it was');
      // A restart of the daemon decides the same.
      const daemon = cluster!.supervisor.pidOf(n2.daemon!.name)!;
      process.kill(daemon, 'SIGKILL');
      await waitFor(
        'the daemon back, on the same config',
        async () => {
          const now = cluster!.supervisor.pidOf(n2.daemon!.name);
          const log = await readFile(n2.daemon!.logFile, 'utf8');
          return now !== undefined &&
            now !== daemon &&
            log.includes(`the kubelet already runs assigned config`) &&
            log
              .split('\n')
              .some((l) => l.includes(` ${now} `) && l.includes('the kubelet already runs assigned config'))
            ? true
            : undefined;
        },
        15_000,
      );
      await new Promise((r) => setTimeout(r, 2_000));
      assert.deepEqual(await readFile(dropIn), own, 'the drop-in is still as it was');
      assert.equal(cluster!.supervisor.pidOf('node-2'), kubelet, 'the kubelet was never restarted');
      const after = (await nodeConfig(admin, 'node-2')).status?.config;
      assert.deepEqual([after?.active?.configMap?.name, after?.error], ['good', undefined]);
    });

    it("a wiped state directory: the daemon knows its own drop-in, rebuilds its records from it, and never keeps it as the node's original", async () => {
      const n1 = node('node-1');
      const dropIn = join(n1.daemon!.configDir, '90-dkc.conf');
      // Whatever an earlier test left it on, node-1 runs the good config before its records are wiped.
      await assign(admin, 'node-1', kubeletSource(good.metadata.name!));
      await waitActive(admin, 'node-1', good);
      const kubelet = cluster!.supervisor.pidOf('node-1');
      const daemon = cluster!.supervisor.pidOf(n1.daemon!.name)!;
      // Every status written from here on: the new daemon's first one already names what the kubelet runs.
      const actives = await watchActives(admin, 'node-1');
      try {
        await rm(n1.dynamicConfigDir, { recursive: true, force: true });
        process.kill(daemon, 'SIGKILL');
        await waitFor(
          'the daemon back, rebuilding its records',
          async () => {
            const now = cluster!.supervisor.pidOf(n1.daemon!.name);
            const log = await readFile(n1.daemon!.logFile, 'utf8');
            return now !== undefined &&
              now !== daemon &&
              log
                .split('\n')
                .some(
                  (l) =>
                    l.includes(` ${now} `) &&
                    l.includes(`${dropIn} is this daemon's own file but its records are gone: rebuilt them`),
                )
              ? true
              : undefined;
          },
          15_000,
        );
        await waitFor('the new daemon publishes', async () => (actives.seen.length > 0 ? true : undefined), 15_000);
        await waitActive(admin, 'node-1', good);
      } finally {
        actives.stop();
      }
      assert.deepEqual(new Set(actives.seen), new Set([good.metadata.name]), 'no status without the active config');
      assert.equal(cluster!.supervisor.pidOf('node-1'), kubelet, 'the kubelet was not restarted');
      const kept = JSON.parse(await readFile(join(n1.dynamicConfigDir, 'node-daemon', 'original.json'), 'utf8')) as {
        files: Record<string, unknown>;
      };
      assert.deepEqual(kept.files[dropIn], { absent: true }, 'the node had no such drop-in');
      // A reset takes the drop-in away: it was never the node's.
      await assign(admin, 'node-1', null);
      await waitActive(admin, 'node-1', undefined);
      assert.deepEqual(await readdir(n1.daemon!.configDir), []);
    });
  },
);

describe('dkc node-daemon --apply-as replace, and kill -9 of the daemon', { concurrency: false }, () => {
  let cluster: Cluster | undefined;
  let admin: RestClient;
  let a: ConfigMap;
  let b: ConfigMap;
  let n: ClusterNode;

  before(async () => {
    ({ cluster, admin } = await newCluster(work, 'replace', 1));
    n = cluster.nodes[0]!;
    const local = await readFile(n.config, 'utf8');
    a = await configMap(admin, 'a', `${local.trimEnd()}\neventRecordQPS: 11\n`);
    b = await configMap(admin, 'b', `${local.trimEnd()}\neventRecordQPS: 12\n`);
  });
  after(async () => {
    admin?.close();
    await cluster?.stop(5_000);
  });

  it('replaces the --config file with the assigned config, and a reset restores the original byte for byte', async () => {
    const original = await readFile(n.config);
    await assign(admin, n.name, kubeletSource('a'));
    await waitActive(admin, n.name, a);
    assert.equal(payloadOf(await readFile(n.config)), a.data!['kubelet']);
    assert.equal((await configz(admin, n.name))['eventRecordQPS'], 11);
    await assign(admin, n.name, null);
    await waitActive(admin, n.name, undefined);
    assert.deepEqual(await readFile(n.config), original);
    await waitFor(
      'the kubelet back on its own file',
      async () => ((await configz(admin, n.name))['eventRecordQPS'] === 50 ? true : undefined),
      15_000,
    );
  });

  it('kill -9 of the daemon at random moments of its work, 20 trials: every change lands, whole, the original kept', async () => {
    const original = await readFile(n.config);
    const random = prng(28);
    const daemon = n.daemon!.name;
    for (let trial = 0; trial < 20; trial++) {
      const cm = trial % 2 === 0 ? a : b;
      await assign(admin, n.name, kubeletSource(cm.metadata.name!));
      // From the assignment through download, checkpoint, write, restart and the health gate (about 1.5 s in all).
      await new Promise((r) => setTimeout(r, Math.floor(random() * 1500)));
      const pid = cluster!.supervisor.pidOf(daemon);
      if (pid !== undefined) process.kill(pid, 'SIGKILL');
      await waitActive(admin, n.name, cm, 30_000);
      const onDisk = payloadOf(await readFile(n.config));
      assert.equal(onDisk, cm.data!['kubelet'], `trial ${trial}: the --config file is the assigned config, whole`);
      await waitFor(
        `trial ${trial}: /configz`,
        async () => ((await configz(admin, n.name))['eventRecordQPS'] === (cm === a ? 11 : 12) ? true : undefined),
        10_000,
      );
      await noTempFiles(join(n.config, '..'));
    }
    const kept = JSON.parse(await readFile(join(n.dynamicConfigDir, 'node-daemon', 'original.json'), 'utf8')) as {
      files: Record<string, { data: string }>;
    };
    assert.deepEqual(
      Buffer.from(kept.files[n.config]!.data, 'base64'),
      original,
      "the node's original file is kept as it was",
    );
  });

  it('a daemon that comes back to a kubelet already on the right config does not restart it', async () => {
    await waitFor(
      'last-known-good b',
      async () =>
        (await nodeConfig(admin, n.name)).status?.config?.lastKnownGood?.configMap?.name === 'b' ? true : undefined,
      15_000,
    );
    const kubelet = cluster!.supervisor.pidOf(n.name);
    const daemon = cluster!.supervisor.pidOf(n.daemon!.name)!;
    process.kill(daemon, 'SIGKILL');
    await waitFor(
      'the daemon back, saying so',
      async () => {
        const log = await readFile(n.daemon!.logFile, 'utf8');
        const now = cluster!.supervisor.pidOf(n.daemon!.name);
        return now !== undefined &&
          now !== daemon &&
          log
            .split('\n')
            .some(
              (l) =>
                l.includes(`] kubelet config controller: the kubelet already runs assigned config`) &&
                l.includes(` ${now} `),
            )
          ? true
          : undefined;
      },
      15_000,
    );
    assert.equal(cluster!.supervisor.pidOf(n.name), kubelet, 'the kubelet was not restarted');
  });

  it('a daemon restarted while its kubelet does not answer waits for it, and blames nothing', async () => {
    const kubelet = cluster!.supervisor.pidOf(n.name)!;
    const daemon = cluster!.supervisor.pidOf(n.daemon!.name)!;
    // Frozen across the daemon's restart for longer than a probe waits (4 s here): the new daemon's first probe fails,
    // long after the journal's restart, and the next one, 2 s later, is answered.
    process.kill(daemon, 'SIGKILL');
    process.kill(kubelet, 'SIGSTOP');
    try {
      await waitFor(
        'the new daemon resuming the kubelet on b',
        async () => {
          const now = cluster!.supervisor.pidOf(n.daemon!.name);
          const log = await readFile(n.daemon!.logFile, 'utf8');
          return now !== undefined &&
            now !== daemon &&
            log.includes(` ${now} `) &&
            log.includes('already runs', log.indexOf(` ${now} `))
            ? true
            : undefined;
        },
        15_000,
        20,
      );
      await new Promise((r) => setTimeout(r, 6_000));
    } finally {
      process.kill(kubelet, 'SIGCONT');
    }
    const now = cluster!.supervisor.pidOf(n.daemon!.name)!;
    await waitFor(
      'the new daemon seeing the kubelet healthy',
      async () => {
        const log = (await readFile(n.daemon!.logFile, 'utf8')).split('\n').filter((l) => l.includes(` ${now} `));
        return log.some((l) => l.includes('the kubelet is healthy on')) ? log : undefined;
      },
      15_000,
    );
    const cfg = (await nodeConfig(admin, n.name)).status?.config;
    assert.equal(cfg?.error, undefined, 'no config blamed');
    assert.equal(cfg?.active?.configMap?.name, 'b');
    assert.equal(cluster!.supervisor.pidOf(n.name), kubelet, 'the kubelet was not restarted');
    assert.doesNotMatch(
      (await readFile(n.daemon!.logFile, 'utf8'))
        .split('\n')
        .filter((l) => l.includes(` ${now} `))
        .join('\n'),
      /did not become healthy|rolling the kubelet back/,
    );
  });

  it("a broken file of the node's own is named, not the assignment; the kubelet is left alone, and the assignment runs once it is fixed", async () => {
    const kubelet = cluster!.supervisor.pidOf(n.name);
    const local = join(n.daemon!.configDir, '95-local.conf');
    await writeFile(local, `${HEADER}eventRecordQPS: [1\n`);
    try {
      await waitFor(
        'the node files reported',
        async () => ((await nodeConfig(admin, n.name)).status?.config?.error === NODE_FILES_ERROR ? true : undefined),
        15_000,
        50,
      );
      await assign(admin, n.name, kubeletSource('a'));
      await waitFor(
        'a judged against the broken files',
        async () => {
          const cfg = (await nodeConfig(admin, n.name)).status?.config;
          return cfg?.assigned?.configMap?.name === 'a' && cfg.error === NODE_FILES_ERROR ? cfg : undefined;
        },
        15_000,
        50,
      );
      const cfg = (await nodeConfig(admin, n.name)).status?.config;
      assert.equal(cfg?.active?.configMap?.name, 'b', 'the kubelet stays on what it runs');
      assert.equal(cluster!.supervisor.pidOf(n.name), kubelet, 'and is not restarted');
      assert.equal(payloadOf(await readFile(n.config)), b.data!['kubelet'], 'nothing written');
    } finally {
      await rm(local, { force: true });
    }
    await waitActive(admin, n.name, a);
    assert.equal(payloadOf(await readFile(n.config)), a.data!['kubelet']);
  });

  it('a daemon killed while it restarts the kubelet finishes the apply when it comes back, and says so', async () => {
    const daemon = n.daemon!.name;
    const first = cluster!.supervisor.pidOf(daemon)!;
    let killed = false;
    // The kubelet exits inside the daemon's restart request: the daemon is killed there, its journal saying the
    // file is written and the restart not yet done.
    const onExit = (ev: { name: string }) => {
      if (ev.name !== n.name || killed) return;
      killed = true;
      process.kill(first, 'SIGKILL');
    };
    cluster!.supervisor.on('exit', onExit);
    try {
      await assign(admin, n.name, kubeletSource('b'));
      await waitActive(admin, n.name, b, 30_000);
    } finally {
      cluster!.supervisor.off('exit', onExit);
    }
    assert.ok(killed, 'the daemon was killed inside its restart of the kubelet');
    const now = cluster!.supervisor.pidOf(daemon)!;
    assert.notEqual(now, first);
    const log = (await readFile(n.daemon!.logFile, 'utf8')).split('\n').filter((l) => l.includes(` ${now} `));
    assert.ok(
      log.some((l) => l.includes('recovering an apply that did not finish before the daemon stopped')),
      `the restarted daemon says it recovers the apply:\n${log.join('\n')}`,
    );
    assert.equal(payloadOf(await readFile(n.config)), b.data!['kubelet']);
  });
});
