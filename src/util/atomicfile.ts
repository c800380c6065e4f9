// Crash-safe file replacement: the only way dkc writes state that another process (or the next start of
// this one) will read — PKI material, kubeconfigs, the agent's checkpoints. A reader sees either the
// previous content or the new content, never a prefix, and after the call returns the new content
// survives a power loss: the data is fsynced before the rename, and the directory after it.

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Default mode for new files; callers holding secrets pass 0o600. */
export const DEFAULT_FILE_MODE = 0o644;

function tempPathFor(path: string): string {
  // Same directory as the target, so the rename never crosses a filesystem; dot-prefixed so directory
  // scans that skip hidden files (checkpoint listings) never pick up a half-written file.
  return join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
}

function toBytes(data: string | Uint8Array): Uint8Array {
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
}

async function fsyncDir(dir: string): Promise<void> {
  const dh = await open(dir, 'r');
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
export async function writeFileAtomic(path: string, data: string | Uint8Array, mode: number = DEFAULT_FILE_MODE): Promise<void> {
  const tmp = tempPathFor(path);
  const fh = await open(tmp, 'wx', mode & 0o600);
  let renamed = false;
  try {
    try {
      await fh.writeFile(toBytes(data));
      await fh.chmod(mode);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
    renamed = true;
    await fsyncDir(dirname(path));
  } finally {
    if (!renamed) await unlink(tmp).catch(() => undefined);
  }
}

/**
 * Synchronous twin of writeFileAtomic, for the few places that must persist state with no event loop
 * turn in between (e.g. just before the agent exits to restart with a new configuration).
 */
export function writeFileAtomicSync(path: string, data: string | Uint8Array, mode: number = DEFAULT_FILE_MODE): void {
  const tmp = tempPathFor(path);
  const fd = fs.openSync(tmp, 'wx', mode & 0o600);
  let renamed = false;
  try {
    try {
      fs.writeFileSync(fd, toBytes(data));
      fs.fchmodSync(fd, mode);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, path);
    renamed = true;
    const dfd = fs.openSync(dirname(path), 'r');
    try {
      fs.fsyncSync(dfd);
    } finally {
      fs.closeSync(dfd);
    }
  } finally {
    if (!renamed) {
      try {
        fs.unlinkSync(tmp);
      } catch {
        // The temp file may never have been created; nothing to clean up then.
      }
    }
  }
}
