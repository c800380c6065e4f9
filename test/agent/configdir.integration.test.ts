// The agent's --config-dir, as the kubelet's (KEP-3983): *.conf files in file-name order merged over --config, other
// files skipped; an invalid merged config or an empty drop-in stops the start with exit status 1 and the kubelet's
// words.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDropIns } from '../../src/agent/configdir.js';
import { runDkc } from '../helpers/dkc.js';

const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function node(dropIns: Record<string, string>): Promise<{ dir: string; config: string; confD: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'dkc-confd-'));
  dirs.push(dir);
  const config = join(dir, 'config.yaml');
  await writeFile(config, `${HEADER}eventRecordQPS: 1\n`);
  const confD = join(dir, 'conf.d');
  await mkdir(join(confD, 'sub'), { recursive: true });
  for (const [name, body] of Object.entries(dropIns)) await writeFile(join(confD, name), body);
  return { dir, config, confD };
}

describe('dkc agent --config-dir', () => {
  it('reads *.conf files in file-name order, into sub-directories, skipping other files', async () => {
    const { confD } = await node({
      '20-b.conf': `${HEADER}eventRecordQPS: 4\n`,
      '10-a.conf': `${HEADER}eventRecordQPS: 3\n`,
      'sub/30-c.conf': HEADER,
      'notes.txt': 'x',
      '05.conf.bak': 'x',
    });
    assert.deepEqual(
      (await readDropIns(confD)).map((d) => d.relative),
      ['10-a.conf', '20-b.conf', 'sub/30-c.conf'],
    );
    assert.deepEqual(await readDropIns(join(confD, 'missing')), [], 'a missing directory has no drop-ins');
  });

  it('exits 1 with the validation error when a drop-in makes the config invalid', async () => {
    const { dir, config, confD } = await node({ '10-bad.conf': `${HEADER}kubeAPIQPS: -1\n` });
    const r = await runDkc(
      ['agent', `--config=${config}`, `--config-dir=${confD}`, `--root-dir=${dir}`, '--port=0', '--healthz-port=0'],
      { timeoutMs: 20_000 },
    );
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      /^dkc agent: failed to validate the local kubelet configuration \(file\): invalid configuration: kubeAPIQPS \(--kube-api-qps\) -1 must not be a negative number/m,
    );
  });

  it("exits 1 naming an empty drop-in in the kubelet's words", async () => {
    const { dir, config, confD } = await node({ '10-empty.conf': '' });
    const r = await runDkc(
      ['agent', `--config=${config}`, `--config-dir=${confD}`, `--root-dir=${dir}`, '--port=0', '--healthz-port=0'],
      { timeoutMs: 20_000 },
    );
    assert.equal(r.code, 1, r.stderr);
    const path = join(confD, '10-empty.conf');
    assert.ok(
      r.stderr.includes(
        `dkc agent: failed to merge kubelet configs: failed to walk through kubelet dropin directory ${JSON.stringify(confD)}: failed to load kubelet dropin file, path: ${path}, error: kubelet config file ${JSON.stringify(path)} was empty`,
      ),
      r.stderr,
    );
  });
});
