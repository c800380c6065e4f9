// The operator's workflow on a modern cluster, where kube-apiserver drops Node.spec.configSource: `dkc up
// --emulated-version 1.31` (a real `dkc up` process, its server and agent), and the tutorial with nodeconfig for node,
// through real kubectl 1.32 and jq — assign a ConfigMap with `kubectl patch nc`, watch the node download it, restart
// and report it active in `kubectl get nc node-1 -o json | jq .status.config`; then an invalid config, reported with
// upstream's error and given way to the last-known-good.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { dkcBin } from '../../src/up/cluster.js';
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
interface ConfigStatus {
  assigned?: { configMap: ConfigRef };
  active?: { configMap: ConfigRef };
  lastKnownGood?: { configMap: ConfigRef };
  error?: string;
}

const NODE = 'node-1';
const ValidateError = 'failed to validate config, see Kubelet log for details';

let work = '';
let up: ChildProcess | undefined;
let upOut = '';
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

/** `kubectl get nc node-1 -o json | jq .status.config`, as the operator reads it. */
async function configStatus(): Promise<ConfigStatus | null> {
  return JSON.parse(await sh(`kubectl get nc ${NODE} -o json | jq .status.config`)) as ConfigStatus | null;
}

async function configz(): Promise<Record<string, unknown>> {
  return (
    JSON.parse(await sh(`kubectl get --raw /api/v1/nodes/${NODE}/proxy/configz`)) as {
      kubeletconfig: Record<string, unknown>;
    }
  ).kubeletconfig;
}

async function configMap(name: string): Promise<{ uid: string; resourceVersion: string }> {
  return (
    JSON.parse(await sh(`kubectl -n kube-system get configmap ${name} -o json`)) as {
      metadata: { uid: string; resourceVersion: string };
    }
  ).metadata;
}

const assignment = (name: string): string =>
  JSON.stringify({
    spec: { configSource: { configMap: { name, namespace: 'kube-system', kubeletConfigKey: 'kubelet' } } },
  });

/** The PIDs of processes whose command line names `dir` (dkc up's children, which this test started). */
async function processesMentioning(dir: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmd = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmd.replace(/\0/g, ' ').includes(dir)) pids.push(Number(entry));
  }
  return pids;
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'dkc-nodeconfig-channel-'));
  const bin = join(work, 'bin');
  await mkdir(bin);
  await symlink(kubectlPath('1.32'), join(bin, 'kubectl'));
  const dataDir = join(work, 'cluster');
  env = { ...process.env, PATH: `${bin}:${process.env['PATH']}`, KUBECONFIG: join(dataDir, 'kubeconfig'), HOME: work };
  const child = spawn(
    process.execPath,
    [
      dkcBin,
      'up',
      '--data-dir',
      dataDir,
      '--nodes',
      '1',
      '--port',
      '0',
      '--emulated-version',
      '1.31',
      '--node-daemon',
      'off',
      '--agent-arg=--dynamic-config-trial-duration=2s',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  up = child;
  child.stdout.on('data', (d: Buffer) => (upOut += d.toString()));
  child.stderr.on('data', (d: Buffer) => (upOut += d.toString()));
  await waitFor(
    'dkc up to say the cluster is up',
    async () => {
      if (child.exitCode !== null) throw new Error(`dkc up exited ${child.exitCode}:\n${upOut}`);
      return upOut.includes('dkc cluster is up') ? true : undefined;
    },
    60_000,
  );
});

after(async () => {
  if (up && up.exitCode === null) {
    const running = up;
    running.kill('SIGINT');
    await waitFor('dkc up to exit', () => running.exitCode !== null || running.signalCode !== null, {
      timeoutMs: 20_000,
    }).catch(() => undefined);
  }
  if (work) {
    for (const pid of await processesMentioning(work)) process.kill(pid, 'SIGKILL');
    await rm(work, { recursive: true, force: true });
  }
});

describe(
  'dkc up --emulated-version 1.31: the tutorial on the NodeConfig channel, kubectl 1.32',
  { timeout: 180_000 },
  () => {
    it('the node found the NodeConfig channel, created its NodeConfig and publishes status.config there, not on the Node', async () => {
      const log = await readFile(join(work, 'cluster', 'nodes', NODE, 'logs', 'agent.log'), 'utf8');
      assert.match(
        log,
        /\] config channel: NodeConfig \(nodeconfigs\.dkc\.io\) — the API server \(v1\.31\.0\) drops the Node's spec\.configSource and status\.config\n/,
      );
      assert.deepEqual(
        await waitFor('status.config on the NodeConfig', async () => (await configStatus()) ?? undefined),
        {},
      );
      assert.match(await sh('kubectl get nc'), /^NAME +ASSIGNED +ACTIVE +ERROR +AGE\nnode-1 +/);
      assert.equal((await sh(`kubectl get node ${NODE} -o json | jq -c .status.config`)).trim(), 'null');
    });

    let good: ConfigRef;
    it('kubectl patch nc assigns a ConfigMap: the node downloads it, restarts, reports it active and, after its trial, last-known-good', async () => {
      await sh(
        `kubectl get --raw /api/v1/nodes/${NODE}/proxy/configz | jq '.kubeletconfig|.kind="KubeletConfiguration"|.apiVersion="kubelet.config.k8s.io/v1beta1"' > kubelet_configz`,
      );
      assert.equal((await configz())['eventRecordQPS'], 5);
      await sh(
        `jq '.eventRecordQPS=7' kubelet_configz > good.json && kubectl -n kube-system create configmap good-config --from-file=kubelet=good.json`,
      );
      assert.equal(
        (await sh(`kubectl patch nodeconfig ${NODE} --type=merge -p '${assignment('good-config')}'`)).trim(),
        'nodeconfig.dkc.io/node-1 patched',
      );

      const cm = await configMap('good-config');
      good = {
        name: 'good-config',
        namespace: 'kube-system',
        kubeletConfigKey: 'kubelet',
        uid: cm.uid,
        resourceVersion: cm.resourceVersion,
      };
      const status = await waitFor('node-1 to report good-config active and last-known-good', async () => {
        const s = await configStatus();
        return s?.lastKnownGood?.configMap.name === 'good-config' ? s : undefined;
      });
      assert.deepEqual(status, {
        assigned: { configMap: good },
        active: { configMap: good },
        lastKnownGood: { configMap: good },
      });
      assert.equal((await waitFor('/configz', configz))['eventRecordQPS'], 7);
      const events = (
        JSON.parse(
          await sh(
            `kubectl get events --field-selector involvedObject.name=${NODE},reason=KubeletConfigChanged -o json`,
          ),
        ) as { items: unknown }
      ).items as {
        message: string;
        involvedObject: { kind: string };
      }[];
      const restart = `Kubelet restarting to use /api/v1/namespaces/kube-system/configmaps/good-config, UID: ${cm.uid}, ResourceVersion: ${cm.resourceVersion}, KubeletConfigKey: kubelet`;
      assert.deepEqual(
        events.filter((e) => e.message === restart).map((e) => e.involvedObject.kind),
        ['Node'],
      );
    });

    it("an invalid config is reported with upstream's error, and the node runs its last-known-good", async () => {
      await sh(
        `jq '.eventRecordQPS=9|.kubeAPIQPS=-1' kubelet_configz > bad.json && kubectl -n kube-system create configmap bad-config --from-file=kubelet=bad.json`,
      );
      await sh(`kubectl patch nc ${NODE} --type=merge -p '${assignment('bad-config')}'`);
      const cm = await configMap('bad-config');
      const bad = {
        name: 'bad-config',
        namespace: 'kube-system',
        kubeletConfigKey: 'kubelet',
        uid: cm.uid,
        resourceVersion: cm.resourceVersion,
      };
      const status = await waitFor('node-1 to report bad-config rejected', async () => {
        const s = await configStatus();
        return s?.assigned?.configMap.name === 'bad-config' && s.error ? s : undefined;
      });
      assert.deepEqual(status, {
        assigned: { configMap: bad },
        active: { configMap: good },
        lastKnownGood: { configMap: good },
        error: ValidateError,
      });
      assert.equal((await waitFor('/configz', configz))['eventRecordQPS'], 7);
      assert.match(
        await sh(`kubectl get nc ${NODE}`),
        new RegExp(`\\nnode-1 +bad-config +good-config +${ValidateError} +`),
      );
    });
  },
);
