// `dkc config validate` and `dkc config defaults`: the operator's pre-rollout check runs the very code the
// node agent uses to choose between a new config and its last-known-good one (decode, defaults, flags,
// validation, then the start-up checks), and prints one line per problem prefixed with the file name.

import { Option, type Command } from 'commander';

interface ValidateOptions {
  flags?: string;
  output?: 'yaml' | 'json';
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

  let argv: string[];
  try {
    argv = splitArgs(opts.flags ?? '');
  } catch (e) {
    err((e as Error).message);
    process.exitCode = 1;
    return;
  }
  let bytes: Uint8Array;
  try {
    bytes = await readFile(file);
  } catch (e) {
    err(`failed to read kubelet config file ${JSON.stringify(file)}, error: ${(e as Error).message}`);
    process.exitCode = 1;
    return;
  }

  const result = kc.effectiveConfig({ file: { bytes, dir: path.dirname(path.resolve(file)), name: file }, flags: argv });
  for (const w of result.warnings) warn(w.message);
  if (!result.ok) {
    for (const e of result.errors) err(e);
    process.exitCode = 1;
    return;
  }
  if (result.rest.length > 0) warn(`not KubeletConfiguration flags, ignored: ${result.rest.join(' ')}`);
  const startup = kc.validateStartup(result.config, { featureGates: result.featureGates });
  for (const w of startup.warnings) warn(w);
  if (startup.errors.length > 0) {
    for (const e of startup.errors) err(e);
    process.exitCode = 1;
    return;
  }
  if (opts.output) process.stdout.write(kc.encode(result.config, opts.output));
}

export function registerConfigCommands(program: Command): void {
  const config = program.command('config').description('KubeletConfiguration files: validate before a rollout, print defaults');

  config
    .command('validate')
    .description('decode, default, apply kubelet flags and validate a KubeletConfiguration exactly as a 1.22 kubelet would')
    .argument('<file>', 'KubeletConfiguration file (YAML or JSON)')
    .option('--flags <flags>', 'kubelet command-line flags applied on top of the file, e.g. "--max-pods=50 --feature-gates=A=true"')
    .addOption(new Option('-o, --output <format>', 'print the effective configuration').choices(['yaml', 'json']))
    .action(async (file: string, opts: ValidateOptions) => {
      await runValidate(file, opts);
    });

  config
    .command('defaults')
    .description('print a complete KubeletConfiguration holding the 1.22 defaults')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['yaml', 'json']).default('yaml'))
    .action(async (opts: { output: 'yaml' | 'json' }) => {
      const kc = await import('../kubeletconfig/index.js');
      process.stdout.write(kc.encode(kc.setDefaults({}), opts.output));
    });
}
