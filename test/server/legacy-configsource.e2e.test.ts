// What a real server answers to the 1.8-alpha workflow's requests: a Node with spec.configSource.configMapRef is
// stored as sent and answered with a Warning (a status write is not), and the old proxy path
// `/api/v1/proxy/nodes/<name>/…` is authorized exactly as `/api/v1/nodes/<name>/proxy/…`.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type RunningServer } from '../helpers/server.js';
import { kubectl, type Kubectl } from '../helpers/kubectl.js';

let server: RunningServer;
let k: Kubectl;

before(async () => {
  server = await startServer();
  k = await kubectl('1.32', server.kubeconfig);
  await k.ok(['create', '-f', '-'], {
    input: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'alpha-node' } }),
  });
});

after(async () => {
  await k?.cleanup();
  await server?.cleanup();
});

describe('spec.configSource.configMapRef on a real server', () => {
  const ref = { name: 'my-node-config-abc', namespace: 'kube-system', uid: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' };

  it('is stored and returned as sent, with a Warning pointing to configMap', async () => {
    const r = await k.run([
      'patch',
      'node',
      'alpha-node',
      '-p',
      JSON.stringify({ spec: { configSource: { configMapRef: ref } } }),
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /^Warning: spec\.configSource\.configMapRef: deprecated .*use spec\.configSource\.configMap/m,
    );
    const node = JSON.parse(await k.ok(['get', 'node', 'alpha-node', '-o', 'json'])) as {
      spec: { configSource: unknown };
    };
    assert.deepEqual(node.spec.configSource, { configMapRef: ref });
  });

  it('a status write of that Node carries no Warning', async () => {
    const r = await k.run([
      'patch',
      'node',
      'alpha-node',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"config":null}}',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /Warning/);
  });

  it('a partial reference is refused in upstream’s words', async () => {
    const r = await k.run([
      'patch',
      'node',
      'alpha-node',
      '-p',
      JSON.stringify({ spec: { configSource: { configMapRef: { name: 'x', namespace: 'kube-system', uid: '' } } } }),
    ]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /spec\.configSource\.configMapRef\.uid: Required value: uid must be set/);
  });

  it('kubectl explain knows the field', async () => {
    const out = await k.ok(['explain', 'node.spec.configSource.configMapRef']);
    assert.match(out, /FIELD: *configMapRef <ObjectReference>/);
  });
});

describe('the old node proxy path on a real server', () => {
  it('is refused exactly as the subresource path for a user without nodes/proxy', async () => {
    const current = await k.run(['get', '--raw', '/api/v1/nodes/alpha-node/proxy/configz', '--as=nobody']);
    const legacy = await k.run(['get', '--raw', '/api/v1/proxy/nodes/alpha-node/configz', '--as=nobody']);
    assert.notEqual(legacy.code, 0);
    assert.match(current.stderr, /forbidden/);
    assert.equal(legacy.stderr, current.stderr);
  });

  it('reaches the node’s proxy for an allowed user (a Node without an endpoint: the same answer on both paths)', async () => {
    const current = await k.run(['get', '--raw', '/api/v1/nodes/alpha-node/proxy/configz']);
    const legacy = await k.run(['get', '--raw', '/api/v1/proxy/nodes/alpha-node/configz']);
    assert.notEqual(current.code, 0);
    assert.equal(legacy.stderr, current.stderr);
  });
});
