// The two things the page asks of the web view's own server rather than of the API: a node's field-level diff
// against its assigned ConfigMap (the code of `dkc config diff`: the same sources, decode, defaults and diff, with
// the node's config flags holding their fields on both sides, as NodeConfigPolicy compares them), and
// the rollout actions (the code of `dkc rollout pause|resume|undo`). Both act with the user's kubeconfig credentials,
// so the user's own permissions apply; the API's refusals come back as its Status.

import type { Node } from '../api/types.js';
import { isApiError, type RestClient } from '../client/index.js';
import { BASE_KUBELET_VERSION, kubeletVersion, type JSONValue } from '../kubeletconfig/index.js';
import { configChanges } from '../nodepolicy/flags.js';
import { readSource, valueText, type SourceRef } from '../workflow/config/index.js';
import { applySpecChange, type SpecCommand } from '../workflow/rollout/index.js';
import { messages } from './errors.js';
import type { NodeDiff } from './model/diff.js';

export type { DiffChange, NodeDiff } from './model/diff.js';

/** An answer for the page: a status code and a JSON body (a metav1.Status for failures). */
export interface Answer {
  code: number;
  body: unknown;
}

const text = (v: JSONValue | undefined): string | undefined => (v === undefined ? undefined : valueText(v));

export async function nodeDiff(client: RestClient, name: string): Promise<NodeDiff> {
  const node = await client.get<Node>(`/api/v1/nodes/${encodeURIComponent(name)}`);
  const source = node.spec?.configSource;
  const runningRef: SourceRef = { kind: 'node', name };
  if (!source?.configMap) {
    return { running: `node/${name}`, changes: [], note: source?.configMapRef ? messages.legacySource(name) : messages.noConfigSource(name) };
  }
  const { namespace, name: cmName, kubeletConfigKey } = source.configMap;
  const assignedRef: SourceRef = { kind: 'configmap', namespace, name: cmName, key: kubeletConfigKey };
  const get = (): Promise<RestClient> => Promise.resolve(client);
  const [running, assigned] = await Promise.all([readSource(runningRef, get), readSource(assignedRef, get)]);
  // Both read as the node's kubelet minor reads them, as its NodeConfigPolicy compares them.
  const kv = running.kubelet ?? kubeletVersion(BASE_KUBELET_VERSION);
  const [before, after] = [kv.load(running.bytes, { source: running.name }).config, kv.load(assigned.bytes, { source: assigned.name }).config];
  const changes = configChanges(before, after, running.flags, kv.schema());
  return {
    running: running.name,
    assigned: assigned.name,
    changes: changes.map((c) => ({ path: c.path, ...optional('running', text(c.old)), ...optional('assigned', text(c.new)) })),
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
  const message = err instanceof Error ? err.message : String(err);
  return { code, body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', message, code } };
}
