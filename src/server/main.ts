// `dkc server`: opens the store, makes sure the cluster PKI exists, serves the API, and only once it accepts
// requests writes DATA_DIR/kubeconfig (atomically) for the admin — scripts wait for that file.

import { readFile, stat } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { openStore, type StoreConfig } from '../storage/index.js';
import { klog } from '../util/klog.js';
import { ensurePrivateDir } from '../util/privatefs.js';
import { ApiServer } from './apiserver.js';
import type { AdmissionPlugin } from './authz.js';
import { parseTokenFile } from './authn.js';
import { CodedError, errorMessage } from '../util/errors.js';

export interface ServerCommandOptions {
  dataDir: string;
  port: string;
  bindAddress: string;
  tokenAuthFile?: string;
  /** --emulated-version: behave as this kube-apiserver release (1.22–1.36); absent, dkc's default. */
  emulatedVersion?: string;
  watchCacheSize?: string;
  watchBufferLimit?: string;
  watchBufferBudget?: string;
  maxWatchesPerUser?: string;
  minRequestTimeout?: string;
  /** 'sqlite' (default) or 'etcd'. */
  storage?: string;
  /** Comma-separated etcd client URLs (--storage etcd). */
  etcdServers?: string;
  etcdPrefix?: string;
  etcdCafile?: string;
  etcdCertfile?: string;
  etcdKeyfile?: string;
  /** Seconds between automatic etcd compactions; 0 turns them off. */
  etcdCompactionInterval?: string;
  /** Comma-separated: Node, RBAC, AlwaysAllow (system:masters is always allowed). */
  authorizationMode?: string;
  auditLogPath?: string;
  /** Comma-separated controllers to run in-process (rollout, nodelifecycle, namespace); '' for none. Default all. */
  controllers?: string;
  /** --node-monitor-grace-period, e.g. 40s. */
  nodeMonitorGracePeriod?: string;
  /** --namespace-sync-period, e.g. 5m. */
  namespaceSyncPeriod?: string;
  /** Comma-separated admission plugins to turn off, by name (NodeRestriction, NodeConfigPolicy, …). */
  disableAdmissionPlugins?: string;
}

/** A `dkc server` flag, or a file it names, holds a value the server cannot use. */
export class ServerConfigError extends CodedError<'DKC_SERVER_INVALID_CONFIG'> {
  override name = 'ServerConfigError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('DKC_SERVER_INVALID_CONFIG', message, options);
  }
}

function parsePort(s: string): number {
  const n = Number(s);
  if (!/^\d+$/.test(s) || n > 65535)
    throw new ServerConfigError(`invalid --port ${JSON.stringify(s)}: must be an integer in [0, 65535]`);
  return n;
}

function positiveInt(flag: string, s: string | undefined): number | undefined {
  if (s === undefined) return undefined;
  if (!/^\d+$/.test(s) || Number(s) <= 0)
    throw new ServerConfigError(`invalid ${flag} ${JSON.stringify(s)}: must be a positive integer`);
  return Number(s);
}

/** The store a server's flags name; several replicas may share one etcd, never one SQLite file. */
async function storeConfig(opts: ServerCommandOptions, dataDir: string): Promise<StoreConfig> {
  const kind = opts.storage ?? 'sqlite';
  if (kind === 'sqlite') return { kind: 'sqlite', path: join(dataDir, 'dkc.db') };
  if (kind !== 'etcd') throw new ServerConfigError(`invalid --storage ${JSON.stringify(kind)}: must be sqlite or etcd`);
  const endpoints = (opts.etcdServers ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u !== '');
  if (endpoints.length === 0) throw new ServerConfigError('--storage etcd needs --etcd-servers URL[,URL...]');
  for (const u of endpoints) {
    if (!/^https?:\/\/[^/]+\/?$/.test(u))
      throw new ServerConfigError(`invalid --etcd-servers entry ${JSON.stringify(u)}: must be http(s)://host:port`);
  }
  if ((opts.etcdCertfile === undefined) !== (opts.etcdKeyfile === undefined)) {
    throw new ServerConfigError('--etcd-certfile and --etcd-keyfile must be given together');
  }
  if (opts.etcdCertfile && !opts.etcdCafile) throw new ServerConfigError('--etcd-certfile needs --etcd-cafile');
  const interval = opts.etcdCompactionInterval === undefined ? undefined : Number(opts.etcdCompactionInterval);
  if (interval !== undefined && !(/^\d+$/.test(opts.etcdCompactionInterval!) && Number.isSafeInteger(interval))) {
    throw new ServerConfigError(
      `invalid --etcd-compaction-interval ${JSON.stringify(opts.etcdCompactionInterval)}: must be a non-negative integer of seconds`,
    );
  }
  return {
    kind: 'etcd',
    endpoints,
    ...(opts.etcdPrefix ? { prefix: opts.etcdPrefix } : {}),
    ...(opts.etcdCafile
      ? {
          tls: {
            caPem: await readFile(opts.etcdCafile),
            ...(opts.etcdCertfile
              ? { certPem: await readFile(opts.etcdCertfile), keyPem: await readFile(opts.etcdKeyfile!) }
              : {}),
          },
        }
      : {}),
    ...(interval !== undefined ? { compactionIntervalMs: interval * 1000 } : {}),
  };
}

/**
 * A zero-byte database beside an existing pki/ is a cluster whose state was lost (a truncated copy, a full disk);
 * SQLite would happily start an empty cluster under the old certificates, so that every node and config seems to
 * vanish. Refuse, and say how to recover.
 */
async function refuseEmptiedDatabase(dataDir: string): Promise<void> {
  const db = join(dataDir, 'dkc.db');
  const [dbStat, pkiStat] = await Promise.all([
    stat(db).catch(() => undefined),
    stat(join(dataDir, 'pki')).catch(() => undefined),
  ]);
  if (dbStat?.isFile() && dbStat.size === 0 && pkiStat?.isDirectory()) {
    throw new ServerConfigError(
      `${db} is empty (0 bytes) but ${join(dataDir, 'pki')} holds an existing cluster's certificates; refusing to start an empty cluster under them. ` +
        `Restore dkc.db from a backup, or start over by removing ${db} and ${join(dataDir, 'pki')}`,
    );
  }
}

/** kube-apiserver's --disable-admission-plugins: the chain without the plugins named; an unknown name is an error. */
export function withoutDisabledPlugins(plugins: AdmissionPlugin[], names: string | undefined): AdmissionPlugin[] {
  const disabled = (names ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  for (const n of disabled)
    if (!plugins.some((p) => p.name === n))
      throw new ServerConfigError(`disable-admission-plugins plugin ${JSON.stringify(n)} is unknown`);
  return plugins.filter((p) => !disabled.includes(p.name));
}

export async function startServer(
  opts: ServerCommandOptions,
): Promise<{ server: ApiServer; port: number; kubeconfig: string; stop(): Promise<void> }> {
  const dataDir = resolve(opts.dataDir);
  const port = parsePort(opts.port);
  if (!isIP(opts.bindAddress) && opts.bindAddress !== 'localhost') {
    throw new ServerConfigError(`invalid --bind-address ${JSON.stringify(opts.bindAddress)}: must be an IP address`);
  }
  const watchCacheSize = positiveInt('--watch-cache-size', opts.watchCacheSize);
  const watchBufferLimit = positiveInt('--watch-buffer-limit', opts.watchBufferLimit);
  const watchBufferBudget = positiveInt('--watch-buffer-budget', opts.watchBufferBudget);
  const maxWatchesPerUser = positiveInt('--max-watches-per-user', opts.maxWatchesPerUser);
  const minRequestTimeout = positiveInt('--min-request-timeout', opts.minRequestTimeout);
  const { clusterAuthorization, parseAuthorizationModes } = await import('./auth/index.js');
  let modes: ReturnType<typeof parseAuthorizationModes>;
  try {
    modes = parseAuthorizationModes(opts.authorizationMode ?? 'Node,RBAC');
  } catch (err) {
    throw new ServerConfigError(errorMessage(err), { cause: err });
  }
  const controllers = await controllerSettings(opts);
  const emulatedVersion = await emulatedVersionOf(opts);
  // The authorizers read the server's own watch caches, which exist only once the server does.
  let serverRef: ApiServer | undefined;
  const { keepsNodeConfigSource } = await import('./emulation/version.js');
  const keepsNodeFields = !emulatedVersion || keepsNodeConfigSource(emulatedVersion);
  const authz = clusterAuthorization(
    modes,
    (group, plural) => serverRef?.cacheOf(group, plural),
    () => serverRef?.reads,
    {
      nodeConfigSourceEdge: keepsNodeFields,
      assignmentChannel: keepsNodeFields ? 'node' : 'nodeconfig',
    },
  );
  const admission = withoutDisabledPlugins(authz.admission, opts.disableAdmissionPlugins);
  const tokens = opts.tokenAuthFile ? parseTokenFile(await readFile(opts.tokenAuthFile, 'utf8')) : undefined;
  ensurePrivateDir(dataDir);
  if ((opts.storage ?? 'sqlite') === 'sqlite') await refuseEmptiedDatabase(dataDir);

  const { ensureClusterPKI, writeKubeconfig } = await import('../pki/index.js');
  const ips = isIP(opts.bindAddress) && !['0.0.0.0', '::'].includes(opts.bindAddress) ? [opts.bindAddress] : [];
  const pki = await ensureClusterPKI(join(dataDir, 'pki'), { ips });
  const store = await openStore(await storeConfig(opts, dataDir));
  const audit = opts.auditLogPath
    ? new (await import('./auth/audit.js')).AuditLog(resolve(opts.auditLogPath))
    : undefined;
  const server = new ApiServer({
    authorizer: authz.authorizer,
    admission,
    afterWrite: authz.afterWrite,
    ...(audit ? { audit } : {}),
    ...(emulatedVersion ? { emulatedVersion } : {}),
    store,
    tls: { caPem: pki.ca.certPem, certPem: pki.apiserver.certPem, keyPem: pki.apiserver.keyPem },
    kubeletClient: { certPem: pki.apiserverKubeletClient.certPem, keyPem: pki.apiserverKubeletClient.keyPem },
    ...(tokens ? { tokens } : {}),
    ...(watchCacheSize ? { watchCacheSize } : {}),
    ...(watchBufferLimit ? { watchBufferLimit } : {}),
    ...(watchBufferBudget ? { watchBufferBudget } : {}),
    ...(maxWatchesPerUser ? { maxWatchesPerUser } : {}),
    ...(minRequestTimeout ? { minRequestTimeoutSeconds: minRequestTimeout } : {}),
  });
  serverRef = server;
  await server.start();
  const { readCrdManifests, SHIPPED_CRD_DIR } = await import('./crd/install.js');
  await server.installCrds(await readCrdManifests(SHIPPED_CRD_DIR));
  await authz.start(server);
  const addr = await server.listen(port, opts.bindAddress);
  let host = opts.bindAddress === '0.0.0.0' ? '127.0.0.1' : opts.bindAddress === '::' ? '::1' : opts.bindAddress;
  if (isIP(host) === 6) host = `[${host}]`;
  const url = `https://${host}:${addr.port}`;
  const kubeconfig = join(dataDir, 'kubeconfig');
  await writeKubeconfig(kubeconfig, {
    server: url,
    caPem: pki.ca.certPem,
    certPem: pki.admin.certPem,
    keyPem: pki.admin.keyPem,
  });
  klog.info(`serving the API on ${url}; admin kubeconfig: ${kubeconfig}`);
  const manager = await (
    await import('../controllers/host.js')
  ).startInProcessControllers({
    ...controllers,
    url,
    ca: pki.ca,
    exclusiveDataDir: (opts.storage ?? 'sqlite') === 'sqlite' ? dataDir : undefined,
    metrics: server.metrics.registry,
  });
  return {
    server,
    port: addr.port,
    kubeconfig,
    async stop() {
      // The controllers stop first and release their Lease while the API still answers.
      await manager?.stop();
      authz.stop();
      await server.close();
      await store.close();
      await audit?.close();
    },
  };
}

/** The release --emulated-version names, checked before anything starts. */
async function emulatedVersionOf(
  opts: ServerCommandOptions,
): Promise<import('./emulation/version.js').KubeVersion | undefined> {
  if (opts.emulatedVersion === undefined) return undefined;
  const { parseEmulatedVersion } = await import('./emulation/version.js');
  try {
    return parseEmulatedVersion(opts.emulatedVersion);
  } catch (err) {
    throw new ServerConfigError(errorMessage(err), { cause: err });
  }
}

type ControllerSettings = {
  names: import('../controllers/manager.js').ControllerName[];
  gracePeriodMs: number;
  namespaceSyncPeriodMs: number;
};

/** The in-process controllers the flags ask for, checked before anything starts. */
async function controllerSettings(opts: ServerCommandOptions): Promise<ControllerSettings> {
  const m = await import('../controllers/manager.js');
  try {
    return {
      names: m.parseControllers(opts.controllers ?? m.DEFAULT_CONTROLLERS),
      gracePeriodMs: m.parseDurationFlag(
        '--node-monitor-grace-period',
        opts.nodeMonitorGracePeriod ?? m.DEFAULT_NODE_MONITOR_GRACE_PERIOD,
      ),
      namespaceSyncPeriodMs: m.parseDurationFlag(
        '--namespace-sync-period',
        opts.namespaceSyncPeriod ?? m.DEFAULT_NAMESPACE_SYNC_PERIOD,
      ),
    };
  } catch (err) {
    throw new ServerConfigError(errorMessage(err), { cause: err });
  }
}

/**
 * A serving process outlives any promise a request handler forgot to catch: it is logged, not fatal (Node ends the
 * process on an unhandled rejection by default, which would let one request stop the control plane).
 */
function surviveUnhandledRejections(): void {
  process.on('unhandledRejection', (reason) => {
    klog.error(`unhandled rejection (the server keeps serving): ${(reason as Error)?.stack ?? String(reason)}`);
  });
}

export async function runServerCommand(opts: ServerCommandOptions): Promise<void> {
  surviveUnhandledRejections();
  const running = await startServer(opts);
  process.stdout.write(
    `dkc server is ready. Use it with:\n  export KUBECONFIG=${running.kubeconfig}\n  kubectl get nodes\n`,
  );
  await new Promise<void>((resolveStop) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      klog.info(`received ${signal}, shutting down`);
      running.stop().then(resolveStop, (err) => {
        klog.error(`shutdown failed: ${errorMessage(err)}`);
        resolveStop();
      });
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}
