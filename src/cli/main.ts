// dkc's single entry point: one binary, subcommands. Each command module only registers its options and
// imports the code that does the work lazily, so that `dkc agent` never loads what `dkc server` needs.

import { Command, CommanderError } from 'commander';
import { stopWhenSupervisorGone } from '../supervisor/parentwatch.js';
import { registerServerCommand } from './server.js';
import { registerConfigCommands } from './config.js';
import { registerControllerCommand } from './controller.js';
import { registerUpCommand } from './up.js';
import { registerFleetCommand } from './fleet.js';
import { registerRolloutCommands } from './rollout.js';
import { registerUiCommand } from './ui.js';
import { versionLine } from './version.js';

export async function main(argv: string[]): Promise<void> {
  // A server or agent run by `dkc up` stops when dkc up is gone, however it went.
  if (argv[0] === 'agent' || argv[0] === 'server' || argv[0] === 'fleet') stopWhenSupervisorGone();
  // The agent takes the kubelet's flag names, parsed by its own flag table rather than by commander; like the
  // kubelet's, its --help and --version count wherever they stand.
  if (argv[0] === 'agent') {
    const rest = argv.slice(1);
    if (rest.some((a) => a === '--help' || a === '-h')) {
      process.stdout.write((await import('../agent/flags.js')).agentHelp());
      return;
    }
    if (rest.includes('--version')) {
      process.stdout.write(versionLine());
      return;
    }
    const { runAgentCommand } = await import('../agent/agent.js');
    return runAgentCommand(rest);
  }
  const program = new Command('dkc')
    .description('dynamic kubelet configuration: control plane, node agent and operator workflow')
    .version(versionLine().trimEnd(), '--version', 'print the version')
    .showHelpAfterError(false)
    .exitOverride();
  program.configureOutput({ outputError: (str, write) => write(str.split('\n')[0] + '\n') });
  registerServerCommand(program);
  registerConfigCommands(program);
  registerUpCommand(program);
  registerFleetCommand(program);
  registerControllerCommand(program);
  registerRolloutCommands(program);
  registerUiCommand(program);
  program
    .command('agent')
    .description('run the node agent (the kubelet\'s flag names; `dkc agent --help` lists them)')
    .allowUnknownOption();
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
