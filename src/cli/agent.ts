// `dkc agent`'s entry, apart from the other commands: the agent restarts on every config change, so its start path
// loads neither commander nor the other commands' modules. The build packs this module and everything it imports
// statically into one file (dist/src/cli/agent.bundle.js, scripts/bundle.mjs) that bin/dkc loads directly, so the
// ESM loader reads one file instead of about forty (bench/propagation.ts measures the restart).

import { runAgentCommand } from '../agent/agent.js';
import { agentHelp } from '../agent/flags.js';
import { stopWhenSupervisorGone } from '../supervisor/parentwatch.js';
import { versionLine } from './version.js';

/** Runs `dkc agent` with its arguments (those after `agent`). */
export async function agentMain(argv: readonly string[]): Promise<void> {
  // An agent run by `dkc up` stops when dkc up is gone, however it went.
  stopWhenSupervisorGone();
  // The agent takes the kubelet's flag names, parsed by its own flag table rather than by commander; like the
  // kubelet's, its --help and --version count wherever they stand.
  if (argv.some((a) => a === '--help' || a === '-h')) {
    process.stdout.write(agentHelp());
    return;
  }
  if (argv.includes('--version')) {
    process.stdout.write(versionLine());
    return;
  }
  return runAgentCommand(argv);
}
