// The agent keeps the CPU and memory managers' checkpoints in its --root-dir as the kubelet does: a first start
// writes them with the configured policies; a start whose config names another policy than the file exits 1 with the
// kubelet's own message and leaves the file as it was (only a drained node's operator removes it); the static CPU
// policy without a CPU reservation does not start.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dkcBin } from '../../../src/up/cluster.js';
import { freePort } from '../../../src/util/net.js';
import { runDkc } from '../../helpers/dkc.js';
import { waitFor } from '../../helpers/wait.js';

const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const flags = async (dir: string) => [
  'agent',
  `--config=${join(dir, 'kubelet.yaml')}`,
  `--root-dir=${dir}`,
  `--port=${await freePort()}`,
  '--healthz-port=0',
  '--address=127.0.0.1',
  '--capacity=cpu=4,memory=8Gi',
];
const read = (dir: string, file: string) => readFile(join(dir, file), 'utf8').catch(() => undefined);

/** Starts the agent standalone until it has written its checkpoints, then stops it. */
async function firstStart(dir: string): Promise<void> {
  const child = spawn(process.execPath, [dkcBin, ...(await flags(dir))], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    await waitFor('both checkpoints written', async () =>
      (await read(dir, 'cpu_manager_state')) && (await read(dir, 'memory_manager_state')) ? true : undefined,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n${err}`);
    });
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

describe("the agent's CPU and memory manager checkpoints", () => {
  it('written at the first start; a changed policy stops the next with the kubelet message; the file stays', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dkc-cpustate-'));
    dirs.push(dir);
    await writeFile(join(dir, 'kubelet.yaml'), HEADER);
    await firstStart(dir);
    const cpu = await read(dir, 'cpu_manager_state');
    assert.equal(cpu, '{"policyName":"none","defaultCpuSet":"","checksum":1353318690}');
    assert.match((await read(dir, 'memory_manager_state')) ?? '', /^\{"policyName":"None","machineState":\{\}/);

    await writeFile(join(dir, 'kubelet.yaml'), `${HEADER}cpuManagerPolicy: static\nkubeReserved:\n  cpu: "1"\n`);
    const changed = await runDkc(await flags(dir), { timeoutMs: 20_000 });
    assert.equal(changed.code, 1, changed.stderr);
    const file = join(dir, 'cpu_manager_state');
    assert.ok(
      changed.stderr.includes(
        `dkc agent: Failed to start ContainerManager: start cpu manager error: could not restore state from checkpoint: configured policy "static" differs from state checkpoint policy "none", please drain this node and delete the CPU manager checkpoint file ${JSON.stringify(file)} before restarting Kubelet`,
      ),
      changed.stderr,
    );
    assert.equal(await read(dir, 'cpu_manager_state'), cpu, 'the agent never removes the checkpoint itself');
  });

  it('the static CPU policy without a CPU reservation does not start', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dkc-cpustate-'));
    dirs.push(dir);
    await writeFile(join(dir, 'kubelet.yaml'), `${HEADER}cpuManagerPolicy: static\n`);
    const r = await runDkc(await flags(dir), { timeoutMs: 20_000 });
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      /dkc agent: Failed to start ContainerManager: \[cpumanager\] unable to determine reserved CPU resources for static policy/,
    );
    assert.equal(await read(dir, 'cpu_manager_state'), undefined, 'nothing is written before the start is refused');
  });
});
