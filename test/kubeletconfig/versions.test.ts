// The per-minor tables and the code that applies them: the generated 1.22 table states what the hand-written 1.22
// codec does, every field of every table has a lint class, 1.22 through kubeletVersion() is the library's own code
// bit for bit, and version text is read as operators write it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  encode,
  FIELD_NAMES,
  KUBELET_VERSIONS,
  kubeletVersion,
  KubeletVersionError,
  NEWEST_KUBELET_VERSION,
  parseKubeletVersion,
  safetyOf,
  setDefaults,
  validate,
} from '../../src/kubeletconfig/index.js';
import { kubeletConfigurationSpec, type StructSpec } from '../../src/kubeletconfig/codec.js';

test('versions run from 1.22 to the newest table, one a minor', () => {
  assert.equal(KUBELET_VERSIONS[0], '1.22');
  assert.equal(NEWEST_KUBELET_VERSION, '1.36');
  assert.equal(KUBELET_VERSIONS.length, 15);
  for (const v of KUBELET_VERSIONS) assert.equal(kubeletVersion(v).table().version, v);
});

test('the generated 1.22 table states what the hand-written 1.22 codec decodes and encodes', () => {
  const flat = (spec: StructSpec, prefix: string, out: string[]) => {
    for (const f of spec.fields) {
      const path = prefix === '' ? f.json : `${prefix}.${f.json}`;
      out.push(`${path} ${f.go} ${f.kind} ${f.ptr ? 'p' : ''}${f.always && f.kind !== 'struct' ? 'a' : ''}`);
      if (f.struct) flat(f.struct, f.kind === 'struct' ? path : `${path}[]`, out);
    }
    return out;
  };
  // The codec writes every struct that is not a pointer whatever its tag says, so `a` on a struct changes nothing.
  const fromTable = kubeletVersion('1.22')
    .table()
    .fields.map(
      ([path, go, kind, flags]) => `${path} ${go} ${kind} ${kind === 'struct' ? flags.replace('a', '') : flags}`,
    );
  assert.deepEqual(fromTable, flat(kubeletConfigurationSpec, '', []));
});

test('every field of every minor has a lint class', () => {
  for (const v of KUBELET_VERSIONS) {
    const missing = kubeletVersion(v)
      .fieldNames()
      .filter((f) => safetyOf(f) === undefined);
    assert.deepEqual(missing, [], `kubelet ${v} has fields without a safety class`);
  }
});

test('1.22 through kubeletVersion is the library itself', () => {
  const kv = kubeletVersion('1.22');
  assert.equal(kv.encode(kv.defaults()), encode(setDefaults({})));
  assert.deepEqual(kv.fieldNames(), FIELD_NAMES);
  const bad = setDefaults({ maxPods: -1, featureGates: { NodeSwap: true } });
  assert.deepEqual(kv.validate(bad), validate(bad));
});

test('later minors: new fields, changed defaults, gates', () => {
  const k27 = kubeletVersion('1.27').defaults();
  assert.equal(k27.kubeAPIQPS, 50);
  assert.equal(k27.eventBurst, 100);
  assert.equal(k27['containerRuntimeEndpoint'], 'unix:///run/containerd/containerd.sock');
  assert.equal(kubeletVersion('1.26').defaults().kubeAPIQPS, 5);
  assert.equal(kubeletVersion('1.31').fields().get('failCgroupV1')?.since, '1.31');
  assert.equal(kubeletVersion('1.35').defaults()['failCgroupV1'], true);
  // resolvConf became a pointer in 1.23: an explicit "" survives defaulting there, not in 1.22.
  const empty = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nresolvConf: ""\n';
  assert.equal(kubeletVersion('1.22').load(empty).config.resolvConf, '/etc/resolv.conf');
  assert.equal(kubeletVersion('1.23').load(empty).config.resolvConf, '');
  assert.equal(kubeletVersion('1.30').featureGates().knows('DynamicKubeletConfig'), false);
  assert.equal(kubeletVersion('1.25').featureGates().knows('DynamicKubeletConfig'), true);
  // A minor encodes the fields it knows and keeps them through a round trip.
  const kv = kubeletVersion('1.32');
  const text = kv.encode(
    kv.load('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncontainerLogMaxWorkers: 3\n')
      .config,
  );
  assert.match(text, /^containerLogMaxWorkers: 3$/m);
  assert.doesNotMatch(kubeletVersion('1.22').encode(kv.defaults()), /containerLogMaxWorkers/);
});

test('unknownFields names what a minor does not know, map keys aside', () => {
  const cfg = {
    maxPods: 10,
    evictionHard: { 'memory.available': '1Gi' },
    podLogsDir: '/x',
    crashLoopBackOff: { maxContainerRestartPeriod: '10s' },
  };
  assert.deepEqual(kubeletVersion('1.29').unknownFields(cfg), [
    'podLogsDir',
    'crashLoopBackOff',
    'crashLoopBackOff.maxContainerRestartPeriod',
  ]);
  assert.deepEqual(kubeletVersion('1.32').unknownFields(cfg), []);
});

test('version text: 1.31, v1.31, v1.31.4; anything else is refused with the range', () => {
  assert.equal(parseKubeletVersion('1.31'), '1.31');
  assert.equal(parseKubeletVersion('v1.31.4'), '1.31');
  assert.equal(kubeletVersion('v1.30.0').gitVersion, 'v1.30.0');
  assert.throws(
    () => parseKubeletVersion('1.21'),
    (e: unknown) => e instanceof KubeletVersionError && /known versions are 1\.22 to 1\.36/.test(e.message),
  );
  assert.throws(() => parseKubeletVersion('latest'), KubeletVersionError);
  assert.strictEqual(kubeletVersion('1.31'), kubeletVersion('v1.31.2'));
});
