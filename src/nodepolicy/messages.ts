// What a NodeConfigPolicy verdict says, in one place: the 403 message of a denied change and the warnings of a Warn
// policy (admission), where each violation names the field with its old and new value as `dkc config diff` shows
// them — the node by name, or how many nodes, to a requester who may not list nodes, and the old value as
// `(not shown)` to one who may not read where the node's running config came from; and the agent's account of a config it refuses, which names fields and bounds but no value (the values are
// a ConfigMap's content, and the agent's words reach its status, events and log).

import type { JSONValue } from '../kubeletconfig/index.js';
import type { Violation, ViolationReason } from './evaluate.js';

/** At most this many node clauses in one message or warnings in one response: a rollout may select thousands. */
export const MAX_REPORTED = 20;

function valueText(v: JSONValue | undefined): string {
  return v === undefined ? '(unset)' : JSON.stringify(v);
}

/** An old value the requester may not be told. */
const WITHHELD = '(not shown)';

/** Which nodes a clause speaks of: one by name, or, to a requester who may not list nodes, how many. */
export type NodesNamed = { name: string } | { count: number };

const nodesText = (n: NodesNamed): string =>
  'name' in n ? `node ${JSON.stringify(n.name)}` : n.count === 1 ? '1 node' : `${n.count} nodes`;

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
  /** `maxPods: 110 -> 300 (above the maximum 250)`; `maxPods: (not shown) -> 300 (…)` when the old value is withheld. */
  violation: (v: Violation, withholdOld = false): string =>
    `${v.path}: ${withholdOld ? WITHHELD : valueText(v.old)} -> ${valueText(v.new)} (${reasonText(v.reason)})`,
  /** One policy's violations on one node (or on so many nodes), as a clause of the 403 message. */
  denied: (policy: string, nodes: NodesNamed, violations: readonly Violation[], withholdOld = false): string =>
    `NodeConfigPolicy ${JSON.stringify(policy)} denies the config change on ${nodesText(nodes)}: ${violations.map((v) => messages.violation(v, withholdOld)).join(', ')}`,
  more: (n: number): string => `and ${n} more`,
  /** One violation of a Warn policy on one node (or on so many nodes), as a response warning. */
  warning: (nodes: NodesNamed, v: Violation, withholdOld = false): string =>
    `NodeConfigPolicy ${JSON.stringify(v.policy)} (Warn) on ${nodesText(nodes)}: ${messages.violation(v, withholdOld)}`,
  /** `maxPods (above the maximum 250)`: a violation without its values. */
  field: (v: Violation): string => `${v.path} (${reasonText(v.reason)})`,
  /** One policy's violations, as the agent logs and reports them. */
  refused: (policy: string, violations: readonly Violation[]): string =>
    `NodeConfigPolicy ${JSON.stringify(policy)}: ${violations.map(messages.field).join(', ')}`,
};
