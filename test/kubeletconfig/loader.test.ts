// The build's loader for the library (scripts/bundle.mjs): one script compiled with V8's code cache. Each case runs
// in a fresh node process, as the agent does on a restart, and compares what the loaded library computes with
// tsc's separate modules (index.modules.js). Copies go to a temporary directory; dist/ is never modified.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// dist/test/kubeletconfig/loader.test.js → dist/src/kubeletconfig
const LIB = resolve(dirname(fileURLToPath(import.meta.url)), '../../src/kubeletconfig');

const CONFIG = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
maxPods: 150
kubeReserved: {cpu: 200m, memory: "1Gi"}
reservedMemory:
- numaNode: 0
  limits:
    memory: 1124Mi
staticPodPath: manifests
evictionHard:
  memory.available: 5%
`;
const BAD = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nport: 70000\nhealthzPort: -1\n';

interface Outcome {
  codeCache: string;
  exports: string[];
  configz: string;
  invalid: string;
}

/** Imports `entry` in a fresh process and reports what the library computes for CONFIG and BAD. */
function run(entry: string, nodeFlags: string[] = []): Promise<Outcome> {
  const script = `
const kc = await import(${JSON.stringify(pathToFileURL(entry).href)});
const { config } = kc.load(${JSON.stringify(CONFIG)}, { dir: '/etc/kubernetes' });
const bad = kc.load(${JSON.stringify(BAD)});
process.stdout.write(JSON.stringify({
  codeCache: kc.codeCache,
  exports: Object.keys(kc).sort(),
  configz: kc.toConfigzJSON(config),
  invalid: kc.validate(bad.config).message,
}));`;
  return new Promise((done, fail) => {
    execFile(process.execPath, [...nodeFlags, '--input-type=module', '-e', script], (err, stdout, stderr) => {
      if (err) fail(new Error(`${entry}: ${stderr || err.message}`));
      else done(JSON.parse(stdout) as Outcome);
    });
  });
}

let scratch: string;
let bundle: string;
let reference: Outcome;

/** A directory holding the loader and its script, plus whatever `extra` writes (the cache, or not). */
async function copyLoader(name: string, extra: (dir: string) => Promise<void>): Promise<string> {
  const dir = join(scratch, name);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir);
  await writeFile(join(dir, 'package.json'), '{"type":"module"}');
  await copyFile(join(LIB, 'index.js'), join(dir, 'index.js'));
  await copyFile(join(LIB, `${bundle}.js`), join(dir, `${bundle}.js`));
  await extra(dir);
  return join(dir, 'index.js');
}

before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'dkc-loader-'));
  const scripts = (await readdir(LIB)).filter((f) => /^bundle-[0-9a-f]{16}\.js$/.test(f));
  assert.equal(scripts.length, 1, `expected one bundle script in ${LIB} (run npm run build): ${scripts.join(', ')}`);
  bundle = scripts[0]!.slice(0, -'.js'.length);
  reference = await run(join(LIB, 'index.modules.js'));
});

after(async () => {
  await rm(scratch, { recursive: true, force: true });
});

test('the built library loads its code from the cache and computes what the separate modules compute', async () => {
  const built = await run(join(LIB, 'index.js'));
  assert.equal(built.codeCache, 'accepted');
  assert.equal(reference.codeCache, 'none');
  assert.deepEqual(built.exports, reference.exports);
  assert.equal(built.configz, reference.configz);
  assert.match(built.configz, /"maxPods":150/);
  assert.match(built.configz, /"staticPodPath":"\/etc\/kubernetes\/manifests"/);
  assert.equal(built.invalid, reference.invalid);
  assert.match(built.invalid, /^\[invalid configuration: healthzPort .*, invalid configuration: port \(--port\) 70000 must be between 1 and 65535, inclusive\]$/);
});

test('the script is named by the hash of its text, so a cache only ever meets the source it was made from', async () => {
  const text = await readFile(join(LIB, `${bundle}.js`));
  assert.equal(`bundle-${createHash('sha256').update(text).digest('hex').slice(0, 16)}`, bundle);
  const caches = (await readdir(LIB)).filter((f) => f.includes('.v8cache')).sort();
  assert.deepEqual(caches, [`${bundle}.v8cache`, `${bundle}.v8cache.copy`]);
});

test('without its cache the library is compiled as usual and computes the same', async () => {
  const entry = await copyLoader('absent', async () => {});
  const r = await run(entry);
  assert.equal(r.codeCache, 'absent');
  assert.deepEqual(r, { ...reference, codeCache: 'absent' });
});

test('a damaged cache differs from its copy and is not given to V8 (which would abort); the library is compiled instead', async () => {
  const entry = await copyLoader('damaged', async (dir) => {
    const cache = await readFile(join(LIB, `${bundle}.v8cache`));
    await writeFile(join(dir, `${bundle}.v8cache.copy`), cache);
    for (let i = 64; i < cache.length; i += 97) cache[i] = cache[i]! ^ 0x5a;
    await writeFile(join(dir, `${bundle}.v8cache`), cache);
  });
  const r = await run(entry);
  assert.equal(r.codeCache, 'rejected');
  assert.deepEqual(r, { ...reference, codeCache: 'rejected' });
});

test('a cache without its copy is not used', async () => {
  const entry = await copyLoader('alone', (dir) => copyFile(join(LIB, `${bundle}.v8cache`), join(dir, `${bundle}.v8cache`)));
  const r = await run(entry);
  assert.equal(r.codeCache, 'rejected');
  assert.deepEqual(r, { ...reference, codeCache: 'rejected' });
});

test('V8 rejects the cache under flags that change code generation, and the library is compiled instead', async () => {
  const r = await run(join(LIB, 'index.js'), ['--max-old-space-size=256']);
  assert.equal(r.codeCache, 'rejected');
  assert.deepEqual(r, { ...reference, codeCache: 'rejected' });
});
