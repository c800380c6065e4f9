// NodeRestriction admission (plugin/pkg/admission/noderestriction) for node identities: a node writes only its own
// Node and Lease, may not create its Node already pointing at a config, and may not point itself at a new config —
// that would let it widen what the Node authorizer lets it read. Clearing `spec.configSource`, or sending it back
// unchanged, stays allowed: older kubelets drop the field when they write the whole Node.

import { errors } from '../../api/errors.js';
import { deepEqual } from '../../api/equal.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../authz.js';
import { DKC_GROUP, NODE_CONFIGS } from '../../api/dkc/nodeconfig.js';
import { NODE_LEASE_NAMESPACE, nodeIdentity } from './nodeauthorizer.js';
import { nodeConfigRefusal } from './nodeconfigrestriction.js';

function configSourceOf(obj: unknown): unknown {
  const spec = (obj as { spec?: { configSource?: unknown } } | undefined)?.spec;
  const cs = spec?.configSource;
  return cs === undefined ? null : cs;
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
      if (a.name !== nodeName) throw forbid(`node ${JSON.stringify(nodeName)} is not allowed to modify node ${JSON.stringify(a.name)}`);
      // What the node asked for: a release that drops configSource would otherwise hide the attempt (kube's
      // NodeRestriction runs before the strategy's resets).
      const asked = a.requested ?? a.object;
      if (a.operation === 'CREATE' && configSourceOf(asked) !== null) {
        throw forbid(`node ${JSON.stringify(nodeName)} is not allowed to create pods with a non-nil configSource`);
      }
      if (a.operation === 'UPDATE') {
        const next = configSourceOf(asked);
        if (next !== null && !deepEqual(next, configSourceOf(a.oldObject))) {
          throw forbid(`node ${JSON.stringify(nodeName)} is not allowed to update configSource to a new non-nil configSource`);
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
    if (a.resource.group === 'coordination.k8s.io' && a.resource.plural === 'leases' && a.namespace === NODE_LEASE_NAMESPACE) {
      if (nodeName === '') throw forbid(`could not determine node from user ${JSON.stringify(a.user.name)}`);
      if (a.operation === 'CREATE' && a.name !== nodeName) throw forbid(`can only access node lease with the same name as ${nodeName}`);
    }
  },
};
