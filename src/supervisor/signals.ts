// Turns the terminal's Ctrl-C (or a service manager's SIGTERM) into an orderly stop of every supervised child,
// so `dkc up` can exit 0 once all of them are gone. The children sit in their own process groups and never see
// the terminal's signal themselves: they are sent SIGTERM here, the signal a service manager stops a kubelet with.
//
// One Ctrl-C often arrives twice: under `npm start` the terminal signals npm and dkc up together, and npm then
// forwards its own copy milliseconds later. Signals that close to the first are one request to stop; only a signal
// after that window is an operator's impatient second Ctrl-C, and that one escalates to SIGKILL rather than
// leaving the operator waiting out the grace period.

import { systemClock, type Clock } from '../util/clock.js';
import { klog } from '../util/klog.js';
import type { Supervisor } from './supervisor.js';

/** The part of `process` this needs; an EventEmitter stands in for it in tests. */
export interface SignalSource {
  on(event: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  off(event: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
}

export interface SignalForwardingOptions {
  /** Grace period between the stop signal and SIGKILL. Default 10 s. */
  graceMs?: number;
  /** The signals that stop the children. Default SIGINT and SIGTERM. */
  signals?: readonly NodeJS.Signals[];
  /** What the children are sent on the first signal. Default SIGTERM. */
  childSignal?: NodeJS.Signals;
  /** Further signals within this long after the first repeat it rather than force the stop. Default 1 s. */
  coalesceMs?: number;
  /** Times the signals on its monotonic side; the system clock by default. */
  clock?: Clock;
}

export interface SignalForwarding {
  /** Resolves with the first signal received, once every child has exited; rejects if stopping failed. */
  readonly stopped: Promise<NodeJS.Signals>;
  /** Removes the signal handlers (the process's default handling of those signals returns). */
  dispose(): void;
}

export type SignalAction = 'stop' | 'repeat' | 'force' | 'ignore';

/**
 * What one more signal means, given when the first one came (null: none yet) and whether a force was already
 * sent. Pure, so that the window's edges are tested without a clock.
 */
export function classifySignal(firstAt: number | null, forced: boolean, now: number, coalesceMs: number): SignalAction {
  if (firstAt === null) return 'stop';
  if (forced) return 'ignore';
  return now - firstAt <= coalesceMs ? 'repeat' : 'force';
}

export function installSignalForwarding(
  supervisor: Pick<Supervisor, 'stop'>,
  proc: SignalSource = process,
  options: SignalForwardingOptions = {},
): SignalForwarding {
  const signals = options.signals ?? (['SIGINT', 'SIGTERM'] as const);
  const graceMs = options.graceMs ?? 10_000;
  const childSignal = options.childSignal ?? 'SIGTERM';
  const coalesceMs = options.coalesceMs ?? 1000;
  const clock = options.clock ?? systemClock;
  let firstAt: number | null = null;
  let forced = false;
  let resolve!: (signal: NodeJS.Signals) => void;
  let reject!: (err: unknown) => void;
  const stopped = new Promise<NodeJS.Signals>((res, rej) => {
    resolve = res;
    reject = rej;
  });

  const onSignal = (signal: NodeJS.Signals): void => {
    const at = clock.monotonicMs();
    switch (classifySignal(firstAt, forced, at, coalesceMs)) {
      case 'stop':
        firstAt = at;
        klog.info('Received signal, stopping all supervised processes', {
          signal,
          childSignal,
          gracePeriodMs: graceMs,
        });
        supervisor.stop(childSignal, graceMs).then(() => resolve(signal), reject);
        return;
      case 'repeat':
        klog.info('Received the signal again right after the first, still stopping gracefully', {
          signal,
          sinceFirstMs: Math.round(at - firstAt!),
        });
        return;
      case 'force':
        forced = true;
        klog.warning('Received a second signal, killing all supervised processes', { signal });
        // The first stop()'s promise settles `stopped`; this one only hurries it along.
        supervisor.stop('SIGKILL', 0).catch(() => undefined);
        return;
      case 'ignore':
        return;
    }
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
