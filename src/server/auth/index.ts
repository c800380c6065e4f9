// The server's authorization and admission as one unit: system:masters → Node authorizer → RBAC → deny, plus
// NodeRestriction, RBAC's escalation check, the nodes/configsource permission, `get` on every ConfigMap a request
// names as config (before NodeConfigPolicy and the kubelet-version check read them), NodeConfigPolicy admission and
// KubeletVersionCompatibility, the warning on an edit of a ConfigMap nodes run directly, plus the hook that keeps the
// node graph in step with the server's own node writes, and what runs beside the server once it has started: the
// default roles brought up to this version's, and ClusterRole aggregation. The caches are reached lazily because the
// API server creates them after its authorizer has been chosen.

import { DKC_GROUP, NODE_CONFIGS } from '../../api/dkc/nodeconfig.js';
import type { KubeObject } from '../../api/types.js';
import {
  alwaysAllow,
  authorizerChain,
  type AdmissionPlugin,
  type Authorizer,
  type Decision,
  type ServerReads,
  type UserInfo,
} from '../authz.js';
import { nodeConfigRevertRecord, nodeConfigValidation } from '../nodeconfig/admission.js';
import { inPlaceConfigEdit } from '../nodeconfig/inplaceedit.js';
import { kubeletVersionCompatibility } from '../kubeletcompat/admission.js';
import { nodeConfigPolicy } from '../policy/admission.js';
import { rolloutConfigNamespace } from '../confignamespace/admission.js';
import type { ResourceDef } from '../resourcedef.js';
import type { ResourceStorage } from '../resources.js';
import type { WatchCache } from '../watchcache.js';
import { ClusterRoleAggregator } from './aggregation.js';
import { reconcileDefaultRoles } from './bootstrap.js';
import { configMapReferences } from './configreferences.js';
import type { ConfigChannel } from '../../api/dkc/channel.js';
import { configSourcePermission } from './configsource.js';
import { rbacEscalation } from './escalation.js';
import { rolloutRecords } from './rolloutstatus.js';
import { NodeAuthorizer } from './nodeauthorizer.js';
import { NodeGraph, PodGraph, type ObjectSource } from './nodegraph.js';
import { nodeRestriction } from './noderestriction.js';
import { defaultTolerationSeconds } from '../pods/defaulttolerations.js';
import { RbacAuthorizer, RbacRules } from './rbac.js';
import { clusterroles, RBAC_GROUP, roles } from './rbacresources.js';

export const MASTERS_GROUP = 'system:masters';

/** Members of system:masters are allowed everything, before any other authorizer is asked (upstream's privileged group). */
export const mastersAuthorizer: Authorizer = {
  authorize: (a): Decision =>
    isPrivileged(a.user) ? { decision: 'allow', reason: '' } : { decision: 'no-opinion', reason: '' },
};

export function isPrivileged(user: UserInfo): boolean {
  return user.groups.includes(MASTERS_GROUP);
}

export type AuthorizationMode = 'AlwaysAllow' | 'Node' | 'RBAC';

export function parseAuthorizationModes(text: string): AuthorizationMode[] {
  const modes = text
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  if (modes.length === 0) throw new Error('--authorization-mode must name at least one mode');
  for (const m of modes) {
    if (m !== 'AlwaysAllow' && m !== 'Node' && m !== 'RBAC') {
      throw new Error(`unknown authorization mode ${JSON.stringify(m)}; supported: AlwaysAllow, Node, RBAC`);
    }
  }
  return modes as AuthorizationMode[];
}

/** What the policy upkeep needs of the API server once it has started. */
export interface PolicyHost {
  storageOf(def: ResourceDef): ResourceStorage | undefined;
}

/** What the emulated release changes in authorization. */
export interface AuthorizationOptions {
  /** The Node authorizer's Node → ConfigMap edge (from spec.configSource); releases from 1.24 on have none. */
  nodeConfigSourceEdge?: boolean;
  /** Where nodes are assigned config: the Node (the default), or its NodeConfig where Nodes drop their fields. */
  assignmentChannel?: ConfigChannel;
}

export interface ClusterAuthorization {
  authorizer: Authorizer;
  admission: AdmissionPlugin[];
  graph: NodeGraph;
  /** The edges from each node's NodeConfig. */
  nodeConfigGraph: NodeGraph;
  /** Call after every successful, non-dry-run write. */
  afterWrite(this: void, def: ResourceDef, obj: KubeObject, deleted: boolean): void;
  /** Once the server has started: reconciles the default roles, then keeps aggregated ClusterRoles up to date. */
  start(host: PolicyHost): Promise<void>;
  stop(): void;
}

export function clusterAuthorization(
  modes: AuthorizationMode[],
  cacheOf: (group: string, plural: string) => WatchCache | undefined,
  reads: () => ServerReads | undefined = () => undefined,
  options: AuthorizationOptions = {},
): ClusterAuthorization {
  const objects = (group: string, plural: string) => cacheOf(group, plural)?.snapshot() ?? [];
  const rev = (group: string, plural: string) => cacheOf(group, plural)?.currentRevision ?? 0;
  const source = (group: string, plural: string): ObjectSource => ({
    revision: () => rev(group, plural),
    objects: () => objects(group, plural),
    changesSince: (r) => cacheOf(group, plural)?.changesSince(r),
  });
  const graph = new NodeGraph(source('', 'nodes'));
  // A NodeConfig names its ConfigMap where a Node does (spec.configSource.configMap), under the node's name.
  const nodeConfigGraph = new NodeGraph(source(DKC_GROUP, NODE_CONFIGS));
  const podGraph = new PodGraph(source('', 'pods'));
  const edges = options.nodeConfigSourceEdge === false ? [nodeConfigGraph] : [graph, nodeConfigGraph];
  // The rules each user holds: the RBAC authorizer's, and the escalation check's whichever modes are on.
  const rbacRules = new RbacRules({
    revision: () =>
      ['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings'].map((p) => rev(RBAC_GROUP, p)).join('/'),
    roles: () => objects(RBAC_GROUP, 'roles'),
    clusterRoles: () => objects(RBAC_GROUP, 'clusterroles'),
    roleBindings: () => objects(RBAC_GROUP, 'rolebindings'),
    clusterRoleBindings: () => objects(RBAC_GROUP, 'clusterrolebindings'),
  });
  const chain: Authorizer[] = [mastersAuthorizer];
  for (const m of modes) {
    if (m === 'AlwaysAllow') chain.push(alwaysAllow);
    if (m === 'Node') chain.push(new NodeAuthorizer({ configMaps: edges, pods: podGraph }));
    if (m === 'RBAC') chain.push(new RbacAuthorizer(rbacRules));
  }
  const authorizer = authorizerChain(...chain);
  let aggregator: ClusterRoleAggregator | undefined;
  return {
    authorizer,
    admission: [
      ...(modes.includes('Node') ? [nodeRestriction(reads)] : []),
      defaultTolerationSeconds,
      nodeConfigValidation,
      rbacEscalation({ authorizer, rules: rbacRules, reads, exempt: isPrivileged }),
      configSourcePermission(authorizer, options.assignmentChannel),
      configMapReferences(authorizer),
      rolloutConfigNamespace(options.assignmentChannel),
      nodeConfigRevertRecord,
      rolloutRecords,
      nodeConfigPolicy(reads, options.assignmentChannel, authorizer),
      kubeletVersionCompatibility(reads, options.assignmentChannel, authorizer),
      inPlaceConfigEdit(reads, options.assignmentChannel),
    ],
    graph,
    nodeConfigGraph,
    afterWrite(def, obj, deleted) {
      if (def.group === '' && def.plural === 'nodes') graph.observe(obj, deleted);
      if (def.group === DKC_GROUP && def.plural === NODE_CONFIGS) nodeConfigGraph.observe(obj, deleted);
      if (def.group === '' && def.plural === 'pods') podGraph.observe(obj, deleted);
    },
    async start(host) {
      const clusterRoleStorage = host.storageOf(clusterroles);
      const roleStorage = host.storageOf(roles);
      if (roleStorage) await reconcileDefaultRoles(roleStorage, roles);
      if (!clusterRoleStorage) return;
      await reconcileDefaultRoles(clusterRoleStorage, clusterroles);
      aggregator = new ClusterRoleAggregator(clusterRoleStorage);
      await aggregator.start();
    },
    stop() {
      aggregator?.stop();
    },
  };
}
