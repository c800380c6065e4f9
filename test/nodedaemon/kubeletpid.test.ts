// The kubelet's restarts the daemon did not cause, from its pid: the command's output read as systemctl prints
// MainPID, the accounting as a table, the report as status.kubelet says it, and the command run for real.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  countFor,
  observePid,
  parsePid,
  readKubeletPid,
  reportOf,
  RestartRecord,
  type PidTrack,
} from '../../src/nodedaemon/kubeletpid.js';
import { DaemonFiles } from '../../src/nodedaemon/files.js';
import { superseded } from '../../src/nodedaemon/coalesce.js';
import { NodeDaemonFlagError, parseNodeDaemonFlags } from '../../src/nodedaemon/flags.js';
import type { NodeConfigSource } from '../../src/api/types.js';

describe('the kubelet pid', () => {
  it('is read as systemctl show --value MainPID prints it: a number, 0 or nothing for none, anything else unknown', () => {
    assert.deepEqual(['1234\n', '0\n', '', '  \n', 'MainPID=12\n', 'kubelet.service not found'].map(parsePid), [
      { pid: 1234 },
      { pid: 0 },
      { pid: 0 },
      { pid: 0 },
      { error: 'not a process id: "MainPID=12"' },
      { error: 'not a process id: "kubelet.service not found"' },
    ]);
  });

  it('a change the daemon did not cause is a restart; a stop is not, the next pid is; the first pid is the baseline', () => {
    const steps: [number, boolean][] = [
      [100, false], // the first pid this process sees
      [100, false],
      [0, false], // crashed, not yet started again
      [101, true], // started again by systemd: one restart
      [102, true], // crashed and started again between two reads: one more
      [102, false],
    ];
    let track: PidTrack = { known: undefined };
    const seen: boolean[] = [];
    for (const [pid] of steps) {
      const r = observePid(track, pid);
      track = r.track;
      seen.push(r.restarted);
    }
    assert.deepEqual(
      seen,
      steps.map(([, want]) => want),
    );
  });

  it('the count belongs to the content it was counted for, and is reported only when there is one', () => {
    const c = { digest: 'd1', count: 2, last: '2026-01-01T00:00:00.000Z' };
    assert.deepEqual(countFor(c, 'd1'), c);
    assert.deepEqual(countFor(c, 'd2'), { digest: 'd2', count: 0 });
    assert.deepEqual(countFor(undefined, 'd2'), { digest: 'd2', count: 0 });
    assert.deepEqual(reportOf(c), { unexpectedRestarts: 2, lastUnexpectedRestart: c.last });
    assert.deepEqual(reportOf({ digest: 'd1', count: 0 }), { unexpectedRestarts: null, lastUnexpectedRestart: null });
  });

  it('runs the command through a shell; a failing one says why; the count survives in its record', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dkc-pid-'));
    try {
      await writeFile(join(dir, 'pid'), '4321\n');
      assert.deepEqual(await readKubeletPid(`cat '${join(dir, 'pid')}'`, 5_000), { pid: 4321 });
      const failed = await readKubeletPid('echo no such unit >&2; exit 3', 5_000);
      assert.deepEqual(failed, { error: 'exited with status 3: no such unit' });
      const record = new RestartRecord(dir);
      assert.equal(await record.read(), undefined);
      await record.write({ digest: 'd', count: 3, last: 'now' });
      assert.deepEqual(await new RestartRecord(dir).read(), { digest: 'd', count: 3, last: 'now' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("the daemon's directory at start", () => {
  it('the temp files an interrupted write of its records left are removed, the records kept', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dkc-nd-temps-'));
    try {
      const files = new DaemonFiles(dir);
      await files.initialize();
      await files.setJournal({ digest: 'd', restarted: true });
      for (const n of ['.journal.json.tmp-123-abcdef', '.original.json.tmp-9-00ff00', '.failed.json.tmp-1-1'])
        await writeFile(join(files.dir, n), '{');
      assert.deepEqual((await files.removeStaleTemps()).sort(), [
        '.failed.json.tmp-1-1',
        '.journal.json.tmp-123-abcdef',
        '.original.json.tmp-9-00ff00',
      ]);
      assert.deepEqual(await readdir(files.dir), ['journal.json']);
      assert.deepEqual(await files.journal(), { digest: 'd', restarted: true });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('coalescing: the assignment has moved on from the one being applied', () => {
  const cm = (name: string, uid = `uid-${name}`, rv = '1'): NodeConfigSource => ({
    configMap: { namespace: 'kube-system', name, kubeletConfigKey: 'kubelet', uid, resourceVersion: rv },
  });
  const spec = (name: string): NodeConfigSource => ({
    configMap: { namespace: 'kube-system', name, kubeletConfigKey: 'kubelet' },
  });
  const rows: [string, NodeConfigSource | undefined, NodeConfigSource | undefined, boolean][] = [
    ['the same reference (spec without uid)', cm('a'), spec('a'), false],
    ['another ConfigMap', cm('a'), spec('b'), true],
    ['another key', cm('a'), { configMap: { ...spec('a').configMap!, kubeletConfigKey: 'other' } }, true],
    ['the same name, a uid given that differs (re-created)', cm('a'), cm('a', 'uid-new'), true],
    [
      'an edit of the same ConfigMap is not judged here (the cache may lag)',
      cm('a', 'uid-a', '1'),
      cm('a', 'uid-a', '2'),
      false,
    ],
    ['assigned, then reset', cm('a'), undefined, true],
    ['reset, then assigned', undefined, spec('a'), true],
    ['reset, still reset', undefined, undefined, false],
  ];
  for (const [name, recorded, live, want] of rows) it(name, () => assert.equal(superseded(recorded, live), want));
});

describe('the pid flags', () => {
  it("default to systemd's MainPID and the agent's threshold; empty disables; a threshold below 1 is refused", () => {
    const d = parseNodeDaemonFlags([], () => 'h');
    assert.deepEqual(
      [d.kubeletPidCommand, d.crashLoopThreshold],
      ['systemctl show --property MainPID --value kubelet', 3],
    );
    const f = parseNodeDaemonFlags(['--kubelet-pid-command=', '--dynamic-config-crash-loop-threshold=5'], () => 'h');
    assert.deepEqual([f.kubeletPidCommand, f.crashLoopThreshold], ['', 5]);
    assert.throws(
      () => parseNodeDaemonFlags(['--dynamic-config-crash-loop-threshold=0'], () => 'h'),
      (err: Error) =>
        err instanceof NodeDaemonFlagError &&
        err.message === 'invalid argument "0" for "--dynamic-config-crash-loop-threshold" flag: must be at least 1',
    );
  });
});
