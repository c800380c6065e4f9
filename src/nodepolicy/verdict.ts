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
  /** The requester may not read where the node's running config came from: its old values are not quoted. */
  withholdOld?: boolean;
}

/** Whom a verdict speaks to: one who may list nodes is told their names; anyone else how many. */
export interface Recipient {
  nameNodes: boolean;
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

/**
 * One clause per (policy, node) with Deny violations; unnamed, the nodes whose clauses read alike are one clause
 * with their count, in the order first met.
 */
function denyClauses(found: readonly NodeViolations[], recipient: Recipient): string[] {
  const clauses = new Map<string, { policy: string; violations: readonly Violation[]; hide: boolean; n: number }>();
  const named: string[] = [];
  for (const { node, violations, withholdOld } of found) {
    const hide = withholdOld === true;
    const policies = [...new Set(violations.filter((v) => v.enforcement === 'Deny').map((v) => v.policy))];
    for (const p of policies) {
      const own = violations.filter((v) => v.policy === p);
      if (recipient.nameNodes) {
        named.push(messages.denied(p, { name: node }, own, hide));
        continue;
      }
      const key = messages.denied(p, { count: 1 }, own, hide);
      const c = clauses.get(key);
      if (c) c.n++;
      else clauses.set(key, { policy: p, violations: own, hide, n: 1 });
    }
  }
  if (recipient.nameNodes) return named;
  return [...clauses.values()].map((c) => messages.denied(c.policy, { count: c.n }, c.violations, c.hide));
}

/** One warning per violation of a Warn policy and node; unnamed, alike warnings are one with their node count. */
function warningLines(found: readonly NodeViolations[], recipient: Recipient): string[] {
  if (recipient.nameNodes)
    return found.flatMap(({ node, violations, withholdOld }) =>
      violations.map((v) => messages.warning({ name: node }, v, withholdOld === true)),
    );
  const counts = new Map<string, { v: Violation; hide: boolean; n: number }>();
  for (const { violations, withholdOld } of found)
    for (const v of violations) {
      const hide = withholdOld === true;
      const key = messages.warning({ count: 1 }, v, hide);
      const c = counts.get(key);
      if (c) c.n++;
      else counts.set(key, { v, hide, n: 1 });
    }
  return [...counts.values()].map((c) => messages.warning({ count: c.n }, c.v, c.hide));
}

export function verdict(found: readonly NodeViolations[], recipient: Recipient = { nameNodes: true }): Verdict {
  const clauses = denyClauses(found, recipient);
  if (clauses.length > 0) return { denied: capped(clauses).join('; '), warnings: [] };
  return { warnings: capped(warningLines(found, recipient)) };
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
