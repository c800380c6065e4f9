// `dkc fleet`'s front end: validate the flags, start the fleet, print progress ("N/M registered, R Ready") until every
// node is Ready and again whenever it changes, and stop every node cleanly on SIGINT or SIGTERM.

import { configureLogging } from '../util/klog.js';
import { validPrefix } from './addresses.js';
import { FleetError, messages } from './errors.js';
import { startFleet, type Fleet } from './fleet.js';
import { systemClock } from '../util/clock.js';

export interface FleetCommandOptions {
  kubeconfig?: string;
  nodes: string;
  namePrefix: string;
  firstIndex: string;
  dataDir: string;
  nodeLabels?: string;
  capacity?: string;
  agentArg: string[];
  port: string;
  credentials: string;
  caCert?: string;
  caKey?: string;
  startConcurrency: string;
  statsInterval: string;
  v: string;
}

function int(flag: string, v: string, min: number, max: number): number {
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max)
    throw new FleetError('DKC_FLEET_INVALID_OPTION', messages.invalidInt(flag, v, min, max));
  return Number(v);
}

function labels(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (text ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0)
      throw new FleetError(
        'DKC_FLEET_INVALID_OPTION',
        `invalid --node-labels ${JSON.stringify(text)}: ${part} must be formatted as key=value`,
      );
    out[part.slice(0, eq)] = part.slice(eq + 1);
  }
  return out;
}

/** The fleet's memory and event-loop delay since the previous line. */
function statsLine(fleet: Fleet): string {
  const s = fleet.stats(true);
  const mb = (b: number): string => (b / 1048576).toFixed(0);
  return messages.stats(
    mb(s.rssBytes),
    (s.rssPerNodeBytes / 1024).toFixed(0),
    mb(s.heapUsedBytes),
    s.eventLoopDelayP99Ms.toFixed(1),
    s.eventLoopDelayMaxMs.toFixed(1),
  );
}

/** Prints the progress line whenever it changes, and the fleet's cost every `statsEveryMs`, until stopped. */
function reportProgress(
  fleet: Fleet,
  started: number,
  statsEveryMs: number,
  write: (line: string) => void,
): () => void {
  let last = '';
  let announced = false;
  let lastStats = systemClock.monotonicMs();
  const tick = (): void => {
    if (statsEveryMs > 0 && systemClock.monotonicMs() - lastStats >= statsEveryMs) {
      lastStats = systemClock.monotonicMs();
      write(statsLine(fleet));
    }
    const p = fleet.progress();
    const line = messages.progress(p.registered, p.total, p.ready);
    if (line !== last) write(line);
    last = line;
    if (!announced && p.ready === p.total) {
      announced = true;
      const s = (systemClock.monotonicMs() - started) / 1000;
      write(messages.allReady(p.total, s.toFixed(1), (p.total / s).toFixed(0)));
    }
  };
  const timer = setInterval(tick, 1000);
  return () => {
    clearInterval(timer);
    tick();
  };
}

export async function runFleetCommand(opts: FleetCommandOptions): Promise<void> {
  const kubeconfig = opts.kubeconfig ?? process.env['KUBECONFIG'];
  if (!kubeconfig)
    throw new FleetError('DKC_FLEET_INVALID_OPTION', 'a kubeconfig is required: pass --kubeconfig or set KUBECONFIG');
  const nodes = int('--nodes', opts.nodes, 0, 60_000);
  if (!validPrefix(opts.namePrefix))
    throw new FleetError('DKC_FLEET_INVALID_OPTION', messages.invalidPrefix(opts.namePrefix));
  if (opts.credentials !== 'token' && opts.credentials !== 'certificate')
    throw new FleetError('DKC_FLEET_INVALID_OPTION', messages.invalidCredentials(opts.credentials));
  configureLogging({ verbosity: int('--v', opts.v, 0, 10) });
  const started = systemClock.monotonicMs();
  const fleet = await startFleet({
    kubeconfig,
    nodes,
    namePrefix: opts.namePrefix,
    firstIndex: int('--first-index', opts.firstIndex, 1, 16_000_000),
    dataDir: opts.dataDir,
    labels: labels(opts.nodeLabels),
    ...(opts.capacity !== undefined ? { capacity: opts.capacity } : {}),
    agentArgs: opts.agentArg,
    port: int('--port', opts.port, 0, 65535),
    credentials: opts.credentials,
    ...(opts.caCert !== undefined ? { caCert: opts.caCert } : {}),
    ...(opts.caKey !== undefined ? { caKey: opts.caKey } : {}),
    startConcurrency: int('--start-concurrency', opts.startConcurrency, 1, 10_000),
  });
  const write = (line: string): void => void process.stdout.write(`${line}\n`);
  const stopReporting = reportProgress(
    fleet,
    started,
    int('--stats-interval', opts.statsInterval, 0, 86_400) * 1000,
    write,
  );
  await new Promise<void>((resolve) => {
    const onSignal = (sig: string): void => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      write(messages.stopping(sig));
      resolve();
    };
    const onInt = (): void => onSignal('SIGINT');
    const onTerm = (): void => onSignal('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
  });
  stopReporting();
  await fleet.stop();
  write(messages.stopped(nodes));
}
