// The spec changes behind `dkc rollout pause|resume|undo`, in one place so that every front end (the command, the
// web view's buttons) makes exactly the same request with the caller's own credentials.

import type { RestClient } from '../../client/index.js';
import { patchSpec } from './api.js';
import type { NodeConfigRollout, RolloutSpec } from './types.js';

export const SPEC_CHANGES = {
  pause: [{ paused: true }, 'paused'],
  resume: [{ paused: false }, 'resumed'],
  undo: [{ revert: true }, 'rolled back'],
} as const satisfies Record<string, readonly [Partial<RolloutSpec>, string]>;

export type SpecCommand = keyof typeof SPEC_CHANGES;

export function isSpecCommand(s: string): s is SpecCommand {
  return Object.hasOwn(SPEC_CHANGES, s);
}

/** Applies one spec change; the server's errors (404, 403, …) are thrown as the client's ApiError. */
export function applySpecChange(client: RestClient, command: SpecCommand, name: string): Promise<NodeConfigRollout> {
  return patchSpec(client, name, SPEC_CHANGES[command][0]);
}
