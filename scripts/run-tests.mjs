// Runs the compiled test files (dist/test/**/*.test.js) with node's built-in test runner.
// Usage: node scripts/run-tests.mjs [--unit | --integration | --e2e]... [path-filter...]
// With no tier flag every tier runs (what `npm test` does); scripts/test-tiers.mjs says which file is in which tier.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { TIERS, tierOf } from './test-tiers.mjs';

const TIER_ORDER = ['e2e', 'integration', 'unit'];

function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

const args = process.argv.slice(2);
const tiers = args.filter((a) => a.startsWith('--')).map((a) => a.slice(2));
const unknown = tiers.filter((t) => !TIERS.includes(t));
if (unknown.length > 0) {
  console.error(`unknown option --${unknown[0]}: the tiers are ${TIERS.map((t) => `--${t}`).join(', ')}`);
  process.exit(2);
}
const filters = args.filter((a) => !a.startsWith('--'));
const files = walk('dist/test', [])
  // A compiled test whose source is gone (renamed or deleted since the last build) is not run.
  .filter((f) => existsSync(f.replace(/^dist[\\/]/, '').replace(/\.js$/, '.ts')))
  .filter((f) => tiers.length === 0 || tiers.includes(tierOf(f)))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  // The runner starts files in this order: the long e2e files first, the short unit files last, so that the quick
  // ones fill the gaps at the end instead of a long one starting alone when everything else is done.
  .sort((a, b) => TIER_ORDER.indexOf(tierOf(a)) - TIER_ORDER.indexOf(tierOf(b)) || (a < b ? -1 : a > b ? 1 : 0));
if (files.length === 0) {
  console.error('no test files found under dist/test (did the build run?)');
  process.exit(1);
}
// Most of the e2e and integration files' time is spent waiting on processes, timers and heartbeats (a rollout file
// uses about a third of one core), so three files at once keep two cores busy without starving the timing-sensitive
// ones. DKC_TEST_CONCURRENCY overrides it (1 runs the files one by one).
const concurrency = Number(process.env['DKC_TEST_CONCURRENCY'] ?? 3);
if (!Number.isInteger(concurrency) || concurrency < 1) {
  console.error(
    `DKC_TEST_CONCURRENCY must be a whole number of at least 1, not '${process.env['DKC_TEST_CONCURRENCY']}'`,
  );
  process.exit(2);
}
const res = spawnSync(
  process.execPath,
  ['--test', `--test-concurrency=${concurrency}`, '--test-timeout=300000', ...files],
  { stdio: 'inherit' },
);
process.exit(res.status ?? 1);
