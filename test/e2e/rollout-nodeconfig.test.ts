// The modern channel end to end: a local cluster as `dkc up --emulated-version 1.31` runs it (a server behaving as
// kube-apiserver 1.31, four agents, the rollout controller inside the server), where Nodes drop spec.configSource and
// status.config and every assignment goes through the nodes' NodeConfigs. An administrator's `kubectl patch node`
// of configSource succeeds and the field is gone, as on a real 1.31; a rollout started and followed with
// `dkc rollout` (canary, batches) ends Succeeded with every node's NodeConfig status right; `dkc config lint
// --against node/N` reads the node as ever; and a rollout of an invalid config ends Reverted, the failing node having
// reported upstream's error string in its NodeConfig's status.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE_CONFIGS_PATH, type NodeConfig } from '../../src/api/dkc/nodeconfig.js';
import type { ConfigMap, Node } from '../../src/api/types.js';
import { RestClient } from '../../src/client/index.js';
import { ROLLOUT_ANNOTATION, ROLLOUTS_PATH, type NodeConfigRollout } from '../../src/api/dkc/rollout.js';
import { startCluster, type Cluster } from '../../src/up/cluster.js';
import { defaultLocalConfig } from '../../src/agent/clusterconfig.js';
import { runDkc } from '../helpers/dkc.js';
import { kubectl, type Kubectl } from '../helpers/kubectl.js';
import { kubeletConfigMap, kubeletSource } from '../helpers/nodeconfig.js';
import { waitFor } from '../helpers/wait.js';

const BLUE = ['node-1', 'node-2', 'node-3'];
const VALIDATE_ERROR = 'failed to validate config, see Kubelet log for details';

let work = '';
let cluster: Cluster | undefined;
let admin: RestClient;
let k: Kubectl | undefined;

const nodeConfig = (name: string): Promise<NodeConfig> => admin.get<NodeConfig>(`${NODE_CONFIGS_PATH}/${name}`);
const getRollout = (name: string): Promise<NodeConfigRollout> =>
  admin.get<NodeConfigRollout>(`${ROLLOUTS_PATH}/${name}`);

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'dkc-rollout-nc-'));
  cluster = await startCluster({
    dataDir: join(work, 'cluster'),
    nodes: 4,
    port: 0,
    serverArgs: ['--emulated-version', '1.31'],
    backoff: { initialMs: 50, maxMs: 500 },
    localConfig: (ctx) => `${defaultLocalConfig(ctx)}nodeLeaseDurationSeconds: 8\n`,
  });
  admin = await RestClient.fromKubeconfig(cluster.kubeconfig);
  k = await kubectl('1.32', cluster.kubeconfig);
  await waitFor(
    'four nodes Ready, each with its NodeConfig reporting what it runs',
    async () => {
      const nodes = (await admin.list<{ items: Node[] }>('/api/v1/nodes')).items;
      const ready = nodes.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
      const reporting = (await admin.list<{ items: NodeConfig[] }>(NODE_CONFIGS_PATH)).items.filter(
        (nc) => nc.status?.config !== undefined,
      );
      return ready.length === 4 && reporting.length === 4 ? true : undefined;
    },
    30_000,
  );
  for (const n of BLUE) await admin.patch(`/api/v1/nodes/${n}`, 'merge', { metadata: { labels: { pool: 'blue' } } });
  const local = await readFile(cluster.nodes[0]!.config, 'utf8');
  await kubeletConfigMap(admin, local, 'good', 'eventRecordQPS: 7');
  await kubeletConfigMap(admin, local, 'bad', 'kubeAPIQPS: -1');
});

after(async () => {
  admin?.close();
  await k?.cleanup();
  await cluster?.stop(5_000);
  if (work) await rm(work, { recursive: true, force: true });
});

describe('rollouts through NodeConfigs on an emulated kube-apiserver 1.31', { concurrency: false }, () => {
  it("an administrator's kubectl patch of a Node's configSource succeeds and the field is gone", async () => {
    const patch = JSON.stringify({ spec: { configSource: kubeletSource('good') } });
    await k!.ok(['patch', 'node', 'node-4', '-p', patch]);
    assert.equal(await k!.ok(['get', 'node', 'node-4', '-o', 'jsonpath={.spec.configSource}']), '');
    assert.equal((await nodeConfig('node-4')).spec?.configSource, undefined, 'and nothing reached its NodeConfig');
  });

  it('dkc rollout start and status: canary then a batch of two, Succeeded, every NodeConfig assigned and active', async () => {
    const kc = ['--kubeconfig', cluster!.kubeconfig];
    const started = await runDkc([
      'rollout',
      'start',
      'good',
      '--configmap',
      'kube-system/good',
      '--selector',
      'pool=blue',
      '--canary',
      '1',
      '--max-unavailable',
      '2',
      '--soak',
      '1s',
      ...kc,
    ]);
    assert.equal(started.code, 0, started.stderr);
    const status = await runDkc(['rollout', 'status', 'good', '--watch', '--timeout', '2m', ...kc], {
      timeoutMs: 150_000,
    });
    assert.equal(status.code, 0, `${status.stdout}\n${status.stderr}`);
    assert.match(
      status.stdout,
      /^canary started: node-1\n(.*\n)*batch 1 started: node-2, node-3\n(.*\n)*nodeconfigrollout "good" successfully rolled out \(3 of 3 nodes succeeded\)\n$/,
    );
    const cm = await admin.get<ConfigMap>('/api/v1/namespaces/kube-system/configmaps/good');
    const r = await getRollout('good');
    assert.deepEqual([r.status?.targetNodes, r.status?.succeededNodes, r.status?.failedNodes], [3, 3, 0]);
    assert.deepEqual(
      BLUE.map((n) => r.status?.nodes?.[n]?.batch),
      [0, 1, 1],
    );
    for (const n of BLUE) {
      const nc = await nodeConfig(n);
      assert.deepEqual(nc.spec?.configSource, kubeletSource('good'), `${n}: assigned through its NodeConfig`);
      assert.equal(nc.metadata.annotations?.[ROLLOUT_ANNOTATION], 'good');
      const active = nc.status?.config?.active?.configMap;
      assert.deepEqual(
        [active?.name, active?.uid, active?.resourceVersion, nc.status?.config?.error ?? ''],
        ['good', cm.metadata.uid, cm.metadata.resourceVersion, ''],
        `${n}: runs it`,
      );
      assert.deepEqual(
        r.status?.nodes?.[n]?.previous,
        { configSource: {} },
        `${n}: the revert record, in the rollout's status`,
      );
      assert.equal(
        (await admin.get<Node>(`/api/v1/nodes/${n}`)).spec?.configSource,
        undefined,
        `${n}: its Node carries nothing`,
      );
    }
    assert.equal(
      (await nodeConfig('node-4')).spec?.configSource,
      undefined,
      'a node the selector leaves out is not touched',
    );
    // The metrics the Prometheus rules and the Grafana dashboard (deploy/) read, under the same names.
    const controller = await k!.ok(['get', '--raw', '/metrics']);
    assert.match(controller, /^dkc_rollout_phase\{rollout="good",phase="Succeeded"\} 1$/m);
    assert.match(controller, /^dkc_rollout_nodes\{rollout="good",state="Succeeded"\} 3$/m);
    const agent = await k!.ok(['get', '--raw', '/api/v1/nodes/node-1/proxy/metrics']);
    assert.match(
      agent,
      new RegExp(
        `^kubelet_node_config_active\\{node_config_source="/api/v1/namespaces/kube-system/configmaps/good",node_config_uid="${cm.metadata.uid}",`,
        'm',
      ),
    );
    assert.match(agent, /^kubelet_node_config_error 0$/m);
    const table = await runDkc(['rollout', 'list', ...kc]);
    assert.match(table.stdout, /good\s+Succeeded\s+3\s+3\s+3\s+0/);
  });

  it('dkc config lint --against node/N reads what the node runs', async () => {
    const file = join(work, 'candidate.yaml');
    await writeFile(file, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\neventRecordQPS: 9\n');
    const r = await runDkc([
      'config',
      'lint',
      file,
      '--against',
      'node/node-1',
      '--kubeconfig',
      cluster!.kubeconfig,
      '-o',
      'json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as {
      against: string;
      changes: { path: string; old?: unknown; new?: unknown }[];
    };
    assert.equal(report.against, 'node/node-1');
    const qps = report.changes.find((c) => c.path === 'eventRecordQPS');
    assert.deepEqual([qps?.old, qps?.new], [7, 9], 'node-1 runs good (eventRecordQPS 7)');
  });

  it("an invalid config ends Reverted, upstream's error string in the failing node's NodeConfig status", async () => {
    const seen: string[] = [];
    await admin.create(ROLLOUTS_PATH, {
      apiVersion: 'dkc.io/v1alpha1',
      kind: 'NodeConfigRollout',
      metadata: { name: 'bad' },
      spec: {
        configSource: kubeletSource('bad'),
        nodeSelector: { matchLabels: { pool: 'blue' } },
        failurePolicy: 'Revert',
      },
    });
    await waitFor(
      'rollout bad Reverted',
      async () => {
        const cfg = (await nodeConfig('node-1')).status?.config;
        if (cfg?.assigned?.configMap?.name === 'bad' && cfg.error) seen.push(cfg.error);
        return (await getRollout('bad')).status?.phase === 'Reverted' ? true : undefined;
      },
      60_000,
      25,
    );
    assert.ok(seen.includes(VALIDATE_ERROR), `node-1's NodeConfig reported: ${JSON.stringify(seen)}`);
    const r = await getRollout('bad');
    assert.deepEqual(
      r.status?.failures?.map((f) => [f.node, f.reason, f.message]),
      [['node-1', 'ConfigError', VALIDATE_ERROR]],
    );
    const status = await runDkc(['rollout', 'status', 'bad', '--kubeconfig', cluster!.kubeconfig]);
    assert.equal(status.code, 1, status.stdout);
    for (const n of BLUE) {
      const nc = await nodeConfig(n);
      assert.deepEqual(
        nc.spec?.configSource,
        kubeletSource('good'),
        `${n}: on good again (the canary put back, the others never changed)`,
      );
      assert.equal(
        nc.metadata.annotations?.[ROLLOUT_ANNOTATION],
        'good',
        `${n}: held again by the rollout that held it before`,
      );
    }
    await waitFor(
      'node-1 running good again, without error',
      async () => {
        const cfg = (await nodeConfig('node-1')).status?.config;
        return cfg?.active?.configMap?.name === 'good' && !cfg.error ? true : undefined;
      },
      30_000,
    );
  });

  it('a finished rollout watches its nodes: one whose daemon reports a local drop-in overriding a rolled-out field is Degraded, and status exits 1', async () => {
    const kc = ['--kubeconfig', cluster!.kubeconfig];
    // What a node daemon writes when a drop-in sorting after dkc's sets a field of the assignment otherwise.
    const report = (kubelet: unknown): Promise<unknown> =>
      admin.patch(`${NODE_CONFIGS_PATH}/node-2/status`, 'merge', { status: { kubelet } });
    await report({ localOverrides: [{ field: 'eventRecordQPS', file: '95-local.conf' }] });
    await waitFor(
      'rollout good Degraded',
      async () => ((await getRollout('good')).status?.degradedNodes === 1 ? true : undefined),
      20_000,
    );
    const r = await getRollout('good');
    assert.equal(r.status?.phase, 'Succeeded');
    assert.deepEqual(
      r.status?.degraded?.map((d) => [d.node, d.reason]),
      [['node-2', 'LocalOverride']],
    );
    assert.equal(r.status?.conditions?.find((c) => c.type === 'Degraded')?.status, 'True');
    const degraded = await runDkc(['rollout', 'status', 'good', ...kc]);
    assert.equal(degraded.code, 1, degraded.stdout);
    assert.match(degraded.stdout, /node node-2 no longer runs the config \(LocalOverride\)/);
    assert.match(degraded.stdout, /but 1 node no longer runs it\n$/);
    // Before a rollout of it starts, `dkc rollout plan` shows the node that would not run it.
    const plan = await runDkc(['rollout', 'plan', '--configmap', 'kube-system/good', '--selector', 'pool=blue', ...kc]);
    assert.equal(plan.code, 0, plan.stderr);
    assert.match(plan.stdout, /^node node-2: a local drop-in overrides eventRecordQPS \(95-local\.conf\)/m);
    assert.doesNotMatch(plan.stdout, /^node node-[13]:/m);
    await report(null);
    await waitFor(
      'rollout good whole again',
      async () => ((await getRollout('good')).status?.degradedNodes === 0 ? true : undefined),
      20_000,
    );
    assert.equal((await runDkc(['rollout', 'status', 'good', ...kc])).code, 0);
  });

  it('a rollout of a mutable ConfigMap assigns an immutable copy: an edit of the source in place restarts no node', async () => {
    const kc = ['--kubeconfig', cluster!.kubeconfig];
    const local = await readFile(cluster!.nodes[0]!.config, 'utf8');
    await admin.create('/api/v1/namespaces/kube-system/configmaps', {
      metadata: { name: 'mutable', namespace: 'kube-system' },
      data: { kubelet: `${local.trimEnd()}\neventRecordQPS: 11\n` },
    });
    const flags = ['--selector', 'pool=blue', '--canary', '0', '--max-unavailable', '3', ...kc];
    const started = await runDkc(['rollout', 'start', 'pinned', '--configmap', 'kube-system/mutable', ...flags]);
    assert.equal(started.code, 0, started.stderr);
    const status = await runDkc(['rollout', 'status', 'pinned', '--watch', '--timeout', '2m', ...kc], {
      timeoutMs: 150_000,
    });
    assert.equal(status.code, 0, `${status.stdout}\n${status.stderr}`);
    const copy = (await getRollout('pinned')).status?.renderedConfigMap ?? '';
    assert.match(copy, /^pinned-[a-z0-9]{10}$/);
    assert.match(status.stdout, new RegExp(`^rolling out ConfigMap dkc-configs/${copy}: an immutable copy`));
    const pinned = await admin.get<ConfigMap>(`/api/v1/namespaces/dkc-configs/configmaps/${copy}`);
    assert.equal(pinned.immutable, true);
    const running = async (): Promise<string[]> =>
      Promise.all(
        BLUE.map(async (n) => {
          const a = (await nodeConfig(n)).status?.config?.active?.configMap;
          return `${a?.name}/${a?.uid}/${a?.resourceVersion}`;
        }),
      );
    const before = await running();
    assert.deepEqual(
      before,
      BLUE.map(() => `${copy}/${pinned.metadata.uid}/${pinned.metadata.resourceVersion}`),
    );
    for (const n of BLUE)
      assert.deepEqual(
        (await nodeConfig(n)).spec?.configSource,
        { configMap: { namespace: 'dkc-configs', name: copy, kubeletConfigKey: 'kubelet' } },
        `${n}: assigned the copy`,
      );
    await admin.patch('/api/v1/namespaces/kube-system/configmaps/mutable', 'merge', {
      data: { kubelet: `${local.trimEnd()}\neventRecordQPS: 12\n` },
    });
    // Agents follow an edit of what they are assigned within a quarter of a second: give them two seconds.
    await new Promise((r) => setTimeout(r, 2_000));
    assert.deepEqual(await running(), before, 'every node still runs the copy it was given');
    assert.equal((await runDkc(['rollout', 'status', 'pinned', ...kc])).code, 0);
  });
});
