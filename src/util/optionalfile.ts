// A file that may not be there yet: its text, or undefined when it does not exist; any other failure is thrown.

import { readFile } from 'node:fs/promises';

export async function readFileIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
