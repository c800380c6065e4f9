// dkc's version, as package.json states it (the one source, so a release bump changes every place it shows).

import { readFileSync } from 'node:fs';

export function dkcVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      version?: unknown;
    };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

export function versionLine(): string {
  return `dkc v${dkcVersion()}\n`;
}
