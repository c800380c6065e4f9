// The upstream "Reconfigure a Node's Kubelet in a Live Cluster" task, verbatim, with real kubectl 1.32, curl and jq
// against a local dkc cluster (a real server and two real agents under dkc's supervisor): read /configz through
// `kubectl proxy`, change eventRecordQPS, wrap it in a ConfigMap with --append-hash, point the node at it with
// `kubectl patch` (and later `kubectl edit`), watch status.config, and reset to the local config.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { RestClient } from '../../src/client/index.js';
import { startCluster, type Cluster } from '../../src/up/cluster.js';
import { kubectlPath } from '../helpers/kubectl.js';
import { waitFor } from '../helpers/wait.js';

const run = promisify(execFile);

interface ConfigRef {
  name: string;
  namespace: string;
  kubeletConfigKey: string;
  uid?: string;
  resourceVersion?: string;
}
interface NodeConfigStatus {
  assigned?: { configMap: ConfigRef };
  active?: { configMap: ConfigRef };
  lastKnownGood?: { configMap: ConfigRef };
  error?: string;
}

let work: string;
let cluster: Cluster;
let admin: RestClient;
let proxy: ChildProcess | undefined;
let proxyPort = 0;
let env: NodeJS.ProcessEnv;

async function sh(script: string): Promise<string> {
  const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], {
    cwd: work,
    env,
    timeout: 60_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

async function nodeConfig(name: string): Promise<NodeConfigStatus | undefined> {
  const n = await admin.get<{ status?: { config?: NodeConfigStatus } }>(`/api/v1/nodes/${name}`);
  return n.status?.config;
}

async function configz(name: string): Promise<Record<string, unknown>> {
  return (
    JSON.parse(await sh(`curl -sSL "http://localhost:${proxyPort}/api/v1/nodes/${name}/proxy/configz"`)) as {
      kubeletconfig: Record<string, unknown>;
    }
  ).kubeletconfig;
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'dkc-tutorial-'));
  const bin = join(work, 'bin');
  await mkdir(bin);
  await symlink(kubectlPath('1.32'), join(bin, 'kubectl'));
  cluster = await startCluster({ dataDir: join(work, 'cluster'), nodes: 2, port: 0 });
  env = { ...process.env, PATH: `${bin}:${process.env['PATH']}`, KUBECONFIG: cluster.kubeconfig, HOME: work };
  admin = await RestClient.fromKubeconfig(cluster.kubeconfig);
  await waitFor('both nodes Ready', async () => {
    const list = await admin.list<{ items: { status?: { conditions?: { type: string; status: string }[] } }[] }>(
      '/api/v1/nodes',
    );
    const ready = list.items.filter((n) =>
      n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
    );
    return ready.length === 2 ? true : undefined;
  });
  proxy = spawn(kubectlPath('1.32'), ['proxy', '--port=0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  proxyPort = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`kubectl proxy did not start: ${out}`)), 20_000);
    proxy!.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Starting to serve on 127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
  });
});

after(async () => {
  proxy?.kill('SIGKILL');
  admin?.close();
  await cluster?.stop(5_000);
  if (work) await rm(work, { recursive: true, force: true });
});

describe('reconfigure a node’s kubelet in a live cluster', () => {
  const NODE_NAME = 'node-1';
  let firstConfigMap = '';

  it('downloads the running config through kubectl proxy, edits it, and creates the ConfigMap with --append-hash', async () => {
    await sh(
      `NODE_NAME="${NODE_NAME}"; curl -sSL "http://localhost:${proxyPort}/api/v1/nodes/\${NODE_NAME}/proxy/configz" | jq '.kubeletconfig|.kind="KubeletConfiguration"|.apiVersion="kubelet.config.k8s.io/v1beta1"' > kubelet_configz_\${NODE_NAME}`,
    );
    const before = await configz(NODE_NAME);
    assert.equal(before['eventRecordQPS'], 5);
    await sh(`sed -i 's/"eventRecordQPS": 5/"eventRecordQPS": 7/' kubelet_configz_${NODE_NAME}`);
    const yaml = await sh(
      `kubectl -n kube-system create configmap my-node-config --from-file=kubelet=kubelet_configz_${NODE_NAME} --append-hash -o yaml`,
    );
    const m = /name: (my-node-config-[a-z0-9]{10})/.exec(yaml);
    assert.ok(m, yaml);
    firstConfigMap = m[1]!;
    assert.match(yaml, /namespace: kube-system/);
  });

  it('kubectl patch points the node at it; status.config shows it assigned and active; /configz shows the new value', async () => {
    await sh(
      `kubectl patch node ${NODE_NAME} -p "{\\"spec\\":{\\"configSource\\":{\\"configMap\\":{\\"name\\":\\"${firstConfigMap}\\",\\"namespace\\":\\"kube-system\\",\\"kubeletConfigKey\\":\\"kubelet\\"}}}}"`,
    );
    const status = await waitFor('node-1 to run the new config', async () => {
      const s = JSON.parse(
        await sh(`kubectl get no ${NODE_NAME} -o json | jq '.status.config'`),
      ) as NodeConfigStatus | null;
      return s?.active?.configMap.name === firstConfigMap ? s : undefined;
    });
    assert.deepEqual(status.assigned, status.active);
    assert.equal(status.error, undefined);
    const cm = await admin.get<{ metadata: { uid: string; resourceVersion: string } }>(
      `/api/v1/namespaces/kube-system/configmaps/${firstConfigMap}`,
    );
    assert.equal(status.active!.configMap.uid, cm.metadata.uid);
    assert.equal(status.active!.configMap.resourceVersion, cm.metadata.resourceVersion);
    assert.equal(status.active!.configMap.kubeletConfigKey, 'kubelet');
    const after = await waitFor('/configz to answer', async () => configz(NODE_NAME));
    assert.equal(after['eventRecordQPS'], 7);
    const events = await sh(
      `kubectl get events --field-selector involvedObject.name=${NODE_NAME},reason=KubeletConfigChanged -o json`,
    );
    const messages = ((JSON.parse(events) as { items: unknown }).items as { message: string }[]).map((e) => e.message);
    assert.ok(
      messages.includes(
        `Kubelet restarting to use /api/v1/namespaces/kube-system/configmaps/${firstConfigMap}, UID: ${cm.metadata.uid}, ResourceVersion: ${cm.metadata.resourceVersion}, KubeletConfigKey: kubelet`,
      ),
      messages.join('\n'),
    );
  });

  it('the other node is untouched', async () => {
    assert.equal((await configz('node-2'))['eventRecordQPS'], 5);
    const s = await nodeConfig('node-2');
    assert.deepEqual(s ?? {}, {});
  });

  it('kubectl edit node switches to a second ConfigMap', async () => {
    await sh(`sed -i 's/"eventRecordQPS": 7/"eventRecordQPS": 9/' kubelet_configz_${NODE_NAME}`);
    const yaml = await sh(
      `kubectl -n kube-system create configmap my-node-config --from-file=kubelet=kubelet_configz_${NODE_NAME} --append-hash -o yaml`,
    );
    const second = /name: (my-node-config-[a-z0-9]{10})/.exec(yaml)![1]!;
    assert.notEqual(second, firstConfigMap);
    const editor = join(work, 'editor.sh');
    await writeFile(editor, `#!/bin/sh\nsed -i 's/${firstConfigMap}/${second}/' "$1"\n`);
    await chmod(editor, 0o755);
    const out = await sh(`KUBE_EDITOR=${editor} kubectl edit node ${NODE_NAME}`);
    assert.match(out, /node\/node-1 edited/);
    await waitFor('node-1 to run the second config', async () =>
      (await nodeConfig(NODE_NAME))?.active?.configMap.name === second ? true : undefined,
    );
    assert.equal((await waitFor('/configz', async () => configz(NODE_NAME)))['eventRecordQPS'], 9);
  });

  it('removing spec.configSource resets to the local config', async () => {
    await sh(`kubectl patch node ${NODE_NAME} -p "{\\"spec\\":{\\"configSource\\":null}}"`);
    await waitFor('status.config to be empty', async () => {
      const s = await nodeConfig(NODE_NAME);
      return s !== undefined && Object.keys(s).length === 0 ? true : undefined;
    });
    assert.equal((await waitFor('/configz', async () => configz(NODE_NAME)))['eventRecordQPS'], 5);
    const events = (
      JSON.parse(
        await sh(
          `kubectl get events --field-selector involvedObject.name=${NODE_NAME},reason=KubeletConfigChanged -o json`,
        ),
      ) as { items: unknown }
    ).items as { message: string }[];
    assert.ok(events.some((e) => e.message === 'Kubelet restarting to use local config'));
  });
});
