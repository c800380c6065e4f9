// An edit of a ConfigMap that nodes run directly — their spec.configSource names it (the NodeConfig's where the
// server assigns through NodeConfigs) — reaches every one of them at once: each node's agent or daemon sees the new
// content and restarts its kubelet onto it, whatever canary, batches or maxUnavailable a rollout would have kept. A
// rollout pins what it assigns (an immutable copy), so the ConfigMaps nodes run directly are the ones an edit hits.
// The edit is allowed, as upstream's in-place edits were, and answered with a Warning (kube's 299) saying how many
// nodes restart and what the safe way is. Only a change of the key a node reads counts; labels, annotations and other
// keys restart nothing. It names no node: a count tells an editor who may not list nodes nothing they may not see.

import type { ConfigChannel } from '../../api/dkc/channel.js';
import type { ConfigMap, KubeObject } from '../../api/types.js';
import type { AdmissionAttributes, AdmissionPlugin, ServerReads } from '../authz.js';
import { assignedNodes } from '../policy/admission.js';
import { configMapRefOf, kubeletPayloadWrite } from '../policy/configs.js';
import { inPlaceEditMessages as messages } from './messages.js';

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const specOf = (o: KubeObject): Record<string, unknown> => (isRecord(o['spec']) ? o['spec'] : {});

/** What a kubelet reads under `key`: the data entry, else the binaryData one (absent: undefined). */
const payloadOf = (cm: ConfigMap | undefined, key: string): string | undefined =>
  cm?.data && Object.hasOwn(cm.data, key)
    ? `d:${cm.data[key]}`
    : cm?.binaryData && Object.hasOwn(cm.binaryData, key)
      ? `b:${cm.binaryData[key]}`
      : undefined;

/**
 * The warning for an update of `cm` (from `old`) given the nodes as assigned (each with its spec.configSource), or
 * undefined when no node reads a key the update changes. Pure.
 */
export function inPlaceEditWarning(cm: ConfigMap, old: ConfigMap, nodes: readonly KubeObject[]): string | undefined {
  const namespace = cm.metadata.namespace ?? '';
  const name = cm.metadata.name ?? '';
  const changed = new Map<string, boolean>();
  const keyChanged = (key: string): boolean =>
    changed.get(key) ?? changed.set(key, payloadOf(cm, key) !== payloadOf(old, key)).get(key)!;
  const restarting = nodes.filter((n) => {
    const ref = configMapRefOf(specOf(n)['configSource']);
    return ref !== undefined && ref.namespace === namespace && ref.name === name && keyChanged(ref.kubeletConfigKey);
  }).length;
  return restarting === 0 ? undefined : messages.restartAtOnce(restarting, namespace, name);
}

/** The plugin, for a server whose nodes are assigned on `channel`; `reads` is asked lazily. */
export function inPlaceConfigEdit(
  reads: () => ServerReads | undefined,
  channel: ConfigChannel = 'node',
): AdmissionPlugin {
  return {
    name: 'InPlaceConfigEdit',
    async validate(a: AdmissionAttributes) {
      if (a.operation !== 'UPDATE' || a.subresource !== '') return;
      if (a.resource.group !== '' || a.resource.plural !== 'configmaps') return;
      const cm = kubeletPayloadWrite(a.object, a.oldObject, a.operation);
      const r = cm ? reads() : undefined;
      if (!cm || !r || !a.warnings) return;
      const warning = inPlaceEditWarning(cm, a.oldObject as ConfigMap, await assignedNodes(r, channel));
      if (warning && !a.warnings.includes(warning)) a.warnings.push(warning);
    },
  };
}
