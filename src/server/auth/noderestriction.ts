// NodeRestriction admission (plugin/pkg/admission/noderestriction) for node identities: a node writes only its own
// Node and Lease, may not create its Node already pointing at a config, and may not point itself at a new config —
// that would let it widen what the Node authorizer lets it read. Clearing `spec.configSource`, or sending it back
// unchanged, stays allowed: older kubelets drop the field when they write the whole Node. Nor may a node add, change
// or remove a label under `node-restriction.kubernetes.io/`: those are set by administrators for selectors a node
// must not steer itself into or out of (a NodeConfigPolicy's, as a workload's).

import { errors } from '../../api/errors.js';
import { deepEqual } from '../../api/equal.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../authz.js';
import { DKC_GROUP, NODE_CONFIGS } from '../../api/dkc/nodeconfig.js';
import { NODE_LEASE_NAMESPACE } from '../../api/types.js';
import { nodeIdentity } from './nodeauthorizer.js';
import { nodeConfigRefusal } from './nodeconfigrestriction.js';

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

/** The restricted labels added, changed or removed between `prev` and `next`, sorted (upstream's getForbiddenLabels for that domain). */
function forbiddenLabels(next: Record<string, string>, prev: Record<string, string>): string[] {
  const keys = new Set([...Object.keys(next), ...Object.keys(prev)]);
  return [...keys]
    .filter((k) => restrictedLabel(k) && (!Object.hasOwn(next, k) || !Object.hasOwn(prev, k) || next[k] !== prev[k]))
    .sort();
}

export const nodeRestriction: AdmissionPlugin = {
  name: 'NodeRestriction',
  validate(a: AdmissionAttributes): void {
    const { isNode, nodeName } = nodeIdentity(a.user);
    if (!isNode) return;
    const resource = { group: a.resource.group, name: a.resource.plural };
    const forbid = (why: string) => errors.forbidden(resource, a.name, why);
    if (a.resource.group === '' && a.resource.plural === 'nodes') {
      if (nodeName === '') throw forbid(`could not determine node from user ${JSON.stringify(a.user.name)}`);
      if (a.name !== nodeName)
        throw forbid(`node ${JSON.stringify(nodeName)} is not allowed to modify node ${JSON.stringify(a.name)}`);
      // What the node asked for: a release that drops configSource would otherwise hide the attempt (kube's
      // NodeRestriction runs before the strategy's resets).
      const asked = a.requested ?? a.object;
      if (a.operation === 'CREATE' && configSourceOf(asked) !== null) {
        throw forbid(`node ${JSON.stringify(nodeName)} is not allowed to create pods with a non-nil configSource`);
      }
      const labels = forbiddenLabels(labelsOf(a.object), a.operation === 'UPDATE' ? labelsOf(a.oldObject) : {});
      if (labels.length > 0) {
        throw forbid(
          a.operation === 'CREATE'
            ? `node ${JSON.stringify(nodeName)} is not allowed to set the following labels: ${labels.join(', ')}`
            : `is not allowed to modify labels: ${labels.join(', ')}`,
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
      return;
    }
    // Its own NodeConfig (dkc.io), as upstream treats its own Node: ./nodeconfigrestriction.ts.
    if (a.resource.group === DKC_GROUP && a.resource.plural === NODE_CONFIGS) {
      if (nodeName === '') throw forbid(`could not determine node from user ${JSON.stringify(a.user.name)}`);
      const why = nodeConfigRefusal(nodeName, a);
      if (why) throw forbid(why);
      return;
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
