// What a NodeConfigPolicy verdict says, in one place: the 403 message of a denied change and the warnings of a Warn
// policy (admission), where each violation names the field with its old and new value as `dkc config diff` shows
// them; and the agent's account of a config it refuses, which names fields and bounds but no value (the values are
// a ConfigMap's content, and the agent's words reach its status, events and log).

import type { JSONValue } from '../kubeletconfig/index.js';
import type { Violation, ViolationReason } from './evaluate.js';

/** At most this many node clauses in one message or warnings in one response: a rollout may select thousands. */
export const MAX_REPORTED = 20;

function valueText(v: JSONValue | undefined): string {
  return v === undefined ? '(unset)' : JSON.stringify(v);
}

function reasonText(r: ViolationReason): string {
  switch (r.kind) {
    case 'not-allowed':
      return 'not in allowedFields';
    case 'below-minimum':
      return `below the minimum ${String(r.bound)}`;
    case 'above-maximum':
      return `above the maximum ${String(r.bound)}`;
    case 'not-comparable':
      return `cannot be compared with the bound ${String(r.bound)}`;
  }
}

export const messages = {
  /** `maxPods: 110 -> 300 (above the maximum 250)` */
  violation: (v: Violation): string =>
    `${v.path}: ${valueText(v.old)} -> ${valueText(v.new)} (${reasonText(v.reason)})`,
  /** One policy's violations on one node, as a clause of the 403 message. */
  denied: (policy: string, node: string, violations: readonly Violation[]): string =>
    `NodeConfigPolicy ${JSON.stringify(policy)} denies the config change on node ${JSON.stringify(node)}: ${violations.map(messages.violation).join(', ')}`,
  more: (n: number): string => `and ${n} more`,
  /** One violation of a Warn policy, as a response warning. */
  warning: (node: string, v: Violation): string =>
    `NodeConfigPolicy ${JSON.stringify(v.policy)} (Warn) on node ${JSON.stringify(node)}: ${messages.violation(v)}`,
  /** `maxPods (above the maximum 250)`: a violation without its values. */
  field: (v: Violation): string => `${v.path} (${reasonText(v.reason)})`,
  /** One policy's violations, as the agent logs and reports them. */
  refused: (policy: string, violations: readonly Violation[]): string =>
    `NodeConfigPolicy ${JSON.stringify(policy)}: ${violations.map(messages.field).join(', ')}`,
};
