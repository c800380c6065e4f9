// `dkc controller`: the controller manager on its own, against any Kubernetes API named by a kubeconfig (--kubeconfig,
// else $KUBECONFIG, else ~/.kube/config, as kubectl finds it). Leader-elected like the in-process one, so it can run
// beside dkc servers that run their own, or several copies of itself; SIGINT/SIGTERM stop it and release the Lease.

import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { RestClient } from '../client/index.js';
import { klog } from '../util/klog.js';
import { ControllerManager, DEFAULT_NODE_MONITOR_GRACE_PERIOD, parseControllers, parseDurationFlag } from './manager.js';

export interface ControllerCommandOptions {
  kubeconfig?: string;
  controllers?: string;
  nodeMonitorGracePeriod?: string;
}

/** kubectl's lookup: the flag, else the first existing file of $KUBECONFIG, else ~/.kube/config. */
export function kubeconfigPath(flag: string | undefined, env: string | undefined, home = homedir()): string {
  if (flag) return flag;
  const listed = (env ?? '').split(delimiter).filter((p) => p !== '');
  return listed.find((p) => existsSync(p)) ?? listed[0] ?? join(home, '.kube', 'config');
}

export async function runControllerCommand(opts: ControllerCommandOptions): Promise<void> {
  const names = parseControllers(opts.controllers ?? 'rollout,nodelifecycle');
  const gracePeriodMs = parseDurationFlag('--node-monitor-grace-period', opts.nodeMonitorGracePeriod ?? DEFAULT_NODE_MONITOR_GRACE_PERIOD);
  const client = await RestClient.fromKubeconfig(kubeconfigPath(opts.kubeconfig, process.env['KUBECONFIG']), { userAgent: 'dkc-controller' });
  const manager = new ControllerManager({ client, controllers: names, nodeMonitorGracePeriodMs: gracePeriodMs });
  klog.info(`dkc controller ${manager.identity}: controllers [${names.join(', ')}]`);
  manager.start();
  await new Promise<void>((resolve) => {
    const stop = (signal: string): void => {
      klog.info(`received ${signal}, shutting down`);
      resolve();
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  await manager.stop();
  client.close();
}
