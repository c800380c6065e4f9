// `dkc agent`'s start path is one bundled file (src/cli/agent.ts, scripts/bundle.mjs): it must stay one file, run
// the agent as main.js would, and its log lines must name the module that logged, not the bundle.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/paths.js';
import { runDkc } from '../helpers/dkc.js';

const bundle = join(repoRoot, 'dist/src/cli/agent.bundle.js');

describe('dkc agent start path', () => {
  it('is one file that statically imports only node built-ins and the KubeletConfiguration library', () => {
    const text = readFileSync(bundle, 'utf8');
    const imported = [...text.matchAll(/^import [^;]*? from "([^"]+)";$/gm)].map((m) => m[1]!);
    assert.ok(imported.length > 0, 'the bundle imports node built-ins');
    const ours = imported.filter((s) => !s.startsWith('node:'));
    assert.deepEqual([...new Set(ours)], ['../kubeletconfig/index.js']);
  });

  it('logs through klog with the packed module names', async () => {
    const r = await runDkc(['agent', '--config=/nonexistent/dkc-agent-entry.yaml', '--v=2']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^I\d{4} [\d:.]+\s+\d+ agent\.ts:\d+\] dkc agent starting/m);
    assert.match(
      r.stderr,
      /^E\d{4} [\d:.]+\s+\d+ agent\.ts:\d+\] failed to load Kubelet config file \/nonexistent\/dkc-agent-entry\.yaml/m,
    );
    assert.doesNotMatch(r.stderr, /bundle/);
  });
});
