// The dynamic config controller as pure logic: a real checkpoint store in a temp dir, and a fake API server (list,
// watch, get, status patch) in memory. Covers the boot decision over the store, the sync loop driven by informers,
// the health-gated trial, the serialisation of store mutations, the self-healing store, informer failure reporting,
// the restart path and /healthz.

import { after, afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { ApiError, WatchStream } from '../../../src/client/index.js';
import type { CallOptions, ListOptions, PatchType, WatchOptions } from '../../../src/client/rest.js';
import { configureLogging } from '../../../src/util/klog.js';
import { CheckpointStore } from '../../../src/agent/dynamicconfig/checkpoint.js';
import {
  DynamicConfigController,
  SYNC_LOOP_UNHEALTHY,
  type ControllerClient,
  type ControllerOptions,
  type ConfigMapPayload,
} from '../../../src/agent/dynamicconfig/controller.js';
import {
  fieldSelectorValue,
  requestPath,
  serializeSource,
  type MaybeSource,
  type NodeConfigSource,
} from '../../../src/agent/dynamicconfig/source.js';
import { MAX_LOG_MESSAGE } from '../../../src/util/clip.js';
import { noGauges } from './fixtures/gauges.js';
import { waitFor } from '../../helpers/wait.js';
import { FakeClock } from '../../helpers/fakeclock.js';

const INTERNAL = 'failed to sync: internal failure, see Kubelet log for details';
const LoadError = 'failed to load config, see Kubelet log for details';
const InternalError = 'internal failure, see Kubelet log for details';

const dirs: string[] = [];
const controllers: DynamicConfigController<number>[] = [];
afterEach(() => {
  for (const c of controllers.splice(0)) c.stop();
});
after(async () => {
  configureLogging({ sink: (line) => process.stderr.write(line) });
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

// Every log line of the controller, for the tests that assert on what it says.
const logLines: string[] = [];
configureLogging({ sink: (line) => logLines.push(line) });

function source(name: string, uid: string, rv: string): NodeConfigSource {
  return { configMap: { namespace: 'kube-system', name, uid, resourceVersion: rv, kubeletConfigKey: 'kubelet' } };
}

interface FakeConfigMap {
  uid: string;
  resourceVersion: string;
  data: Record<string, string>;
}

/** An API server in memory: one Node, ConfigMaps by namespace/name, the status patches it received. */
class FakeApi implements ControllerClient {
  nodeSource: NodeConfigSource | undefined;
  configMaps = new Map<string, FakeConfigMap>();
  patches: { config: Record<string, unknown> }[] = [];
  nodeListError: Error | undefined;
  nodeLists = 0;
  /** A GET that never answers (a server that hangs). */
  hangGets = false;
  private readonly streams: PassThrough[] = [];

  constructor(readonly nodeName = 'node-a') {}

  private nodeObject() {
    return {
      metadata: { name: this.nodeName, resourceVersion: '1' },
      spec: this.nodeSource ? { configSource: this.nodeSource } : {},
    };
  }

  private cmObject(ns: string, name: string, cm: FakeConfigMap) {
    return { metadata: { namespace: ns, name, uid: cm.uid, resourceVersion: cm.resourceVersion }, data: cm.data };
  }

  async list<L>(path: string, _options?: ListOptions): Promise<L> {
    if (path === '/api/v1/nodes') {
      this.nodeLists++;
      if (this.nodeListError) throw this.nodeListError;
      return { metadata: { resourceVersion: '1' }, items: [this.nodeObject()] } as L;
    }
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/configmaps$/.exec(path);
    const items = [...this.configMaps]
      .filter(([k]) => m && k.startsWith(`${decodeURIComponent(m[1]!)}/`))
      .map(([k, cm]) => this.cmObject(k.split('/')[0]!, k.split('/')[1]!, cm));
    return { metadata: { resourceVersion: '1' }, items } as L;
  }

  async watch<T>(_path: string, options?: WatchOptions): Promise<WatchStream<T>> {
    const s = new PassThrough();
    this.streams.push(s);
    options?.signal?.addEventListener('abort', () => s.destroy());
    return new WatchStream<T>(s as unknown as IncomingMessage, options?.signal);
  }

  async get<T>(path: string, _options?: CallOptions): Promise<T> {
    if (this.hangGets) return new Promise<T>(() => undefined);
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/configmaps\/([^/]+)$/.exec(path);
    const key = m ? `${decodeURIComponent(m[1]!)}/${decodeURIComponent(m[2]!)}` : '';
    const cm = this.configMaps.get(key);
    if (!cm)
      throw new ApiError({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        code: 404,
        reason: 'NotFound',
        message: `configmaps "${key}" not found`,
      });
    return this.cmObject(key.split('/')[0]!, key.split('/')[1]!, cm) as T;
  }

  async patch<T>(_path: string, _type: PatchType, body: unknown): Promise<T> {
    this.patches.push((body as { status: { config: Record<string, unknown> } }).status);
    return {} as T;
  }

  /** Changes the Node's spec.configSource and tells the watchers. */
  setNodeSource(src: NodeConfigSource | undefined): void {
    this.nodeSource = src;
    const obj = { ...this.nodeObject(), metadata: { name: this.nodeName, resourceVersion: String(Date.now()) } };
    for (const s of this.streams) if (!s.destroyed) s.write(JSON.stringify({ type: 'MODIFIED', object: obj }) + '\n');
  }

  lastPublishedError(): unknown {
    return this.patches.at(-1)?.config['error'];
  }
}

/** Payloads are a number (maxPods); `bad` fails validation. */
function evaluate(payload: { bytes: Uint8Array }) {
  const text = Buffer.from(payload.bytes).toString();
  if (text === 'bad')
    return {
      ok: false as const,
      reason: 'failed to validate config, see Kubelet log for details' as const,
      detail: 'bad payload',
    };
  return { ok: true as const, config: Number(text) };
}

async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'dkc-controller-'));
  dirs.push(d);
  return d;
}

function controller(dir: string, extra: Partial<ControllerOptions<number>> = {}): DynamicConfigController<number> {
  const c = new DynamicConfigController<number>({
    dynamicConfigDir: dir,
    nodeName: 'node-a',
    trialMs: 60_000,
    crashLoopThreshold: 3,
    evaluate,
    gauges: noGauges,
    syncRetryMs: () => 60_000,
    ...extra,
  });
  controllers.push(c);
  return c;
}

/** A store with a checkpoint for `src` holding `payload`, recorded as assigned (and as last-known-good if asked). */
async function seed(
  dir: string,
  records: { assigned?: [NodeConfigSource, string]; lastKnownGood?: [NodeConfigSource, string] },
) {
  const store = new CheckpointStore(dir);
  await store.initialize();
  for (const [src, payload] of [records.assigned, records.lastKnownGood].filter((x) => x !== undefined)) {
    await store.save({
      uid: src.configMap!.uid!,
      resourceVersion: src.configMap!.resourceVersion!,
      files: { kubelet: payload },
    });
  }
  if (records.assigned) await store.setAssigned(records.assigned[0]);
  if (records.lastKnownGood) await store.setLastKnownGood(records.lastKnownGood[0]);
  return store;
}

function syncRecorder() {
  const events: string[] = [];
  let exits = 0;
  return {
    events,
    exits: () => exits,
    emitEvent: async (m: string) => void events.push(m),
    exit: () => void exits++,
  };
}

describe('DynamicConfigController: boot and sync', () => {
  it('no records: the local config, and status.config {} published once the sync starts', async () => {
    const dir = await tempDir();
    const c = controller(dir);
    assert.deepEqual(await c.bootstrap(), { use: 'local' });
    const api = new FakeApi();
    const rec = syncRecorder();
    c.startSync({ client: api, ...rec });
    await waitFor('a status patch', () => (api.patches.length > 0 ? true : undefined), { timeoutMs: 5_000 });
    assert.deepEqual(api.patches[0], { config: { assigned: null, active: null, lastKnownGood: null, error: null } });
    assert.deepEqual(rec.events, []);
  });

  it('a Node that names a ConfigMap: checkpoint, assigned record, KubeletConfigChanged and exit', async () => {
    const dir = await tempDir();
    const c = controller(dir);
    await c.bootstrap();
    const api = new FakeApi();
    api.configMaps.set('kube-system/cm-1', { uid: 'u1', resourceVersion: '5', data: { kubelet: '120' } });
    api.nodeSource = { configMap: { namespace: 'kube-system', name: 'cm-1', kubeletConfigKey: 'kubelet' } };
    const rec = syncRecorder();
    c.startSync({ client: api, ...rec });
    await waitFor('the exit', () => (rec.exits() > 0 ? true : undefined), { timeoutMs: 5_000 });
    assert.deepEqual(rec.events, [
      'Kubelet restarting to use /api/v1/namespaces/kube-system/configmaps/cm-1, UID: u1, ResourceVersion: 5, KubeletConfigKey: kubelet',
    ]);
    assert.deepEqual(await c.store.assigned(), source('cm-1', 'u1', '5'));

    // The next boot runs it and starts its trial.
    const next = controller(dir);
    assert.deepEqual(await next.bootstrap(), { use: 'assigned', config: 120 });
    assert.deepEqual(next.status.current(), { assigned: source('cm-1', 'u1', '5'), active: source('cm-1', 'u1', '5') });
  });

  it('a later change of the Node (watch event) restarts for the new source; a reset to local restarts with the local message', async () => {
    const dir = await tempDir();
    const a = source('cm-1', 'u1', '5');
    await seed(dir, { assigned: [a, '120'] });
    const c = controller(dir);
    await c.bootstrap();
    const api = new FakeApi();
    api.configMaps.set('kube-system/cm-1', { uid: 'u1', resourceVersion: '5', data: { kubelet: '120' } });
    api.nodeSource = { configMap: { namespace: 'kube-system', name: 'cm-1', kubeletConfigKey: 'kubelet' } };
    const rec = syncRecorder();
    c.startSync({ client: api, ...rec });
    // The first sync finds what already runs: no restart, status published without error.
    await waitFor(
      'status with the active config',
      () => (api.patches.some((p) => p.config['active'] !== null) ? true : undefined),
      { timeoutMs: 5_000 },
    );
    assert.equal(rec.exits(), 0);
    api.setNodeSource(undefined);
    await waitFor('the exit', () => (rec.exits() > 0 ? true : undefined), { timeoutMs: 5_000 });
    assert.deepEqual(rec.events, ['Kubelet restarting to use local config']);
    assert.equal(await c.store.assigned(), undefined);
  });
});

describe('DynamicConfigController: health-gated trial', () => {
  it('promotes only after start-up is complete and healthy for a whole trial', async () => {
    const dir = await tempDir();
    const a = source('cm-1', 'u1', '5');
    await seed(dir, { assigned: [a, '120'] });
    const clock = new FakeClock(Date.now());
    const c = controller(dir, { trialMs: 150, trialCheckMs: 20, clock });
    await c.bootstrap();
    const api = new FakeApi();
    api.configMaps.set('kube-system/cm-1', { uid: 'u1', resourceVersion: '5', data: { kubelet: '120' } });
    api.nodeSource = { configMap: { namespace: 'kube-system', name: 'cm-1', kubeletConfigKey: 'kubelet' } };
    c.startSync({ client: api, ...syncRecorder() });
    // Health probes before the start-up is complete do not count: long after the trial, nothing is promoted.
    await c.markHealthy();
    clock.advance(60_000);
    await c.checkTrial();
    assert.equal(await c.store.lastKnownGood(), undefined, 'not promoted before start-up completed');
    assert.equal(c.reachedHealth, false);
    await c.startupComplete();
    assert.equal(c.reachedHealth, true);
    assert.equal(await c.store.startsWithoutHealthy(a), 0);
    clock.advance(151); // a whole trial healthy
    await waitFor('the promotion', async () => ((await c.store.lastKnownGood()) ? true : undefined), {
      timeoutMs: 5_000,
    });
    // The status follows the checkpoint store's write: on a loaded machine, a moment later.
    await waitFor('the promotion in the status', () => c.status.current().lastKnownGood, { timeoutMs: 5_000 });
    assert.deepEqual(c.status.current().lastKnownGood, a);
  });

  it('crash-loop ledger: starts count until start-up completes; a clean stop before that does not count', async () => {
    const dir = await tempDir();
    const a = source('cm-1', 'u1', '5');
    await seed(dir, { assigned: [a, '120'] });
    for (let i = 1; i <= 2; i++) {
      const c = controller(dir);
      await c.bootstrap();
      assert.equal(await c.store.startsWithoutHealthy(a), i);
      c.stop();
    }
    const stopping = controller(dir);
    await stopping.bootstrap();
    assert.equal(await stopping.store.startsWithoutHealthy(a), 3);
    await stopping.stoppedCleanly();
    assert.equal(await stopping.store.startsWithoutHealthy(a), 2, 'a clean stop is not a crash');
    const healthy = controller(dir);
    await healthy.bootstrap();
    await healthy.startupComplete();
    assert.equal(await healthy.store.startsWithoutHealthy(a), 0);
  });
});

/** A store whose first reset pauses between its two writes until released. */
class PausingStore extends CheckpointStore {
  paused: Promise<void>;
  private reached!: () => void;
  private gate: Promise<void>;
  release!: () => void;
  private armed = true;
  constructor(dir: string) {
    super(dir);
    this.paused = new Promise((r) => (this.reached = r));
    this.gate = new Promise((r) => (this.release = r));
  }
  // The one writer of meta/last-known-good, which reset() and the setters share.
  protected override async writeLastKnownGood(src: MaybeSource): Promise<void> {
    await super.writeLastKnownGood(src);
    if (src == null && this.armed) {
      this.armed = false;
      this.reached();
      await this.gate;
    }
  }
}

describe('DynamicConfigController: store mutations are serialised', () => {
  it('a trial promotion requested in the middle of a reset waits for it: no last-known-good survives the reset', async () => {
    const dir = await tempDir();
    const a = source('cm-1', 'u1', '5');
    await seed(dir, { assigned: [a, '120'] });
    const store = new PausingStore(dir);
    const clock = new FakeClock(Date.now());
    const c = controller(dir, { store, trialMs: 1_000, clock });
    await c.bootstrap();
    await c.startupComplete();
    clock.advance(60_000); // the trial has passed

    const reset = store.reset();
    await store.paused; // last-known-good cleared, assigned not yet
    const requested = store.lock.whenRequested();
    const promotion = c.checkTrial();
    // Either the promotion finishes while the reset is paused (it did not wait), or it queues on the lock.
    const first = await Promise.race([
      promotion.then(() => 'promotion finished'),
      requested.then(() => 'promotion queued'),
    ]);
    store.release();
    assert.equal(await reset, true);
    await promotion;
    assert.equal(first, 'promotion queued');
    assert.equal(await store.assigned(), undefined);
    assert.equal(await store.lastKnownGood(), undefined, 'the reset leaves no last-known-good');
  });
});

describe('DynamicConfigController: /healthz and the sync loop', () => {
  it('fails once the sync loop is stuck longer than its threshold, and then health no longer counts', async () => {
    const dir = await tempDir();
    const a = source('cm-1', 'u1', '5');
    await seed(dir, { assigned: [a, '120'] });
    const c = controller(dir, { syncLoopPeriodMs: () => 20, syncLoopThresholdMs: 150 });
    await c.bootstrap();
    assert.deepEqual(c.healthz(), { ok: true }, 'before the sync starts');
    const api = new FakeApi();
    api.nodeSource = { configMap: { namespace: 'kube-system', name: 'other', kubeletConfigKey: 'kubelet' } };
    api.hangGets = true; // the download of the new source never answers: the sync is stuck in it
    c.startSync({ client: api, ...syncRecorder() });
    assert.deepEqual(c.healthz(), { ok: true });
    await waitFor('/healthz to fail', () => (c.healthz().ok ? undefined : true), { timeoutMs: 3_000 });
    assert.deepEqual(c.healthz(), { ok: false, reason: SYNC_LOOP_UNHEALTHY });
    await c.startupComplete();
    assert.equal(c.reachedHealth, false, 'an unhealthy agent does not reset the crash count');
  });

  it('a sync loop that keeps ticking stays healthy', async () => {
    const dir = await tempDir();
    const clock = new FakeClock(Date.now());
    let ticks = 0;
    const c = controller(dir, { syncLoopPeriodMs: () => (ticks++, 20), syncLoopThresholdMs: 1000, clock });
    await c.bootstrap();
    const api = new FakeApi();
    c.startSync({ client: api, ...syncRecorder() });
    await waitFor('the first sync', () => api.patches.length > 0, { timeoutMs: 5_000 });
    // 1.8 s pass on the controller's clock, longer than the threshold, with the loop ticking in between.
    for (let step = 0; step < 2; step++) {
      clock.advance(900);
      const seen = ticks;
      await waitFor('two ticks of the sync loop', () => ticks >= seen + 2, { timeoutMs: 5_000 });
      assert.deepEqual(c.healthz(), { ok: true }, `after ${(step + 1) * 900} ms`);
    }
  });
});

describe('DynamicConfigController: informer failures', () => {
  it('a Node list that keeps failing is logged (rate-limited) and reported after a bounded wait', async () => {
    const dir = await tempDir();
    const c = controller(dir, { informerSyncTimeoutMs: 300, informerLogIntervalMs: 60_000 });
    await c.bootstrap();
    const api = new FakeApi();
    api.nodeListError = new ApiError({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      code: 403,
      reason: 'Forbidden',
      message: 'nodes is forbidden',
    });
    const before = logLines.length;
    c.startSync({ client: api, ...syncRecorder() });
    await waitFor(
      'the internal sync error in status.config',
      () => (api.lastPublishedError() === INTERNAL ? true : undefined),
      { timeoutMs: 5_000 },
    );
    assert.ok(api.nodeLists >= 2, `the list was retried (${api.nodeLists} lists)`);
    const lines = logLines.slice(before).filter((l) => l.includes('failed to list or watch Node "node-a"'));
    assert.equal(lines.length, 1, `one line per interval, not one per failure:\n${lines.join('')}`);
    assert.match(
      lines[0]!,
      /^E.*kubelet config controller: failed to list or watch Node "node-a", error: nodes is forbidden$/m,
    );

    // The list recovers: the sync runs and clears the error.
    api.nodeListError = undefined;
    await waitFor(
      'the error cleared',
      () => (api.patches.length > 0 && api.lastPublishedError() === null ? true : undefined),
      { timeoutMs: 20_000 },
    );
  });
});

describe('DynamicConfigController: a self-healing store', () => {
  it('garbage in meta/assigned: set aside as assigned.corrupt-<time>, treated as absent, the local config runs', async () => {
    const dir = await tempDir();
    const store = await seed(dir, {});
    await writeFile(store.assignedPath, '{{{ not yaml');
    const c = controller(dir);
    assert.deepEqual(await c.bootstrap(), { use: 'local' });
    const kept = (await readdir(store.metaDir)).filter((n) => n.startsWith('assigned.corrupt-'));
    assert.equal(kept.length, 1);
    assert.equal(await readFile(join(store.metaDir, kept[0]!), 'utf8'), '{{{ not yaml');
    assert.equal(await readFile(store.assignedPath, 'utf8'), '');
    assert.ok(
      logLines.some(
        (l) => l.startsWith('E') && l.includes('the assigned record is unreadable and is treated as absent'),
      ),
    );
  });

  it('garbage in meta/last-known-good: the assigned config still runs', async () => {
    const dir = await tempDir();
    const a = source('cm-1', 'u1', '5');
    const store = await seed(dir, { assigned: [a, '120'] });
    await writeFile(store.lastKnownGoodPath, 'apiVersion: v1\nkind: Pod\n');
    const c = controller(dir);
    assert.deepEqual(await c.bootstrap(), { use: 'assigned', config: 120 });
    assert.ok((await readdir(store.metaDir)).some((n) => n.startsWith('last-known-good.corrupt-')));
  });

  it('a record naming a path outside the store (`..` in the key or namespace) is refused as unreadable', async () => {
    const dir = await tempDir();
    const store = await seed(dir, {});
    const evil = {
      configMap: {
        namespace: 'kube-system',
        name: 'cm',
        uid: 'u1',
        resourceVersion: '5',
        kubeletConfigKey: '../../../../etc/hostname',
      },
    };
    await writeFile(store.assignedPath, serializeSource(evil));
    const c = controller(dir);
    assert.deepEqual(await c.bootstrap(), { use: 'local' });
    assert.ok(logLines.some((l) => l.includes('kubeletConfigKey "../../../../etc/hostname"')));
    await assert.rejects(store.load(evil), /invalid kubeletConfigKey/);
    await writeFile(
      store.assignedPath,
      serializeSource({ configMap: { ...evil.configMap, kubeletConfigKey: 'kubelet', namespace: '..' } }),
    );
    assert.deepEqual(await controller(dir).bootstrap(), { use: 'local' });
  });

  it('a deleted checkpoint whose ConfigMap is unchanged is downloaded again at boot', async () => {
    const dir = await tempDir();
    const a = source('cm-1', 'u1', '5');
    const store = await seed(dir, { assigned: [a, '120'] });
    await rm(join(store.checkpointsDir, 'u1'), { recursive: true });
    const fetched: string[] = [];
    const c = controller(dir);
    const boot = await c.bootstrap({
      fetchConfigMap: async (ref): Promise<ConfigMapPayload> => {
        fetched.push(requestPath(ref));
        return { uid: 'u1', resourceVersion: '5', data: { kubelet: '120' } };
      },
    });
    assert.deepEqual(boot, { use: 'assigned', config: 120 });
    assert.deepEqual(fetched, ['/api/v1/namespaces/kube-system/configmaps/cm-1']);
    assert.ok(await store.exists(a));
  });

  it('deleted checkpoints that cannot be downloaded: the local config runs (no fatal last-known-good), and a later sync restores and restarts', async () => {
    const dir = await tempDir();
    const a = source('cm-1', 'u1', '5');
    const l = source('cm-0', 'u0', '3');
    const store = await seed(dir, { assigned: [a, '120'], lastKnownGood: [l, '100'] });
    await rm(store.checkpointsDir, { recursive: true });
    await mkdir(store.checkpointsDir);
    const c = controller(dir);
    const boot = await c.bootstrap({ fetchConfigMap: async () => Promise.reject(new Error('connection refused')) });
    assert.deepEqual(boot, { use: 'local' });
    assert.deepEqual(c.status.current(), { assigned: a, error: LoadError });
    assert.equal(await store.lastKnownGood(), undefined, 'a last-known-good without its checkpoint is dropped');

    // The API server answers later with the same ConfigMap: the sync writes the checkpoint back and restarts to use it.
    const api = new FakeApi();
    api.configMaps.set('kube-system/cm-1', { uid: 'u1', resourceVersion: '5', data: { kubelet: '120' } });
    api.nodeSource = { configMap: { namespace: 'kube-system', name: 'cm-1', kubeletConfigKey: 'kubelet' } };
    const rec = syncRecorder();
    c.startSync({ client: api, ...rec });
    await waitFor('the restart', () => (rec.exits() > 0 ? true : undefined), { timeoutMs: 5_000 });
    assert.ok(await store.exists(a));
    assert.deepEqual(await controller(dir).bootstrap(), { use: 'assigned', config: 120 });
  });

  it('a start ledger that cannot be written does not stop the boot; status.config reports it', async () => {
    const dir = await tempDir();
    const a = source('cm-1', 'u1', '5');
    const store = await seed(dir, { assigned: [a, '120'] });
    await mkdir(join(store.metaDir, 'starts')); // the ledger's file cannot be replaced
    const c = controller(dir);
    assert.deepEqual(await c.bootstrap(), { use: 'assigned', config: 120 });
    assert.deepEqual(c.status.current(), { assigned: a, active: a, error: InternalError });
    assert.ok(logLines.some((l) => l.includes('crash-loop accounting is suspended')));
  });
});

describe('DynamicConfigController: restart path', () => {
  it('an event the server never answers does not hold up the exit', async () => {
    const dir = await tempDir();
    const c = controller(dir, { restartEventTimeoutMs: 100 });
    await c.bootstrap();
    const api = new FakeApi();
    api.configMaps.set('kube-system/cm-1', { uid: 'u1', resourceVersion: '5', data: { kubelet: '120' } });
    api.nodeSource = { configMap: { namespace: 'kube-system', name: 'cm-1', kubeletConfigKey: 'kubelet' } };
    let exited = 0;
    const started = Date.now();
    c.startSync({
      client: api,
      emitEvent: () => new Promise<void>(() => undefined),
      exit: () => void (exited = Date.now()),
    });
    await waitFor('the exit', () => (exited ? true : undefined), { timeoutMs: 3_000 });
    assert.ok(exited - started < 2_000, `exited after ${exited - started} ms`);
    assert.ok(logLines.some((l) => l.includes('failed to send event, error: no answer within 100 ms')));
  });
});

describe('dynamic config: what reaches a URL or a log line', () => {
  it('URL path segments and field selector values are escaped', () => {
    assert.equal(
      requestPath({ namespace: 'a b', name: 'x/y', kubeletConfigKey: 'k' }),
      '/api/v1/namespaces/a%20b/configmaps/x%2Fy',
    );
    // A URL parser resolves dot segments (encoded or not): `..` would climb out of the ConfigMap collection.
    for (const [namespace, name, what] of [
      ['..', 'x', 'namespace ".."'],
      ['kube-system', '..', 'resource name ".."'],
      ['.', 'x', 'namespace "."'],
      ['kube-system', '', 'resource name ""'],
    ] as const) {
      assert.throws(
        () => requestPath({ namespace, name, kubeletConfigKey: 'k' }),
        (err: Error & { code?: string }) =>
          err.code === 'DKC_SOURCE_PATH_SEGMENT' && err.message.startsWith(`invalid ${what}: [may not be`),
      );
    }
    assert.equal(
      requestPath({ namespace: 'ns', name: '..x', kubeletConfigKey: 'k' }),
      '/api/v1/namespaces/ns/configmaps/..x',
    );
    assert.equal(fieldSelectorValue('a,b=c\\d'), 'a\\,b\\=c\\\\d');
  });

  it('a huge unreadable record is quoted in the log by its first few hundred characters only', async () => {
    const dir = await tempDir();
    const store = await seed(dir, {});
    await writeFile(
      store.assignedPath,
      `kind: X\napiVersion: kubelet.config.k8s.io/v1beta1\nsecret: ${'s'.repeat(100_000)}\n`,
    );
    const before = logLines.length;
    await controller(dir).bootstrap();
    const lines = logLines.slice(before).filter((l) => l.includes('unreadable'));
    assert.equal(lines.length, 1);
    assert.ok(lines[0]!.length < MAX_LOG_MESSAGE + 200, `a log line of ${lines[0]!.length} characters`);
  });
});
