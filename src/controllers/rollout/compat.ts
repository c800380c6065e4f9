// Which nodes a rollout's target does not suit, by their kubelet version: the controller's side of the judgement
// admission makes (src/nodepolicy/compat.ts decides; here it is fed the target ConfigMap's bytes and the nodes'
// reported versions). A target is checked once per kubelet minor per content (uid and resourceVersion), however
// often its rollout is looked at; the nodes are judged on every look, since they join, leave and upgrade.

import type { ConfigMap, Node } from '../../api/types.js';
import { checksOf, incompatibleNodes, type Incompatibility, type VersionCheck } from '../../nodepolicy/compat.js';
import { nodeKubeletVersion } from '../../nodepolicy/kubelet.js';

/** Contents remembered at once: a few per rollout in flight is plenty. */
const REMEMBERED = 64;

/** The text under `key`, from data or binaryData, as the agent reads it; undefined when it has none. */
function payload(cm: ConfigMap, key: string): string | undefined {
  if (cm.data && Object.hasOwn(cm.data, key)) return cm.data[key];
  if (cm.binaryData && Object.hasOwn(cm.binaryData, key))
    return Buffer.from(cm.binaryData[key]!, 'base64').toString('utf8');
  return undefined;
}

export class CompatibilityJudge {
  private readonly checks = new Map<string, VersionCheck>();

  /**
   * The nodes (by name) whose kubelet cannot run `cm`'s `key`; empty when the key is missing (the agent reports
   * that as it always has) or every node can.
   */
  judge(cm: ConfigMap, key: string, nodes: readonly Node[]): ReadonlyMap<string, Incompatibility> {
    const bytes = payload(cm, key);
    if (bytes === undefined) return new Map();
    const id = `${cm.metadata.uid ?? ''}/${cm.metadata.resourceVersion ?? ''}/${key}`;
    let check = this.checks.get(id);
    if (!check) {
      if (this.checks.size >= REMEMBERED) this.checks.delete(this.checks.keys().next().value!);
      this.checks.set(id, (check = checksOf(bytes)));
    }
    const kubelets = nodes.map((n) => ({ node: n.metadata.name ?? '', kubelet: nodeKubeletVersion(n) }));
    return new Map(incompatibleNodes(check, kubelets).map((i) => [i.node, i]));
  }
}
