// deploy/nodeconfig/default-policy.yaml, the NodeConfigPolicy shipped as the default: run in-process through the
// same decision dkc server's admission and the node's agent or daemon run (src/nodepolicy), it refuses a change to the
// fields that make a kubelet config root on its node (staticPod*, authentication.*, authorization.*, tls*) and lets
// every other field change, on every node without the opt-out label. Its allow-list is every field of kubelet 1.22 to
// the newest minor but those, checked here against the schemas so that a new minor's field is added deliberately.
// (That dkc server accepts the object is checked with kubectl in nodeconfig.e2e.test.ts.)

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import type { KubeObject } from '../../src/api/types.js';
import { KUBELET_VERSIONS, NEWEST_KUBELET_VERSION, kubeletVersion } from '../../src/kubeletconfig/index.js';
import { kubeletConfigurationSpec } from '../../src/kubeletconfig/codec.js';
import { evaluate } from '../../src/nodepolicy/evaluate.js';
import { effectiveChange } from '../../src/nodepolicy/flags.js';
import { readPolicy } from '../../src/nodepolicy/spec.js';
import { repoRoot } from '../helpers/paths.js';

const FILE = join(repoRoot, 'deploy/nodeconfig/default-policy.yaml');
const OPT_OUT = 'node-restriction.kubernetes.io/dkc-privileged-config';
const PRIVILEGED = (field: string) =>
  /^(staticPod|tls)/.test(field) || ['authentication', 'authorization'].includes(field);

const loadPolicy = async () =>
  parse(await readFile(FILE, 'utf8')) as KubeObject & { spec: { allowedFields: string[] } };

const newest = kubeletVersion(NEWEST_KUBELET_VERSION);
const config = (yaml: string) =>
  newest.load(`apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n${yaml}`).config;

describe('deploy/nodeconfig/default-policy.yaml', () => {
  it('allows every KubeletConfiguration field of every supported minor but the privileged ones', async () => {
    const kinds = new Map(kubeletConfigurationSpec.fields.map((f) => [f.json, f.kind as string]));
    for (const v of KUBELET_VERSIONS) {
      const kv = kubeletVersion(v);
      for (const f of kv.fieldNames()) if (!kinds.has(f)) kinds.set(f, kv.fields().get(f)!.kind);
    }
    const expected = [...kinds]
      .filter(([f]) => !PRIVILEGED(f))
      .flatMap(([f, kind]) => (kind === 'struct' || kind.endsWith('Map') ? [f, `${f}.*`] : [f]));
    const policy = await loadPolicy();
    assert.deepEqual([...policy.spec.allowedFields].sort(), expected.sort());
    assert.equal(policy.spec['enforcement' as never], 'Deny');
  });

  const rows: { what: string; target: string; labels?: Record<string, string>; denied: string[] }[] = [
    { what: 'a staticPodURL', target: 'staticPodURL: http://attacker.example/pods\n', denied: ['staticPodURL'] },
    { what: 'a staticPodPath', target: 'staticPodPath: /tmp/pods\n', denied: ['staticPodPath'] },
    {
      what: 'anonymous authentication',
      target: 'authentication:\n  anonymous:\n    enabled: true\n',
      denied: ['authentication.anonymous.enabled'],
    },
    {
      what: 'AlwaysAllow authorization',
      target: 'authorization:\n  mode: AlwaysAllow\n',
      denied: ['authorization.mode'],
    },
    { what: 'a TLS key', target: 'tlsPrivateKeyFile: /tmp/key.pem\n', denied: ['tlsPrivateKeyFile'] },
    { what: 'maxPods', target: 'maxPods: 80\n', denied: [] },
    { what: 'an eviction threshold (a map)', target: 'evictionHard:\n  memory.available: 300Mi\n', denied: [] },
    { what: 'a field of a later minor', target: 'singleProcessOOMKill: true\n', denied: [] },
    {
      what: 'a staticPodURL on a node an administrator labelled',
      target: 'staticPodURL: http://pods.example/\n',
      labels: { [OPT_OUT]: 'allowed' },
      denied: [],
    },
  ];
  for (const r of rows) {
    it(`${r.what}: ${r.denied.length ? 'denied' : 'allowed'}`, async () => {
      const policy = readPolicy(await loadPolicy());
      const change = effectiveChange(config(''), config(r.target), undefined);
      const found = evaluate([policy], r.labels ?? { 'kubernetes.io/hostname': 'node-1' }, change, newest.schema());
      assert.deepEqual(
        found.map((v) => [v.policy, v.path, v.reason.kind, v.enforcement]),
        r.denied.map((p) => ['dkc.io-privileged-fields', p, 'not-allowed', 'Deny']),
      );
    });
  }
});
