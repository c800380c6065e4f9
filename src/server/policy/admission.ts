// NodeConfigPolicy admission, the I/O edge of the decision in src/nodepolicy: the early answer to a request that
// would give a governed node a config its policies forbid. The agent judges again before it runs a config (the
// answer that does not depend on the order of requests); admission refuses (Deny) or warns (Warn) where it can see
// the change cheaply:
//   - a Node whose spec.configSource changes, or whose new labels bring its assigned ConfigMap under a policy that
//     did not govern it;
//   - a ConfigMap created or whose data changes while a governed node is assigned it;
//   - a NodeConfigRollout created or given a new target or selector. Its later spec writes that keep the target
//     (pause, resume, revert) are not judged again: a policy added since must not strand it half way.
// Where the server drops the Node's fields (the NodeConfig channel), a node's assignment and what it reports running
// are its NodeConfig's: a NodeConfig whose spec.configSource changes is judged as a Node's is (the policies select on
// its Node's labels), and a Node's relabel and a ConfigMap's change are judged by what the NodeConfigs assign.
// Each compares what a node runs with the target as the node runs them, its config flags applied to both
// (src/nodepolicy/flags.ts). With no policy it reads nothing else. It also keeps the config-flags annotation the
// node's own: no one else may set or change it (flagsannotation.ts). Its messages name nodes only to a requester who
// may list nodes, and quote a node's running value only to one who may read where it came from (ADR 21).

import { DKC_GROUP, NODE_CONFIGS } from '../../api/dkc/nodeconfig.js';
import { deepEqual } from '../../api/equal.js';
import { errors } from '../../api/errors.js';
import { matchesLabels, objectSelectorRequirements, type Labels } from '../../api/selectors.js';
import type { KubeObject } from '../../api/types.js';
import type { ConfigChannel } from '../../api/dkc/channel.js';
import type { RolloutSpec } from '../../api/dkc/rollout.js';
import type { KubeletConfiguration, KubeletVersion } from '../../kubeletconfig/index.js';
import { evaluate, governing } from '../../nodepolicy/evaluate.js';
import { effectiveChange, readConfigFlags } from '../../nodepolicy/flags.js';
import { nodeKubeletVersion } from '../../nodepolicy/kubelet.js';
import { POLICY_GROUP, POLICY_PLURAL } from '../../api/dkc/policy.js';
import { readPolicy, type NodeConfigPolicy } from '../../nodepolicy/spec.js';
import { verdict, type NodeViolations } from '../../nodepolicy/verdict.js';
import { mapBounded } from '../../util/bounded.js';
import {
  alwaysAllow,
  type AdmissionAttributes,
  type AdmissionPlugin,
  type Authorizer,
  type ServerReads,
} from '../authz.js';
import { Audience, type RunningOrigin } from '../auth/audience.js';
import { ConfigReader, configMapRefOf, kubeletPayloadWrite, type ConfigMapRef } from './configs.js';
import { checkFlagsAnnotation } from './flagsannotation.js';

/** Nodes whose running config is read at once for one request (each may mean a /configz round trip). */
const NODE_READ_CONCURRENCY = 8;

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const specOf = (o: KubeObject | undefined): Record<string, unknown> => (o && isRecord(o['spec']) ? o['spec'] : {});
const labelsOf = (o: KubeObject | undefined): Labels => o?.metadata.labels ?? {};
const nameOf = (o: KubeObject): string => o.metadata.name ?? '';
const statusOf = (o: KubeObject | undefined): Record<string, unknown> =>
  o && isRecord(o['status']) ? o['status'] : {};

/**
 * The Node as a policy judges it on the NodeConfig channel: what it is assigned (spec.configSource) and reports
 * (status.config) from its NodeConfig, the rest (labels, kubelet version, config flags) its own. Pure.
 */
export function withNodeConfig(node: KubeObject, nc: KubeObject | undefined): KubeObject {
  const spec = { ...specOf(node) };
  const status = { ...statusOf(node) };
  delete spec['configSource'];
  delete status['config'];
  const source = specOf(nc)['configSource'];
  const config = statusOf(nc)['config'];
  if (source !== undefined && source !== null) spec['configSource'] = source;
  if (config !== undefined && config !== null) status['config'] = config;
  return { ...node, spec, status };
}

/** Every Node as a policy judges it: itself, or on the NodeConfig channel with its NodeConfig's assignment. */
export async function assignedNodes(reads: ServerReads, channel: ConfigChannel): Promise<KubeObject[]> {
  const nodes = await reads.list('', 'nodes');
  if (channel === 'node') return nodes;
  const byName = new Map((await reads.list(DKC_GROUP, NODE_CONFIGS)).map((nc) => [nameOf(nc), nc]));
  return nodes.map((n) => withNodeConfig(n, byName.get(nameOf(n))));
}

/** One node's violations, and where the running config they compare against was read from. */
type Judged = NodeViolations & { origin: RunningOrigin };

/** What a request asks the policies to judge, once they are read; undefined when it changes no assignment. */
type Judgement = (policies: NodeConfigPolicy[], reader: ConfigReader, reads: ServerReads) => Promise<Judged[]>;

/** The target as a node's kubelet minor reads it; undefined when it is missing or does not decode. */
type Target = (kv: KubeletVersion) => Promise<KubeletConfiguration | undefined> | KubeletConfiguration | undefined;

/** A target read once per kubelet minor, whichever nodes ask. */
function perMinor(read: Target): Target {
  const seen = new Map<string, ReturnType<Target>>();
  return (kv) => {
    if (!seen.has(kv.version)) seen.set(kv.version, read(kv));
    return seen.get(kv.version);
  };
}

/**
 * One node's violations of `policies` were it to run `target` instead of what it runs now, both read as its kubelet
 * minor reads them and with its flags applied; none when the target is missing or does not decode.
 */
async function judgeNode(
  policies: readonly NodeConfigPolicy[],
  labels: Labels | readonly Labels[],
  name: string,
  stored: KubeObject | undefined,
  target: Target,
  reader: ConfigReader,
): Promise<Judged[]> {
  const kv = nodeKubeletVersion(stored);
  const config = await target(kv);
  if (!config) return [];
  const running = stored ? await reader.running(stored, kv) : undefined;
  const current = running?.config ?? kv.defaults();
  const flags = readConfigFlags(stored?.metadata.annotations);
  const violations = evaluate(policies, labels, effectiveChange(current, config, flags), kv.schema());
  return [{ node: name, violations, origin: running?.origin ?? { kind: 'defaults' } }];
}

/** The policies that govern `now` but did not govern `before`: what a relabel brings the node under. */
const newlyGoverning = (policies: readonly NodeConfigPolicy[], now: Labels, before: Labels): NodeConfigPolicy[] =>
  governing(policies, now).filter((p) => governing([p], before).length === 0);

/** A Node's relabel on the NodeConfig channel: judged by the policies it brings its NodeConfig's assignment under. */
function nodeRelabel(a: AdmissionAttributes): Judgement | undefined {
  const [now, old] = [labelsOf(a.object), a.oldObject ? labelsOf(a.oldObject) : undefined];
  if (old === undefined || deepEqual(now, old)) return undefined;
  return async (policies, reader, reads) => {
    const added = newlyGoverning(policies, now, old);
    if (added.length === 0) return [];
    const stored = a.oldObject
      ? withNodeConfig(a.oldObject, await reads.get(DKC_GROUP, NODE_CONFIGS, '', a.name))
      : undefined;
    const ref = configMapRefOf(specOf(stored)['configSource']);
    if (!ref) return [];
    return judgeNode(added, now, a.name, stored, (kv) => reader.configMap(ref, kv), reader);
  };
}

/** A NodeConfig whose spec.configSource changes: judged as its Node's would be, with the Node's labels. */
function nodeConfigChange(a: AdmissionAttributes): Judgement | undefined {
  const source = specOf(a.object)['configSource'] ?? null;
  const before = a.operation === 'UPDATE' ? (specOf(a.oldObject)['configSource'] ?? null) : null;
  const ref = configMapRefOf(source);
  if (!ref || deepEqual(source, before)) return undefined;
  return async (policies, reader, reads) => {
    const node = await reads.get('', 'nodes', '', a.name);
    const labels = labelsOf(node);
    if (governing(policies, labels).length === 0) return [];
    const stored = node ? withNodeConfig(node, a.oldObject) : undefined;
    return judgeNode(policies, labels, a.name, stored, (kv) => reader.configMap(ref, kv), reader);
  };
}

function nodeChange(a: AdmissionAttributes): Judgement | undefined {
  const source = specOf(a.object)['configSource'] ?? null;
  const before = a.operation === 'UPDATE' ? (specOf(a.oldObject)['configSource'] ?? null) : null;
  const ref = configMapRefOf(source);
  // Back to the local config is no assignment a policy judges.
  if (!ref) return undefined;
  const [now, old] = [labelsOf(a.object), a.oldObject ? labelsOf(a.oldObject) : undefined];
  if (deepEqual(source, before)) {
    // The same assignment under new labels: judged by the policies the relabel brings it under (a relabel cannot
    // step out of a policy that governed it, and those already judged the assignment).
    if (old === undefined || deepEqual(now, old)) return undefined;
    return async (policies, reader) => {
      const added = newlyGoverning(policies, now, old);
      if (added.length === 0) return [];
      return judgeNode(added, now, a.name, a.oldObject, (kv) => reader.configMap(ref, kv), reader);
    };
  }
  // Given several label sets, a policy that selects any of them governs: a relabel cannot step out of a policy.
  const labels = old === undefined ? [now] : [now, old];
  return async (policies, reader) => {
    if (governing(policies, labels).length === 0) return [];
    return judgeNode(policies, labels, a.name, a.oldObject, (kv) => reader.configMap(ref, kv), reader);
  };
}

const namesConfigMap = (ref: ConfigMapRef | undefined, namespace: string, name: string): boolean =>
  ref?.namespace === namespace && ref.name === name;

function configMapChange(a: AdmissionAttributes, channel: ConfigChannel): Judgement | undefined {
  // Only what the kubelet reads matters: a write that keeps data and binaryData (labels, annotations) is not judged.
  const cm = kubeletPayloadWrite(a.object, a.oldObject, a.operation);
  if (!cm) return undefined;
  return async (policies, reader, reads) => {
    const assigned = (await assignedNodes(reads, channel)).flatMap((n) => {
      const ref = configMapRefOf(specOf(n)['configSource']);
      return ref && namesConfigMap(ref, a.namespace, a.name) && governing(policies, labelsOf(n)).length > 0
        ? [{ node: n, key: ref.kubeletConfigKey }]
        : [];
    });
    const byKey = new Map<string, Target>();
    const targetOf = (key: string): Target =>
      byKey.get(key) ??
      byKey
        .set(
          key,
          perMinor((kv) => ConfigReader.decoded(cm, key, kv)),
        )
        .get(key)!;
    return (
      await mapBounded(assigned, NODE_READ_CONCURRENCY, ({ node, key }) =>
        judgeNode(policies, labelsOf(node), nameOf(node), node, targetOf(key), reader),
      )
    ).flat();
  };
}

const TARGET_FIELDS = ['configSource', 'layers', 'nodeSelector'] as const;

/** The ConfigMaps a rollout renders (its layers) or assigns (its configSource). */
export function rolloutTarget(spec: RolloutSpec): ConfigMapRef[] {
  if (Array.isArray(spec.layers) && spec.layers.length > 0) return spec.layers.map((l) => l.configMap);
  const ref = configMapRefOf(spec.configSource);
  return ref ? [ref] : [];
}

/** Whether the rollout's selector selects the node; an invalid selector selects none. */
export function selects(spec: RolloutSpec, node: KubeObject): boolean {
  try {
    return matchesLabels(objectSelectorRequirements(spec.nodeSelector), labelsOf(node));
  } catch {
    return false; // the controller refuses an invalid selector itself
  }
}

function rolloutChange(a: AdmissionAttributes, channel: ConfigChannel): Judgement | undefined {
  const spec = specOf(a.object) as RolloutSpec;
  const old = specOf(a.oldObject) as RolloutSpec;
  if (a.operation === 'UPDATE' && TARGET_FIELDS.every((f) => deepEqual(spec[f], old[f]))) return undefined;
  const refs = rolloutTarget(spec);
  if (refs.length === 0) return undefined;
  return async (policies, reader, reads) => {
    const nodes = (await assignedNodes(reads, channel)).filter(
      (n) => selects(spec, n) && governing(policies, labelsOf(n)).length > 0,
    );
    const target = perMinor((kv) => reader.rendered(refs, kv));
    return (
      await mapBounded(nodes, NODE_READ_CONCURRENCY, (n) =>
        judgeNode(policies, labelsOf(n), nameOf(n), n, target, reader),
      )
    ).flat();
  };
}

function judgementOf(a: AdmissionAttributes, channel: ConfigChannel): Judgement | undefined {
  if (a.subresource !== '' || a.operation === 'DELETE') return undefined;
  // On the NodeConfig channel a Node keeps a source only if it carried one before: judged as ever; a relabel is judged
  // by what its NodeConfig assigns.
  if (a.resource.group === '' && a.resource.plural === 'nodes')
    return channel === 'node' ? nodeChange(a) : (nodeChange(a) ?? nodeRelabel(a));
  if (a.resource.group === DKC_GROUP && a.resource.plural === NODE_CONFIGS)
    return channel === 'nodeconfig' ? nodeConfigChange(a) : undefined;
  if (a.resource.group === '' && a.resource.plural === 'configmaps') return configMapChange(a, channel);
  if (a.resource.group === POLICY_GROUP && a.resource.plural === 'nodeconfigrollouts') return rolloutChange(a, channel);
  return undefined;
}

/**
 * What the requester may be told of what was found: nodes named only to one who may list them, a running value only
 * to one who may read where it came from (../auth/audience.ts); asks the authorizer only when something was found.
 */
async function told(
  found: readonly Judged[],
  audience: Audience,
): Promise<{ found: NodeViolations[]; named: boolean }> {
  const violated = found.filter((f) => f.violations.length > 0);
  if (violated.length === 0) return { found: [], named: true };
  const out = await Promise.all(
    violated.map(async ({ origin, ...f }) => ({ ...f, withholdOld: !(await audience.mayRead(origin)) })),
  );
  return { found: out, named: await audience.mayListNodes() };
}

/**
 * The plugin, for a server whose nodes are assigned on `channel`; `reads` is asked lazily because the API server
 * exists only after its admission chain. `authorizer` says what the requester may be told.
 */
export function nodeConfigPolicy(
  reads: () => ServerReads | undefined,
  channel: ConfigChannel = 'node',
  authorizer: Authorizer = alwaysAllow,
): AdmissionPlugin {
  return {
    name: 'NodeConfigPolicy',
    async validate(a) {
      checkFlagsAnnotation(a);
      const judge = judgementOf(a, channel);
      const r = judge ? reads() : undefined;
      if (!judge || !r) return;
      const policies = (await r.list(POLICY_GROUP, POLICY_PLURAL)).map(readPolicy);
      if (policies.length === 0) return;
      const { found, named } = await told(
        await judge(policies, new ConfigReader(r), r),
        new Audience(authorizer, a.user),
      );
      const v = verdict(found, { nameNodes: named });
      if (v.denied !== undefined)
        throw errors.forbidden({ group: a.resource.group, name: a.resource.plural }, a.name, v.denied);
      const sink = a.warnings;
      if (sink) for (const w of v.warnings) if (!sink.includes(w)) sink.push(w);
    },
  };
}
