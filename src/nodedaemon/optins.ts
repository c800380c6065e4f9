// What each downloaded ConfigMap version says it means to drop from the node's own file (dropped.ts's annotation),
// kept beside the checkpoints: a checkpoint holds only the ConfigMap's data, and a daemon that starts again judges
// its assignment from the checkpoint before it can ask the server anything. Keyed by uid and resourceVersion (an edit
// of the annotation is a new version); the newest few are kept.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { NodeConfigSource } from '../api/types.js';
import { writeFileAtomic } from '../util/atomicfile.js';

export const OPTINS_FILE = 'replace-drops-fields.json';
const KEEP = 16;

type Entries = [key: string, value: string][];

const keyOf = (uid: string, rv: string) => `${uid}/${rv}`;

export class DropOptIns {
  private readonly path: string;
  constructor(dir: string) {
    this.path = join(dir, OPTINS_FILE);
  }

  private async entries(): Promise<Entries> {
    try {
      const e = JSON.parse(await readFile(this.path, 'utf8')) as unknown;
      return Array.isArray(e) ? (e as Entries).filter((x) => Array.isArray(x) && typeof x[1] === 'string') : [];
    } catch {
      return [];
    }
  }

  /** Records the annotation of one downloaded version (absent: nothing accepted); writes only on a change. */
  async record(uid: string, rv: string, value: string | undefined): Promise<void> {
    const key = keyOf(uid, rv);
    const all = await this.entries();
    const had = all.find((e) => e[0] === key);
    if ((had?.[1] ?? undefined) === value) return;
    const rest = all.filter((e) => e[0] !== key);
    const next: Entries = value === undefined ? rest : [...rest, [key, value]];
    await writeFileAtomic(this.path, JSON.stringify(next.slice(-KEEP)) + '\n', 0o600);
  }

  /** The annotation of the version `src` names, as it was downloaded. */
  async of(src: NodeConfigSource | undefined): Promise<string | undefined> {
    const cm = src?.configMap;
    if (!cm?.uid || !cm.resourceVersion) return undefined;
    const key = keyOf(cm.uid, cm.resourceVersion);
    return (await this.entries()).find((e) => e[0] === key)?.[1];
  }
}
