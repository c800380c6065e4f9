// The agent's own NodeConfigPolicy check: the gate's judgement (local config against the candidate, both with the
// flags), the snapshot the next boot reads, the watch that keeps it current from a feed and the node's labels, and
// the boot decision when last-known-good is denied too.

import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decideBoot } from '../../../src/agent/dynamicconfig/bootstrap.js';
import { policyError, ValidateError } from '../../../src/api/configstatus.js';
import { PolicyGate, policiesPath } from '../../../src/agent/dynamicconfig/policy.js';
import {
  informerPolicyFeed,
  PolicyWatch,
  sharedPolicyFeed,
  type PolicyFeed,
} from '../../../src/agent/dynamicconfig/policywatch.js';
import { ApiError, type KubeObject, type ListWatcher } from '../../../src/client/index.js';
import { effectiveConfig, parseKubeletFlags, type KubeletConfiguration } from '../../../src/kubeletconfig/index.js';
import { readPolicy } from '../../../src/nodepolicy/spec.js';
import { waitFor } from '../../helpers/wait.js';

const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
const FLAGS = parseKubeletFlags(['--address=127.0.0.1', '--port=36001', '--feature-gates=DynamicKubeletConfig=true']);
const LOCAL = `${HEADER}authorization:\n  mode: Webhook\n`;
/** A config as the agent runs it: the file, or the dynamic payload, under the flags. */
const run = (dynamic?: string): KubeletConfiguration => {
  const r = effectiveConfig({
    file: { bytes: LOCAL, dir: '/' },
    ...(dynamic ? { dynamic: { bytes: dynamic, dir: '/' } } : {}),
    flags: FLAGS,
  });
  assert.ok(r.ok, JSON.stringify(r));
  return r.config;
};
const policyObject = (name: string, spec: Record<string, unknown>): KubeObject => ({ metadata: { name }, spec });
const policy = (name: string, spec: Record<string, unknown>) =>
  readPolicy(policyObject(name, spec) as Parameters<typeof readPolicy>[0]);

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dkc-policy-gate-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function gateIn(name: string): Promise<PolicyGate> {
  const d = join(dir, name);
  await mkdir(dirname(policiesPath(d)), { recursive: true });
  return PolicyGate.load(d, run(), FLAGS);
}

describe('the policy gate', () => {
  it('judges the local config against the candidate, both as the node runs them: the flags are no change', async () => {
    const gate = await gateIn('judge');
    assert.equal(gate.judge(run(`${LOCAL}eventRecordQPS: 7\n`)), undefined, 'no policy: nothing denied');
    await gate.update([policy('fleet', { allowedFields: ['eventRecordQPS'] })]);
    assert.equal(
      gate.judge(run(`${LOCAL}eventRecordQPS: 7\n`)),
      undefined,
      'the fleet-wide config: only eventRecordQPS changes',
    );
    assert.equal(
      gate.judge(run(`${HEADER}authorization:\n  mode: Webhook\nport: 10250\neventRecordQPS: 7\n`)),
      undefined,
      'a port the flags hold',
    );
    assert.deepEqual(gate.judge(run(`${LOCAL}containerLogMaxFiles: 7\nmaxPods: 300\n`)), {
      reason: 'config denied by NodeConfigPolicy "fleet", see Kubelet log for details',
      detail: 'NodeConfigPolicy "fleet": maxPods (not in allowedFields), containerLogMaxFiles (not in allowedFields)',
    });
  });

  it('names every Deny policy that denies, in order, and no value; Warn policies do not deny', async () => {
    const gate = await gateIn('names');
    await gate.update([
      policy('z-bounds', { bounds: { maxPods: { maximum: 250 } } }),
      policy('a-fields', { allowedFields: [] }),
      policy('warned', { allowedFields: [], enforcement: 'Warn' }),
    ]);
    const denial = gate.judge(run(`${LOCAL}maxPods: 300\n`));
    assert.equal(denial?.reason, policyError(['a-fields', 'z-bounds']));
    assert.equal(
      denial?.reason,
      'config denied by NodeConfigPolicy "a-fields", "z-bounds", see Kubelet log for details',
    );
    assert.equal(
      denial?.detail,
      'NodeConfigPolicy "a-fields": maxPods (not in allowedFields); NodeConfigPolicy "z-bounds": maxPods (above the maximum 250)',
    );
    assert.ok(!denial?.detail.includes('300'), 'the ConfigMap value is not quoted');
  });

  it('writes the governing Deny policies down when they change, and the next boot reads them', async () => {
    const gate = await gateIn('snapshot');
    assert.equal(
      await gate.update([policy('p', { allowedFields: ['maxPods'] }), policy('w', { enforcement: 'Warn' })]),
      true,
    );
    assert.equal(
      await gate.update([policy('p', { allowedFields: ['maxPods'] })]),
      false,
      'unchanged (a Warn policy is not kept)',
    );
    assert.deepEqual(JSON.parse(await readFile(policiesPath(join(dir, 'snapshot')), 'utf8')), {
      policies: [{ name: 'p', bounds: {}, enforcement: 'Deny', allowedFields: ['maxPods'] }],
    });
    const next = await PolicyGate.load(join(dir, 'snapshot'), run(), FLAGS);
    assert.equal(next.judge(run(`${LOCAL}containerLogMaxFiles: 7\n`))?.reason, policyError(['p']));
  });

  it('a snapshot that is absent or unreadable judges by no policy (the watch corrects it once listed)', async () => {
    const d = join(dir, 'broken');
    await mkdir(dirname(policiesPath(d)), { recursive: true });
    await writeFile(policiesPath(d), '{"policies":[{"nope":1}]}');
    assert.equal((await PolicyGate.load(d, run(), FLAGS)).judge(run(`${LOCAL}maxPods: 1\n`)), undefined);
    assert.equal(
      (await PolicyGate.load(join(dir, 'absent'), run(), FLAGS)).judge(run(`${LOCAL}maxPods: 1\n`)),
      undefined,
    );
  });
});

describe('the boot decision with a policy', () => {
  const src = (name: string) => ({
    configMap: { namespace: 'kube-system', name, kubeletConfigKey: 'kubelet', uid: name, resourceVersion: '1' },
  });
  const denied = {
    ok: false as const,
    reason: policyError(['p']),
    detail: 'NodeConfigPolicy "p": maxPods (not in allowedFields)',
    stage: 'policy' as const,
  };

  it('an assigned config denied runs last-known-good, with the policy as the error', () => {
    const d = decideBoot({
      assigned: src('a'),
      assignedOutcome: denied,
      lastKnownGood: src('l'),
      lastKnownGoodOutcome: { ok: true, config: 'lkg' },
      startsWithoutHealthy: 0,
      crashLoopThreshold: 3,
    });
    assert.equal(d.kind === 'run' && d.use, 'last-known-good');
    assert.equal(d.status.error, 'config denied by NodeConfigPolicy "p", see Kubelet log for details');
  });

  it('last-known-good denied as well: the local config runs (a broken last-known-good would be fatal)', () => {
    const input = {
      assigned: src('a'),
      assignedOutcome: denied,
      lastKnownGood: src('l'),
      startsWithoutHealthy: 0,
      crashLoopThreshold: 3,
    };
    const d = decideBoot<string>({ ...input, lastKnownGoodOutcome: denied });
    assert.deepEqual(
      [d.kind, d.kind === 'run' && d.use, d.status.error, d.status.lastKnownGood],
      ['run', 'local', policyError(['p']), src('l')],
    );
    assert.equal(
      decideBoot<string>({
        ...input,
        lastKnownGoodOutcome: { ok: false, reason: ValidateError, detail: 'x', stage: 'validate' },
      }).kind,
      'fatal',
    );
  });
});

/** A feed the test drives. */
class FakeFeed implements PolicyFeed {
  objects: KubeObject[] | undefined;
  closed = 0;
  private readonly listeners = new Set<() => void>();
  private synced!: (ok: boolean) => void;
  private readonly first = new Promise<boolean>((r) => (this.synced = r));
  current(): KubeObject[] | undefined {
    return this.objects;
  }
  whenSynced(): Promise<boolean> {
    return this.first;
  }
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  close(): void {
    this.closed++;
  }
  set(objects: KubeObject[]): void {
    const first = this.objects === undefined;
    this.objects = objects;
    if (first) this.synced(true);
    else for (const l of this.listeners) l();
  }
}

const tick = () => new Promise((r) => setImmediate(r));

describe('the policy watch', () => {
  const blue = policyObject('blue', { nodeSelector: { matchLabels: { pool: 'blue' } }, allowedFields: [] });

  it('is ready once it has seen both the policies and the labels; reports each change of what governs the node', async () => {
    const gate = await gateIn('watch');
    const feed = new FakeFeed();
    let changes = 0;
    const watch = new PolicyWatch(gate, feed, () => changes++);
    watch.start();
    let ready: boolean | undefined;
    void watch.ready().then((ok) => (ready = ok));
    feed.set([blue]);
    await tick();
    assert.equal(ready, undefined, 'the labels are not known yet');
    watch.setLabels({ pool: 'green' });
    await waitFor('ready', async () => ready);
    assert.deepEqual([ready, changes], [true, 0], 'nothing governs a green node');
    watch.setLabels({ pool: 'blue' });
    await waitFor('a relabel brings it under blue', async () => (changes === 1 ? true : undefined));
    assert.equal(gate.judge(run(`${LOCAL}maxPods: 1\n`))?.reason, policyError(['blue']));
    feed.set([blue, policyObject('other', { nodeSelector: { matchLabels: { pool: 'green' } }, allowedFields: [] })]);
    await tick();
    watch.setLabels({ pool: 'blue' });
    await tick();
    assert.equal(changes, 1, 'a policy for other nodes, or the same labels again, change nothing here');
    feed.set([]);
    await waitFor('the policy deleted', async () => (changes === 2 ? true : undefined));
    watch.stop();
    assert.equal(feed.closed, 1);
  });

  it('an informer feed on a server that does not serve the kind has no policies; other failures keep it waiting', async () => {
    const failing = (code: number): ListWatcher => ({
      list: () =>
        Promise.reject(
          new ApiError({
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Failure',
            message: 'no',
            reason: code === 404 ? 'NotFound' : 'Forbidden',
            code,
          }),
        ),
      watch: () => Promise.reject(new Error('unreachable')),
    });
    const notServed = informerPolicyFeed(failing(404));
    assert.equal(await notServed.whenSynced(), true);
    assert.deepEqual(notServed.current(), []);
    notServed.close();
    const errors: unknown[] = [];
    const forbidden = informerPolicyFeed(failing(403), (err) => errors.push(err));
    const synced = await Promise.race([
      forbidden.whenSynced(),
      new Promise((r) => setTimeout(() => r('waiting'), 300)),
    ]);
    assert.equal(synced, 'waiting');
    assert.equal(forbidden.current(), undefined);
    assert.ok(errors.length > 0);
    forbidden.close();
  });

  it('a shared feed is opened by its first user and closed by its last', () => {
    let opened = 0;
    const inner = new FakeFeed();
    const open = sharedPolicyFeed(() => (opened++, inner));
    const a = open();
    const b = open();
    a.close();
    a.close();
    assert.deepEqual([opened, inner.closed], [1, 0]);
    b.close();
    assert.equal(inner.closed, 1);
    open().close();
    assert.equal(opened, 2);
  });
});
