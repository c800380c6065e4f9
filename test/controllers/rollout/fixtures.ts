// Nodes, rollouts and ConfigMap identities for the rollout tests, built the way the API returns them.

import assert from 'node:assert/strict';
import type { Lease, Node, NodeConfigSource } from '../../../src/api/types.js';
import {
  LEGACY_PREVIOUS_SOURCE_ANNOTATION,
  REVERT_RECORD_ANNOTATION,
  ROLLOUT_ANNOTATION,
  ROLLOUT_FINALIZER,
  type NodeConfigRollout,
  type NodeProgress,
  type RolloutSpec,
  type RolloutStatus,
} from '../../../src/api/dkc/rollout.js';
import { assignmentPatch } from '../../../src/controllers/rollout/apply.js';
import type { NodeAssignment } from '../../../src/controllers/rollout/plan/index.js';

export const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);
export const at = (seconds: number): Date => new Date(T0 + seconds * 1000);
export const iso = (seconds: number): string => at(seconds).toISOString().replace('.000Z', 'Z');

export const CM = { uid: 'cm-uid', resourceVersion: '10' };
export const NEW: NodeConfigSource = {
  configMap: { namespace: 'kube-system', name: 'new', kubeletConfigKey: 'kubelet' },
};
export const OLD: NodeConfigSource = {
  configMap: { namespace: 'kube-system', name: 'old', kubeletConfigKey: 'kubelet' },
};
/**
 * What a rollout of a mutable ConfigMap assigns: its pinned copy in dkc-configs, named in the rollout's
 * status.renderedConfigMap (`r1-<hash>`), under the source's key.
 */
export function pinnedOf(r: NodeConfigRollout | undefined): NodeConfigSource {
  const name = r?.status?.renderedConfigMap;
  assert.match(name ?? '', /^r1-[a-z0-9]{10}$/, 'the rollout recorded its pinned copy');
  return { configMap: { namespace: 'dkc-configs', name: name ?? '', kubeletConfigKey: 'kubelet' } };
}

/** NEW as status.config reports it: with the ConfigMap's uid and resourceVersion. */
export const NEW_ACTIVE: NodeConfigSource = { configMap: { ...NEW.configMap!, ...CM } };
export const OLD_ACTIVE: NodeConfigSource = { configMap: { ...OLD.configMap!, uid: 'old-uid', resourceVersion: '3' } };

export interface NodeOptions {
  labels?: Record<string, string>;
  source?: NodeConfigSource | null;
  active?: NodeConfigSource | null;
  assigned?: NodeConfigSource | null;
  error?: string;
  ready?: 'True' | 'False' | 'Unknown';
  readyTransition?: string;
  owner?: string;
  /** The dkc.io/previous-config-source annotation earlier controllers wrote (anyone who may patch the node can too). */
  legacyPrevious?: string;
  /** The guarded copy of the revert record the controller writes with a change (dkc.io/revert-record); null: none. */
  record?: NonNullable<NodeProgress['previous']> | null;
  rv?: string;
}

export function node(name: string, o: NodeOptions = {}): Node {
  const annotations: Record<string, string> = {};
  if (o.owner !== undefined) annotations[ROLLOUT_ANNOTATION] = o.owner;
  if (o.legacyPrevious !== undefined) annotations[LEGACY_PREVIOUS_SOURCE_ANNOTATION] = o.legacyPrevious;
  if (o.record) annotations[REVERT_RECORD_ANNOTATION] = JSON.stringify(o.record);
  const source = o.source === undefined ? OLD : o.source;
  const active = o.active === undefined ? (source === OLD ? OLD_ACTIVE : null) : o.active;
  const config: NonNullable<NonNullable<Node['status']>['config']> = {};
  if (o.assigned ?? active) config.assigned = o.assigned ?? active;
  if (active) config.active = active;
  if (o.error) config.error = o.error;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      resourceVersion: o.rv ?? '100',
      labels: o.labels ?? { pool: 'blue' },
      ...(Object.keys(annotations).length ? { annotations } : {}),
    },
    spec: source ? { configSource: source } : {},
    status: {
      conditions: [{ type: 'Ready', status: o.ready ?? 'True', lastTransitionTime: o.readyTransition ?? iso(-3600) }],
      config,
    },
  };
}

/**
 * A node this rollout has switched to NEW, running it (unless told otherwise), with the guarded record of what it ran
 * before (OLD, held by nobody, unless told otherwise).
 */
export function switched(name: string, o: NodeOptions = {}): Node {
  return node(name, { source: NEW, active: NEW_ACTIVE, owner: 'r1', record: found(), ...o });
}

/** What a rollout records before it switches a node that ran OLD (or `source`), held by `holder`. */
export function found(source: NodeConfigSource | null = OLD, holder?: string): NonNullable<NodeProgress['previous']> {
  return {
    configSource: source?.configMap ? { configMap: { ...source.configMap } } : {},
    ...(holder !== undefined ? { rollout: holder } : {}),
  };
}

/** A spec's fields, where undefined leaves one out (of the defaults too), as a decoded object has it. */
export type SpecFields = { [K in keyof RolloutSpec]?: RolloutSpec[K] | undefined };

function defined<T extends object>(fields: { [K in keyof T]?: T[K] | undefined }): T {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as T;
}

export function rollout(
  spec: SpecFields = {},
  status?: RolloutStatus,
  meta: Partial<NodeConfigRollout['metadata']> = {},
): NodeConfigRollout {
  return {
    apiVersion: 'dkc.io/v1alpha1',
    kind: 'NodeConfigRollout',
    // As the controller leaves it after its first look: with its finalizer.
    metadata: {
      name: 'r1',
      uid: 'r1-uid',
      resourceVersion: '50',
      generation: 1,
      creationTimestamp: iso(-60),
      finalizers: [ROLLOUT_FINALIZER],
      ...meta,
    },
    spec: defined<RolloutSpec>({
      configSource: NEW,
      nodeSelector: { matchLabels: { pool: 'blue' } },
      strategy: { canary: 1, maxUnavailable: 1, soakSeconds: 0, pauseAfterCanary: false },
      progressDeadlineSeconds: 120,
      maxFailures: 0,
      failurePolicy: 'Revert',
      paused: false,
      revert: false,
      ...spec,
    }),
    ...(status ? { status } : {}),
  };
}

/** The node's Lease in kube-node-lease as its agent renews it: at `renewed` (a Date), for `durationSeconds`. */
export function lease(name: string, renewed: Date, durationSeconds = 40): Lease {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name, namespace: 'kube-node-lease' },
    spec: {
      holderIdentity: name,
      leaseDurationSeconds: durationSeconds,
      renewTime: renewed.toISOString().replace('Z', '000Z'),
    },
  };
}

/** Every node heartbeating: its Lease renewed at `renewed`. */
export function leasesFor(nodes: readonly Node[], renewed: Date, durationSeconds = 40): Map<string, Lease> {
  return new Map(nodes.map((n) => [n.metadata.name ?? '', lease(n.metadata.name ?? '', renewed, durationSeconds)]));
}

/**
 * The nodes after a plan's patches took and each node's agent ran what it was assigned (status.config assigned and
 * active, as a node that acknowledges the assignment reports it), and the rollout with the plan's status: the input of
 * the next look.
 */
export function afterPatches<I extends { nodes: readonly Node[]; rollout: NodeConfigRollout }>(
  input: I,
  plan: { assignments: readonly NodeAssignment[]; status: RolloutStatus },
): I {
  const nodes = input.nodes.map((n) => {
    const p = plan.assignments.find((x) => x.node === n.metadata.name);
    if (!p) return n;
    const annotations = { ...(n.metadata.annotations ?? {}) };
    for (const [k, v] of Object.entries(assignmentPatch(p, 'Node').metadata.annotations)) {
      if (v === null) delete annotations[k];
      else annotations[k] = v;
    }
    const out: Node = { ...n, metadata: { ...n.metadata, annotations } };
    if (p.source !== 'kept') {
      const src = p.source;
      out.spec = src ? { configSource: src } : {};
      const reported = src?.configMap ? { configMap: { ...src.configMap, uid: 'uid', resourceVersion: '1' } } : null;
      out.status = { ...n.status, config: reported ? { assigned: reported, active: reported } : {} };
    }
    return out;
  });
  return { ...input, nodes, rollout: { ...input.rollout, status: plan.status } };
}
