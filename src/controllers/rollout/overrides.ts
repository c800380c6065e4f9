// What a node daemon's report (NodeConfig status.kubelet) says against a rollout's config: the fields a node-local
// drop-in sorting after dkc's overrides (src/nodepolicy/overrides.ts), which leave the kubelet not running what the
// rollout rolled out, and the kubelet restarts the daemon did not cause, which fail a node's trial and soak. Pure but
// for the cache of a config's fields.

import type { KubeletReport } from '../../api/dkc/nodeconfig.js';
import type { ConfigMap } from '../../api/types.js';
import { configFields } from '../../nodepolicy/overrides.js';

export { configFields, relevantOverrides } from '../../nodepolicy/overrides.js';

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
