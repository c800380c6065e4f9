// The shipped deploy/prometheus assets against a real local cluster (`startCluster`, as `dkc up` runs it, three
// agents), placeholders filled in, intervals and `for:` shortened. The scrape jobs of prometheus.yml run as shipped
// in Debian's vmagent, whose Kubernetes discovery (role: node) lists and watches the Nodes of dkc server, and which
// writes what it scrapes into a real Prometheus (Debian's, started with its remote-write receiver; it is built
// without Kubernetes discovery, so it cannot run the node job itself). Prometheus evaluates the shipped rules and
// answers the dashboard. Both run as the user `prometheus`, with a token (for dkc server) and a client certificate
// from the cluster CA (for the agents) and deploy/prometheus/rbac.yaml's rights only (nodes/metrics, not
// nodes/proxy). vmagent finds every node, scrapes kubelet_node_config_* from each at the agent's own port, finds a
// node added later through its watch; Prometheus fires NodeConfigError for the node given a bad config, and answers
// every expression of the Grafana dashboard with data.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import type { Node } from '../../src/api/types.js';
import { RestClient } from '../../src/client/index.js';
import { ROLLOUTS_PATH, newRollout, type NodeConfigRollout } from '../../src/api/dkc/rollout.js';
import { dkcBin, freePort, startCluster, type Cluster } from '../../src/up/cluster.js';
import { issueCert } from '../../src/pki/certs.js';
import {
  dashboardExpressions,
  PROMETHEUS_DIR,
  requireTool,
  rulesOnlyConfig,
  testConfig,
  testRules,
} from '../deploy/promconfig.js';
import { startVmagent, type Vmagent, type VmagentTarget } from '../deploy/vmagent.js';
import { waitFor } from '../helpers/wait.js';

const NODES = ['node-1', 'node-2', 'node-3'];
/** The node that joins once vmagent is watching: a `dkc fleet` of one simulated node, running the agent's code. */
const LATE_PREFIX = 'late-';
const LATE = `${LATE_PREFIX}1`;
const TOKEN = 'prometheus-e2e-token';
const CM_PATH = '/api/v1/namespaces/kube-system/configmaps';

let work = '';
let cluster: Cluster | undefined;
let admin: RestClient;
let asPrometheus: RestClient;
let vmagent: Vmagent | undefined;
let fleet: ChildProcess | undefined;
let prometheus: ChildProcess | undefined;
let promLog = '';
let promURL = '';

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

async function promGet<T>(path: string): Promise<T> {
  const res = await fetch(`${promURL}${path}`);
  const body = (await res.json()) as { status: string; data: T; error?: string };
  if (body.status !== 'success') throw new Error(`${path}: ${body.error ?? res.status}`);
  return body.data;
}

async function query(expr: string): Promise<Sample[]> {
  const data = await promGet<{ resultType: string; result: Sample[] }>(
    `/api/v1/query?query=${encodeURIComponent(expr)}`,
  );
  return data.result;
}

/** Creates every object of a manifest as the admin (the kinds rbac.yaml holds). */
async function applyManifest(file: string): Promise<void> {
  const paths: Record<string, string> = {
    ClusterRole: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
    ClusterRoleBinding: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
  };
  for (const doc of parseAllDocuments(await readFile(file, 'utf8'))) {
    const obj = doc.toJS() as { kind: string };
    await admin.create(paths[obj.kind]!, obj);
  }
}

async function configMap(name: string, extra: string, local: string): Promise<void> {
  await admin.create(CM_PATH, {
    metadata: { name, namespace: 'kube-system' },
    data: { kubelet: `${local.trimEnd()}\n${extra}\n` },
  });
}

/** The LISTs of Nodes the user prometheus has made, from dkc server's audit log (one line per finished request). */
async function nodeListsByPrometheus(): Promise<number> {
  const lines = (await readFile(join(work, 'audit.log'), 'utf8')).split('\n').filter(Boolean);
  const events = lines.map(
    (l) => JSON.parse(l) as { user?: { username?: string }; verb?: string; objectRef?: { resource?: string } },
  );
  return events.filter(
    (e) => e.user?.username === 'prometheus' && e.verb === 'list' && e.objectRef?.resource === 'nodes',
  ).length;
}

/** vmagent's active targets once `done` accepts them; on a timeout, the failure shows them and vmagent's log. */
async function targetsWhen(what: string, done: (targets: VmagentTarget[]) => boolean): Promise<VmagentTarget[]> {
  let last: VmagentTarget[] = [];
  return waitFor(
    what,
    async () => {
      last = await vmagent!.targets();
      return done(last) ? last : undefined;
    },
    60_000,
    200,
  ).catch((err: unknown) => {
    throw new Error(`${(err as Error).message}\n${JSON.stringify(last, null, 1)}\n${vmagent!.log()}`);
  });
}

const nodeTargets = (targets: VmagentTarget[]) => targets.filter((t) => t.labels['job'] === 'dkc-nodes');

/** The agent's own /metrics, where Kubernetes discovery puts a node: its InternalIP and advertised kubelet port. */
async function kubeletMetricsURL(name: string): Promise<string> {
  const n = await admin.get<Node>(`/api/v1/nodes/${name}`);
  const ip = n.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
  const port = n.status?.daemonEndpoints?.kubeletEndpoint?.Port;
  return `https://${ip}:${port}/metrics`;
}

let fleetLog = '';

function startLateNode(): ChildProcess {
  const args = [
    'fleet',
    '--kubeconfig',
    cluster!.kubeconfig,
    '--nodes',
    '1',
    '--name-prefix',
    LATE_PREFIX,
    '--data-dir',
    join(work, 'fleet'),
    '--port',
    '0',
    '--stats-interval',
    '0',
  ];
  const child = spawn(process.execPath, [dkcBin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (d: Buffer) => (fleetLog += d.toString()));
  child.stderr.on('data', (d: Buffer) => (fleetLog += d.toString()));
  return child;
}

async function stopLateNode(): Promise<void> {
  if (fleet && fleet.exitCode === null && fleet.signalCode === null) {
    const exited = new Promise((r) => fleet!.once('exit', r));
    fleet.kill('SIGTERM');
    await exited;
  }
}

before(async () => {
  const prometheusBin = requireTool('prometheus');
  work = await mkdtemp(join(tmpdir(), 'dkc-prometheus-e2e-'));
  const tokens = join(work, 'tokens.csv');
  await writeFile(tokens, `${TOKEN},prometheus,uid-prometheus\n`);
  const serverArgs = ['--token-auth-file', tokens, '--audit-log-path', join(work, 'audit.log')];
  cluster = await startCluster({ dataDir: join(work, 'cluster'), nodes: NODES.length, port: 0, serverArgs });
  admin = await RestClient.fromKubeconfig(cluster.kubeconfig);
  await applyManifest(join(PROMETHEUS_DIR, 'rbac.yaml'));
  const server = new URL(cluster.serverURL).host;
  const caFile = join(cluster.dataDir, 'pki', 'ca.crt');
  const tokenFile = join(work, 'token');
  await writeFile(tokenFile, `${TOKEN}\n`);
  // The agents authenticate callers by client certificate, as kubelets do: one for the user prometheus.
  const ca = {
    certPem: await readFile(caFile, 'utf8'),
    keyPem: await readFile(join(cluster.dataDir, 'pki', 'ca.key'), 'utf8'),
  };
  const cert = await issueCert(ca, { commonName: 'prometheus', usages: ['client'] });
  const [certFile, keyFile] = [join(work, 'prometheus.crt'), join(work, 'prometheus.key')];
  await writeFile(certFile, cert.certPem);
  await writeFile(keyFile, cert.keyPem, { mode: 0o600 });
  asPrometheus = new RestClient({ server: cluster.serverURL, ca: await readFile(caFile, 'utf8'), token: TOKEN });

  const promDir = join(work, 'prometheus');
  await mkdir(promDir);
  await writeFile(
    join(promDir, 'prometheus.yml'),
    await rulesOnlyConfig({ server, caFile, tokenFile, interval: '1s' }),
  );
  await writeFile(join(promDir, 'rules.yml'), await testRules('2s'));
  await copyFile(join(PROMETHEUS_DIR, 'rules.test.yml'), join(promDir, 'rules.test.yml'));
  const port = await freePort();
  promURL = `http://127.0.0.1:${port}`;
  const promArgs = [
    `--config.file=${join(promDir, 'prometheus.yml')}`,
    `--storage.tsdb.path=${join(promDir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--web.enable-remote-write-receiver',
  ];
  prometheus = spawn(prometheusBin, promArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
  prometheus.stdout!.on('data', (d: Buffer) => (promLog += d.toString()));
  prometheus.stderr!.on('data', (d: Buffer) => (promLog += d.toString()));
  await waitFor(
    'Prometheus ready',
    async () => {
      if (prometheus!.exitCode !== null) throw new Error(`prometheus exited ${prometheus!.exitCode}: ${promLog}`);
      const res = await fetch(`${promURL}/-/ready`);
      return res.ok ? true : undefined;
    },
    30_000,
    100,
  );

  // vmagent runs the shipped scrape jobs, Kubernetes discovery included, as Prometheus would; the nodes are
  // registered first, so that its list finds them and only the node added later can come through its watch.
  await waitFor(
    'every node registered',
    async () =>
      (await admin.list<{ items: Node[] }>('/api/v1/nodes')).items.length === NODES.length ? true : undefined,
    30_000,
    100,
  );
  const vmDir = join(work, 'vmagent');
  await mkdir(vmDir);
  await writeFile(
    join(vmDir, 'prometheus.yml'),
    await testConfig({ server, caFile, tokenFile, certFile, keyFile, interval: '1s' }),
  );
  vmagent = await startVmagent({
    configFile: join(vmDir, 'prometheus.yml'),
    dataDir: join(vmDir, 'data'),
    remoteWriteUrl: `${promURL}/api/v1/write`,
  });
});

after(async () => {
  await vmagent?.stop();
  await stopLateNode();
  if (prometheus && prometheus.exitCode === null && prometheus.signalCode === null) {
    const exited = new Promise((r) => prometheus!.once('exit', r));
    prometheus.kill('SIGTERM');
    await exited;
  }
  asPrometheus?.close();
  admin?.close();
  await cluster?.stop(5_000);
  if (work) await rm(work, { recursive: true, force: true });
});

describe(
  'the shipped Prometheus config, through vmagent into Prometheus, against dkc up',
  { concurrency: false },
  () => {
    it('vmagent discovers every node (Kubernetes discovery, role: node) and scrapes dkc server and each agent at its own port, with no right to the node proxy', async () => {
      const targets = await targetsWhen(
        'every target up',
        (ts) => ts.length === NODES.length + 1 && ts.every((t) => t.health === 'up'),
      );
      const nodes = nodeTargets(targets);
      assert.deepEqual(nodes.map((t) => t.labels['instance']).sort(), NODES);
      const server = new URL(cluster!.serverURL).host;
      for (const t of nodes) {
        const name = t.labels['instance']!;
        assert.equal(t.scrapeUrl, await kubeletMetricsURL(name));
        // What Kubernetes discovery found of the Node, and the labelmap of its labels.
        assert.equal(t.discoveredLabels['__meta_kubernetes_node_name'], name);
        assert.equal(t.labels['kubernetes_io_hostname'], name);
      }
      assert.deepEqual(
        targets.filter((t) => t.labels['job'] === 'dkc-server').map((t) => t.scrapeUrl),
        [`https://${server}/metrics`],
      );
      // nodes/metrics is the only right to the nodes: the node proxy (nodes/proxy, exec on a real kubelet) is refused.
      await assert.rejects(asPrometheus.get(`/api/v1/nodes/${NODES[0]!}/proxy/metrics`), /forbidden/i);
    });

    it("what vmagent scrapes arrives in Prometheus: every node's kubelet_node_config_* and dkc server's metrics", async () => {
      const perNode = await waitFor('kubelet_node_config_* from every node', async () => {
        const samples = await query(
          'count by (instance) ({job="dkc-nodes",__name__=~"kubelet_node_config_(assigned|active|last_known_good|error)"})',
        );
        return samples.length === NODES.length ? samples : undefined;
      });
      for (const s of perNode)
        assert.equal(s.value[1], '4', `four kubelet_node_config_* series from ${s.metric['instance']}`);
      // dkc server's own target is scraped and remote-written apart from the nodes': its series may arrive a moment
      // after theirs.
      await waitFor(
        'apiserver_request_total of LIST nodes from dkc server',
        async () => (await query('apiserver_request_total{job="dkc-server",verb="LIST",resource="nodes"}')).length > 0,
      );
      // The node lifecycle controller inside dkc server reports every node's Ready condition (NodeNotReady reads it).
      const ready = await waitFor('kube_node_status_condition of every node', async () => {
        const samples = await query(
          'kube_node_status_condition{job="dkc-server",condition="Ready",status="true"} == 1',
        );
        return samples.length === NODES.length ? samples : undefined;
      });
      assert.deepEqual(ready.map((s) => s.metric['node']).sort(), NODES);
    });

    it('a node added later is found through the watch (no second list), scraped, and dropped when deleted', async () => {
      assert.equal(await nodeListsByPrometheus(), 1, 'vmagent listed the Nodes once, then watched');
      fleet = startLateNode();
      const found = await targetsWhen(`${LATE} discovered and up`, (ts) =>
        nodeTargets(ts).some((t) => t.labels['instance'] === LATE && t.health === 'up'),
      ).catch((err: unknown) => {
        throw new Error(`${(err as Error).message}\n${fleetLog}`);
      });
      assert.equal(found.find((t) => t.labels['instance'] === LATE)?.scrapeUrl, await kubeletMetricsURL(LATE));
      await waitFor(
        `${LATE}'s kubelet_node_config_* in Prometheus`,
        async () =>
          (await query(`kubelet_node_config_active{job="dkc-nodes",instance="${LATE}"}`)).length === 1
            ? true
            : undefined,
        30_000,
        250,
      );
      assert.equal(await nodeListsByPrometheus(), 1, `${LATE} came through the watch, not a list`);

      await stopLateNode();
      await admin.delete(`/api/v1/nodes/${LATE}`);
      await targetsWhen(
        `${LATE} gone from the targets`,
        (ts) => !nodeTargets(ts).some((t) => t.labels['instance'] === LATE),
      );
      assert.equal(await nodeListsByPrometheus(), 1);
    });

    it("answers the list and watch of nodes that Prometheus' Kubernetes discovery sends, in a form client-go decodes", async () => {
      // Prometheus sets client-go's content type to protobuf, so it asks with "application/vnd.kubernetes.protobuf, */*";
      // client-go decodes whatever the response's Content-Type names, JSON included, for lists and watch streams alike.
      const accept = 'application/vnd.kubernetes.protobuf, */*';
      const list = await asPrometheus.request<{ kind: string; items: Node[]; metadata: { resourceVersion: string } }>({
        method: 'GET',
        path: '/api/v1/nodes',
        query: { limit: '500', resourceVersion: '0' },
        accept,
      });
      assert.match(String(list.headers['content-type']), /^application\/json/);
      assert.equal(list.body.kind, 'NodeList');
      assert.equal(list.body.items.length, NODES.length);
      const query = {
        watch: 'true',
        allowWatchBookmarks: 'true',
        resourceVersion: list.body.metadata.resourceVersion,
        timeoutSeconds: '1',
      };
      const watch = await asPrometheus.request<string>({ method: 'GET', path: '/api/v1/nodes', query, accept });
      assert.match(String(watch.headers['content-type']), /^application\/json/);
    });

    it('fires NodeConfigError for a node given a bad config, and only for it', async () => {
      const local = await readFile(cluster!.nodes[0]!.config, 'utf8');
      await configMap('bad', 'kubeAPIQPS: -1', local);
      await admin.patch('/api/v1/nodes/node-1', 'merge', {
        spec: { configSource: { configMap: { namespace: 'kube-system', name: 'bad', kubeletConfigKey: 'kubelet' } } },
      });
      const firing = await waitFor(
        'NodeConfigError firing',
        async () => {
          const alerts = await query('ALERTS{alertname="NodeConfigError",alertstate="firing"}');
          return alerts.length > 0 ? alerts : undefined;
        },
        60_000,
        250,
      );
      assert.deepEqual(
        firing.map((a) => a.metric['instance']),
        ['node-1'],
      );
      const node = await admin.get<Node>('/api/v1/nodes/node-1');
      assert.ok(node.status?.config?.error, 'the node published the error Prometheus alerts on');
    });

    it('answers every PromQL expression of the Grafana dashboard with data', async () => {
      // A rollout for the rollout panels: a good config to node-2 and node-3.
      const local = await readFile(cluster!.nodes[1]!.config, 'utf8');
      await configMap('good', 'eventRecordQPS: 7', local);
      for (const n of ['node-2', 'node-3'])
        await admin.patch(`/api/v1/nodes/${n}`, 'merge', { metadata: { labels: { pool: 'green' } } });
      await admin.create(
        ROLLOUTS_PATH,
        newRollout('good', {
          configSource: { configMap: { namespace: 'kube-system', name: 'good', kubeletConfigKey: 'kubelet' } },
          nodeSelector: { matchLabels: { pool: 'green' } },
        }),
      );
      await waitFor(
        'the rollout Succeeded',
        async () =>
          (await admin.get<NodeConfigRollout>(`${ROLLOUTS_PATH}/good`)).status?.phase === 'Succeeded'
            ? true
            : undefined,
        60_000,
        200,
      );
      await waitFor(
        'Prometheus sees it',
        async () =>
          (await query('dkc_rollout_phase{rollout="good",phase="Succeeded"} == 1')).length === 1 ? true : undefined,
        30_000,
        250,
      );
      const empty: string[] = [];
      for (const { panel, expr } of await dashboardExpressions('1m')) {
        const result = await query(expr);
        if (result.length === 0) empty.push(`${panel}: ${expr}`);
      }
      assert.deepEqual(empty, [], 'dashboard expressions without data');
    });
  },
);
