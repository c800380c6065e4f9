// The operator's rollout workflow (`dkc rollout`): flags → NodeConfigRollout, progress rendering, and the subcommands.

export {
  changeSpec,
  list,
  plan,
  processIo,
  start,
  status,
  type ConnectionFlags,
  type ExitCode,
  type Io,
  type PlanFlags,
  type StatusFlags,
} from './commands.js';
export { applySpecChange, isSpecCommand, SPEC_CHANGES, type SpecCommand } from './actions.js';
export { buildRollout, type StartFlags } from './spec.js';
export { exitCodeFor, exitCodeForPhase, progressBar, progressLines } from './render.js';
export { renderTable } from './table.js';
export * from './types.js';
