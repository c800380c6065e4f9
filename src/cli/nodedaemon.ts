// `dkc node-daemon`'s entry: kubelet-style flags parsed by its own table (src/nodedaemon/flags.ts), like `dkc agent`.
import { nodeDaemonHelp } from '../nodedaemon/flags.js';
import { stopWhenSupervisorGone } from '../supervisor/parentwatch.js';
import { versionLine } from './version.js';

export async function nodeDaemonMain(argv: readonly string[]): Promise<void> {
  // A daemon run by `dkc up` stops when dkc up is gone, however it went.
  stopWhenSupervisorGone();
  if (argv.some((a) => a === '--help' || a === '-h')) {
    process.stdout.write(nodeDaemonHelp());
    return;
  }
  if (argv.includes('--version')) {
    process.stdout.write(versionLine());
    return;
  }
  const { runNodeDaemonCommand } = await import('../nodedaemon/daemon.js');
  const { NodeDaemonFlagError } = await import('../nodedaemon/flags.js');
  try {
    await runNodeDaemonCommand(argv);
  } catch (err) {
    if (!(err instanceof NodeDaemonFlagError)) throw err;
    process.stderr.write(`dkc node-daemon: ${err.message}\n`);
    process.exitCode = 1;
  }
}
