// The spec change each of `dkc rollout pause|resume|undo` makes, and the word for it. Pure, so that the web view's
// page shows the same words as the command.

import type { RolloutSpec } from './types.js';

export const SPEC_CHANGES = {
  pause: [{ paused: true }, 'paused'],
  resume: [{ paused: false }, 'resumed'],
  undo: [{ revert: true }, 'rolled back'],
} as const satisfies Record<string, readonly [Partial<RolloutSpec>, string]>;

export type SpecCommand = keyof typeof SPEC_CHANGES;

export function isSpecCommand(s: string): s is SpecCommand {
  return Object.hasOwn(SPEC_CHANGES, s);
}
