// `dkc config validate` and `dkc config defaults`: the operator's pre-rollout check runs the very code the
// node agent uses to choose between a new config and its last-known-good one (decode, defaults, flags,
// validation, then the start-up checks), and prints one line per problem prefixed with the file name.
// `dkc config diff|lint|render` are defined here too; src/workflow/config does their work, loaded when one runs.

import { Option, type Command } from 'commander';
import type { ConnectionFlags, DiffFlags, LintFlags, RenderFlags } from '../workflow/config/index.js';
import { errorMessage } from '../util/errors.js';
import { ExitCodes, exitCodeFor } from './exit.js';

interface ValidateOptions {
  kubeletVersion?: string;
  flags?: string;
  output?: 'yaml' | 'json';
  strict?: boolean;
}

/** Splits a flag string the way a POSIX shell would split words (quotes and backslashes). */
function splitArgs(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else cur += c;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && i + 1 < s.length && '"\\$`'.includes(s[i + 1]!)) cur += s[++i];
      else cur += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < s.length) {
      cur += s[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) out.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (quote) throw new Error(`unterminated ${quote} quote in --flags`);
  if (inWord) out.push(cur);
  return out;
}

/** Messages may embed the whole payload (with newlines); each must stay on one output line. */
function oneLine(msg: string): string {
  return msg.replace(/\r/g, '\\r').replace(/\n/g, '\\n');
}

async function runValidate(file: string, opts: ValidateOptions): Promise<void> {
  const [{ readFile }, path, kc] = await Promise.all([
    import('node:fs/promises'),
    import('node:path'),
    import('../kubeletconfig/index.js'),
  ]);
  const err = (msg: string) => process.stderr.write(`${file}: ${oneLine(msg)}\n`);
  const warn = (msg: string) => process.stderr.write(`${file}: warning: ${oneLine(msg)}\n`);
  const kv = kubeletVersionOrExit(kc, opts.kubeletVersion);
  if (!kv) return;

  let argv: string[];
  try {
    argv = splitArgs(opts.flags ?? '');
  } catch (e) {
    err(errorMessage(e));
    process.exitCode = ExitCodes.usage;
    return;
  }
  let bytes: Uint8Array;
  try {
    bytes = await readFile(file);
  } catch (e) {
    err(`failed to read kubelet config file ${JSON.stringify(file)}, error: ${errorMessage(e)}`);
    process.exitCode = ExitCodes.usage;
    return;
  }

  const result = kv.effectiveConfig({
    file: { bytes, dir: path.dirname(path.resolve(file)), name: file },
    flags: argv,
  });
  // --strict: what the kubelet's strict decode refuses (unknown and duplicate fields) is an error, not a warning.
  const strictErrors = opts.strict ? result.warnings.filter((w) => w.detail !== undefined) : [];
  for (const w of result.warnings) (strictErrors.includes(w) ? err : warn)(w.message);
  if (strictErrors.length > 0) {
    if (!result.ok) for (const e of result.errors) err(e);
    process.exitCode = 1;
    return;
  }
  if (!result.ok) {
    for (const e of result.errors) err(e);
    process.exitCode = 1;
    return;
  }
  if (result.rest.length > 0) warn(`not KubeletConfiguration flags, ignored: ${result.rest.join(' ')}`);
  const startup = kv.validateStartup(result.config, { featureGates: result.featureGates });
  for (const w of startup.warnings) warn(w);
  if (startup.errors.length > 0) {
    for (const e of startup.errors) err(e);
    process.exitCode = 1;
    return;
  }
  if (opts.output) process.stdout.write(kv.encode(result.config, opts.output));
}

type Library = typeof import('../kubeletconfig/index.js');

/** The kubelet minor a command acts as, or undefined after printing why there is none (a usage error). */
function kubeletVersionOrExit(
  kc: Library,
  version: string | undefined,
): import('../kubeletconfig/index.js').KubeletVersion | undefined {
  try {
    return kc.kubeletVersion(version);
  } catch (e) {
    if (!(e instanceof kc.KubeletVersionError)) throw e;
    process.stderr.write(`error: ${e.message}\n`);
    process.exitCode = exitCodeFor(e);
    return undefined;
  }
}

const VERSION_HELP = 'the kubelet version to judge by, 1.22 to the newest (default: the newest)';

function connection(cmd: Command): Command {
  return cmd
    .option(
      '--kubeconfig <file>',
      'path to the kubeconfig file, for cm/ and node/ sources (default: $KUBECONFIG, then ~/.kube/config)',
    )
    .option('--context <name>', 'the kubeconfig context to use');
}

const SOURCE_HELP =
  'a file, cm/NAMESPACE/NAME[:KEY] (a ConfigMap; KEY defaults to kubelet) or node/NAME (what the node runs)';

async function run(body: (m: typeof import('../workflow/config/index.js')) => Promise<number>): Promise<void> {
  const m = await import('../workflow/config/index.js');
  process.exitCode = await body(m);
}

function registerWorkflowCommands(config: Command): void {
  connection(config.command('diff'))
    .description('compare two configs after decoding and defaulting both; exit 0 equal, 1 different, 2 trouble')
    .argument('<a>', SOURCE_HELP)
    .argument('<b>', SOURCE_HELP)
    .option('--kubelet-version <version>', VERSION_HELP)
    .addOption(new Option('-o, --output <format>', 'print the changes as JSON').choices(['json']))
    .action((a: string, b: string, opts: DiffFlags) => run((m) => m.diff(m.processIo(exitCodeFor), a, b, opts)));

  connection(config.command('lint'))
    .description('validate a config and list each changed field with its safety class; exit 0 clean, 1 errors')
    .argument('<source>', SOURCE_HELP)
    .option('--against <source>', 'compare with this config instead of the defaults')
    .option('--kubelet-version <version>', VERSION_HELP)
    .option('--strict', 'also fail on warnings and on disruptive or dangerous changes')
    .addOption(new Option('-o, --output <format>', 'print the report as JSON').choices(['json']))
    .action((source: string, opts: LintFlags) => run((m) => m.lint(m.processIo(exitCodeFor), source, opts)));

  connection(config.command('render'))
    .description("merge drop-ins over a base config in order, as the kubelet's --config-dir does, and print the result")
    .argument('<base>', SOURCE_HELP)
    .argument(
      '[dropins...]',
      'drop-in configs, in order: files, directories (their .conf files, in lexical order) or cm/NAMESPACE/NAME[:KEY]',
    )
    .option('--kubelet-version <version>', VERSION_HELP)
    .addOption(new Option('-o, --output <format>', 'output format').choices(['yaml', 'json']).default('yaml'))
    .action((base: string, dropIns: string[], opts: RenderFlags & ConnectionFlags) =>
      run((m) => m.render(m.processIo(exitCodeFor), base, dropIns, opts)),
    );
}

export function registerConfigCommands(program: Command): void {
  const config = program
    .command('config')
    .description('KubeletConfiguration: validate, lint, diff and render configs before a rollout; print defaults');

  config
    .command('validate')
    .description(
      'decode, default, apply kubelet flags and validate a KubeletConfiguration exactly as the kubelet of --kubelet-version would',
    )
    .argument('<file>', 'KubeletConfiguration file (YAML or JSON)')
    .option('--kubelet-version <version>', VERSION_HELP)
    .option(
      '--flags <flags>',
      'kubelet command-line flags applied on top of the file, e.g. "--max-pods=50 --feature-gates=A=true"',
    )
    .addOption(new Option('-o, --output <format>', 'print the effective configuration').choices(['yaml', 'json']))
    .option('--strict', 'unknown and duplicate fields are errors, not warnings')
    .action(async (file: string, opts: ValidateOptions) => {
      await runValidate(file, opts);
    });

  config
    .command('defaults')
    .description("print a complete KubeletConfiguration holding the defaults of --kubelet-version's kubelet")
    .option('--kubelet-version <version>', VERSION_HELP)
    .addOption(new Option('-o, --output <format>', 'output format').choices(['yaml', 'json']).default('yaml'))
    .action(async (opts: { output: 'yaml' | 'json'; kubeletVersion?: string }) => {
      const kc = await import('../kubeletconfig/index.js');
      const kv = kubeletVersionOrExit(kc, opts.kubeletVersion);
      if (kv) process.stdout.write(kv.encode(kv.defaults(), opts.output));
    });

  registerWorkflowCommands(config);
}
