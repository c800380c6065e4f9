// The Node authorizer (plugin/pkg/auth/authorizer/node) for identities `system:node:<name>` in group
// `system:nodes`: a node reads only the ConfigMap its own Node names, renews only its own Lease, and otherwise gets
// the fixed rules a kubelet needs (read nodes, write Node and nodes/status, write events, write the status of Pods,
// delete and evict them — bound to itself, as NodeRestriction checks; dkc's agent also reads NodeConfigPolicies).
// Pods are read as upstream's AuthorizeNodeWithSelectors (on by default from 1.32) has it: a get of a Pod bound to the
// node, a list or watch only with the field selector spec.nodeName=<node>. Every refusal is "no opinion" with
// upstream's reason, so RBAC may still grant what an operator chose to grant.

import { DKC_GROUP, NODE_CONFIGS } from '../../api/dkc/nodeconfig.js';
import { NODE_LEASE_NAMESPACE } from '../../api/types.js';
import {
  selectedValue,
  type AuthorizationAttributes,
  type Authorizer,
  type Decision,
  type RuleSet,
  type UserInfo,
} from '../authz.js';
import { messages } from './messages.js';
import type { NodeGraph, PodGraph } from './nodegraph.js';

export const NODES_GROUP = 'system:nodes';
export const NODE_USER_PREFIX = 'system:node:';

/** `{ isNode, nodeName }` as upstream's NodeIdentity: both the group and the user-name prefix are required. */
export function nodeIdentity(user: UserInfo): { isNode: boolean; nodeName: string } {
  if (!user.groups.includes(NODES_GROUP) || !user.name.startsWith(NODE_USER_PREFIX))
    return { isNode: false, nodeName: '' };
  return { isNode: true, nodeName: user.name.slice(NODE_USER_PREFIX.length) };
}

const allow: Decision = { decision: 'allow', reason: '' };
const READS = new Set(['get', 'list', 'watch']);
const noOpinion = (reason = ''): Decision => ({ decision: 'no-opinion', reason });

/** What a kubelet may do with objects the graph does not partition (upstream's NodeRules, the part dkc serves). */
function nodeRulesAllow(a: AuthorizationAttributes): boolean {
  if (!a.isResourceRequest) return false;
  const { apiGroup: group, resource, subresource, verb } = a;
  if (group === '' && resource === 'nodes') {
    if (subresource === '') return ['get', 'list', 'watch', 'create', 'update', 'patch'].includes(verb);
    if (subresource === 'status') return ['get', 'update', 'patch'].includes(verb);
    return false;
  }
  if ((group === '' || group === 'events.k8s.io') && resource === 'events' && subresource === '') {
    return ['create', 'update', 'patch'].includes(verb);
  }
  // The Pods it runs (upstream's NodeRules; NodeRestriction keeps each write to Pods bound to the node): create and
  // delete mirror Pods, write their status, evict them. Reads are the graph's (NodeAuthorizer.pod).
  if (group === '' && resource === 'pods') {
    if (subresource === '') return ['create', 'delete'].includes(verb);
    if (subresource === 'status') return ['update', 'patch'].includes(verb);
    if (subresource === 'eviction') return verb === 'create';
    return false;
  }
  // dkc: the agent judges an assigned config by the NodeConfigPolicies that govern it before it runs it.
  if (group === 'dkc.io' && resource === 'nodeconfigpolicies' && subresource === '')
    return ['get', 'list', 'watch'].includes(verb);
  return false;
}

/**
 * Where a node's edges come from. `configMaps`: its Node's spec.configSource (not on releases that drop the field) and
 * its NodeConfig's; `pods`: the Pods bound to it (without one, a node gets no single Pod).
 */
export interface NodeGraphs {
  configMaps: readonly NodeGraph[];
  pods?: PodGraph;
}

export class NodeAuthorizer implements Authorizer {
  constructor(private readonly graphs: NodeGraphs) {}

  authorize(a: AuthorizationAttributes): Decision {
    const { isNode, nodeName } = nodeIdentity(a.user);
    if (!isNode) return noOpinion();
    if (nodeName === '') return noOpinion(`unknown node for user ${JSON.stringify(a.user.name)}`);
    if (a.isResourceRequest) {
      if (a.apiGroup === '' && a.resource === 'configmaps') return this.readNamespacedObject(nodeName, a);
      if (a.apiGroup === 'coordination.k8s.io' && a.resource === 'leases') return this.lease(nodeName, a);
      if (a.apiGroup === DKC_GROUP && a.resource === NODE_CONFIGS) return this.nodeConfig(nodeName, a);
      if (a.apiGroup === '' && a.resource === 'pods' && a.subresource === '' && READS.has(a.verb))
        return this.pod(nodeName, a);
    }
    return nodeRulesAllow(a) ? allow : noOpinion();
  }

  /** A node's rights follow the graph, so they cannot be listed: its listing is marked incomplete, as upstream's. */
  rulesFor(user: UserInfo): RuleSet {
    const none: RuleSet = { resourceRules: [], nonResourceRules: [], incomplete: false, errors: [] };
    return nodeIdentity(user).isNode ? { ...none, incomplete: true, errors: [messages.nodeRulesNotListable] } : none;
  }

  private readNamespacedObject(nodeName: string, a: AuthorizationAttributes): Decision {
    if (a.verb !== 'get' && a.verb !== 'list' && a.verb !== 'watch')
      return noOpinion('can only read resources of this type');
    if (a.subresource) return noOpinion('cannot read subresource');
    if (!a.namespace) return noOpinion('can only read namespaced object of this type');
    // kube-apiserver takes a list's or watch's object name from its `metadata.name=` field selector.
    const name = a.name || (a.verb !== 'get' ? (selectedValue(a, 'metadata.name') ?? '') : '');
    if (!name) return noOpinion('No Object name found');
    if (!this.graphs.configMaps.some((g) => g.hasConfigMapPath(nodeName, a.namespace, name))) {
      return noOpinion(messages.noRelationship(nodeName));
    }
    return allow;
  }

  /**
   * A node's NodeConfig, as its Lease: it reads (get, or list and watch pinned to the name by a field selector) and
   * writes the status of the one named after it, and may create it (NodeRestriction checks the body's name). Its spec
   * is what it is assigned, so it never writes it.
   */
  private nodeConfig(nodeName: string, a: AuthorizationAttributes): Decision {
    const reading = a.subresource === '' && (a.verb === 'get' || a.verb === 'list' || a.verb === 'watch');
    const writingStatus = a.subresource === 'status' && (a.verb === 'get' || a.verb === 'update' || a.verb === 'patch');
    if (a.subresource === '' && a.verb === 'create') return allow;
    if (!reading && !writingStatus) return noOpinion(messages.nodeConfigVerbs);
    const name = a.name || (a.verb === 'list' || a.verb === 'watch' ? (selectedValue(a, 'metadata.name') ?? '') : '');
    return name === nodeName ? allow : noOpinion(messages.nodeConfigOwnName);
  }

  /** Upstream's authorizePod: a list or watch scoped to the node's Pods, or a read of one Pod bound to it. */
  private pod(nodeName: string, a: AuthorizationAttributes): Decision {
    const listing = a.verb !== 'get';
    if (listing && selectedValue(a, 'spec.nodeName') === nodeName) return allow;
    // kube-apiserver takes a list's or watch's object name from its `metadata.name=` field selector.
    const name = a.name || (listing ? (selectedValue(a, 'metadata.name') ?? '') : '');
    if (listing && !name) return noOpinion(messages.nodePodsBySelector);
    if (this.graphs.pods?.isBoundTo(nodeName, a.namespace, name)) return allow;
    return noOpinion(messages.noRelationship(nodeName));
  }

  private lease(nodeName: string, a: AuthorizationAttributes): Decision {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) {
      return noOpinion('can only get, create, update, patch, or delete a node lease');
    }
    if (a.namespace !== NODE_LEASE_NAMESPACE)
      return noOpinion(`can only access leases in the ${NODE_LEASE_NAMESPACE} namespace`);
    if (a.subresource) return noOpinion('cannot modify node lease status');
    // A create carries its name in the body; NodeRestriction checks it.
    if (a.verb !== 'create' && a.name !== nodeName)
      return noOpinion('can only access node lease with the same name as the requesting node');
    return allow;
  }
}
