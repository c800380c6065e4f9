// The hash that names a workload's revision: a Deployment's ReplicaSet `<deployment>-<hash>` and its
// `pod-template-hash` label, a DaemonSet's `controller-revision-hash`. kube computes FNV-32a over a printout of
// the Go struct plus the collision count (k8s:pkg/controller/controller_utils.go ComputeHash) and writes the
// decimal digits in the safe alphabet (apimachinery rand.SafeEncodeString). The Go printout has no JSON
// equivalent, so the hash here is FNV-32a over the template's canonical JSON (keys sorted): stable across
// restarts and key orders, changed by any change to the template or the collision count, and spelled as kube
// spells its hashes.

/** apimachinery's rand alphabet without vowels and look-alikes, so that no hash spells a word. */
export const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

function fnv32a(bytes: Uint8Array, seed = FNV_OFFSET): number {
  let h = seed;
  for (const b of bytes) h = Math.imul(h ^ b, FNV_PRIME) >>> 0;
  return h;
}

/** JSON with object keys sorted and undefined members dropped, so equal values print the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** rand.SafeEncodeString: each character replaced by the alphabet's letter at its code modulo 27. */
export function safeEncode(s: string): string {
  let out = '';
  for (const c of s) out += SAFE_ALPHABET[c.codePointAt(0)! % SAFE_ALPHABET.length]!;
  return out;
}

/** controller.ComputeHash: the collision count, when set, is hashed as 8 little-endian bytes of a uint32. */
export function computeHash(template: unknown, collisionCount?: number): string {
  let h = fnv32a(new TextEncoder().encode(canonicalJson(template)));
  if (collisionCount !== undefined) {
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setUint32(0, collisionCount >>> 0, true);
    h = fnv32a(bytes, h);
  }
  return safeEncode(String(h));
}
