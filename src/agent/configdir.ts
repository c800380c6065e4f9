// The kubelet's --config-dir (KEP-3983), as the kubelet reads it: the directory is walked in lexical order, into
// sub-directories, and every regular file whose extension is exactly `.conf` is a drop-in, merged over --config in
// that order (later files win). Other files are skipped. The texts of the errors are the kubelet's.

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DROPIN_EXTENSION } from '../kubeletconfig/index.js';
import { CodedError, errorMessage } from '../util/errors.js';

export interface DropInFile {
  /** The full path. */
  path: string;
  /** The path below the directory, which orders the files. */
  relative: string;
  bytes: Uint8Array;
}

export const configDirMessages = {
  merge: (err: string) => `failed to merge kubelet configs: ${err}`,
  walk: (dir: string, err: string) => `failed to walk through kubelet dropin directory ${JSON.stringify(dir)}: ${err}`,
  load: (path: string, err: string) => `failed to load kubelet dropin file, path: ${path}, error: ${err}`,
  empty: (path: string) => `kubelet config file ${JSON.stringify(path)} was empty`,
};

/** A drop-in of --config-dir cannot be read or merged; the message is the kubelet's. */
export class ConfigDirError extends CodedError<'DKC_AGENT_CONFIG_DIR'> {
  override name = 'ConfigDirError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('DKC_AGENT_CONFIG_DIR', message, options);
  }
}

/**
 * The drop-ins of `dir`, in the order the kubelet merges them; `skip` names files (full paths) to leave out. A missing
 * directory has none. Throws ConfigDirError in the kubelet's words for a file it cannot read or an empty one.
 */
export async function readDropIns(dir: string, skip: ReadonlySet<string> = new Set()): Promise<DropInFile[]> {
  const out: DropInFile[] = [];
  const walk = async (sub: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(join(dir, sub), { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && sub === '') return;
      throw new ConfigDirError(configDirMessages.merge(configDirMessages.walk(dir, errorMessage(err))), { cause: err });
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const relative = sub === '' ? e.name : join(sub, e.name);
      const path = join(dir, relative);
      if (e.isDirectory()) {
        await walk(relative);
        continue;
      }
      if (!e.isFile() || !e.name.endsWith(DROPIN_EXTENSION) || skip.has(path)) continue;
      let bytes: Uint8Array;
      try {
        bytes = await readFile(path);
      } catch (err) {
        throw new ConfigDirError(
          configDirMessages.merge(configDirMessages.walk(dir, configDirMessages.load(path, errorMessage(err)))),
          { cause: err },
        );
      }
      if (bytes.length === 0)
        throw new ConfigDirError(
          configDirMessages.merge(
            configDirMessages.walk(dir, configDirMessages.load(path, configDirMessages.empty(path))),
          ),
        );
      out.push({ path, relative, bytes });
    }
  };
  await walk('');
  return out;
}
