// `dkc agent --config-channel`, as a node's operator meets it: a value it does not know, a channel the API server
// cannot carry (node on a server that drops the Node's fields), and a cluster whose Node still carries an assignment
// while the agent is told to use NodeConfigs. Each time the agent exits non-zero and says why in one line. Real
// `dkc server` and `dkc agent` processes, the agent authenticated as its node.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isApiError, RestClient } from '../../src/client/index.js';
import { ensureClusterPKI, issueCert, writeKubeconfig } from '../../src/pki/index.js';
import { freePort } from '../../src/util/net.js';
import { runDkc } from '../helpers/dkc.js';
import { startServer, type RunningServer } from '../helpers/server.js';

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** A dkc server with `args`, an admin client, and node-1's kubeconfig (its node certificate). */
async function serverWithNode(
  args: string[],
): Promise<{ server: RunningServer; admin: RestClient; kubeconfig: string }> {
  const server = await startServer(args);
  cleanups.push(() => server.cleanup());
  const admin = await RestClient.fromKubeconfig(server.kubeconfig, { timeoutMs: 10_000 });
  cleanups.push(async () => admin.close());
  const pki = await ensureClusterPKI(join(server.dataDir, 'pki'));
  const cert = await issueCert(
    { certPem: pki.ca.certPem, keyPem: pki.ca.keyPem! },
    { commonName: 'system:node:node-1', organizations: ['system:nodes'], usages: ['client'] },
  );
  const kubeconfig = join(server.dataDir, 'node-1.kubeconfig');
  await writeKubeconfig(kubeconfig, {
    server: server.url,
    caPem: pki.ca.certPem,
    certPem: cert.certPem,
    keyPem: cert.keyPem,
    user: 'node-1',
  });
  return { server, admin, kubeconfig };
}

/** Runs `dkc agent` as node-1 until it exits (its log lines go to its log file only, so stderr is what it says). */
async function runAgent(kubeconfig: string, extra: string[]): Promise<{ code: number; stderr: string; log: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'dkc-agent-channel-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const logFile = join(dir, 'agent.log');
  const r = await runDkc(
    [
      'agent',
      `--kubeconfig=${kubeconfig}`,
      `--root-dir=${dir}`,
      `--dynamic-config-dir=${join(dir, 'dynamic-config')}`,
      '--hostname-override=node-1',
      '--node-ip=127.0.0.1',
      '--address=127.0.0.1',
      `--port=${await freePort()}`,
      '--healthz-port=0',
      '--read-only-port=0',
      '--feature-gates=DynamicKubeletConfig=true',
      `--log-file=${logFile}`,
      '--logtostderr=false',
      ...extra,
    ],
    { timeoutMs: 30_000 },
  );
  return { code: r.code, stderr: r.stderr, log: await readFile(logFile, 'utf8').catch(() => '') };
}

describe('dkc agent --config-channel', { timeout: 120_000 }, () => {
  it('a value it does not know is one line of error, before anything starts', async () => {
    const r = await runDkc(['agent', '--config-channel=sideways'], { timeoutMs: 20_000 });
    assert.equal(r.code, 1);
    // As every bad flag: logged (to stderr, where logs go by default), then said as the command's one line.
    assert.match(
      r.stderr,
      /\ndkc agent: invalid --config-channel "sideways": must be one of auto, node, nodeconfig\n$/,
    );
    assert.doesNotMatch(r.stderr, /serving on/);
    const help = await runDkc(['agent', '--help']);
    assert.match(
      help.stdout,
      /--config-channel auto\|node\|nodeconfig +where the node's config assignment lives.*\(default auto\)/,
    );
  });

  it('node, on a server that drops the Node fields (--emulated-version 1.31): exits 1 saying so in one line', async () => {
    const { kubeconfig } = await serverWithNode(['--emulated-version', '1.31']);
    const r = await runAgent(kubeconfig, ['--config-channel=node']);
    const message =
      '--config-channel=node, but the API server (v1.31.0) drops Node.spec.configSource and Node.status.config: use nodeconfig (or auto)';
    assert.equal(r.code, 1, r.log);
    assert.equal(r.stderr, `dkc agent: ${message}\n`);
    assert.ok(
      r.log.split('\n').some((l) => l.startsWith('E') && l.endsWith(`] ${message}`)),
      r.log,
    );
  });

  it("nodeconfig, while the node's own Node carries spec.configSource (a server before 1.24): refuses to mix, exits 1, creates no NodeConfig", async () => {
    const { admin, kubeconfig } = await serverWithNode([]);
    const source = { configMap: { namespace: 'kube-system', name: 'cfg', kubeletConfigKey: 'kubelet' } };
    await admin.create('/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-1' },
      spec: { configSource: source },
    });
    const r = await runAgent(kubeconfig, ['--config-channel=nodeconfig']);
    const message =
      "refusing to mix config channels: this cluster's channel is NodeConfig, but 1 Node(s) carry spec.configSource (node/node-1); move every assignment to one channel first";
    assert.equal(r.code, 1, r.log);
    assert.equal(r.stderr, `dkc agent: ${message}\n`);
    assert.ok(
      r.log.split('\n').some((l) => l.startsWith('E') && l.endsWith(`] ${message}`)),
      r.log,
    );
    await assert.rejects(admin.get('/apis/dkc.io/v1alpha1/nodeconfigs/node-1'), (err) => isApiError(err, 404));
  });
});
