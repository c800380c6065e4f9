// The node daemon's decisions as tables: which config the kubelet should run, what to do to its file after any crash
// of the daemon, and the health gate's verdict.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CrashLoopError, LoadError, NodeFilesError, policyError, ValidateError } from '../../src/api/configstatus.js';
import type { NodeConfigSource } from '../../src/api/types.js';
import {
  decideAction,
  decideTarget,
  healthy,
  judgeHealth,
  runningFromJournal,
  type GateInput,
  type TargetInput,
} from '../../src/nodedaemon/decide.js';

const src = (name: string, rv = '1'): NodeConfigSource => ({
  configMap: { namespace: 'kube-system', name, kubeletConfigKey: 'kubelet', uid: `uid-${name}`, resourceVersion: rv },
});
const A = src('a');
const B = src('b');
const OK = { ok: true as const };
const INVALID = { ok: false as const, reason: ValidateError, detail: 'x', stage: 'validate' as const };
const NODE_FILES = {
  ok: false as const,
  reason: NodeFilesError,
  detail: "the node's own kubelet files do not load",
  stage: 'load' as const,
  nodeFiles: true,
};
const DENIED = {
  ok: false as const,
  reason: policyError(['p']),
  detail: 'NodeConfigPolicy "p": maxPods (not in allowedFields)',
  stage: 'policy' as const,
};

describe('decideTarget', () => {
  const rows: [string, TargetInput, { use: string; source?: NodeConfigSource; error: string; trial: boolean }][] = [
    ["nothing assigned: the node's own files", {}, { use: 'original', error: '', trial: false }],
    [
      "nothing assigned, a last-known-good left: still the node's own files (a reset)",
      { lastKnownGood: A },
      { use: 'original', error: '', trial: false },
    ],
    [
      'a valid assignment: run it, on trial',
      { assigned: A, assignedValidation: OK },
      { use: 'assigned', source: A, error: '', trial: true },
    ],
    [
      'a valid assignment that is already last-known-good: no trial',
      { assigned: A, lastKnownGood: A, assignedValidation: OK },
      { use: 'assigned', source: A, error: '', trial: false },
    ],
    [
      'an invalid assignment with a last-known-good: last-known-good, the validate error',
      { assigned: B, lastKnownGood: A, assignedValidation: { ok: false, reason: ValidateError, detail: 'x' } },
      { use: 'last-known-good', source: A, error: ValidateError, trial: false },
    ],
    [
      "an undecodable assignment without a last-known-good: the node's own files, the load error",
      { assigned: B, assignedValidation: { ok: false, reason: LoadError, detail: 'x' } },
      { use: 'original', error: LoadError, trial: false },
    ],
    [
      'an assignment that failed its health gate: last-known-good, the crash-loop error',
      { assigned: B, lastKnownGood: A, assignedValidation: OK, failed: { source: B, cause: 'timeout' } },
      { use: 'last-known-good', source: A, error: CrashLoopError, trial: false },
    ],
    [
      'a failure recorded for another source does not count',
      { assigned: B, lastKnownGood: A, assignedValidation: OK, failed: { source: src('b', '2'), cause: 'timeout' } },
      { use: 'assigned', source: B, error: '', trial: true },
    ],
    [
      'an assignment a NodeConfigPolicy denies, with a last-known-good: last-known-good, the policy named',
      { assigned: B, lastKnownGood: A, assignedValidation: DENIED },
      { use: 'last-known-good', source: A, error: DENIED.reason, trial: false },
    ],
    [
      "an assignment a NodeConfigPolicy denies, and last-known-good denied too: the node's own files, the policy named",
      { assigned: B, lastKnownGood: A, assignedValidation: DENIED, lastKnownGoodDenied: true },
      { use: 'original', error: DENIED.reason, trial: false },
    ],
    [
      'a last-known-good the policies deny does not matter while the assignment runs',
      { assigned: B, lastKnownGood: A, assignedValidation: OK, lastKnownGoodDenied: true },
      { use: 'assigned', source: B, error: '', trial: true },
    ],
    [
      "a failed assignment equal to last-known-good: the node's own files",
      { assigned: A, lastKnownGood: A, assignedValidation: OK, failed: { source: A, cause: 'timeout' } },
      { use: 'original', error: CrashLoopError, trial: false },
    ],
    [
      'refused before it is written, no last-known-good, the kubelet on the config under trial: it stays there',
      { assigned: B, assignedValidation: INVALID, running: { source: A } },
      { use: 'running', source: A, error: ValidateError, trial: false },
    ],
    [
      'refused before it is written, the kubelet on a config other than last-known-good: it stays there',
      { assigned: B, lastKnownGood: src('l'), assignedValidation: INVALID, running: { source: A } },
      { use: 'running', source: A, error: ValidateError, trial: false },
    ],
    [
      "refused before it is written, the kubelet on the node's own files: they stay, last-known-good or not",
      { assigned: B, lastKnownGood: A, assignedValidation: INVALID, running: { source: undefined } },
      { use: 'original', error: ValidateError, trial: false },
    ],
    [
      'refused before it is written, the kubelet on last-known-good: last-known-good',
      { assigned: B, lastKnownGood: A, assignedValidation: INVALID, running: { source: A } },
      { use: 'last-known-good', source: A, error: ValidateError, trial: false },
    ],
    [
      'refused, the running config unfit (denied, or failed its own gate): the refuge as before',
      { assigned: B, assignedValidation: INVALID, running: { source: A }, runningUnfit: true },
      { use: 'original', error: ValidateError, trial: false },
    ],
    [
      'a config that failed on the kubelet is rolled back whatever runs',
      { assigned: B, assignedValidation: OK, failed: { source: B, cause: 'timeout' }, running: { source: B } },
      { use: 'original', error: CrashLoopError, trial: false },
    ],
    [
      'the running config refused again (a policy now denies the assignment it runs): the refuge',
      { assigned: A, lastKnownGood: src('l'), assignedValidation: DENIED, running: { source: A } },
      { use: 'last-known-good', source: src('l'), error: DENIED.reason, trial: false },
    ],
    [
      "the node's own files broken: the kubelet stays on what it runs, even the assignment itself",
      { assigned: A, lastKnownGood: src('l'), assignedValidation: NODE_FILES, running: { source: A } },
      { use: 'running', source: A, error: NodeFilesError, trial: false },
    ],
    [
      "the node's own files broken, what runs not known: the refuge as before",
      { assigned: A, assignedValidation: NODE_FILES },
      { use: 'original', error: NodeFilesError, trial: false },
    ],
  ];
  for (const [name, input, want] of rows) {
    it(name, () => {
      const t = decideTarget(input);
      assert.deepEqual(
        { use: t.use, ...(t.source ? { source: t.source } : {}), error: t.status.error, trial: t.trial },
        want,
      );
      assert.deepEqual(t.status.assigned, input.assigned);
      assert.deepEqual(t.status.lastKnownGood, input.lastKnownGood);
      assert.equal(t.rejected !== undefined, want.error !== '');
      if (input.assignedValidation === DENIED)
        assert.deepEqual(
          t.rejected,
          { reason: DENIED.reason, detail: DENIED.detail, stage: 'policy' },
          'the event says a policy denied it',
        );
    });
  }
});

describe('decideAction: resuming after a kill -9 at any step', () => {
  const rows: [string, Parameters<typeof decideAction>[0], string][] = [
    [
      'the file differs (killed before the write, or a new config): write and restart',
      { desired: 'd2', onDisk: 'd1', journal: { digest: 'd1', restarted: true } },
      'write-and-restart',
    ],
    [
      'the file is written, the restart not recorded (killed after the write): restart',
      { desired: 'd2', onDisk: 'd2', journal: { digest: 'd2', restarted: false } },
      'restart',
    ],
    [
      'the file is written, the journal older (killed between journal and write)',
      { desired: 'd2', onDisk: 'd2', journal: { digest: 'd1', restarted: true } },
      'restart',
    ],
    ['no journal at all, the file right: restart once', { desired: 'd2', onDisk: 'd2', journal: undefined }, 'restart'],
    [
      'written and restarted: nothing',
      { desired: 'd2', onDisk: 'd2', journal: { digest: 'd2', restarted: true, restartedAt: 1 } },
      'none',
    ],
    [
      'a removed file that must be removed, restarted: nothing',
      { desired: 'absent', onDisk: 'absent', journal: { digest: 'absent', restarted: true } },
      'none',
    ],
  ];
  for (const [name, input, want] of rows) it(name, () => assert.equal(decideAction(input), want));
});

describe('judgeHealth', () => {
  const base: GateInput = {
    now: 0,
    restartedAt: 0,
    healthySince: undefined,
    unhealthySince: undefined,
    becameHealthy: false,
    startTimeoutMs: 60_000,
    trialMs: 600_000,
    trial: true,
  };
  const rows: [string, Partial<GateInput>, string][] = [
    ['not yet healthy, within the start timeout', { now: 59_000 }, 'starting'],
    ['not healthy when the start timeout has passed', { now: 60_001 }, 'failed:start-timeout'],
    ['healthy, the trial running', { now: 100_000, becameHealthy: true, healthySince: 10_000 }, 'trial'],
    ['healthy for the whole trial', { now: 610_000, becameHealthy: true, healthySince: 10_000 }, 'passed'],
    [
      'unhealthy during the trial, within the start timeout',
      { now: 100_000, becameHealthy: true, unhealthySince: 50_000 },
      'trial',
    ],
    [
      'unhealthy during the trial for longer than the start timeout',
      { now: 120_000, becameHealthy: true, unhealthySince: 50_000 },
      'failed:unhealthy',
    ],
    [
      'the trial counts from the last time it became healthy',
      { now: 610_000, becameHealthy: true, healthySince: 20_000 },
      'trial',
    ],
    [
      'no trial (last-known-good, own files): passed once healthy',
      { now: 1_000, becameHealthy: true, healthySince: 1_000, trial: false },
      'passed',
    ],
    [
      "resumed by a restarted daemon, the journal's restart long ago, the kubelet just found down: waited for",
      { now: 600_000, restartedAt: 0, resumed: true, downSince: 594_000 },
      'starting',
    ],
    [
      'resumed, not probed down yet: the clock has not started',
      { now: 600_000, restartedAt: 0, resumed: true },
      'starting',
    ],
    [
      'resumed, down for longer than the start timeout since this daemon found it so: failed',
      { now: 600_000, restartedAt: 0, resumed: true, downSince: 500_000, kubeletRunning: true },
      'failed:start-timeout',
    ],
    [
      'resumed, down that long but no kubelet process at all (a boot, the daemon first): waited for, not blamed',
      { now: 600_000, restartedAt: 0, resumed: true, downSince: 500_000, kubeletRunning: false },
      'starting',
    ],
    [
      'restarted by this daemon: a kubelet with no process is blamed at the timeout',
      { now: 60_001, kubeletRunning: false },
      'failed:start-timeout',
    ],
    [
      'healthy throughout, but restarted behind the daemon threshold times during the trial: a crash loop',
      { now: 100_000, becameHealthy: true, healthySince: 99_000, unexpectedRestarts: 3, crashLoopThreshold: 3 },
      'failed:crash-loop',
    ],
    [
      'below the threshold: the trial goes on',
      { now: 100_000, becameHealthy: true, healthySince: 99_000, unexpectedRestarts: 2, crashLoopThreshold: 3 },
      'trial',
    ],
    [
      'a crash loop before it ever became healthy fails at once, not at the start timeout',
      { now: 5_000, unexpectedRestarts: 3, crashLoopThreshold: 3 },
      'failed:crash-loop',
    ],
    [
      'restarts of a config not on trial are reported, not rolled back',
      {
        now: 1_000,
        becameHealthy: true,
        healthySince: 1_000,
        trial: false,
        unexpectedRestarts: 9,
        crashLoopThreshold: 3,
      },
      'passed',
    ],
    [
      'no pid command (no threshold): restarts do not count',
      { now: 100_000, becameHealthy: true, healthySince: 99_000, unexpectedRestarts: 9 },
      'trial',
    ],
  ];
  for (const [name, input, want] of rows) {
    it(name, () => {
      const v = judgeHealth({ ...base, ...input });
      assert.equal(v.kind === 'failed' ? `failed:${v.cause}` : v.kind, want);
    });
  }
  it('healthy: healthz answers and the Node is not NotReady (no Ready condition counts as ready)', () => {
    assert.deepEqual(
      [
        healthy({ healthz: true, ready: undefined }),
        healthy({ healthz: true, ready: 'True' }),
        healthy({ healthz: true, ready: 'False' }),
        healthy({ healthz: true, ready: 'Unknown' }),
        healthy({ healthz: false, ready: 'True' }),
      ],
      [true, true, false, false, false],
    );
  });
});

describe('runningFromJournal: what the kubelet runs, as far as the records tell', () => {
  const rows: [string, Parameters<typeof runningFromJournal>, ReturnType<typeof runningFromJournal>][] = [
    ['a finished restart onto a checkpoint', [{ digest: 'd', restarted: true, source: A }, 'd'], { source: A }],
    [
      "a finished restart onto the node's own files",
      [{ digest: 'd', restarted: true, original: true }, 'd'],
      { source: undefined },
    ],
    ['a restart that did not finish: not known', [{ digest: 'd', restarted: false, source: A }, 'd'], undefined],
    ['the file holds other content: not known', [{ digest: 'd', restarted: true, source: A }, 'e'], undefined],
    ['a journal of an earlier release (no source): not known', [{ digest: 'd', restarted: true }, 'd'], undefined],
    ['no journal', [undefined, 'd'], undefined],
  ];
  for (const [name, args, want] of rows) it(name, () => assert.deepEqual(runningFromJournal(...args), want));
});
