// The 1.8-alpha source (spec.configSource.configMapRef) through the sync loop, and the ConfigOK condition of the
// 1.8 alpha: its messages and reasons for every boot outcome, the sync-failure overlay, and its timestamps.

import { after, afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointStore } from '../../../src/agent/dynamicconfig/checkpoint.js';
import { ConfigStatusManager } from '../../../src/agent/dynamicconfig/status.js';
import { ConfigSync } from '../../../src/agent/dynamicconfig/sync.js';
import { conditionAt, configOK, withFailedSync } from '../../../src/agent/dynamicconfig/configok.js';
import { sourcesEqual, type NodeConfigSource } from '../../../src/agent/dynamicconfig/source.js';
import { noGauges } from './fixtures/gauges.js';
import { FakeClock } from '../../helpers/fakeclock.js';

const dirs: string[] = [];
const syncs: ConfigSync[] = [];
afterEach(() => {
  for (const s of syncs.splice(0)) s.stop();
});
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const UID = '6f1c3e0a-0000-4000-8000-00000000000a';
const refSource: NodeConfigSource = { configMapRef: { name: 'cm', namespace: 'kube-system', uid: UID } };
const resolved: NodeConfigSource = {
  configMap: { name: 'cm', namespace: 'kube-system', kubeletConfigKey: 'kubelet', uid: UID, resourceVersion: '7' },
};

async function setup(
  download: () => Promise<{ uid?: string; resourceVersion?: string; data?: Record<string, string> }>,
) {
  const dir = await mkdtemp(join(tmpdir(), 'dkc-ref-'));
  dirs.push(dir);
  const store = new CheckpointStore(dir);
  await store.initialize();
  const status = new ConfigStatusManager(noGauges);
  status.setConfigOK(configOK({ use: 'local', initConfig: true }));
  const restarts: (NodeConfigSource | undefined)[] = [];
  const asked: unknown[] = [];
  const sync = new ConfigSync({
    store,
    status,
    nodeConfigSource: () => refSource,
    download: async (ref) => {
      asked.push(ref);
      return download();
    },
    restart: async (s) => void restarts.push(s),
    retryDelayMs: () => 60_000,
  });
  syncs.push(sync);
  sync.poke();
  await sync.idle();
  return { store, status, restarts, asked };
}

describe('ConfigSync: a configMapRef source', () => {
  it('downloads the named ConfigMap, keeps key `kubelet`, checkpoints and restarts as for configMap', async () => {
    const ctx = await setup(async () => ({ uid: UID, resourceVersion: '7', data: { kubelet: 'payload' } }));
    assert.deepEqual(ctx.asked, [{ name: 'cm', namespace: 'kube-system', uid: UID, kubeletConfigKey: 'kubelet' }]);
    assert.deepEqual(ctx.restarts, [resolved]);
    assert.deepEqual(await ctx.store.assigned(), resolved);
    assert.equal(Buffer.from((await ctx.store.load(resolved)).bytes).toString(), 'payload');
  });

  it('a ConfigMap with another UID: a download error (1.8’s reason in ConfigOK), nothing checkpointed, no restart', async () => {
    const ctx = await setup(async () => ({ uid: 'other-uid', resourceVersion: '7', data: { kubelet: 'payload' } }));
    assert.deepEqual(ctx.restarts, []);
    assert.equal(await ctx.store.assigned(), undefined);
    assert.equal(ctx.status.current().error, 'failed to sync: failed to download config, see Kubelet log for details');
    assert.deepEqual(ctx.status.condition()?.condition, {
      message: 'using current (init)',
      reason: `failed to sync, desired config unclear, reason: invalid ObjectReference, UID "${UID}" does not match UID of downloaded ConfigMap "other-uid"`,
      status: 'Unknown',
    });
  });

  it('a failed GET: 1.8’s "could not download" reason', async () => {
    const ctx = await setup(async () => {
      throw new Error('configmaps "cm" is forbidden');
    });
    assert.equal(
      ctx.status.condition()?.condition.reason,
      'failed to sync, desired config unclear, reason: could not download ConfigMap with name "cm" from namespace "kube-system"',
    );
  });

  it('sourcesEqual tells configMapRef sources apart (a changed uid is a change)', () => {
    assert.ok(sourcesEqual(refSource, { configMapRef: { ...refSource.configMapRef } }));
    assert.ok(!sourcesEqual(refSource, { configMapRef: { ...refSource.configMapRef, uid: 'x' } }));
    assert.ok(!sourcesEqual(refSource, resolved));
    assert.ok(!sourcesEqual(refSource, undefined));
  });
});

describe('ConfigOK', () => {
  const assigned = resolved;
  const lkg: NodeConfigSource = { configMap: { ...resolved.configMap!, uid: 'lkg-uid' } };
  const rows: [string, Parameters<typeof configOK>[0], [string, string, string]][] = [
    [
      'default',
      { use: 'local', initConfig: false },
      ['using current (default)', 'current is set to the local default, and no init config was provided', 'True'],
    ],
    [
      'init',
      { use: 'local', initConfig: true },
      ['using current (init)', 'current is set to the local default, and an init config was provided', 'True'],
    ],
    [
      'remote',
      { use: 'assigned', assigned, initConfig: true },
      [`using current (UID: "${UID}")`, 'passing all checks', 'True'],
    ],
    [
      'lkg init, parse',
      { use: 'local', assigned, rejected: 'parse', initConfig: true },
      ['using last-known-good (init)', `failed to parse current (UID: "${UID}")`, 'False'],
    ],
    [
      'lkg default, load',
      { use: 'local', assigned, rejected: 'load', initConfig: false },
      ['using last-known-good (default)', `failed to load current (UID: "${UID}")`, 'False'],
    ],
    [
      'lkg remote, validate',
      { use: 'last-known-good', assigned, lastKnownGood: lkg, rejected: 'validate', initConfig: true },
      ['using last-known-good (UID: "lkg-uid")', `failed to validate current (UID: "${UID}")`, 'False'],
    ],
    [
      'crash loop',
      { use: 'local', assigned, rejected: 'crashloop', initConfig: true },
      ['using last-known-good (init)', `current failed trial period due to crash loop (UID: "${UID}")`, 'False'],
    ],
  ];
  for (const [name, input, [message, reason, status]] of rows) {
    it(name, () => assert.deepEqual(configOK(input), { message, reason, status }));
  }

  it('a sync failure keeps the message and overlays reason and status; cleared, the condition is back', () => {
    const base = configOK({ use: 'assigned', assigned, initConfig: true });
    assert.deepEqual(withFailedSync(base, 'x'), {
      message: base.message,
      reason: 'failed to sync, desired config unclear, reason: x',
      status: 'Unknown',
    });
    assert.equal(withFailedSync(base, ''), base);
  });

  it('lastTransitionTime moves only when status or message changes; the heartbeat is the time given', () => {
    const c = configOK({ use: 'local', initConfig: true });
    const first = conditionAt(c, undefined, '2026-01-01T00:00:00Z');
    assert.equal(first.lastTransitionTime, '2026-01-01T00:00:00Z');
    const same = conditionAt({ ...c, reason: 'another reason' }, first, '2026-01-01T00:01:00Z');
    assert.equal(same.lastTransitionTime, '2026-01-01T00:00:00Z');
    assert.equal(same.lastHeartbeatTime, '2026-01-01T00:01:00Z');
    const flipped = conditionAt({ ...c, status: 'False' }, first, '2026-01-01T00:02:00Z');
    assert.equal(flipped.lastTransitionTime, '2026-01-01T00:02:00Z');
    const moved = conditionAt({ ...c, message: 'using last-known-good (init)' }, first, '2026-01-01T00:03:00Z');
    assert.equal(moved.lastTransitionTime, '2026-01-01T00:03:00Z');
  });

  it('the status manager stamps a change, notifies once per change, and not for a repeat', () => {
    const clock = new FakeClock(1_000);
    const m = new ConfigStatusManager(noGauges, 2_000, clock);
    let calls = 0;
    m.onConditionChange(() => calls++);
    m.setConfigOK(configOK({ use: 'local', initConfig: true }));
    assert.equal(m.condition()?.changedAt, 1_000);
    clock.advance(1_000);
    m.setConfigOK(configOK({ use: 'local', initConfig: true }));
    assert.equal(calls, 1);
    m.setErrorOverride('failed to sync: x', 'why');
    assert.equal(calls, 2);
    assert.equal(m.condition()?.changedAt, 2_000);
    assert.equal(m.condition()?.condition.status, 'Unknown');
    m.setErrorOverride('');
    assert.equal(m.condition()?.condition.status, 'True');
    assert.equal(calls, 3);
  });
});
