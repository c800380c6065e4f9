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
// An anchor and an alias: only the full YAML reader (the yaml package, its own script in the build) reads this.
const ANCHORED = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
kubeReserved: &reserved {cpu: 300m, memory: "2Gi"}
systemReserved: *reserved
providerID: |
  node-7
`;
const BAD = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nport: 70000\nhealthzPort: -1\n';

interface Outcome {
  codeCache: string;
  /** kc.yamlCodeCache() before and after reading ANCHORED. */
  yamlCodeCache: [string, string];
  anchored: string;
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
const yamlBefore = kc.yamlCodeCache();
const anchored = kc.toConfigzJSON(kc.load(${JSON.stringify(ANCHORED)}).config);
process.stdout.write(JSON.stringify({
  codeCache: kc.codeCache,
  yamlCodeCache: [yamlBefore, kc.yamlCodeCache()],
  anchored,
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
/** The two scripts' names without `.js`: the library's `bundle-<hash>` and the yaml package's `yaml-<hash>`. */
let bundle: string;
let yaml: string;
let reference: Outcome;

/** A directory holding the loader and both scripts, plus whatever `extra` writes (caches, or not). */
async function copyLoader(name: string, extra: (dir: string) => Promise<void>): Promise<string> {
  const dir = join(scratch, name);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir);
  await writeFile(join(dir, 'package.json'), '{"type":"module"}');
  for (const f of ['index.js', `${bundle}.js`, `${yaml}.js`]) await copyFile(join(LIB, f), join(dir, f));
  await extra(dir);
  return join(dir, 'index.js');
}

/** Copies `base`'s cache and its copy into `dir`, damaging the first (not the copy) when asked. */
async function copyCache(dir: string, base: string, damaged = false): Promise<void> {
  const cache = await readFile(join(LIB, `${base}.v8cache`));
  await writeFile(join(dir, `${base}.v8cache.copy`), cache);
  if (damaged) for (let i = 64; i < cache.length; i += 97) cache[i] = cache[i]! ^ 0x5a;
  await writeFile(join(dir, `${base}.v8cache`), cache);
}

function only(pattern: RegExp, files: string[]): string {
  const found = files.filter((f) => pattern.test(f));
  assert.equal(
    found.length,
    1,
    `expected one script matching ${pattern} in ${LIB} (run npm run build): ${found.join(', ')}`,
  );
  return found[0]!.slice(0, -'.js'.length);
}

before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'dkc-loader-'));
  const files = await readdir(LIB);
  bundle = only(/^bundle-[0-9a-f]{16}\.js$/, files);
  yaml = only(/^yaml-[0-9a-f]{16}\.js$/, files);
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
  assert.match(
    built.invalid,
    /^\[invalid configuration: healthzPort .*, invalid configuration: port \(--port\) 70000 must be between 1 and 65535, inclusive\]$/,
  );
});

test('the yaml package is loaded only for a document that needs it, from its own script and cache', async () => {
  const built = await run(join(LIB, 'index.js'));
  assert.deepEqual(built.yamlCodeCache, ['unused', 'accepted']);
  assert.deepEqual(reference.yamlCodeCache, ['none', 'none']);
  assert.equal(built.anchored, reference.anchored);
  assert.match(
    built.anchored,
    /"systemReserved":\{"cpu":"300m","memory":"2Gi"\},"kubeReserved":\{"cpu":"300m","memory":"2Gi"\}/,
  );
  assert.match(built.anchored, /"providerID":"node-7\\n"/);
});

test('each script is named by the hash of its text, so a cache only ever meets the source it was made from', async () => {
  for (const [prefix, base] of [
    ['bundle', bundle],
    ['yaml', yaml],
  ]) {
    const text = await readFile(join(LIB, `${base}.js`));
    assert.equal(`${prefix}-${createHash('sha256').update(text).digest('hex').slice(0, 16)}`, base);
  }
  // Both packed sources are strict-mode code: the directive must open each script's function body.
  for (const base of [bundle, yaml])
    assert.match(
      await readFile(join(LIB, `${base}.js`), 'utf8'),
      /^\(function \([\w, ]*\) \{\n(['"])use strict\1;/,
      base,
    );
  const caches = (await readdir(LIB)).filter((f) => f.includes('.v8cache')).sort();
  assert.deepEqual(caches, [`${bundle}.v8cache`, `${bundle}.v8cache.copy`, `${yaml}.v8cache`, `${yaml}.v8cache.copy`]);
});

test('without their caches both scripts are compiled as usual and compute the same', async () => {
  const entry = await copyLoader('absent', async () => {});
  const r = await run(entry);
  assert.deepEqual(r, { ...reference, codeCache: 'absent', yamlCodeCache: ['unused', 'absent'] });
});

test('a damaged cache differs from its copy and is not given to V8 (which would abort); the script is compiled instead', async () => {
  const library = await run(await copyLoader('damaged', (dir) => copyCache(dir, bundle, true)));
  assert.deepEqual(library, { ...reference, codeCache: 'rejected', yamlCodeCache: ['unused', 'absent'] });
  const yamlDamaged = await run(
    await copyLoader('damaged-yaml', async (dir) => {
      await copyCache(dir, bundle);
      await copyCache(dir, yaml, true);
    }),
  );
  assert.deepEqual(yamlDamaged, { ...reference, codeCache: 'accepted', yamlCodeCache: ['unused', 'rejected'] });
});

test('a cache without its copy is not used', async () => {
  const entry = await copyLoader('alone', async (dir) => {
    for (const base of [bundle, yaml]) await copyFile(join(LIB, `${base}.v8cache`), join(dir, `${base}.v8cache`));
  });
  const r = await run(entry);
  assert.deepEqual(r, { ...reference, codeCache: 'rejected', yamlCodeCache: ['unused', 'rejected'] });
});

test('V8 rejects the caches under flags that change code generation, and the scripts are compiled instead', async () => {
  const r = await run(join(LIB, 'index.js'), ['--max-old-space-size=256']);
  assert.deepEqual(r, { ...reference, codeCache: 'rejected', yamlCodeCache: ['unused', 'rejected'] });
});
