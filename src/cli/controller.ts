// `dkc controller`: the rollout, node lifecycle and namespace controllers, leader-elected, against any Kubernetes API.
import type { Command } from 'commander';

export function registerControllerCommand(program: Command): void {
  program
    .command('controller')
    .description(
      'run the controllers (rollout, node lifecycle, namespace, garbage collector), leader-elected, against the API in a kubeconfig',
    )
    .option('--kubeconfig <file>', 'path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--context <name>', 'the kubeconfig context to use')
    .option(
      '--controllers <names>',
      'controllers to run (rollout, nodelifecycle, namespace, garbagecollector; empty for none)',
      'rollout,nodelifecycle,namespace,garbagecollector',
    )
    .option(
      '--metrics-bind-address <host:port>',
      "serve the controllers' /metrics on plain HTTP at this address (0 for none)",
      '0',
    )
    .option(
      '--node-monitor-grace-period <duration>',
      'how long a node may go without renewing its Lease before it is marked Unknown',
      '40s',
    )
    .option(
      '--namespace-sync-period <duration>',
      'how often the namespace controller looks again at every namespace being deleted',
      '5m',
    )
    .option(
      '--config-channel <channel>',
      'where nodes are assigned config: auto (found from the API server), node (Node.spec.configSource) or nodeconfig (NodeConfig)',
      'auto',
    )
    .action(async (opts: import('../controllers/standalone.js').ControllerCommandOptions) => {
      const { runControllerCommand } = await import('../controllers/standalone.js');
      await runControllerCommand(opts);
    });
}
