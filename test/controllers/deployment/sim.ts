// A small stand-in for the cluster around the Deployment controller's decisions: it applies a decision (creates,
// updates, deletes, status), then lets each ReplicaSet's Pods follow its size, a created Pod becoming ready and
// available `lag` syncs later, the unavailable ones going first on scale-down.

import type { Deployment, ReplicaSet } from '../../../src/api/apps.js';
import { decideDeployment, type DeploymentDecision } from '../../../src/controllers/deployment/decide.js';

export interface Cluster {
  d: Deployment;
  rss: ReplicaSet[];
  /** Per ReplicaSet name, the sync at which each of its Pods was created. */
  pods: Map<string, number[]>;
  tick: number;
  nowMs: number;
  lag: number;
  uid: number;
}

export function cluster(d: Deployment, rss: ReplicaSet[], lag: number, nowMs: number): Cluster {
  const pods = new Map(rss.map((rs) => [rs.metadata.name!, new Array<number>(rs.spec.replicas ?? 0).fill(-100)]));
  const c: Cluster = { d, rss, pods, tick: 0, nowMs, lag, uid: 0 };
  settle(c);
  return c;
}

function settle(c: Cluster): void {
  for (const rs of c.rss) {
    const born = c.pods.get(rs.metadata.name!) ?? [];
    const want = rs.spec.replicas ?? 0;
    while (born.length < want) born.push(c.tick);
    born.sort((a, b) => a - b);
    while (born.length > want) born.pop();
    c.pods.set(rs.metadata.name!, born);
    const available = born.filter((t) => t <= c.tick - c.lag).length;
    rs.status = {
      replicas: born.length,
      readyReplicas: available,
      availableReplicas: available,
      observedGeneration: rs.metadata.generation ?? 1,
    };
  }
}

export function step(c: Cluster): DeploymentDecision {
  c.tick++;
  c.nowMs += 1000;
  const out = decideDeployment({ deployment: c.d, replicaSets: c.rss, nowMs: c.nowMs });
  if (out.create) {
    const rs = structuredClone(out.create);
    rs.metadata.uid = `rs-${++c.uid}`;
    rs.metadata.creationTimestamp = new Date(c.nowMs).toISOString();
    rs.metadata.generation = 1;
    c.rss.push(rs);
  }
  for (const { rs } of out.update) {
    const i = c.rss.findIndex((x) => x.metadata.name === rs.metadata.name);
    const next = structuredClone(rs);
    next.metadata.generation = (c.rss[i]!.metadata.generation ?? 1) + 1;
    next.status = c.rss[i]!.status!;
    c.rss[i] = next;
  }
  c.rss = c.rss.filter((rs) => !out.delete.some((x) => x.metadata.name === rs.metadata.name));
  if (out.revision !== undefined)
    c.d.metadata.annotations = { ...c.d.metadata.annotations, 'deployment.kubernetes.io/revision': out.revision };
  c.d.status = out.status;
  settle(c);
  return out;
}
