// Where the checkout is, for tests that read its files or run its scripts. Importing this starts nothing.

import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(fileURLToPath(import.meta.url), '../../../..');
