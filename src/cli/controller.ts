// `dkc controller`: the controllers, leader-elected, against any Kubernetes API; by default the rollout and node
// lifecycle controllers, the ones the identity deploy/controller/ installs may run.
import type { Command } from 'commander';
import { STANDALONE_DEFAULT_CONTROLLERS } from '../controllers/names.js';
import { controllerPeriodOptions, controllersOption } from './controlleroptions.js';

export function registerControllerCommand(program: Command): void {
  const command = program
    .command('controller')
    .description(
      'run the controllers (by default rollout and node lifecycle), leader-elected, against the API in a kubeconfig',
    )
    .option('--kubeconfig <file>', 'path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--context <name>', 'the kubeconfig context to use');
  controllersOption(command, 'controllers to run', STANDALONE_DEFAULT_CONTROLLERS).option(
    '--metrics-bind-address <host:port>',
    "serve the controllers' /metrics on plain HTTP at this address (0 for none)",
    '0',
  );
  controllerPeriodOptions(command)
    .option(
      '--config-channel <channel>',
      'where nodes are assigned config: auto (found from the API server), node (Node.spec.configSource) or nodeconfig (NodeConfig)',
      'auto',
    )
    .option(
      '--leader-elect-resource-name <name>',
      'the Lease in kube-system to elect a leader on: one per set of controllers run under an identity of its own',
      'dkc-controller',
    )
    .action(async (opts: import('../controllers/standalone.js').ControllerCommandOptions) => {
      const { runControllerCommand } = await import('../controllers/standalone.js');
      await runControllerCommand(opts);
    });
}
