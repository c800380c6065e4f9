// kube-apiserver's validation of the apps/v1 kinds (pkg/apis/apps/validation and the registry strategies), for the
// fields dkc serves: metadata; replicas and minReadySeconds not negative; the selector required (but for a DaemonSet),
// valid, not empty, matching the template's labels and immutable on update; the template validated as a Pod's
// (pods/validation.ts under spec.template.spec; a StatefulSet's only for its labels and annotations, as upstream)
// with restartPolicy Always and no activeDeadlineSeconds; each kind's strategy and bounds; a StatefulSet's spec
// changing only where upstream allows; the status counts (status.ts); a ControllerRevision's data. Field errors in
// upstream's order and words. Pure.

import { deepEqual } from '../../api/equal.js';
import { field, type FieldError } from '../../api/field.js';
import { matchesLabels, objectSelectorRequirements } from '../../api/selectors.js';
import type { KubeObject } from '../../api/types.js';
import {
  FIELD_IMMUTABLE_ERROR_MSG,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  validateAnnotations,
  validateCoreObjectMeta,
  validateCoreObjectMetaUpdate,
  validateLabels,
} from '../../api/validation/index.js';
import { invalidGo } from '../../api/validation/goprint.js';
import { validateSelector } from '../disruptionbudgets/validation.js';
import { validatePodSpec } from '../pods/validation.js';
import type { PodSpec } from '../pods/types.js';
import { goLabelSelector, goStringMap } from './goprint.js';
import { appsText, RETENTION_POLICIES, TEMPLATE_RESTART_POLICIES } from './messages.js';
import { statusErrors } from './status.js';
import {
  daemonSetStrategyErrors,
  deploymentStrategyErrors,
  nonNegative,
  statefulSetStrategyErrors,
} from './strategies.js';

type Json = Record<string, unknown>;

const specOf = (obj: KubeObject): Json => (obj['spec'] as Json | undefined) ?? {};

/** What metav1.LabelSelectorAsSelector makes of a selector: undefined when it does not convert. */
function asSelector(sel: unknown): { empty: boolean; matches(labels: unknown): boolean } | undefined {
  // A nil selector selects nothing; it is not "empty" (labels.Nothing()), so the template check still runs.
  if (sel === undefined || sel === null) return { empty: false, matches: () => false };
  try {
    const reqs = objectSelectorRequirements(sel);
    return { empty: reqs.length === 0, matches: (l) => matchesLabels(reqs, l as Record<string, string>) };
  } catch {
    return undefined;
  }
}

/** The selector's own checks: required (but for a DaemonSet), valid, and not empty. */
function selectorErrors(
  sel: unknown,
  kind: 'deployment' | 'daemonset' | 'statefulset',
  required: boolean,
): FieldError[] {
  if (sel === undefined || sel === null) return required ? [field.required('spec.selector')] : [];
  const errs = validateSelector(sel, 'spec.selector');
  const s = sel as { matchLabels?: object | null; matchExpressions?: unknown[] | null };
  if (Object.keys(s.matchLabels ?? {}).length + (s.matchExpressions ?? []).length === 0)
    errs.push(invalidGo('spec.selector', sel, goLabelSelector(sel), appsText.emptySelector(kind)));
  return errs;
}

interface TemplateRules {
  /** The kind named by the activeDeadlineSeconds message. */
  kind: 'ReplicaSet' | 'DaemonSet' | 'StatefulSet';
  /** Whether the template's Pod spec is validated (not a StatefulSet's, as upstream). */
  podSpec: boolean;
}

/** The template checks that follow the selector: it matches the labels, and the template is a valid Pod template. */
function templateErrors(spec: Json, rules: TemplateRules): FieldError[] {
  const template = (spec['template'] as Json | undefined) ?? {};
  const meta = (template['metadata'] as Json | undefined) ?? {};
  const errs: FieldError[] = [];
  const selector = asSelector(spec['selector']);
  if (!selector)
    errs.push(
      invalidGo('spec.selector', spec['selector'], goLabelSelector(spec['selector']), 'invalid label selector'),
    );
  else if (!selector.empty && !selector.matches(meta['labels']))
    errs.push(
      invalidGo(
        'spec.template.metadata.labels',
        meta['labels'],
        goStringMap(meta['labels']),
        appsText.selectorMismatch,
      ),
    );
  // ValidatePodTemplateSpec reports the template's labels at spec.template.labels: upstream's path.
  errs.push(...validateLabels(meta['labels'], 'spec.template.labels'));
  errs.push(...validateAnnotations(meta['annotations'], 'spec.template.annotations'));
  const podSpec = (template['spec'] as PodSpec | undefined) ?? {};
  if (rules.podSpec) errs.push(...validatePodSpec(podSpec, 'spec.template.spec'));
  if (podSpec.restartPolicy !== 'Always')
    errs.push(
      field.notSupported('spec.template.spec.restartPolicy', podSpec.restartPolicy ?? '', TEMPLATE_RESTART_POLICIES),
    );
  if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null)
    errs.push(field.forbidden('spec.template.spec.activeDeadlineSeconds', appsText.deadlineForbidden(rules.kind)));
  return errs;
}

function deploymentSpecErrors(spec: Json): FieldError[] {
  const errs = nonNegative(spec['replicas'], 'spec.replicas');
  errs.push(...selectorErrors(spec['selector'], 'deployment', true));
  errs.push(...templateErrors(spec, { kind: 'ReplicaSet', podSpec: true }));
  errs.push(...deploymentStrategyErrors((spec['strategy'] as Json | undefined) ?? {}));
  errs.push(...nonNegative(spec['minReadySeconds'], 'spec.minReadySeconds'));
  errs.push(...nonNegative(spec['revisionHistoryLimit'], 'spec.revisionHistoryLimit'));
  const deadline = spec['progressDeadlineSeconds'];
  if (typeof deadline === 'number') {
    errs.push(...nonNegative(deadline, 'spec.progressDeadlineSeconds'));
    const minReady = typeof spec['minReadySeconds'] === 'number' ? spec['minReadySeconds'] : 0;
    if (deadline <= minReady)
      errs.push(field.invalid('spec.progressDeadlineSeconds', deadline, appsText.progressDeadline));
  }
  return errs;
}

function replicaSetSpecErrors(spec: Json): FieldError[] {
  const errs = [
    ...nonNegative(spec['replicas'], 'spec.replicas'),
    ...nonNegative(spec['minReadySeconds'], 'spec.minReadySeconds'),
  ];
  errs.push(...selectorErrors(spec['selector'], 'deployment', true));
  errs.push(...templateErrors(spec, { kind: 'ReplicaSet', podSpec: true }));
  return errs;
}

function daemonSetSpecErrors(spec: Json): FieldError[] {
  const errs = selectorErrors(spec['selector'], 'daemonset', false);
  errs.push(...templateErrors(spec, { kind: 'DaemonSet', podSpec: true }));
  errs.push(...nonNegative(spec['minReadySeconds'], 'spec.minReadySeconds'));
  errs.push(...daemonSetStrategyErrors((spec['updateStrategy'] as Json | undefined) ?? {}));
  errs.push(...nonNegative(spec['revisionHistoryLimit'], 'spec.revisionHistoryLimit'));
  return errs;
}

function retentionErrors(policy: unknown): FieldError[] {
  if (policy === null || typeof policy !== 'object') return [];
  const errs: FieldError[] = [];
  for (const k of ['whenDeleted', 'whenScaled']) {
    const v = (policy as Json)[k];
    if (typeof v !== 'string' || !RETENTION_POLICIES.includes(v))
      errs.push(field.notSupported(`spec.persistentVolumeClaimRetentionPolicy.${k}`, v ?? '', RETENTION_POLICIES));
  }
  return errs;
}

function statefulSetSpecErrors(spec: Json): FieldError[] {
  const errs = statefulSetStrategyErrors(spec);
  errs.push(...retentionErrors(spec['persistentVolumeClaimRetentionPolicy']));
  errs.push(...nonNegative(spec['replicas'], 'spec.replicas'));
  errs.push(...nonNegative(spec['minReadySeconds'], 'spec.minReadySeconds'));
  const ordinals = spec['ordinals'] as Json | undefined | null;
  if (ordinals) errs.push(...nonNegative(ordinals['start'], 'spec.ordinals.start'));
  errs.push(...selectorErrors(spec['selector'], 'statefulset', true));
  errs.push(...templateErrors(spec, { kind: 'StatefulSet', podSpec: false }));
  return errs;
}

/** The registry strategies' rule for apps/v1: the selector may not change. */
function immutableSelector(obj: KubeObject, old: KubeObject): FieldError[] {
  const next = specOf(obj)['selector'];
  if (deepEqual(next, specOf(old)['selector'])) return [];
  return [invalidGo('spec.selector', next, goLabelSelector(next), FIELD_IMMUTABLE_ERROR_MSG)];
}

const STATEFULSET_MUTABLE = [
  'replicas',
  'template',
  'updateStrategy',
  'minReadySeconds',
  'ordinals',
  'persistentVolumeClaimRetentionPolicy',
];

function statefulSetUpdateErrors(obj: KubeObject, old: KubeObject): FieldError[] {
  const munged = structuredClone(specOf(obj));
  const prev = specOf(old);
  for (const k of STATEFULSET_MUTABLE) {
    if (prev[k] === undefined) delete munged[k];
    else munged[k] = prev[k];
  }
  return deepEqual(munged, prev) ? [] : [field.forbidden('spec', appsText.stsSpecForbidden)];
}

const meta = (obj: KubeObject, names = nameIsDNSSubdomain) => validateCoreObjectMeta(obj.metadata, true, names);
const metaUpdate = (obj: KubeObject, old: KubeObject) => validateCoreObjectMetaUpdate(obj.metadata, old.metadata);

/** A Deployment's, ReplicaSet's or DaemonSet's rules: metadata, the spec, and on update the immutable selector. */
function withImmutableSelector(specErrors: (spec: Json) => FieldError[]) {
  return {
    create: (obj: KubeObject) => [...meta(obj), ...specErrors(specOf(obj))],
    update: (obj: KubeObject, old: KubeObject) => [
      ...metaUpdate(obj, old),
      ...specErrors(specOf(obj)),
      ...immutableSelector(obj, old),
      ...statusErrors(obj, old),
    ],
  };
}

export const deploymentValidation = withImmutableSelector(deploymentSpecErrors);
export const replicaSetValidation = withImmutableSelector(replicaSetSpecErrors);
export const daemonSetValidation = withImmutableSelector(daemonSetSpecErrors);

export const statefulSetValidation = {
  create: (obj: KubeObject) => [...meta(obj, nameIsDNSLabel), ...statefulSetSpecErrors(specOf(obj))],
  update: (obj: KubeObject, old: KubeObject) => [
    ...metaUpdate(obj, old),
    ...statefulSetSpecErrors(specOf(obj)),
    ...statefulSetUpdateErrors(obj, old),
    ...statusErrors(obj, old),
  ],
};

function revisionErrors(obj: KubeObject): FieldError[] {
  const errs =
    obj['data'] === undefined || obj['data'] === null ? [field.required('data', appsText.revisionDataRequired)] : [];
  return [...errs, ...nonNegative(obj['revision'], 'revision')];
}

export const controllerRevisionValidation = {
  create: (obj: KubeObject) => [...meta(obj), ...revisionErrors(obj)],
  update: (obj: KubeObject, old: KubeObject) => {
    const errs = [...metaUpdate(obj, old), ...meta(obj), ...revisionErrors(obj)];
    if (!deepEqual(obj['data'], old['data']))
      errs.push(invalidGo('data', obj['data'], 'runtime.RawExtension{…}', FIELD_IMMUTABLE_ERROR_MSG));
    return errs;
  },
};
