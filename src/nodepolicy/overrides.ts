// The fields of an assigned config that a node-local drop-in overrides, as a node daemon reports them (NodeConfig
// status.kubelet.localOverrides), judged against a config: only a field the config sets counts. Shared by the rollout
// controller (a node so overridden does not run the config) and `dkc rollout plan` (which shows it before a rollout
// starts). Pure.

import type { KubeletReport, LocalOverride } from '../api/dkc/nodeconfig.js';
import { parseYAML, type JNode } from '../kubeletconfig/text.js';

/** The fields a KubeletConfiguration's text sets, as dotted paths (every object on the way included); none if unreadable. */
export function configFields(text: string): Set<string> {
  const out = new Set<string>();
  let root: JNode;
  try {
    root = parseYAML(text).node;
  } catch {
    return out;
  }
  const walk = (n: JNode, path: string): void => {
    if (path !== '') out.add(path);
    if (n.t !== 'obj') return;
    for (const [k, v] of n.entries) walk(v, path === '' ? k : `${path}.${k}`);
  };
  walk(root, '');
  out.delete('apiVersion');
  out.delete('kind');
  return out;
}

/**
 * The overrides that leave the node not running the rollout's config: those of a field the config sets (the daemon
 * reports a field only when the local value differs from the assigned one). A report naming only fields the config
 * does not set (one left from an earlier assignment) counts for nothing; with the config's fields unknown (its text
 * not read), every reported override counts.
 */
export function relevantOverrides(
  report: KubeletReport | null | undefined,
  fields: ReadonlySet<string> | undefined,
): LocalOverride[] {
  const all = Array.isArray(report?.localOverrides) ? report.localOverrides : [];
  return all.filter(
    (o) => typeof o?.field === 'string' && o.field !== '' && (fields === undefined || fields.has(o.field)),
  );
}
