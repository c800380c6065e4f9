// NodeRestriction admission (plugin/pkg/admission/noderestriction) for node identities: a node writes only its own
// Node and Lease, may not create its Node already pointing at a config, and may not point itself at a new config —
// that would let it widen what the Node authorizer lets it read. Clearing `spec.configSource`, or sending it back
// unchanged, stays allowed: older kubelets drop the field when they write the whole Node. Nor may a node add, change
// or remove a label under `node-restriction.kubernetes.io/`: those are set by administrators for selectors a node
// must not steer itself into or out of (a NodeConfigPolicy's, as a workload's). Nor may it add, change or remove the
// dkc.io/rollout annotation, the rollout controller's mark of which rollout holds the node: a node that wrote it
// could halt other rollouts or have one revert. And on its own Node and NodeConfig a node may not bring
// managedFields it did not earn, nor own by server-side apply what the rollout controller applies
// (./nodemanagedfields.ts).

import { errors } from '../../api/errors.js';
import { deepEqual } from '../../api/equal.js';
import type { AdmissionAttributes, AdmissionPlugin, ServerReads } from '../authz.js';
import { DKC_GROUP, NODE_CONFIGS } from '../../api/dkc/nodeconfig.js';
import { ROLLOUT_ANNOTATION } from '../../api/dkc/rollout.js';
import { NODE_LEASE_NAMESPACE, type KubeObject } from '../../api/types.js';
import { nodeIdentity } from './nodeauthorizer.js';
import { nodeConfigRefusal } from './nodeconfigrestriction.js';
import { managedFieldsRefusal } from './nodemanagedfields.js';
import { nodePodRefusal } from './nodepods.js';
import { union, type FieldSet } from '../fieldmanager/fieldset.js';
import { compare } from '../fieldmanager/typed.js';
import { builtinKindType, customKindType } from '../fieldmanager/types.js';

function configSourceOf(obj: unknown): unknown {
  const spec = (obj as { spec?: { configSource?: unknown } } | undefined)?.spec;
  const cs = spec?.configSource;
  return cs === undefined ? null : cs;
}

const RESTRICTED_LABEL_DOMAIN = 'node-restriction.kubernetes.io';

function restrictedLabel(key: string): boolean {
  const slash = key.indexOf('/');
  const domain = slash < 0 ? '' : key.slice(0, slash);
  return domain === RESTRICTED_LABEL_DOMAIN || domain.endsWith(`.${RESTRICTED_LABEL_DOMAIN}`);
}

const labelsOf = (obj: unknown): Record<string, string> =>
  (obj as { metadata?: { labels?: Record<string, string> } } | undefined)?.metadata?.labels ?? {};

const annotationsOf = (obj: unknown): Record<string, string> =>
  (obj as { metadata?: { annotations?: Record<string, string> } } | undefined)?.metadata?.annotations ?? {};

/** The annotations a node may not add, change or remove on its Node: the rollout controller's. */
const CONTROLLER_ANNOTATIONS: readonly string[] = [ROLLOUT_ANNOTATION];

/** The controller's annotations added, changed or removed between `prev` and `next`, sorted. */
function forbiddenAnnotations(next: Record<string, string>, prev: Record<string, string>): string[] {
  return CONTROLLER_ANNOTATIONS.filter(
    (k) => Object.hasOwn(next, k) !== Object.hasOwn(prev, k) || next[k] !== prev[k],
  ).sort();
}

/** The restricted labels added, changed or removed between `prev` and `next`, sorted (upstream's getForbiddenLabels for that domain). */
function forbiddenLabels(next: Record<string, string>, prev: Record<string, string>): string[] {
  const keys = new Set([...Object.keys(next), ...Object.keys(prev)]);
  return [...keys]
    .filter((k) => restrictedLabel(k) && (!Object.hasOwn(next, k) || !Object.hasOwn(prev, k) || next[k] !== prev[k]))
    .sort();
}

type Forbid = (why: string) => Error;

/** A node's write of a Node: its own only, assigning nothing new, leaving the administrator's labels and the controller's annotation. */
function validateNode(a: AdmissionAttributes, nodeName: string, forbid: Forbid): void {
  if (nodeName === '') throw forbid(`could not determine node from user ${JSON.stringify(a.user.name)}`);
  if (a.name !== nodeName)
    throw forbid(`node ${JSON.stringify(nodeName)} is not allowed to modify node ${JSON.stringify(a.name)}`);
  // What the node asked for: a release that drops configSource would otherwise hide the attempt (kube's
  // NodeRestriction runs before the strategy's resets).
  const asked = a.requested ?? a.object;
  if (a.operation === 'CREATE' && configSourceOf(asked) !== null) {
    throw forbid(`node ${JSON.stringify(nodeName)} is not allowed to create pods with a non-nil configSource`);
  }
  const old = a.operation === 'UPDATE' ? a.oldObject : undefined;
  const labels = forbiddenLabels(labelsOf(a.object), labelsOf(old));
  if (labels.length > 0) {
    throw forbid(
      a.operation === 'CREATE'
        ? `node ${JSON.stringify(nodeName)} is not allowed to set the following labels: ${labels.join(', ')}`
        : `is not allowed to modify labels: ${labels.join(', ')}`,
    );
  }
  const annotations = forbiddenAnnotations(annotationsOf(a.object), annotationsOf(old));
  if (annotations.length > 0) {
    throw forbid(
      a.operation === 'CREATE'
        ? `node ${JSON.stringify(nodeName)} is not allowed to set the following annotations: ${annotations.join(', ')}`
        : `is not allowed to modify annotations: ${annotations.join(', ')}`,
    );
  }
  if (a.operation === 'UPDATE') {
    const next = configSourceOf(asked);
    if (next !== null && !deepEqual(next, configSourceOf(a.oldObject))) {
      throw forbid(
        `node ${JSON.stringify(nodeName)} is not allowed to update configSource to a new non-nil configSource`,
      );
    }
  }
  const why = unearned(a, nodeName);
  if (why) throw forbid(why);
}

/** The fields an update adds or modifies, typed as the field manager types the kind; undefined when they cannot be told. */
function changedFields(a: AdmissionAttributes): FieldSet | undefined {
  if (a.operation !== 'UPDATE' || !a.object || !a.oldObject) return undefined;
  try {
    const type = a.resource.custom
      ? customKindType(a.resource.custom.openapi.schema)
      : builtinKindType(a.resource.kind);
    // What the field manager compared: the object as asked for, before a release's strategy reset any of it.
    const c = compare(a.oldObject, a.requested ?? a.object, type);
    return union(c.added, c.modified);
  } catch {
    return undefined;
  }
}

/** Why a node's create or update of its own object brings managedFields it did not earn (./nodemanagedfields.ts). */
const unearned = (a: AdmissionAttributes, nodeName: string): string | undefined =>
  mainWrite(a)
    ? managedFieldsRefusal(nodeName, a.object, a.operation === 'UPDATE' ? a.oldObject : undefined, changedFields(a))
    : undefined;

/** A create or update of the main resource, where a request's managedFields are taken (a status write ignores them). */
const mainWrite = (a: AdmissionAttributes): a is AdmissionAttributes & { object: KubeObject } =>
  a.subresource === '' && a.object !== undefined && (a.operation === 'CREATE' || a.operation === 'UPDATE');

/** A node's write of its NodeConfig; a create is checked against its Node's uid, read from the store. */
async function validateNodeConfig(
  a: AdmissionAttributes,
  nodeName: string,
  forbid: Forbid,
  reads: () => ServerReads | undefined,
): Promise<void> {
  const uid =
    a.operation === 'CREATE' && a.name === nodeName
      ? ((await reads()?.get('', 'nodes', '', nodeName))?.metadata.uid ?? null)
      : undefined;
  const why = nodeConfigRefusal(nodeName, a, uid) ?? unearned(a, nodeName);
  if (why) throw forbid(why);
}

/** A node's write of a Pod: ./nodepods.ts; an eviction names its Pod only by the URL, so the Pod is read first. */
async function validatePod(
  a: AdmissionAttributes,
  nodeName: string,
  forbid: Forbid,
  reads: () => ServerReads | undefined,
): Promise<void> {
  const pod = a.subresource === 'eviction' ? await reads()?.get('', 'pods', a.namespace, a.name) : a.oldObject;
  const why = nodePodRefusal(a, nodeName, pod);
  if (why) throw forbid(why);
}

/**
 * The plugin; `reads` (asked lazily: the API server exists only after its admission chain) looks up the Node whose
 * uid a node's new NodeConfig must name as its owner. Writes of Nodes and Leases are decided synchronously.
 */
export function nodeRestriction(reads: () => ServerReads | undefined): AdmissionPlugin {
  return {
    name: 'NodeRestriction',
    validate(a: AdmissionAttributes): void | Promise<void> {
      const { isNode, nodeName } = nodeIdentity(a.user);
      if (!isNode) return;
      const resource = { group: a.resource.group, name: a.resource.plural };
      const forbid = (why: string) => errors.forbidden(resource, a.name, why);
      if (a.resource.group === '' && a.resource.plural === 'nodes') return validateNode(a, nodeName, forbid);
      // Its own NodeConfig (dkc.io), as upstream treats its own Node: ./nodeconfigrestriction.ts.
      if (a.resource.group === DKC_GROUP && a.resource.plural === NODE_CONFIGS) {
        if (nodeName === '') throw forbid(`could not determine node from user ${JSON.stringify(a.user.name)}`);
        return validateNodeConfig(a, nodeName, forbid, reads);
      }
      if (a.resource.group === '' && a.resource.plural === 'pods') {
        if (nodeName === '') throw forbid(`could not determine node from user ${JSON.stringify(a.user.name)}`);
        return validatePod(a, nodeName, forbid, reads);
      }
      if (
        a.resource.group === 'coordination.k8s.io' &&
        a.resource.plural === 'leases' &&
        a.namespace === NODE_LEASE_NAMESPACE
      ) {
        if (nodeName === '') throw forbid(`could not determine node from user ${JSON.stringify(a.user.name)}`);
        if (a.operation === 'CREATE' && a.name !== nodeName)
          throw forbid(`can only access node lease with the same name as ${nodeName}`);
      }
    },
  };
}
