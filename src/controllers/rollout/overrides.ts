// What a node daemon's report (NodeConfig status.kubelet) says against a rollout's config: the fields a node-local
// drop-in sorting after dkc's overrides, which leave the kubelet not running what the rollout rolled out, and the
// kubelet restarts the daemon did not cause, which fail a node's trial and soak. Pure: the report, the config's text
// and the times go in.

import type { KubeletReport, LocalOverride } from '../../api/dkc/nodeconfig.js';
import type { ConfigMap } from '../../api/types.js';
import { parseYAML, type JNode } from '../../kubeletconfig/text.js';

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

/** The fields of a ConfigMap's key, read once per version of it (the last few kept). */
export class ConfigFields {
  private readonly seen = new Map<string, ReadonlySet<string>>();

  of(cm: ConfigMap, key: string): ReadonlySet<string> | undefined {
    const text = cm.data?.[key];
    if (text === undefined) return undefined;
    const id = `${cm.metadata.uid ?? ''}/${cm.metadata.resourceVersion ?? ''}/${key}`;
    let fields = this.seen.get(id);
    if (!fields) {
      fields = configFields(text);
      if (this.seen.size >= 64) this.seen.clear();
      this.seen.set(id, fields);
    }
    return fields;
  }
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

/** When the daemon last saw the kubelet restart by no doing of its own (ms), if it says. */
export function lastUnexpectedRestartMs(report: KubeletReport | null | undefined): number | undefined {
  const t = report?.lastUnexpectedRestart;
  const ms = typeof t === 'string' ? Date.parse(t) : NaN;
  return Number.isNaN(ms) ? undefined : ms;
}

/** The kubelet restarted by no doing of the daemon's at or after `sinceMs`: the time of it, else undefined. */
export function restartedSince(report: KubeletReport | null | undefined, sinceMs: number): string | undefined {
  const ms = lastUnexpectedRestartMs(report);
  return ms !== undefined && ms >= sinceMs ? report?.lastUnexpectedRestart : undefined;
}
