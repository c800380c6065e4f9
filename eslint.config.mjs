// Type-aware lint over everything tsc compiles (src, test, bench): the promise rules catch what the compiler
// does not — a promise nobody awaits or catches (an unhandled rejection kills the process) and a promise handed to
// a place that ignores it (an async listener whose rejection nobody sees).
import tseslint from 'typescript-eslint';

// The layers of src/ (docs/architecture.md): the folders each folder may import from. Anything else under src/ is
// refused, in static imports and re-exports (no-restricted-imports) as in import() expressions and import types
// (no-restricted-syntax); a folder's own files import each other freely. The one exception is listed below the table.
const LAYERS = {
  util: [],
  gotext: [],
  api: ['util', 'gotext'],
  kubeletconfig: ['util', 'gotext'],
  pki: ['util'],
  storage: ['util'],
  supervisor: ['util'],
  client: ['api', 'util'],
  nodepolicy: ['api', 'kubeletconfig', 'util', 'gotext'],
  scheduling: ['api', 'kubeletconfig', 'util', 'gotext'],
  agent: ['api', 'client', 'kubeletconfig', 'nodepolicy', 'scheduling', 'pki', 'util', 'gotext'],
  controllers: ['api', 'client', 'kubeletconfig', 'nodepolicy', 'scheduling', 'pki', 'util', 'gotext'],
  server: ['api', 'kubeletconfig', 'nodepolicy', 'pki', 'storage', 'util', 'gotext'],
  workflow: ['api', 'client', 'kubeletconfig', 'nodepolicy', 'util', 'gotext'],
  ui: ['workflow', 'api', 'client', 'kubeletconfig', 'nodepolicy', 'util', 'gotext'],
  fleet: ['agent', 'api', 'client', 'pki', 'supervisor', 'util', 'gotext'],
  nodedaemon: ['agent', 'api', 'client', 'kubeletconfig', 'nodepolicy', 'pki', 'util', 'gotext'],
  up: ['agent', 'server', 'api', 'client', 'kubeletconfig', 'pki', 'storage', 'supervisor', 'util', 'gotext'],
  cli: [
    'agent',
    'controllers',
    'fleet',
    'nodedaemon',
    'server',
    'ui',
    'up',
    'workflow',
    'api',
    'client',
    'kubeletconfig',
    'nodepolicy',
    'scheduling',
    'pki',
    'storage',
    'supervisor',
    'util',
    'gotext',
  ],
};
// Exceptions, each with its reason.
const EXCEPTIONS = [
  // `dkc server` is also the process that hosts the leader-elected controllers (docs/adr/0010): it starts them.
  { files: ['src/server/main.ts'], folder: 'server', also: ['controllers'] },
];

// The time is read through the one Clock (src/util/clock.ts; docs/architecture.md, "Time"): src/ never calls
// Date.now(), performance.now(), Date() or an argument-less new Date() itself. The files that may, with their reasons:
const DIRECT_TIME_READS = [
  // The one time source: systemClock is where the process reads the system's clocks.
  { file: 'src/util/clock.ts', folder: 'util' },
  // Logging stamps each line with the moment it is written, as klog does; it takes no clock (every module logs).
  { file: 'src/util/klog.ts', folder: 'util' },
];
const timeMessage =
  'read the time from a Clock (src/util/clock.ts): clock.now() for timestamps, clock.monotonicMs() for durations';
const timeSelectors = [
  { selector: "MemberExpression[object.name='Date'][property.name='now']", message: timeMessage },
  { selector: "MemberExpression[object.name='performance'][property.name='now']", message: timeMessage },
  { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: timeMessage },
  { selector: "CallExpression[callee.name='Date']", message: timeMessage },
];

/**
 * The rules that keep `folder` to `allowed` (a relative import that climbs out of it into another folder of src/),
 * and, unless `readsTime`, that keep it from reading the time directly. One rule set per file: ESLint's flat config
 * replaces a rule's options, never merges them, so both restrictions share one no-restricted-syntax.
 */
function layerRules(folder, allowed, readsTime = false) {
  const refused = Object.keys(LAYERS).filter((f) => f !== folder && !allowed.includes(f));
  const time = readsTime ? [] : timeSelectors;
  if (refused.length === 0) return time.length === 0 ? {} : { 'no-restricted-syntax': ['error', ...time] };
  // Imports are relative: `../` as often as needed, then a top-level folder of src/ (no folder below src/<x>/ shares
  // a name with one). \x2F is `/`, which a selector's regular expression cannot contain.
  const source = `^(\\.\\.\\x2F)+(${refused.join('|')})\\x2F`;
  const message = `src/${folder} imports only from ${allowed.map((a) => `src/${a}`).join(', ') || 'itself'}: see docs/architecture.md`;
  return {
    'no-restricted-imports': ['error', { patterns: [{ regex: source, message }] }],
    'no-restricted-syntax': [
      'error',
      { selector: `ImportExpression > Literal[value=/${source}/]`, message },
      { selector: `TSImportType Literal[value=/${source}/]`, message },
      ...time,
    ],
  };
}

const layers = [
  ...Object.entries(LAYERS).map(([folder, allowed]) => ({
    files: [`src/${folder}/**/*.ts`],
    rules: layerRules(folder, allowed),
  })),
  ...EXCEPTIONS.map(({ files, folder, also }) => ({ files, rules: layerRules(folder, [...LAYERS[folder], ...also]) })),
  // Neither list names a file twice: a file in both would need the exception's imports here too.
  ...DIRECT_TIME_READS.map(({ file, folder }) => ({ files: [file], rules: layerRules(folder, LAYERS[folder], true) })),
];

// typescript-eslint's recommendedTypeChecked rules (its configs also set the parser and plugin, which the block below
// sets itself for exactly the files tsc compiles).
const recommendedTypeChecked = Object.assign({}, ...tseslint.configs.recommendedTypeChecked.map((c) => c.rules ?? {}));

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.cache/**', 'scripts/**', 'bin/**', 'deploy/**', '**/*.js', '**/*.mjs'] },
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      ...recommendedTypeChecked,
      // Kept async without an await on purpose: an async function reports every failure as a rejection, where the
      // same function without `async` would throw some synchronously — callers here handle only the rejection.
      '@typescript-eslint/require-await': 'off',
      // tsc's noUnusedLocals/noUnusedParameters convention: a name that starts with _ is unused on purpose (a parameter
      // an interface imposes, a field left out of a rest copy, a value iterated for its count).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // A let that closures read before its one assignment stays a let: as a const, an early call would throw.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // As `throw` (only-throw-error's defaults): a caught value, typed unknown, is passed on as it came.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // node:test's test/describe/it return promises the runner itself awaits and reports.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite', 'before', 'after'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  ...layers,
  // The node's lifecycle, the local cluster and the fleet, the API server's request handling and the rollout's
  // decision: the code people change first stays in functions a reader takes in at once (ESLint's default counting:
  // blank lines and comments included).
  {
    files: [
      'src/agent/**/*.ts',
      'src/up/**/*.ts',
      'src/fleet/**/*.ts',
      'src/server/apiserver.ts',
      'src/controllers/rollout/plan/**/*.ts',
    ],
    rules: { 'max-lines-per-function': ['error', { max: 60 }] },
  },
);
