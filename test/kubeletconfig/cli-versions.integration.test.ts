// `dkc config … --kubelet-version`: the same file judged by two kubelets, the newest by default, defaults per
// kubelet, and a version the library does not know refused with the range it knows.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runDkc, type DkcRun } from '../helpers/dkc.js';

const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';

let dir: string;

function dkc(...args: string[]): Promise<DkcRun> {
  return runDkc(args, { cwd: dir });
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dkc-config-versions-'));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('validate: a field 1.30 added is unknown to 1.29 (a warning) and validated by 1.30 and the newest', async () => {
  const f = join(dir, 'workers.yaml');
  await writeFile(f, `${HEADER}containerLogMaxWorkers: 0\n`);
  assert.deepEqual(await dkc('config', 'validate', f, '--kubelet-version', '1.29'), {
    code: 0,
    stdout: '',
    stderr: `${f}: warning: unknown field "containerLogMaxWorkers"\n`,
  });
  const refusal = `${f}: invalid configuration: containerLogMaxWorkers must be greater than or equal to 1\n`;
  assert.deepEqual(await dkc('config', 'validate', f, '--kubelet-version', 'v1.30.2'), {
    code: 1,
    stdout: '',
    stderr: refusal,
  });
  assert.deepEqual(await dkc('config', 'validate', f), { code: 1, stdout: '', stderr: refusal });
});

test('validate: a gate the kubelet removed is the error that kubelet gives', async () => {
  const f = join(dir, 'gate.yaml');
  await writeFile(f, `${HEADER}featureGates:\n  DynamicKubeletConfig: true\n`);
  assert.equal((await dkc('config', 'validate', f, '--kubelet-version', '1.25')).code, 0);
  assert.deepEqual(await dkc('config', 'validate', f, '--kubelet-version', '1.26'), {
    code: 1,
    stdout: '',
    stderr: `${f}: unrecognized feature gate: DynamicKubeletConfig\n`,
  });
});

test('defaults and lint follow the kubelet version; an unknown version is refused', async () => {
  const d22 = await dkc('config', 'defaults', '--kubelet-version', '1.22');
  const d31 = await dkc('config', 'defaults', '--kubelet-version', '1.31');
  assert.match(d22.stdout, /^kubeAPIQPS: 5$/m);
  assert.doesNotMatch(d22.stdout, /podLogsDir/);
  assert.match(d31.stdout, /^kubeAPIQPS: 50$/m);
  assert.match(d31.stdout, /^podLogsDir: \/var\/log\/pods$/m);
  const f = join(dir, 'lint.yaml');
  await writeFile(f, `${HEADER}failCgroupV1: true\n`);
  const lint = await dkc('config', 'lint', f, '--kubelet-version', '1.31');
  assert.equal(lint.code, 0);
  assert.match(lint.stdout, /dangerous.*failCgroupV1/);
  const bad = await dkc('config', 'defaults', '--kubelet-version', '1.21');
  assert.equal(bad.code, 3, 'a kubelet version it has no table for is a usage error');
  assert.equal(bad.stderr, 'error: unsupported kubelet version "1.21": known versions are 1.22 to 1.36\n');
});
