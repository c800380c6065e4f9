// kubectl's kubeconfig loading rules: --kubeconfig alone, else KUBECONFIG's files merged (first wins, missing files
// skipped, relative paths kept relative to their own file), else ~/.kube/config.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeconfigPaths, loadClientConfig } from '../../src/client/loadingrules.js';

const root = mkdtempSync(join(tmpdir(), 'dkc-loadingrules-'));
after(() => rmSync(root, { recursive: true, force: true }));

function kubeconfig(dir: string, name: string, server: string, extra: { current?: string; ca?: string } = {}): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      ...(extra.current ? [`current-context: ${extra.current}`] : []),
      'clusters:',
      `- name: c-${name}`,
      '  cluster:',
      `    server: ${server}`,
      ...(extra.ca ? [`    certificate-authority: ${extra.ca}`] : []),
      'contexts:',
      `- name: ctx-${name}`,
      '  context:',
      `    cluster: c-${name}`,
      'users: []',
    ].join('\n'),
  );
  return path;
}

describe('kubeconfigPaths', () => {
  it('prefers --kubeconfig, then KUBECONFIG (":"-separated, deduplicated), then ~/.kube/config', () => {
    assert.deepEqual(kubeconfigPaths({ explicitPath: '/a', env: '/b', home: '/h' }), ['/a']);
    assert.deepEqual(kubeconfigPaths({ env: '/b::/c:/b', home: '/h' }), ['/b', '/c']);
    assert.deepEqual(kubeconfigPaths({ env: '', home: '/h' }), ['/h/.kube/config']);
  });
});

describe('loadClientConfig', () => {
  it('merges the KUBECONFIG files, the first current-context winning, and skips missing ones', async () => {
    const a = kubeconfig(join(root, 'a'), 'one', 'https://127.0.0.1:1111');
    const b = kubeconfig(join(root, 'b'), 'two', 'https://127.0.0.1:2222', { current: 'ctx-two' });
    const c = kubeconfig(join(root, 'c'), 'three', 'https://127.0.0.1:3333', { current: 'ctx-three' });
    const cfg = await loadClientConfig({ env: [join(root, 'missing'), a, b, c].join(':'), home: root });
    assert.equal(cfg.server, 'https://127.0.0.1:2222');
    assert.equal(
      (await loadClientConfig({ env: [a, b].join(':'), home: root, context: 'ctx-one' })).server,
      'https://127.0.0.1:1111',
    );
  });

  it('resolves relative file references against the file that holds them', async () => {
    const dir = join(root, 'rel');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'ca.crt'), 'PEM-CA');
    const k = kubeconfig(dir, 'rel', 'https://127.0.0.1:4444', { current: 'ctx-rel', ca: 'ca.crt' });
    const other = kubeconfig(join(root, 'other'), 'other', 'https://127.0.0.1:5555');
    assert.equal((await loadClientConfig({ env: [other, k].join(':'), home: root, context: 'ctx-rel' })).ca, 'PEM-CA');
  });

  it('reads ~/.kube/config without flag or variable, and says so when there is nothing to read', async () => {
    const home = join(root, 'home');
    kubeconfig(join(home, '.kube'), 'config', 'https://127.0.0.1:6666', { current: 'ctx-config' });
    assert.equal((await loadClientConfig({ home })).server, 'https://127.0.0.1:6666');
    await assert.rejects(
      loadClientConfig({ home: join(root, 'nobody') }),
      /no kubeconfig found \(.*nobody\/\.kube\/config\): pass --kubeconfig or set KUBECONFIG/,
    );
    await assert.rejects(
      loadClientConfig({ explicitPath: join(root, 'absent'), env: kubeconfig(root, 'x', 'https://127.0.0.1:1'), home }),
      /cannot read kubeconfig .*absent/,
    );
  });
});
