// The flags `dkc server` and `dkc controller` share for the controllers they run, with one set of defaults.
import type { Command } from 'commander';
import {
  CONTROLLER_NAMES,
  DEFAULT_CONTROLLERS,
  DEFAULT_NAMESPACE_SYNC_PERIOD,
  DEFAULT_NODE_MONITOR_GRACE_PERIOD,
} from '../controllers/names.js';

/** `--controllers <names>`, its help led by `what` ("controllers to run", …). */
export function controllersOption(command: Command, what: string, defaults = DEFAULT_CONTROLLERS): Command {
  return command.option('--controllers <names>', `${what} (${CONTROLLER_NAMES.join(', ')}; empty for none)`, defaults);
}

/** The node lifecycle and namespace controllers' periods. */
export function controllerPeriodOptions(command: Command): Command {
  return command
    .option(
      '--node-monitor-grace-period <duration>',
      'how long a node may go without renewing its Lease before it is marked Unknown',
      DEFAULT_NODE_MONITOR_GRACE_PERIOD,
    )
    .option(
      '--namespace-sync-period <duration>',
      'how often the namespace controller looks again at every namespace being deleted',
      DEFAULT_NAMESPACE_SYNC_PERIOD,
    );
}
