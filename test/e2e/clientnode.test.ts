// @kubernetes/client-node, the ecosystem's standard JavaScript client, against a real `dkc server`: typed CRUD calls,
// and an informer that keeps working when the server drops its watch with 410 (the informer's process is paused
// with SIGSTOP until the server gives up on it, so the drop is the server's real slow-watcher path).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { startServer, type RunningServer, repoRoot } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

let server: RunningServer;
let kc: k8s.KubeConfig;
let core: k8s.CoreV1Api;

before(async () => {
  // No controllers: the custom-resource watch test expects its own writes as the only changes to its rollout.
  server = await startServer(['--watch-buffer-limit', '65536', '--controllers=']);
  kc = new k8s.KubeConfig();
  kc.loadFromFile(server.kubeconfig);
  core = kc.makeApiClient(k8s.CoreV1Api);
});

after(async () => {
  await server?.cleanup();
});

describe('@kubernetes/client-node', () => {
  it('list, read, create, merge-patch, delete', async () => {
    const ns = await core.listNamespace();
    assert.ok(ns.items.some((n) => n.metadata?.name === 'kube-system'));
    const created = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'js-cm' }, data: { a: '1' } },
    });
    assert.equal(created.metadata?.name, 'js-cm');
    assert.equal(created.metadata?.namespace, 'default');
    assert.ok(created.metadata?.uid);
    const read = await core.readNamespacedConfigMap({ name: 'js-cm', namespace: 'default' });
    assert.deepEqual(read.data, { a: '1' });
    assert.ok(read.metadata?.creationTimestamp instanceof Date);
    const patched = await core.patchNamespacedConfigMap(
      { name: 'js-cm', namespace: 'default', body: { data: { b: '2' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    assert.deepEqual(patched.data, { a: '1', b: '2' });
    const node = await core.createNode({
      body: {
        metadata: { name: 'js-node' },
        spec: { configSource: { configMap: { name: 'js-cm', namespace: 'default', kubeletConfigKey: 'kubelet' } } },
      },
    });
    assert.equal(node.spec?.configSource?.configMap?.kubeletConfigKey, 'kubelet');
    const list = await core.listNode();
    assert.ok(list.items.some((n) => n.metadata?.name === 'js-node'));
    await core.deleteNamespacedConfigMap({ name: 'js-cm', namespace: 'default' });
    await assert.rejects(
      core.readNamespacedConfigMap({ name: 'js-cm', namespace: 'default' }),
      (err: unknown) => (err as { code?: number }).code === 404,
    );
    // The client's default patch type is JSON patch: an object body is a client mistake, answered with a Status.
    await assert.rejects(
      core.patchNode({ name: 'js-node', body: { metadata: { labels: { x: 'y' } } } }),
      (err: unknown) => (err as { code?: number }).code === 400,
    );
  });

  it('an informer on nodes relists after the server drops its watch with 410, and keeps receiving changes', async () => {
    await core.createNode({ body: { metadata: { name: 'inf-node', labels: { step: 'start' } } } });
    const child: ChildProcess = spawn(
      process.execPath,
      [join(repoRoot, 'dist/test/e2e/fixtures/clientnode-informer.js'), server.kubeconfig],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const lines: { event: string; name?: string; labels?: Record<string, string> }[] = [];
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        lines.push(JSON.parse(buf.slice(0, i)) as (typeof lines)[number]);
        buf = buf.slice(i + 1);
      }
    });
    const seen = (what: string) => () =>
      `${what}; saw ${JSON.stringify(lines.slice(-10))}\n${server.log().slice(-2000)}`;
    try {
      await waitFor(seen('the initial add'), () => lines.some((l) => l.event === 'add' && l.name === 'inf-node'), {
        timeoutMs: 20_000,
        stepMs: 20,
      });
      // An update seen by the informer proves its watch is established (its list and add come before the watch).
      await core.patchNode(
        { name: 'inf-node', body: { metadata: { labels: { step: 'live' } } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      await waitFor(
        seen('the watch to deliver an update'),
        () => lines.some((l) => l.event === 'update' && l.labels?.['step'] === 'live'),
        { timeoutMs: 20_000, stepMs: 20 },
      );
      const listsBefore = lines.filter((l) => l.event === 'list').length;
      child.kill('SIGSTOP');
      // While the informer is paused, push more than the watch buffer limit plus the socket buffers through it.
      const blob = 'x'.repeat(200 * 1024);
      for (let i = 0; i < 300 && !server.log().includes('dropping a watcher'); i++) {
        await core.patchNode(
          { name: 'inf-node', body: { metadata: { annotations: { blob: `${i}${blob}` } } } },
          k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
        );
      }
      await waitFor(
        seen('the server to drop the paused watcher'),
        () => server.log().includes('dropping a watcher of nodes'),
        { timeoutMs: 10_000, stepMs: 20 },
      );
      child.kill('SIGCONT');
      await core.patchNode(
        { name: 'inf-node', body: { metadata: { labels: { step: 'after-drop' } } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      await waitFor(
        seen('the change made after the drop'),
        () => lines.some((l) => (l.event === 'update' || l.event === 'add') && l.labels?.['step'] === 'after-drop'),
        { timeoutMs: 20_000, stepMs: 20 },
      );
      assert.ok(lines.filter((l) => l.event === 'list').length > listsBefore, 'the informer must have relisted');
      assert.ok(
        !lines.some((l) => l.event === 'error'),
        `informer errors: ${JSON.stringify(lines.filter((l) => l.event === 'error'))}`,
      );
    } finally {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
  });

  it('lists and watches a custom resource (NodeConfigRollout) through CustomObjectsApi and the generic Watch', async () => {
    const custom = kc.makeApiClient(k8s.CustomObjectsApi);
    const ref = { group: 'dkc.io', version: 'v1alpha1', plural: 'nodeconfigrollouts' };
    await custom.createClusterCustomObject({
      ...ref,
      body: {
        apiVersion: 'dkc.io/v1alpha1',
        kind: 'NodeConfigRollout',
        metadata: { name: 'js-ncr', labels: { from: 'js' } },
        spec: { configSource: {} },
      },
    });
    const list = (await custom.listClusterCustomObject({ ...ref, labelSelector: 'from=js' })) as {
      items: { metadata: { name: string }; spec: { failurePolicy?: string } }[];
    };
    assert.deepEqual(
      list.items.map((i) => i.metadata.name),
      ['js-ncr'],
    );
    assert.equal(list.items[0]!.spec.failurePolicy, 'Revert');
    const seen: { type: string; paused?: boolean }[] = [];
    const watch = new k8s.Watch(kc);
    const req = await watch.watch(
      '/apis/dkc.io/v1alpha1/nodeconfigrollouts',
      { labelSelector: 'from=js' },
      (type: string, obj: { spec?: { paused?: boolean } }) =>
        seen.push({ type, ...(obj.spec?.paused !== undefined ? { paused: obj.spec.paused } : {}) }),
      () => undefined,
    );
    try {
      // One budget for both waits, as before; the assertion below says what was seen.
      const deadline = Date.now() + 10_000;
      await waitFor('the ADDED event', () => seen.some((e) => e.type === 'ADDED'), {
        timeoutMs: 10_000,
        stepMs: 20,
      }).catch(() => undefined);
      await custom.patchClusterCustomObject(
        { ...ref, name: 'js-ncr', body: { spec: { paused: true } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      await waitFor('the MODIFIED event', () => seen.some((e) => e.type === 'MODIFIED' && e.paused === true), {
        timeoutMs: Math.max(0, deadline - Date.now()),
        stepMs: 20,
      }).catch(() => undefined);
      assert.deepEqual(seen.slice(0, 2), [
        { type: 'ADDED', paused: false },
        { type: 'MODIFIED', paused: true },
      ]);
    } finally {
      req.abort();
    }
  });
});

describe('@kubernetes/client-node with workloads', () => {
  let running: RunningServer | undefined;
  after(async () => {
    await running?.cleanup();
  });

  it('creates a Deployment, watches the Pods its ReplicaSet makes, evicts one and sees it replaced', async () => {
    running = await startServer(['--controllers=replicaset,deployment']);
    const config = new k8s.KubeConfig();
    config.loadFromFile(running.kubeconfig);
    const apps = config.makeApiClient(k8s.AppsV1Api);
    const pods = config.makeApiClient(k8s.CoreV1Api);
    const labels = { app: 'js-web' };
    const created = await apps.createNamespacedDeployment({
      namespace: 'default',
      body: {
        metadata: { name: 'js-web' },
        spec: {
          replicas: 2,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: { containers: [{ name: 'web', image: 'registry.k8s.io/pause:3.9' }] },
          },
        },
      },
    });
    assert.equal(created.spec?.strategy?.type, 'RollingUpdate', 'defaulted by the server');
    const seen: { type: string; name: string; owner: string | undefined }[] = [];
    const req = await new k8s.Watch(config).watch(
      '/api/v1/namespaces/default/pods',
      { labelSelector: 'app=js-web' },
      (type: string, pod: k8s.V1Pod) =>
        seen.push({ type, name: pod.metadata?.name ?? '', owner: pod.metadata?.ownerReferences?.[0]?.kind }),
      () => undefined,
    );
    try {
      const added = () => seen.filter((e) => e.type === 'ADDED');
      await waitFor('two Pods made by the ReplicaSet', () => (added().length >= 2 ? true : undefined));
      const victim = added()[0]!.name;
      await pods.createNamespacedPodEviction({
        name: victim,
        namespace: 'default',
        body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: victim, namespace: 'default' } },
      });
      await waitFor('the evicted Pod gone and replaced', () =>
        seen.some((e) => e.type === 'DELETED' && e.name === victim) && added().length === 3 ? true : undefined,
      );
      assert.deepEqual(
        added().map((e) => e.owner),
        ['ReplicaSet', 'ReplicaSet', 'ReplicaSet'],
      );
    } finally {
      req.abort();
    }
  });
});
