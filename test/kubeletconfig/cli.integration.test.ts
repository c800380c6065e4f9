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

async function file(name: string, content: string): Promise<string> {
  const p = join(dir, name);
  await writeFile(p, content);
  return p;
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dkc-config-'));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('a valid file: exit 0, nothing printed', async () => {
  const f = await file('good.yaml', `${HEADER}maxPods: 50\n`);
  assert.deepEqual(await dkc('config', 'validate', f), { code: 0, stdout: '', stderr: '' });
});

test('-o yaml / -o json print the effective config, flags applied', async () => {
  const f = await file('flags.yaml', `${HEADER}maxPods: 50\nstaticPodPath: manifests\n`);
  const y = await dkc('config', 'validate', f, '--flags', '--max-pods=60 --feature-gates=NodeSwap=true', '-o', 'yaml');
  assert.equal(y.code, 0, y.stderr);
  assert.match(y.stdout, /^maxPods: 60$/m);
  assert.match(y.stdout, /^ {2}NodeSwap: true$/m);
  assert.ok(
    y.stdout.includes(`staticPodPath: ${join(dir, 'manifests')}\n`),
    'relative paths resolved against the file directory',
  );
  const j = await dkc('config', 'validate', f, '-o', 'json');
  assert.equal(j.code, 0);
  const parsed = JSON.parse(j.stdout) as Record<string, unknown>;
  assert.equal(parsed['kind'], 'KubeletConfiguration');
  assert.equal(parsed['maxPods'], 50);
});

test('an invalid file: exit 1, one line per error, prefixed with the file name', async () => {
  const f = await file('bad.yaml', `${HEADER}maxPods: -1\nkubeAPIQPS: -2\nport: 70000\n`);
  const r = await dkc('config', 'validate', f);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, '');
  assert.deepEqual(r.stderr.trimEnd().split('\n'), [
    `${f}: invalid configuration: kubeAPIQPS (--kube-api-qps) -2 must not be a negative number`,
    `${f}: invalid configuration: maxPods (--max-pods) -1 must not be a negative number`,
    `${f}: invalid configuration: port (--port) 70000 must be between 1 and 65535, inclusive`,
  ]);
});

test('unknown fields warn on stderr but a valid config still exits 0', async () => {
  const f = await file('unknown.yaml', `${HEADER}maxPods: 10\nmaxPodz: 20\n`);
  const r = await dkc('config', 'validate', f);
  assert.equal(r.code, 0);
  assert.equal(r.stderr, `${f}: warning: unknown field "maxPodz", did you mean "maxPods"?\n`);
});

test('a decode error names the file, never its content, on one line', async () => {
  const f = await file('nokind.yaml', 'apiVersion: kubelet.config.k8s.io/v1beta1\nport: 10250\n');
  const r = await dkc('config', 'validate', f);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, `${f}: failed to decode: Object 'Kind' is missing in ${JSON.stringify(f)}\n`);
  const j = await file('dead.json', '{0xdeadbeef}');
  assert.equal(
    (await dkc('config', 'validate', j)).stderr,
    `${j}: failed to decode: couldn't get version/kind; json parse error: invalid character '0' looking for beginning of object key string\n`,
  );
});

test('start-up checks run too; bad flags and missing files fail', async () => {
  const f = await file('tls.yaml', `${HEADER}tlsMinVersion: TLS1.2\n`);
  const tls = await dkc('config', 'validate', f);
  assert.equal(tls.code, 1);
  assert.equal(tls.stderr, `${f}: unknown tls version "TLS1.2"\n`);

  // What the agent's start-up refuses beyond validation: an eviction signal the eviction manager does not know.
  const ev = await file('eviction.yaml', `${HEADER}evictionHard:\n  foo.bar: "10%"\n`);
  const evicted = await dkc('config', 'validate', ev);
  assert.equal(evicted.code, 1);
  assert.equal(evicted.stderr, `${ev}: unsupported eviction signal foo.bar\n`);
  const pct = await file('eviction-pct.yaml', `${HEADER}evictionHard:\n  memory.available: "120%"\n`);
  assert.equal(
    (await dkc('config', 'validate', pct)).stderr,
    `${pct}: eviction percentage threshold memory.available must be <= 100%: 120%\n`,
  );

  const g = await file('ok.yaml', HEADER);
  const flag = await dkc('config', 'validate', g, '--flags', '--max-pods=many');
  assert.equal(flag.code, 1);
  assert.equal(
    flag.stderr,
    `${g}: invalid argument "many" for "--max-pods" flag: strconv.ParseInt: parsing "many": invalid syntax\n`,
  );

  const gate = await dkc('config', 'validate', g, '--flags', '--feature-gates=NoSuchGate=true');
  assert.equal(gate.stderr, `${g}: unrecognized feature gate: NoSuchGate\n`);

  const missing = await dkc('config', 'validate', join(dir, 'absent.yaml'));
  assert.equal(missing.code, 3, 'a file it cannot read is a usage error');
  assert.match(missing.stderr, /absent\.yaml: failed to read kubelet config file ".*absent\.yaml", error: ENOENT/);

  const empty = await file('empty.yaml', '');
  assert.equal(
    (await dkc('config', 'validate', empty)).stderr,
    `${empty}: kubelet config file ${JSON.stringify(empty)} was empty\n`,
  );
});

test('dkc config defaults prints a complete config that validates', async () => {
  const r = await dkc('config', 'defaults');
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^kind: KubeletConfiguration$/m);
  assert.match(r.stdout, /^port: 10250$/m);
  assert.match(r.stdout, /^syncFrequency: 1m0s$/m);
  const f = await file('defaults.yaml', r.stdout);
  assert.deepEqual(await dkc('config', 'validate', f), { code: 0, stdout: '', stderr: '' });
});

test('an unknown output format is a usage error', async () => {
  const f = await file('fmt.yaml', HEADER);
  const r = await dkc('config', 'validate', f, '-o', 'xml');
  assert.equal(r.code, 3);
  assert.match(r.stderr, /xml/);
});
