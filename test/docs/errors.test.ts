// docs/errors.md is what scripts/gen-errors-doc.mjs writes from the error catalogues and src/cli/exit.ts: a code
// added, renamed or given another exit code without regenerating the page fails here. And every code of every
// catalogue is spelled DKC_<AREA>_<NAME>.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/paths.js';

const script = join(repoRoot, 'scripts/gen-errors-doc.mjs');

function sourcesUnder(dir: string): string[] {
  return readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourcesUnder(`${dir}/${e.name}`) : e.name.endsWith('.ts') ? [`${dir}/${e.name}`] : [],
  );
}

describe('docs/errors.md', () => {
  it('is what scripts/gen-errors-doc.mjs writes today', () => {
    const r = spawnSync(process.execPath, [script, '--check'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  });

  it('lists every code with its area and exit code, as the catalogues and src/cli/exit.ts say', () => {
    const doc = readFileSync(join(repoRoot, 'docs/errors.md'), 'utf8');
    assert.match(
      doc,
      /^\| `DKC_ROLLOUT_CONFIGMAP_NOT_FOUND` \| ROLLOUT \| The ConfigMap named by --configmap does not exist\. \| 4 \|$/m,
    );
    assert.match(doc, /^\| `DKC_CLIENT_CONNECTION` \| CLIENT \| .* \| 6 \|$/m);
    assert.match(doc, /^\| `DKC_KUBELETCONFIG_SYNTAX` \| KUBELETCONFIG \| .* \| 1 \|$/m);
    // The page and the script agree on what a stale page is: the --check run prints nothing when it is fresh.
    assert.equal(execFileSync(process.execPath, [script, '--check'], { encoding: 'utf8' }), '');
  });
});

describe('the error catalogues', () => {
  it('spell every code DKC_<AREA>_<NAME>', () => {
    // A catalogue entry: a /** meaning */ line, then a union member, a const-object property or a one-code class.
    const entry =
      /\/\*\*(?:(?!\*\/)[\s\S])*\*\/\s*(?:\|\s*'([^']+)'|\w+:\s*'([^']+)'|export class \w+ extends CodedError<'([^']+)'>)/g;
    const bad: string[] = [];
    let codes = 0;
    for (const file of sourcesUnder('src')) {
      const text = readFileSync(join(repoRoot, file), 'utf8');
      if (!text.includes('CodedError')) continue;
      for (const m of text.matchAll(entry)) {
        const code = m[1] ?? m[2] ?? m[3]!;
        // What has the shape of a code (UPPER_SNAKE, or kebab-case as codes were once spelled); not a value like 'Exact'.
        if (!/^[A-Z][A-Z0-9_]*$|^[a-z0-9]+(-[a-z0-9]+)+$/.test(code)) continue;
        codes++;
        if (!/^DKC_[A-Z0-9]+_[A-Z0-9_]+$/.test(code)) bad.push(`${file}: ${code}`);
      }
    }
    assert.ok(codes > 80, `found only ${codes} codes`);
    assert.deepEqual(bad, []);
  });
});
