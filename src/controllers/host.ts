// The controllers hosted inside `dkc server`: the manager as a client of the server's own address, authenticated by a
// client certificate for system:dkc:controller issued from the cluster CA for this process's lifetime (never written),
// so the controllers hold exactly the rights RBAC gives that identity, as they would against any API server. A
// controller that needs other rights runs as its own user, with a certificate of its own (kube-controller-manager's
// --use-service-account-credentials): the garbage collector and the namespace controller, whose rights on every
// resource no other controller has.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RestClient } from '../client/index.js';
import { issueCert } from '../pki/index.js';
import { writeFileAtomic } from '../util/atomicfile.js';
import { klog } from '../util/klog.js';
import type { Registry } from '../util/prom.js';
import {
  CONTROLLER_USER,
  DAEMON_SET_CONTROLLER_USER,
  DEPLOYMENT_CONTROLLER_USER,
  DISRUPTION_CONTROLLER_USER,
  GARBAGE_COLLECTOR_USER,
  NAMESPACE_CONTROLLER_USER,
  REPLICASET_CONTROLLER_USER,
  SCHEDULER_USER,
  STATEFUL_SET_CONTROLLER_USER,
  TAINT_EVICTION_USER,
} from '../api/dkc/identity.js';
import { leaderIdentity } from './leaderelection.js';
import { ControllerManager, type ControllerName } from './manager.js';

export interface InProcessOptions {
  names: readonly ControllerName[];
  gracePeriodMs: number;
  namespaceSyncPeriodMs?: number;
  /** The server's own URL, its serving certificate signed by `ca`. */
  url: string;
  /** The cluster CA; without its key no certificate can be issued, and no controller runs. */
  ca: { certPem: string; keyPem?: string };
  /** The data dir when only this process can be using it (SQLite): see takeOverIdentity. */
  exclusiveDataDir?: string | undefined;
  /** The server's registry: the controllers' metrics are served on its /metrics while they lead. */
  metrics?: Registry;
}

/**
 * With SQLite only one process can be using a data dir (the database is opened exclusively), so the leader identity
 * its previous run recorded there belongs to a process that is gone: a restart after a crash takes the Lease back at
 * once instead of waiting out the lease duration. Returns that previous identity and records the new one.
 */
export async function takeOverIdentity(dataDir: string, identity: string): Promise<string[]> {
  const file = join(dataDir, 'controller-identity');
  const previous = (await readFile(file, 'utf8').catch(() => '')).trim();
  await writeFileAtomic(file, `${identity}\n`, 0o644);
  return previous === '' ? [] : [previous];
}

/** The controllers that run as a user of their own; the others, and the leader election, as CONTROLLER_USER. */
export const OWN_IDENTITIES: Partial<Record<ControllerName, string>> = {
  garbagecollector: GARBAGE_COLLECTOR_USER,
  namespace: NAMESPACE_CONTROLLER_USER,
  tainteviction: TAINT_EVICTION_USER,
  scheduler: SCHEDULER_USER,
  disruption: DISRUPTION_CONTROLLER_USER,
  replicaset: REPLICASET_CONTROLLER_USER,
  deployment: DEPLOYMENT_CONTROLLER_USER,
  daemonset: DAEMON_SET_CONTROLLER_USER,
  statefulset: STATEFUL_SET_CONTROLLER_USER,
};

/** A client of the server authenticated as `user` by a certificate from the cluster CA, held in memory only. */
async function clientAs(o: InProcessOptions & { ca: { keyPem: string } }, user: string): Promise<RestClient> {
  const cert = await issueCert(
    { certPem: o.ca.certPem, keyPem: o.ca.keyPem },
    { commonName: user, usages: ['client'] },
  );
  return new RestClient(
    { server: o.url, ca: o.ca.certPem, cert: cert.certPem, key: cert.keyPem },
    { userAgent: 'dkc-controller' },
  );
}

/** Starts the leader-elected manager; undefined when there is nothing to run. */
export async function startInProcessControllers(o: InProcessOptions): Promise<{ stop(): Promise<void> } | undefined> {
  if (o.names.length === 0) return undefined;
  if (o.ca.keyPem === undefined) {
    klog.warning(
      'not running the controllers: the cluster CA key is not in this data dir, so no client certificate can be issued for them',
    );
    return undefined;
  }
  const identity = leaderIdentity();
  const deadIdentities = o.exclusiveDataDir ? await takeOverIdentity(o.exclusiveDataDir, identity) : [];
  const withKey = { ...o, ca: { certPem: o.ca.certPem, keyPem: o.ca.keyPem } };
  const client = await clientAs(withKey, CONTROLLER_USER);
  const clients: Partial<Record<ControllerName, RestClient>> = {};
  for (const name of o.names) {
    const user = OWN_IDENTITIES[name];
    if (user !== undefined) clients[name] = await clientAs(withKey, user);
  }
  const manager = new ControllerManager({
    client,
    clients,
    controllers: o.names,
    nodeMonitorGracePeriodMs: o.gracePeriodMs,
    ...(o.namespaceSyncPeriodMs !== undefined ? { namespaceSyncPeriodMs: o.namespaceSyncPeriodMs } : {}),
    identity,
    deadIdentities,
    ...(o.metrics ? { metrics: o.metrics } : {}),
  });
  const own = o.names.filter((n) => clients[n] !== undefined).map((n) => `, ${n} as ${OWN_IDENTITIES[n]}`);
  klog.info(
    `controllers [${o.names.join(', ')}] run as ${CONTROLLER_USER}${own.join('')} with leader election identity ${identity}`,
  );
  manager.start();
  return {
    async stop() {
      await manager.stop();
      for (const c of [client, ...Object.values(clients)]) c.close();
    },
  };
}
