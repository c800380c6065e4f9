// Crash safety of the decision: a model cluster whose controller "dies" at random points of applying a plan (before
// the record of what the nodes run is written, between two node patches, after the node patches, after the spec
// patch, before the status write) and comes back reading only what the API holds. Hundreds of seeded trials, good
// and bad configs: every one ends Succeeded or Reverted with every node right, no node is switched or restored twice,
// no plan that starts nodes leaves more in flight than the strategy allows, and no written status shows more nodes
// changed and not yet healthy than that. (A controller that comes back begins the soaks it finds again, so nodes the
// last one had judged succeeded may show in flight beside those it started after them: healthy, soaking.)

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Node } from '../../../src/api/types.js';
import { planRollout, type NodeAssignment } from '../../../src/controllers/rollout/plan/index.js';
import { assignmentPatch } from '../../../src/controllers/rollout/apply.js';
import { ROLLOUT_ANNOTATION, isFinished, recordSource, type NodeConfigRollout } from '../../../src/api/dkc/rollout.js';
import { CM, NEW, NEW_ACTIVE, T0, leasesFor, node, rollout } from './fixtures.js';
import { prng } from '../../helpers/prng.js';

function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    target !== null && typeof target === 'object' ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

interface Trial {
  seed: number;
  bad: boolean;
  maxUnavailable: number;
}

/** Agents react at once: a good config becomes active; a bad one is refused with the kubelet's error. */
function agentsReact(nodes: Map<string, Node>, bad: boolean): void {
  for (const [name, n] of nodes) {
    const cm = n.spec?.configSource?.configMap;
    const assigned = n.status?.config?.assigned?.configMap;
    if ((cm?.name ?? null) === (assigned?.name ?? null)) continue;
    const src = cm
      ? {
          configMap: {
            ...cm,
            uid: cm.name === 'new' ? CM.uid : 'old-uid',
            resourceVersion: cm.name === 'new' ? CM.resourceVersion : '3',
          },
        }
      : null;
    const refused = bad && cm?.name === 'new';
    const config = !src
      ? {}
      : refused
        ? {
            assigned: src,
            active: n.status?.config?.active ?? null,
            error: 'failed to validate config, see Kubelet log for details',
          }
        : { assigned: src, active: src };
    nodes.set(name, { ...n, status: { ...n.status, config } });
  }
}

function runTrial(t: Trial): void {
  const random = prng(t.seed);
  const nodes = new Map<string, Node>();
  for (let i = 1; i <= 6; i++)
    nodes.set(`node-${i}`, node(`node-${i}`, { labels: { pool: i <= 4 ? 'blue' : 'green' }, rv: '1' }));
  nodes.set('node-4', node('node-4', { source: null, rv: '1' }));
  const before = new Map([...nodes].map(([k, v]) => [k, structuredClone(v.spec?.configSource ?? null)]));
  // Created without the finalizer, as a user creates it: the controller's first look adds it.
  let r: NodeConfigRollout = rollout(
    { strategy: { canary: 1, maxUnavailable: t.maxUnavailable, soakSeconds: 2 } },
    undefined,
    { finalizers: [] },
  );
  let rv = 1;
  let now = T0;
  let startedAt = T0;
  const starts = new Map<string, number>();
  const restores = new Map<string, number>();
  const count = (m: Map<string, number>, k: string): number => m.set(k, (m.get(k) ?? 0) + 1).get(k)!;
  const applyNode = (p: NodeAssignment): void => {
    const n = nodes.get(p.node)!;
    assert.equal(
      n.metadata.resourceVersion,
      p.resourceVersion,
      'patches carry the resourceVersion they were planned on',
    );
    const next = mergePatch(n, assignmentPatch(p, 'Node')) as Node;
    next.metadata.resourceVersion = String(++rv);
    nodes.set(p.node, next);
    const n2 = p.holder === null ? count(restores, p.node) : count(starts, p.node);
    assert.equal(n2, 1, `seed ${t.seed}: ${p.node} patched twice for the same step`);
  };
  for (let step = 0; step < 400 && !isFinished(r); step++) {
    // Every agent heartbeats; the controller that comes back after a crash is a new one (it starts now).
    const all = [...nodes.values()];
    const plan = planRollout({
      rollout: r,
      nodes: all,
      configMap: CM,
      others: [],
      now: new Date(now),
      leases: leasesFor(all, new Date(now)),
      startedAt: new Date(startedAt),
    });
    // Crash points: before the intent write (0), before patch i (1..n), before the spec patch (n+1), before the
    // status write (n+2); or none.
    const n = plan.assignments.length;
    const crashAt = random() < 0.3 ? Math.floor(random() * (n + 3)) : -1;
    let crashed = crashAt === 0;
    if (!crashed && plan.intent) r = { ...r, status: plan.intent };
    for (let i = 0; i < n && !crashed; i++) {
      if (crashAt === i + 1) crashed = true;
      else applyNode(plan.assignments[i]!);
    }
    if (!crashed && crashAt === n + 1) crashed = true;
    if (!crashed && plan.rolloutPatch) r = mergePatch(r, plan.rolloutPatch) as NodeConfigRollout;
    if (!crashed && crashAt !== n + 2) {
      const flying = Object.values(plan.status.nodes ?? {}).filter((p) => p.state === 'InFlight');
      const bound = Math.max(1, t.maxUnavailable);
      if (n > 0) assert.ok(flying.length <= bound, `seed ${t.seed}: ${flying.length} nodes in flight after a start`);
      const down = flying.filter((p) => p.readySince === undefined).length;
      assert.ok(down <= bound, `seed ${t.seed}: ${down} nodes changed and not yet healthy`);
      r = { ...r, status: plan.status };
    }
    if (random() < 0.7) agentsReact(nodes, t.bad);
    now += Math.floor(random() * 1500);
    if (crashAt >= 0) startedAt = now;
  }
  const phase = r.status?.phase;
  assert.equal(phase, t.bad ? 'Reverted' : 'Succeeded', `seed ${t.seed}: ended ${phase}`);
  for (const [name, n] of nodes) {
    const blue = n.metadata.labels?.['pool'] === 'blue';
    if (t.bad || !blue) {
      assert.deepEqual(
        n.spec?.configSource ?? null,
        before.get(name),
        `seed ${t.seed}: ${name} back on its exact previous source`,
      );
      assert.equal(
        n.metadata.annotations?.[ROLLOUT_ANNOTATION],
        undefined,
        `seed ${t.seed}: ${name} annotations removed`,
      );
    } else {
      assert.deepEqual(n.spec?.configSource, NEW, `seed ${t.seed}: ${name} on the new config`);
      assert.deepEqual(n.status?.config?.active, NEW_ACTIVE);
    }
  }
  if (!t.bad) assert.equal(r.status?.succeededNodes, 4);
  for (const [name, p] of Object.entries(r.status?.nodes ?? {})) {
    if (p.updatedAt !== undefined)
      assert.deepEqual(
        p.previous,
        { configSource: recordSource(before.get(name) ?? null) },
        `seed ${t.seed}: ${name}'s record of what it ran`,
      );
  }
}

describe('planRollout under crashes', () => {
  it('300 seeded trials with random crash points end Succeeded or Reverted with every node right', () => {
    for (let seed = 1; seed <= 300; seed++) runTrial({ seed, bad: seed % 2 === 0, maxUnavailable: 1 + (seed % 3) });
  });
});
