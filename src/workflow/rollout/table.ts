// `dkc rollout list`: the CRD's printer columns laid out as kubectl lays out a table (Go's tabwriter with kubectl's
// settings: columns at least 6 wide, 3 spaces of padding, the last column unpadded).

import { age } from '../../api/humanize.js';
import type { NodeConfigRollout } from './types.js';
import { anyText } from '../../util/text.js';

export const COLUMNS = ['NAME', 'PHASE', 'TARGET', 'UPDATED', 'SUCCEEDED', 'FAILED', 'AGE'] as const;

const MIN_WIDTH = 6;
const PADDING = 3;

function cell(v: unknown): string {
  return v === undefined || v === null ? '' : anyText(v);
}

export function row(r: NodeConfigRollout, nowMs: number): string[] {
  const s = r.status ?? {};
  return [
    r.metadata.name,
    cell(s.phase),
    cell(s.targetNodes),
    cell(s.updatedNodes),
    cell(s.succeededNodes),
    cell(s.failedNodes),
    age(r.metadata.creationTimestamp, nowMs),
  ];
}

/** Aligns rows as kubectl's tabwriter does; each line ends with a newline. */
export function layout(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length + PADDING, MIN_WIDTH)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('') + '\n').join('');
}

/** The table, rollouts sorted by name as the server lists them; empty string for no rollouts. */
export function renderTable(items: readonly NodeConfigRollout[], nowMs: number): string {
  if (items.length === 0) return '';
  const sorted = [...items].sort((a, b) =>
    a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0,
  );
  return layout([[...COLUMNS], ...sorted.map((r) => row(r, nowMs))]);
}
