// Runs the compiled test files (dist/test/**/*.test.js) with node's built-in test runner.
// Usage: node scripts/run-tests.mjs [--unit | --integration | --e2e]... [--with-checks] [path-filter...]
// With no tier flag every tier runs (what `npm test` does); scripts/test-tiers.mjs says which file is in which tier.
// --with-checks runs `npm run lint` and `npm run format:check` beside the tests, as `npm test` does.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { TIERS, tierOf } from './test-tiers.mjs';

const TIER_ORDER = ['e2e', 'integration', 'unit'];
// The files that take longest (from 40 s to 2 min of wall time on a 2-core machine, measured from a whole run), started
// before every other so that none of them is left running alone at the end; the longest first.
const LONGEST = [
  'e2e/rollout-crash-server.test.js',
  'e2e/rollout-down.test.js',
  'e2e/node-daemon.test.js',
  'agent/dynamicconfig/checkpoint-faults.integration.test.js',
  'server/api.integration.test.js',
  'e2e/policy.test.js',
  'kubeletconfig/property.integration.test.js',
  'e2e/rollout-undo.test.js',
  'controllers/hosting.e2e.test.js',
];
const rank = (f) => {
  const i = LONGEST.findIndex((l) => f.replaceAll('\\', '/').endsWith(l));
  return i === -1 ? LONGEST.length : i;
};

function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

const CHECKS = '--with-checks';
const args = process.argv.slice(2);
const withChecks = args.includes(CHECKS);
const tiers = args.filter((a) => a.startsWith('--') && a !== CHECKS).map((a) => a.slice(2));
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
  .sort(
    (a, b) =>
      rank(a) - rank(b) ||
      TIER_ORDER.indexOf(tierOf(a)) - TIER_ORDER.indexOf(tierOf(b)) ||
      (a < b ? -1 : a > b ? 1 : 0),
  );
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
/** Runs a command to its end; resolves with its exit status and, when `capture`, what it printed. */
function run(command, argv, capture) {
  return new Promise((resolve) => {
    const child = spawn(command, argv, { stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let output = '';
    if (capture) for (const s of [child.stdout, child.stderr]) s.on('data', (d) => (output += d));
    child.on('error', (err) => resolve({ status: 1, output: `${output}${err.message}\n` }));
    child.on('close', (status) => resolve({ status: status ?? 1, output }));
  });
}

// Lint and the format check take about a minute of CPU and find nothing the tests need first: they run beside the
// tests (whose first files, the e2e ones, mostly wait), their output is printed when the tests end, and either
// failing fails the run.
const checks = withChecks
  ? run('sh', ['-c', 'npm run --silent lint && npm run --silent format:check'], true)
  : undefined;
const tests = run(
  process.execPath,
  [
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-timeout=300000',
    // TAP as it runs, then the failures again in one place at the end (scripts/failures-reporter.mjs).
    '--test-reporter=tap',
    '--test-reporter-destination=stdout',
    `--test-reporter=${new URL('./failures-reporter.mjs', import.meta.url).pathname}`,
    '--test-reporter-destination=stdout',
    ...files,
  ],
  false,
);
const [testResult, checkResult] = await Promise.all([tests, checks]);
if (checkResult) {
  process.stdout.write(checkResult.output);
  console.log(checkResult.status === 0 ? '# lint and format check passed' : '# lint or format check FAILED');
}
process.exit(testResult.status !== 0 ? testResult.status : (checkResult?.status ?? 0));
