// The two things the page asks of the web view's own server rather than of the API: a node's field-level diff
// against its assigned ConfigMap (named by its Node, or by its NodeConfig on that channel) (the code of `dkc config diff`: the same sources, decode, defaults and diff, with
// the node's config flags holding their fields on both sides, as NodeConfigPolicy compares them), and
// the rollout actions (the code of `dkc rollout pause|resume|undo`). Both act with the user's kubeconfig credentials,
// so the user's own permissions apply; the API's refusals come back as its Status.

import { NODE_CONFIGS_PATH, nodeConfigName, type NodeConfig } from '../api/dkc/nodeconfig.js';
import type { Node, NodeConfigSource } from '../api/types.js';
import type { ConfigChannel } from '../client/channel.js';
import { isApiError, type RestClient } from '../client/index.js';
import { BASE_KUBELET_VERSION, kubeletVersion, type JSONValue } from '../kubeletconfig/index.js';
import { configChanges } from '../nodepolicy/flags.js';
import { readSource, valueText, type SourceRef } from '../workflow/config/index.js';
import { applySpecChange, type SpecCommand } from '../workflow/rollout/index.js';
import { messages } from './errors.js';
import type { NodeDiff } from './model/diff.js';
import { errorMessage } from '../util/errors.js';

export type { DiffChange, NodeDiff } from './model/diff.js';

/** An answer for the page: a status code and a JSON body (a metav1.Status for failures). */
export interface Answer {
  code: number;
  body: unknown;
}

const text = (v: JSONValue | undefined): string | undefined => (v === undefined ? undefined : valueText(v));

/** The source assigned to node `name`: its Node's, or on the NodeConfig channel its NodeConfig's (none without one). */
async function assignedSource(
  client: RestClient,
  name: string,
  channel: ConfigChannel,
): Promise<NodeConfigSource | null | undefined> {
  if (channel === 'node')
    return (await client.get<Node>(`/api/v1/nodes/${encodeURIComponent(name)}`)).spec?.configSource;
  try {
    return (await client.get<NodeConfig>(`${NODE_CONFIGS_PATH}/${encodeURIComponent(nodeConfigName(name))}`)).spec
      ?.configSource;
  } catch (err) {
    if (isApiError(err, 404)) return undefined;
    throw err;
  }
}

export async function nodeDiff(client: RestClient, name: string, channel: ConfigChannel = 'node'): Promise<NodeDiff> {
  const source = await assignedSource(client, name, channel);
  const runningRef: SourceRef = { kind: 'node', name };
  if (!source?.configMap) {
    return {
      running: `node/${name}`,
      changes: [],
      note: source?.configMapRef ? messages.legacySource(name) : messages.noConfigSource(name),
    };
  }
  const { namespace, name: cmName, kubeletConfigKey } = source.configMap;
  const assignedRef: SourceRef = { kind: 'configmap', namespace, name: cmName, key: kubeletConfigKey };
  const get = (): Promise<RestClient> => Promise.resolve(client);
  const [running, assigned] = await Promise.all([readSource(runningRef, get), readSource(assignedRef, get)]);
  // Both read as the node's kubelet minor reads them, as its NodeConfigPolicy compares them.
  const kv = running.kubelet ?? kubeletVersion(BASE_KUBELET_VERSION);
  const [before, after] = [
    kv.load(running.bytes, { source: running.name }).config,
    kv.load(assigned.bytes, { source: assigned.name }).config,
  ];
  const changes = configChanges(before, after, running.flags, kv.schema());
  return {
    running: running.name,
    assigned: assigned.name,
    changes: changes.map((c) => ({
      path: c.path,
      ...optional('running', text(c.old)),
      ...optional('assigned', text(c.new)),
    })),
  };
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

export function rolloutAction(client: RestClient, command: SpecCommand, name: string): Promise<unknown> {
  return applySpecChange(client, command, name);
}

/** A failure as the page reads it: the API's own Status when the API refused, else a Status with the message. */
export function failureAnswer(err: unknown, code = 500): Answer {
  if (isApiError(err)) return { code: err.code, body: err.status };
  const message = errorMessage(err);
  return { code, body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', message, code } };
}
