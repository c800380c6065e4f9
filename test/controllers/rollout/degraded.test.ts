// A rollout that holds nodes keeps watching them: a node recorded Succeeded that no longer runs the config (fell back,
// reports an error for it, or runs a local drop-in's value of one of its fields) is counted and named, with a Degraded
// condition and an event, in a finished rollout too; and what the node daemon reports of the kubelet (a local
// override, a restart it did not cause) fails a node in flight.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Node } from '../../../src/api/types.js';
import type { KubeletReport } from '../../../src/api/dkc/nodeconfig.js';
import { planRollout, type PlanInput } from '../../../src/controllers/rollout/plan/index.js';
import { configFields, relevantOverrides } from '../../../src/controllers/rollout/overrides.js';
import type { NodeProgress, RolloutStatus } from '../../../src/api/dkc/rollout.js';
import { CM, NEW_ACTIVE, OLD_ACTIVE, at, found, iso, leasesFor, node, rollout, switched } from './fixtures.js';

const done = (): NodeProgress => ({ state: 'Succeeded', batch: 0, updatedAt: iso(0), previous: found() });
const names = (n: number): string[] => Array.from({ length: n }, (_, i) => `node-${String(i + 1).padStart(2, '0')}`);

/** A rollout that finished with every one of `nodes` Succeeded, as the controller left it. */
function succeeded(nodes: readonly string[]): ReturnType<typeof rollout> {
  const first = planRollout(
    base({
      nodes: nodes.map((n) => switched(n)),
      rollout: rollout(
        {},
        { phase: 'Progressing', startTime: iso(0), nodes: Object.fromEntries(nodes.map((n) => [n, done()])) },
      ),
    }),
  );
  assert.equal(first.status.phase, 'Succeeded');
  return rollout({}, first.status);
}

function base(over: Partial<PlanInput>): PlanInput {
  const input = {
    rollout: rollout(),
    nodes: [] as Node[],
    configMap: CM,
    others: [],
    now: at(100),
    startedAt: at(-3600),
    ...over,
  };
  return { ...input, leases: over.leases ?? leasesFor(input.nodes, input.now) };
}

const condition = (s: RolloutStatus, type: string) => s.conditions?.find((c) => c.type === type);
const reports = (m: Record<string, KubeletReport>): Map<string, KubeletReport> => new Map(Object.entries(m));

describe('a rollout watches the nodes it holds', () => {
  it('a Succeeded rollout whose nodes all run its config writes nothing', () => {
    const r = succeeded(['node-1', 'node-2']);
    const plan = planRollout(base({ rollout: r, nodes: [switched('node-1'), switched('node-2')] }));
    assert.equal(plan.status, r.status, 'the status as it was');
    assert.deepEqual(plan.events, []);
    assert.deepEqual(plan.assignments, []);
  });

  it('a node that fell back is counted and named: Degraded, the Complete message corrected, an event; none is patched', () => {
    const r = succeeded(['node-1', 'node-2', 'node-3']);
    const plan = planRollout(
      base({ rollout: r, nodes: [switched('node-1'), switched('node-2', { active: OLD_ACTIVE }), switched('node-3')] }),
    );
    assert.equal(plan.status.phase, 'Succeeded');
    assert.deepEqual(plan.assignments, []);
    assert.equal(plan.status.degradedNodes, 1);
    assert.deepEqual(
      plan.status.degraded?.map((d) => [d.node, d.reason]),
      [['node-2', 'NotActive']],
    );
    assert.match(
      plan.status.degraded?.[0]?.message ?? '',
      /kube-system\/old .*resourceVersion 3, not the rollout's config/,
    );
    const degraded = condition(plan.status, 'Degraded');
    assert.equal(degraded?.status, 'True');
    assert.equal(degraded?.reason, 'NodesLeftConfig');
    assert.match(degraded?.message ?? '', /^1 of 3 nodes no longer run the new config: node-2 \(NotActive\)/);
    assert.match(
      condition(plan.status, 'Complete')?.message ?? '',
      /^2 of 3 nodes run the new config; 1 node no longer/,
    );
    assert.equal(condition(plan.status, 'Complete')?.status, 'True');
    assert.equal(plan.status.succeededNodes, 3, 'what succeeded in the rollout stays counted');
    assert.deepEqual(
      plan.events.map((e) => [e.type, e.reason]),
      [['Warning', 'NodesDegraded']],
    );
    assert.match(plan.events[0]!.message, /node-2 \(NotActive: /);

    // Looked at again with nothing new: the same status, no second event.
    const again = planRollout(
      base({
        rollout: rollout({}, plan.status),
        nodes: [switched('node-1'), switched('node-2', { active: OLD_ACTIVE }), switched('node-3')],
      }),
    );
    assert.deepEqual(again.status, plan.status);
    assert.deepEqual(again.events, []);

    // Back on the config: Degraded turns False, counted 0, a Normal event.
    const back = planRollout(
      base({ rollout: rollout({}, plan.status), nodes: [switched('node-1'), switched('node-2'), switched('node-3')] }),
    );
    assert.equal(back.status.degradedNodes, 0);
    assert.deepEqual(back.status.degraded, []);
    assert.equal(condition(back.status, 'Degraded')?.status, 'False');
    assert.match(condition(back.status, 'Complete')?.message ?? '', /^3 of 3 nodes run the new config$/);
    assert.deepEqual(
      back.events.map((e) => e.reason),
      ['NodesRecovered'],
    );
  });

  it('an in-place edit of the ConfigMap: nodes still on the earlier version are not running the config', () => {
    const r = succeeded(['node-1']);
    const plan = planRollout(
      base({ rollout: r, nodes: [switched('node-1')], configMap: { uid: CM.uid, resourceVersion: '11' } }),
    );
    assert.equal(plan.status.degradedNodes, 1);
    assert.match(plan.status.degraded?.[0]?.message ?? '', /resourceVersion 10/);
  });

  it('the ConfigMap deleted, no node is judged (nothing says what it should run)', () => {
    const r = succeeded(['node-1']);
    const plan = planRollout(
      base({ rollout: r, nodes: [switched('node-1', { active: OLD_ACTIVE })], configMap: undefined }),
    );
    assert.equal(plan.status.degradedNodes, undefined);
  });

  it('an error reported for the config is ConfigError', () => {
    const r = succeeded(['node-1']);
    const plan = planRollout(
      base({
        rollout: r,
        nodes: [switched('node-1', { assigned: NEW_ACTIVE, active: null, error: 'failed to validate' })],
      }),
    );
    assert.deepEqual(plan.status.degraded, [{ node: 'node-1', reason: 'ConfigError', message: 'failed to validate' }]);
  });

  it('a local drop-in overriding a field the config sets is LocalOverride; one the config does not set is nothing', () => {
    const r = succeeded(['node-1', 'node-2']);
    const input = base({
      rollout: r,
      nodes: [switched('node-1'), switched('node-2')],
      kubelet: reports({
        'node-1': { localOverrides: [{ field: 'maxPods', file: '95-local.conf' }] },
        'node-2': { localOverrides: [{ field: 'cpuManagerPolicy', file: '95-local.conf' }] },
      }),
      targetFields: new Set(['maxPods', 'evictionHard', 'evictionHard.memory.available']),
    });
    const plan = planRollout(input);
    assert.deepEqual(
      plan.status.degraded?.map((d) => [d.node, d.reason]),
      [['node-1', 'LocalOverride']],
    );
    assert.match(plan.status.degraded?.[0]?.message ?? '', /maxPods \(a local drop-in, 95-local\.conf, overrides it\)/);
  });

  it('the status names at most five of them, and counts all', () => {
    const all = names(20);
    const r = succeeded(all);
    const plan = planRollout(
      base({ rollout: r, nodes: all.map((n, i) => switched(n, i % 2 === 0 ? { active: OLD_ACTIVE } : {})) }),
    );
    assert.equal(plan.status.degradedNodes, 10);
    assert.deepEqual(
      plan.status.degraded?.map((d) => d.node),
      ['node-01', 'node-03', 'node-05', 'node-07', 'node-09'],
    );
    assert.match(condition(plan.status, 'Degraded')?.message ?? '', /and 5 more/);
  });

  it('a node another rollout has taken since is not this one’s to count', () => {
    const r = succeeded(['node-1']);
    const plan = planRollout(base({ rollout: r, nodes: [switched('node-1', { owner: 'r2', active: OLD_ACTIVE })] }));
    assert.equal(plan.status.degradedNodes, undefined);
  });

  it('while the rollout still runs, a node that succeeded and fell back is counted too', () => {
    const plan = planRollout(
      base({
        rollout: rollout(
          { strategy: { canary: 1, maxUnavailable: 1 } },
          {
            phase: 'Progressing',
            startTime: iso(0),
            currentBatch: 1,
            nodes: { 'node-1': done(), 'node-2': { state: 'Pending' } },
          },
        ),
        nodes: [switched('node-1', { active: OLD_ACTIVE }), node('node-2')],
      }),
    );
    assert.equal(plan.status.degradedNodes, 1);
    assert.equal(condition(plan.status, 'Degraded')?.status, 'True');
  });
});

describe('the node daemon’s report fails a node in flight', () => {
  const inFlight: NodeProgress = { state: 'InFlight', batch: 0, updatedAt: iso(0), previous: found() };
  const flying = (kubelet: Record<string, KubeletReport>, fields?: Set<string>): PlanInput =>
    base({
      now: at(10),
      rollout: rollout({}, { phase: 'Progressing', startTime: iso(0), currentBatch: 0, nodes: { 'node-1': inFlight } }),
      nodes: [switched('node-1')],
      kubelet: reports(kubelet),
      ...(fields ? { targetFields: fields } : {}),
    });

  it('LocalOverride: a local drop-in overrides a field the config sets, at once', () => {
    const plan = planRollout(
      flying({ 'node-1': { localOverrides: [{ field: 'maxPods', file: '95-local.conf' }] } }, new Set(['maxPods'])),
    );
    assert.equal(plan.status.nodes?.['node-1']?.state, 'Failed');
    assert.equal(plan.status.failures?.[0]?.reason, 'LocalOverride');
  });

  it('an override of a field the config does not set leaves the node succeeding', () => {
    const plan = planRollout(
      flying(
        { 'node-1': { localOverrides: [{ field: 'maxPods', file: '95-local.conf' }] } },
        new Set(['cpuManagerPolicy']),
      ),
    );
    assert.equal(plan.status.nodes?.['node-1']?.state, 'Succeeded');
  });

  it("a restart before the node is healthy on the config is its daemon's to judge (its crash-loop count), not a failure of the rollout", () => {
    const plan = planRollout(flying({ 'node-1': { unexpectedRestarts: 1, lastUnexpectedRestart: iso(5) } }));
    assert.equal(plan.status.nodes?.['node-1']?.state, 'Succeeded');
    assert.deepEqual(plan.status.failures ?? [], []);
  });

  it('a restart from before the change counts for nothing', () => {
    const plan = planRollout(flying({ 'node-1': { unexpectedRestarts: 3, lastUnexpectedRestart: iso(-5) } }));
    assert.equal(plan.status.nodes?.['node-1']?.state, 'Succeeded');
  });

  it('a restart during the soak fails the node', () => {
    const soaking: NodeProgress = { ...inFlight, readySince: iso(2) };
    const input = base({
      now: at(20),
      rollout: rollout(
        { strategy: { canary: 1, soakSeconds: 30 } },
        { phase: 'Progressing', startTime: iso(0), currentBatch: 0, nodes: { 'node-1': soaking } },
      ),
      nodes: [switched('node-1')],
    });
    assert.equal(planRollout(input).status.nodes?.['node-1']?.state, 'InFlight');
    const crashed = planRollout({ ...input, kubelet: reports({ 'node-1': { lastUnexpectedRestart: iso(15) } }) });
    assert.equal(crashed.status.nodes?.['node-1']?.state, 'Failed');
    assert.equal(crashed.status.failures?.[0]?.reason, 'KubeletRestarted');
    assert.match(crashed.status.failures?.[0]?.message ?? '', new RegExp(`restarted at ${iso(15)}`));
  });
});

describe('configFields and relevantOverrides', () => {
  it('every field the config sets, nested ones as dotted paths, without apiVersion and kind', () => {
    const fields = configFields(
      'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 50\nevictionHard:\n  memory.available: 100Mi\n',
    );
    assert.deepEqual([...fields].sort(), ['evictionHard', 'evictionHard.memory.available', 'maxPods']);
    assert.deepEqual([...configFields('{"maxPods": 5}')], ['maxPods']);
    assert.deepEqual([...configFields(': not yaml : [')], []);
  });

  it('with the fields unknown, every reported override counts; a malformed entry never does', () => {
    const report = {
      localOverrides: [
        { field: 'maxPods', file: 'a.conf' },
        { field: '', file: 'b.conf' },
      ],
    };
    assert.deepEqual(relevantOverrides(report, undefined), [{ field: 'maxPods', file: 'a.conf' }]);
    assert.deepEqual(relevantOverrides(undefined, new Set(['maxPods'])), []);
  });
});
