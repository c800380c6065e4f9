// `dkc up`: a local cluster for trying dkc — the server and N agents under dkc's supervisor, until Ctrl-C.
import type { Command } from 'commander';

export function registerUpCommand(program: Command): void {
  program
    .command('up')
    .description('run a local cluster: the API server and N node agents, supervised, until Ctrl-C')
    .option('--data-dir <dir>', 'where the cluster keeps its state', '.dkc')
    .option('--nodes <n>', 'number of node agents', '3')
    .option('--port <port>', 'API server port (0 picks a free one)', '6443')
    .option(
      '--storage <backend>',
      'sqlite, or etcd: a local single-member etcd (the `etcd` on PATH) under --data-dir',
      'sqlite',
    )
    .option(
      '--simulated-nodes <n>',
      'also run N simulated nodes (sim-1 … sim-N) in one supervised `dkc fleet` process',
      '0',
    )
    .option(
      '--kubelet-version <versions>',
      'the kubelet version each agent behaves as; a list (1.30,1.31,1.32) cycles over the nodes',
    )
    .option(
      '--emulated-version <major.minor>',
      "the API server behaves as this kube-apiserver release (dkc server's --emulated-version), e.g. 1.31",
    )
    .option(
      '--node-daemon <mode>',
      "dropin or replace: each node is a kubelet managed by `dkc node-daemon` (the default with --emulated-version); off: the agents' own dynamic config controller",
    )
    .option(
      '--agent-arg <flag>',
      'a flag for every agent, e.g. --agent-arg=--dynamic-config-trial-duration=5s (repeatable)',
      (v: string, prev: string[]) => [...prev, v],
      [] as string[],
    )
    .option(
      '--node-daemon-arg <flag>',
      'a flag for every node daemon, e.g. --node-daemon-arg=--kubelet-start-timeout=5s (repeatable)',
      (v: string, prev: string[]) => [...prev, v],
      [] as string[],
    )
    .action(async (opts: import('../up/up.js').UpOptions) => {
      const { runUp } = await import('../up/up.js');
      await runUp(opts);
    });
}
