// The boot decision, one table row per outcome of upstream's Bootstrap (pkg/kubelet/kubeletconfig/controller.go: the
// assigned config if it loads and validates, else last-known-good, else the local config; a last-known-good that fails
// too is fatal) plus dkc's crash-loop rollback, and the health-gated form of upstream's checkTrial promotion.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  decideBoot,
  shouldPromote,
  type BootInput,
  type LoadOutcome,
} from '../../../src/agent/dynamicconfig/bootstrap.js';
import { CrashLoopError, InternalError, LoadError, ValidateError } from '../../../src/api/configstatus.js';
import type { NodeConfigSource } from '../../../src/agent/dynamicconfig/source.js';

const src = (name: string, rv = '1'): NodeConfigSource => ({
  configMap: { name, namespace: 'kube-system', kubeletConfigKey: 'kubelet', uid: `uid-${name}`, resourceVersion: rv },
});
const A = src('a');
const L = src('l');
const ok = (config: string): LoadOutcome<string> => ({ ok: true, config });
const bad = (reason: typeof LoadError | typeof ValidateError | typeof InternalError): LoadOutcome<string> => ({
  ok: false,
  reason,
  detail: 'boom',
});

interface Row {
  name: string;
  input: BootInput<string>;
  use?: 'local' | 'assigned' | 'last-known-good';
  config?: string;
  assigned?: NodeConfigSource;
  active?: NodeConfigSource;
  lkg?: NodeConfigSource;
  error?: string;
  trial?: boolean;
  fatal?: boolean;
}

const base = { startsWithoutHealthy: 0, crashLoopThreshold: 3 };
const rows: Row[] = [
  { name: 'no assigned record: local', input: { ...base }, use: 'local', error: '', trial: false },
  {
    name: 'no assigned record, stale LKG record: local, LKG reported',
    input: { ...base, lastKnownGood: L },
    use: 'local',
    lkg: L,
    error: '',
    trial: false,
  },
  {
    name: 'assigned loads and validates, no LKG',
    input: { ...base, assigned: A, assignedOutcome: ok('A') },
    use: 'assigned',
    config: 'A',
    assigned: A,
    active: A,
    error: '',
    trial: true,
  },
  {
    name: 'assigned loads and validates, previous LKG kept',
    input: { ...base, assigned: A, assignedOutcome: ok('A'), lastKnownGood: L },
    use: 'assigned',
    config: 'A',
    assigned: A,
    active: A,
    lkg: L,
    error: '',
    trial: true,
  },
  {
    name: 'assigned fails to load, LKG nil: local',
    input: { ...base, assigned: A, assignedOutcome: bad(LoadError) },
    use: 'local',
    assigned: A,
    error: LoadError,
    trial: false,
  },
  {
    name: 'assigned fails validation, LKG nil: local',
    input: { ...base, assigned: A, assignedOutcome: bad(ValidateError) },
    use: 'local',
    assigned: A,
    error: ValidateError,
    trial: false,
  },
  {
    name: 'assigned fails internally, LKG nil: local',
    input: { ...base, assigned: A, assignedOutcome: bad(InternalError) },
    use: 'local',
    assigned: A,
    error: InternalError,
    trial: false,
  },
  {
    name: 'assigned fails, LKG loads: LKG',
    input: {
      ...base,
      assigned: A,
      assignedOutcome: bad(ValidateError),
      lastKnownGood: L,
      lastKnownGoodOutcome: ok('L'),
    },
    use: 'last-known-good',
    config: 'L',
    assigned: A,
    active: L,
    lkg: L,
    error: ValidateError,
    trial: false,
  },
  {
    name: 'assigned fails, LKG fails: fatal',
    input: {
      ...base,
      assigned: A,
      assignedOutcome: bad(LoadError),
      lastKnownGood: L,
      lastKnownGoodOutcome: bad(LoadError),
    },
    fatal: true,
  },
  {
    name: 'assigned fails, LKG not loaded yet: fatal until it is',
    input: { ...base, assigned: A, assignedOutcome: bad(LoadError), lastKnownGood: L },
    fatal: true,
  },
  {
    name: 'crash loop at the threshold, LKG loads: LKG with the crash-loop error',
    input: {
      ...base,
      startsWithoutHealthy: 3,
      assigned: A,
      assignedOutcome: ok('A'),
      lastKnownGood: L,
      lastKnownGoodOutcome: ok('L'),
    },
    use: 'last-known-good',
    config: 'L',
    assigned: A,
    active: L,
    lkg: L,
    error: CrashLoopError,
    trial: false,
  },
  {
    name: 'crash loop at the threshold, no LKG: local',
    input: { ...base, startsWithoutHealthy: 5, assigned: A, assignedOutcome: ok('A') },
    use: 'local',
    assigned: A,
    error: CrashLoopError,
    trial: false,
  },
  {
    name: 'below the threshold: assigned still tried',
    input: { ...base, startsWithoutHealthy: 2, assigned: A, assignedOutcome: ok('A') },
    use: 'assigned',
    config: 'A',
    assigned: A,
    active: A,
    error: '',
    trial: true,
  },
  {
    name: 'threshold 0 disables crash-loop rollback',
    input: { startsWithoutHealthy: 99, crashLoopThreshold: 0, assigned: A, assignedOutcome: ok('A') },
    use: 'assigned',
    config: 'A',
    assigned: A,
    active: A,
    error: '',
    trial: true,
  },
];

describe('decideBoot', () => {
  for (const row of rows) {
    it(row.name, () => {
      const d = decideBoot(row.input);
      if (row.fatal) {
        assert.equal(d.kind, 'fatal');
        return;
      }
      assert.equal(d.kind, 'run');
      if (d.kind !== 'run') return;
      assert.equal(d.use, row.use);
      assert.equal(d.config, row.config);
      assert.deepEqual(d.status.assigned, row.assigned);
      assert.deepEqual(d.status.active, row.active);
      assert.deepEqual(d.status.lastKnownGood, row.lkg);
      assert.equal(d.status.error, row.error);
      assert.equal(d.startTrial, row.trial);
      if (row.error) assert.equal(d.rejected?.reason, row.error);
      else assert.equal(d.rejected, undefined);
    });
  }
});

describe('shouldPromote (health-gated trial)', () => {
  const trialMs = 10_000;
  it('not before the trial has passed since the assigned record was written', () => {
    assert.equal(shouldPromote({ now: 9_000, assignedModified: 0, healthySince: 0, trialMs }), false);
    assert.equal(shouldPromote({ now: 10_001, assignedModified: 0, healthySince: 0, trialMs }), true);
  });
  it('not while the agent is unhealthy', () => {
    assert.equal(shouldPromote({ now: 100_000, assignedModified: 0, healthySince: undefined, trialMs }), false);
  });
  it('only after a whole trial of uninterrupted health', () => {
    assert.equal(shouldPromote({ now: 15_000, assignedModified: 0, healthySince: 8_000, trialMs }), false);
    assert.equal(shouldPromote({ now: 18_001, assignedModified: 0, healthySince: 8_000, trialMs }), true);
  });
  it('a rewrite of the assigned record restarts the trial', () => {
    assert.equal(shouldPromote({ now: 15_000, assignedModified: 6_000, healthySince: 0, trialMs }), false);
  });
});
