// KubeletVersionCompatibility admission, the I/O edge of src/nodepolicy/compat.ts: a config reaches no node whose
// kubelet minor (status.nodeInfo.kubeletVersion) cannot run it — a field that minor does not know, or a refusal by its
// validation or feature gates that another minor does not make. It refuses with 403, naming the fields, the nodes and
// their versions:
//   - a NodeConfigRollout created, or given a new target, selector or skipIncompatible, when a node it selects is
//     unsuited, unless spec.strategy.skipIncompatible (the controller then leaves those nodes out and lists them);
//   - a Node's, or a NodeConfig's, spec.configSource set to a config its node's kubelet cannot run;
//   - a ConfigMap created or whose data changes while a node whose kubelet cannot run the new content is assigned it
//     (on the channel the server assigns on, as NodeConfigPolicy judges it).
// A config that no minor accepts is no version matter and passes: it goes the way of every invalid config. A missing
// ConfigMap or key passes too (the agent reports it, as upstream's does). The ConfigMaps read are the ones the
// requester was just allowed to `get` (ConfigMapReferences runs first) or is writing; the nodes are read from the
// store as NodeConfigPolicy reads them. Nodes and their kubelet versions are named only to a requester who may list
// nodes, asked of the server's authorizer as the requester; anyone else is told what the kubelets lack and on how
// many nodes (../auth/audience.ts).

import { DKC_GROUP, NODE_CONFIGS } from '../../api/dkc/nodeconfig.js';
import type { ConfigChannel } from '../../api/dkc/channel.js';
import { GROUP as ROLLOUT_GROUP, type RolloutSpec } from '../../api/dkc/rollout.js';
import { deepEqual } from '../../api/equal.js';
import { errors } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import type { Layer } from '../../kubeletconfig/index.js';
import {
  checksOf,
  describeIncompatible,
  incompatibleNodes,
  type Incompatibility,
  type NodeKubelet,
} from '../../nodepolicy/compat.js';
import { nodeKubeletVersion } from '../../nodepolicy/kubelet.js';
import {
  alwaysAllow,
  type AdmissionAttributes,
  type AdmissionPlugin,
  type Authorizer,
  type ServerReads,
} from '../authz.js';
import { Audience } from '../auth/audience.js';
import { ROLLOUT_PLURAL } from '../auth/configreferences.js';
import { assignedNodes, rolloutTarget, selects } from '../policy/admission.js';
import { ConfigReader, configMapRefOf, kubeletPayloadWrite } from '../policy/configs.js';
import { messages } from './messages.js';

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const specOf = (o: KubeObject | undefined): Record<string, unknown> => (o && isRecord(o['spec']) ? o['spec'] : {});
const nameOf = (o: KubeObject): string => o.metadata.name ?? '';
const kubeletOf = (node: KubeObject): NodeKubelet => ({ node: nameOf(node), kubelet: nodeKubeletVersion(node) });

/** What a request asks to be judged: the unsuited nodes and the words of the refusal; undefined when nothing is. */
interface Judgement {
  judge(reads: ServerReads): Promise<Incompatibility[]>;
  refusal(which: string): string;
}

/** A Node's or a NodeConfig's spec.configSource: judged when it changes to a ConfigMap. */
function assignment(
  a: AdmissionAttributes,
  node: (reads: ServerReads) => Promise<KubeObject | undefined>,
): Judgement | undefined {
  const source = specOf(a.object)['configSource'] ?? null;
  const before = a.operation === 'UPDATE' ? (specOf(a.oldObject)['configSource'] ?? null) : null;
  const ref = configMapRefOf(source);
  if (!ref || deepEqual(source, before)) return undefined;
  return {
    async judge(reads) {
      const n = await node(reads);
      const layers = n ? await new ConfigReader(reads).layers([ref]) : undefined;
      return n && layers ? incompatibleNodes(layers, [kubeletOf(n)]) : [];
    },
    refusal: messages.assignment,
  };
}

function configMapChange(a: AdmissionAttributes, channel: ConfigChannel): Judgement | undefined {
  // Only what the kubelet reads matters: a write that keeps data and binaryData (labels, annotations) is not judged.
  const cm = kubeletPayloadWrite(a.object, a.oldObject, a.operation);
  if (!cm) return undefined;
  return {
    async judge(reads) {
      // Per key the nodes assigned it; each key's content is checked once per kubelet minor.
      const byKey = new Map<string, NodeKubelet[]>();
      for (const n of await assignedNodes(reads, channel)) {
        const ref = configMapRefOf(specOf(n)['configSource']);
        if (ref?.namespace !== a.namespace || ref.name !== a.name) continue;
        byKey.set(ref.kubeletConfigKey, [...(byKey.get(ref.kubeletConfigKey) ?? []), kubeletOf(n)]);
      }
      return [...byKey].flatMap(([key, nodes]) => {
        const layer = ConfigReader.layerOf(cm, key);
        return layer ? incompatibleNodes(checksOf([layer]), nodes) : [];
      });
    },
    refusal: messages.configMap,
  };
}

const TARGET_FIELDS = ['configSource', 'layers', 'nodeSelector'] as const;
const skipsIncompatible = (spec: RolloutSpec): boolean => spec.strategy?.skipIncompatible === true;

function rolloutChange(a: AdmissionAttributes): Judgement | undefined {
  const spec = specOf(a.object) as RolloutSpec;
  const old = specOf(a.oldObject) as RolloutSpec;
  if (skipsIncompatible(spec)) return undefined;
  // Pause, resume and undo keep the target: a node that has changed since must not strand the rollout half way.
  if (a.operation === 'UPDATE' && TARGET_FIELDS.every((f) => deepEqual(spec[f], old[f])) && !skipsIncompatible(old))
    return undefined;
  const refs = rolloutTarget(spec);
  if (refs.length === 0) return undefined;
  return {
    async judge(reads) {
      const layers: Layer[] | undefined = await new ConfigReader(reads).layers(refs);
      if (!layers) return [];
      const nodes = (await reads.list('', 'nodes')).filter((n) => selects(spec, n));
      return nodes.length === 0 ? [] : incompatibleNodes(layers, nodes.map(kubeletOf));
    },
    refusal: messages.rollout,
  };
}

function judgementOf(a: AdmissionAttributes, channel: ConfigChannel): Judgement | undefined {
  if (a.subresource !== '' || a.operation === 'DELETE') return undefined;
  const { group, plural } = a.resource;
  if (group === '' && plural === 'nodes') return assignment(a, () => Promise.resolve(a.object));
  if (group === DKC_GROUP && plural === NODE_CONFIGS)
    return assignment(a, (reads) => reads.get('', 'nodes', '', a.name));
  if (group === '' && plural === 'configmaps') return configMapChange(a, channel);
  if (group === ROLLOUT_GROUP && plural === ROLLOUT_PLURAL) return rolloutChange(a);
  return undefined;
}

/**
 * The plugin, for a server whose nodes are assigned on `channel`; `reads` is asked lazily because the API server
 * exists only after its admission chain. `authorizer` says whether the requester may be told the nodes' names.
 */
export function kubeletVersionCompatibility(
  reads: () => ServerReads | undefined,
  channel: ConfigChannel = 'node',
  authorizer: Authorizer = alwaysAllow,
): AdmissionPlugin {
  return {
    name: 'KubeletVersionCompatibility',
    async validate(a) {
      const judgement = judgementOf(a, channel);
      const r = judgement ? reads() : undefined;
      if (!judgement || !r) return;
      const unsuited = await judgement.judge(r);
      if (unsuited.length === 0) return;
      const named = await new Audience(authorizer, a.user).mayListNodes();
      throw errors.forbidden(
        { group: a.resource.group, name: a.resource.plural },
        a.name,
        judgement.refusal(named ? describeIncompatible(unsuited) : messages.counted(unsuited)),
      );
    },
  };
}
