// Logging in klog's text format (`I1121 10:00:00.123456    1234 file.ts:42] message`), or one JSON object per
// line when the format is 'json' — the two formats the kubelet offers, so operators' log tooling keeps working.

export type LogFormat = 'text' | 'json';
type Severity = 'I' | 'W' | 'E';

let format: LogFormat = 'text';
let sink: (line: string) => void = (line) => process.stderr.write(line);
let verbosity = 0;

export function configureLogging(options: {
  format?: LogFormat;
  sink?: (line: string) => void;
  verbosity?: number;
}): void {
  if (options.format) format = options.format;
  if (options.sink) sink = options.sink;
  if (options.verbosity !== undefined) verbosity = options.verbosity;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/**
 * Where each module packed into a bundle (scripts/bundle.mjs) starts: bundle name → [first line, module name], in
 * line order. The bundle sets it on its first line, so that a line it logs names its module, not the bundle.
 */
type BundleFiles = Record<string, readonly (readonly [number, string])[]>;
const BUNDLE_FILES = Symbol.for('dkc.klog.bundleFiles');

/** The caller's `file.ts:line`, mapped back to the TypeScript source name. */
function caller(depth: number): string {
  const stack = new Error().stack?.split('\n')[depth] ?? '';
  const m = /([^/\\()\s]+?)\.(?:js|ts):(\d+):\d+\)?$/.exec(stack.trim());
  if (!m) return '???:1';
  const [file, line] = unbundled(m[1]!, Number(m[2]));
  return `${file}.ts:${line}`;
}

/** A bundle's file and line as the packed module's name and the line within its code; anything else as it is. */
function unbundled(file: string, line: number): [string, number] {
  const starts = (globalThis as { [BUNDLE_FILES]?: BundleFiles })[BUNDLE_FILES]?.[file];
  let found: readonly [number, string] | undefined;
  for (const s of starts ?? []) {
    if (s[0] > line) break;
    found = s;
  }
  return found ? [found[1], line - found[0]] : [file, line];
}

function emit(sev: Severity, msg: string, kv?: Record<string, unknown>, depth = 0): void {
  const now = new Date();
  if (format === 'json') {
    const obj: Record<string, unknown> = { ts: now.getTime() / 1000, caller: caller(4 + depth), msg };
    if (sev === 'E') obj['err'] = msg;
    if (sev !== 'I') obj['severity'] = sev === 'W' ? 'warning' : 'error';
    else obj['v'] = 0;
    if (kv) Object.assign(obj, kv);
    sink(JSON.stringify(obj) + '\n');
    return;
  }
  const ts =
    `${pad(now.getMonth() + 1, 2)}${pad(now.getDate(), 2)} ` +
    `${pad(now.getHours(), 2)}:${pad(now.getMinutes(), 2)}:${pad(now.getSeconds(), 2)}.${pad(now.getMilliseconds() * 1000, 6)}`;
  let line = `${sev}${ts} ${String(process.pid).padStart(7, ' ')} ${caller(4 + depth)}] ${msg}`;
  if (kv) for (const [k, v] of Object.entries(kv)) line += ` ${k}=${JSON.stringify(v)}`;
  sink(line + '\n');
}

export const klog = {
  /** Like info/error, attributed to a caller `depth` frames further up (for small logging wrappers). */
  depth(depth: number, severity: 'info' | 'warning' | 'error', msg: string): void {
    emit(severity === 'info' ? 'I' : severity === 'warning' ? 'W' : 'E', msg, undefined, depth + 1);
  },
  info(msg: string, kv?: Record<string, unknown>): void {
    emit('I', msg, kv);
  },
  /** Verbose info, printed only at or above the configured verbosity. */
  v(level: number, msg: string, kv?: Record<string, unknown>): void {
    if (level <= verbosity) emit('I', msg, kv);
  },
  warning(msg: string, kv?: Record<string, unknown>): void {
    emit('W', msg, kv);
  },
  error(msg: string, kv?: Record<string, unknown>): void {
    emit('E', msg, kv);
  },
};
