// `dkc ui`: the fleet's config state and its rollouts in a browser. Only the command line is defined here; src/ui
// does the work, loaded when the command runs.

import type { Command } from 'commander';
import { DEFAULT_ACCEPT_HOSTS } from '../ui/hosts.js';
import { errorMessage } from '../util/errors.js';
import { exitCodeFor } from './exit.js';

interface UiFlags {
  kubeconfig?: string;
  context?: string;
  port: string;
  address: string;
  acceptHosts: string;
}

async function runUi(flags: UiFlags): Promise<void> {
  const [{ homedir }, { loadClientConfig }, ui] = await Promise.all([
    import('node:os'),
    import('../client/loadingrules.js'),
    import('../ui/index.js'),
  ]);
  try {
    const port = Number(flags.port);
    if (!/^\d+$/.test(flags.port) || port > 65535)
      throw new ui.UiError('DKC_UI_INVALID_FLAG', ui.messages.badPort(flags.port));
    const config = await loadClientConfig({
      explicitPath: flags.kubeconfig,
      env: process.env['KUBECONFIG'],
      home: homedir(),
      context: flags.context,
    });
    const server = await ui.startUiServer({
      config,
      address: flags.address,
      port,
      acceptHosts: ui.parseAcceptHosts(flags.acceptHosts),
    });
    process.stdout.write(server.channelSays + '\n');
    process.stdout.write(ui.messages.serving(server.url) + '\n');
    const stop = (): void => void server.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  } catch (err) {
    process.stderr.write(`error: ${errorMessage(err)}\n`);
    process.exitCode = exitCodeFor(err);
  }
}

export function registerUiCommand(program: Command): void {
  program
    .command('ui')
    .description(
      "serve a live web view of the fleet's node configs and rollouts, talking to the API with your kubeconfig's credentials",
    )
    .option('--kubeconfig <file>', 'path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--context <name>', 'the kubeconfig context to use')
    .option('--port <port>', 'the port to serve on (0 picks a free one)', '8080')
    .option('--address <ip>', 'the address to serve on', '127.0.0.1')
    .option(
      '--accept-hosts <regexps>',
      'comma-separated regular expressions of the Host names accepted, as kubectl proxy takes them',
      DEFAULT_ACCEPT_HOSTS,
    )
    .action((flags: UiFlags) => runUi(flags));
}
