// kubeletconfig/v1alpha1 payloads (the 1.8 alpha's KubeletConfiguration) decode as kubelet.config.k8s.io/v1beta1:
// renamed fields moved, 1.8's string forms turned into maps, dropped and unknown fields warned about, and the result
// defaulted and validated as v1beta1 (so `dkc config validate` takes them too).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decode, load, validate } from '../../src/kubeletconfig/index.js';

const ALPHA = 'apiVersion: kubeletconfig/v1alpha1\nkind: KubeletConfiguration\n';

describe('decode: kubeletconfig/v1alpha1', () => {
  test('kept fields keep their values; renamed ones move; no warnings for either', () => {
    const r = decode(
      `${ALPHA}eventRecordQPS: 7\nmaxPods: 50\npodManifestPath: /etc/manifests\nmanifestURL: http://x/m\n`,
    );
    assert.equal(r.config.eventRecordQPS, 7);
    assert.equal(r.config.maxPods, 50);
    assert.equal(r.config.staticPodPath, '/etc/manifests');
    assert.equal(r.config.staticPodURL, 'http://x/m');
    assert.deepEqual(r.warnings, []);
  });

  test('1.8’s renamed QoS reservation and its one-string manifest URL header; fields both versions have are kept', () => {
    const r = decode(
      `${ALPHA}experimentalQOSReserved: {memory: 50%}\nmanifestURLHeader: "X-Token:abc,X-Token:def,Accept:a/b"\nallowedUnsafeSysctls: [net.core.somaxconn]\nvolumePluginDir: /x\n`,
    );
    assert.deepEqual(r.config.qosReserved, { memory: '50%' });
    assert.deepEqual(r.config.staticPodURLHeader, { 'X-Token': ['abc', 'def'], Accept: ['a/b'] });
    assert.deepEqual(r.config.allowedUnsafeSysctls, ['net.core.somaxconn']);
    assert.equal(r.config.volumePluginDir, '/x');
    assert.deepEqual(r.warnings, []);
  });

  test('1.8 string forms: eviction thresholds and feature gates become maps', () => {
    const r = decode(
      `${ALPHA}evictionHard: "memory.available<100Mi,nodefs.available<10%"\nevictionSoftGracePeriod: "memory.available=30s"\nfeatureGates: "DynamicKubeletConfig=true,NodeSwap=false"\n`,
    );
    assert.deepEqual(r.config.evictionHard, { 'memory.available': '100Mi', 'nodefs.available': '10%' });
    assert.equal(r.config.evictionSoftGracePeriod?.['memory.available']?.toString(), '30s');
    assert.deepEqual(r.config.featureGates, { DynamicKubeletConfig: true, NodeSwap: false });
  });

  test('fields v1beta1 dropped and fields v1alpha1 never had are left out with a warning', () => {
    const r = decode(`${ALPHA}configTrialDuration: 10m\ncAdvisorPort: 4194\nstaticPodPath: /x\neventBurst: 20\n`);
    assert.equal(r.config.eventBurst, 20);
    assert.equal(r.config.staticPodPath, undefined);
    assert.deepEqual(r.warnings.map((w) => [w.code, w.path]).sort(), [
      ['DroppedField', 'cAdvisorPort'],
      ['DroppedField', 'configTrialDuration'],
      ['UnknownField', 'staticPodPath'],
    ]);
  });

  test('JSON as jq writes it (the 1.8 task relabels /configz output)', () => {
    const r = load(
      '{\n  "eventRecordQPS": 9,\n  "kind": "KubeletConfiguration",\n  "apiVersion": "kubeletconfig/v1alpha1"\n}\n',
    );
    assert.equal(r.config.eventRecordQPS, 9);
    assert.deepEqual(r.warnings, []);
  });

  test('type errors and validation errors are v1beta1’s', () => {
    assert.throws(() => decode(`${ALPHA}eventRecordQPS: many\n`), /v1beta1\.KubeletConfiguration\.EventRecordQPS/);
    const bad = validate(load(`${ALPHA}eventRecordQPS: -1\n`).config);
    assert.ok(
      bad.errors.some((e) => e.includes('eventRecordQPS')),
      bad.message,
    );
  });

  test('other kinds and versions of the old group are still refused', () => {
    assert.throws(
      () => decode('apiVersion: kubeletconfig/v1alpha2\nkind: KubeletConfiguration\n'),
      /no kind "KubeletConfiguration" is registered for version "kubeletconfig\/v1alpha2"/,
    );
  });
});

describe('dkc config validate: kubeletconfig/v1alpha1', () => {
  const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
  let dir = '';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dkc-alpha-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  function dkc(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((done) => {
      execFile(process.execPath, [join(ROOT, 'bin/dkc'), ...args], { cwd: dir }, (err, stdout, stderr) => {
        done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
      });
    });
  }

  test('accepted, printed as v1beta1, with the dropped field warned about', async () => {
    const f = join(dir, 'alpha.yaml');
    await writeFile(f, `${ALPHA}eventRecordQPS: 7\nconfigTrialDuration: 10m\n`);
    const r = await dkc('config', 'validate', f, '-o', 'json');
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    assert.equal(out['apiVersion'], 'kubelet.config.k8s.io/v1beta1');
    assert.equal(out['eventRecordQPS'], 7);
    assert.match(r.stderr, /warning: .*configTrialDuration/);
  });

  test('an invalid one fails as v1beta1 would', async () => {
    const f = join(dir, 'bad.yaml');
    await writeFile(f, `${ALPHA}eventRecordQPS: -1\n`);
    const r = await dkc('config', 'validate', f);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr + r.stdout, /eventRecordQPS/);
  });
});
