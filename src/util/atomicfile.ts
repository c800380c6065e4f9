// Crash-safe file replacement for state that another process (or the next start of this one) will read: PKI
// material, kubeconfigs, the agent's serving certificate, and the checkpoint store's records (meta/assigned,
// meta/last-known-good, the start ledger). A reader sees either the previous content or the new content,
// never a prefix, and after the call returns the new content survives a power loss: the data is fsynced
// before the rename, and the directory after it. The checkpoints themselves are directories; the store places
// them with the same steps on this module's file-system layer (files fsynced, directory fsynced, renamed into
// place, parent fsynced).
//
// The file-system calls go through `AtomicFs`, so that a test can record their order and prove each fsync
// happens where it must; production code uses `nodeFs`.

import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Default mode for new files; callers holding secrets pass 0o600. */
export const DEFAULT_FILE_MODE = 0o644;

/** The part of a FileHandle that durable writes use. */
export interface AtomicFileHandle {
  writeFile(data: string | Uint8Array, encoding?: 'utf8'): Promise<void>;
  chmod(mode: number): Promise<void>;
  /** fsync(2). */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** The file-system calls durable writes make. */
export interface AtomicFs {
  open(path: string, flags: string, mode?: number): Promise<AtomicFileHandle>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
}

export const nodeFs: AtomicFs = {
  open: (path, flags, mode) => open(path, flags, mode),
  rename: (from, to) => rename(from, to),
  unlink: (path) => unlink(path),
};

function tempPathFor(path: string): string {
  // Same directory as the target, so the rename never crosses a filesystem; dot-prefixed so directory
  // scans that skip hidden files (checkpoint listings) never pick up a half-written file.
  return join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
}

function toBytes(data: string | Uint8Array): Uint8Array {
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
}

/** Makes a directory's entries (a rename, a new child) durable. */
export async function fsyncDir(dir: string, fs: AtomicFs = nodeFs): Promise<void> {
  const dh = await fs.open(dir, 'r');
  try {
    await dh.sync();
  } finally {
    await dh.close();
  }
}

/**
 * Replaces `path` with `data` atomically and durably. The file gets exactly `mode` (the umask does not
 * apply), so keys written with 0o600 are never readable by others, not even for an instant.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  mode: number = DEFAULT_FILE_MODE,
  fs: AtomicFs = nodeFs,
): Promise<void> {
  const tmp = tempPathFor(path);
  const fh = await fs.open(tmp, 'wx', mode & 0o600);
  let renamed = false;
  try {
    try {
      await fh.writeFile(toBytes(data));
      await fh.chmod(mode);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.rename(tmp, path);
    renamed = true;
    await fsyncDir(dirname(path), fs);
  } finally {
    if (!renamed) await fs.unlink(tmp).catch(() => undefined);
  }
}
