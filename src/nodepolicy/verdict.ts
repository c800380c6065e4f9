// From the violations found on each node to what the request gets: refused with one 403 message when a Deny policy
// is violated anywhere, otherwise let through with one warning per violation of a Warn policy. Pure.

import type { Violation } from './evaluate.js';
import { MAX_REPORTED, messages } from './messages.js';

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
  return lines.length <= MAX_REPORTED ? lines : [...lines.slice(0, MAX_REPORTED), messages.more(lines.length - MAX_REPORTED)];
}

/** One clause per (policy, node) with Deny violations. */
function denyClauses(found: readonly NodeViolations[]): string[] {
  const clauses: string[] = [];
  for (const { node, violations } of found) {
    const policies = [...new Set(violations.filter((v) => v.enforcement === 'Deny').map((v) => v.policy))];
    for (const p of policies) clauses.push(messages.denied(p, node, violations.filter((v) => v.policy === p)));
  }
  return clauses;
}

export function verdict(found: readonly NodeViolations[]): Verdict {
  const clauses = denyClauses(found);
  if (clauses.length > 0) return { denied: capped(clauses).join('; '), warnings: [] };
  const warnings = found.flatMap(({ node, violations }) => violations.map((v) => messages.warning(node, v)));
  return { warnings: capped(warnings) };
}
