// The node's own kubelet files as the daemon judges an assignment against them: the --config file (unless the daemon
// replaces it) and every other drop-in of --config-dir. Their digest is polled, so that an assignment refused because
// they were broken, or judged against what they were, is judged again when someone changes them.

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { readDropIns } from '../agent/configdir.js';

/** One digest over the node's own files (names and contents); `managed` is the daemon's own file, left out. */
export async function nodeFilesDigest(
  configFile: string | undefined,
  configDir: string,
  managed: string,
): Promise<string> {
  const h = createHash('sha256');
  if (configFile !== undefined) {
    const bytes = await readFile(configFile).catch(() => undefined);
    h.update(bytes === undefined ? 'absent' : `${bytes.length}:`);
    if (bytes) h.update(bytes);
  }
  const others = await readDropIns(configDir, new Set([managed])).catch(() => []);
  for (const d of others) h.update(`\n${d.relative}:${d.bytes.length}:`).update(d.bytes);
  return h.digest('hex');
}
