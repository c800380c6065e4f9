// Moves the custom objects that servers before the own-prefix layout (keys.ts) kept under the built-in layout to
// their own prefix, at start, before any custom resource is served. Each object moves in one atomic store step
// (Store.move), so a crash leaves every object under exactly one of its two keys, and replicas starting together
// over one etcd each move what the others have not: an object moves once, and one that a user deleted after another
// replica moved it does not come back. A CRD whose group and plural a built-in resource has is never migrated: its
// legacy keys are the built-in's objects.

import { StoreError, type Store } from '../../storage/store.js';
import { klog } from '../../util/klog.js';
import { builtinKeyPrefix, customKeyPrefix, legacyCustomKeyPrefix } from './keys.js';
import { msg } from './messages.js';
import type { Crd } from './types.js';

export interface LegacyMove {
  crd: string;
  from: string;
  to: string;
}

const PAGE = 500;

/** The legacy prefixes of these CRDs' objects and where they move, leaving out every built-in's prefix. */
export function legacyMoves(
  crds: readonly Crd[],
  builtins: readonly { group: string; plural: string }[],
): LegacyMove[] {
  const taken = new Set(builtins.map((b) => builtinKeyPrefix(b.group, b.plural)));
  const out: LegacyMove[] = [];
  for (const crd of crds) {
    const group = crd.spec?.group ?? '';
    const plural = crd.status?.acceptedNames?.plural || crd.spec?.names?.plural || '';
    if (!group || !plural) continue;
    const from = legacyCustomKeyPrefix(group, plural);
    if (taken.has(from)) continue;
    out.push({ crd: crd.metadata.name ?? '', from, to: customKeyPrefix(group, plural) });
  }
  return out;
}

/** Moves every object under each legacy prefix to its own prefix; returns how many this call moved. */
export async function migrateLegacyObjects(store: Store, moves: readonly LegacyMove[]): Promise<number> {
  let total = 0;
  for (const m of moves) {
    let moved = 0;
    let startAfter: string | undefined;
    for (;;) {
      const page = await store.list(m.from, { limit: PAGE, ...(startAfter !== undefined ? { startAfter } : {}) });
      for (const kv of page.items) {
        const to = m.to + kv.key.slice(m.from.length);
        try {
          await store.move(kv.key, to);
          moved++;
        } catch (err) {
          if (!(err instanceof StoreError)) throw err;
          // Moved by another replica since the list (or deleted): nothing left to do.
          if (err.code === 'DKC_STORE_NOT_FOUND') continue;
          // Only a server of the old layout writing beside this one leaves both keys; the new key is the one served.
          if (err.code === 'DKC_STORE_KEY_EXISTS') {
            klog.warning(msg.migrationBothKeys(kv.key, to));
            continue;
          }
          throw err;
        }
      }
      if (!page.more || page.items.length === 0) break;
      startAfter = page.items[page.items.length - 1]!.key;
    }
    if (moved > 0) klog.info(msg.migrated(moved, m.crd, m.to));
    total += moved;
  }
  return total;
}
