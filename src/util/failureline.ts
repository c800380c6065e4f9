// Why a dkc process failed, from what it wrote: the line the dkc binary prints when a command fails (`dkc: …`), else
// its last error or fatal klog line. Pure.

import { clip } from './clip.js';

/** A klog header: severity and date, time, pid, file:line]. */
const KLOG_HEADER = /^[EF]\d{4} \S+\s+\d+ \S+\] /;

/** The failure `log` states, without its klog header and cut to a log line's length; undefined when it states none. */
export function failureLine(log: string): string | undefined {
  const lines = log
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const fatal = lines.filter((l) => l.startsWith('dkc: ') || /^dkc [a-z-]+: /.test(l)).at(-1);
  if (fatal !== undefined) return clip(fatal.slice(fatal.indexOf(': ') + 2));
  const klogError = lines.filter((l) => KLOG_HEADER.test(l)).at(-1);
  return klogError === undefined ? undefined : clip(klogError.replace(KLOG_HEADER, ''));
}
