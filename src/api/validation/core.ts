// Validation of the core/v1 kinds dkc serves (pkg/apis/core/validation): Node with its dynamic
// config fields, ConfigMap, Namespace, Event (the legacy core/v1 rules) and a minimal Pod. Each
// kind has a create validator (obj) and an update validator (obj, old) returning field errors in
// upstream's order, so aggregated 422 messages read exactly like kube-apiserver's.

import { field, type FieldError } from '../field.js';
import type {
  ConfigMap,
  ConfigMapNodeConfigSource,
  Event,
  Namespace,
  Node,
  NodeConfigSource,
  NodeConfigStatus,
  ObjectReference,
  Pod,
  Taint,
} from '../types.js';
import { duplicateGo, goNilPointer, invalidGo } from './goprint.js';
import {
  byteLength,
  isConfigMapKey,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  nameIsDNSSubdomain,
  validateConfigMapName,
  validateNamespaceName,
  validateNodeName,
} from './names.js';
import {
  str,
  validateCoreObjectMeta,
  validateCoreObjectMetaUpdate,
  validateFinalizerName,
  validateLabelName,
} from './objectmeta.js';

/** core.MaxSecretSize, which also bounds a ConfigMap's payload. */
export const MAX_CONFIGMAP_SIZE = 1024 * 1024;

export const IMMUTABLE_WHEN_SET_MSG = 'field is immutable when `immutable` is set';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function isSet<T>(v: T | null | undefined): v is T {
  return v !== null && v !== undefined;
}

// ---- Node: dynamic config source and status -------------------------------------------------

/**
 * How upstream prints a NodeConfigSource whose only subfield is nil. The validator works on the
 * internal type (package `core`) and field.Error prints structs with %#v after dereferencing the
 * pointer. With a single subfield this is the only shape that can fail the "exactly one" rule.
 */
export const NIL_NODE_CONFIG_SOURCE_GO = `core.NodeConfigSource{ConfigMap:${goNilPointer('core.ConfigMapNodeConfigSource')}}`;

function validateConfigMapNodeConfigSource(source: ConfigMapNodeConfigSource, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const namespace = str(source.namespace);
  if (namespace === '') errs.push(field.required(`${path}.namespace`, 'namespace must be set'));
  else
    for (const m of validateNamespaceName(namespace, false))
      errs.push(field.invalid(`${path}.namespace`, namespace, m));

  const name = str(source.name);
  if (name === '') errs.push(field.required(`${path}.name`, 'name must be set'));
  else for (const m of validateConfigMapName(name, false)) errs.push(field.invalid(`${path}.name`, name, m));

  const key = str(source.kubeletConfigKey);
  if (key === '') errs.push(field.required(`${path}.kubeletConfigKey`, 'kubeletConfigKey must be set'));
  else for (const m of isConfigMapKey(key)) errs.push(field.invalid(`${path}.kubeletConfigKey`, key, m));
  return errs;
}

function validateConfigMapNodeConfigSourceSpec(source: ConfigMapNodeConfigSource, path: string): FieldError[] {
  const errs: FieldError[] = [];
  // The node resolves uid/resourceVersion itself; pinning them in spec would make the reference stale.
  if (str(source.uid) !== '') errs.push(field.forbidden(`${path}.uid`, 'uid must not be set in spec'));
  if (str(source.resourceVersion) !== '')
    errs.push(field.forbidden(`${path}.resourceVersion`, 'resourceVersion must not be set in spec'));
  return [...errs, ...validateConfigMapNodeConfigSource(source, path)];
}

function validateConfigMapNodeConfigSourceStatus(source: ConfigMapNodeConfigSource, path: string): FieldError[] {
  const errs: FieldError[] = [];
  // Status reports exactly which version was downloaded, so both identifiers are mandatory there.
  if (str(source.uid) === '') errs.push(field.required(`${path}.uid`, 'uid must be set in status'));
  if (str(source.resourceVersion) === '')
    errs.push(field.required(`${path}.resourceVersion`, 'resourceVersion must be set in status'));
  return [...errs, ...validateConfigMapNodeConfigSource(source, path)];
}

/**
 * The 1.8-alpha reference: the node downloads the ConfigMap by namespace and name and refuses it unless its UID is
 * the one given, so all three are required (the key is always `kubelet`).
 */
function validateConfigMapRef(ref: ObjectReference, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const namespace = str(ref.namespace);
  if (namespace === '') errs.push(field.required(`${path}.namespace`, 'namespace must be set'));
  else
    for (const m of validateNamespaceName(namespace, false))
      errs.push(field.invalid(`${path}.namespace`, namespace, m));

  const name = str(ref.name);
  if (name === '') errs.push(field.required(`${path}.name`, 'name must be set'));
  else for (const m of validateConfigMapName(name, false)) errs.push(field.invalid(`${path}.name`, name, m));

  if (str(ref.uid) === '') errs.push(field.required(`${path}.uid`, 'uid must be set'));
  return errs;
}

/**
 * %#v of a NodeConfigSource with both subfields set. Pointers print as addresses, which have no stable form, so
 * fixed ones stand in (as for Taint.TimeAdded).
 */
const BOTH_NODE_CONFIG_SOURCES_GO =
  'core.NodeConfigSource{ConfigMapRef:(*core.ObjectReference)(0xc000000000), ConfigMap:(*core.ConfigMapNodeConfigSource)(0xc000000010)}';

function validateNodeConfigSource(
  source: NodeConfigSource,
  path: string,
  validateConfigMap: (cm: ConfigMapNodeConfigSource, p: string) => FieldError[],
): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  if (isObject(source.configMapRef)) {
    count++;
    errs.push(...validateConfigMapRef(source.configMapRef, `${path}.configMapRef`));
  }
  if (isObject(source.configMap)) {
    count++;
    errs.push(...validateConfigMap(source.configMap, `${path}.configMap`));
  }
  if (count !== 1) {
    const goText = count === 0 ? NIL_NODE_CONFIG_SOURCE_GO : BOTH_NODE_CONFIG_SOURCES_GO;
    errs.push(invalidGo(path, source, goText, 'exactly one reference subfield must be non-nil'));
  }
  return errs;
}

/** The `Warning` a write of a Node carrying the 1.8-alpha reference is answered with (GetWarningsForNode's style). */
export const CONFIG_MAP_REF_WARNING =
  'spec.configSource.configMapRef: deprecated since v1.10 (the v1.8 alpha form); use spec.configSource.configMap with kubeletConfigKey instead';

/** Warnings for a Node about to be stored: the deprecated spec.configSource.configMapRef. */
export function nodeWarnings(node: Node): string[] {
  const source = node.spec?.configSource;
  return isObject(source) && isObject(source.configMapRef) ? [CONFIG_MAP_REF_WARNING] : [];
}

/** validateNodeConfigSourceSpec, run at `spec.configSource`. */
export function validateNodeConfigSourceSpec(source: NodeConfigSource, path = 'spec.configSource'): FieldError[] {
  return validateNodeConfigSource(source, path, validateConfigMapNodeConfigSourceSpec);
}

/** validateNodeConfigStatus, run at `status.config`. `error` is free text and not validated. */
export function validateNodeConfigStatus(status: NodeConfigStatus, path = 'status.config'): FieldError[] {
  const errs: FieldError[] = [];
  for (const sub of ['assigned', 'active', 'lastKnownGood'] as const) {
    const src = status[sub];
    if (isObject(src))
      errs.push(...validateNodeConfigSource(src, `${path}.${sub}`, validateConfigMapNodeConfigSourceStatus));
  }
  return errs;
}

// ---- Node: taints, addresses, immutable spec fields -----------------------------------------

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

function goTaint(t: Taint): string {
  // TimeAdded is a pointer; %#v prints its address, which has no stable form, so a fixed one stands in.
  const timeAdded = isSet(t.timeAdded) ? '(*v1.Time)(0xc000000000)' : goNilPointer('v1.Time');
  return `core.Taint{Key:${JSON.stringify(str(t.key))}, Value:${JSON.stringify(str(t.value))}, Effect:${JSON.stringify(str(t.effect))}, TimeAdded:${timeAdded}}`;
}

function validateNodeTaints(taints: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(taints)) return errs;
  const seen = new Map<string, Set<string>>();
  taints.forEach((raw: unknown, i) => {
    const t = (isObject(raw) ? raw : {}) as unknown as Taint;
    const idx = `${path}[${i}]`;
    const key = str(t.key);
    const value = str(t.value);
    const effect = str(t.effect);
    errs.push(...validateLabelName(key, `${idx}.key`));
    const valueErrs = isValidLabelValue(value);
    if (valueErrs.length) errs.push(field.invalid(`${idx}.value`, value, valueErrs.join(';')));
    if (effect === '') errs.push(field.required(`${idx}.effect`));
    else if (!TAINT_EFFECTS.includes(effect)) errs.push(field.notSupported(`${idx}.effect`, effect, TAINT_EFFECTS));
    const keys = seen.get(effect) ?? new Set<string>();
    if (keys.has(key)) {
      errs.push(duplicateGo(idx, t, goTaint(t), 'taints must be unique by key and effect pair'));
      return;
    }
    keys.add(key);
    seen.set(effect, keys);
  });
  return errs;
}

/** The internal type has only podCIDRs; v1's podCIDR converts to its first element. */
function podCIDRs(node: Node): string[] {
  const spec = node.spec ?? {};
  if (Array.isArray(spec.podCIDRs) && spec.podCIDRs.length > 0) return spec.podCIDRs.map(str);
  const single = str(spec.podCIDR);
  return single ? [single] : [];
}

/** spec.configSource and status.config, checked the same way on create and on update. */
function validateNodeConfigFields(node: Node): FieldError[] {
  const errs: FieldError[] = [];
  const source = node.spec?.configSource;
  if (isObject(source)) errs.push(...validateNodeConfigSourceSpec(source));
  const config = node.status?.config;
  if (isObject(config)) errs.push(...validateNodeConfigStatus(config));
  return errs;
}

/**
 * ValidateNode. Upstream checks spec.configSource and status.config only in ValidateNodeUpdate, relying on create
 * dropping them while the feature gate is off; dkc keeps them on create, so it checks them on create too — a Node
 * created pointing at `kubeletConfigKey: ../../etc/passwd` would otherwise reach its agent.
 */
export function validateNode(node: Node): FieldError[] {
  const errs = validateCoreObjectMeta(node.metadata, false, validateNodeName);
  errs.push(...validateNodeConfigFields(node));
  // Upstream passes the metadata path here, so taint errors read `metadata.taints[i]...`; kept for parity.
  errs.push(...validateNodeTaints(node.spec?.taints, 'metadata.taints'));
  return errs;
}

/** ValidateNodeUpdate: what both the main resource and nodes/status run on update. */
export function validateNodeUpdate(node: Node, old: Node): FieldError[] {
  const errs = validateCoreObjectMetaUpdate(node.metadata, old.metadata);

  const seen = new Set<string>();
  (node.status?.addresses ?? []).forEach((a, i) => {
    const type = str(a?.type);
    const address = str(a?.address);
    const k = `${type}\u0000${address}`;
    if (seen.has(k)) {
      errs.push(
        duplicateGo(
          `status.addresses[${i}]`,
          a,
          `core.NodeAddress{Type:${JSON.stringify(type)}, Address:${JSON.stringify(address)}}`,
        ),
      );
    }
    seen.add(k);
  });

  const oldCIDRs = podCIDRs(old);
  if (oldCIDRs.length > 0) {
    const newCIDRs = podCIDRs(node);
    const msg = 'node updates may not change podCIDR except from "" to valid';
    if (oldCIDRs.length !== newCIDRs.length) errs.push(field.forbidden('spec.podCIDRs', msg));
    else oldCIDRs.forEach((c, i) => c !== newCIDRs[i] && errs.push(field.forbidden('spec.podCIDRs', msg)));
  }

  const oldProvider = str(old.spec?.providerID);
  if (oldProvider !== '' && oldProvider !== str(node.spec?.providerID)) {
    errs.push(field.forbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
  }

  errs.push(...validateNodeConfigFields(node));
  errs.push(...validateNodeTaints(node.spec?.taints, 'metadata.taints'));

  if (str(node.spec?.externalID) !== str(old.spec?.externalID))
    errs.push(field.forbidden('spec.externalID', 'may not be updated'));
  return errs;
}

// ---- ConfigMap ------------------------------------------------------------------------------

/** Byte length of a base64 payload without decoding it (binaryData is []byte, base64 in JSON). */
function base64DecodedLength(b64: string): number {
  const s = b64.replace(/[\s]/g, '');
  let padding = 0;
  if (s.endsWith('==')) padding = 2;
  else if (s.endsWith('=')) padding = 1;
  return Math.max(0, Math.floor((s.length * 3) / 4) - padding);
}

function entries(v: unknown): Array<[string, string]> {
  return isObject(v) ? Object.entries(v).map(([k, val]) => [k, str(val)]) : [];
}

export function validateConfigMap(cm: ConfigMap): FieldError[] {
  const errs = validateCoreObjectMeta(cm.metadata, true, validateConfigMapName);
  const binary = isObject(cm.binaryData) ? cm.binaryData : {};
  let total = 0;
  for (const [key, value] of entries(cm.data)) {
    for (const m of isConfigMapKey(key)) errs.push(field.invalid(`data[${key}]`, key, m));
    if (Object.prototype.hasOwnProperty.call(binary, key))
      errs.push(field.invalid(`data[${key}]`, key, 'duplicate of key present in binaryData'));
    total += byteLength(value);
  }
  for (const [key, value] of entries(cm.binaryData)) {
    for (const m of isConfigMapKey(key)) errs.push(field.invalid(`binaryData[${key}]`, key, m));
    total += base64DecodedLength(value);
  }
  // Upstream counts values only, and reports the error on the empty path, which prints as `[]`.
  if (total > MAX_CONFIGMAP_SIZE) errs.push(field.tooLong('[]', MAX_CONFIGMAP_SIZE));
  return errs;
}

function sameStringMap(a: unknown, b: unknown): boolean {
  const ea = entries(a);
  const eb = new Map(entries(b));
  if (ea.length !== eb.size) return false;
  return ea.every(([k, v]) => eb.has(k) && eb.get(k) === v);
}

export function validateConfigMapUpdate(cm: ConfigMap, old: ConfigMap): FieldError[] {
  const errs = validateCoreObjectMetaUpdate(cm.metadata, old.metadata);
  if (old.immutable === true) {
    if (cm.immutable !== true) errs.push(field.forbidden('immutable', IMMUTABLE_WHEN_SET_MSG));
    if (!sameStringMap(cm.data, old.data)) errs.push(field.forbidden('data', IMMUTABLE_WHEN_SET_MSG));
    if (!sameStringMap(cm.binaryData, old.binaryData)) errs.push(field.forbidden('binaryData', IMMUTABLE_WHEN_SET_MSG));
  }
  errs.push(...validateConfigMap(cm));
  return errs;
}

// ---- Namespace ------------------------------------------------------------------------------

export function validateNamespace(ns: Namespace): FieldError[] {
  const errs = validateCoreObjectMeta(ns.metadata, false, validateNamespaceName);
  const finalizers = ns.spec?.finalizers;
  if (Array.isArray(finalizers))
    for (const f of finalizers) errs.push(...validateFinalizerName(str(f), 'spec.finalizers'));
  return errs;
}

export function validateNamespaceUpdate(ns: Namespace, old: Namespace): FieldError[] {
  return validateCoreObjectMetaUpdate(ns.metadata, old.metadata);
}

// ---- Event (core/v1 legacy rules) -----------------------------------------------------------

export const EVENT_REPORTING_INSTANCE_LENGTH_LIMIT = 128;
export const EVENT_ACTION_LENGTH_LIMIT = 128;
export const EVENT_REASON_LENGTH_LIMIT = 128;
export const EVENT_NOTE_LENGTH_LIMIT = 1024;

function isZeroTime(t: unknown): boolean {
  if (typeof t !== 'string' || t === '') return true;
  return t.startsWith('0001-01-01T00:00:00');
}

/**
 * legacyValidateEvent as applied to the core/v1 API. Old-style events (no eventTime) only need a
 * namespace consistent with the involved object; new-style ones must name their reporter. Note
 * the limits are checked only for new-style events, exactly as upstream does for v1.
 */
export function validateEvent(ev: Event): FieldError[] {
  const errs: FieldError[] = [];
  const namespace = str(ev.metadata?.namespace);
  const involvedNs = str(ev.involvedObject?.namespace);
  const mismatch = () => field.invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace');
  if (isZeroTime(ev.eventTime)) {
    if (involvedNs === '') {
      // "default" is tolerated for old clients that always wrote there.
      if (namespace !== '' && namespace !== 'default') errs.push(mismatch());
    } else if (namespace !== involvedNs) {
      errs.push(mismatch());
    }
  } else {
    if (involvedNs === '' && namespace !== 'default' && namespace !== 'kube-system') errs.push(mismatch());
    const component = str(ev.reportingComponent);
    if (component === '') errs.push(field.required('reportingComponent'));
    for (const m of isQualifiedName(component)) errs.push(field.invalid('reportingComponent', component, m));
    const instance = str(ev.reportingInstance);
    if (instance === '') errs.push(field.required('reportingInstance'));
    if (byteLength(instance) > EVENT_REPORTING_INSTANCE_LENGTH_LIMIT) {
      errs.push(
        field.invalid('reportingInstance', '', `can have at most ${EVENT_REPORTING_INSTANCE_LENGTH_LIMIT} characters`),
      );
    }
    const action = str(ev.action);
    if (action === '') errs.push(field.required('action'));
    if (byteLength(action) > EVENT_ACTION_LENGTH_LIMIT)
      errs.push(field.invalid('action', '', `can have at most ${EVENT_ACTION_LENGTH_LIMIT} characters`));
    const reason = str(ev.reason);
    if (reason === '') errs.push(field.required('reason'));
    if (byteLength(reason) > EVENT_REASON_LENGTH_LIMIT)
      errs.push(field.invalid('reason', '', `can have at most ${EVENT_REASON_LENGTH_LIMIT} characters`));
    if (byteLength(str(ev.message)) > EVENT_NOTE_LENGTH_LIMIT) {
      errs.push(field.invalid('message', '', `can have at most ${EVENT_NOTE_LENGTH_LIMIT} characters`));
    }
  }
  for (const m of isDNS1123Subdomain(namespace)) errs.push(field.invalid('namespace', namespace, m));
  return errs;
}

export function validateEventUpdate(ev: Event, _old: Event): FieldError[] {
  return validateEvent(ev);
}

// ---- Pod (minimal) --------------------------------------------------------------------------

/** Only what dkc's minimal Pod carries; containers are not modelled and so not required. */
export function validatePod(pod: Pod): FieldError[] {
  const errs = validateCoreObjectMeta(pod.metadata, true, nameIsDNSSubdomain);
  const nodeName = str(pod.spec?.nodeName);
  if (nodeName !== '')
    for (const m of validateNodeName(nodeName, false)) errs.push(field.invalid('spec.nodeName', nodeName, m));
  return errs;
}

export function validatePodUpdate(pod: Pod, old: Pod): FieldError[] {
  return validateCoreObjectMetaUpdate(pod.metadata, old.metadata);
}
