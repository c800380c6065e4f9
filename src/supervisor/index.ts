// Restart-on-exit with crash-loop accounting, for `dkc up` and for hosts without systemd.

export { SupervisorError, type SupervisorErrorCode } from './errors.js';
export {
  DEFAULT_BACKOFF,
  RestartBackoff,
  exponentialDelay,
  resolveBackoffOptions,
  type BackoffOptions,
  type ExitKind,
  type ResolvedBackoffOptions,
  type RestartDecision,
} from './backoff.js';
export {
  Supervisor,
  type ChildSpec,
  type ChildState,
  type ChildStatus,
  type ExitEvent,
  type LastExit,
  type RestartPolicy,
  type RunOutcome,
  type StartEvent,
  type SupervisorEvents,
  type SupervisorOptions,
} from './supervisor.js';
export {
  classifySignal,
  installSignalForwarding,
  type SignalAction,
  type SignalForwarding,
  type SignalForwardingOptions,
  type SignalSource,
} from './signals.js';
export {
  SUPERVISOR_FD_ENV,
  stopWhenSupervisorGone,
  supervisorFd,
  watchSupervisor,
  type SupervisorWatch,
} from './parentwatch.js';
export { CONTROL_SOCKET, controlMessages, requestRestart, serveControl, type ControlServer } from './control.js';
