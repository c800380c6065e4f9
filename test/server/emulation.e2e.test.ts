// `dkc server --emulated-version X.Y`: the flag's checks, the Node strategy of 1.24 and later as a pure function, and
// through real kubectl (1.32, as an administrator and as node-1 with its own certificate) what a person meets on
// `dkc server --emulated-version 1.31` — configSource and status.config dropped on Nodes that never had them, kept on
// one that had them (with the release's warning), NodeRestriction's 403 for a node that asks, no read path from a
// Node to its ConfigMap, and /version. Without the flag, the same data dir behaves as before.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { KubeObject } from '../../src/api/types.js';
import { nodeStrategy } from '../../src/server/emulation/nodes.js';
import {
  configSourceWarning,
  keepsNodeConfigSource,
  parseEmulatedVersion,
} from '../../src/server/emulation/version.js';
import { ensureClusterPKI, issueCert, writeKubeconfig } from '../../src/pki/index.js';
import { runDkc } from '../helpers/dkc.js';
import { kubectl, type Kubectl } from '../helpers/kubectl.js';
import { startServer, type RunningServer } from '../helpers/server.js';

const SOURCE = { configMap: { namespace: 'kube-system', name: 'cfg-a', kubeletConfigKey: 'kubelet' } };
const SOURCE_B = { configMap: { namespace: 'kube-system', name: 'cfg-b', kubeletConfigKey: 'kubelet' } };
const STATUS_SOURCE = { configMap: { ...SOURCE.configMap, uid: 'u-1', resourceVersion: '7' } };

describe('--emulated-version: the flag', () => {
  it('takes a release from 1.22 to 1.36', () => {
    assert.deepEqual(parseEmulatedVersion('1.31'), { major: 1, minor: 31 });
    assert.deepEqual(parseEmulatedVersion('1.22'), { major: 1, minor: 22 });
    assert.deepEqual(parseEmulatedVersion('1.36'), { major: 1, minor: 36 });
    for (const bad of ['1.21', '1.37', '2.0', '1', '1.31.0', 'v1.31', '1.x', '']) {
      assert.throws(() => parseEmulatedVersion(bad), {
        message: `invalid --emulated-version ${JSON.stringify(bad)}: must be a Kubernetes release MAJOR.MINOR from 1.22 to 1.36`,
      });
    }
  });

  it('keeps the fields before 1.24, and warns with each release’s text', () => {
    assert.equal(keepsNodeConfigSource({ major: 1, minor: 23 }), true);
    assert.equal(keepsNodeConfigSource({ major: 1, minor: 24 }), false);
    assert.equal(
      configSourceWarning({ major: 1, minor: 25 }),
      'spec.configSource: deprecated in v1.22, support removal is planned in v1.23',
    );
    assert.equal(configSourceWarning({ major: 1, minor: 26 }), 'spec.configSource: the feature is removed');
  });

  for (const command of [
    ['server', '--port', '0'],
    ['up', '--nodes', '0'],
  ]) {
    it(`dkc ${command[0]} refuses a bad release in one line, before touching its data dir`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'dkc-emulated-'));
      try {
        const r = await runDkc([
          command[0]!,
          '--data-dir',
          join(dir, 'data'),
          ...command.slice(1),
          '--emulated-version',
          '1.40',
        ]);
        assert.notEqual(r.code, 0);
        assert.equal(
          r.stderr,
          'dkc: invalid --emulated-version "1.40": must be a Kubernetes release MAJOR.MINOR from 1.22 to 1.36\n',
        );
        assert.equal(r.stdout, '');
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
});

describe('--emulated-version: the Node strategy of 1.24 and later', () => {
  const strategy = nodeStrategy({ major: 1, minor: 31 })!;
  const node = (spec: object, status: object): KubeObject => ({
    metadata: { name: 'n' },
    spec: structuredClone(spec),
    status: structuredClone(status),
  });
  const carried = node({ configSource: SOURCE }, { config: { active: STATUS_SOURCE } });
  const bare = node({}, {});

  it('is absent before 1.24', () => assert.equal(nodeStrategy({ major: 1, minor: 23 }), undefined));

  it('drops both fields on create', () => {
    const n = node(
      { configSource: SOURCE, unschedulable: true },
      { config: { active: STATUS_SOURCE }, phase: 'Running' },
    );
    strategy.prepare(n, undefined, '');
    assert.deepEqual(n, node({ unschedulable: true }, { phase: 'Running' }));
  });

  it('drops spec.configSource on update unless the stored Node carries it', () => {
    const onBare = node({ configSource: SOURCE }, {});
    strategy.prepare(onBare, bare, '');
    assert.deepEqual(onBare.spec, {});
    const onCarried = node({ configSource: SOURCE_B }, {});
    strategy.prepare(onCarried, carried, '');
    assert.deepEqual(onCarried.spec, { configSource: SOURCE_B });
  });

  it('drops status.config on a status update unless the stored Node carries it', () => {
    const onBare = node({}, { config: { active: STATUS_SOURCE } });
    strategy.prepare(onBare, bare, 'status');
    assert.deepEqual(onBare.status, {});
    const onCarried = node({}, { config: { error: 'x' } });
    strategy.prepare(onCarried, carried, 'status');
    assert.deepEqual(onCarried.status, { config: { error: 'x' } });
  });

  it('warns only for a Node that will carry spec.configSource', () => {
    assert.deepEqual(strategy.warnings(carried), ['spec.configSource: the feature is removed']);
    assert.deepEqual(strategy.warnings(bare), []);
  });
});

describe('dkc server --emulated-version 1.31, through kubectl', () => {
  let dataDir: string | undefined;
  let server: RunningServer | undefined;
  const handles: Kubectl[] = [];
  let admin: Kubectl;
  let node1: Kubectl;

  after(async () => {
    for (const h of handles) await h.cleanup();
    if (server) await server.cleanup();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const nodeJson = (name: string, spec: object = {}, status: object = {}) =>
    JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name }, spec, status });
  const field = async (k: Kubectl, node: string, path: string) =>
    (await k.ok(['get', 'node', node, '-o', `jsonpath={${path}}`])).trim();

  /** Starts a server on the shared data dir with these flags; kubectl handles for the admin and node-1. */
  async function start(flags: string[]): Promise<void> {
    if (server) await server.stop();
    dataDir ??= await mkdtemp(join(tmpdir(), 'dkc-emulated-'));
    server = await startServer(flags, { dataDir });
    const pki = await ensureClusterPKI(join(dataDir, 'pki'));
    const cert = await issueCert(
      { certPem: pki.ca.certPem, keyPem: pki.ca.keyPem! },
      { commonName: 'system:node:node-1', organizations: ['system:nodes'], usages: ['client'] },
    );
    const path = join(dataDir, 'node-1.kubeconfig');
    await writeKubeconfig(path, {
      server: server.url,
      caPem: pki.ca.certPem,
      certPem: cert.certPem,
      keyPem: cert.keyPem,
      user: 'node-1',
    });
    admin = await kubectl('1.32', server.kubeconfig);
    node1 = await kubectl('1.32', path);
    handles.push(admin, node1);
  }

  it('without the flag: a Node keeps what it is assigned, and its node reads that ConfigMap (1.22, as before)', async () => {
    await start([]);
    assert.match(await admin.ok(['version', '-o', 'json']), /"gitVersion": "v1\.22\.17-dkc\.0"/);
    await admin.ok(['create', 'configmap', 'cfg-a', '-n', 'kube-system', '--from-literal=kubelet={}']);
    await admin.ok(['create', '-f', '-'], { input: nodeJson('carrier', { configSource: SOURCE }) });
    await admin.ok(['create', '-f', '-'], { input: nodeJson('node-1', { configSource: SOURCE }) });
    await admin.ok([
      'patch',
      'node',
      'carrier',
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({ status: { config: { active: STATUS_SOURCE } } }),
    ]);
    assert.equal(await field(admin, 'carrier', '.spec.configSource.configMap.name'), 'cfg-a');
    assert.equal(await field(admin, 'carrier', '.status.config.active.configMap.name'), 'cfg-a');
    assert.match(await node1.ok(['get', 'configmap', 'cfg-a', '-n', 'kube-system', '-o', 'name']), /configmap\/cfg-a/);
  });

  it('/version reports the release', async () => {
    await start(['--emulated-version', '1.31']);
    const version = JSON.parse(await admin.ok(['version', '-o', 'json'])) as {
      serverVersion: { major: string; minor: string; gitVersion: string };
    };
    assert.deepEqual(
      [version.serverVersion.major, version.serverVersion.minor, version.serverVersion.gitVersion],
      ['1', '31', 'v1.31.0'],
    );
  });

  it("an administrator's patch of spec.configSource succeeds and the field is gone, as on a real 1.31", async () => {
    await admin.ok(['create', '-f', '-'], {
      input: nodeJson('node-2', { configSource: SOURCE }, { config: { active: STATUS_SOURCE } }),
    });
    assert.equal(await field(admin, 'node-2', '.spec'), '{}');
    assert.equal(await field(admin, 'node-2', '.status.config'), '');
    const r = await admin.run([
      'patch',
      'node',
      'node-2',
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { configSource: SOURCE } }),
    ]);
    assert.equal(r.code, 0, r.stderr);
    // The field goes, but the write is recorded in managedFields (kube's field manager sees the request before the
    // release's strategy drops the field), so kubectl sees a change, as against kube-apiserver 1.31.
    assert.equal(r.stdout, 'node/node-2 patched\n');
    assert.equal(r.stderr, '', 'no warning for a Node that does not carry the field');
    assert.equal(await field(admin, 'node-2', '.spec'), '{}');
    await admin.ok([
      'patch',
      'node',
      'node-2',
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({ status: { config: { active: STATUS_SOURCE } } }),
    ]);
    assert.equal(await field(admin, 'node-2', '.status.config'), '');
  });

  it('a Node that carries the fields keeps and changes them, with the release’s warning', async () => {
    const r = await admin.run([
      'patch',
      'node',
      'carrier',
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { configSource: SOURCE_B } }),
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, 'Warning: spec.configSource: the feature is removed\n');
    assert.equal(await field(admin, 'carrier', '.spec.configSource.configMap.name'), 'cfg-b');
    await admin.ok([
      'patch',
      'node',
      'carrier',
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({ status: { config: { error: 'failed to sync' } } }),
    ]);
    assert.equal(await field(admin, 'carrier', '.status.config.error'), 'failed to sync');
  });

  it('the Node authorizer has no Node → ConfigMap edge: node-1 no longer reads the ConfigMap its Node still names', async () => {
    assert.equal(await field(admin, 'node-1', '.spec.configSource.configMap.name'), 'cfg-a');
    const r = await node1.run(['get', 'configmap', 'cfg-a', '-n', 'kube-system']);
    assert.notEqual(r.code, 0);
    assert.equal(
      r.stderr,
      'Error from server (Forbidden): configmaps "cfg-a" is forbidden: User "system:node:node-1" cannot get resource "configmaps" in API group "" in the namespace "kube-system": no relationship found between node \'node-1\' and this object\n',
    );
  });

  it("NodeRestriction refuses a node that sets its configSource with upstream's 403, though the field would be dropped", async () => {
    await admin.ok(['delete', 'node', 'node-1']);
    const create = await node1.run(['create', '-f', '-'], { input: nodeJson('node-1', { configSource: SOURCE }) });
    assert.notEqual(create.code, 0);
    assert.equal(
      create.stderr,
      'Error from server (Forbidden): error when creating "STDIN": nodes "node-1" is forbidden: node "node-1" is not allowed to create pods with a non-nil configSource\n',
    );
    await node1.ok(['create', '-f', '-'], { input: nodeJson('node-1') });
    const patch = await node1.run([
      'patch',
      'node',
      'node-1',
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { configSource: SOURCE_B } }),
    ]);
    assert.notEqual(patch.code, 0);
    assert.equal(
      patch.stderr,
      'Error from server (Forbidden): nodes "node-1" is forbidden: node "node-1" is not allowed to update configSource to a new non-nil configSource\n',
    );
  });

  it('1.25 warns with its own text', async () => {
    await start(['--emulated-version', '1.25']);
    const r = await admin.run([
      'patch',
      'node',
      'carrier',
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { configSource: SOURCE } }),
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, 'Warning: spec.configSource: deprecated in v1.22, support removal is planned in v1.23\n');
  });
});
