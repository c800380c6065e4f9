// `dkc rollout` as an operator runs it: a real process against a real `dkc server`. No controller runs: the test
// writes the rollout's status through /status as the controller would, to drive `status --watch` through its phases.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { RestClient } from '../../src/client/index.js';
import type { RolloutStatus } from '../../src/api/dkc/rollout.js';
import type { NodeConfigRollout } from '../../src/workflow/rollout/types.js';
import { dkcBin, startServer, type RunningServer } from '../helpers/server.js';

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface Running {
  proc: ChildProcess;
  output(): Result;
  /** Resolves once stdout holds `text`, rejects if the process ends first. */
  printed(text: string): Promise<void>;
  exited: Promise<Result>;
}

const procs = new Set<ChildProcess>();

function launch(args: string[], env: Record<string, string | undefined> = {}): Running {
  const proc = spawn(process.execPath, [dkcBin, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, KUBECONFIG: undefined, ...env },
  });
  procs.add(proc);
  const out = { stdout: '', stderr: '' };
  const waiters: (() => void)[] = [];
  proc.stdout.on('data', (d: Buffer) => {
    out.stdout += d.toString();
    for (const w of waiters.splice(0)) w();
  });
  proc.stderr.on('data', (d: Buffer) => (out.stderr += d.toString()));
  const exited = new Promise<Result>((resolve) =>
    proc.once('close', (code) => {
      procs.delete(proc);
      for (const w of waiters.splice(0)) w();
      resolve({ code, ...out });
    }),
  );
  const printed = async (text: string): Promise<void> => {
    while (!out.stdout.includes(text)) {
      if (proc.exitCode !== null || proc.signalCode !== null)
        throw new Error(`dkc exited before printing ${JSON.stringify(text)}: ${JSON.stringify(out)}`);
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  return { proc, output: () => ({ code: proc.exitCode, ...out }), printed, exited };
}

let server: RunningServer;
let client: RestClient;
const ROLLOUTS = '/apis/dkc.io/v1alpha1/nodeconfigrollouts';

function dkc(...args: string[]): Promise<Result> {
  return launch([...args, '--kubeconfig', server.kubeconfig]).exited;
}

async function setStatus(name: string, status: RolloutStatus): Promise<void> {
  await client.patch(`${ROLLOUTS}/${name}/status`, 'merge', { status });
}

async function createRollout(name: string): Promise<void> {
  await client.create(ROLLOUTS, {
    apiVersion: 'dkc.io/v1alpha1',
    kind: 'NodeConfigRollout',
    metadata: { name },
    spec: {
      configSource: { configMap: { namespace: 'kube-system', name: 'node-config', kubeletConfigKey: 'kubelet' } },
      nodeSelector: {},
    },
  });
}

before(async () => {
  // The test plays the controller: the server's own must not drive these rollouts.
  server = await startServer(['--controllers=']);
  client = await RestClient.fromKubeconfig(server.kubeconfig);
  await client.create('/api/v1/namespaces/kube-system/configmaps', {
    metadata: { name: 'node-config', namespace: 'kube-system' },
    data: { kubelet: 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 50\n' },
  });
  for (const [name, pool] of [
    ['node-1', 'blue'],
    ['node-2', 'blue'],
    ['node-3', 'green'],
  ] as const) {
    await client.create('/api/v1/nodes', { metadata: { name, labels: { pool } } });
  }
});

after(async () => {
  for (const p of procs) p.kill('SIGKILL');
  client?.close();
  await server?.cleanup();
});

describe('dkc rollout start', () => {
  it('creates the NodeConfigRollout its flags describe', async () => {
    const r = await dkc(
      'rollout',
      'start',
      'blue-50',
      '--configmap',
      'kube-system/node-config',
      '--selector',
      'pool=blue',
      '--canary',
      '50%',
      '--max-unavailable',
      '2',
      '--soak',
      '30s',
      '--deadline',
      '2m',
      '--max-failures',
      '1',
      '--halt-on-failure',
      '--pause-after-canary',
      '--skip-incompatible',
    );
    assert.deepEqual(r, { code: 0, stdout: 'nodeconfigrollout.dkc.io/blue-50 created\n', stderr: '' });
    const obj = await client.get<NodeConfigRollout>(`${ROLLOUTS}/blue-50`);
    assert.deepEqual(obj.spec.configSource, {
      configMap: { namespace: 'kube-system', name: 'node-config', kubeletConfigKey: 'kubelet' },
    });
    assert.deepEqual(obj.spec.nodeSelector, { matchLabels: { pool: 'blue' } });
    assert.deepEqual(obj.spec.strategy, {
      canary: '50%',
      maxUnavailable: 2,
      soakSeconds: 30,
      pauseAfterCanary: true,
      skipIncompatible: true,
    });
    assert.equal(obj.spec.progressDeadlineSeconds, 120);
    assert.equal(obj.spec.maxFailures, 1);
    assert.equal(obj.spec.failurePolicy, 'Halt');
  });

  it('refuses, in one line and with the exit code of docs/errors.md, what cannot work', async () => {
    // 3 a flag it cannot use, 4 something it names is not there, 5 the server said no.
    const cases: [string[], number, string][] = [
      [['--configmap', 'kube-system/absent'], 4, 'error: configmap "absent" not found in namespace "kube-system"\n'],
      [
        ['--configmap', 'kube-system/node-config', '--key', 'config'],
        4,
        'error: configmap kube-system/node-config has no key "config" (it has: kubelet)\n',
      ],
      [
        ['--configmap', 'kube-system/node-config', '--selector', 'pool=red'],
        4,
        'error: no node matches the selector "pool=red"\n',
      ],
      [
        ['--configmap', 'kube-system/node-config', '--soak', '30'],
        3,
        'error: invalid argument "30" for "--soak" flag: time: missing unit in duration "30"\n',
      ],
      [
        ['--configmap', 'node-config'],
        3,
        'error: invalid argument "node-config" for "--configmap" flag: must be NAMESPACE/NAME\n',
      ],
      [
        ['--configmap', 'kube-system/node-config', '--selector', 'pool=blue'],
        5,
        'Error from server (AlreadyExists): nodeconfigrollouts.dkc.io "blue-50" already exists\n',
      ],
    ];
    for (const [flags, code, stderr] of cases) {
      const name = flags.includes('pool=blue') ? 'blue-50' : 'refused';
      assert.deepEqual(await dkc('rollout', 'start', name, ...flags), { code, stdout: '', stderr }, flags.join(' '));
    }
    await assert.rejects(client.get(`${ROLLOUTS}/refused`), /not found/);
    const missing = await dkc('rollout', 'start', 'x');
    assert.equal(missing.code, 3);
    assert.equal(missing.stderr, "error: required option '--configmap <namespace/name>' not specified\n");
  });
});

describe('dkc rollout pause, resume, undo', () => {
  it('patch spec.paused and spec.revert', async () => {
    await createRollout('knobs');
    const spec = async () => (await client.get<NodeConfigRollout>(`${ROLLOUTS}/knobs`)).spec;
    assert.deepEqual(await dkc('rollout', 'pause', 'knobs'), {
      code: 0,
      stdout: 'nodeconfigrollout.dkc.io/knobs paused\n',
      stderr: '',
    });
    assert.equal((await spec()).paused, true);
    assert.deepEqual(await dkc('rollout', 'resume', 'knobs'), {
      code: 0,
      stdout: 'nodeconfigrollout.dkc.io/knobs resumed\n',
      stderr: '',
    });
    assert.equal((await spec()).paused, false);
    assert.deepEqual(await dkc('rollout', 'undo', 'knobs'), {
      code: 0,
      stdout: 'nodeconfigrollout.dkc.io/knobs rolled back\n',
      stderr: '',
    });
    assert.equal((await spec()).revert, true);
  });

  it('name an unknown rollout as kubectl does, and exit 4 (not found)', async () => {
    for (const verb of ['pause', 'resume', 'undo', 'status']) {
      const r = await dkc('rollout', verb, 'nope');
      assert.deepEqual(
        r,
        { code: 4, stdout: '', stderr: 'Error from server (NotFound): nodeconfigrollouts.dkc.io "nope" not found\n' },
        verb,
      );
    }
  });
});

describe('dkc rollout list', () => {
  it('prints the printer columns as a table, finding the server through KUBECONFIG', async () => {
    await createRollout('listed');
    await setStatus('listed', {
      phase: 'Progressing',
      targetNodes: 3,
      updatedNodes: 2,
      succeededNodes: 1,
      failedNodes: 0,
    });
    const r = await launch(['rollout', 'list'], { KUBECONFIG: `/nonexistent:${server.kubeconfig}` }).exited;
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^NAME +PHASE +TARGET +UPDATED +SUCCEEDED +FAILED +AGE$/);
    assert.ok(
      lines.some((l) => /^listed +Progressing +3 +2 +1 +0 +\d+s$/.test(l)),
      r.stdout,
    );
    assert.equal(
      lines.indexOf(lines.find((l) => l.startsWith('blue-50'))!) <
        lines.indexOf(lines.find((l) => l.startsWith('listed'))!),
      true,
    );
  });

  it('says when there is no kubeconfig to use', async () => {
    const r = await launch(['rollout', 'list'], { HOME: '/nonexistent' }).exited;
    assert.equal(r.code, 3);
    assert.equal(
      r.stderr,
      'error: no kubeconfig found (/nonexistent/.kube/config): pass --kubeconfig or set KUBECONFIG\n',
    );
  });
});

const canary: RolloutStatus = {
  phase: 'Progressing',
  targetNodes: 2,
  updatedNodes: 1,
  succeededNodes: 0,
  failedNodes: 0,
  currentBatch: 0,
  nodes: { 'node-1': { state: 'InFlight', batch: 0 }, 'node-2': { state: 'Pending' } },
};

describe('dkc rollout status', () => {
  it('prints the current state once and exits by phase', async () => {
    await createRollout('once');
    await setStatus('once', canary);
    assert.deepEqual(await dkc('rollout', 'status', 'once'), {
      code: 2,
      stdout: 'canary started: node-1\nnodeconfigrollout "once" progressing (0 of 2 nodes succeeded)\n',
      stderr: '',
    });
    await setStatus('once', {
      phase: 'Halted',
      failedNodes: 1,
      failures: [{ node: 'node-1', reason: 'NotReady', message: 'node is not Ready' }],
    });
    const halted = await dkc('rollout', 'status', 'once');
    assert.equal(halted.code, 1);
    assert.match(
      halted.stdout,
      /^canary started: node-1\nnode node-1 failed \(NotReady\): node is not Ready\nnodeconfigrollout "once" halted \(0 of 2 nodes succeeded, 1 failed\)\n$/,
    );
    await setStatus('once', { phase: 'Succeeded' });
    assert.equal((await dkc('rollout', 'status', 'once')).code, 0);
  });

  it('--watch follows the rollout through its batches to Succeeded (exit 0)', async () => {
    await createRollout('watched');
    const w = launch(['rollout', 'status', 'watched', '--watch', '--kubeconfig', server.kubeconfig]);
    await w.printed('Waiting for nodeconfigrollout "watched" to start...\n');
    await setStatus('watched', canary);
    await w.printed('canary started: node-1\n');
    await setStatus('watched', {
      updatedNodes: 2,
      succeededNodes: 1,
      currentBatch: 1,
      nodes: { 'node-1': { state: 'Succeeded', batch: 0 }, 'node-2': { state: 'InFlight', batch: 1 } },
    });
    await w.printed('batch 1 started: node-2\n');
    await setStatus('watched', {
      phase: 'Succeeded',
      succeededNodes: 2,
      nodes: { 'node-2': { state: 'Succeeded', batch: 1 } },
    });
    const r = await w.exited;
    assert.deepEqual(r, {
      code: 0,
      stdout:
        'Waiting for nodeconfigrollout "watched" to start...\n' +
        'canary started: node-1\n' +
        'nodeconfigrollout "watched" progressing (0 of 2 nodes succeeded)\n' +
        'batch 1 started: node-2\n' +
        'nodeconfigrollout "watched" successfully rolled out (2 of 2 nodes succeeded)\n',
      stderr: '',
    });
  });

  it('--watch ends with exit 1 when the rollout is reverted', async () => {
    await createRollout('reverted');
    await setStatus('reverted', canary);
    const w = launch(['rollout', 'status', 'reverted', '-w', '--kubeconfig', server.kubeconfig]);
    await w.printed('progressing');
    await setStatus('reverted', {
      phase: 'Reverting',
      failedNodes: 1,
      failures: [
        { node: 'node-1', reason: 'ConfigError', message: 'failed to validate config, see Kubelet log for details' },
      ],
      conditions: [
        { type: 'Failed', status: 'True', reason: 'FailuresExceeded', message: '1 node failed, 0 tolerated' },
      ],
      nodes: { 'node-1': { state: 'Failed', batch: 0 } },
    });
    await w.printed('reverting');
    await setStatus('reverted', { phase: 'Reverted', nodes: { 'node-1': { state: 'Reverted', batch: 0 } } });
    const r = await w.exited;
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stdout,
      /node node-1 failed \(ConfigError\): failed to validate config, see Kubelet log for details\nnodeconfigrollout "reverted" reverting \(0 of 2 nodes succeeded, 1 failed\): 1 node failed, 0 tolerated\nnodeconfigrollout "reverted" reverted \(1 node restored\): 1 node failed, 0 tolerated\n$/,
    );
  });

  it('--watch after undo waits for Reverted instead of trusting the Succeeded from before it', async () => {
    await createRollout('undone');
    await setStatus('undone', { ...canary, phase: 'Succeeded', succeededNodes: 2 });
    assert.equal((await dkc('rollout', 'undo', 'undone')).code, 0);
    const w = launch(['rollout', 'status', 'undone', '--watch', '--kubeconfig', server.kubeconfig]);
    await w.printed('successfully rolled out');
    await setStatus('undone', { phase: 'Reverted', nodes: { 'node-1': { state: 'Reverted', batch: 0 } } });
    const r = await w.exited;
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /nodeconfigrollout "undone" reverted \(1 node restored\)\n$/);
  });

  it('--watch gives up after --timeout with exit 2', async () => {
    await createRollout('stuck');
    await setStatus('stuck', canary);
    const r = await dkc('rollout', 'status', 'stuck', '--watch', '--timeout', '1s');
    assert.equal(r.code, 2);
    assert.equal(r.stderr, 'error: timed out waiting for the condition\n');
    assert.match(r.stdout, /progressing \(0 of 2 nodes succeeded\)\n$/);
  });

  it('--watch draws a live progress bar on a terminal and clears it at the end', async () => {
    await createRollout('tty');
    await setStatus('tty', canary);
    const cmd = [process.execPath, dkcBin, 'rollout', 'status', 'tty', '--watch', '--kubeconfig', server.kubeconfig]
      .map((a) => `'${a}'`)
      .join(' ');
    const proc = spawn('script', ['-qefc', cmd, '/dev/null'], { stdio: ['ignore', 'pipe', 'pipe'] });
    procs.add(proc);
    let out = '';
    const exited = new Promise<number | null>((resolve) => proc.once('close', (code) => resolve(code)));
    const bar = new Promise<void>((resolve) =>
      proc.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('0/2 succeeded, 1 in flight, 0 failed  Progressing')) resolve();
      }),
    );
    await bar;
    await setStatus('tty', {
      phase: 'Succeeded',
      succeededNodes: 2,
      nodes: { 'node-1': { state: 'Succeeded', batch: 0 } },
    });
    assert.equal(await exited, 0);
    procs.delete(proc);
    assert.match(out, /\[\.+\] 0\/2 succeeded, 1 in flight, 0 failed {2}Progressing\r\x1b\[K/);
    assert.match(out, /\r\x1b\[Knodeconfigrollout "tty" successfully rolled out \(2 of 2 nodes succeeded\)\r?\n$/);
  });
});
