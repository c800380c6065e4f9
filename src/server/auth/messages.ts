// The user-visible strings of the RBAC escalation check, the rule listings and the self reviews, in
// kube-apiserver's wording where it has one.

import { goQuote } from '../../gotext/quote.js';
import type { MissingRole } from './rbac.js';
import { goStrings } from './rulecover.js';

const singular = (kind: string): string => kind.toLowerCase();
const plural = (kind: string): string => `${kind.toLowerCase()}s`;

export const messages = {
  /** What the RBAC authorizer's listers say of a binding's missing role (its rule listing's evaluation error). */
  roleNotFoundInCache: (m: MissingRole): string =>
    `${singular(m.kind)}.rbac.authorization.k8s.io ${goQuote(m.name)} not found`,
  /** What the storage says of a missing role when the escalation check resolves the user's rules. */
  roleNotFoundInStore: (m: MissingRole): string =>
    `${plural(m.kind)}.rbac.authorization.k8s.io ${goQuote(m.name)} not found`,
  /** ConfirmNoEscalation's refusal; `missing` is already one described rule a line. */
  notCurrentlyHeld: (user: string, groups: readonly string[], missing: string): string =>
    `user ${goQuote(user)} (groups=${goStrings(groups)}) is attempting to grant RBAC permissions not currently held:\n${missing}`,
  /** Appended when some of the user's own bindings named roles that do not exist (`%v` of a one-error slice). */
  resolutionErrors: (aggregate: string): string => `; resolution errors: [${aggregate}]`,
  aggregationRuleNeedsClusterAdmin: 'must have cluster-admin privileges to use the aggregationRule',
  unsupportedRoleRefKind: (kind: string): string => `unsupported role reference kind: ${goQuote(kind)}`,
  /** The Node authorizer cannot enumerate what a node may do (its rules depend on the graph). */
  nodeRulesNotListable: 'node authorizer does not support user rule resolution',
  noNamespace: 'no namespace on request',
  /** The Node authorizer's reasons for a node's NodeConfig, in the style of its node-lease reasons. */
  nodeConfigVerbs: 'can only get, list, watch, or create a node config, and get, update, or patch its status',
  nodePodsBySelector: 'can only list/watch pods with spec.nodeName field selector',
  noRelationship: (node: string) => `no relationship found between node '${node}' and this object`,
  nodeConfigOwnName: 'can only access the node config with the same name as the requesting node',
};
