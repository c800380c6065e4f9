// `dkc rollout`: the operator's command for NodeConfigRollouts (start, status, pause, resume, undo, list). Only the
// command line is defined here; src/workflow/rollout does the work, loaded when a subcommand runs.

import type { Command } from 'commander';
import type { StartFlags, StatusFlags, ConnectionFlags, SpecCommand } from '../workflow/rollout/index.js';
import { exitCodeFor } from './exit.js';

function connection(cmd: Command): Command {
  return cmd
    .option('--kubeconfig <file>', 'path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--context <name>', 'the kubeconfig context to use');
}

async function run(body: (m: typeof import('../workflow/rollout/index.js')) => Promise<number>): Promise<void> {
  const m = await import('../workflow/rollout/index.js');
  process.exitCode = await body(m);
}

export function registerRolloutCommands(program: Command): void {
  const rollout = program
    .command('rollout')
    .description('roll a node configuration out over a fleet: canary, batches, soak, halt or revert');

  connection(rollout.command('start'))
    .description('create a NodeConfigRollout of a ConfigMap to the nodes a selector matches')
    .argument('<name>', 'name of the rollout')
    .requiredOption('--configmap <namespace/name>', 'the ConfigMap holding the KubeletConfiguration')
    .option('--key <key>', "the ConfigMap's key holding the KubeletConfiguration", 'kubelet')
    .option('--selector <selector>', 'label selector of the nodes, e.g. pool=blue,zone!=a (default: every node)')
    .option('--canary <n|n%>', 'nodes in the first batch (default 1)')
    .option('--max-unavailable <n|n%>', 'nodes switching at once after the canary (default 1)')
    .option(
      '--soak <duration>',
      "how long a node must hold the config, Ready, to count as succeeded, e.g. 30s (default 0s); it ends at the node's first heartbeat after that, so it lasts up to one Lease renewal (10 s by default) longer",
    )
    .option('--deadline <duration>', 'a node not succeeded this long after its change has failed, e.g. 2m (default 2m)')
    .option('--max-failures <n>', 'failed nodes tolerated before the failure policy applies (default 0)')
    .option('--halt-on-failure', 'on too many failures, stop and leave the nodes as they are (default: revert them)')
    .option('--pause-after-canary', 'pause once the canary batch has succeeded')
    .option(
      '--skip-incompatible',
      'leave out (and report) the selected nodes whose kubelet version cannot run the config, instead of refusing',
    )
    .action((name: string, opts: StartFlags & ConnectionFlags) =>
      run((m) => m.start(m.processIo(exitCodeFor), name, opts)),
    );

  connection(rollout.command('status'))
    .description(
      "show a rollout's progress; exit 0 Succeeded, 1 Halted or Reverted, 2 not finished (or --timeout passed)",
    )
    .argument('<name>', 'name of the rollout')
    .option('-w, --watch', 'follow the rollout until it finishes')
    .option('--timeout <duration>', 'with --watch, how long to wait before giving up', '10m')
    .action((name: string, opts: StatusFlags) => run((m) => m.status(m.processIo(exitCodeFor), name, opts)));

  const spec: [SpecCommand, string][] = [
    ['pause', 'pause a rollout: no node starts, nodes in flight finish'],
    ['resume', 'resume a paused rollout'],
    [
      'undo',
      'put every node the rollout changed, and still holds, back on the config source it ran before (others are reported Overridden)',
    ],
  ];
  for (const [verb, description] of spec) {
    connection(rollout.command(verb))
      .description(description)
      .argument('<name>', 'name of the rollout')
      .action((name: string, opts: ConnectionFlags) =>
        run((m) => m.changeSpec(m.processIo(exitCodeFor), verb, name, opts)),
      );
  }

  connection(rollout.command('list'))
    .description('list the rollouts as a table')
    .action((opts: ConnectionFlags) => run((m) => m.list(m.processIo(exitCodeFor), opts)));
}
