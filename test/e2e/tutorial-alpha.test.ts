// The 1.8-alpha version of the "Reconfigure a Node's Kubelet in a Live Cluster" task (the older Chinese translation),
// command for command, with real kubectl 1.32 and 1.20, curl and jq against a local dkc cluster: /configz through the
// old proxy path `/api/v1/proxy/nodes/<name>/configz`, the payload relabelled `kubeletconfig/v1alpha1`, a ConfigMap
// with --append-hash, a Role and RoleBinding granting the node `get` on it, `spec.configSource.configMapRef` with the
// ConfigMap's uid (by `kubectl patch` and by `kubectl edit`), the ConfigOK condition, and removal back to the local
// (init) config. Then what the task's table promises when things go wrong: a payload that does not parse falls back
// to last-known-good, and a uid that does not match the ConfigMap is a download error that restarts nothing.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { RestClient } from '../../src/client/index.js';
import { startCluster, type Cluster } from '../../src/up/cluster.js';
import { kubectlPath, type KubectlVersion } from '../helpers/kubectl.js';
import { waitFor } from '../helpers/wait.js';

const run = promisify(execFile);

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastHeartbeatTime: string;
  lastTransitionTime: string;
}

const INIT_OK = {
  message: 'using current (init)',
  reason: 'current is set to the local default, and an init config was provided',
  status: 'True',
};

let work: string;
let cluster: Cluster;
let admin: RestClient;
const proxies: ChildProcess[] = [];

/** A shell with `kubectl` of the given version first on PATH, in the working directory the task's files go to. */
async function sh(version: KubectlVersion, script: string): Promise<string> {
  const env = {
    ...process.env,
    PATH: `${join(work, `bin-${version}`)}:${process.env['PATH']}`,
    KUBECONFIG: cluster.kubeconfig,
    HOME: join(work, `home-${version}`),
  };
  const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], {
    cwd: work,
    env,
    timeout: 60_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

/** `kubectl proxy --port=…` of the given version; resolves with the port it serves on. */
async function startProxy(version: KubectlVersion): Promise<number> {
  const env = { ...process.env, KUBECONFIG: cluster.kubeconfig, HOME: join(work, `home-${version}`) };
  const p = spawn(kubectlPath(version), ['proxy', '--port=0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  proxies.push(p);
  return new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`kubectl ${version} proxy did not start: ${out}`)), 20_000);
    p.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Starting to serve on 127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
  });
}

/** Step 5 of the task: the ConfigOK condition as `kubectl get no … -o json | jq …` shows it. */
async function configOK(version: KubectlVersion, node: string): Promise<Condition | undefined> {
  const out = await sh(
    version,
    `kubectl get no ${node} -o json | jq '.status.conditions|map(select(.type=="ConfigOK"))'`,
  );
  return (JSON.parse(out) as Condition[])[0];
}

async function waitConfigOK(
  version: KubectlVersion,
  node: string,
  want: { message: string; reason: string; status: string },
): Promise<Condition> {
  return waitFor(
    `ConfigOK of ${node} to be ${JSON.stringify(want)}`,
    async () => {
      const c = await configOK(version, node);
      return c && c.message === want.message && c.reason === want.reason && c.status === want.status ? c : undefined;
    },
    30_000,
    250,
  );
}

async function configz(version: KubectlVersion, port: number, node: string): Promise<Record<string, unknown>> {
  return (
    JSON.parse(await sh(version, `curl -sSL http://localhost:${port}/api/v1/proxy/nodes/${node}/configz`)) as {
      kubeletconfig: Record<string, unknown>;
    }
  ).kubeletconfig;
}

async function configChangedEvents(node: string): Promise<number> {
  const list = await admin.list<{ items: { reason?: string; involvedObject?: { name?: string } }[] }>(
    '/api/v1/namespaces/default/events',
  );
  return list.items.filter((e) => e.reason === 'KubeletConfigChanged' && e.involvedObject?.name === node).length;
}

/** An editor for `kubectl edit` that runs a Node script over the file (as a reader would with vi). */
async function editor(name: string, body: string): Promise<string> {
  const path = join(work, name);
  await writeFile(
    path,
    `#!${process.execPath}\nconst fs = require('node:fs');\nconst file = process.argv[2];\nlet text = fs.readFileSync(file, 'utf8');\n${body}\nfs.writeFileSync(file, text);\n`,
  );
  await chmod(path, 0o755);
  return path;
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'dkc-tutorial-alpha-'));
  for (const v of ['1.32', '1.20'] as const) {
    await mkdir(join(work, `bin-${v}`));
    await mkdir(join(work, `home-${v}`));
    await symlink(kubectlPath(v), join(work, `bin-${v}`, 'kubectl'));
  }
  cluster = await startCluster({ dataDir: join(work, 'cluster'), nodes: 2, port: 0 });
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
});

after(async () => {
  for (const p of proxies) p.kill('SIGKILL');
  admin?.close();
  await cluster?.stop(5_000);
  if (work) await rm(work, { recursive: true, force: true });
});

/** The whole task on one node with one kubectl: round one points the node with `patch`, round two with `edit`. */
function theTask(version: KubectlVersion, NODE_NAME: string): void {
  describe(`the 1.8 task with kubectl ${version} on ${NODE_NAME}`, () => {
    let port = 0;
    const file = `kubelet_configz_${NODE_NAME}`;

    it('reports ConfigOK "using current (init)" before anything is assigned', async () => {
      port = await startProxy(version);
      const c = await waitConfigOK(version, NODE_NAME, INIT_OK);
      assert.ok(c.lastTransitionTime && c.lastHeartbeatTime);
    });

    for (const [round, how] of [
      [1, 'patch'],
      [2, 'edit'],
    ] as const) {
      const qps = 5 + round * 2;
      let CONFIG_MAP_NAME = '';
      let CONFIG_MAP_UID = '';

      it(`round ${round}: configz through the old proxy path, relabelled kubeletconfig/v1alpha1, into a ConfigMap`, async () => {
        await sh(
          version,
          `NODE_NAME=${NODE_NAME}; curl -sSL http://localhost:${port}/api/v1/proxy/nodes/\${NODE_NAME}/configz | jq '.kubeletconfig|.kind="KubeletConfiguration"|.apiVersion="kubeletconfig/v1alpha1"' > kubelet_configz_\${NODE_NAME}`,
        );
        assert.equal((await configz(version, port, NODE_NAME))['eventRecordQPS'], 5);
        await sh(version, `sed -i 's/"eventRecordQPS": 5/"eventRecordQPS": ${qps}/' ${file}`);
        await sh(version, `grep -q '"apiVersion": "kubeletconfig/v1alpha1"' ${file}`);
        const yaml = await sh(
          version,
          `kubectl -n kube-system create configmap my-node-config --from-file=kubelet=${file} --append-hash -o yaml`,
        );
        CONFIG_MAP_NAME = /^ {2}name: (my-node-config-[a-z0-9]{10})$/m.exec(yaml)![1]!;
        CONFIG_MAP_UID = /^ {2}uid: (\S+)$/m.exec(yaml)![1]!;
        assert.match(yaml, /^ {2}kubelet: /m);
      });

      it(`round ${round}: a Role and RoleBinding grant system:node:${NODE_NAME} get on it`, async () => {
        await sh(
          version,
          `kubectl -n kube-system create role ${CONFIG_MAP_NAME}-reader --verb=get --resource=configmap --resource-name=${CONFIG_MAP_NAME}`,
        );
        await sh(
          version,
          `kubectl -n kube-system create rolebinding ${CONFIG_MAP_NAME}-reader --role=${CONFIG_MAP_NAME}-reader --user=system:node:${NODE_NAME}`,
        );
      });

      it(`round ${round}: kubectl ${how} sets configSource.configMapRef; ConfigOK reports the uid; /configz the new value`, async () => {
        const before = await configChangedEvents(NODE_NAME);
        if (how === 'patch') {
          const r = await run(
            'bash',
            [
              '-euo',
              'pipefail',
              '-c',
              `kubectl patch node ${NODE_NAME} -p "{\\"spec\\":{\\"configSource\\":{\\"configMapRef\\":{\\"name\\":\\"${CONFIG_MAP_NAME}\\",\\"namespace\\":\\"kube-system\\",\\"uid\\":\\"${CONFIG_MAP_UID}\\"}}}}" 2>&1`,
            ],
            {
              cwd: work,
              env: {
                ...process.env,
                PATH: `${join(work, `bin-${version}`)}:${process.env['PATH']}`,
                KUBECONFIG: cluster.kubeconfig,
                HOME: join(work, `home-${version}`),
              },
            },
          );
          assert.match(r.stdout, /node\/\S+ patched/);
          assert.match(
            r.stdout,
            /Warning: spec\.configSource\.configMapRef: deprecated .*spec\.configSource\.configMap/,
          );
        } else {
          const add = await editor(
            `add-${version}.js`,
            `text = text.replace(/^spec: \\{\\}$/m, 'spec:').replace(/^spec:$/m, 'spec:\\n  configSource:\\n      configMapRef:\\n          name: ${CONFIG_MAP_NAME}\\n          namespace: kube-system\\n          uid: ${CONFIG_MAP_UID}');`,
          );
          const out = await sh(version, `KUBE_EDITOR=${add} kubectl edit node ${NODE_NAME}`);
          assert.match(out, /node\/\S+ edited/);
        }
        const spec = await admin.get<{ spec: { configSource?: unknown } }>(`/api/v1/nodes/${NODE_NAME}`);
        assert.deepEqual(spec.spec.configSource, {
          configMapRef: { name: CONFIG_MAP_NAME, namespace: 'kube-system', uid: CONFIG_MAP_UID },
        });
        const c = await waitConfigOK(version, NODE_NAME, {
          message: `using current (UID: "${CONFIG_MAP_UID}")`,
          reason: 'passing all checks',
          status: 'True',
        });
        assert.ok(Date.parse(c.lastTransitionTime) <= Date.parse(c.lastHeartbeatTime));
        const z = await waitFor('/configz to answer', async () => configz(version, port, NODE_NAME), 20_000, 250);
        assert.equal(z['eventRecordQPS'], qps);
        assert.equal(await configChangedEvents(NODE_NAME), before + 1);
        const status = await admin.get<{
          status: { config?: { active?: { configMap?: { uid?: string; kubeletConfigKey?: string } } } };
        }>(`/api/v1/nodes/${NODE_NAME}`);
        assert.equal(status.status.config?.active?.configMap?.uid, CONFIG_MAP_UID);
        assert.equal(status.status.config?.active?.configMap?.kubeletConfigKey, 'kubelet');
      });

      it(`round ${round}: removing the configSource subfield (kubectl ${how}) returns to "using current (init)"`, async () => {
        if (how === 'patch') {
          await sh(version, `kubectl patch node ${NODE_NAME} -p '{"spec":{"configSource":null}}'`);
        } else {
          const remove = await editor(
            `remove-${version}.js`,
            `text = text.replace(/^  configSource:\\n(?:    .*\\n)+/m, '');`,
          );
          await sh(version, `KUBE_EDITOR=${remove} kubectl edit node ${NODE_NAME}`);
        }
        await waitConfigOK(version, NODE_NAME, INIT_OK);
        const z = await waitFor('/configz to answer', async () => configz(version, port, NODE_NAME), 20_000, 250);
        assert.equal(z['eventRecordQPS'], 5);
      });
    }
  });
}

theTask('1.32', 'node-1');
theTask('1.20', 'node-2');

describe('what the task’s table promises when the config is bad', () => {
  const NODE_NAME = 'node-1';
  const version = '1.32';
  let port = 0;

  async function configMapWith(name: string, payload: string): Promise<{ name: string; uid: string }> {
    await writeFile(join(work, `${name}.payload`), payload);
    const cm = JSON.parse(
      await sh(version, `kubectl -n kube-system create configmap ${name} --from-file=kubelet=${name}.payload -o json`),
    ) as { metadata: { uid: string } };
    await sh(
      version,
      `kubectl -n kube-system create role ${name}-reader --verb=get --resource=configmap --resource-name=${name}`,
    );
    await sh(
      version,
      `kubectl -n kube-system create rolebinding ${name}-reader --role=${name}-reader --user=system:node:${NODE_NAME}`,
    );
    return { name, uid: cm.metadata.uid };
  }

  async function pointAt(name: string, uid: string): Promise<void> {
    await sh(
      version,
      `kubectl patch node ${NODE_NAME} -p '{"spec":{"configSource":{"configMapRef":{"name":"${name}","namespace":"kube-system","uid":"${uid}"}}}}'`,
    );
  }

  it('a payload that does not parse: using last-known-good (init), failed to parse current, False; the node still serves', async () => {
    port = await startProxy(version);
    const bad = await configMapWith(
      'bad-parse',
      '{"apiVersion": "kubeletconfig/v1alpha1", "kind": "KubeletConfiguration", "eventRecordQPS": "many"}',
    );
    await pointAt(bad.name, bad.uid);
    await waitConfigOK(version, NODE_NAME, {
      message: 'using last-known-good (init)',
      reason: `failed to parse current (UID: "${bad.uid}")`,
      status: 'False',
    });
    assert.equal(
      (await waitFor('/configz', async () => configz(version, port, NODE_NAME), 20_000, 250))['eventRecordQPS'],
      5,
    );
  });

  it('a payload that does not validate: failed to validate current, False; the node still serves', async () => {
    const bad = await configMapWith(
      'bad-validate',
      'apiVersion: kubeletconfig/v1alpha1\nkind: KubeletConfiguration\neventRecordQPS: -1\n',
    );
    await pointAt(bad.name, bad.uid);
    await waitConfigOK(version, NODE_NAME, {
      message: 'using last-known-good (init)',
      reason: `failed to validate current (UID: "${bad.uid}")`,
      status: 'False',
    });
    assert.equal(
      (await waitFor('/configz', async () => configz(version, port, NODE_NAME), 20_000, 250))['eventRecordQPS'],
      5,
    );
  });

  it('a uid that does not match the ConfigMap: a download error, no restart', async () => {
    const good = await configMapWith(
      'good-but-other-uid',
      'apiVersion: kubeletconfig/v1alpha1\nkind: KubeletConfiguration\neventRecordQPS: 11\n',
    );
    const before = await configChangedEvents(NODE_NAME);
    const wrong = '00000000-0000-0000-0000-000000000000';
    await pointAt(good.name, wrong);
    const c = await waitFor(
      'ConfigOK to report the mismatch',
      async () => {
        const x = await configOK(version, NODE_NAME);
        return x?.reason.startsWith('failed to sync') ? x : undefined;
      },
      30_000,
      250,
    );
    assert.equal(
      c.reason,
      `failed to sync, desired config unclear, reason: invalid ObjectReference, UID "${wrong}" does not match UID of downloaded ConfigMap "${good.uid}"`,
    );
    assert.equal(c.status, 'Unknown');
    const node = await admin.get<{ status: { config?: { error?: string } } }>(`/api/v1/nodes/${NODE_NAME}`);
    assert.equal(node.status.config?.error, 'failed to sync: failed to download config, see Kubelet log for details');
    assert.equal(await configChangedEvents(NODE_NAME), before);
    assert.equal((await configz(version, port, NODE_NAME))['eventRecordQPS'], 5);
  });
});
