// From the violations found on each node to what the request gets: refused with one 403 message when a Deny policy
// is violated anywhere, otherwise let through with one warning per violation of a Warn policy. And the node's own
// verdict on a config it is about to run (the agent's, and the node daemon's for its kubelet): refused when a Deny
// policy that governs it is violated, status.config.error naming the policies in upstream's "see Kubelet log" form,
// the detail naming fields and bounds but no value. Pure.

import { policyError, type PolicyError } from '../api/configstatus.js';
import { evaluate, type ConfigSchema, type Violation } from './evaluate.js';
import type { EffectiveChange } from './flags.js';
import { MAX_REPORTED, messages } from './messages.js';
import type { NodeConfigPolicy } from './spec.js';

export interface NodeViolations {
  node: string;
  violations: readonly Violation[];
}

export interface Verdict {
  /** The reason to refuse the request; absent when it may proceed. */
  denied?: string;
  warnings: string[];
}

function capped(lines: string[]): string[] {
  return lines.length <= MAX_REPORTED
    ? lines
    : [...lines.slice(0, MAX_REPORTED), messages.more(lines.length - MAX_REPORTED)];
}

/** One clause per (policy, node) with Deny violations. */
function denyClauses(found: readonly NodeViolations[]): string[] {
  const clauses: string[] = [];
  for (const { node, violations } of found) {
    const policies = [...new Set(violations.filter((v) => v.enforcement === 'Deny').map((v) => v.policy))];
    for (const p of policies)
      clauses.push(
        messages.denied(
          p,
          node,
          violations.filter((v) => v.policy === p),
        ),
      );
  }
  return clauses;
}

export function verdict(found: readonly NodeViolations[]): Verdict {
  const clauses = denyClauses(found);
  if (clauses.length > 0) return { denied: capped(clauses).join('; '), warnings: [] };
  const warnings = found.flatMap(({ node, violations }) => violations.map((v) => messages.warning(node, v)));
  return { warnings: capped(warnings) };
}

/** Why a node refuses a config: the status error naming the policies, and the fields for the log and event. */
export interface PolicyDenial {
  reason: PolicyError;
  detail: string;
}

/**
 * The node's verdict on a change (effectiveChange: from its own config to the candidate, both as it runs them) under
 * the policies that govern it; undefined when no Deny policy is violated. Policies are named in name order.
 */
export function nodeRefusal(
  governing: readonly NodeConfigPolicy[],
  change: EffectiveChange,
  schema?: ConfigSchema,
): PolicyDenial | undefined {
  if (governing.length === 0) return undefined;
  const denied = evaluate(governing, {}, change, schema).filter((v) => v.enforcement === 'Deny');
  if (denied.length === 0) return undefined;
  const byPolicy = new Map<string, Violation[]>();
  for (const v of denied) byPolicy.set(v.policy, [...(byPolicy.get(v.policy) ?? []), v]);
  const names = [...byPolicy.keys()].sort();
  return { reason: policyError(names), detail: names.map((p) => messages.refused(p, byPolicy.get(p)!)).join('; ') };
}
