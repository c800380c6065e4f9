// The controller with a 1.8-alpha configMapRef on the Node: the ConfigMap is followed with GETs only (its reader may
// hold nothing but `get` on it), while the 1.22 configMap form keeps its informer; ConfigOK follows the boot.

import { after, afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { ApiError, WatchStream } from '../../../src/client/index.js';
import { configureLogging } from '../../../src/util/klog.js';
import type { CallOptions, ListOptions, PatchType, WatchOptions } from '../../../src/client/rest.js';
import { CheckpointStore } from '../../../src/agent/dynamicconfig/checkpoint.js';
import { DynamicConfigController, type ControllerClient } from '../../../src/agent/dynamicconfig/controller.js';
import type { NodeConfigSource } from '../../../src/agent/dynamicconfig/source.js';
import { noGauges } from './fixtures/gauges.js';
import { waitFor } from '../../helpers/wait.js';

const dirs: string[] = [];
const controllers: DynamicConfigController<number>[] = [];
const streams: PassThrough[] = [];
afterEach(() => {
  for (const c of controllers.splice(0)) c.stop();
  for (const s of streams.splice(0)) s.destroy();
});
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const UID = 'c0ffee00-0000-4000-8000-000000000001';
const checkpointed: NodeConfigSource = {
  configMap: { namespace: 'kube-system', name: 'cm', uid: UID, resourceVersion: '5', kubeletConfigKey: 'kubelet' },
};

/** A Node whose spec.configSource is `spec`, one ConfigMap, and a record of the paths listed and fetched. */
class Api implements ControllerClient {
  lists: string[] = [];
  gets: string[] = [];
  patches: unknown[] = [];
  /** `forbidListing`: ConfigMaps may only be fetched by name (the Role of the 1.8 task grants `get`, nothing else). */
  constructor(
    private readonly spec: NodeConfigSource,
    private readonly forbidListing = false,
  ) {}
  async list<L>(path: string, _options?: ListOptions): Promise<L> {
    this.lists.push(path);
    if (path === '/api/v1/nodes')
      return {
        metadata: { resourceVersion: '1' },
        items: [{ metadata: { name: 'node-a', resourceVersion: '1' }, spec: { configSource: this.spec } }],
      } as L;
    if (this.forbidListing) {
      const message =
        'configmaps is forbidden: User "system:node:node-a" cannot list resource "configmaps" in API group "" in the namespace "kube-system"';
      throw new ApiError({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        code: 403,
        reason: 'Forbidden',
        message,
      });
    }
    return { metadata: { resourceVersion: '1' }, items: [this.configMap()] } as L;
  }
  async watch<T>(_path: string, options?: WatchOptions): Promise<WatchStream<T>> {
    const s = new PassThrough();
    streams.push(s);
    options?.signal?.addEventListener('abort', () => s.destroy());
    return new WatchStream<T>(s as unknown as IncomingMessage, options?.signal);
  }
  async get<T>(path: string, _options?: CallOptions): Promise<T> {
    this.gets.push(path);
    return this.configMap() as T;
  }
  async patch<T>(_path: string, _type: PatchType, body: unknown): Promise<T> {
    this.patches.push(body);
    return {} as T;
  }
  private configMap() {
    return {
      metadata: { namespace: 'kube-system', name: 'cm', uid: UID, resourceVersion: '5' },
      data: { kubelet: '120' },
    };
  }
}

async function booted(): Promise<DynamicConfigController<number>> {
  const dir = await mkdtemp(join(tmpdir(), 'dkc-ref-controller-'));
  dirs.push(dir);
  const store = new CheckpointStore(dir);
  await store.initialize();
  await store.save({ uid: UID, resourceVersion: '5', files: { kubelet: '120' } });
  await store.setAssigned(checkpointed);
  const c = new DynamicConfigController<number>({
    dynamicConfigDir: dir,
    nodeName: 'node-a',
    trialMs: 60_000,
    crashLoopThreshold: 0,
    evaluate: (p) => ({ ok: true, config: Number(Buffer.from(p.bytes).toString()) }),
    gauges: noGauges,
    initConfig: true,
  });
  controllers.push(c);
  assert.deepEqual(await c.bootstrap(), { use: 'assigned', config: 120 });
  return c;
}

const logged: string[] = [];
configureLogging({ sink: (line) => void logged.push(line) });

async function synced(c: DynamicConfigController<number>, api: Api, until: () => boolean): Promise<number> {
  let exits = 0;
  c.startSync({ client: api, emitEvent: async () => undefined, exit: () => void exits++ });
  await waitFor('the download', until, { timeoutMs: 10_000, stepMs: 10 });
  await c.status.flushed();
  return exits;
}

describe('DynamicConfigController: a configMapRef on the Node', () => {
  it('with nothing but `get`: downloads with GET, stops listing, logs no failure; the same ConfigMap restarts nothing', async () => {
    const c = await booted();
    const api = new Api({ configMapRef: { namespace: 'kube-system', name: 'cm', uid: UID } }, true);
    logged.length = 0;
    assert.equal(await synced(c, api, () => api.gets.length > 0), 0);
    assert.deepEqual(api.gets, ['/api/v1/namespaces/kube-system/configmaps/cm']);
    // At most the one list the informer sent before the Node was seen.
    assert.ok(api.lists.filter((p) => p.includes('configmaps')).length <= 1, api.lists.join(', '));
    assert.deepEqual(
      logged.filter((l) => l.includes('failed to list or watch')),
      [],
    );
    assert.equal(c.status.current().error, undefined);
    const [cond] = c.configOKConditions(undefined);
    assert.equal(cond?.message, `using current (UID: "${UID}")`);
    assert.equal(cond?.reason, 'passing all checks');
    assert.equal(cond?.status, 'True');
  });

  it('the 1.22 configMap form still watches the ConfigMap', async () => {
    const c = await booted();
    const api = new Api({ configMap: { namespace: 'kube-system', name: 'cm', kubeletConfigKey: 'kubelet' } });
    assert.equal(await synced(c, api, () => api.lists.includes('/api/v1/namespaces/kube-system/configmaps')), 0);
    assert.ok(api.lists.includes('/api/v1/namespaces/kube-system/configmaps'), api.lists.join(', '));
  });
});
