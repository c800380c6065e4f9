// `dkc server`: the control plane.
import type { Command } from 'commander';
import { controllerPeriodOptions, controllersOption } from './controlleroptions.js';

export function registerServerCommand(program: Command): void {
  const command = program
    .command('server')
    .description('run the Kubernetes-compatible API server')
    .requiredOption('--data-dir <dir>', 'directory for the database, PKI and admin kubeconfig')
    .option('--port <port>', 'HTTPS port', '6443')
    .option('--bind-address <addr>', 'address to listen on', '127.0.0.1')
    .option('--token-auth-file <file>', 'static bearer tokens (CSV: token,user,uid,"group1,group2")')
    .option('--watch-cache-size <n>', 'events kept per resource for watches resuming from a resourceVersion', '1000')
    .option('--watch-buffer-limit <bytes>', 'bytes a slow watcher may fall behind before it is dropped with 410')
    .option(
      '--watch-buffer-budget <bytes>',
      'bytes all watchers together may have buffered; beyond, the furthest behind are dropped with 410 (default 256 MiB)',
    )
    .option(
      '--max-watches-per-user <n>',
      'concurrent watches one user may hold; beyond, 429 Too Many Requests (default 1000)',
    )
    .option(
      '--min-request-timeout <seconds>',
      'watches without timeoutSeconds end after a random time in [t, 2t)',
      '1800',
    )
    .option(
      '--storage <backend>',
      'sqlite (one server, file in --data-dir) or etcd (several servers over one etcd cluster)',
      'sqlite',
    )
    .option('--etcd-servers <urls>', 'comma-separated etcd client URLs, for --storage etcd')
    .option(
      '--etcd-prefix <prefix>',
      'prepended to every etcd key, so several clusters can share one etcd (default: none; keys start with /registry/)',
    )
    .option('--etcd-cafile <file>', 'CA bundle to verify the etcd members (enables TLS)')
    .option('--etcd-certfile <file>', 'client certificate for etcd')
    .option('--etcd-keyfile <file>', 'client key for etcd')
    .option(
      '--etcd-compaction-interval <seconds>',
      'compact etcd history older than one interval, every interval (0 = never)',
      '300',
    )
    .option(
      '--authorization-mode <modes>',
      'ordered authorizers: Node, RBAC, AlwaysAllow (system:masters is always allowed)',
      'Node,RBAC',
    )
    .option(
      '--disable-admission-plugins <names>',
      'admission plugins to turn off: NodeRestriction, RBACEscalation, NodeConfigSource, ConfigMapReferences, NodeConfigPolicy',
    )
    .option('--audit-log-path <file>', 'append one JSON audit event per request to this file');
  controllerPeriodOptions(controllersOption(command, 'controllers to run in-process, leader-elected'))
    .option(
      '--emulated-version <major.minor>',
      'behave as this kube-apiserver release (1.22–1.36): from 1.24, Nodes drop spec.configSource and status.config (default: 1.22 with Dynamic Kubelet Configuration on)',
    )
    .action(async (opts: import('../server/main.js').ServerCommandOptions) => {
      const { runServerCommand } = await import('../server/main.js');
      await runServerCommand(opts);
    });
}
