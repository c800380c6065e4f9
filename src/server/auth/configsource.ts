// The separate permission to assign config: changing Node.spec.configSource — by update, patch, apply or edit, which
// all arrive here as a Node update, or by creating a Node that already names one — also needs `update` on the
// subresource `nodes/configsource`, asked of the server's authorizer chain as the requesting user. Labelling or
// tainting a Node stays a plain nodes patch. A node clearing its own source is left to NodeRestriction, which allows
// it (older kubelets drop the field when they write their whole Node).
//
// A NodeConfigRollout assigns config too, through the rollout controller's rights: creating one, or changing what it
// assigns to which nodes (configSource, layers, nodeSelector) or setting or clearing spec.revert (which assigns the
// nodes' previous sources back), needs the same right, for every node (the nodes a selector picks change over time).
// Pausing, resuming and the strategy's numbers steer a rollout already admitted and need only the rollout's own verbs.
//
// Where the server drops the Node's fields (an emulated 1.24 or later) a node is assigned through its NodeConfig, and
// `update nodeconfigs` is the permission to assign: the kind itself, which RBAC already checks on every NodeConfig
// write. A rollout there needs that right instead of nodes/configsource.

import { DKC_GROUP, DKC_VERSION, NODE_CONFIGS, NODE_CONFIGS_PATH } from '../../api/dkc/nodeconfig.js';
import { deepEqual } from '../../api/equal.js';
import { errors } from '../../api/errors.js';
import type { ConfigChannel } from '../../api/dkc/channel.js';
import { GROUP as ROLLOUT_GROUP } from '../../api/dkc/rollout.js';
import type { AdmissionAttributes, AdmissionPlugin, AuthorizationAttributes, Authorizer } from '../authz.js';
import { cannotClause, forbiddenError } from '../authz.js';
import { specOf } from './configreferences.js';
import { nodeIdentity } from './nodeauthorizer.js';

export const CONFIGSOURCE_SUBRESOURCE = 'configsource';
const WHY = 'changing spec.configSource requires update on nodes/configsource';
/** The fields of a NodeConfigRollout that decide what it assigns to which nodes. */
export const ROLLOUT_ASSIGNING_FIELDS = ['configSource', 'layers', 'nodeSelector', 'revert'] as const;
/** The permission to assign on each channel, as the messages name it. */
const ASSIGN_PERMISSION: Record<ConfigChannel, string> = {
  node: `nodes/${CONFIGSOURCE_SUBRESOURCE}`,
  nodeconfig: NODE_CONFIGS,
};
const ROLLOUT_WHY = {
  create: (channel: ConfigChannel) =>
    `a NodeConfigRollout assigns config to the nodes it selects, which requires update on ${ASSIGN_PERMISSION[channel]}`,
  change: (fields: readonly string[], channel: ConfigChannel) =>
    `changing ${fields.map((f) => `spec.${f}`).join(', ')} of a NodeConfigRollout assigns config to nodes, which requires update on ${ASSIGN_PERMISSION[channel]}`,
};

function configSourceOf(obj: unknown): unknown {
  const spec = (obj as { spec?: { configSource?: unknown } } | undefined)?.spec;
  return spec?.configSource ?? null;
}

/** The request's change of configSource, if it makes one. */
function changesConfigSource(a: AdmissionAttributes): { next: unknown } | undefined {
  if (a.resource.group !== '' || a.resource.plural !== 'nodes' || a.subresource !== '') return undefined;
  if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return undefined;
  const next = configSourceOf(a.object);
  const before = a.operation === 'UPDATE' ? configSourceOf(a.oldObject) : null;
  return deepEqual(next, before) ? undefined : { next };
}

/** Unset, null and (for revert) false all mean the same. */
const fieldValue = (spec: Record<string, unknown>, f: (typeof ROLLOUT_ASSIGNING_FIELDS)[number]): unknown =>
  f === 'revert' ? spec[f] === true : (spec[f] ?? null);

/** Why a rollout request assigns config: it creates the rollout, or changes these fields; undefined when it does neither. */
export function rolloutAssignment(a: AdmissionAttributes): { create: true } | { fields: string[] } | undefined {
  if (a.resource.group !== ROLLOUT_GROUP || a.resource.plural !== 'nodeconfigrollouts' || a.subresource !== '')
    return undefined;
  if (a.operation === 'CREATE') return { create: true };
  if (a.operation !== 'UPDATE') return undefined;
  const spec = specOf(a.object);
  const old = specOf(a.oldObject);
  const fields = ROLLOUT_ASSIGNING_FIELDS.filter((f) => !deepEqual(fieldValue(spec, f), fieldValue(old, f)));
  return fields.length > 0 ? { fields } : undefined;
}

function assignAttributes(a: AdmissionAttributes, node: string): AuthorizationAttributes {
  return {
    user: a.user,
    verb: 'update',
    isResourceRequest: true,
    path: node ? `/api/v1/nodes/${node}/${CONFIGSOURCE_SUBRESOURCE}` : '/api/v1/nodes',
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'nodes',
    subresource: CONFIGSOURCE_SUBRESOURCE,
    namespace: '',
    name: node,
  };
}

/** `update nodeconfigs`, every NodeConfig: what assigning through the NodeConfig channel takes. */
function assignNodeConfigsAttributes(a: AdmissionAttributes): AuthorizationAttributes {
  return {
    user: a.user,
    verb: 'update',
    isResourceRequest: true,
    path: NODE_CONFIGS_PATH,
    apiGroup: DKC_GROUP,
    apiVersion: DKC_VERSION,
    resource: NODE_CONFIGS,
    subresource: '',
    namespace: '',
    name: '',
  };
}

async function checkRollout(authorizer: Authorizer, a: AdmissionAttributes, channel: ConfigChannel): Promise<void> {
  const assignment = rolloutAssignment(a);
  if (!assignment) return;
  const attrs = channel === 'nodeconfig' ? assignNodeConfigsAttributes(a) : assignAttributes(a, '');
  const d = await authorizer.authorize(attrs);
  if (d.decision === 'allow') return;
  const why = 'create' in assignment ? ROLLOUT_WHY.create(channel) : ROLLOUT_WHY.change(assignment.fields, channel);
  throw errors.forbidden(
    { group: a.resource.group, name: a.resource.plural },
    a.name,
    `${cannotClause(attrs)}: ${d.reason ? `${why} (${d.reason})` : why}`,
  );
}

/** The plugin, for a server whose nodes are assigned on `channel`. */
export function configSourcePermission(authorizer: Authorizer, channel: ConfigChannel = 'node'): AdmissionPlugin {
  return {
    name: 'NodeConfigSource',
    async validate(a) {
      await checkRollout(authorizer, a, channel);
      const change = changesConfigSource(a);
      if (!change) return;
      if (change.next === null && nodeIdentity(a.user).isNode) return;
      const attrs = assignAttributes(a, a.name);
      const d = await authorizer.authorize(attrs);
      if (d.decision !== 'allow') throw forbiddenError(attrs, d.reason ? `${WHY} (${d.reason})` : WHY);
    },
  };
}
