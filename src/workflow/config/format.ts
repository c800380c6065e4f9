// How diff and lint print: values in YAML's flow form (plain scalars where YAML reads them back the same), one line
// per changed leaf, coloured only on a terminal, and the JSON documents `-o json` prints for programs. Pure.

import type { FieldChange, JSONValue, SafetyClass } from '../../kubeletconfig/index.js';
import { messages } from './errors.js';

const RED = '\u001b[31m';
const GREEN = '\u001b[32m';
const YELLOW = '\u001b[33m';
const RESET = '\u001b[0m';

/** Strings YAML would read as something else (or not at all) when written plain. */
const NEEDS_QUOTES = /^$|^\s|\s$|^[-?:,[\]{}#&*!|>'"%@`]|: | #|^(true|false|yes|no|on|off|null|~|y|n)$|^\.(inf|nan)$/i;
/** Numbers (decimal, octal, hex, floats) and dates, which YAML reads as such when plain. */
const NUMERIC = /^[-+]?(\d[\d_]*(\.\d*)?|\.\d+)([eE][-+]?\d+)?$|^0[xo][\da-f_]+$|^\d{4}-\d\d?-\d\d?/i;

/** A value as YAML writes it in flow style: `110`, `10s`, `"10%"`, `["10.0.0.10"]`. */
export function valueText(v: JSONValue): string {
  if (typeof v === 'string') return NEEDS_QUOTES.test(v) || NUMERIC.test(v) ? JSON.stringify(v) : v;
  return JSON.stringify(v);
}

function paint(colour: string, text: string, tty: boolean): string {
  return tty ? `${colour}${text}${RESET}` : text;
}

/** `- path: old` and `+ path: new` for each changed leaf (a side is left out where the leaf is absent). */
export function diffLines(changes: readonly FieldChange[], tty: boolean): string[] {
  const out: string[] = [];
  for (const c of changes) {
    if (c.old !== undefined) out.push(paint(RED, `- ${c.path}: ${valueText(c.old)}`, tty));
    if (c.new !== undefined) out.push(paint(GREEN, `+ ${c.path}: ${valueText(c.new)}`, tty));
  }
  return out;
}

export interface ClassifiedChange extends FieldChange {
  /** Undefined for a path v1beta1 lacks. */
  readonly class?: SafetyClass;
  readonly reason?: string;
}

const CLASS_COLOUR: Readonly<Record<SafetyClass, string>> = { safe: GREEN, disruptive: YELLOW, dangerous: RED };

/** One line per changed field: its class, the change and the reason. */
export function lintLines(changes: readonly ClassifiedChange[], tty: boolean): string[] {
  return changes.map((c) => {
    const from = c.old === undefined ? messages.unset : valueText(c.old);
    const to = c.new === undefined ? messages.unset : valueText(c.new);
    const line = messages.lintChange(c.class ?? '?', c.path, from, to, c.reason ?? messages.lintUnclassified);
    return c.class ? paint(CLASS_COLOUR[c.class], line, tty) : line;
  });
}

/** `dkc config diff -o json`. */
export function diffJSON(a: string, b: string, changes: readonly FieldChange[]): string {
  return JSON.stringify({ a, b, equal: changes.length === 0, changes }, null, 2) + '\n';
}

export interface LintReport {
  source: string;
  against: string;
  errors: string[];
  warnings: string[];
  changes: ClassifiedChange[];
}

/** `dkc config lint -o json`. */
export function lintJSON(report: LintReport): string {
  return JSON.stringify(report, null, 2) + '\n';
}
