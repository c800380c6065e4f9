// The rendered ConfigMap's suffix is kubectl's --append-hash suffix: each case is given to real kubectl 1.32
// (`create configmap --append-hash --dry-run=client -o json`, no server needed) and our hash of the data kubectl
// put in the object must be the suffix kubectl put on its name. The cases reach Go's JSON escapes and key order.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ConfigMap } from '../../../src/api/types.js';
import { configMapHash, goJSON } from '../../../src/controllers/rollout/confighash.js';
import { kubectlPath } from '../../helpers/kubectl.js';

const run = promisify(execFile);

async function kubectlConfigMap(args: string[]): Promise<ConfigMap> {
  const { stdout } = await run(
    kubectlPath('1.32'),
    ['create', 'configmap', 'x', ...args, '--append-hash', '--dry-run=client', '-o', 'json'],
    {
      env: { ...process.env, KUBECONFIG: '/dev/null' },
    },
  );
  return JSON.parse(stdout) as ConfigMap;
}

describe('configMapHash', () => {
  it('is the suffix of a name kubectl 1.32 produced (recorded)', () => {
    assert.equal(configMapHash({ metadata: { name: 'x' }, data: { k: 'v' } }), 'fh8bth4d7m');
    const data = { a: '<b>&c', kubelet: 'kind: KubeletConfiguration\nmaxPods: 50\n' };
    assert.equal(configMapHash({ metadata: { name: 'x' }, data }), '7bfkkbc2k8');
  });

  it('agrees with real kubectl on escapes, key order, unicode and binary data', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dkc-hash-'));
    try {
      await writeFile(join(dir, 'bin'), Buffer.from([0xff, 0x00, 0xfe, 0x80]));
      const cases: string[][] = [
        ['--from-literal=k=v'],
        ['--from-literal=Z=1', '--from-literal=a=2', '--from-literal=_=3', '--from-literal=B.b=4'],
        ['--from-literal=html=<script>&amp;</script>', '--from-literal=quote="\\\'\\\\'],
        ['--from-literal=ctl=tab\there\r\nand\u0001\u001f\b\f', '--from-literal=sep=a\u2028b\u2029c'],
        ['--from-literal=uni=größe ✓ 日本 😀'],
        [`--from-file=blob=${join(dir, 'bin')}`, '--from-literal=text=t'],
      ];
      for (const args of cases) {
        const cm = await kubectlConfigMap(args);
        const name = cm.metadata.name ?? '';
        const suffix = name.slice(name.lastIndexOf('-') + 1);
        assert.equal(
          configMapHash({ ...cm, metadata: { name: 'x' } }),
          suffix,
          `kubectl ${args.join(' ')} named it ${name}`,
        );
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('counts immutable, as kubectl does when the object sets it', () => {
    const cm = { metadata: { name: 'x' }, data: { k: 'v' } };
    assert.notEqual(configMapHash({ ...cm, immutable: true }), configMapHash(cm));
    assert.equal(
      goJSON({ kind: 'ConfigMap', immutable: true, data: { k: 'v' }, name: 'x' }),
      '{"data":{"k":"v"},"immutable":true,"kind":"ConfigMap","name":"x"}',
    );
  });
});
