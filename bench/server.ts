// Server benchmark (not a test): prints figures, each with a baseline measured in the same run where one exists.
//  1. ConfigMap create+update rate through a real `dkc server` process (8 clients) vs raw better-sqlite3 doing the
//     same writes with the same concurrency and durability: 8 writer threads, the store's kv and history rows, one
//     transaction per write, WAL, synchronous=FULL — dkc's target for the ratio is ≥ 0.5, which the store's
//     group commit reaches (docs/adr/0001-sqlite-group-commit.md).
//  2. Delivery latency of one change to 1,000 and to 5,000 concurrent watchers (p50/p99 over watchers and changes).
//  3. List latency for 5,000 nodes (JSON and Table).
//  4. Server-side apply against a JSON merge patch of the same Node (labels, spec and an agent's status, as a node
//     registers): the server's CPU per request (/proc/<pid>/stat) and the requests per second, 8 clients each
//     changing its own Node, the merge patch measured first in the same run; the ratio is what DESIGN.md §7 targets
//     (≤ 2). And what managedFields add to such a Node's stored form.
//  5. The same comparison for a status naming 5,000 nodes (a NodeConfigRollout's status.nodes at that scale), written
//     one after another as the rollout controller writes it.
//  6. Request bodies in YAML against the same object in JSON: 20,000 labels, a body at the YAML node budget, and the
//     worst bodies at the size limit (3 MiB: nested flow maps, one flat flow sequence, keys of one map, blank lines),
//     each sent as YAML and as JSON (the same bytes where the YAML is JSON text): the server's CPU per request and the
//     slowest /healthz answer while it runs, polled every 20 ms from a second client.
// Usage: node dist/bench/server.js [--quick] [--yaml (the YAML rows only)]

import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ApiError, RestClient } from '../src/client/index.js';
import { startServer } from '../test/helpers/server.js';
import { crdOf } from '../test/helpers/crds.js';
import { ms, pct, serverWriteRate } from './common.js';
import { storedManagedFields } from '../src/server/fieldmanager/storedform.js';

const quick = process.argv.includes('--quick');
const yamlOnly = process.argv.includes('--yaml');
/** How long a watcher has to deliver one change before it counts as missed. */
const DELIVERY_TIMEOUT_MS = 30_000;

/**
 * The stored form of one benchmark ConfigMap as the server writes it (metadata the server adds, managedFields of a
 * create or an update), so the baseline writes rows of the same size.
 */
function storedConfigMap(i: number, data: string): Uint8Array {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return Buffer.from(
    JSON.stringify(
      asStored({
        kind: 'ConfigMap',
        apiVersion: 'v1',
        metadata: {
          name: `bench-${i}`,
          namespace: 'default',
          uid: '3f0c8c1e-5a43-4d5c-9a4e-2b7f6f0e9d1a',
          creationTimestamp: now,
          managedFields: [
            {
              manager: 'dkc',
              operation: 'Update',
              apiVersion: 'v1',
              time: now,
              fieldsType: 'FieldsV1',
              fieldsV1: { 'f:data': { '.': {}, 'f:k': {} } },
            },
          ],
        },
        data: { k: data },
      }),
    ),
  );
}

/** The object with its managedFields in the form the server stores (ADR 32). */
function asStored<T extends { metadata: Record<string, unknown> }>(obj: T): T {
  const stored = { ...obj, metadata: { ...obj.metadata } };
  stored.metadata['managedFields'] = storedManagedFields(stored);
  return stored;
}

/**
 * Raw better-sqlite3 with the server's workload and durability: `writers` threads (the server bench's concurrent
 * clients), each with its own connection, create then update `n` keys between them in the store's schema (kv and
 * history rows), one IMMEDIATE transaction per write, WAL and synchronous=FULL as src/storage/sqlite.ts opens its
 * file. (The store also holds locking_mode=EXCLUSIVE, which would forbid the writers' separate connections.)
 * Returns writes per second.
 */
async function rawSqliteRate(n: number, writers: number): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'dkc-bench-raw-'));
  try {
    const path = join(dir, 'raw.db');
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.exec(`
      CREATE TABLE kv (key TEXT PRIMARY KEY, value BLOB NOT NULL, create_revision INTEGER NOT NULL, mod_revision INTEGER NOT NULL) WITHOUT ROWID;
      CREATE TABLE history (revision INTEGER PRIMARY KEY, key TEXT NOT NULL, type INTEGER NOT NULL, value BLOB,
        create_revision INTEGER NOT NULL, prev_value BLOB, prev_mod_revision INTEGER);
    `);
    db.close();
    const counter = new SharedArrayBuffer(4);
    const job = {
      path,
      counter,
      keys: n,
      created: storedConfigMap(0, 'v'.repeat(64)),
      updated: storedConfigMap(0, 'w'.repeat(64)),
    };
    const threads = Array.from(
      { length: writers },
      () => new Worker(new URL('./sqlite-writer.js', import.meta.url), { workerData: job }),
    );
    await Promise.all(threads.map((w) => new Promise((r) => w.once('message', r))));
    const t0 = performance.now();
    const counts = await Promise.all(
      threads.map((w) => {
        const done = new Promise<number>((resolve, reject) => {
          w.once('message', resolve);
          w.once('error', reject);
        });
        w.postMessage('go');
        return done;
      }),
    );
    const secs = (performance.now() - t0) / 1000;
    await Promise.all(threads.map((w) => w.terminate()));
    return counts.reduce((a, b) => a + b, 0) / secs;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Delivery latency of `changes` changes of one ConfigMap to `watchers` concurrent watches. A watcher that has not
 * delivered a change within DELIVERY_TIMEOUT_MS of it (or whose stream ended) counts as a missed delivery: a failure,
 * not a dropped sample. Percentiles are over every expected delivery, a missed one counting as infinitely late.
 */
async function watchLatency(
  kubeconfig: string,
  watchers: number,
  changes: number,
): Promise<{ p50: number; p99: number; max: number; missed: number; expected: number }> {
  const client = await RestClient.fromKubeconfig(kubeconfig, { timeoutMs: 0 });
  const target = `fanout-${watchers}`;
  await client.create('/api/v1/namespaces/default/configmaps', { metadata: { name: target }, data: { v: '0' } });
  const listed = await client.list<{ metadata: { resourceVersion: string } }>('/api/v1/namespaces/default/configmaps', {
    fieldSelector: `metadata.name=${target}`,
  });
  const latencies: number[] = [];
  let current = 0;
  let sentAt = 0;
  let arrived = 0;
  let onAllReceived: () => void = () => undefined;
  const streams = [];
  for (let i = 0; i < watchers; i++) {
    const s = await client.watch<{ data?: { v?: string } }>('/api/v1/namespaces/default/configmaps', {
      resourceVersion: listed.metadata.resourceVersion,
      fieldSelector: `metadata.name=${target}`,
    });
    streams.push(s);
    void (async () => {
      for await (const ev of s) {
        // Only the change being measured counts; one arriving after its deadline was already counted as missed.
        if (ev.type !== 'MODIFIED' || ev.object.data?.v !== String(current)) continue;
        latencies.push(performance.now() - sentAt);
        if (++arrived === watchers) onAllReceived();
      }
    })().catch(() => undefined);
  }
  await new Promise((r) => setTimeout(r, 500));
  let missed = 0;
  for (let c = 1; c <= changes; c++) {
    arrived = 0;
    current = c;
    const done = new Promise<void>((r) => (onAllReceived = r));
    sentAt = performance.now();
    await client.patch(`/api/v1/namespaces/default/configmaps/${target}`, 'merge', { data: { v: String(c) } });
    await Promise.race([done, new Promise((r) => setTimeout(r, DELIVERY_TIMEOUT_MS))]);
    missed += watchers - arrived;
    current = -1;
  }
  for (const s of streams) s.close();
  client.close();
  const all = [...latencies, ...Array.from({ length: missed }, () => Infinity)];
  return { p50: pct(all, 50), p99: pct(all, 99), max: Math.max(...all), missed, expected: watchers * changes };
}

async function listLatency(
  kubeconfig: string,
  nodes: number,
  rounds: number,
): Promise<{ json: number[]; table: number[] }> {
  const clients = await Promise.all(Array.from({ length: 8 }, () => RestClient.fromKubeconfig(kubeconfig)));
  let next = 0;
  await Promise.all(
    clients.map(async (c) => {
      for (;;) {
        const i = next++;
        if (i >= nodes) return;
        await c.create('/api/v1/nodes', {
          metadata: { name: `bench-node-${i}`, labels: { 'kubernetes.io/hostname': `bench-node-${i}` } },
          status: {
            conditions: [{ type: 'Ready', status: 'True' }],
            addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
          },
        });
      }
    }),
  );
  const c = clients[0]!;
  const json: number[] = [];
  const table: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let t0 = performance.now();
    await c.request({ method: 'GET', path: '/api/v1/nodes' });
    json.push(performance.now() - t0);
    t0 = performance.now();
    await c.request({
      method: 'GET',
      path: '/api/v1/nodes',
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
    });
    table.push(performance.now() - t0);
  }
  for (const cl of clients) cl.close();
  return { json, table };
}

/** CPU seconds (user + system) a process has used, from /proc (USER_HZ = 100). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** A Node as an agent registers it: labels, an annotation, and its status (conditions, addresses, capacity, info). */
function benchNode(name: string): Record<string, unknown> {
  const condition = (type: string, status: string, reason: string) => ({
    type,
    status,
    lastHeartbeatTime: '2030-01-01T00:00:00Z',
    lastTransitionTime: '2030-01-01T00:00:00Z',
    reason,
    message: `kubelet ${reason}`,
  });
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/os': 'linux',
        'kubernetes.io/hostname': name,
        'node-role.kubernetes.io/worker': '',
        pool: 'blue',
      },
      annotations: { 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
    },
    spec: { podCIDR: '10.0.0.0/24', podCIDRs: ['10.0.0.0/24'] },
    status: {
      conditions: [
        condition('MemoryPressure', 'False', 'HasSufficientMemory'),
        condition('DiskPressure', 'False', 'HasNoDiskPressure'),
        condition('Ready', 'True', 'KubeletReady'),
      ],
      addresses: [
        { type: 'InternalIP', address: '10.1.2.3' },
        { type: 'Hostname', address: name },
      ],
      capacity: { cpu: '8', memory: '32Gi', pods: '110' },
      allocatable: { cpu: '8', memory: '31Gi', pods: '110' },
      nodeInfo: {
        machineID: 'm',
        systemUUID: 's',
        bootID: 'b',
        kernelVersion: '6.1.0',
        osImage: 'Debian GNU/Linux 12',
        containerRuntimeVersion: 'dkc://0.1.0',
        kubeletVersion: 'v1.22.17',
        kubeProxyVersion: 'v1.22.17',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
    },
  };
}

/**
 * `rounds` changes of one label of each of `concurrency` Nodes, as a JSON merge patch or as a server-side apply of the
 * node's labels and spec by one field manager; returns the server's CPU milliseconds per request and requests/s.
 */
async function patchCost(
  kubeconfig: string,
  pid: number,
  kind: 'merge' | 'apply',
  rounds: number,
  concurrency: number,
): Promise<{ cpuMs: number; rate: number }> {
  const clients = await Promise.all(Array.from({ length: concurrency }, () => RestClient.fromKubeconfig(kubeconfig)));
  try {
    const name = (c: number) => `bench-${kind}-${c}`;
    await Promise.all(clients.map((cl, c) => cl.create('/api/v1/nodes', benchNode(name(c)))));
    const send = (cl: RestClient, c: number, i: number): Promise<unknown> => {
      if (kind === 'merge')
        return cl.patch(`/api/v1/nodes/${name(c)}`, 'merge', { metadata: { labels: { generation: String(i) } } });
      const node = benchNode(name(c)) as { metadata: { labels: Record<string, string> }; spec: unknown };
      const config = {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: name(c), labels: { ...node.metadata.labels, generation: String(i) } },
        spec: node.spec,
      };
      return cl.request({
        method: 'PATCH',
        path: `/api/v1/nodes/${name(c)}`,
        query: { fieldManager: 'bench', force: 'true' },
        body: JSON.stringify(config),
        contentType: 'application/apply-patch+yaml',
      });
    };
    const cpu0 = cpuSeconds(pid);
    const t0 = performance.now();
    await Promise.all(
      clients.map(async (cl, c) => {
        for (let i = 0; i < rounds; i++) await send(cl, c, i);
      }),
    );
    const secs = (performance.now() - t0) / 1000;
    const requests = rounds * concurrency;
    return { cpuMs: ((cpuSeconds(pid) - cpu0) * 1000) / requests, rate: requests / secs };
  } finally {
    for (const cl of clients) cl.close();
  }
}

/**
 * A custom kind whose status is a map of objects, as a NodeConfigRollout's `status.nodes` names every node: no
 * controller acts on it, so the benchmark's writes are the only ones.
 */
const FLEET_STATUS_CRD = crdOf({
  group: 'bench.dkc.io',
  kind: 'FleetStatus',
  plural: 'fleetstatuses',
  scope: 'Cluster',
  status: true,
  schema: {
    type: 'object',
    properties: {
      status: {
        type: 'object',
        properties: {
          phase: { type: 'string' },
          nodes: {
            type: 'object',
            additionalProperties: {
              type: 'object',
              properties: {
                state: { type: 'string' },
                batch: { type: 'integer' },
                updatedAt: { type: 'string' },
                previous: { type: 'object', properties: { name: { type: 'string' } } },
              },
            },
          },
        },
      },
    },
  },
});
const FLEET_STATUSES = '/apis/bench.dkc.io/v1/fleetstatuses';

/** A status naming `n` nodes, the first `done` of them Succeeded. */
function fleetStatus(n: number, done: number): Record<string, unknown> {
  const nodes: Record<string, unknown> = {};
  for (let i = 0; i < n; i++)
    nodes[`node-${i}`] = {
      state: i < done ? 'Succeeded' : 'InFlight',
      batch: 3,
      updatedAt: '2026-11-26T17:00:00Z',
      previous: { name: 'old' },
    };
  return { phase: 'Progressing', nodes };
}

/**
 * `rounds` writes, one after another, of a status naming `n` nodes (a few more Succeeded each time) as a server-side
 * apply with force or as a JSON merge patch: the server's CPU milliseconds per write. The rollout controller writes
 * such a status twice per look. Like for like, each object is created with a label, so that field tracking runs for
 * both (after an apply an object is managed; a rollout is created with its spec): 'merge'. 'merge-unmanaged' is the
 * merge patch of an object created bare, for which kube-apiserver and dkc record no fields at all.
 */
async function bigStatusCost(
  kubeconfig: string,
  pid: number,
  n: number,
  rounds: number,
): Promise<Record<string, number>> {
  const client = await RestClient.fromKubeconfig(kubeconfig, { timeoutMs: 0 });
  try {
    await client.create('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', FLEET_STATUS_CRD);
    for (let i = 0; i < 100; i++) {
      const served = await client.list(FLEET_STATUSES).then(
        () => true,
        () => false,
      );
      if (served) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const out: Record<string, number> = {};
    for (const kind of ['merge', 'apply', 'merge-unmanaged'] as const) {
      const name = `status-${kind}`;
      const labels = kind === 'merge-unmanaged' ? {} : { labels: { owner: 'bench' } };
      await client.create(FLEET_STATUSES, {
        apiVersion: 'bench.dkc.io/v1',
        kind: 'FleetStatus',
        metadata: { name, ...labels },
      });
      const path = `${FLEET_STATUSES}/${name}/status`;
      const cpu0 = cpuSeconds(pid);
      for (let k = 0; k < rounds; k++) {
        const status = fleetStatus(n, k * 7);
        if (kind !== 'apply') await client.patch(path, 'merge', { status }, { query: { fieldManager: 'bench' } });
        else
          await client.patch(
            path,
            'apply',
            { apiVersion: 'bench.dkc.io/v1', kind: 'FleetStatus', metadata: { name }, status },
            { query: { fieldManager: 'bench', force: 'true' } },
          );
      }
      out[kind] = ((cpuSeconds(pid) - cpu0) * 1000) / rounds;
    }
    return out;
  } finally {
    client.close();
  }
}

/** What managedFields add to a Node's stored form (ADR 32) once registration and a status write have recorded their fields. */
async function managedFieldsShare(kubeconfig: string): Promise<{ withFields: number; without: number }> {
  const client = await RestClient.fromKubeconfig(kubeconfig);
  try {
    const name = 'bench-size';
    await client.request({
      method: 'POST',
      path: '/api/v1/nodes',
      query: { fieldManager: 'kubelet' },
      body: benchNode(name),
    });
    const status = (benchNode(name) as { status: { conditions: { lastHeartbeatTime: string }[] } }).status;
    for (const c of status.conditions) c.lastHeartbeatTime = '2030-01-01T00:00:10Z';
    await client.request({
      method: 'PATCH',
      path: `/api/v1/nodes/${name}/status`,
      query: { fieldManager: 'kubelet' },
      body: { status },
      contentType: 'application/strategic-merge-patch+json',
    });
    await client.request({
      method: 'PATCH',
      path: `/api/v1/nodes/${name}`,
      query: { fieldManager: 'dkc-controller' },
      body: {
        spec: { configSource: { configMap: { namespace: 'kube-system', name: 'cfg', kubeletConfigKey: 'kubelet' } } },
      },
      contentType: 'application/merge-patch+json',
    });
    const node = await client.get<{ metadata: Record<string, unknown> }>(`/api/v1/nodes/${name}`);
    const { resourceVersion: _rv, ...stored } = node.metadata;
    const { managedFields: _mf, ...bare } = stored;
    return {
      withFields: JSON.stringify(asStored({ ...node, metadata: stored })).length,
      without: JSON.stringify({ ...node, metadata: bare }).length,
    };
  } finally {
    client.close();
  }
}

/** A body as YAML and as the same object in JSON (the same text when the YAML is written as JSON). */
interface BodyCase {
  name: string;
  yaml: string;
  json: string;
}

const SIZE_LIMIT = 3 * 1024 * 1024 - 512;

function configMapJson(data: string, tail = ''): string {
  return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"body"},"data":${data}}${tail}`;
}

function bodyCases(): BodyCase[] {
  const labels: Record<string, string> = {};
  const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: labels', '  labels:'];
  for (let i = 0; i < 20_000; i++) {
    labels[`example.com/label-${i}`] = `value-${i}`;
    lines.push(`    example.com/label-${i}: value-${i}`);
  }
  const labelled = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'labels', labels } };
  const same = (name: string, text: string): BodyCase => ({ name, yaml: text, json: text });
  const levels = Math.floor((SIZE_LIMIT - 200) / 6);
  const keys: string[] = [];
  for (let n = 0, i = 0; n < SIZE_LIMIT - 200; i++) {
    const k = `"k${i}":"v"`;
    keys.push(k);
    n += k.length + 1;
  }
  return [
    { name: '20,000 labels', yaml: lines.join('\n') + '\n', json: JSON.stringify(labelled) },
    same('a flow sequence at the node budget', configMapJson(`{"k":[${'1,'.repeat(37_000)}1]}`)),
    same('nested flow maps at the size limit', '{"a":'.repeat(levels) + '1' + '}'.repeat(levels)),
    same('one flow sequence at the size limit', configMapJson(`{"k":[${'1,'.repeat((SIZE_LIMIT - 200) / 2)}1]}`)),
    same('keys of one map at the size limit', configMapJson(`{${keys.join(',')}}`)),
    same('blank lines at the size limit', configMapJson('{"k":"v"}', '\n'.repeat(SIZE_LIMIT - 200))),
  ];
}

/**
 * `rounds` dry-run creates of one body: the server's CPU milliseconds per request, the slowest /healthz answer while
 * they ran (polled every 20 ms by a second client), and the answer's status code. A request without an answer within
 * `timeoutMs` ends the measurement (the server may still be working on it).
 */
async function bodyCost(
  kubeconfig: string,
  pid: number,
  body: string,
  contentType: string,
  rounds: number,
  timeoutMs: number,
): Promise<{ cpuMs: number; healthzMs: number; code: number | string }> {
  const client = await RestClient.fromKubeconfig(kubeconfig, { timeoutMs });
  // Bounded too, so a server that cannot answer for minutes ends the row rather than the run.
  const probe = await RestClient.fromKubeconfig(kubeconfig, { timeoutMs });
  let healthzMs = 0;
  let running = true;
  const poll = (async () => {
    while (running) {
      const t0 = performance.now();
      // A connection the server reset while it could not answer counts for the time it took.
      await probe.request({ method: 'GET', path: '/healthz', accept: 'text/plain' }).catch(() => undefined);
      healthzMs = Math.max(healthzMs, performance.now() - t0);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  let code: number | string = 0;
  const cpu0 = cpuSeconds(pid);
  try {
    for (let i = 0; i < rounds; i++) {
      const r = await client
        .request({
          method: 'POST',
          path: '/api/v1/namespaces/default/configmaps',
          query: { dryRun: 'All' },
          body,
          contentType,
        })
        .then(
          (res) => res.status,
          (err: unknown) => (err instanceof ApiError ? err.status.code : `no answer within ${timeoutMs / 1000} s`),
        );
      code = r;
      if (typeof r === 'string') break;
    }
  } finally {
    running = false;
    await poll.catch(() => undefined);
    client.close();
    probe.close();
  }
  return { cpuMs: ((cpuSeconds(pid) - cpu0) * 1000) / rounds, healthzMs, code };
}

async function yamlRows(kubeconfig: string, pid: number): Promise<void> {
  const rounds = quick ? 1 : 3;
  for (const c of bodyCases()) {
    const kb = (Buffer.byteLength(c.yaml) / 1024).toFixed(0);
    const json = await bodyCost(kubeconfig, pid, c.json, 'application/json', rounds, 120_000);
    const yaml = await bodyCost(kubeconfig, pid, c.yaml, 'application/yaml', rounds, 120_000);
    console.log(
      `YAML body, ${c.name} (${kb} KB): server CPU ${yaml.cpuMs.toFixed(0)} ms/request (${yaml.code}), /healthz max ${ms(yaml.healthzMs)} during; ` +
        `the same object as JSON ${json.cpuMs.toFixed(0)} ms/request (${json.code}), /healthz max ${ms(json.healthzMs)}`,
    );
    if (typeof yaml.code === 'string') return;
  }
}

async function main(): Promise<void> {
  // The fan-out holds 5,000 watches as one user: above the per-user cap's default (1,000), which guards a shared
  // server against one client and is not what this measures.
  const server = await startServer(['--watch-cache-size', '1000', '--max-watches-per-user', '10000']);
  try {
    if (yamlOnly) return await yamlRows(server.kubeconfig, server.proc.pid!);
    const n = quick ? 500 : 3000;
    const writers = 8;
    const raw = await rawSqliteRate(n, writers);
    const through = await serverWriteRate(server.kubeconfig, n, writers);
    console.log(
      `writes: server ${through.toFixed(0)}/s (ConfigMap create+update, ${writers} clients) vs raw better-sqlite3 ${raw.toFixed(0)}/s ` +
        `(${writers} writer threads, the store's schema, one transaction per write, WAL, synchronous=FULL) → ratio ${(through / raw).toFixed(2)}`,
    );
    for (const w of quick ? [200] : [1000, 5000]) {
      const r = await watchLatency(server.kubeconfig, w, quick ? 3 : 5);
      const verdict =
        r.missed > 0
          ? ` — FAILED: ${r.missed} of ${r.expected} deliveries never arrived within ${DELIVERY_TIMEOUT_MS / 1000} s`
          : `, none of ${r.expected} missed`;
      console.log(`watch fan-out to ${w} watchers: p50 ${ms(r.p50)}, p99 ${ms(r.p99)}, max ${ms(r.max)}${verdict}`);
      if (r.missed > 0) process.exitCode = 1;
    }
    const nodes = quick ? 500 : 5000;
    const l = await listLatency(server.kubeconfig, nodes, 10);
    console.log(
      `list ${nodes} nodes: JSON p50 ${ms(pct(l.json, 50))} p99 ${ms(pct(l.json, 99))}; Table p50 ${ms(pct(l.table, 50))} p99 ${ms(pct(l.table, 99))}`,
    );
    const rounds = quick ? 50 : 300;
    const merge = await patchCost(server.kubeconfig, server.proc.pid!, 'merge', rounds, writers);
    const applied = await patchCost(server.kubeconfig, server.proc.pid!, 'apply', rounds, writers);
    console.log(
      `server-side apply vs merge patch of the same Node (${writers} clients, ${rounds} changes each): server CPU ${applied.cpuMs.toFixed(2)} vs ${merge.cpuMs.toFixed(2)} ms/request ` +
        `→ ratio ${(applied.cpuMs / merge.cpuMs).toFixed(2)} (goal ≤ 2); ${applied.rate.toFixed(0)} vs ${merge.rate.toFixed(0)} requests/s`,
    );
    const entries = quick ? 1000 : 5000;
    const big = await bigStatusCost(server.kubeconfig, server.proc.pid!, entries, quick ? 10 : 20);
    console.log(
      `a status naming ${entries} nodes (a custom kind's map of objects, written one after another): server CPU ${big['apply']!.toFixed(0)} ms per apply vs ${big['merge']!.toFixed(0)} ms per merge patch ` +
        `→ ratio ${(big['apply']! / big['merge']!).toFixed(2)} (goal ≤ 2); a merge patch of an object no one manages (no fields recorded) ${big['merge-unmanaged']!.toFixed(0)} ms`,
    );
    const size = await managedFieldsShare(server.kubeconfig);
    console.log(
      `a registered Node's stored form: ${size.withFields} bytes, ${size.without} without managedFields → managedFields add ${(((size.withFields - size.without) / size.without) * 100).toFixed(0)} % (goal ≤ 30 %)`,
    );
    await yamlRows(server.kubeconfig, server.proc.pid!);
    const rss = Number(
      (await import('node:fs')).readFileSync(`/proc/${server.proc.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1] ??
        0,
    );
    console.log(`server RSS after the run: ${(rss / 1024).toFixed(0)} MB`);
  } finally {
    await server.cleanup();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
