// The requests behind `dkc rollout pause|resume|undo`, in one place so that every front end (the command, the web
// view's buttons) makes exactly the same request with the caller's own credentials.

import type { RestClient } from '../../client/index.js';
import { patchSpec } from './api.js';
import { SPEC_CHANGES, type SpecCommand } from './changes.js';
import type { NodeConfigRollout } from './types.js';

export { isSpecCommand, SPEC_CHANGES, type SpecCommand } from './changes.js';

/** Applies one spec change; the server's errors (404, 403, …) are thrown as the client's ApiError. */
export function applySpecChange(client: RestClient, command: SpecCommand, name: string): Promise<NodeConfigRollout> {
  return patchSpec(client, name, SPEC_CHANGES[command][0]);
}
