// What kube-apiserver fills into the apps/v1 kinds before validating them: the apps/v1 defaulters (SetDefaults_
// Deployment, _ReplicaSet, _DaemonSet, _StatefulSet), the template's Pod spec defaulted as every Pod spec is
// (pods/defaults.ts), a StatefulSet's claim templates (volumeMode, phase), and on create the empty status and the
// DaemonSet's template generation the registry strategies start with. Pure: each function changes what it is given.

import { DAEMONSET_TEMPLATE_GENERATION_ANNOTATION } from '../../api/apps.js';
import { deepEqual } from '../../api/equal.js';
import type { KubeObject } from '../../api/types.js';
import { defaultPodSpec } from '../pods/defaults.js';

type Json = Record<string, unknown>;

const HISTORY_LIMIT = 10;
const PROGRESS_DEADLINE_SECONDS = 600;

/** The object's `key`, made an object when it is absent or not one. */
function objectAt(parent: Json, key: string): Json {
  const v = parent[key];
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Json;
  const made: Json = {};
  parent[key] = made;
  return made;
}

function specOf(obj: KubeObject): Json {
  return objectAt(obj, 'spec');
}

/** The generated defaulters' walk into spec.template.spec. */
function defaultTemplate(spec: Json): void {
  const template = spec['template'];
  if (template === null || typeof template !== 'object') return;
  defaultPodSpec(objectAt(template as Json, 'spec'));
}

/** The rolling-update block of a strategy of `type`, each bound defaulted when the type is RollingUpdate. */
function defaultRollingUpdate(strategy: Json, bounds: Json): void {
  if (strategy['type'] !== 'RollingUpdate') return;
  const rolling = objectAt(strategy, 'rollingUpdate');
  for (const [k, v] of Object.entries(bounds)) if (rolling[k] === undefined || rolling[k] === null) rolling[k] = v;
}

function defaultCounts(spec: Json, counts: Json): void {
  for (const [k, v] of Object.entries(counts)) if (spec[k] === undefined || spec[k] === null) spec[k] = v;
}

export function defaultDeployment(obj: KubeObject): void {
  const spec = specOf(obj);
  defaultCounts(spec, { replicas: 1 });
  const strategy = objectAt(spec, 'strategy');
  strategy['type'] ||= 'RollingUpdate';
  defaultRollingUpdate(strategy, { maxUnavailable: '25%', maxSurge: '25%' });
  defaultCounts(spec, { revisionHistoryLimit: HISTORY_LIMIT, progressDeadlineSeconds: PROGRESS_DEADLINE_SECONDS });
  defaultTemplate(spec);
}

export function defaultReplicaSet(obj: KubeObject): void {
  const spec = specOf(obj);
  defaultCounts(spec, { replicas: 1 });
  defaultTemplate(spec);
}

export function defaultDaemonSet(obj: KubeObject): void {
  const spec = specOf(obj);
  const strategy = objectAt(spec, 'updateStrategy');
  strategy['type'] ||= 'RollingUpdate';
  defaultRollingUpdate(strategy, { maxUnavailable: 1, maxSurge: 0 });
  defaultCounts(spec, { revisionHistoryLimit: HISTORY_LIMIT });
  defaultTemplate(spec);
}

/** SetDefaults_PersistentVolumeClaim and _Spec, as the generated defaulters apply them to each claim template. */
function defaultClaimTemplates(spec: Json): void {
  const claims = spec['volumeClaimTemplates'];
  if (!Array.isArray(claims)) return;
  for (const claim of claims) {
    if (claim === null || typeof claim !== 'object') continue;
    objectAt(claim as Json, 'spec')['volumeMode'] ??= 'Filesystem';
    objectAt(claim as Json, 'status')['phase'] ||= 'Pending';
  }
}

export function defaultStatefulSet(obj: KubeObject): void {
  const spec = specOf(obj);
  spec['podManagementPolicy'] ||= 'OrderedReady';
  const strategy = objectAt(spec, 'updateStrategy');
  if (!strategy['type']) {
    strategy['type'] = 'RollingUpdate';
    objectAt(strategy, 'rollingUpdate');
  }
  const rolling = strategy['rollingUpdate'];
  if (strategy['type'] === 'RollingUpdate' && rolling !== null && typeof rolling === 'object')
    defaultCounts(rolling as Json, { partition: 0 });
  const retention = objectAt(spec, 'persistentVolumeClaimRetentionPolicy');
  retention['whenDeleted'] ||= 'Retain';
  retention['whenScaled'] ||= 'Retain';
  defaultCounts(spec, { replicas: 1, revisionHistoryLimit: HISTORY_LIMIT });
  // Go writes the field even when empty (no omitempty).
  spec['serviceName'] ??= '';
  defaultTemplate(spec);
  defaultClaimTemplates(spec);
}

/** The status each kind starts with (PrepareForCreate), in Go's JSON: the counts without omitempty are written. */
export const initialStatus: Readonly<Record<string, () => Json>> = {
  Deployment: () => ({}),
  ReplicaSet: () => ({ replicas: 0 }),
  DaemonSet: () => ({ currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 }),
  StatefulSet: () => ({ replicas: 0, availableReplicas: 0 }),
};

function templateGeneration(obj: KubeObject): number {
  const raw = obj.metadata.annotations?.[DAEMONSET_TEMPLATE_GENERATION_ANNOTATION];
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? n : 0;
}

function setTemplateGeneration(obj: KubeObject, n: number): void {
  obj.metadata.annotations = {
    ...(obj.metadata.annotations ?? {}),
    [DAEMONSET_TEMPLATE_GENERATION_ANNOTATION]: String(n),
  };
}

/** A new DaemonSet is at template generation 1 at least (the deprecated annotation apps/v1 carries it in). */
export function startTemplateGeneration(obj: KubeObject): void {
  setTemplateGeneration(obj, Math.max(1, templateGeneration(obj)));
}

/** A DaemonSet whose template changed moves to the next template generation; otherwise it keeps the stored one. */
export function advanceTemplateGeneration(obj: KubeObject, old: KubeObject): void {
  const prev = templateGeneration(old);
  const changed = !deepEqual(
    (obj['spec'] as Json | undefined)?.['template'],
    (old['spec'] as Json | undefined)?.['template'],
  );
  if (changed) setTemplateGeneration(obj, prev + 1);
  else if (prev > 0) setTemplateGeneration(obj, prev);
}
