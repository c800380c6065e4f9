// `dkc server`: the control plane.
import type { Command } from 'commander';

export function registerServerCommand(program: Command): void {
  program
    .command('server')
    .description('run the Kubernetes-compatible API server')
    .requiredOption('--data-dir <dir>', 'directory for the database, PKI and admin kubeconfig')
    .option('--port <port>', 'HTTPS port', '6443')
    .option('--bind-address <addr>', 'address to listen on', '127.0.0.1')
    .option('--token-auth-file <file>', 'static bearer tokens (CSV: token,user,uid,"group1,group2")')
    .option('--watch-cache-size <n>', 'events kept per resource for watches resuming from a resourceVersion', '1000')
    .option('--watch-buffer-limit <bytes>', 'bytes a slow watcher may fall behind before it is dropped with 410')
    .option('--min-request-timeout <seconds>', 'watches without timeoutSeconds end after a random time in [t, 2t)', '1800')
    .action(async (opts: import('../server/main.js').ServerCommandOptions) => {
      const { runServerCommand } = await import('../server/main.js');
      await runServerCommand(opts);
    });
}
