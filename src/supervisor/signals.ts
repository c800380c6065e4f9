// Turns the terminal's Ctrl-C (or a service manager's SIGTERM) into an orderly stop of every supervised child,
// so `dkc up` can exit 0 once all of them are gone. The children sit in their own process groups and never see
// the terminal's signal themselves: the received signal is passed on to them here. An impatient second signal
// escalates to SIGKILL rather than leaving the operator waiting out the grace period.

import { klog } from '../util/klog.js';
import type { Supervisor } from './supervisor.js';

/** The part of `process` this needs; an EventEmitter stands in for it in tests. */
export interface SignalSource {
  on(event: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  off(event: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
}

export interface SignalForwardingOptions {
  /** Grace period between the forwarded signal and SIGKILL. Default 10 s. */
  graceMs?: number;
  /** The signals that stop the children. Default SIGINT and SIGTERM. */
  signals?: readonly NodeJS.Signals[];
}

export interface SignalForwarding {
  /** Resolves with the first signal received, once every child has exited; rejects if stopping failed. */
  readonly stopped: Promise<NodeJS.Signals>;
  /** Removes the signal handlers (the process's default handling of those signals returns). */
  dispose(): void;
}

export function installSignalForwarding(
  supervisor: Pick<Supervisor, 'stop'>,
  proc: SignalSource = process,
  options: SignalForwardingOptions = {},
): SignalForwarding {
  const signals = options.signals ?? (['SIGINT', 'SIGTERM'] as const);
  const graceMs = options.graceMs ?? 10_000;
  let received: NodeJS.Signals | null = null;
  let escalated = false;
  let resolve!: (signal: NodeJS.Signals) => void;
  let reject!: (err: unknown) => void;
  const stopped = new Promise<NodeJS.Signals>((res, rej) => {
    resolve = res;
    reject = rej;
  });

  const onSignal = (signal: NodeJS.Signals): void => {
    if (received === null) {
      received = signal;
      klog.info('Received signal, stopping all supervised processes', { signal, gracePeriodMs: graceMs });
      const first = signal;
      supervisor.stop(signal, graceMs).then(() => resolve(first), reject);
      return;
    }
    if (escalated) return;
    escalated = true;
    klog.warning('Received a second signal, killing all supervised processes', { signal });
    // The first stop()'s promise settles `stopped`; this one only hurries it along.
    supervisor.stop('SIGKILL', 0).catch(() => undefined);
  };

  // Handlers stay installed after the stop completes: a late Ctrl-C must not kill the caller mid-cleanup.
  for (const s of signals) proc.on(s, onSignal);
  return {
    stopped,
    dispose: () => {
      for (const s of signals) proc.off(s, onSignal);
    },
  };
}
