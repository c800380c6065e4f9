// The daemon's files: the kubelet's file it manages (the drop-in, or the --config file), the node's original of that
// file kept once before the first change, the journal of what was written and whether the kubelet was restarted
// since, and the record of an assigned config that failed its health gate. Every write is atomic and durable (temp,
// fsync, rename, fsync the directory), so a `kill -9` at any instant leaves each file whole, old or new.

import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fsyncDir, writeFileAtomic } from '../util/atomicfile.js';
import type { NodeConfigSource } from '../api/types.js';
import type { Journal } from './decide.js';
import { messages } from './messages.js';
import { errorMessage } from '../util/errors.js';
import { readHeader } from './ownership.js';

/** The daemon's own records, beside the checkpoint store in --dynamic-config-dir. */
export const DAEMON_DIR = 'node-daemon';
export const ORIGINAL_FILE = 'original.json';
export const JOURNAL_FILE = 'journal.json';
export const FAILED_FILE = 'failed.json';

/** The digest of a file's content as the journal records it; `absent` for no file. */
export const ABSENT = 'absent';
export function digestOf(content: Uint8Array | undefined): string {
  return content === undefined ? ABSENT : `sha256:${createHash('sha256').update(content).digest('hex')}`;
}

/** One file as the node had it before the daemon first changed it. */
export type OriginalFile = { absent: true } | { absent?: false; mode: number; data: string };

interface OriginalRecord {
  files: Record<string, OriginalFile>;
}

async function readJSON<T>(path: string): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  return JSON.parse(text) as T;
}

export class DaemonFiles {
  readonly dir: string;

  constructor(dynamicConfigDir: string) {
    this.dir = join(dynamicConfigDir, DAEMON_DIR);
  }

  async initialize(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
  }

  /** The content of `path` now, or undefined when there is none. */
  async current(path: string): Promise<Uint8Array | undefined> {
    try {
      return await readFile(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  private async originals(): Promise<OriginalRecord> {
    const path = join(this.dir, ORIGINAL_FILE);
    try {
      return (await readJSON<OriginalRecord>(path)) ?? { files: {} };
    } catch (err) {
      // Never overwritten: an unreadable record must stop the daemon, not lose the node's files.
      throw new Error(messages.invalidOriginal(path, errorMessage(err)), { cause: err });
    }
  }

  /** The node's original of `path`, if it has been kept. */
  async original(path: string): Promise<OriginalFile | undefined> {
    return (await this.originals()).files[path];
  }

  /**
   * Keeps `path` as the node has it now, once: a file already kept is never replaced. Returns whether it kept it now.
   * A file that carries the daemon's own header is never the node's: in drop-in mode the node had no such file; in
   * replace mode the node's own --config is lost (the records that held it are gone) and nothing is kept.
   */
  async keepOriginal(path: string, mode: 'dropin' | 'replace'): Promise<boolean> {
    const record = await this.originals();
    if (record.files[path]) return false;
    let entry: OriginalFile;
    try {
      const [data, st] = await Promise.all([readFile(path), stat(path)]);
      if (readHeader(data)) {
        if (mode === 'replace') return false;
        entry = { absent: true };
      } else entry = { mode: st.mode & 0o7777, data: data.toString('base64') };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      entry = { absent: true };
    }
    record.files[path] = entry;
    await writeFileAtomic(join(this.dir, ORIGINAL_FILE), JSON.stringify(record) + '\n', 0o600);
    return true;
  }

  /** Removes what interrupted writes of the daemon's own records left in its directory; returns the names removed. */
  async removeStaleTemps(): Promise<string[]> {
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((n) => n.startsWith('.') && n.includes('.tmp-'));
    } catch {
      return [];
    }
    for (const n of names) await unlink(join(this.dir, n)).catch(() => undefined);
    return names;
  }

  async journal(): Promise<Journal | undefined> {
    try {
      const j = await readJSON<Journal>(join(this.dir, JOURNAL_FILE));
      return j && typeof j.digest === 'string' && typeof j.restarted === 'boolean' ? j : undefined;
    } catch {
      return undefined; // unreadable: the kubelet is restarted once more, which is always safe
    }
  }

  async setJournal(j: Journal): Promise<void> {
    await writeFileAtomic(join(this.dir, JOURNAL_FILE), JSON.stringify(j) + '\n', 0o600);
  }

  async failed(): Promise<{ source: NodeConfigSource; cause: string } | undefined> {
    try {
      return await readJSON<{ source: NodeConfigSource; cause: string }>(join(this.dir, FAILED_FILE));
    } catch {
      return undefined;
    }
  }

  async setFailed(f: { source: NodeConfigSource; cause: string } | undefined): Promise<void> {
    const path = join(this.dir, FAILED_FILE);
    if (f) return writeFileAtomic(path, JSON.stringify(f) + '\n', 0o600);
    await removeDurably(path);
  }
}

/** Removes `path` (if present) and makes the removal durable. */
export async function removeDurably(path: string): Promise<boolean> {
  try {
    await unlink(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  await fsyncDir(dirname(path));
  return true;
}

/**
 * Removes what an atomic write of `path` killed half-way left beside it (`.<name>.tmp-<pid>-<random>`, which the
 * kubelet never reads): the file itself is always whole. Returns the names removed.
 */
export async function removeStaleTemps(path: string): Promise<string[]> {
  const prefix = `.${basename(path)}.tmp-`;
  let names: string[];
  try {
    names = (await readdir(dirname(path))).filter((n) => n.startsWith(prefix));
  } catch {
    return [];
  }
  for (const n of names) await unlink(join(dirname(path), n)).catch(() => undefined);
  return names;
}

/** Sets the kubelet's file to `content` (undefined: no file), atomically. */
export async function setKubeletFile(path: string, content: Uint8Array | undefined, mode: number): Promise<void> {
  if (content === undefined) {
    await removeDurably(path);
    return;
  }
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, content, mode);
}

/** The bytes and mode of an original file (undefined bytes: the node had none). */
export function originalContent(o: OriginalFile): { bytes: Uint8Array | undefined; mode: number } {
  return o.absent ? { bytes: undefined, mode: 0o644 } : { bytes: Buffer.from(o.data, 'base64'), mode: o.mode };
}
