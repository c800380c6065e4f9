// `dkc rollout plan`: what a rollout of a ConfigMap would do, before it starts — the nodes the selector takes, and
// those that would not count as running the config because their node daemon reports a node-local drop-in
// overriding one of the fields it sets (NodeConfig status.kubelet.localOverrides). Pure: the nodes, the reports and
// the config's text go in, the lines come out.

import type { KubeletReport } from '../../api/dkc/nodeconfig.js';
import { configFields, relevantOverrides } from '../../nodepolicy/overrides.js';
import { preview } from './errors.js';
import type { ConfigMapRef } from './types.js';

export interface PreviewInput {
  ref: ConfigMapRef;
  /** The config's text (the ConfigMap's key). */
  text: string;
  /** The names of the nodes the selector takes, sorted. */
  nodes: readonly string[];
  /** Each node's daemon report, by node name (none on a cluster without NodeConfigs). */
  reports: Pick<ReadonlyMap<string, KubeletReport | null | undefined>, 'get'>;
}

/** The plan's lines: the target and its nodes, then one line per node whose local drop-ins override the config. */
export function previewLines(input: PreviewInput): string[] {
  const fields = configFields(input.text);
  const lines = [preview.target(input.ref, input.nodes)];
  for (const node of input.nodes) {
    const overrides = relevantOverrides(input.reports.get(node), fields);
    if (overrides.length > 0) lines.push(preview.localOverride(node, overrides));
  }
  return lines;
}
