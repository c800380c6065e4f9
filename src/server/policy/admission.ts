// NodeConfigPolicy admission, the I/O edge of the decision in src/nodepolicy: the early answer to a request that
// would give a governed node a config its policies forbid. The agent judges again before it runs a config (the
// answer that does not depend on the order of requests); admission refuses (Deny) or warns (Warn) where it can see
// the change cheaply:
//   - a Node whose spec.configSource changes, or whose new labels bring its assigned ConfigMap under a policy that
//     did not govern it;
//   - a ConfigMap created or whose data changes while a governed node is assigned it;
//   - a NodeConfigRollout created or given a new target or selector. Its later spec writes that keep the target
//     (pause, resume, revert) are not judged again: a policy added since must not strand it half way.
// Each compares what a node runs with the target as the node runs them, its config flags applied to both
// (src/nodepolicy/flags.ts). With no policy it reads nothing else. It also keeps the config-flags annotation the
// node's own: no one else may set or change it (flagsannotation.ts).

import { deepEqual } from '../../api/equal.js';
import { errors } from '../../api/errors.js';
import { matchesLabels, objectSelectorRequirements, type Labels, type ObjectLabelSelector } from '../../api/selectors.js';
import type { ConfigMap, KubeObject } from '../../api/types.js';
import type { RolloutSpec } from '../../controllers/rollout/resource.js';
import type { KubeletConfiguration, KubeletVersion } from '../../kubeletconfig/index.js';
import { evaluate, governing } from '../../nodepolicy/evaluate.js';
import { effectiveChange, readConfigFlags } from '../../nodepolicy/flags.js';
import { nodeKubeletVersion } from '../../nodepolicy/kubelet.js';
import { POLICY_GROUP, POLICY_PLURAL, readPolicy, type NodeConfigPolicy } from '../../nodepolicy/spec.js';
import { verdict, type NodeViolations } from '../../nodepolicy/verdict.js';
import { mapBounded } from '../../util/bounded.js';
import type { AdmissionAttributes, AdmissionPlugin, ServerReads } from '../authz.js';
import { ConfigReader, configMapRefOf, type ConfigMapRef } from './configs.js';
import { checkFlagsAnnotation } from './flagsannotation.js';

/** Nodes whose running config is read at once for one request (each may mean a /configz round trip). */
const NODE_READ_CONCURRENCY = 8;

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const specOf = (o: KubeObject | undefined): Record<string, unknown> => (o && isRecord(o['spec']) ? o['spec'] : {});
const labelsOf = (o: KubeObject | undefined): Labels => o?.metadata.labels ?? {};
const nameOf = (o: KubeObject): string => o.metadata.name ?? '';

/** What a request asks the policies to judge, once they are read; undefined when it changes no assignment. */
type Judgement = (policies: NodeConfigPolicy[], reader: ConfigReader, reads: ServerReads) => Promise<NodeViolations[]>;

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
): Promise<NodeViolations[]> {
  const kv = nodeKubeletVersion(stored);
  const config = await target(kv);
  if (!config) return [];
  const current = stored ? await reader.current(stored, kv) : kv.defaults();
  const flags = readConfigFlags(stored?.metadata.annotations);
  return [{ node: name, violations: evaluate(policies, labels, effectiveChange(current, config, flags), kv.schema()) }];
}

/** The policies that govern `now` but did not govern `before`: what a relabel brings the node under. */
const newlyGoverning = (policies: readonly NodeConfigPolicy[], now: Labels, before: Labels): NodeConfigPolicy[] =>
  governing(policies, now).filter((p) => governing([p], before).length === 0);

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

const namesConfigMap = (ref: ConfigMapRef | undefined, namespace: string, name: string): boolean => ref?.namespace === namespace && ref.name === name;

function configMapChange(a: AdmissionAttributes): Judgement | undefined {
  const cm = a.object as ConfigMap | undefined;
  if (!cm) return undefined;
  // Only what the kubelet reads matters: a write that keeps data and binaryData (labels, annotations) is not judged.
  if (a.operation === 'UPDATE') {
    const old = a.oldObject as ConfigMap | undefined;
    if (deepEqual(cm.data ?? {}, old?.data ?? {}) && deepEqual(cm.binaryData ?? {}, old?.binaryData ?? {})) return undefined;
  }
  return async (policies, reader, reads) => {
    const assigned = (await reads.list('', 'nodes')).flatMap((n) => {
      const ref = configMapRefOf(specOf(n)['configSource']);
      return ref && namesConfigMap(ref, a.namespace, a.name) && governing(policies, labelsOf(n)).length > 0 ? [{ node: n, key: ref.kubeletConfigKey }] : [];
    });
    const byKey = new Map<string, Target>();
    const targetOf = (key: string): Target => byKey.get(key) ?? byKey.set(key, perMinor((kv) => ConfigReader.decoded(cm, key, kv))).get(key)!;
    return (await mapBounded(assigned, NODE_READ_CONCURRENCY, ({ node, key }) => judgeNode(policies, labelsOf(node), nameOf(node), node, targetOf(key), reader))).flat();
  };
}

const TARGET_FIELDS = ['configSource', 'layers', 'nodeSelector'] as const;

function rolloutTarget(spec: RolloutSpec): ConfigMapRef[] {
  if (Array.isArray(spec.layers) && spec.layers.length > 0) return spec.layers.map((l) => l.configMap);
  const ref = configMapRefOf(spec.configSource);
  return ref ? [ref] : [];
}

function selects(spec: RolloutSpec, node: KubeObject): boolean {
  try {
    return matchesLabels(objectSelectorRequirements(spec.nodeSelector as ObjectLabelSelector | undefined), labelsOf(node));
  } catch {
    return false; // the controller refuses an invalid selector itself
  }
}

function rolloutChange(a: AdmissionAttributes): Judgement | undefined {
  const spec = specOf(a.object) as RolloutSpec;
  const old = specOf(a.oldObject) as RolloutSpec;
  if (a.operation === 'UPDATE' && TARGET_FIELDS.every((f) => deepEqual(spec[f], old[f]))) return undefined;
  const refs = rolloutTarget(spec);
  if (refs.length === 0) return undefined;
  return async (policies, reader, reads) => {
    const nodes = (await reads.list('', 'nodes')).filter((n) => selects(spec, n) && governing(policies, labelsOf(n)).length > 0);
    const target = perMinor((kv) => reader.rendered(refs, kv));
    return (await mapBounded(nodes, NODE_READ_CONCURRENCY, (n) => judgeNode(policies, labelsOf(n), nameOf(n), n, target, reader))).flat();
  };
}

function judgementOf(a: AdmissionAttributes): Judgement | undefined {
  if (a.subresource !== '' || a.operation === 'DELETE') return undefined;
  if (a.resource.group === '' && a.resource.plural === 'nodes') return nodeChange(a);
  if (a.resource.group === '' && a.resource.plural === 'configmaps') return configMapChange(a);
  if (a.resource.group === POLICY_GROUP && a.resource.plural === 'nodeconfigrollouts') return rolloutChange(a);
  return undefined;
}

/** The plugin; `reads` is asked lazily because the API server exists only after its admission chain. */
export function nodeConfigPolicy(reads: () => ServerReads | undefined): AdmissionPlugin {
  return {
    name: 'NodeConfigPolicy',
    async validate(a) {
      checkFlagsAnnotation(a);
      const judge = judgementOf(a);
      const r = judge ? reads() : undefined;
      if (!judge || !r) return;
      const policies = (await r.list(POLICY_GROUP, POLICY_PLURAL)).map(readPolicy);
      if (policies.length === 0) return;
      const v = verdict(await judge(policies, new ConfigReader(r), r));
      if (v.denied !== undefined) throw errors.forbidden({ group: a.resource.group, name: a.resource.plural }, a.name, v.denied);
      const sink = a.warnings;
      if (sink) for (const w of v.warnings) if (!sink.includes(w)) sink.push(w);
    },
  };
}
