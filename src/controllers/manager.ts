// The controller manager: campaigns for the Lease kube-system/dkc-controller (or --leader-elect-resource-name) and, while it leads, runs the enabled
// controllers with one AbortSignal that fires the instant leadership ends. Hosted in-process by `dkc server` or on
// its own by `dkc controller`; either way it acts only through its API clients: its own (system:dkc:controller) for
// the election and every controller without an identity of its own, and a controller's own client where the host
// gives one (as kube-controller-manager's --use-service-account-credentials), with informers opened by that client.

import type { ConfigChannel } from '../client/channel.js';
import type { RestClient } from '../client/index.js';
import { SharedInformerFactory } from '../client/sharedinformers.js';
import { Duration } from '../kubeletconfig/index.js';
import { backoffDelay } from '../util/backoff.js';
import { sleep, systemClock, type Clock } from '../util/clock.js';
import { klog } from '../util/klog.js';
import type { Registry } from '../util/prom.js';
import { ControllerError, logs, messages } from './errors.js';
import { LEADER_LEASE_NAME, LEADER_LEASE_NAMESPACE } from '../api/dkc/identity.js';
import { LeaderElector, leaderIdentity, type LeaderElectionOptions } from './leaderelection.js';
import type { ControllerFactory, RunningController } from './types.js';
import { errorMessage } from '../util/errors.js';
import { isDNS1123Subdomain } from '../api/validation/names.js';

import { CONTROLLER_NAMES, DEFAULT_NAMESPACE_SYNC_PERIOD, type ControllerName } from './names.js';

export {
  CONTROLLER_NAMES,
  DEFAULT_CONTROLLERS,
  DEFAULT_NAMESPACE_SYNC_PERIOD,
  DEFAULT_NODE_MONITOR_GRACE_PERIOD,
  type ControllerName,
} from './names.js';

/** Between attempts to start a controller that failed to start. */
const START_BACKOFF = { initialMs: 1_000, maxMs: 30_000, jitter: 0.2 };

/** `--controllers` as given: comma-separated names, '' for none. */
export function parseControllers(flag: string): ControllerName[] {
  const names = flag
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const n of names) {
    if (!(CONTROLLER_NAMES as readonly string[]).includes(n))
      throw new ControllerError('DKC_CONTROLLER_UNKNOWN', messages.unknownController(n, CONTROLLER_NAMES));
  }
  return [...new Set(names)] as ControllerName[];
}

/**
 * `--leader-elect-resource-name`, the Lease in kube-system the manager campaigns on (kube-controller-manager's flag of
 * that name): managers that run different controllers under different identities elect on different Leases, so each
 * runs; copies of one manager share one.
 */
export function parseLeaseName(value: string): string {
  const problems = isDNS1123Subdomain(value);
  if (problems.length > 0)
    throw new ControllerError('DKC_CONTROLLER_INVALID_LEASE_NAME', messages.invalidLeaseName(value, problems));
  return value;
}

/** A duration flag such as `--node-monitor-grace-period 40s`, in milliseconds. */
export function parseDurationFlag(flag: string, value: string): number {
  let ms: number;
  try {
    ms = Duration.parse(value).toMilliseconds();
  } catch (err) {
    throw new ControllerError('DKC_CONTROLLER_INVALID_DURATION', messages.invalidDuration(flag, value), { cause: err });
  }
  if (!(ms > 0)) throw new ControllerError('DKC_CONTROLLER_INVALID_DURATION', messages.invalidDuration(flag, value));
  return ms;
}

/** The timings of the controllers that have flags for them. */
export interface ControllerTimings {
  nodeMonitorGracePeriodMs: number;
  /** --namespace-sync-period; absent, kube's 5 minutes. */
  namespaceSyncPeriodMs?: number;
}

/** The factories by name; each controller is loaded only when enabled. */
export async function loadFactory(
  name: ControllerName,
  opts: ControllerTimings & { configChannel?: ConfigChannel | undefined },
): Promise<ControllerFactory> {
  if (name === 'rollout') return (await import('./rollout/index.js')).rolloutControllerOn(opts.configChannel);
  if (name === 'garbagecollector') return (await import('./garbagecollector/index.js')).garbageCollectorController();
  if (name === 'tainteviction') return (await import('./tainteviction/index.js')).taintEvictionController();
  if (name === 'replicaset') return (await import('./replicaset/index.js')).replicaSetController();
  if (name === 'deployment') return (await import('./deployment/index.js')).deploymentController();
  if (name === 'disruption') return (await import('./disruption/index.js')).disruptionController();
  if (name === 'daemonset') return (await import('./daemonset/index.js')).daemonSetController();
  if (name === 'statefulset') return (await import('./statefulset/index.js')).statefulSetController();
  if (name === 'scheduler') return (await import('./scheduler/index.js')).schedulerController();
  if (name === 'namespace') {
    const syncPeriodMs =
      opts.namespaceSyncPeriodMs ?? parseDurationFlag('--namespace-sync-period', DEFAULT_NAMESPACE_SYNC_PERIOD);
    return (await import('./namespace/index.js')).namespaceController({ syncPeriodMs });
  }
  return (await import('./nodelifecycle/index.js')).nodeLifecycleController({
    gracePeriodMs: opts.nodeMonitorGracePeriodMs,
  });
}

export interface ControllerManagerOptions extends ControllerTimings {
  /** The manager's own: the leader election, and the controllers `clients` names none for. */
  client: RestClient;
  /** A controller's own identity, where it needs rights the others must not have (the garbage collector, the namespace controller). */
  clients?: Partial<Record<ControllerName, RestClient>>;
  controllers: readonly ControllerName[];
  /** The config channel the host found (`dkc controller`); absent, the rollout controller finds it as it starts. */
  configChannel?: ConfigChannel;
  clock?: Clock;
  identity?: string;
  /** The Lease in kube-system to elect on (parseLeaseName); dkc-controller by default. */
  leaseName?: string;
  /** See LeaderElectionOptions.deadIdentities. */
  deadIdentities?: readonly string[];
  /** Overrides client-go's 15 s / 10 s / 2 s (tests). */
  election?: Pick<LeaderElectionOptions, 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs'>;
  /** The registry the controllers add their metrics to while they lead. */
  metrics?: Registry;
  /** Replaces loadFactory (tests). */
  factories?: Partial<Record<ControllerName, ControllerFactory>>;
}

export class ControllerManager {
  readonly identity: string;
  private readonly o: ControllerManagerOptions;
  private readonly clock: Clock;
  private readonly stopping = new AbortController();
  private readonly elector: LeaderElector;
  private running: { name: string; controller: Promise<RunningController | undefined> }[] = [];
  /** This leadership term's informers, one factory per client (identity), shared by its controllers; stopped after them. */
  private informers = new Map<RestClient, SharedInformerFactory>();
  private loop: Promise<void> | undefined;

  constructor(options: ControllerManagerOptions) {
    this.o = options;
    this.clock = options.clock ?? systemClock;
    this.identity = options.identity ?? leaderIdentity();
    this.elector = new LeaderElector({
      client: options.client,
      namespace: LEADER_LEASE_NAMESPACE,
      name: options.leaseName ?? LEADER_LEASE_NAME,
      identity: this.identity,
      ...(options.deadIdentities ? { deadIdentities: options.deadIdentities } : {}),
      clock: this.clock,
      ...options.election,
      onStartedLeading: (signal) => this.startControllers(signal),
      onStoppedLeading: () => this.stopControllers(),
    });
  }

  get isLeader(): boolean {
    return this.elector.isLeader;
  }

  /** Campaigns in the background; nothing to do when no controller is enabled. */
  start(): void {
    if (this.loop !== undefined || this.o.controllers.length === 0) return;
    this.loop = this.elector.run(this.stopping.signal).catch((err: unknown) => klog.error(errorMessage(err)));
  }

  /** Stops the controllers, then releases the Lease if held. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.loop;
  }

  private startControllers(signal: AbortSignal): void {
    this.running = this.o.controllers.map((name) => ({
      name,
      controller: this.startOne(name, signal, this.o.clients?.[name] ?? this.o.client),
    }));
  }

  /** The term's informers for `client`: a controller watches with its own identity's rights, never another's. */
  private informersOf(client: RestClient): SharedInformerFactory {
    let factory = this.informers.get(client);
    if (!factory) this.informers.set(client, (factory = new SharedInformerFactory(client, { clock: this.clock })));
    return factory;
  }

  /** Starts one controller, retrying with backoff while it fails to start (say, its CRD is not served yet). */
  private async startOne(
    name: ControllerName,
    signal: AbortSignal,
    client: RestClient,
  ): Promise<RunningController | undefined> {
    const informers = this.informersOf(client);
    klog.info(logs.startingController(name));
    for (let failures = 1; !signal.aborted; failures++) {
      try {
        const factory =
          this.o.factories?.[name] ??
          (await loadFactory(name, { ...this.timings(), configChannel: this.o.configChannel }));
        if (signal.aborted) return undefined;
        return await factory({
          client,
          clock: this.clock,
          signal,
          informers,
          ...(this.o.metrics ? { metrics: this.o.metrics } : {}),
        });
      } catch (err) {
        if (signal.aborted) return undefined;
        klog.error(logs.controllerFailed(name, errorMessage(err)));
        const delay = backoffDelay(START_BACKOFF, failures);
        await sleep(this.clock, delay, signal, () => new Error('aborted')).catch(() => undefined);
      }
    }
    return undefined;
  }

  private timings(): ControllerTimings {
    const { nodeMonitorGracePeriodMs, namespaceSyncPeriodMs } = this.o;
    return { nodeMonitorGracePeriodMs, ...(namespaceSyncPeriodMs !== undefined ? { namespaceSyncPeriodMs } : {}) };
  }

  private async stopControllers(): Promise<void> {
    klog.info(logs.stoppedLeading());
    const running = this.running;
    const informers = [...this.informers.values()];
    this.running = [];
    this.informers = new Map();
    await Promise.all(
      running.map(async ({ name, controller }) => {
        try {
          await (await controller)?.stop();
        } catch (err) {
          klog.error(logs.controllerFailed(name, errorMessage(err)));
        }
      }),
    );
    await Promise.all(informers.map((f) => f.stop()));
  }
}
