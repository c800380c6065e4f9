// The node page's decisions: which of a node's events are about its config, newest first.

import type { Event } from '../../api/types.js';

/** Reasons of the events about a node's config: the agent's KubeletConfigChanged, the rollout controller's. */
const CONFIG_REASON = /Config|Rollout/;

function when(e: Event): string {
  return e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata.creationTimestamp ?? '';
}

export function configEvents(events: Iterable<Event>, limit = 10): Event[] {
  return [...events]
    .filter((e) => CONFIG_REASON.test(e.reason ?? ''))
    .sort((a, b) => (when(a) < when(b) ? 1 : when(a) > when(b) ? -1 : 0))
    .slice(0, limit);
}

export function eventTime(e: Event): string {
  return when(e);
}
