// What a replacement --config file (`--apply-as replace`) takes away from the node: the fields of the node's own file
// that make the kubelet and the API server trust each other — who may call the kubelet (authentication.*,
// authorization.*, the client CA among them) and the kubelet's serving certificate (the TLS fields). A replacement
// that leaves one out is valid and starts healthy, yet the API server can no longer reach the kubelet (401s from
// /configz, logs, exec), so it is refused before it is written unless the ConfigMap names what it means to drop. Pure.

import { parse } from 'yaml';

/** The ConfigMap annotation that accepts the loss: a comma-separated list of fields or their prefixes, or `*`. */
export const DROPS_FIELDS_ANNOTATION = 'dkc.io/replace-drops-fields';

/** The top-level fields whose leaves a replacement must keep. */
export const GUARDED_FIELDS: readonly string[] = [
  'authentication',
  'authorization',
  'tlsCertFile',
  'tlsPrivateKeyFile',
  'tlsCipherSuites',
  'tlsMinVersion',
  'serverTLSBootstrap',
];

function decode(bytes: Uint8Array | string | undefined): Record<string, unknown> {
  if (bytes === undefined) return {};
  try {
    const doc: unknown = parse(typeof bytes === 'string' ? bytes : Buffer.from(bytes).toString('utf8'));
    return doc && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, unknown>) : {};
  } catch {
    return {}; // a file that does not decode is reported by validation, not here
  }
}

/** The dotted paths of the leaves under `value` (an array or a scalar is one leaf; so is `{}` with `empty`). */
function leaves(value: unknown, prefix: string, out: Set<string>, empty: boolean): void {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0 && empty) out.add(prefix);
    for (const [k, v] of entries) leaves(v, `${prefix}.${k}`, out, empty);
    return;
  }
  out.add(prefix);
}

/** The guarded leaves a file sets; an empty object counts as set only in the node's own file (it sets nothing new). */
function guardedLeaves(doc: Record<string, unknown>, empty: boolean): Set<string> {
  const out = new Set<string>();
  for (const f of GUARDED_FIELDS) if (doc[f] !== undefined && doc[f] !== null) leaves(doc[f], f, out, empty);
  return out;
}

/** `path` or one of its parents at a dot. */
function covers(entry: string, path: string): boolean {
  return entry === path || path.startsWith(`${entry}.`);
}

/**
 * The guarded fields the node's own file sets that neither the replacement nor another drop-in sets, sorted; a field
 * the replacement sets to another value is a change, not a loss. Parent paths cover their leaves.
 */
export function droppedFields(
  own: Uint8Array | string | undefined,
  replacement: Uint8Array | string,
  dropIns: readonly (Uint8Array | string)[] = [],
): string[] {
  const kept = new Set<string>();
  for (const b of [replacement, ...dropIns]) for (const p of guardedLeaves(decode(b), false)) kept.add(p);
  const keptList = [...kept];
  return [...guardedLeaves(decode(own), true)]
    .filter((p) => !keptList.some((k) => covers(k, p) || covers(p, k)))
    .sort();
}

/** The dropped fields the annotation's value does not accept (`*` accepts all; blanks are ignored). */
export function unaccepted(dropped: readonly string[], annotation: string | undefined): string[] {
  const accepted = (annotation ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (accepted.includes('*')) return [];
  return dropped.filter((p) => !accepted.some((a) => covers(a, p)));
}
