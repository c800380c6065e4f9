// The daemon's header on the kubelet file it writes: it round-trips the source and tells a whole file from an
// edited one; a starting daemon whose records are gone rebuilds them from a whole file of its own and never keeps its
// own file as the node's original (drop-in mode: the node had none; replace mode: the node's own is lost).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeletVersion } from '../../src/kubeletconfig/index.js';
import { DaemonFiles, ORIGINAL_FILE, DAEMON_DIR } from '../../src/nodedaemon/files.js';
import { planLeftover, readHeader, withHeader } from '../../src/nodedaemon/ownership.js';

const SRC = {
  configMap: { namespace: 'kube-system', name: 'good', uid: 'u-1', resourceVersion: '42', kubeletConfigKey: 'kubelet' },
};
const PAYLOAD = Buffer.from('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 90\n');

describe('node daemon: its own kubelet file, known by its header', () => {
  it('the header round-trips the source, is a comment to the kubelet, and an edit shows', () => {
    const file = withHeader(SRC, PAYLOAD);
    const own = readHeader(file);
    assert.deepEqual(own?.source, SRC);
    assert.equal(own?.intact, true);
    assert.deepEqual(Buffer.from(own.payload), PAYLOAD);
    const k = kubeletVersion('1.31');
    assert.equal(k.mergeLayers([{ bytes: file, name: 'f' }]).config.maxPods, 90);
    // A JSON payload under the header decodes too.
    const json = withHeader(
      SRC,
      Buffer.from('{"kind":"KubeletConfiguration","apiVersion":"kubelet.config.k8s.io/v1beta1","maxPods":7}'),
    );
    assert.equal(k.mergeLayers([{ bytes: json, name: 'f' }]).config.maxPods, 7);
    const edited = Buffer.from(Buffer.from(file).toString('utf8').replace('maxPods: 90', 'maxPods: 91'));
    assert.equal(readHeader(edited)?.intact, false);
    for (const [what, content] of [
      ['no file', undefined],
      ["the node's own file", PAYLOAD],
      [
        'a damaged header',
        Buffer.from(Buffer.from(file).toString('utf8').replace('# dkc.io/source: {', '# dkc.io/source: [')),
      ],
      ['a header cut short', Buffer.from('# Written by dkc node-daemon from x')],
    ] as const)
      assert.equal(readHeader(content), undefined, what);
  });

  it('a starting daemon without records: rebuilds from a whole file of its own, never from anything else', () => {
    const whole = withHeader(SRC, PAYLOAD);
    const edited = Buffer.from(Buffer.from(whole).toString('utf8').replace('90', '91'));
    const table: [string, Parameters<typeof planLeftover>[0], string, boolean?][] = [
      ['records there', { mode: 'dropin', hasAssigned: true, hasOriginal: true, current: whole }, 'none'],
      ['an original kept', { mode: 'dropin', hasAssigned: false, hasOriginal: true, current: whole }, 'none'],
      ["the node's own file", { mode: 'dropin', hasAssigned: false, hasOriginal: false, current: PAYLOAD }, 'none'],
      ['no file', { mode: 'dropin', hasAssigned: false, hasOriginal: false, current: undefined }, 'none'],
      ['wiped, drop-in', { mode: 'dropin', hasAssigned: false, hasOriginal: false, current: whole }, 'rebuild', true],
      ['wiped, replace', { mode: 'replace', hasAssigned: false, hasOriginal: false, current: whole }, 'rebuild', false],
      ['wiped and edited', { mode: 'dropin', hasAssigned: false, hasOriginal: false, current: edited }, 'edited', true],
    ];
    for (const [what, input, kind, absent] of table) {
      const plan = planLeftover(input);
      assert.equal(plan.kind, kind, what);
      if (plan.kind !== 'none') assert.equal(plan.originalAbsent, absent, what);
    }
  });

  it("keepOriginal never keeps the daemon's own file as the node's", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dkc-own-'));
    try {
      const path = join(dir, '90-dkc.conf');
      await writeFile(path, withHeader(SRC, PAYLOAD));
      const files = new DaemonFiles(join(dir, 'state'));
      await files.initialize();
      assert.equal(await files.keepOriginal(path, 'replace'), false, 'replace mode: the node own file is lost');
      assert.equal(await files.original(path), undefined);
      assert.equal(await files.keepOriginal(path, 'dropin'), true);
      assert.deepEqual(await files.original(path), { absent: true });
      const own = join(dir, 'config.yaml');
      await writeFile(own, PAYLOAD);
      assert.equal(await files.keepOriginal(own, 'replace'), true);
      const record = JSON.parse(await readFile(join(dir, 'state', DAEMON_DIR, ORIGINAL_FILE), 'utf8')) as {
        files: Record<string, { data?: string }>;
      };
      assert.deepEqual(Buffer.from(record.files[own]!.data!, 'base64'), PAYLOAD);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
