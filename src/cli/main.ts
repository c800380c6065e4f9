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
import { exitCodeFor } from './exit.js';
import { errorMessage } from '../util/errors.js';

export async function main(argv: string[]): Promise<void> {
  if (argv[0] === 'agent') return (await import('./agent.js')).agentMain(argv.slice(1));
  if (argv[0] === 'node-daemon') return (await import('./nodedaemon.js')).nodeDaemonMain(argv.slice(1));
  // A server or fleet run by `dkc up` stops when dkc up is gone, however it went.
  if (argv[0] === 'server' || argv[0] === 'fleet') stopWhenSupervisorGone();
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
    .command('restart <name>')
    .description("restart one process that dkc up supervises (a node's kubelet: its name), as systemctl restart does")
    .option('--data-dir <dir>', 'the data directory of the dkc up to ask', '.dkc')
    .action(async (name: string, opts: { dataDir: string }) => {
      const path = await import('node:path');
      const { CONTROL_SOCKET, requestRestart } = await import('../supervisor/control.js');
      try {
        await requestRestart(path.join(path.resolve(opts.dataDir), CONTROL_SOCKET), name);
      } catch (err) {
        process.stderr.write(`dkc restart: ${errorMessage(err)}\n`);
        process.exitCode = 1;
      }
    });
  program
    .command('node-daemon')
    .description(
      'apply the config assigned to a node to its kubelet, health-gated (`dkc node-daemon --help` lists the flags)',
    )
    .allowUnknownOption();
  program
    .command('agent')
    .description("run the node agent (the kubelet's flag names; `dkc agent --help` lists them)")
    .allowUnknownOption();
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    // Commander has printed its one line already (help and --version exit 0); any other failure is printed here.
    if (err instanceof CommanderError) {
      process.exitCode = exitCodeFor(err);
      return;
    }
    process.stderr.write(`dkc: ${errorMessage(err)}\n`);
    process.exit(exitCodeFor(err));
  }
}
