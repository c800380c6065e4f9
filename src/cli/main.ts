// dkc's single entry point: one binary, subcommands. Each command module only registers its options and
// imports the code that does the work lazily, so that `dkc agent` never loads what `dkc server` needs.

import { Command, CommanderError } from 'commander';
import { registerServerCommand } from './server.js';

export class UsageError extends Error {}

export async function main(argv: string[]): Promise<void> {
  const program = new Command('dkc')
    .description('dynamic kubelet configuration: control plane, node agent and operator workflow')
    .showHelpAfterError(false)
    .exitOverride();
  program.configureOutput({ outputError: (str, write) => write(str.split('\n')[0] + '\n') });
  registerServerCommand(program);
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode;
      return;
    }
    throw err;
  }
}
