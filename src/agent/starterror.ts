// Why an agent could not start, as one coded error the agent's host reports in one line.

import { CodedError } from '../util/errors.js';

/** The agent cannot start: its local config, its endpoints or its config channel stand in the way. */
export class AgentStartError extends CodedError<'DKC_AGENT_START_FAILED'> {
  override name = 'AgentStartError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('DKC_AGENT_START_FAILED', message, options);
  }
}
