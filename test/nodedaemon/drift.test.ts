// What the daemon finds in the kubelet's files besides its own writes, as tables: the fields of the assignment a
// node-local drop-in merged after it overrides (the kubelet runs the local value), whether its own file was edited by
// another hand, and the status patch that carries only the daemon's keys of status.kubelet.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeletVersion } from '../../src/kubeletconfig/index.js';
import { FileWatch, isDrift, localOverrides, reportPatch, type OverrideInput } from '../../src/nodedaemon/drift.js';

const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
const kubelet = kubeletVersion('1.31');
const layer = (name: string, body: string) => ({ fileName: name, layer: { bytes: `${HEADER}${body}`, name } });
const input = (payload: string, dropIns: OverrideInput['dropIns'], mode: 'dropin' | 'replace' = 'dropin') => ({
  mode,
  payload: { bytes: `${HEADER}${payload}`, name: 'assigned' },
  dropIns,
  dropInName: '90-dkc.conf',
});

describe('node daemon: local overrides and drift', () => {
  it('names each assigned field a later local drop-in sets otherwise, and the file whose value wins', () => {
    const payload =
      'eventRecordQPS: 7\nmaxPods: 90\nevictionHard:\n  memory.available: 100Mi\nclusterDNS: [10.0.0.10]\n';
    const table: [string, ReturnType<typeof input>, { field: string; file: string }[]][] = [
      ['no local drop-ins', input(payload, []), []],
      ['one sorting before dkc’s: dkc wins', input(payload, [layer('50-local.conf', 'maxPods: 10\n')]), []],
      [
        'one sorting after',
        input(payload, [layer('95-local.conf', 'maxPods: 10\n')]),
        [{ field: 'maxPods', file: '95-local.conf' }],
      ],
      ['the same value is no override', input(payload, [layer('95-local.conf', 'maxPods: 90\n')]), []],
      [
        'the last of two later files wins',
        input(payload, [layer('95-a.conf', 'maxPods: 10\n'), layer('96-b.conf', 'maxPods: 11\n')]),
        [{ field: 'maxPods', file: '96-b.conf' }],
      ],
      [
        'a map merges by key: another key is no override, the same key is',
        input(payload, [
          layer('95-local.conf', 'evictionHard:\n  nodefs.available: 5%\n'),
          layer('96-local.conf', 'evictionHard:\n  memory.available: 1Gi\n'),
        ]),
        [{ field: 'evictionHard.memory.available', file: '96-local.conf' }],
      ],
      [
        'a list is replaced whole',
        input(payload, [layer('95-local.conf', 'clusterDNS: [10.0.0.11]\n')]),
        [{ field: 'clusterDNS', file: '95-local.conf' }],
      ],
      ['a field the assignment does not set', input(payload, [layer('95-local.conf', 'podPidsLimit: 100\n')]), []],
      [
        'replace mode: every drop-in merges over the assigned --config',
        input(payload, [layer('10-early.conf', 'eventRecordQPS: 1\n')], 'replace'),
        [{ field: 'eventRecordQPS', file: '10-early.conf' }],
      ],
      [
        'a local file that does not decode is not an override',
        input(payload, [layer('95-bad.conf', 'maxPods: [\n')]),
        [],
      ],
    ];
    for (const [what, i, want] of table) assert.deepEqual(localOverrides(kubelet, i), want, what);
  });

  it('drift: the file changed after the kubelet was restarted on what the daemon wrote, and only then', () => {
    const j = (digest: string, restarted: boolean) => ({ digest, restarted });
    const table: [string, Parameters<typeof isDrift>[0], boolean][] = [
      ['as written', { written: 'a', onDisk: 'a', journal: j('a', true) }, false],
      ['edited', { written: 'a', onDisk: 'b', journal: j('a', true) }, true],
      ['removed', { written: 'a', onDisk: 'absent', journal: j('a', true) }, true],
      ['a write of its own under way', { written: 'a', onDisk: 'b', journal: j('a', false) }, false],
      ['the journal names another content', { written: 'a', onDisk: 'b', journal: j('c', true) }, false],
      ['no journal', { written: 'a', onDisk: 'b', journal: undefined }, false],
    ];
    for (const [what, i, want] of table) assert.equal(isDrift(i), want, what);
  });

  it("the status patch carries only the daemon's keys, an empty list as a removal", () => {
    assert.deepEqual(reportPatch({}), { status: { kubelet: { localOverrides: null, lastDrift: null } } });
    const lastDrift = { time: '2026-01-01T00:00:00Z', file: '/x/90-dkc.conf' };
    assert.deepEqual(reportPatch({ localOverrides: [{ field: 'maxPods', file: '95-l.conf' }], lastDrift }), {
      status: { kubelet: { localOverrides: [{ field: 'maxPods', file: '95-l.conf' }], lastDrift } },
    });
  });

  it('a watched directory change runs one check soon, a burst coalesced', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dkc-drift-'));
    let runs = 0;
    const w = new FileWatch(
      async () => {
        runs++;
        await new Promise((r) => setTimeout(r, 20));
      },
      { dirs: [dir, join(dir, 'absent')], periodMs: 60_000, debounceMs: 30 },
    );
    try {
      w.start();
      for (let i = 0; i < 5; i++) await writeFile(join(dir, `f${i}.conf`), 'x');
      const deadline = Date.now() + 2_000;
      while (runs === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 150));
      // Ten events or more (a create and a change per file): far fewer runs.
      assert.ok(runs >= 1 && runs <= 3, `runs: ${runs}`);
    } finally {
      w.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
