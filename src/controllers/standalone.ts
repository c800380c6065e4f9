// `dkc controller`: the controller manager on its own, against any Kubernetes API named by a kubeconfig (--kubeconfig,
// else $KUBECONFIG merged, else ~/.kube/config, as kubectl finds it). Leader-elected like the in-process one, so it
// can run beside dkc servers that run their own, or beside copies of itself; SIGINT/SIGTERM stop it and release the
// Lease. The config channel is found once, before anything runs (--config-channel may force it): a cluster that mixes
// channels is refused with one line.

import { homedir } from 'node:os';
import { parseChannelChoice, type ConfigChannel } from '../client/channel.js';
import { RestClient } from '../client/index.js';
import { loadClientConfig } from '../client/loadingrules.js';
import { klog } from '../util/klog.js';
import { newRegistry } from '../util/prom.js';
import { logs } from './errors.js';
import {
  ControllerManager,
  DEFAULT_NAMESPACE_SYNC_PERIOD,
  DEFAULT_NODE_MONITOR_GRACE_PERIOD,
  parseControllers,
  parseDurationFlag,
  parseLeaseName,
} from './manager.js';
import { LEADER_LEASE_NAME } from '../api/dkc/identity.js';
import { STANDALONE_DEFAULT_CONTROLLERS } from './names.js';
import { parseBindAddress, serveMetrics } from './metricsserver.js';

export interface ControllerCommandOptions {
  kubeconfig?: string;
  context?: string;
  controllers?: string;
  nodeMonitorGracePeriod?: string;
  namespaceSyncPeriod?: string;
  /** host:port for plain-HTTP /metrics; "0" for none (the default). */
  metricsBindAddress?: string;
  /** auto (the default), node or nodeconfig. */
  configChannel?: string;
  /** The Lease in kube-system to elect on; dkc-controller by default. */
  leaderElectResourceName?: string;
}

export async function runControllerCommand(opts: ControllerCommandOptions): Promise<void> {
  const names = parseControllers(opts.controllers ?? STANDALONE_DEFAULT_CONTROLLERS);
  const gracePeriodMs = parseDurationFlag(
    '--node-monitor-grace-period',
    opts.nodeMonitorGracePeriod ?? DEFAULT_NODE_MONITOR_GRACE_PERIOD,
  );
  const namespaceSyncPeriodMs = parseDurationFlag(
    '--namespace-sync-period',
    opts.namespaceSyncPeriod ?? DEFAULT_NAMESPACE_SYNC_PERIOD,
  );
  const bind = parseBindAddress(opts.metricsBindAddress ?? '0');
  const leaseName = parseLeaseName(opts.leaderElectResourceName ?? LEADER_LEASE_NAME);
  const choice = parseChannelChoice(opts.configChannel ?? 'auto');
  const config = await loadClientConfig({
    explicitPath: opts.kubeconfig,
    env: process.env['KUBECONFIG'],
    home: homedir(),
    context: opts.context,
  });
  const client = new RestClient(config, { userAgent: 'dkc-controller' });
  let configChannel: ConfigChannel | undefined;
  if (names.includes('rollout')) {
    try {
      configChannel = await (await import('./rollout/findchannel.js')).findChannel(client, choice);
    } catch (err) {
      client.close();
      throw err;
    }
  }
  const registry = bind ? newRegistry() : undefined;
  const metricsServer = bind && registry ? await serveMetrics(registry, bind) : undefined;
  if (metricsServer) klog.info(logs.servingMetrics(`${metricsServer.address.address}:${metricsServer.address.port}`));
  const manager = new ControllerManager({
    client,
    controllers: names,
    nodeMonitorGracePeriodMs: gracePeriodMs,
    namespaceSyncPeriodMs,
    leaseName,
    ...(configChannel ? { configChannel } : {}),
    ...(registry ? { metrics: registry } : {}),
  });
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
  await metricsServer?.close();
  client.close();
}
