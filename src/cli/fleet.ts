// `dkc fleet`: many simulated nodes in one process, running the agent's own code, for scale tests.
import type { Command } from 'commander';

export function registerFleetCommand(program: Command): void {
  program
    .command('fleet')
    .description('run N simulated node agents in one process against an API server, until Ctrl-C')
    .option('--kubeconfig <file>', 'kubeconfig of the API server (default $KUBECONFIG); its user watches the Nodes')
    .option('--nodes <n>', 'number of simulated nodes', '10')
    .option('--name-prefix <prefix>', 'node names are <prefix><n>', 'sim-')
    .option('--first-index <n>', 'number of the first node (to split a range over several fleets)', '1')
    .option(
      '--data-dir <dir>',
      "where the nodes' credentials and checkpoints are kept (<dir>/<node>/dynamic-config)",
      '.dkc-fleet',
    )
    .option('--node-labels <k=v,...>', 'labels to register every node with')
    .option('--capacity <list>', "every node's reported capacity, e.g. cpu=4,memory=8Gi,pods=110")
    .option(
      '--agent-arg <flag>',
      'a dkc agent flag for every node, e.g. --agent-arg=--dynamic-config-trial-duration=5s (repeatable)',
      (v: string, prev: string[]) => [...prev, v],
      [] as string[],
    )
    .option('--port <port>', "the kubelet port on every node's loopback address (0 picks a free one)", '10250')
    .option(
      '--credentials <kind>',
      'how the nodes authenticate: token (dkc node tokens signed by the cluster CA; a dkc server) or certificate (client certificates; any API server)',
      'token',
    )
    .option('--ca-cert <file>', "the cluster CA's certificate (default: pki/ca.crt beside the kubeconfig)")
    .option(
      '--ca-key <file>',
      "the cluster CA's key, to issue the nodes' tokens or client certificates (default: pki/ca.key beside the kubeconfig)",
    )
    .option('--start-concurrency <n>', 'node starts in flight at once', '64')
    .option(
      '--stats-interval <seconds>',
      "print the fleet's memory per node and event-loop delay this often (0: never)",
      '30',
    )
    .option('--v <level>', 'log verbosity', '0')
    .action(async (opts: import('../fleet/command.js').FleetCommandOptions) => {
      const { runFleetCommand } = await import('../fleet/command.js');
      await runFleetCommand(opts);
    });
}
